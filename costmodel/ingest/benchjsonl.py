"""Reader for the JSONL record of ``costmodel bench --out FILE.jsonl`` (format ``bench_jsonl``).

Row layout (one Run per file): **one row per time slice** of a pass, in order, so ``fit`` sees
warm-up inside a pass as well as across passes, on both axes:

| column | value |
| --- | --- |
| ``step`` | slice index over the whole run (0, 1, 2, ...; continues across passes) |
| ``epoch`` | the pass (1-based) |
| ``t_s`` | end of the slice, seconds since the run started (gaps between passes, for eviction, included) |
| ``step_time_s`` | length of the slice in seconds (``sample_interval_s``; the last slice of a pass 0.5-1.5 of it) |
| ``bytes_read`` | bytes read in the slice (counted when each block read returns) |
| ``read_bytes_per_s`` | ``bytes_read / step_time_s`` |
| ``read_iops`` | block reads per second in the slice |

Per-pass summaries (bytes, elapsed, throughput, per-file latency p50/p95/p99/max, page-cache state,
eviction verdict) are in ``run.metadata["passes"]``; host, kernel, options, file count, total bytes
and the file list's SHA-256 in the rest of ``run.metadata``. Per-file records are counted, not
imported. An interrupted run, a record without its ``end`` line (killed run: ``FILE.jsonl.partial``),
an eviction that did not work, unreadable files and files that changed during the run become warnings.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import IngestError
from ..schema import Rejection, Run
from .validate import build_run

FORMAT = "bench_jsonl"
_FIRST = re.compile(r'^\s*\{.*"schema"\s*:\s*"costmodel\.bench/\d+"')
_SAMPLE_FIELDS = ("pass", "t_start_s", "t_end_s", "bytes")
_PASS_KEEP = (
    "pass", "cold", "page_cache", "bytes", "elapsed_s", "throughput_bytes_per_s", "files_read", "files_failed",
    "files_changed", "latency_s", "interrupted",
)


def sniff(head: str, path: Path) -> bool:
    """True when the first line is a ``costmodel bench`` run record."""
    first = head.lstrip().split("\n", 1)[0]
    return bool(_FIRST.match(first))


def _num(rec: dict[str, Any], key: str) -> float:
    v = rec.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{key} = {v!r} (expected a number)")
    return float(v)


def read(path: Path, options: Any) -> list[Run]:
    """Read one bench JSONL file into one Run of time-slice rows; raises IngestError when unusable."""
    src = str(path)
    run_rec: dict[str, Any] | None = None
    end_rec: dict[str, Any] | None = None
    passes: list[dict[str, Any]] = []
    cols: dict[str, list[float]] = {k: [] for k in ("epoch", "t_s", "step_time_s", "bytes_read", "read_bytes_per_s", "read_iops")}
    lines: list[int] = []
    bad: list[Rejection] = []
    file_reads = 0
    unknown_types: set[str] = set()
    try:
        fh = open(path, encoding="utf-8", errors="replace")
    except OSError as exc:
        raise IngestError(f"cannot read: {exc.strerror or exc}", path=src) from None
    with fh:
        for i, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                if not isinstance(rec, dict):
                    raise ValueError("not a JSON object")
            except ValueError as exc:
                if run_rec is None:
                    raise IngestError(f"first record is not JSON ({exc}); expected the costmodel bench run record",
                                      path=src, line=i) from None
                bad.append(Rejection(src, i, f"not a JSON record ({str(exc)[:80]}); a truncated last line means the run was killed"))
                continue
            kind = rec.get("type")
            if run_rec is None:
                if kind != "run" or not str(rec.get("schema", "")).startswith("costmodel.bench/"):
                    raise IngestError("expected the costmodel bench run record (type 'run', schema 'costmodel.bench/1') first",
                                      path=src, line=i, field="type")
                run_rec = rec
                continue
            if kind == "sample":
                try:
                    p = _num(rec, "pass")
                    t0, t1, nb = _num(rec, "t_start_s"), _num(rec, "t_end_s"), _num(rec, "bytes")
                    blocks = float(rec["blocks"]) if isinstance(rec.get("blocks"), (int, float)) else float("nan")
                    d = t1 - t0
                    if not d > 0:
                        raise ValueError(f"slice length t_end_s - t_start_s = {d:g} s (expected > 0)")
                except (ValueError, TypeError) as exc:
                    bad.append(Rejection(src, i, f"bad sample record: {exc}", field="sample"))
                    continue
                cols["epoch"].append(p)
                cols["t_s"].append(t1)
                cols["step_time_s"].append(d)
                cols["bytes_read"].append(nb)
                cols["read_bytes_per_s"].append(nb / d)
                cols["read_iops"].append(blocks / d)
                lines.append(i)
            elif kind == "file":
                file_reads += 1
            elif kind == "pass":
                passes.append(_pass_summary(rec))
            elif kind == "end":
                end_rec = rec
            elif kind == "manifest":
                continue
            else:
                unknown_types.add(str(kind))
    if run_rec is None:
        raise IngestError("empty record: no costmodel bench run record", path=src)
    if not lines:
        raise IngestError(
            "the record has no throughput samples (the run measured nothing before it stopped)", path=src, field="sample"
        )
    warnings, status = _warnings(src, run_rec, end_rec, passes, unknown_types)
    meta = {k: v for k, v in run_rec.items() if k not in ("type",)}
    meta.update({
        "status": status,
        "passes": passes,
        "passes_completed": sum(1 for p in passes if not p.get("interrupted")),
        "file_reads": file_reads,
        "unreadable": (end_rec or {}).get("unreadable", []),
        "changed": (end_rec or {}).get("changed", []),
        "cold_to_warm_throughput_ratio": (end_rec or {}).get("cold_to_warm_throughput_ratio"),
        "layout": "rows are time slices: step = slice index, epoch = pass, t_s = slice end since run start, "
                  "step_time_s = slice length",
    })
    run_id = getattr(options, "run_id", None) or str(run_rec.get("run_id") or path.stem)
    role = getattr(options, "role", "") or str(run_rec.get("role") or "")
    arrays = {k: np.asarray(v, dtype="float64") for k, v in cols.items()}
    arrays["step"] = np.arange(len(lines), dtype="float64")
    return [
        build_run(
            arrays,
            path=path,
            run_id=run_id,
            fmt=FORMAT,
            role=role,
            lines=np.asarray(lines),
            metadata=meta,
            warnings=warnings,
            extra_rejected=bad,
            strict=getattr(options, "strict", False),
        )
    ]


def _pass_summary(rec: dict[str, Any]) -> dict[str, Any]:
    out = {k: rec.get(k) for k in _PASS_KEEP}
    ev = rec.get("eviction") or {}
    res = rec.get("residency_before") or {}
    out["eviction_method"] = ev.get("method")
    out["eviction_worked"] = ev.get("worked")
    out["resident_fraction_before"] = res.get("resident_fraction")
    out["resident_fraction_after"] = (rec.get("residency_after") or {}).get("resident_fraction")
    out["direct_verified"] = rec.get("direct_verified")
    return out


def _warnings(src: str, run_rec: dict[str, Any], end_rec: dict[str, Any] | None, passes: list[dict[str, Any]],
              unknown_types: set[str]) -> tuple[list[str], str]:
    warnings: list[str] = []
    planned = (run_rec.get("options") or {}).get("passes")
    if end_rec is None:
        status = "incomplete"
        warnings.append(f"{src}: no end record: the run was killed or is still running; "
                        f"{len(passes)} of {planned} passes recorded")
    else:
        status = str(end_rec.get("status", "complete"))
        if status == "interrupted":
            done = sum(1 for p in passes if not p.get("interrupted"))
            warnings.append(f"{src}: the run was interrupted (Ctrl-C) after {done} complete pass(es) of {planned}")
    for p in passes:
        if p.get("eviction_worked") is False:
            frac = p.get("resident_fraction_before")
            frac_s = f"{frac:.0%} of the data still cached" if isinstance(frac, (int, float)) else "residency unknown"
            warnings.append(f"{src}: pass {p.get('pass')}: eviction did not work ({frac_s}); it is not a cold read")
        if p.get("direct_verified") is False:
            warnings.append(f"{src}: pass {p.get('pass')}: O_DIRECT reads filled the page cache; "
                            "the file system did not bypass it")
    if end_rec is not None:
        if end_rec.get("unreadable"):
            warnings.append(f"{src}: {len(end_rec['unreadable'])} file(s) were unreadable (metadata 'unreadable')")
        if end_rec.get("changed"):
            warnings.append(f"{src}: {len(end_rec['changed'])} read(s) found a file changed since the walk (size or mtime) "
                            "(metadata 'changed')")
    if unknown_types:
        warnings.append(f"{src}: record types not understood, ignored: {', '.join(sorted(unknown_types))}")
    return warnings, status
