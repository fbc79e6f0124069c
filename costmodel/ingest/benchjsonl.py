"""Reader for the JSONL record of ``costmodel bench --out FILE.jsonl`` (format ``bench_jsonl``).

Row layout (one Run per file): **one row per pass**, as bench recorded it, so ``fit`` sees 3 passes as 3
observations (pass 1 cold, or every pass cold with ``--cold-every-pass``):

| column | value |
| --- | --- |
| ``step`` / ``epoch`` | the pass (1-based) |
| ``t_s`` | end of the pass, seconds since the run started (gaps between passes, for eviction, included) |
| ``step_time_s`` | the pass's reading time in seconds (bench's ``elapsed_s``) |
| ``bytes_read`` | bytes read in the pass |
| ``read_bytes_per_s`` | ``bytes_read / step_time_s`` (bench's ``throughput_bytes_per_s``) |
| ``read_iops`` | block reads per second in the pass (from its time slices) |

The time slices (``sample`` records, ``sample_interval_s`` each) are sub-pass detail: kept in
``run.metadata["slices"]`` as columns (``pass``, ``t_end_s``, ``length_s``, ``bytes``, ``blocks``) so warm-up
inside a pass stays visible. ``metadata["cold_passes"]`` / ``["warm_passes"]`` say which passes bench recorded as
cold (page cache evicted before the pass) and warm. A pass without its ``pass`` record (killed or interrupted run)
is not a row: its slices stay in ``slices`` and a warning says so; when no pass completed, the rows are the slices
(the old layout, with a warning). Per-pass summaries (bytes, elapsed, throughput, per-file latency
p50/p95/p99/max, page-cache state, eviction verdict) are in ``run.metadata["passes"]``; host, kernel, options,
file count, total bytes and the file list's SHA-256 in the rest of ``run.metadata``. Per-file records are
counted, not imported. An interrupted run, a record without its ``end`` line (killed run: ``FILE.jsonl.partial``),
an eviction that did not work, unreadable files and files that changed during the run become warnings.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np

from ..foundation import limits
from ..foundation.errors import IngestError
from ..foundation.schema import Rejection, Run
from .validate import build_run

FORMAT = "bench_jsonl"
_FIRST = re.compile(r'^\s*\{.*"schema"\s*:\s*"costmodel\.bench/\d+"')
_SAMPLE_FIELDS = ("pass", "t_start_s", "t_end_s", "bytes")
_PASS_KEEP = (
    "pass", "cold", "page_cache", "bytes", "elapsed_s", "start_s", "end_s", "throughput_bytes_per_s", "files_read",
    "files_failed", "files_changed", "latency_s", "interrupted",
)


def sniff(head: str, path: Path) -> bool:
    """True when the first line is a ``costmodel bench`` run record."""
    first = head.lstrip().split("\n", 1)[0]
    return bool(_FIRST.match(first))


def _required_number(rec: dict[str, Any], key: str) -> float:
    """``rec[key]`` as a float; ValueError naming the key when it is missing or not a number."""
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
    cols: dict[str, list[float]] = {k: [] for k in ("epoch", "t_s", "step_time_s", "bytes_read", "read_bytes_per_s", "read_iops",
                                                     "blocks")}
    pass_lines: dict[int, int] = {}
    lines: list[int] = []
    bad: list[Rejection] = []
    file_reads = 0
    unknown_types: set[str] = set()
    try:
        fh = open(path, encoding="utf-8", errors="replace")  # noqa: SIM115 - `with fh` below; open errors told apart
    except OSError as exc:
        raise IngestError(f"cannot read: {exc.strerror or exc}", path=src) from None
    with fh:
        for i, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = limits.loads(line)
                if not isinstance(rec, dict):
                    raise ValueError("not a JSON object")
            except ValueError as exc:
                if run_rec is None:
                    raise IngestError(f"first record is not JSON ({exc}); expected the costmodel bench run record",
                                      path=src, line=i) from None
                bad.append(Rejection(src, i, f"not a JSON record ({str(exc)[:80]}); "
                                             "a truncated last line means the run was killed"))
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
                    p = _required_number(rec, "pass")
                    t0, t1 = _required_number(rec, "t_start_s"), _required_number(rec, "t_end_s")
                    nb = _required_number(rec, "bytes")
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
                cols["blocks"].append(blocks)
                lines.append(i)
            elif kind == "file":
                file_reads += 1
            elif kind == "pass":
                passes.append(_pass_summary(rec))
                if isinstance(rec.get("pass"), int):
                    pass_lines[rec["pass"]] = i
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
    meta = {k: v for k, v in run_rec.items() if k != "type"}
    meta.update({
        "status": status,
        "passes": passes,
        "passes_completed": sum(1 for p in passes if not p.get("interrupted")),
        "file_reads": file_reads,
        "unreadable": (end_rec or {}).get("unreadable", []),
        "changed": (end_rec or {}).get("changed", []),
        "cold_to_warm_throughput_ratio": (end_rec or {}).get("cold_to_warm_throughput_ratio"),
    })
    run_id = getattr(options, "run_id", None) or str(run_rec.get("run_id") or path.stem)
    role = getattr(options, "role", "") or str(run_rec.get("role") or "")
    sl = {k: np.asarray(v, dtype="float64") for k, v in cols.items()}
    meta["slices"] = {"pass": [int(x) for x in sl["epoch"]], "t_end_s": sl["t_s"].tolist(),
                      "length_s": sl["step_time_s"].tolist(), "bytes": sl["bytes_read"].tolist(),
                      "blocks": [None if not np.isfinite(b) else int(b) for b in sl["blocks"]], "line": lines}
    done = [p for p in passes if not p.get("interrupted") and _is_num(p.get("elapsed_s")) and p["elapsed_s"] > 0
            and _is_num(p.get("bytes")) and isinstance(p.get("pass"), int)]
    meta["cold_passes"] = [p["pass"] for p in done if p.get("cold")]
    meta["warm_passes"] = [p["pass"] for p in done if not p.get("cold")]
    if done:
        arrays, row_lines = _pass_rows(done, sl, pass_lines)
        missing = sorted({int(x) for x in sl["epoch"]} - {p["pass"] for p in done})
        if missing:
            warnings.append(f"{src}: pass(es) {', '.join(map(str, missing))} did not complete (no pass record): "
                            "not a row; their time slices are kept in metadata slices")
        meta["layout"] = ("rows are passes: step = epoch = pass, t_s = pass end since run start, step_time_s = pass "
                          "reading time; time slices are in metadata slices")
    else:
        arrays = {k: v for k, v in sl.items() if k != "blocks"}
        arrays["step"] = np.arange(len(lines), dtype="float64")
        row_lines = lines
        warnings.append(f"{src}: no pass completed: rows are the time slices of the passes read so far")
        meta["layout"] = ("rows are time slices (no pass completed): step = slice index, epoch = pass, t_s = slice end "
                          "since run start, step_time_s = slice length")
    return [
        build_run(
            arrays,
            path=path,
            run_id=run_id,
            fmt=FORMAT,
            role=role,
            lines=np.asarray(row_lines),
            metadata=meta,
            warnings=warnings,
            extra_rejected=bad,
            strict=getattr(options, "strict", False),
        )
    ]


def _is_num(v: object) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and bool(np.isfinite(v))


def _pass_rows(done: list[dict[str, Any]], sl: dict[str, np.ndarray],
               pass_lines: dict[int, int]) -> tuple[dict[str, np.ndarray], list[int]]:
    """One row per completed pass, from its pass record (block reads summed from its slices)."""
    rows: dict[str, list[float]] = {k: [] for k in ("step", "epoch", "t_s", "step_time_s", "bytes_read", "read_bytes_per_s",
                                                      "read_iops")}
    for p in done:
        k = p["pass"]
        in_pass = sl["epoch"] == k
        elapsed = float(p["elapsed_s"])
        nbytes = float(p["bytes"])
        end = p.get("end_s")
        if not _is_num(end):
            end = float(sl["t_s"][in_pass].max()) if in_pass.any() else np.nan
        blocks = sl["blocks"][in_pass]
        rows["step"].append(float(k))
        rows["epoch"].append(float(k))
        rows["t_s"].append(float(end))
        rows["step_time_s"].append(elapsed)
        rows["bytes_read"].append(nbytes)
        rows["read_bytes_per_s"].append(nbytes / elapsed)
        rows["read_iops"].append(float(blocks.sum()) / elapsed if len(blocks) and np.isfinite(blocks).all() else np.nan)
    lines = [pass_lines.get(p["pass"], 0) or None for p in done]
    return {k: np.asarray(v, dtype="float64") for k, v in rows.items()}, lines  # type: ignore[return-value]


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
