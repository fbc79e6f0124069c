"""Shared test fixtures: where the real benchmark outputs live, deterministic seeds, the ``cli`` runner.

Tests are laid out like the package (``tests/<room>/test_<behaviour>.py``, basenames unique); helpers
that several tests share are in ``tests/support/`` (never import from a test file).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from support.cli import Cli
from support.paths import ARTIFACTS, EXAMPLES, REAL_DIR, REPO

# The disk cache of predictions and compares (foundation.diskcache) is off in tests, for them and for the processes
# they start: every test computes what it checks (tests/place/test_prediction_cache.py turns it on in a tmp folder).
os.environ["COSTMODEL_CACHE"] = "0"


@pytest.fixture(scope="session")
def cli() -> Cli:
    """Run a verb: ``r = cli("fit", path, "--json")`` -> ``Result(rc, out, err, ...)`` (``r.json`` parses
    stdout; ``rc, out, err = r`` unpacks); ``cli.json(...)`` asserts exit 0 and returns the JSON;
    ``cli.subprocess(...)`` runs ``python -m costmodel`` as a child process."""
    return Cli()


@pytest.fixture(scope="session")
def repo_dir() -> Path:
    """The repository root (the tree under test)."""
    return REPO


@pytest.fixture(scope="session")
def real_dir() -> Path:
    """The folder of real outputs written by other people (never copied into the repo).

    Skips where the folder is absent, except under CI, where its absence is a failure.
    """
    if not REAL_DIR.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"real fixtures folder {REAL_DIR} is not visible in CI")
        pytest.skip(f"real fixtures folder {REAL_DIR} is absent")
    return REAL_DIR


@pytest.fixture(scope="session")
def skypilot_dir() -> Path:
    """Real rows of SkyPilot's price catalog (``<cloud>/vms.csv``; never copied into the repo). Skips where absent,
    except under CI."""
    from support.paths import SKYPILOT_DIR

    if not (SKYPILOT_DIR / "aws" / "vms.csv").is_file():
        if os.environ.get("CI"):
            pytest.fail(f"SkyPilot catalog fixtures {SKYPILOT_DIR} are not visible in CI")
        pytest.skip(f"SkyPilot catalog fixtures {SKYPILOT_DIR} are absent")
    return SKYPILOT_DIR


@pytest.fixture(scope="session")
def price_files_dir() -> Path:
    """Excerpts of the providers' own price files (tests/data/prices, provenance in its SOURCES.md)."""
    return REPO / "tests" / "data" / "prices"


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def examples_dir() -> Path:
    return EXAMPLES


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def report_stages():
    """The report's stages run once on the bundled example (200 Monte Carlo draws):
    ``(params, inputs, fits, compare, cost, decision, record)``. Treat as read-only."""
    from costmodel import report

    p = report.validate_parameters(monte_carlo_n=200)
    inputs = report.load_inputs(p)
    fits = report.fit_runs(inputs, p)
    cmp = report.compare_runs(inputs, p, fits)
    cost = report.cost_stage(p, cmp)
    decision = report.checklist_stage(p, cmp, cost.typed, fits)
    record = report.decision_record(inputs, fits, cmp, cost, decision, p)
    return p, inputs, fits, cmp, cost, decision, record
