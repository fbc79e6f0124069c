"""`make test` (what CI runs) starts with `make lint` and `make typecheck`, with the tools pinned in one place."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PINNED = ("ruff", "mypy", "pandas-stubs", "scipy-stubs", "types-PyYAML")


def _make_rule(target: str) -> tuple[list[str], list[str]]:
    """(prerequisites, recipe lines) of ``target`` in the Makefile."""
    lines = (REPO / "Makefile").read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        m = re.match(rf"^{re.escape(target)}:(?!=)(.*)$", line)
        if m:
            recipe = []
            for nxt in lines[i + 1:]:
                if not nxt.startswith("\t"):
                    break
                recipe.append(nxt.strip())
            return m.group(1).split(), recipe
    raise AssertionError(f"no '{target}:' rule in the Makefile")


def test_make_test_runs_lint_and_typecheck_before_the_suite():
    prereqs, _ = _make_rule("test")
    assert "lint" in prereqs and "typecheck" in prereqs and "pytest" in prereqs
    assert prereqs.index("lint") < prereqs.index("pytest") and prereqs.index("typecheck") < prereqs.index("pytest")
    _, lint = _make_rule("lint")
    _, typecheck = _make_rule("typecheck")
    assert lint == ["$(BIN)/ruff check costmodel tests benchmarks"]
    assert typecheck == ["$(BIN)/mypy"]  # the package and every setting come from [tool.mypy]


def test_make_test_runs_the_slow_tests_and_pytest_fast_leaves_only_them_out():
    """CI runs `make test`: the tests marked slow (statistical calibrations, a signal at each stage of a real
    report) run there; `make pytest-fast` is the edit-test loop (docs/contributing.md, "Test suite")."""
    tomllib = pytest.importorskip("tomllib")
    _, pytest_recipe = _make_rule("pytest")
    assert pytest_recipe == ["$(BIN)/python -m pytest -q $(PYTEST_XDIST)"]  # every test, no -m or -k filter
    _, fast = _make_rule("pytest-fast")
    assert fast == ['$(BIN)/python -m pytest -q $(PYTEST_XDIST) -m "not slow"']
    options = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "slow" not in options.get("addopts", "")  # no default that would drop them from CI


def test_make_test_runs_the_suite_in_xdist_workers_a_file_per_worker():
    """The suite's wall time on 2 cores (docs/contributing.md, "Test suite"): pytest-xdist workers, one per CPU
    and at most 4, each test file whole on one worker (its module-scoped emulator or snapshot built once);
    pytest-xdist comes from the dev extra that `make venv` installs, pinned in the constraints."""
    tomllib = pytest.importorskip("tomllib")
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^PYTEST_XDIST\s+:= -n \$\(PYTEST_WORKERS\) --dist loadfile$", text, flags=re.MULTILINE)
    workers = re.search(r"^PYTEST_WORKERS \?= (.*)$", text, flags=re.MULTILINE)
    assert workers and "nproc" in workers.group(1) and "-gt 4" in workers.group(1)
    dev = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]["dev"]
    assert any(d.startswith("pytest-xdist") for d in dev)
    constraints = (REPO / "tools" / "constraints-dev.txt").read_text(encoding="utf-8").splitlines()
    assert any(line.startswith("pytest-xdist==") for line in constraints)
    assert any(line.startswith("execnet==") for line in constraints)


def test_ci_runs_make_test():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^make test$", ci, flags=re.MULTILINE)


def test_lint_and_type_tools_pinned_alike_in_dev_extra_and_constraints():
    tomllib = pytest.importorskip("tomllib")
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    dev = {d.split("==")[0].strip(): d.split("==")[1].strip() for d in meta["project"]["optional-dependencies"]["dev"]
           if "==" in d}
    constraints: dict[str, str] = {}
    for line in (REPO / "tools" / "constraints-dev.txt").read_text(encoding="utf-8").splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==")
            constraints[name.strip().lower()] = version.strip()
    for tool in PINNED:
        assert tool in dev, f"{tool} is not pinned (==) in the dev extra"
        pinned = constraints.get(tool.lower())
        assert pinned == dev[tool], f"{tool}: dev extra {dev[tool]}, constraints {pinned}"


def test_checker_settings_target_the_oldest_supported_python():
    tomllib = pytest.importorskip("tomllib")
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["requires-python"] == ">=3.10"
    assert meta["tool"]["ruff"]["target-version"] == "py310"
    mypy = meta["tool"]["mypy"]
    assert mypy["python_version"] == "3.10" and mypy["packages"] == ["costmodel"]
    assert mypy["check_untyped_defs"] is True and mypy["warn_unused_ignores"] is True
    assert "ignore_missing_imports" not in mypy  # only per module, for the ones without stubs
