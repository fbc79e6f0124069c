"""What a benchmark run measured: per-file reads, time slices, passes, the run; and the familiar text lines."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..foundation.fields_json import FieldsJson, JsonKeys
from ..foundation.units import GIB as GIB  # bench reports GiB (2^30 bytes), like the familiar client
from .pagecache import Eviction, Residency


@dataclass(slots=True)
class FileRead:
    """One file read in one pass; times in seconds since the run started, ``error`` None when it succeeded."""

    pass_no: int
    index: int
    bytes: int
    start_s: float
    end_s: float
    worker: int
    error: str | None = None
    size_after: int | None = None
    mtime_ns_after: int | None = None

    @property
    def latency_s(self) -> float:
        return self.end_s - self.start_s

    def to_record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "type": "file",
            "pass": self.pass_no,
            "index": self.index,
            "bytes": self.bytes,
            "start_s": round(self.start_s, 6),
            "end_s": round(self.end_s, 6),
            "worker": self.worker,
        }
        if self.error is not None:
            rec["error"] = self.error
        return rec


@dataclass(slots=True)
class Sample:
    """Bytes read during one time slice of a pass (block granularity); times since the run started."""

    pass_no: int
    slice: int
    t_start_s: float
    t_end_s: float
    bytes: int
    blocks: int
    files_done: int

    @property
    def duration_s(self) -> float:
        return self.t_end_s - self.t_start_s

    @property
    def read_bytes_per_s(self) -> float:
        d = self.duration_s
        return self.bytes / d if d > 0 else float("nan")

    def to_record(self) -> dict[str, Any]:
        rate = self.read_bytes_per_s
        return {
            "type": "sample",
            "pass": self.pass_no,
            "slice": self.slice,
            "t_start_s": round(self.t_start_s, 6),
            "t_end_s": round(self.t_end_s, 6),
            "bytes": self.bytes,
            "blocks": self.blocks,
            "files_done": self.files_done,
            "read_bytes_per_s": rate if math.isfinite(rate) else None,
        }


def percentile(sorted_values: Sequence[float], q: float) -> float | None:
    """Linear-interpolated percentile ``q`` (0..100) of already sorted values (numpy's default); None if empty."""
    n = len(sorted_values)
    if n == 0:
        return None
    if n == 1:
        return float(sorted_values[0])
    pos = (n - 1) * q / 100.0
    lo = int(math.floor(pos))
    hi = min(lo + 1, n - 1)
    frac = pos - lo
    return float(sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * frac)


@dataclass
class PassResult(FieldsJson):
    """One pass over the file list.

    ``page_cache`` is ``evicted`` (this client's cached pages of the files were dropped before the
    pass), ``bypassed`` (O_DIRECT) or ``as_found`` (nothing done: warm if an earlier pass read them).
    ``residency_before`` / ``residency_after`` are mincore measurements around the pass;
    ``direct_verified`` (O_DIRECT passes) is True when the pass added no more than 2 % of the bytes
    to the page cache, i.e. the file system really bypassed it.
    Throughput is successful bytes over the pass's wall time (first open to last close).
    """

    pass_no: int
    cold: bool
    page_cache: str
    bytes: int
    elapsed_s: float
    start_s: float
    end_s: float
    files_read: int
    files_failed: int
    files_changed: int
    latency_s: dict[str, float | None]
    residency_before: Residency | None = None
    eviction: Eviction | None = None
    interrupted: bool = False
    residency_after: Residency | None = None
    direct_verified: bool | None = None

    @property
    def throughput_bytes_per_s(self) -> float:
        return self.bytes / self.elapsed_s if self.elapsed_s > 0 else float("nan")

    @property
    def gib(self) -> float:
        return self.bytes / GIB

    @property
    def throughput_gib_per_s(self) -> float:
        return self.throughput_bytes_per_s / GIB

    def line(self) -> str:
        """The familiar client's line: ``pass=1 data=0.78 GiB time=0.45s throughput=1.75 GiB/s``."""
        return format_pass_line(self.pass_no, self.bytes, self.elapsed_s)

    JSON = JsonKeys(keys=("pass=pass_no", "cold", "page_cache", "bytes", "elapsed_s", "start_s", "end_s",
                          "throughput_bytes_per_s", "throughput_gib_per_s", "files_read", "files_failed", "files_changed",
                          "latency_s", "residency_before", "eviction", "residency_after", "direct_verified", "interrupted"),
                    jsonable=True)  # jsonable: a throughput of a pass without time is null, not NaN

    def to_record(self) -> dict[str, Any]:
        return {"type": "pass", **self.to_dict()}


def latency_summary(latencies_s: Sequence[float]) -> dict[str, float | None]:
    """Per-file latency p50 / p95 / p99 / max / mean in seconds (None when no file was read)."""
    vals = sorted(latencies_s)
    return {
        "p50": percentile(vals, 50),
        "p95": percentile(vals, 95),
        "p99": percentile(vals, 99),
        "max": float(vals[-1]) if vals else None,
        "mean": (sum(vals) / len(vals)) if vals else None,
    }


def format_header(files: int, workers: int) -> str:
    """The familiar client's first line: ``files=400 workers=8``."""
    return f"files={files} workers={workers}"


def format_pass_line(pass_no: int, nbytes: int, elapsed_s: float) -> str:
    """``pass=N data=X.XX GiB time=Y.YYs throughput=Z.ZZ GiB/s`` (GiB = 2^30 bytes, two decimals)."""
    gib = nbytes / GIB
    tput = gib / elapsed_s if elapsed_s > 0 else 0.0
    return f"pass={pass_no} data={gib:.2f} GiB time={elapsed_s:.2f}s throughput={tput:.2f} GiB/s"


@dataclass
class BenchResult:
    """A whole run: metadata, passes, time slices, per-file reads and what went wrong.

    ``status`` is ``complete`` or ``interrupted`` (Ctrl-C: the passes measured so far are kept).
    ``to_dict()`` holds everything but the per-file reads (``file_reads``), which the JSONL keeps.
    """

    run: dict[str, Any]
    passes: list[PassResult]
    samples: list[Sample]
    file_reads: list[FileRead]
    status: str = "complete"
    unreadable: list[dict[str, Any]] = field(default_factory=list)
    changed: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    out: str | None = None

    @property
    def interrupted(self) -> bool:
        return self.status == "interrupted"

    def lines(self) -> list[str]:
        """The familiar client's stdout: the header and one line per completed pass."""
        done = [p for p in self.passes if not p.interrupted]
        return [format_header(self.run["file_count"], self.run["options"]["workers"])] + [p.line() for p in done]

    def cold_warm_ratio(self) -> float | None:
        """Throughput of the first cold pass over the fastest pass that was not cold (None if either is missing)."""
        cold = [p for p in self.passes if p.cold and not p.interrupted]
        warm = [p for p in self.passes if not p.cold and not p.interrupted]
        if not cold or not warm:
            return None
        best = max(p.throughput_bytes_per_s for p in warm)
        return cold[0].throughput_bytes_per_s / best if best > 0 else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "run_id": self.run.get("run_id"),
            "root": self.run.get("root"),
            "files": self.run.get("file_count"),
            "files_under_root": self.run.get("total_files_under_root"),
            "files_beyond_max_files": self.run.get("files_beyond_max_files", 0),
            "total_bytes": self.run.get("total_bytes"),
            "file_list_sha256": self.run.get("file_list_sha256"),
            "workers": self.run["options"]["workers"],
            "block_bytes": self.run["options"]["block_bytes"],
            "eviction_method": self.run.get("eviction_method"),
            "passes": [p.to_dict() for p in self.passes],
            "passes_completed": sum(1 for p in self.passes if not p.interrupted),
            "cold_to_warm_throughput_ratio": self.cold_warm_ratio(),
            "samples": [s.to_record() for s in self.samples],
            "file_reads": len(self.file_reads),
            "unreadable": list(self.unreadable),
            "changed": list(self.changed),
            "notes": list(self.notes),
            "out": self.out,
            "run": dict(self.run),
        }
