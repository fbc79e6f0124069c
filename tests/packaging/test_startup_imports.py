"""Start-up stays cheap: which libraries each small answer imports (a test of imports, not of time).

``costmodel --help`` imports no numerical library at all; ``costmodel cost`` on the bundled example no
SciPy, pandas, pyarrow or pydantic result models; ``costmodel fit`` of a 10,000-step log no SciPy and no
DuckDB. Importing scipy.stats / scipy.optimize took 0.6-1.5 s of each such command (BENCHMARKS.md,
start-up section); the numbers come from :mod:`costmodel.numeric` instead (same values, tested there).
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from support.paths import EXAMPLES, REPO

PROBE = """
import contextlib, io, json, sys
from costmodel.cli import main
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    try:
        rc = main(sys.argv[1:])
    except SystemExit as exc:
        rc = exc.code
print(json.dumps({"rc": rc, "out": out.getvalue(), "err": err.getvalue()[-2000:], "modules": sorted(sys.modules)}))
"""


def _imports(*args: str) -> tuple[int, set[str], str]:
    """Run ``costmodel ARGS`` in a fresh interpreter; its exit status, the top-level names of every module
    it imported (and the costmodel modules by full name), and its stdout."""
    r = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=REPO, timeout=300,
                       check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    d = json.loads(r.stdout)
    mods = set(d["modules"])
    return d["rc"], {m.split(".")[0] for m in mods} | {m for m in mods if m.startswith("costmodel.")}, d["out"]


HEAVY = {"numpy", "pandas", "scipy", "pyarrow", "pydantic", "yaml", "altair", "duckdb", "jsonschema", "nbformat",
         "papermill", "dask", "distributed", "fsspec", "matplotlib", "ipywidgets"}


def test_help_imports_no_numerical_library():
    rc, mods, out = _imports("--help")
    assert rc == 0 and "usage: costmodel" in out
    assert mods & HEAVY == set()


def test_a_verbs_help_imports_none_either():
    rc, mods, out = _imports("fit", "--help")
    assert rc == 0 and "--engine" in out
    assert mods & HEAVY == set()


def test_cost_on_the_bundled_example_needs_numpy_yaml_and_the_scenario_model_only():
    rc, mods, out = _imports("cost", str(EXAMPLES / "scenario.yaml"), "--json")
    assert rc == 0 and json.loads(out)["cheapest"]
    assert {"numpy", "yaml", "pydantic"} <= mods  # what it does need (the probe is not vacuous)
    assert mods & {"scipy", "pandas", "pyarrow", "altair", "duckdb", "jsonschema"} == set()
    assert "costmodel.contracts.results" not in mods  # the result models load only when a result is read


@pytest.fixture(scope="module")
def steps_10k(tmp_path_factory):
    """A 10,000-step per-step CSV with a warm-up (what a user fits)."""
    rng = np.random.default_rng(7)
    step = np.arange(10_000)
    thr = 600.0 * (1 - 0.4 * np.exp(-step / 400.0)) * (1 + 0.02 * rng.standard_normal(10_000))
    st = 256.0 / thr
    path = tmp_path_factory.mktemp("fit") / "steps.csv"
    path.write_text("step,t_s,samples_per_s,step_time_s\n" + "\n".join(
        f"{i},{t:.6f},{x:.6f},{s:.6f}" for i, t, x, s in zip(step, np.cumsum(st), thr, st, strict=True)) + "\n")
    return path


def test_fit_of_a_10k_step_log_imports_no_scipy_and_no_duckdb(steps_10k):
    rc, mods, out = _imports("fit", str(steps_10k), "--json")
    assert rc == 0
    fit = json.loads(out)[0]
    assert fit["classification"] == "warmup" and fit["steady_ci_low"] < fit["steady_mean"] < fit["steady_ci_high"]
    assert {"numpy", "pandas"} <= mods
    assert mods & {"scipy", "duckdb", "altair", "pydantic", "jsonschema", "dask"} == set()
