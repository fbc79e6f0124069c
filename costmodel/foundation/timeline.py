"""Timeline Parquet files: several Runs in one table, run metadata in the Parquet schema metadata. pyarrow is
imported by the functions that read or write Parquet (sniffing a file that is not Parquet, as ``ingest`` does for
every CSV, reads 4 bytes and imports nothing)."""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    import pyarrow as pa

from .errors import IngestError
from .schema import TIMELINE_COLUMNS, Rejection, Run
from .util import atomic_path, to_jsonable

METADATA_KEY = b"costmodel.runs"
FORMAT_NAME = "timeline"


#: rows per Arrow slice (and Parquet row group) when writing: memory beyond the Runs stays at about one slice
WRITE_SLICE_ROWS = 1 << 17


def arrow_schema() -> pa.Schema:
    """The Arrow schema of a Timeline Parquet file (strings, int64 step, float64 metrics)."""
    import pyarrow as pa

    fields = []
    for col, (dtype, _u, _m) in TIMELINE_COLUMNS.items():
        fields.append(pa.field(col, pa.string() if dtype == "string" else pa.int64() if dtype == "int64" else pa.float64()))
    return pa.schema(fields)


def _run_columns(r: Run) -> dict[str, np.ndarray | None]:
    """Column -> numpy array (views where the dtype already fits), None for an absent or all-NaN-view column."""
    table = r.table
    out: dict[str, np.ndarray | None] = {}
    for col, (dtype, _u, _m) in TIMELINE_COLUMNS.items():
        if col in ("run_id", "role"):
            continue
        if col not in table.columns:
            out[col] = np.arange(len(table), dtype="int64") if dtype == "int64" else None
            continue
        s = table[col]
        if dtype == "int64":
            out[col] = s.to_numpy() if s.dtype == np.int64 else pd.to_numeric(s).astype("int64").to_numpy()
            continue
        a = (s.to_numpy() if s.dtype == np.float64
             else pd.to_numeric(s, errors="coerce").to_numpy(dtype="float64", na_value=np.nan))
        if a.ndim == 1 and len(a) > 1 and a.strides[0] == 0 and np.isnan(a[0]):
            out[col] = None  # a zero-stride NaN view: the column is absent
        else:
            out[col] = a
    return out


def _arrow_slices(r: Run, schema: pa.Schema, slice_rows: int | None = None):
    """Yield the Run as Arrow tables of at most ``slice_rows`` rows (NaN written as null, absent columns as nulls)."""
    import pyarrow as pa

    cols = _run_columns(r)
    n = len(r.table)
    slice_rows = slice_rows or WRITE_SLICE_ROWS
    for start in range(0, max(n, 1), slice_rows):
        stop = min(n, start + slice_rows)
        m = stop - start
        arrays = []
        for f in schema:
            if f.name in ("run_id", "role"):
                arrays.append(pa.repeat(pa.scalar(r.run_id if f.name == "run_id" else r.role, pa.string()), m))
                continue
            a = cols[f.name]
            if a is None:
                arrays.append(pa.nulls(m, f.type))
            else:
                arrays.append(pa.array(a[start:stop], type=f.type, from_pandas=True))
        yield pa.Table.from_arrays(arrays, schema=schema)


def write_runs(runs: Sequence[Run], path: str | os.PathLike[str]) -> Path:
    """Write ``runs`` as one Timeline Parquet file, atomically. Returns the path.

    Each run goes to the file in slices of :data:`WRITE_SLICE_ROWS` rows built straight from its
    numpy columns (no pandas concat, no full-width copy), so memory beyond the Runs is one slice.
    Raises IngestError when ``runs`` is empty.
    """
    if not runs:
        raise IngestError("nothing to write: no runs", path=str(path))
    import pyarrow.parquet as pq

    meta = [
        {
            "run_id": r.run_id,
            "format": r.format,
            "source": r.source,
            "role": r.role,
            "metadata": to_jsonable(r.metadata),
            "rejected": [x.to_dict() for x in r.rejected],
            "warnings": list(r.warnings),
            "job_id": r.job_id,
            "rank": r.rank,
        }
        for r in runs
    ]
    schema = arrow_schema().with_metadata({METADATA_KEY: json.dumps(meta).encode()})
    out = Path(path)
    # dictionary-encode only the constant string columns: trying it on float metrics costs time for nothing
    with atomic_path(out) as tmp, pq.ParquetWriter(tmp, schema, use_dictionary=["run_id", "role"]) as writer:
        for r in runs:
            for part in _arrow_slices(r, schema):
                if part.num_rows:
                    writer.write_table(part)
    return out


def is_timeline_parquet(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is a Parquet file written by :func:`write_runs`."""
    try:
        with open(path, "rb") as fh:
            if fh.read(4) != b"PAR1":
                return False
        import pyarrow.parquet as pq

        md = pq.read_schema(path).metadata or {}
        if METADATA_KEY not in md:  # files streamed batch by batch carry it in the file-level metadata
            md = pq.read_metadata(path).metadata or {}
    except Exception:  # noqa: BLE001 - any unreadable file is simply "not a timeline"
        return False
    return METADATA_KEY in md


def read_runs(path: str | os.PathLike[str]) -> list[Run]:
    """Read a Timeline Parquet file back into Runs (metadata, rejections and warnings kept)."""
    import pyarrow.parquet as pq

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
                job_id=str(m.get("job_id", "") or ""),
                rank=int(m.get("rank", -1) if m.get("rank") is not None else -1),
            )
        )
    # rows of a run the metadata does not name (an edited or merged file) are counted and named, never dropped silently
    known = {str(m["run_id"]) for m in meta}
    stray = df["run_id"][~df["run_id"].astype(str).isin(known)].astype(str).value_counts(sort=False) \
        if "run_id" in df.columns else None
    if stray is not None and len(stray):
        from .names import shown

        items = sorted(stray.items())
        named = ", ".join(f"{shown(k)!r} ({n:,} rows)" for k, n in items[:5]) + (", ..." if len(items) > 5 else "")
        note = (f"{shown(os.fspath(path))}: {len(items):,} run(s) in the file but not in its costmodel metadata, not read: "
                f"{named}")
        if not runs:
            raise IngestError(note.split(": ", 1)[1], path=str(path))
        runs[0].warnings.append(note)
    return runs
