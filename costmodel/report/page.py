"""The report page without a kernel: the report notebook's display cells run in this process on the pipeline's
results (:class:`~costmodel.report.pipeline.ReportRun`), their outputs recorded as the kernel would have sent
them (:func:`costmodel.foundation.display_capture.capturing`), into the notebook as papermill would have saved
it. :mod:`.render` then makes it reproducible and exports the HTML as for a kernel's run: same cells, same
outputs, same bytes.

Which cells are display cells: every code cell but the ``parameters`` cell and the cells that compute (their
metadata names a ``costmodel.stage``: validating, running the pipeline, writing the files); those show nothing
and the page leaves them out."""
from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from typing import Any

from ..charts.drawer import Drawer
from .pipeline import ReportRun
from .reproducible import INJECTED_ID, _codify


def is_display_cell(cell: Any) -> bool:
    """A code cell that shows results (not the parameters cell, not a computing stage)."""
    meta = cell.get("metadata") or {}
    return (cell.get("cell_type") == "code" and "parameters" not in (meta.get("tags") or [])
            and "injected-parameters" not in (meta.get("tags") or []) and "stage" not in (meta.get("costmodel") or {}))


def namespace(run: ReportRun, written: list[str]) -> dict[str, Any]:
    """The names the notebook's display cells read, bound to the pipeline's results (as its computing cells bind
    them: ``P``, ``inputs``, ``fits``, ``cmp``, ``cost``, ``decision``, ``placed``, ``record``, ``written``)."""
    import sys

    from .. import charts

    # ``report`` in the cells is this room's face, the package this module belongs to (imported before any of its
    # modules): taken as the object it is, not imported again, so the face and this module form no import circle
    report = sys.modules[__package__ or "costmodel.report"]
    return {"report": report, "charts": charts, "run": run, "P": run.params, "inputs": run.inputs, "fits": run.fits,
            "cmp": run.compare, "cost": run.cost, "decision": run.decision, "placed": run.placement,
            "record": run.record, "written": written}


def nbformat_lean() -> Any:
    """nbformat, imported without jsonschema's optional format checkers (``lean_imports``: seconds for one of them on
    a busy machine, and nbformat checks no string format)."""
    from ..foundation.adapters.jsonschema_adapter import lean_imports

    with lean_imports():
        import nbformat

    return nbformat


def notebook_in_process(run: ReportRun, notebook: str | os.PathLike[str], parameters: Mapping[str, Any],
                        written: list[str], drawer: Drawer | None = None) -> Any:
    """The report notebook (``notebook``) as if papermill had executed it with ``parameters``: the injected cell
    after the ``parameters`` cell, execution counts, and each display cell's outputs from running its code here
    on ``run``. The charts are drawn by ``drawer`` (:class:`~costmodel.charts.drawer.Drawer`, started by the caller
    early so that vl-convert loads meanwhile; one is started here otherwise) while the next cells run. A failing
    display cell raises the ReportError a failing kernel cell would."""
    nbformat = nbformat_lean()
    from nbformat.v4 import new_code_cell, new_output

    from ..charts.render import drawing_in, lite_charts
    from ..foundation.display_capture import capturing, settled
    from ..foundation.errors import CostmodelError, ReportError

    nb = nbformat.read(os.fspath(notebook), as_version=4)
    at = next((i for i, c in enumerate(nb.cells) if "parameters" in (c.metadata.get("tags") or [])), -1)
    injected = new_code_cell(source=_codify(parameters), metadata={"tags": ["injected-parameters"]})
    injected["id"] = INJECTED_ID
    nb.cells.insert(at + 1, injected)
    names = namespace(run, written)
    shown_by_cell: list[tuple[Any, list[dict[str, Any]]]] = []
    count = 0
    with contextlib.ExitStack() as stack:
        if drawer is None:
            drawer = stack.enter_context(Drawer())
        # the charts are drawn in the drawer's process while the next cells run here; their ids are numbered in
        # the order they are shown, so the SVGs are the ones drawn one by one
        stack.enter_context(drawing_in(drawer))
        stack.enter_context(lite_charts())  # the specs built as plain dicts (charts.vl): Altair is never imported
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            count += 1
            cell.execution_count = count
            cell.outputs = []
            if not is_display_cell(cell):
                continue
            with capturing() as shown:
                try:
                    exec(compile(cell.source, f"<report cell {count}>", "exec"), names)
                except CostmodelError:
                    raise
                except Exception as exc:
                    raise ReportError(f"the report notebook stopped at cell {count}: {type(exc).__name__}: {exc}") \
                        from exc
            shown_by_cell.append((cell, shown))
        for cell, shown in shown_by_cell:
            cell.outputs = [new_output(o["output_type"], data=o["data"], metadata=o["metadata"])
                            for o in settled(shown)]
    nb.metadata["papermill"] = {"default_parameters": {}, "parameters": dict(parameters), "environment_variables": {},
                                "version": _papermill_version(), "input_path": os.fspath(notebook),
                                "output_path": "report.ipynb"}
    return nb


def _papermill_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("papermill")
    except PackageNotFoundError:
        return ""
