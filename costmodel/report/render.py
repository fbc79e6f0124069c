"""Rendering: papermill executes the report notebook into a temporary folder beside the output
folder (one progress line per stage), nbconvert exports the HTML in the same process with inputs
hidden and no script, and the folder is renamed into place only when every file is written."""
from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import sys
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from ..contracts.report_summary import ReportSummary
from ..foundation.errors import ReportError
from ..foundation.resources import notebook_path
from .adapters import papermill_adapter
from .html_export import export_html, html_exporter
from .kernels import _kernel_connection_file, _process_children, stop_kernels
from .output_folder import OUTPUT_FILES, OutputClaim, _swap_into_place, _usual_permissions, check_output_dir
from .params import DEFAULT_TITLE, PACKAGE_ROOT, ReportParams, validate_parameters
from .paths import placement_paths
from .reproducible import reproducible

#: The report notebook shipped inside the package.
REPORT_NOTEBOOK = notebook_path("report")


#: ipykernel's arguments for the report's kernel: no transport warning on the user's terminal
KERNEL_ARGUMENTS = ["--IPKernelApp.log_level=ERROR"]


def start_kernel(cwd: str | os.PathLike[str]) -> Any:
    """Start the report's kernel (``python3``) now and return its manager, so the kernel process starts up
    (interpreter, ipykernel) while this process still imports papermill and nbconvert: papermill would only
    start it once its own imports and the notebook's parameters are done. :func:`execute_notebook` adopts it
    (``km=``) and shuts it down at the end like a kernel of its own; :func:`stop_kernel` stops it on any
    other way out."""
    from ..foundation.adapters.jsonschema_adapter import lean_imports

    with lean_imports():
        from jupyter_client.manager import AsyncKernelManager
        from jupyter_core.utils import run_sync

    km = AsyncKernelManager(kernel_name="python3")
    run_sync(km.start_kernel)(extra_arguments=list(KERNEL_ARGUMENTS), cwd=str(cwd))
    return km


def stop_kernel(km: Any) -> None:
    """Kill an adopted kernel that is still running (a failure before or outside the notebook's run)."""
    if km is None:
        return
    with contextlib.suppress(Exception):
        if km.has_kernel:
            from jupyter_core.utils import run_sync

            run_sync(km.shutdown_kernel)(now=True)


def execute_notebook(
    notebook: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    parameters: Mapping[str, Any],
    progress: Callable[[str], None] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    km: Any = None,
):  # -> NotebookNode
    """Run ``notebook`` with papermill (kernel ``python3``, i.e. this Python) and save it to
    ``output_path``; ``km``: a kernel already started by :func:`start_kernel` (in ``cwd``) to run it in.
    A failing cell becomes a :class:`ReportError` with the cell's error."""
    failed = papermill_adapter.execution_error()
    try:
        return papermill_adapter.execute(str(notebook), str(output_path), parameters, cwd=str(cwd) if cwd else None,
                                         kernel_arguments=KERNEL_ARGUMENTS, km=km, on_stage=_stage_line(progress))
    except failed as exc:
        msg = str(exc.evalue).replace("\n", " ").strip()
        if exc.ename == "OutputError":  # the kernel could not write decision.json or the ADR: the file and the cause
            from ..foundation.errors import OutputError

            raise OutputError(msg) from None
        raise ReportError(f"the report notebook stopped at cell {exc.exec_count}: {exc.ename}: {msg}") from None
    except Exception as exc:
        if type(exc).__name__ == "DeadKernelError":  # nbclient's: the kernel process died (killed, out of memory)
            raise ReportError(dead_kernel_message(exc)) from None
        raise


def _stage_line(progress: Callable[[str], None] | None) -> Callable[[str], None] | None:
    """One progress line per notebook stage (``report: <stage>``)."""
    if progress is None:
        return None
    return lambda stage: progress(f"report: {stage}")


def dead_kernel_message(exc: BaseException) -> str:
    """One line for a report kernel that died mid-run (nbclient's ``DeadKernelError``): most often the memory limit
    (the kernel is killed by the OOM killer or a container limit), else a signal from outside."""
    return ("the report's Python kernel died while running the notebook (killed from outside, most often for "
            "using more memory than the machine or container allows: try fewer or smaller inputs, or more "
            f"memory); no report written [{type(exc).__name__}]")


#: Loggers that report the asyncio tasks and kernel channels an interrupt leaves behind
#: ("Task exception was never retrieved ... DeadKernelError").
_NOISY_LOGGERS = ("asyncio", "papermill", "nbclient", "traitlets", "jupyter_client")


def _drop_record(record: logging.LogRecord) -> bool:
    return False


def quiet_shutdown() -> None:
    """After Ctrl-C: silence what the interrupted kernel client leaves behind (pending asyncio tasks
    that fail with DeadKernelError when collected, coroutines never awaited, KeyboardInterrupt in
    callbacks Python ignores), so the CLI's one line is all the user sees. Idempotent; other
    warnings and unraisable errors still reach their usual hooks."""
    for name in _NOISY_LOGGERS:
        logger = logging.getLogger(name)
        if _drop_record not in logger.filters:
            logger.addFilter(_drop_record)
    warnings.filterwarnings("ignore", message=r"coroutine .* was never awaited", category=RuntimeWarning)
    prev = sys.unraisablehook
    if getattr(prev, "_costmodel_quiet", False):
        return

    def hook(unraisable: Any) -> None:
        exc = unraisable.exc_type
        if exc is not None and (issubclass(exc, (KeyboardInterrupt, RuntimeWarning))
                                or exc.__name__ in ("DeadKernelError", "CancelledError")):
            return
        prev(unraisable)

    hook._costmodel_quiet = True  # type: ignore[attr-defined]
    sys.unraisablehook = hook


#: What ``costmodel report`` wrote: the contract's model itself (its JSON is ``to_json_dict()``; no hand-written twin)
ReportResult = ReportSummary


class _Worker(threading.Thread):
    """Runs the notebook off the main thread, so the main thread keeps its signal handlers (nbclient
    installs asyncio signal handlers of its own in the thread that runs it, replacing ours)."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        super().__init__(name="costmodel-report-notebook", daemon=True)
        self._fn = fn
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        import asyncio

        try:
            self.result = self._fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            self.error = exc
        finally:
            with contextlib.suppress(Exception):
                loop = asyncio.get_event_loop_policy().get_event_loop()
                if not loop.is_running():
                    loop.close()  # nbclient's per-thread loop: its selector and self-pipe are file descriptors


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
    return render_params(validate_parameters(**values), out_dir, force=force, notebook=notebook, progress=progress)


def render_params(
    params: ReportParams,
    out_dir: str | os.PathLike[str],
    *,
    force: bool = False,
    notebook: str | os.PathLike[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> ReportResult:
    """Execute the report notebook for validated ``params`` and write ``out_dir/{report.ipynb, report.html,
    decision.json, adr.md}``.

    The output folder is claimed first (:class:`OutputClaim`: a concurrent run on the same folder
    gets an OutputError saying it is taken), then built in a temporary folder beside ``out_dir``
    and renamed into place only when every file is written; on any failure (bad input, a failing
    cell, a full disk, SIGINT/SIGTERM/SIGHUP) nothing is left behind (temporary folder, claim,
    kernel, its connection file, parent folders it created) and an existing ``out_dir`` is
    untouched. Raises :class:`ReportError` (or the package error of the stage that failed) for bad input,
    :class:`~costmodel.foundation.errors.OutputError` when the output cannot be written,
    :class:`~costmodel.foundation.signals.Interrupted` when a signal stops it.
    """
    from ..foundation.errors import OutputError
    from ..foundation.safeio import writing
    from ..foundation.signals import SignalScope

    say = progress or (lambda _m: None)
    _check_yaml_inputs(params)
    inputs = [*params.colocated, *params.remote, params.scenario, params.answers, *placement_paths(params.placement)[:1]]
    dest = check_output_dir(out_dir, force, inputs).resolve()
    nb_path = Path(notebook) if notebook else REPORT_NOTEBOOK
    if not nb_path.is_file():
        raise ReportError(f"report notebook {nb_path} not found")

    made: list[Path] = []  # parent folders this run creates (removed again on failure when empty)
    tmp: Path | None = None
    km: Any = None  # the report's kernel, started early (start_kernel)
    claim = OutputClaim(dest)
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
            before = _process_children()
            km = start_kernel(PACKAGE_ROOT)  # the kernel starts up while papermill and nbconvert are imported here
            papermill_adapter.import_papermill()  # first, in this thread: concurrent imports of shared modules can deadlock
            warm = threading.Thread(target=html_exporter, daemon=True)  # import nbconvert while the kernel runs
            warm.start()
            with writing(dest, action="create the output folder"):
                from ..foundation.leftovers import owned_tempdir

                tmp = owned_tempdir(f".{dest.name}.", suffix=".tmp", directory=dest.parent)
            names = {str(tmp): str(dest)}
            nb_params = dict(params.to_dict().items())
            nb_params["decision_path"] = str(tmp / "decision.json")
            nb_params["adr_path"] = str(tmp / "adr.md")
            kernels: dict[int, str] = {}  # kernel pid -> connection file, noted while it runs

            def note_kernels() -> None:
                for pid in _process_children() - before - set(kernels):
                    conn = _kernel_connection_file(pid)
                    if conn is not None:
                        kernels[pid] = conn

            worker = _Worker(lambda: execute_notebook(nb_path, cast(Path, tmp) / "report.ipynb", nb_params, progress=say,
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
            stop_kernel(km)  # a run that failed before nbclient adopted it leaves it running
            if worker.error is not None:
                if isinstance(worker.error, OutputError):
                    msg = str(worker.error).replace(str(tmp), str(dest))
                    raise OutputError(msg, path=str(dest), errno=worker.error.errno) from None
                if isinstance(worker.error, OSError):
                    with writing(dest / "report.ipynb", rename=names):
                        raise worker.error
                raise worker.error
            nb = worker.result
            signals.check()
            say("report: exporting HTML (inputs hidden, offline)")
            warm.join()
            record = json.loads((tmp / "decision.json").read_text(encoding="utf-8")) \
                if (tmp / "decision.json").is_file() else {}
            nb.metadata["title"] = str(record.get("title") or params.title or DEFAULT_TITLE)  # as the kernel chose it
            named = [*inputs, *placement_paths(params.placement)[1:]]  # and the placement file's folder
            reproducible(nb, nb_params, tmp, dest, nb_path, named)  # same inputs, same bytes: no timestamps or machine paths
            with writing(dest / "report.ipynb", rename=names):
                _write_notebook(nb, tmp / "report.ipynb")
            page = export_html(nb)
            with writing(dest / "report.html", rename=names):
                (tmp / "report.html").write_text(page, encoding="utf-8")
            for name in OUTPUT_FILES:
                if not (tmp / name).is_file():
                    raise ReportError(f"the report notebook did not write {name}")
            with writing(dest, rename=names):
                _usual_permissions(tmp)
            signals.check()
            with signals.deferred(), writing(dest, action="rename the finished report to", rename=names):
                _swap_into_place(tmp, dest)  # the commit point: a signal now takes effect after it
            tmp = None
            signals.check()  # a signal during the rename: the report is whole, the run still ends as interrupted
        except BaseException:
            with signals.deferred():
                stop_kernel(km)
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
            claim.release()
    say(f"report: wrote {dest}")
    return ReportResult(
        out_dir=str(dest),
        files={name: str(dest / name) for name in OUTPUT_FILES},
        verdict=record.get("verdict"),
        title=str(record.get("title", "")),
    )


def _write_notebook(nb: Any, path: Path) -> None:
    """The executed notebook as nbformat writes it (sorted keys, one-space indent, a final newline)."""
    import nbformat

    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")


def _check_yaml_inputs(params: Any) -> None:
    """The scenario YAML parsed with the bounded loader, and the answers file read and validated as
    ``costmodel decide`` reads it (items and ADR ``meta``), before a kernel starts: an alias bomb, a
    duplicate key, a syntax error, a non-UTF-8 file, an unknown item or a bad people list is one line at
    once, not a failing notebook cell. (The kernel is another process: it reads each file once more,
    once, to use it.)"""
    import yaml

    from ..checklist.answers import read_answers_document
    from ..foundation.errors import ChecklistError
    from ..foundation.safeyaml import safe_load_file
    from ..foundation.util import yaml_problem

    path = params.scenario
    try:
        safe_load_file(path)
    except yaml.YAMLError as exc:
        raise ReportError(f"parameter 'scenario': {path}: {yaml_problem(exc)}") from None
    if params.placement:  # validated as `costmodel place` validates it (PlacementError: file and key)
        from ..place import load_placement

        load_placement(params.placement)
    try:
        read_answers_document(params.answers)
    except ChecklistError as exc:
        raise ReportError(f"parameter 'answers': {exc}") from None
