"""Issue 29: the package root holds only the entry points and the rooms; the modules that moved keep the
old import paths the 0.3 docs showed (foundation/moved.py), and nothing of ours still uses one."""
from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import REPO

import costmodel
from costmodel.foundation.moved import MOVED

PACKAGE = Path(costmodel.__file__).parent


def test_the_root_holds_only_the_entry_points_and_rooms():
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "cli.py"]
    rooms = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    assert {"foundation", "prices", "synthetic", "checklist", "commands", "contracts", "cost", "ingest"} <= set(rooms)


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_import_path_gives_the_moved_module_and_says_where_it_went(old: str):
    code = (f"import warnings, importlib\nwarnings.simplefilter('error')\n"
            f"try:\n    importlib.import_module({old!r})\nexcept DeprecationWarning as w:\n    print(w)\n"
            f"warnings.simplefilter('ignore')\nold = importlib.import_module({old!r})\n"
            f"new = importlib.import_module({MOVED[old]!r})\n"
            f"print(old is new, new.__spec__.name)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stderr
    warning, same = p.stdout.splitlines()
    assert warning == f"{old} moved to {MOVED[old]}: import it from there"
    assert same == f"True {MOVED[old]}"  # one module object, its own spec kept


def test_the_moved_modules_exist_and_an_unknown_name_is_still_an_error():
    for new in MOVED.values():
        assert importlib.util.find_spec(new) is not None, new
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("costmodel.no_such_module")


def _imported_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_no_code_of_ours_uses_an_old_path():
    files = [*PACKAGE.rglob("*.py"), *(REPO / "tests").rglob("*.py"), *(REPO / "benchmarks").rglob("*.py")]
    users = sorted(f"{f.relative_to(REPO)}: {n}" for f in files if f.name != "test_rooms_and_old_import_paths.py"
                   for n in _imported_names(f) & set(MOVED))
    assert users == []
    for nb in sorted((PACKAGE / "notebooks").glob("*.ipynb")):
        code = "\n".join("".join(c["source"]) for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "code")
        assert not [old for old in MOVED if f"from {old} import" in code or f"import {old}\n" in code], nb.name


def test_the_architecture_page_lists_every_old_path():
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = page[page.index("## Old import paths"):]
    assert [old for old in MOVED if f"`{old}`" not in table] == []
    assert "`costmodel.widgets`" in table  # and says the deprecated alias is gone
