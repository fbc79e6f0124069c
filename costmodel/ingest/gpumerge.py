"""GPU telemetry merged onto training runs by time weighting (not by nearest sample).

A telemetry sample ``v_j`` taken at ``g_j`` describes the sampling period before it, ``(g_{j-1}, g_j]``
(``nvidia-smi dmon``'s ``sm`` and ``--query-gpu``'s ``utilization.gpu`` are the share of the last sample
period a kernel ran); the first sample covers one median interval before it. A training row ``i`` lasts
``[t_i - d_i, t_i]`` (``t_s`` is the end of the row; ``d_i`` its ``step_time_s``, else the difference of
``t_s``). Its merged value is the time average of the telemetry over that interval::

    v_i = (F(t_i) - F(t_i - d_i)) / (C(t_i) - C(t_i - d_i)),   F(t) = integral of v up to t,  C(t) = covered seconds

``F`` and ``C`` are piecewise linear between the samples, so both are ``np.interp`` of their running
sums: O((n + m) log m). A row outside the telemetry's span stays empty. The level of any window of
rows, weighted by the rows' durations as the analysis weights every auxiliary column, is then the
time average of the telemetry over that window: a two-second checkpoint row counts the idle seconds
it spans, and fifty 40 ms steps inside one busy second count that second once. (Merged by nearest
sample, every short busy step repeated its busy sample and the stall's idle samples were mostly
skipped: dmon's utilisation came out 7 points high on a real run.)
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..foundation.schema import Run

GPU_FORMATS = ("nvidia_smi", "dcgmi", "dcgm_exporter", "nvidia_smi_dmon")
#: the telemetry columns merged onto a training run
MERGED_COLUMNS = ("gpu_util", "gpu_power_w")


def row_intervals(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (seconds, the run's ``t_s`` clock) of each training row."""
    t = table["t_s"].to_numpy(dtype="float64")
    d = table["step_time_s"].to_numpy(dtype="float64") if "step_time_s" in table.columns else np.full(len(t), np.nan)
    dt = np.diff(t)
    gap = np.concatenate([[np.nan], dt])
    ok_dt = dt[np.isfinite(dt) & (dt > 0)]
    first = float(np.median(ok_dt)) if len(ok_dt) else np.nan
    gap[0] = first
    d = np.where(np.isfinite(d) & (d > 0), d, gap)
    return t - d, t


def time_weighted(a: np.ndarray, b: np.ndarray, g: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Time average over each ``[a_i, b_i]`` of the piecewise-constant telemetry ``v_j`` on ``(g_{j-1}, g_j]``.

    ``g`` must be sorted; NaN samples cover nothing. Rows not covered at all are NaN.
    """
    ok = np.isfinite(g)
    g, v = g[ok], v[ok]
    out = np.full(len(a), np.nan)
    if len(g) == 0:
        return out
    gd = np.diff(g)
    pos = gd[gd > 0]
    first = float(np.median(pos)) if len(pos) else 1.0
    edges = np.concatenate([[g[0] - first], g])  # sample j covers (edges[j], edges[j+1]]
    width = np.diff(edges)
    has = np.isfinite(v)
    F = np.concatenate([[0.0], np.cumsum(np.where(has, v, 0.0) * width)])
    C = np.concatenate([[0.0], np.cumsum(np.where(has, width, 0.0))])
    fin = np.isfinite(a) & np.isfinite(b) & (b > a)
    aa, bb = a[fin], b[fin]
    cov = np.interp(bb, edges, C) - np.interp(aa, edges, C)
    tot = np.interp(bb, edges, F) - np.interp(aa, edges, F)
    with np.errstate(invalid="ignore", divide="ignore"):
        vals = np.where(cov > 1e-12, tot / np.where(cov > 1e-12, cov, 1.0), np.nan)
    out[fin] = vals
    return out


def merge_gpu(runs: list[Run]) -> tuple[list[Run], list[str]]:
    """Merge GPU telemetry runs onto the training runs loaded with them, by time weighting.

    Telemetry fills ``gpu_util`` / ``gpu_power_w`` where the training run has none: for each training row
    the time average of the telemetry over the row's interval (module docstring), then the mean over
    the GPUs that cover it. Alignment is by absolute time when both sides know it
    (``metadata['start_epoch_s']``) and their windows overlap; otherwise by time since each start, only
    when there is exactly one training run (and it says so). Merged telemetry runs are folded in
    (listed in ``metadata['gpu_merged_from']``); telemetry that cannot be placed stays as its own runs.
    Returns (runs, notes).
    """
    gpus = [r for r in runs if r.format in GPU_FORMATS]
    train = [r for r in runs if r.format not in GPU_FORMATS]
    if not gpus or not train:
        return runs, []
    notes: list[str] = []
    used: set[int] = set()
    timeless: list[str] = []
    for tr in train:
        t = tr.table["t_s"].to_numpy(dtype="float64")
        if not np.isfinite(t).any():
            timeless.append(tr.run_id)
            continue
        t0 = tr.metadata.get("start_epoch_s")
        picks: list[tuple[Run, float]] = []
        for g in gpus:
            g0 = g.metadata.get("start_epoch_s")
            if t0 is not None and g0 is not None:
                offset = float(g0) - float(t0)  # gpu t_s + offset = training t_s
                gt = g.table["t_s"].to_numpy(dtype="float64") + offset
                if np.nanmax(gt) >= np.nanmin(t) and np.nanmin(gt) <= np.nanmax(t):
                    picks.append((g, offset))
            elif len(train) == 1:
                picks.append((g, 0.0))
        if not picks:
            notes.append(f"{tr.run_id}: GPU telemetry does not overlap it in time; kept as separate runs")
            continue
        a, b = row_intervals(tr.table)
        merged_cols: dict[str, list[np.ndarray]] = {c: [] for c in MERGED_COLUMNS}
        for g, offset in picks:
            gt = g.table["t_s"].to_numpy(dtype="float64") + offset
            order = np.argsort(gt, kind="stable")
            for col in merged_cols:
                if col not in g.table.columns:
                    continue
                vals = g.table[col].to_numpy(dtype="float64")
                if not np.isfinite(vals).any():
                    continue
                merged_cols[col].append(time_weighted(a, b, gt[order], vals[order]))
            used.add(id(g))
        tab = tr.table.copy()
        for col, parts in merged_cols.items():
            if not parts:
                continue
            with np.errstate(all="ignore"):
                stack = np.vstack(parts)
                cnt = np.isfinite(stack).sum(axis=0)
                mean = np.where(cnt > 0, np.nansum(stack, axis=0) / np.maximum(cnt, 1), np.nan)
            have = tab[col].to_numpy(dtype="float64") if col in tab.columns else np.full(len(tab), np.nan)
            if np.isfinite(have).any():
                notes.append(f"{tr.run_id}: already has {col}; GPU telemetry fills only its empty rows")
            tab[col] = np.where(np.isfinite(have), have, mean)
        tr.table = tab
        absolute = t0 is not None and all(g.metadata.get("start_epoch_s") is not None for g, _ in picks)
        how = "absolute time" if absolute else "time since each start (no absolute clock on one side)"
        tr.metadata["gpu_merged_from"] = [g.run_id for g, _ in picks]
        tr.metadata["gpu_merge"] = (f"mean over {len(picks)} GPU run(s) of the telemetry's time average over each "
                                    f"row's interval, aligned by {how}")
        notes.append(f"{tr.run_id}: GPU telemetry from {len(picks)} run(s) merged (time-weighted) by {how}")
    if timeless:
        notes.append(
            f"{len(timeless)} run(s) without a time column, GPU telemetry not merged onto them: "
            + ", ".join(timeless[:5]) + (" ..." if len(timeless) > 5 else "")
        )
    return [r for r in runs if id(r) not in used], notes
