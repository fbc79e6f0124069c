"""Reader for Timeline Parquet files written by ``costmodel ingest -o`` or ``costmodel simulate -o``."""
from __future__ import annotations

from pathlib import Path

from ..foundation.schema import Run
from ..foundation.timeline import is_timeline_parquet, read_runs

FORMAT = "timeline"


def sniff(head: str, path: Path) -> bool:
    return head.startswith("PAR1") and is_timeline_parquet(path)


def read(path: Path, options) -> list[Run]:
    runs = read_runs(path)
    for r in runs:
        if options.role:
            r.role = options.role
            r.table["role"] = options.role
    if options.run_id and len(runs) == 1:
        runs[0].run_id = options.run_id
        runs[0].table["run_id"] = options.run_id
    return runs
