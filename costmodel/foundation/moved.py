"""Import paths that the 0.3 documentation showed, for modules that have since moved into rooms.

A refactoring moved the loose modules of the package root into rooms (``costmodel.errors`` is now
``costmodel.foundation.errors``). A user's code, or a notebook copied with ``costmodel notebook`` before
the move, may still import an old name the docs showed; :data:`MOVED` keeps those names importing the
module at its new place, with a :class:`DeprecationWarning` that names the new path. No file stays at
the old path: the package root holds only ``__init__``, ``__main__``, ``cli`` and the rooms, and git
follows each moved file as a rename. The package's own code never uses an old name
(``tests/packaging/test_import_floors.py``). ``costmodel/__init__.py`` installs the finder.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

#: old import path (shown in the 0.3 docs) -> the module's place now; docs/architecture.md lists them.
MOVED: dict[str, str] = {
    "costmodel.adr": "costmodel.checklist.adr",
    "costmodel.errors": "costmodel.foundation.errors",
    "costmodel.resources": "costmodel.foundation.resources",
    "costmodel.safeyaml": "costmodel.foundation.safeyaml",
    "costmodel.scaffold": "costmodel.commands.scaffold",
    "costmodel.schema": "costmodel.foundation.schema",
    "costmodel.signals": "costmodel.foundation.signals",
    "costmodel.synth": "costmodel.synthetic.shapes",
    "costmodel.synth_realistic": "costmodel.synthetic.training_logs",
    "costmodel.timeline": "costmodel.foundation.timeline",
    "costmodel.units": "costmodel.foundation.units",
    "costmodel.util": "costmodel.foundation.util",
}


class _MovedLoader(importlib.abc.Loader):
    """Loads an old name as the module at its new place (the same module object, not a copy)."""

    def __init__(self, new: str) -> None:
        self.new = new
        self.own_spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(f"{spec.name} moved to {self.new}: import it from there", DeprecationWarning, stacklevel=2)
        module = importlib.import_module(self.new)
        self.own_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import system has just set the old name's spec on the module: give it back its own
        module.__spec__ = self.own_spec


class MovedFinder(importlib.abc.MetaPathFinder):
    """Finds only the names of :data:`MOVED`; asked last, so a real module of that name always wins."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _MovedLoader(new))


def install() -> None:
    """Put :class:`MovedFinder` at the end of ``sys.meta_path`` (once)."""
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedFinder())
