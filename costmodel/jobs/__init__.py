"""Multi-node jobs: rank logs grouped into jobs, a job-level series per step, stragglers.

See docs/jobs.md. Modules: :mod:`.discover` (ranks and jobs from names and content),
:mod:`.aggregate` (job-level series, pandas engine), :mod:`.stragglers`, :mod:`.fleet` (DuckDB
out-of-core engine, extra ``fleet``; its pyarrow + numpy fast path in :mod:`.arrowscan`), :mod:`.distributed` (Dask,
extra ``distributed``),
:mod:`.storage` (s3/gs/az inputs, extra ``cloud``), :mod:`.load` (one side of a comparison),
:mod:`.generate` (realistic rank logs with known truth).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .discover import JobSpec as JobSpec
    from .discover import group_runs as group_runs
    from .discover import load_many as load_many
    from .discover import parse_job_spec as parse_job_spec
    from .discover import rank_from_name as rank_from_name
    from .discover import with_ranks as with_ranks
    from .load import Side as Side
    from .load import finish_job as finish_job
    from .load import load_side as load_side

#: the face's names and their modules, imported on first use: ``costmodel.jobs.storage`` (what the report's
#: parameters ask for ``is_url``) must not pull pandas and pyarrow into a process that only checks a path
_FACE = {"JobSpec": "discover", "group_runs": "discover", "parse_job_spec": "discover", "rank_from_name": "discover",
         "Side": "load", "finish_job": "load", "load_side": "load", "load_many": "discover", "with_ranks": "discover"}


def __getattr__(name: str) -> Any:
    if name in _FACE:
        import importlib

        value = getattr(importlib.import_module(f".{_FACE[name]}", __name__), name)
        globals()[name] = value
        return value
    import importlib.util

    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f".{name}", __name__)  # a module of the room, as when the face imported it
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
