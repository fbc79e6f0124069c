"""No module of the package over 600 lines (one job per module; docs/architecture.md): a module that grows past it
is split by subject, as cost/resolve.py, warmup/analyze.py and contracts/results.py were."""
from __future__ import annotations

from support.paths import REPO

MAX_LINES = 600


def test_no_module_over_600_lines():
    sizes = {p.relative_to(REPO).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
             for p in (REPO / "costmodel").rglob("*.py")}
    assert len(sizes) > 100
    over = {k: v for k, v in sizes.items() if v > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines (split them by subject): {over}"


def test_no_issue_numbers_in_the_code():
    """The history of a change lives in CHANGELOG.md, not in "issue N" comments of the code."""
    import re

    pattern = re.compile(r"\b[Ii]ssues? \d+")
    found = [f"{p.relative_to(REPO).as_posix()}:{i}" for p in (REPO / "costmodel").rglob("*.py")
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not found, f"'issue N' in the code (move it to CHANGELOG.md): {found[:10]}"
