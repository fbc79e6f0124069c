"""The Timeline: one tidy table of observations, SI units in the column names.

A :class:`Run` is one job on one cluster (or one fio job, one DLIO rank, ...):
its Timeline table plus run-level metadata. Every reader returns Runs; every
analysis takes Runs (or their tables). Missing values are NaN, never 0.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .fields_json import FieldsJson, JsonKeys

#: Timeline columns: name -> (dtype, unit, meaning). Order is the canonical column order.
TIMELINE_COLUMNS: dict[str, tuple[str, str, str]] = {
    "run_id": ("string", "", "a run: one job on one cluster"),
    "role": ("string", "", "'colocated', 'remote' or '' (unknown)"),
    "step": ("int64", "", "training step / batch index, or pass number for the multi-pass read client"),
    "t_s": ("float64", "s", "seconds since the run started (end of the observation)"),
    "epoch": ("float64", "", "epoch number where the source gives one"),
    "samples_per_s": ("float64", "1/s", "training throughput in samples per second"),
    "tokens_per_s": ("float64", "1/s", "training throughput in tokens per second"),
    "step_time_s": ("float64", "s", "duration of the step"),
    "read_bytes_per_s": ("float64", "B/s", "storage read throughput"),
    "write_bytes_per_s": ("float64", "B/s", "storage write throughput"),
    "read_iops": ("float64", "1/s", "read operations per second"),
    "write_iops": ("float64", "1/s", "write operations per second"),
    "read_latency_s": ("float64", "s", "read latency (mean of the observation)"),
    "gpu_util": ("float64", "1", "GPU utilisation, 0..1"),
    "data_wait_s": ("float64", "s", "time the step waited for input"),
    "cache_hit_ratio": ("float64", "1", "share of reads served by the cache, 0..1"),
    "bytes_read": ("float64", "B", "bytes read in the observation"),
    "cross_region_bytes": ("float64", "B", "bytes fetched across regions in the observation"),
    "samples": ("float64", "", "samples processed in the observation"),
    "gpu_power_w": ("float64", "W", "GPU power draw (nvidia-smi power.draw)"),
}

#: Columns that hold a rate or a quantity that must be finite and >= 0 when present.
NON_NEGATIVE_COLUMNS = tuple(
    c for c, (dt, _u, _m) in TIMELINE_COLUMNS.items() if dt == "float64" and c != "t_s"
)
#: Columns bounded to 0..1.
FRACTION_COLUMNS = ("gpu_util", "cache_hit_ratio")
#: Metric columns: at least one must carry data for a Timeline to be usable.
METRIC_COLUMNS = (
    "samples_per_s",
    "tokens_per_s",
    "step_time_s",
    "read_bytes_per_s",
    "write_bytes_per_s",
    "read_iops",
    "write_iops",
    "read_latency_s",
    "gpu_util",
    "data_wait_s",
    "cache_hit_ratio",
    "bytes_read",
)

ROLES = ("colocated", "remote", "")


@dataclass
class Rejection(FieldsJson):
    """One input row that was not kept, and why. ``line`` is 1-based in the source file when known."""

    path: str
    line: int | None
    reason: str
    field: str | None = None

    def __str__(self) -> str:
        where = self.path + (f":{self.line}" if self.line is not None else "")
        fld = f" [{self.field}]" if self.field else ""
        return f"{where}{fld}: {self.reason}"


@dataclass
class Run(FieldsJson):
    """One run: a Timeline table plus provenance.

    ``table`` has Timeline columns only (see :data:`TIMELINE_COLUMNS`), sorted by step.
    ``metadata`` holds run-level facts from the source (file and worker counts,
    host, config, ``predicted: True`` for simulated runs, ...); values must be JSON-able.
    """

    run_id: str
    table: pd.DataFrame
    format: str
    source: str
    role: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    rejected: list[Rejection] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: the job this run belongs to ('' = not part of a multi-rank job) and its rank (-1 = not a rank log);
    #: run-level Timeline columns (see costmodel.jobs)
    job_id: str = ""
    rank: int = -1

    @property
    def rows(self) -> int:
        return len(self.table)

    @property
    def columns(self) -> list[str]:
        """Timeline columns that carry at least one value (run_id and role excluded)."""
        return [
            c
            for c in self.table.columns
            if c not in ("run_id", "role") and self.table[c].notna().any()
        ]

    @property
    def predicted(self) -> bool:
        return bool(self.metadata.get("predicted", False))

    JSON = JsonKeys(keys=("run_id", "format", "rows", "columns", "role", "source", "rejected_rows", "predicted",
                          "metadata", "job_id", "rank"))

    @property
    def rejected_rows(self) -> int:
        """How many rows of the source were rejected (:attr:`rejected`)."""
        return len(self.rejected)


def empty_timeline(n: int = 0) -> pd.DataFrame:
    """A Timeline table with every column, ``n`` rows of NaN (step = 0..n-1)."""
    data: dict[str, Any] = {}
    for col, (dtype, _u, _m) in TIMELINE_COLUMNS.items():
        if dtype == "string":
            data[col] = pd.Series([""] * n, dtype="string")
        elif dtype == "int64":
            data[col] = np.arange(n, dtype="int64")
        else:
            data[col] = np.full(n, np.nan)
    return pd.DataFrame(data)


def _constant_strings(value: str, index: pd.Index) -> pd.Series:
    """``pd.Series([value] * len(index), dtype="string", index=index)``: when pandas keeps strings in Arrow, the same
    Arrow array (type, offsets, data, no validity buffer) repeated by Arrow instead of converted from a list of
    ``n`` Python strings (0.4 ms against 10 ms at 100,000 rows, two columns of every Timeline)."""
    n = len(index)
    if n > 1:
        ref = pd.Series([value], dtype="string")
        if type(ref.array).__name__ == "ArrowStringArray":
            import pyarrow as pa

            one = pa.array(ref.array)  # the array's own Arrow data (its __arrow_array__)
            rep = pa.repeat(pa.scalar(value, type=one.type), n)
            out = pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array([rep])), index=index)
            if out.dtype == ref.dtype:
                return out
    return pd.Series([value] * n, dtype="string", index=index)


def to_timeline(df: pd.DataFrame, run_id: str, role: str = "") -> pd.DataFrame:
    """Return ``df`` conformed to the Timeline: known columns only, canonical order and dtypes.

    Missing columns are added as NaN; ``step`` defaults to the row index. Does not validate values
    (see :func:`costmodel.ingest.validate.validate_timeline`).
    """
    n = len(df)
    out: dict[str, Any] = {}
    for col, (dtype, _u, _m) in TIMELINE_COLUMNS.items():
        if col == "run_id":
            out[col] = _constant_strings(run_id, df.index)
        elif col == "role":
            out[col] = _constant_strings(role, df.index)
        elif col in df.columns:
            if dtype == "int64":
                out[col] = pd.to_numeric(df[col]).astype("int64")
            else:
                out[col] = pd.to_numeric(df[col], errors="coerce").astype("float64")
        elif dtype == "int64":
            out[col] = pd.Series(np.arange(n, dtype="int64"), index=df.index)
        else:
            out[col] = pd.Series(np.full(n, np.nan), index=df.index)
    return pd.DataFrame(out).reset_index(drop=True)


def timeline_units() -> dict[str, str]:
    """Column -> SI unit string, for charts and docs."""
    return {c: u for c, (_d, u, _m) in TIMELINE_COLUMNS.items()}
