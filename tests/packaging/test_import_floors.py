"""The rooms' import rules (docs/architecture.md): the interactive shells sit above the pure logic, and
the moved modules' old faces keep naming what notebooks, docs and tests import."""
from __future__ import annotations

import ast
from pathlib import Path

import costmodel

PACKAGE = Path(costmodel.__file__).parent


def _imports(path: Path) -> set[str]:
    """Absolute names of the costmodel modules ``path`` imports (relative imports resolved)."""
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    pkg = parts if parts[-1] == "__init__" else parts[:-1]
    if pkg and pkg[-1] == "__init__":
        pkg = pkg[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m == "costmodel" or m.startswith("costmodel.")}


#: Floors 3 and 4 of docs/architecture.md: the outputs (report, ADR, what-if) and the shells above them.
OUTPUTS = ("costmodel.report", "costmodel.checklist.adr", "costmodel.simulate.whatif", "costmodel.contracts.schema",
           "costmodel.contracts.__main__")
SHELLS = ("costmodel.interactive", "costmodel.commands", "costmodel.cli", "costmodel.__main__")


def _floor(rel: str) -> int:
    """The floor of a module given by its path under the package (see docs/architecture.md)."""
    mod = "costmodel." + rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    if any(mod == m or mod.startswith(m + ".") for m in SHELLS):
        return 4
    if any(mod == m or mod.startswith(m + ".") for m in OUTPUTS):
        return 3
    return 2


def _above(name: str, floor: int) -> bool:
    upper = OUTPUTS + SHELLS if floor < 3 else SHELLS
    return any(name == m or name.startswith(m + ".") for m in upper)


def test_no_module_imports_from_a_floor_above_its_own():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        floor = _floor(rel)
        if floor == 4:
            continue  # the shells may import anything
        bad = sorted(m for m in _imports(path) if _above(m, floor))
        if bad:
            offenders.append(f"{rel} (floor {floor}): {', '.join(bad)}")
    assert offenders == []


def test_the_floors_are_assigned_as_documented():
    assert _floor("checklist/verdict.py") == 2 and _floor("charts/fleet.py") == 2
    assert _floor("simulate/simulator.py") == 2 and _floor("simulate/whatif.py") == 3
    assert _floor("report/stages.py") == 3 and _floor("checklist/adr.py") == 3 and _floor("contracts/schema.py") == 3
    assert _floor("contracts/inputs.py") == 2 and _floor("contracts/results.py") == 2
    assert _floor("interactive/wizard.py") == 4 and _floor("commands/decide.py") == 4 and _floor("commands/scaffold.py") == 4
    assert _above("costmodel.interactive.wizard", 3) and _above("costmodel.report", 2)
    assert not _above("costmodel.report.display", 3) and not _above("costmodel.checklist", 2)


def test_the_import_scan_sees_relative_imports():
    # the rule above is only as good as the scan: the wizard's relative imports resolve to absolute names
    found = _imports(PACKAGE / "interactive" / "wizard.py")
    assert "costmodel.checklist.Evidence" in found
    assert "costmodel.foundation.errors.ChecklistError" in found
    assert "costmodel.interactive.wizard" in _imports(PACKAGE / "interactive" / "__init__.py")


def test_faces_name_what_notebooks_and_docs_use():
    from costmodel import charts, checklist, interactive, simulate

    for name in ("ITEMS", "ITEM_IDS", "Answer", "Evidence", "Decision", "Item", "ItemResult", "parse_answers",
                 "read_answers_file", "load_answers", "save_answers", "answers_template", "gather_evidence",
                 "evaluate", "decide", "note_problem", "MEASURED_ITEMS", "PREDICTION_CONDITION", "MIN_HIT_RATIO"):
        assert hasattr(checklist, name), name
    for name in ("throughput", "overlay", "cost_terms", "break_even", "tornado", "monte_carlo", "checklist",
                 "rank_heatmap", "job_heatmaps", "show", "to_svg", "preload", "lean_imports", "MAX_ROWS"):
        assert callable(getattr(charts, name)) or name == "MAX_ROWS", name
    assert charts.checklist.__module__ == "costmodel.charts.decision"  # the function, not a module
    assert simulate.simulate.__module__ == "costmodel.simulate.simulator"
    assert interactive.ChecklistWizard.__module__ == "costmodel.interactive.wizard"


def test_tests_are_laid_out_like_the_package_with_unique_basenames():
    from support.paths import TESTS

    rooms = {"ingest", "warmup", "cost", "prices", "checklist", "report", "simulate", "bench", "jobs", "charts",
             "cli", "contracts", "packaging", "reliability", "lab", "synthetic"}
    files = sorted(TESTS.rglob("test_*.py"))
    assert len(files) > 50
    stray = [f.relative_to(TESTS).as_posix() for f in files if f.parent == TESTS or f.relative_to(TESTS).parts[0] not in rooms]
    assert stray == []  # every test file lives in a room folder (tests/<room>/test_<behaviour>.py)
    names = [f.name for f in files]
    assert sorted({n for n in names if names.count(n) > 1}) == []  # pytest imports them by basename
