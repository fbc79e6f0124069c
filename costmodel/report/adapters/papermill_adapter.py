"""papermill and nbclient: run the report notebook in a kernel started early, one progress line per stage.

All of it is public API: papermill's engine registry (``papermill_engines.register``) and its documented extension
point (an engine's ``execute_managed_notebook``), nbclient's ``NotebookClient(km=...)`` (run in a kernel manager
that is already running), its ``on_cell_start`` hook and ``setup_kernel(cleanup_kc=True)`` (shut that kernel down
and close the client's channels at the end, as for a kernel of its own). What leans on behaviour, not API:
papermill's I/O module imports the cloud SDKs it finds (boto3, azure, gcsfs, pyarrow's HDFS, PyGithub: about 1 s of
the report's process) inside ``try: ... except ImportError``, so they are refused while papermill is imported
(:func:`lean_papermill`); the report's notebook is a local file and never needs them. Tested on :data:`TESTED`."""
from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ...foundation.adapters import refused_imports
from ...foundation.adapters.jsonschema_adapter import lean_imports
from ...foundation.util import require

#: distribution -> the versions [low, high) this adapter's behaviour was checked on
TESTED = {"papermill": ("2.7", "2.8"), "nbclient": ("0.11", "0.12")}

#: SDKs papermill imports at start-up when they are installed, for notebooks on object stores or GitHub; they remain
#: importable afterwards
OPTIONAL_SDKS = ("boto3", "azure.storage.blob", "azure.identity", "azure.datalake.store", "gcsfs", "pyarrow", "github")

#: the name of the engine registered with papermill (once; it keeps no state)
ENGINE_NAME = "costmodel-stages"


@contextlib.contextmanager
def lean_papermill() -> Iterator[None]:
    """Import papermill (and nbformat, jupyter_client) without the cloud SDKs and jsonschema's optional grammar."""
    with refused_imports(OPTIONAL_SDKS, unless_loaded="papermill"), lean_imports():
        yield


def import_papermill() -> Any:
    """papermill, imported lean (:func:`lean_papermill`); a missing extra is costmodel's one-line error."""
    with lean_papermill():
        pm = require("papermill", "report", "running the report notebook")
        import papermill.engines  # noqa: F401
    return pm


@functools.cache
def _stage_engine() -> type:
    from papermill.clientwrap import PapermillNotebookClient
    from papermill.engines import NBClientEngine
    from papermill.log import logger

    class StageEngine(NBClientEngine):
        """papermill's nbclient engine, in an adopted kernel (``km``) and with a callback per cell (``on_cell_start``)."""

        @classmethod
        def execute_managed_notebook(cls, nb_man: Any, kernel_name: str, log_output: bool = False,
                                     stdout_file: Any = None, stderr_file: Any = None, start_timeout: int = 60,
                                     execution_timeout: int | None = None, km: Any = None,
                                     on_cell_start: Callable[..., Any] | None = None, **kwargs: Any) -> Any:
            kwargs.pop("input_path", None)  # as papermill's own engine: unused downstream
            kwargs.pop("startup_timeout", None)
            timeout = execution_timeout or kwargs.pop("timeout", None)
            client = PapermillNotebookClient(nb_man, km=km, timeout=timeout, startup_timeout=start_timeout,
                                             kernel_name=kernel_name, log=logger, log_output=log_output,
                                             stdout_file=stdout_file, stderr_file=stderr_file,
                                             **({"on_cell_start": on_cell_start} if on_cell_start else {}), **kwargs)
            # a kernel we started is shut down and the client's channels closed at the end, as for one of nbclient's
            return client.execute(cleanup_kc=True)

    return StageEngine


def execute(notebook: str, output_path: str, parameters: Mapping[str, Any], *, cwd: str | None,
            kernel_arguments: list[str], km: Any = None, on_stage: Callable[[str], None] | None = None) -> Any:
    """Run ``notebook`` with papermill (kernel ``python3``) and save it to ``output_path``; returns the executed
    NotebookNode. ``km``: a running kernel manager to run it in (shut down at the end); ``on_stage``: called with
    the ``metadata.costmodel.stage`` of each code cell as it starts. papermill's and nbclient's errors pass through
    (``PapermillExecutionError``, ``DeadKernelError``)."""
    pm = import_papermill()
    from papermill.engines import papermill_engines

    papermill_engines.register(ENGINE_NAME, _stage_engine())  # the registry's public call; same name, same class

    def cell_start(cell: Any, cell_index: int | None = None, **_kw: Any) -> None:
        stage = (cell.get("metadata", {}).get("costmodel") or {}).get("stage")
        if stage and on_stage is not None:
            on_stage(stage)

    return pm.execute_notebook(
        notebook,
        output_path,
        parameters=dict(parameters),
        engine_name=ENGINE_NAME,
        kernel_name="python3",
        progress_bar=False,
        request_save_on_cell_execute=False,
        cwd=cwd,
        extra_arguments=list(kernel_arguments),
        shutdown_kernel="immediate",  # the notebook is done: no graceful shutdown handshake to wait for
        km=km,
        on_cell_start=cell_start,
    )


def execution_error() -> type[Any]:
    """papermill's error for a failing cell (its ``ename``, ``evalue`` and ``exec_count`` are public)."""
    with lean_papermill():
        from papermill.exceptions import PapermillExecutionError
    return PapermillExecutionError
