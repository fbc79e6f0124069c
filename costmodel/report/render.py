"""Rendering ``costmodel report``: the pipeline runs in this process (:mod:`.pipeline`, one progress line per
stage), decision.json and the ADR are written from its results, the notebook's display cells are evaluated here on
the same results (:mod:`.page`, the charts drawn meanwhile in a process of their own,
:class:`~costmodel.charts.drawer.Drawer`; ``via_kernel``: papermill executes the notebook in a kernel instead,
:mod:`.kernel_run`), the HTML is exported with inputs hidden and no script (:mod:`.html_export`), all into a
temporary folder beside the output folder that is renamed into place only when every file is written."""
from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..contracts.report_summary import ReportSummary
from ..foundation.errors import ReportError
from ..foundation.resources import notebook_path
from . import pipeline
from .adapters import papermill_adapter
from .html_export import export_html
from .kernel_run import _Worker, execute_notebook, quiet_shutdown, start_kernel, stop_kernel
from .kernels import _kernel_connection_file, _process_children, stop_kernels
from .output_folder import OUTPUT_FILES, OutputClaim, _swap_into_place, _usual_permissions, check_output_dir
from .page import notebook_in_process
from .params import DEFAULT_TITLE, PACKAGE_ROOT, ReportParams, validate_parameters
from .paths import placement_paths
from .reproducible import reproducible
from .stages import write_outputs

#: The report notebook shipped inside the package.
REPORT_NOTEBOOK = notebook_path("report")


#: What ``costmodel report`` wrote: the contract's model itself (its JSON is ``to_json_dict()``; no hand-written twin)
ReportResult = ReportSummary


def render_report(
    colocated: Sequence[str | os.PathLike[str]],
    remote: Sequence[str | os.PathLike[str]],
    scenario: str | os.PathLike[str],
    answers: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    force: bool = False,
    notebook: str | os.PathLike[str] | None = None,
    progress: Callable[[str], None] | None = None,
    via_kernel: bool = False,
    **options: Any,
) -> ReportResult:
    """Validate the parameters (``options``: further fields of :class:`~costmodel.report.params.ReportParams`,
    e.g. ``metric``, ``margin``, ``monte_carlo_n``, ``seed``, ``title``, ``date``, ``engine``) and
    :func:`render_params`."""
    values = {
        "colocated": [os.fspath(p) for p in colocated],
        "remote": [os.fspath(p) for p in remote],
        "scenario": os.fspath(scenario),
        "answers": os.fspath(answers),
        **options,
    }
    return render_params(validate_parameters(**values), out_dir, force=force, notebook=notebook, progress=progress,
                         via_kernel=via_kernel)


def render_params(
    params: ReportParams,
    out_dir: str | os.PathLike[str],
    *,
    force: bool = False,
    notebook: str | os.PathLike[str] | None = None,
    progress: Callable[[str], None] | None = None,
    via_kernel: bool = False,
) -> ReportResult:
    """Write ``out_dir/{report.ipynb, report.html, decision.json, adr.md}`` for validated ``params``.

    The output folder is claimed first (:class:`OutputClaim`: a concurrent run on the same folder
    gets an OutputError saying it is taken), then built in a temporary folder beside ``out_dir``
    and renamed into place only when every file is written; on any failure (bad input, a failing
    stage, a full disk, SIGINT/SIGTERM/SIGHUP) nothing is left behind (temporary folder, claim,
    kernel, its connection file, parent folders it created) and an existing ``out_dir`` is
    untouched. Raises :class:`ReportError` (or the package error of the stage that failed) for bad input,
    :class:`~costmodel.foundation.errors.OutputError` when the output cannot be written,
    :class:`~costmodel.foundation.signals.Interrupted` when a signal stops it.
    """
    from ..foundation.errors import OutputError
    from ..foundation.safeio import writing
    from ..foundation.signals import SignalScope

    say = progress or (lambda _m: None)
    documents = pipeline.read_documents(params)  # once, before any folder is made: a bad file is one line
    inputs = [*params.colocated, *params.remote, params.scenario, params.answers, *placement_paths(params.placement)[:1]]
    dest = check_output_dir(out_dir, force, inputs).resolve()
    nb_path = Path(notebook) if notebook else REPORT_NOTEBOOK
    if not nb_path.is_file():
        raise ReportError(f"report notebook {nb_path} not found")

    made: list[Path] = []  # parent folders this run creates (removed again on failure when empty)
    drawer: Any = None  # the chart drawing process (no kernel), stopped on every way out
    tmp: Path | None = None
    claim = OutputClaim(dest)
    reuse = contextlib.ExitStack()  # the charts made early, reused by the page (no kernel)
    with SignalScope(on_signal=quiet_shutdown) as signals:
        try:
            with writing(dest, action="create the output folder"):
                for parent in reversed([dest.parent, *dest.parent.parents]):
                    if not parent.exists():
                        parent.mkdir()
                        made.append(parent)
            claim.acquire()
            check_output_dir(out_dir, force, inputs)  # again, under the claim: what another run did meanwhile counts
            say("report: inputs checked")
            if not via_kernel:
                from .. import charts
                from ..charts.drawer import Drawer

                drawer = Drawer()  # charts drawn in Python; vl-convert's process only for a chart outside that subset
                reuse.enter_context(charts.reusing())  # the page takes the charts made early, not made again
                charts.preload(renderer=False, altair=False)  # pandas first; the page's charts need no Altair
                threading.Thread(target=_warm_page_writer, name="costmodel-report-page", daemon=True).start()
            with writing(dest, action="create the output folder"):
                from ..foundation.leftovers import owned_tempdir

                tmp = owned_tempdir(f".{dest.name}.", suffix=".tmp", directory=dest.parent)
            names = {str(tmp): str(dest)}
            run_params = dataclasses.replace(params, decision_path=str(tmp / "decision.json"),
                                             adr_path=str(tmp / "adr.md"))
            early = None
            if drawer is not None:  # each chart drawn as soon as its data exist, while the later stages run
                from .early_charts import sender

                early = sender(drawer)
            run = pipeline.run_stages(run_params, progress=say, documents=documents,  # validated by the caller
                                      on_result=early)
            signals.check()
            say("report: writing decision.json and the ADR")
            try:
                written = write_outputs(run.record, run.decision, run_params, run.inputs.answers)
            except OutputError as exc:
                raise OutputError(str(exc).replace(str(tmp), str(dest)), path=str(dest), errno=exc.errno) from None
            nb_params = run_params.to_dict()
            if via_kernel:
                nb = _kernel_notebook(nb_path, tmp, dict(nb_params, decision_path="", adr_path=""), say, signals)
            else:
                say("report: rendering the page")
                nb = notebook_in_process(run, nb_path, nb_params, written, drawer=drawer)
                drawer.close()
            signals.check()
            say("report: exporting HTML (inputs hidden, offline)")
            nb.metadata["title"] = run.title or params.title or DEFAULT_TITLE
            named = [*inputs, *placement_paths(params.placement)[1:]]  # and the placement file's folder
            reproducible(nb, nb_params, tmp, dest, nb_path, named)  # same inputs, same bytes: no timestamps or machine paths
            with writing(dest / "report.ipynb", rename=names):
                _write_notebook(nb, tmp / "report.ipynb")
            page = export_html(nb)
            with writing(dest / "report.html", rename=names):
                (tmp / "report.html").write_text(page, encoding="utf-8")
            for name in OUTPUT_FILES:
                if not (tmp / name).is_file():
                    raise ReportError(f"the report did not write {name}")
            with writing(dest, rename=names):
                _usual_permissions(tmp)
            signals.check()
            with signals.deferred(), writing(dest, action="rename the finished report to", rename=names):
                _swap_into_place(tmp, dest)  # the commit point: a signal now takes effect after it
            tmp = None
            signals.check()  # a signal during the rename: the report is whole, the run still ends as interrupted
        except BaseException:
            with signals.deferred():
                if tmp is not None:
                    shutil.rmtree(tmp, ignore_errors=True)
                    if tmp.exists():  # something was still writing into it: once more
                        shutil.rmtree(tmp, ignore_errors=True)
                claim.release()
                for parent in reversed(made):
                    with contextlib.suppress(OSError):
                        parent.rmdir()
            raise
        finally:
            reuse.close()
            if drawer is not None:
                drawer.close()
            claim.release()
    say(f"report: wrote {dest}")
    return ReportResult(
        out_dir=str(dest),
        files={name: str(dest / name) for name in OUTPUT_FILES},
        verdict=run.verdict,
        title=run.title,
    )


def _warm_page_writer() -> None:
    """Import what the page and its export need (nbformat, mistune) in the background once a chart preload (if any)
    has ended (one import at a time besides the pipeline's own); nbconvert and Beautiful Soup only where the page
    writer leaves a page to them (:mod:`.html_export`), so not here."""
    with contextlib.suppress(Exception):  # the export imports them again and reports what failed
        from ..charts import render as chart_render

        chart_render._wait_preload()
        from .page import nbformat_lean
        from .page_writer import _markdown

        nbformat_lean()
        _markdown()


def _kernel_notebook(nb_path: Path, tmp: Path, nb_params: dict[str, Any], say: Callable[[str], None],
                     signals: Any) -> Any:
    """The notebook executed by papermill in a kernel started early (``--via-kernel``), writing no file of its own:
    the parent wrote decision.json and the ADR from its pipeline. Interrupts stop the kernel and leave nothing."""
    from ..foundation.safeio import writing

    before = _process_children()
    km = start_kernel(PACKAGE_ROOT)  # the kernel starts up while papermill and nbconvert are imported here
    try:
        papermill_adapter.import_papermill()  # first, in this thread: concurrent imports of shared modules can deadlock
        warm = threading.Thread(target=_warm_page_writer, daemon=True)  # the export's imports while the kernel runs
        warm.start()
        kernels: dict[int, str] = {}  # kernel pid -> connection file, noted while it runs

        def note_kernels() -> None:
            for pid in _process_children() - before - set(kernels):
                conn = _kernel_connection_file(pid)
                if conn is not None:
                    kernels[pid] = conn

        worker = _Worker(lambda: execute_notebook(nb_path, tmp / "report.ipynb", nb_params, progress=say,
                                                  cwd=PACKAGE_ROOT, km=km))
        try:
            worker.start()
            signals.wait(worker, tick=note_kernels)
        except BaseException:
            with signals.deferred():
                quiet_shutdown()
                stop_kernels(_process_children() - before)
                worker.join(5.0)  # the notebook's thread sees its kernel gone and stops writing
                for conn in kernels.values():  # a kernel that had already exited leaves its file to its client
                    if conn:
                        with contextlib.suppress(OSError):
                            os.unlink(conn)
            raise
        if worker.error is not None:
            if isinstance(worker.error, OSError):
                with writing(tmp / "report.ipynb"):
                    raise worker.error
            raise worker.error
        warm.join()
        return worker.result
    finally:
        stop_kernel(km)  # a run that failed before nbclient adopted it leaves it running


def _write_notebook(nb: Any, path: Path) -> None:
    """The executed notebook as nbformat writes it (sorted keys, one-space indent, a final newline)."""
    import nbformat

    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
