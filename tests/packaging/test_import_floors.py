"""The floor plan (docs/architecture.md, "Floors"): no import circle, no import from a floor above.

The rule, checked on the source of every module of the package:

- an **arrow** is every ``import`` / ``from ... import`` statement in a module, wherever it stands: at the
  top, inside a function (a lazy import is still a dependency) or under ``if TYPE_CHECKING``; relative
  imports are resolved; ``from pkg import name`` is an arrow to the module ``pkg.name`` when that is a
  module, else to ``pkg`` (its ``__init__``, the room's face, which imports the room's modules);
- **no circle**: the arrows between modules form no cycle, of any length (a module importing its own
  room's face counts: the face imports it back);
- **no upward import**: every module has a floor (:data:`FLOORS`, by room, no exceptions: a room's modules all
  stand on its floor); an arrow goes to the same floor or a lower one. A new room must be given its floor here and
  on the page;
- **one way on a floor**: rooms on the same floor import each other one way only (no circle between rooms).
"""
from __future__ import annotations

import ast
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import costmodel

PACKAGE = Path(costmodel.__file__).parent

#: floor -> the module name prefixes on it (the longest matching prefix decides; see docs/architecture.md)
FLOORS: dict[int, tuple[str, ...]] = {
    0: ("costmodel", "costmodel.foundation", "costmodel.numeric"),  # the root face, the foundation, SciPy-free kernels
    1: ("costmodel.contracts",),  # the typed seams: result models, reading them back, pydantic errors
    2: ("costmodel.ingest", "costmodel.jobs", "costmodel.warmup", "costmodel.prices", "costmodel.cost",
        "costmodel.checklist", "costmodel.charts", "costmodel.simulate", "costmodel.synthetic", "costmodel.bench", "costmodel.place",
        "costmodel.trial"),
    3: ("costmodel.report",),  # the outputs
    4: ("costmodel.interactive", "costmodel.commands", "costmodel.cli", "costmodel.__main__",
        "costmodel.data"),  # the shells: anything may be imported here
}
NAMES = {"costmodel": "the package", 0: "foundation", 1: "contracts", 2: "pure logic", 3: "outputs", 4: "shells"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name."""
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path) -> set[str]:
    """The costmodel modules ``path`` imports (arrows, as the module docstring defines them)."""
    mods = modules()
    name = _module_name(path)
    pkg = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            for a in node.names:
                sub = f"{mod}.{a.name}"
                out.add(sub if sub in mods else mod)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m in mods and m != name}


@cache
def arrows() -> dict[str, frozenset[str]]:
    return {m: frozenset(_imports(p)) for m, p in modules().items()}


def floor_of(module: str) -> int:
    """The floor of a dotted module name: its longest matching prefix in :data:`FLOORS`."""
    best, best_len = -1, -1
    for floor, prefixes in FLOORS.items():
        for pre in prefixes:
            if (module == pre or module.startswith(pre + ".")) and len(pre) > best_len:
                best, best_len = floor, len(pre)
    return best


def cycles(graph: dict[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # iterative enough for a package of a few hundred modules
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_no_import_circle_of_any_length():
    assert cycles(arrows()) == []


def test_no_module_imports_from_a_floor_above_its_own():
    offenders = [f"{m} (floor {floor_of(m)}) -> {d} (floor {floor_of(d)})"
                 for m, deps in sorted(arrows().items()) for d in sorted(deps) if floor_of(d) > floor_of(m)]
    assert offenders == []


def room_arrows() -> dict[str, set[str]]:
    """Room -> the other rooms of its own floor that its modules import."""
    out: dict[str, set[str]] = {}
    for m, deps in arrows().items():
        room = ".".join(m.split(".")[:2])
        for d in deps:
            other = ".".join(d.split(".")[:2])
            if other != room and floor_of(d) == floor_of(m):
                out.setdefault(room, set()).add(other)
    return out


def test_rooms_on_one_floor_import_each_other_one_way():
    assert cycles(room_arrows()) == []  # before: ingest.api -> jobs.discover and jobs.load -> ingest
    assert "costmodel.jobs" not in room_arrows().get("costmodel.ingest", set())  # ranks are given by jobs


def test_every_room_stands_on_one_floor():
    # no module of a room on a floor other than its room's: FLOORS names rooms only (before: contracts.schema,
    # simulate.whatif and contracts.__main__ stood on floors above their rooms')
    named = {pre for prefixes in FLOORS.values() for pre in prefixes}
    assert sorted(pre for pre in named if pre.count(".") > 1) == []


def test_every_module_has_a_floor():
    assert [m for m in modules() if floor_of(m) < 0] == []
    # a new room is placed on purpose: every package directly under costmodel/ is named in FLOORS
    rooms = {f"costmodel.{p.name}" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    named = {pre for prefixes in FLOORS.values() for pre in prefixes}
    assert sorted(rooms - named) == []


def test_the_rule_catches_what_it_should():
    # a two-module circle through lazy imports, a three-module one through a face, and none
    assert cycles({"a": ["b"], "b": ["a"], "c": []}) == [["a", "b"]]
    assert cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert cycles({"a": ["b"], "b": ["c"], "c": []}) == []
    assert floor_of("costmodel.checklist.verdict") == 2 and floor_of("costmodel.charts.fleet") == 2
    assert floor_of("costmodel.simulate.simulator") == 2 and floor_of("costmodel.simulate.whatif") == 2
    assert floor_of("costmodel.report.stages") == 3 and floor_of("costmodel.checklist.adr") == 2
    assert floor_of("costmodel.contracts.results") == 1 and floor_of("costmodel.contracts.schema") == 1
    assert floor_of("costmodel.foundation.errors") == 0 and floor_of("costmodel") == 0
    assert floor_of("costmodel.interactive.wizard") == 4 and floor_of("costmodel.commands.scaffold") == 4
    assert floor_of("costmodel.commands.published_schemas") == 4


def test_the_import_scan_sees_every_kind_of_import():
    # relative, lazy (inside a function) and TYPE_CHECKING imports are arrows; a face is an arrow to __init__
    wizard = arrows()["costmodel.interactive.wizard"]
    assert "costmodel.checklist" in wizard and "costmodel.foundation.errors" in wizard
    assert "costmodel.interactive.wizard" in arrows()["costmodel.interactive"]
    assert "costmodel.checklist.cost_line" in arrows()["costmodel.checklist.adr"]  # a lazy import
    assert "costmodel.contracts.results" in arrows()["costmodel.checklist.adr"]  # TYPE_CHECKING and lazy
    assert "costmodel.foundation.units_fmt" in arrows()["costmodel.commands.fit"]  # from ..foundation import units_fmt


def test_the_architecture_page_shows_these_floors():
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    floors = page[page.index("## Floors"):]
    for prefixes in FLOORS.values():
        for pre in prefixes:
            short = pre.removeprefix("costmodel.").removeprefix("costmodel")
            assert not short or f"`{short}`" in floors, short


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
             "cli", "contracts", "packaging", "reliability", "lab", "synthetic", "numeric", "place", "trial"}
    files = sorted(TESTS.rglob("test_*.py"))
    assert len(files) > 50
    stray = [f.relative_to(TESTS).as_posix() for f in files if f.parent == TESTS or f.relative_to(TESTS).parts[0] not in rooms]
    assert stray == []  # every test file lives in a room folder (tests/<room>/test_<behaviour>.py)
    names = [f.name for f in files]
    assert sorted({n for n in names if names.count(n) > 1}) == []  # pytest imports them by basename
