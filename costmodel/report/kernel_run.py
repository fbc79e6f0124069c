"""The report's notebook in a Jupyter kernel (``costmodel report --via-kernel``, and what the notebook verb's users
run): papermill executes the notebook, off the main thread so the main thread keeps its signal handlers, in a
kernel started early; a failing cell, a dead kernel and Ctrl-C become one line. The default report runs no kernel
(:mod:`.page`)."""
from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from ..foundation.errors import ReportError
from .adapters import papermill_adapter

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
