"""fio per-interval logs as time series: ``*_bw.N.log``, ``*_iops.N.log``, ``*_lat/_clat/_slat.N.log``
and ``*_clat_hist.N.log``.

Row format (fio HOWTO "Log File Formats"): ``time_ms, value, ddir, bs[, offset][, prio]``; ``ddir`` 0 read,
1 write, 2 trim. Units: bw KiB/s, iops 1/s, latency ns (µs before fio 3.0, which a log cannot tell: we
read ns and say so). Which kind a log is comes from its name (``_bw``, ``_iops``, ``_clat_hist`` ...)
or ``--format fio_bw|fio_iops|fio_lat|fio_clat_hist``. Histogram logs (``time_ms, ddir, bs, c0..cN``,
per-interval counts) give the interval's mean completion latency and its I/O count (``samples``);
1216 bins means fio 2.x µs buckets, more means ns buckets.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation.errors import IngestError
from ..foundation.schema import Rejection, Run
from ..foundation.units import KIB
from .validate import build_run, run_id_for

FORMAT = "fio_log"
FORMATS = ["fio_log", "fio_bw", "fio_iops", "fio_lat", "fio_clat_hist"]

_ROW = re.compile(r"^\s*\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?\s*,\s*[0-2]\s*,\s*\d+(?:\s*,\s*(?:0x[0-9a-fA-F]+|\d+))*\s*$")
_HIST = re.compile(r"^\s*\d+\s*,\s*[0-2]\s*,\s*\d+(?:\s*,\s*\d+){8,}\s*,?\s*$")


def kind_from_name(path: Path) -> str | None:
    name = path.name.lower()
    for key, kind in (("_clat_hist", "fio_clat_hist"), ("_bw", "fio_bw"), ("_iops", "fio_iops"),
                      ("_clat", "fio_lat"), ("_slat", "fio_lat"), ("_lat", "fio_lat")):
        if key in name:
            return kind
    return None


def sniff(head: str, path: Path) -> bool:
    lines = [ln for ln in head.splitlines()[:20] if ln.strip()]
    if not lines:
        return False
    full = lines[:-1] if len(lines) > 1 else lines  # the last line of the head may be cut
    if all(_HIST.match(ln) for ln in full):
        return True
    return all(_ROW.match(ln) for ln in full)


def plat_idx_to_val(idx: np.ndarray, bits: int = 6) -> np.ndarray:
    """fio's histogram bucket index -> bucket midpoint (same unit as the histogram), vectorised."""
    idx = np.asarray(idx, dtype="int64")
    val = 1 << bits
    out = idx.astype("float64")
    big = idx >= (val << 1)
    error_bits = (idx[big] >> bits) - 1
    base = np.left_shift(1, error_bits + bits).astype("float64")
    k = idx[big] % val
    out[big] = base + (k + 0.5) * np.left_shift(1, error_bits).astype("float64")
    return out


def _parse(path: Path, hist: bool) -> tuple[list[list[float]], list[int], list[Rejection]]:
    rows: list[list[float]] = []
    lines: list[int] = []
    bad: list[Rejection] = []
    src = str(path)
    with open(path, encoding="utf-8-sig", errors="replace") as fh:
        for i, line in enumerate(fh, start=1):
            s = line.strip().rstrip(",")
            if not s:
                continue
            parts = [p.strip() for p in s.split(",")]
            try:
                vals = [float(int(p, 16)) if p.lower().startswith("0x") else float(p) for p in parts]
            except ValueError:
                bad.append(Rejection(path=src, line=i, reason=f"not a fio log row (numbers separated by commas): {s[:60]!r}"))
                continue
            if len(vals) < 4:
                bad.append(Rejection(path=src, line=i, reason=f"{len(vals)} fields, expected at least 4"))
                continue
            rows.append(vals)
            lines.append(i)
    return rows, lines, bad


def read(path: Path, options: Any) -> list[Run]:
    src = str(path)
    fmt = getattr(options, "fmt", None)
    kind = fmt if fmt in FORMATS[1:] else kind_from_name(path)
    with open(path, encoding="utf-8-sig", errors="replace") as fh:
        head = fh.read(64 * 1024)
    first = next((ln for ln in head.splitlines() if ln.strip()), "")
    if kind is None:
        kind = "fio_clat_hist" if _HIST.match(first) and first.count(",") > 10 else None
    if kind is None:
        raise IngestError(
            "a fio log, but its name does not say which (expected _bw, _iops, _lat, _clat or _clat_hist in the name); "
            "use --format fio_bw|fio_iops|fio_lat|fio_clat_hist",
            path=src,
        )
    rows, lines, bad = _parse(path, kind == "fio_clat_hist")
    if not rows:
        raise IngestError("no fio log rows (time_ms, value, ddir, bs)", path=src, line=bad[0].line if bad else None)
    width = max(len(r) for r in rows)
    warnings: list[str] = []
    meta: dict[str, Any] = {"fio_log_kind": kind}
    role = getattr(options, "role", "") or ""
    strict = getattr(options, "strict", False)
    if kind == "fio_clat_hist":
        ncols = min(len(r) for r in rows)
        if any(len(r) != ncols for r in rows):
            raise IngestError("histogram rows have different numbers of bins", path=src)
        arr = np.asarray(rows, dtype="float64")
        t_ms, ddir, counts = arr[:, 0], arr[:, 1], arr[:, 3:]
        nbins = counts.shape[1]
        unit = 1e-6 if nbins <= 1216 else 1e-9
        meta.update({"bins": nbins, "bin_unit": "us (fio 2.x)" if unit == 1e-6 else "ns", "log_hist_msec": None})
        mid = plat_idx_to_val(np.arange(nbins)) * unit
        total = counts.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(total > 0, (counts * mid).sum(axis=1) / total, np.nan)
        read_rows = ddir == 0
        if (~read_rows).any():
            warnings.append(f"{src}: {int((~read_rows).sum())} write/trim histogram row(s) not imported "
                            "(the Timeline has read latency only)")
        cols = {"t_s": t_ms[read_rows] / 1e3, "read_latency_s": mean[read_rows], "samples": total[read_rows]}
        ln = np.asarray(lines)[read_rows]
    else:
        arr = np.full((len(rows), width), np.nan)
        for i, r in enumerate(rows):
            arr[i, : len(r)] = r
        t_ms, value, ddir = arr[:, 0], arr[:, 1], arr[:, 2]
        rd, wr = ddir == 0, ddir == 1
        nan = np.full(len(rows), np.nan)
        if kind == "fio_bw":
            cols = {"read_bytes_per_s": np.where(rd, value * KIB, nan), "write_bytes_per_s": np.where(wr, value * KIB, nan)}
            meta["value_unit"] = "KiB/s"
        elif kind == "fio_iops":
            cols = {"read_iops": np.where(rd, value, nan), "write_iops": np.where(wr, value, nan)}
        else:
            cols = {"read_latency_s": np.where(rd, value * 1e-9, nan)}
            meta["value_unit"] = "ns (fio >= 3.0; logs from older fio are in us)"
            warnings.append(f"{src}: latency log values read as ns (fio >= 3.0); logs written by fio 2.x are in us")
            if wr.any():
                warnings.append(f"{src}: {int(wr.sum())} write latency row(s) not imported (the Timeline has read latency only)")
        if (ddir == 2).any():
            warnings.append(f"{src}: {int((ddir == 2).sum())} trim row(s) not imported")
        cols["t_s"] = t_ms / 1e3
        bs = arr[:, 3]
        meta["block_size_bytes"] = sorted({int(b) for b in bs[np.isfinite(bs)]})[:8]
        ln = np.asarray(lines)
        keep = rd | wr
        if kind == "fio_lat":
            keep = rd
        cols = {k: v[keep] for k, v in cols.items()}
        ln = ln[keep]
    # several jobs appended to one log (a shared prefix): time restarts near 0 -> one run per segment
    t = cols["t_s"]
    starts = [0] + [i for i in range(1, len(t)) if t[i] < t[i - 1] and t[i] <= t[0] + 1.0]
    bounds = [*starts, len(t)]
    runs = []
    for k in range(len(starts)):
        a, b = bounds[k], bounds[k + 1]
        seg_meta = dict(meta)
        if len(starts) > 1:
            seg_meta["segment"] = k + 1
            seg_meta["segments_in_file"] = len(starts)
        runs.append(
            build_run(
                {c: v[a:b] for c, v in cols.items()},
                path=path,
                run_id=run_id_for(path, options, str(k + 1) if len(starts) > 1 else ""),
                fmt=kind,
                role=role,
                lines=ln[a:b],
                metadata=seg_meta,
                warnings=warnings
                + ([f"{src}: time restarts at line {ln[a]}: read as run {k + 1} of {len(starts)} appended to the same log"]
                   if k else []),
                extra_rejected=[x for x in bad if x.line is not None and ln[a] <= x.line <= (ln[b - 1] if b > a else x.line)]
                if len(starts) > 1 else bad,
                strict=strict,
            )
        )
    return runs
