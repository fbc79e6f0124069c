"""Timeline Parquet files: several Runs in one table, run metadata in the Parquet schema metadata."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .errors import IngestError
from .schema import TIMELINE_COLUMNS, Rejection, Run, to_timeline
from .util import atomic_path, to_jsonable

METADATA_KEY = b"costmodel.runs"
FORMAT_NAME = "timeline"


def write_runs(runs: Sequence[Run], path: str | os.PathLike[str]) -> Path:
    """Write ``runs`` as one Timeline Parquet file, atomically. Returns the path."""
    if not runs:
        raise IngestError("nothing to write: no runs", path=str(path))
    frames = [to_timeline(r.table, r.run_id, r.role) for r in runs]
    table = pa.Table.from_pandas(pd.concat(frames, ignore_index=True), preserve_index=False)
    meta = [
        {
            "run_id": r.run_id,
            "format": r.format,
            "source": r.source,
            "role": r.role,
            "metadata": to_jsonable(r.metadata),
            "rejected": [x.to_dict() for x in r.rejected],
            "warnings": list(r.warnings),
        }
        for r in runs
    ]
    schema_meta = dict(table.schema.metadata or {})
    schema_meta[METADATA_KEY] = json.dumps(meta).encode()
    table = table.replace_schema_metadata(schema_meta)
    out = Path(path)
    with atomic_path(out) as tmp:
        pq.write_table(table, tmp)
    return out


def is_timeline_parquet(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is a Parquet file written by :func:`write_runs`."""
    try:
        with open(path, "rb") as fh:
            if fh.read(4) != b"PAR1":
                return False
        md = pq.read_schema(path).metadata or {}
        if METADATA_KEY not in md:  # files streamed batch by batch carry it in the file-level metadata
            md = pq.read_metadata(path).metadata or {}
    except Exception:  # noqa: BLE001 - any unreadable file is simply "not a timeline"
        return False
    return METADATA_KEY in md


def read_runs(path: str | os.PathLike[str]) -> list[Run]:
    """Read a Timeline Parquet file back into Runs (metadata, rejections and warnings kept)."""
    try:
        table = pq.read_table(path)
    except Exception as exc:  # noqa: BLE001
        raise IngestError(f"not a readable Parquet file ({exc})", path=str(path)) from None
    md = table.schema.metadata or {}
    if METADATA_KEY not in md:  # files streamed batch by batch carry it in the file-level metadata
        md = pq.read_metadata(path).metadata or {}
    if METADATA_KEY not in md:
        raise IngestError("Parquet file has no costmodel run metadata; ingest it as a tabular log instead", path=str(path))
    meta = json.loads(md[METADATA_KEY])
    df = table.to_pandas()
    runs: list[Run] = []
    for m in meta:
        part = df[df["run_id"] == m["run_id"]]
        cols = [c for c in TIMELINE_COLUMNS if c in part.columns]
        runs.append(
            Run(
                run_id=m["run_id"],
                table=part[cols].reset_index(drop=True),
                format=m.get("format", FORMAT_NAME),
                source=m.get("source", str(path)),
                role=m.get("role", ""),
                metadata=m.get("metadata", {}),
                rejected=[Rejection(**x) for x in m.get("rejected", [])],
                warnings=list(m.get("warnings", [])),
            )
        )
    return runs
