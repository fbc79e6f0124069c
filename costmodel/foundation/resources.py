"""Files the package reads at run time (notebooks, price tables, the bundled example), located with
:mod:`importlib.resources` so they are found the same way from a source tree, an editable install and a
wheel installed in site-packages. No path here points at the source tree."""
from __future__ import annotations

from importlib.resources import files
from pathlib import Path

#: The installed ``costmodel`` package folder. Relative default paths such as
#: ``data/examples/scenario.yaml`` are resolved against it after the current folder.
PACKAGE_DIR = Path(str(files("costmodel")))
#: The bundled inputs (reference case): run logs, scenario, answers, what-if workload.
EXAMPLES_DIR = PACKAGE_DIR / "data" / "examples"
#: The bundled dated price tables.
PRICES_DIR = PACKAGE_DIR / "data" / "prices"
#: The GPU tables: which GPU each instance type carries, and each GPU's training speed relative to a reference.
GPUS_DIR = PACKAGE_DIR / "data" / "gpus"
#: The head of the report's HTML page (the CSS it inlines): :mod:`costmodel.report.page_writer`.
PAGE_DIR = PACKAGE_DIR / "data" / "page"
#: The packaged notebooks (report, checklist, what-if).
NOTEBOOKS_DIR = PACKAGE_DIR / "notebooks"


def example_path(name: str) -> Path:
    """Path of one bundled example file (e.g. ``scenario.yaml``)."""
    return EXAMPLES_DIR / name


def notebook_path(name: str) -> Path:
    """Path of one packaged notebook; ``name`` with or without ``.ipynb``."""
    return NOTEBOOKS_DIR / (name if name.endswith(".ipynb") else f"{name}.ipynb")
