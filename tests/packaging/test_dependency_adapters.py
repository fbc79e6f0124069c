"""No private internals of dependencies (docs/architecture.md, "Adapters"): what leans on a dependency's behaviour
beyond its documented API lives in one adapter module per dependency, each tested on a stated version range; the
rest of the package uses public names only."""
from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

import costmodel
from costmodel.foundation.adapters import _release, in_tested_range

PACKAGE = Path(costmodel.__file__).parent
ADAPTERS = sorted(PACKAGE.rglob("adapters/*_adapter.py"))


def _module(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def test_the_adapters_are_found():
    assert {p.name for p in ADAPTERS} == {"jsonschema_adapter.py", "papermill_adapter.py", "scipy_adapter.py"}


@pytest.mark.parametrize("path", ADAPTERS, ids=lambda p: p.stem)
def test_each_installed_dependency_lies_in_its_adapters_tested_range(path: Path):
    mod = importlib.import_module(_module(path))
    assert mod.TESTED, f"{path.name}: TESTED names no dependency"
    for dist, tested in mod.TESTED.items():
        ok, have = in_tested_range(dist, tested)
        assert ok, (f"{dist} {have} is outside the range {_module(path)} was tested on [{tested[0]}, {tested[1]}): "
                    f"check what the adapter leans on against this version, then widen TESTED")


def test_the_range_check_fails_outside_the_range():
    assert _release("2.7.0") == (2, 7, 0) and _release("0.11.0rc1") == (0, 11, 0) and _release("4.26.0+cpu") == (4, 26, 0)
    assert in_tested_range("papermill", ("0.1", "0.2"))[0] is False  # 2.7 installed: past the range
    assert in_tested_range("papermill", ("99", "100"))[0] is False
    assert in_tested_range("no-such-distribution-here", ("1", "2")) == (True, None)


def _stdlib(name: str) -> bool:
    return name.split(".")[0] in sys.stdlib_module_names


def _private_uses(path: Path) -> list[str]:
    """``dep._name`` on an imported dependency, ``from dep._mod import`` and ``sys.modules[...] = ...``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    deps: set[str] = set()
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            deps.update((a.asname or a.name).split(".")[0] for a in node.names
                        if not a.name.startswith("costmodel") and not _stdlib(a.name))
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module and not node.module.startswith(
                "costmodel") and not _stdlib(node.module):
            deps.update(a.asname or a.name for a in node.names)
            if any(p.startswith("_") and not p.startswith("__") for p in node.module.split(".")):
                out.append(f"line {node.lineno}: from {node.module} import ...")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in deps
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            out.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Subscript) and isinstance(t.value, ast.Attribute) and t.value.attr == "modules"
                and isinstance(t.value.value, ast.Name) and t.value.value.id == "sys" for t in node.targets):
            out.append(f"line {node.lineno}: sys.modules[...] = ...")
    return sorted(out, key=lambda u: int(u.split(":")[0].split()[1]))


def test_no_private_part_of_a_dependency_outside_the_adapters():
    adapters = {p.parent for p in ADAPTERS}
    found = {p.relative_to(PACKAGE).as_posix(): uses for p in sorted(PACKAGE.rglob("*.py"))
             if p.parent not in adapters and (uses := _private_uses(p))}
    assert found == {}


def test_the_scan_sees_what_it_should(tmp_path: Path):
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nimport papermill.engines as pe\nfrom yaml._yaml import CParser\n"
                   "pe._engines.pop('x')\nsys.modules['boto3'] = None\nimport os\nos._exit\n", encoding="utf-8")
    assert _private_uses(bad) == ["line 3: from yaml._yaml import ...", "line 4: pe._engines",
                                  "line 5: sys.modules[...] = ..."]
    assert any("sys.modules" in u for u in _private_uses(PACKAGE / "foundation" / "adapters" / "__init__.py"))
