"""Read a predicted run: warm-up end, steady level, hit ratio, bytes across regions.

``warmup_end_step`` comes from :func:`costmodel.warmup.analyze` when that function is importable and
returns a step; otherwise (and always as ``warmup_end_step_rule``) from the simulator's own rule:
the steady level is the median of the last quarter of the steps, and warm-up ends at the first step
from which every later step's rolling mean (window ``max(5, n // 100)``) stays within
``tolerance`` (1 %) of that level. When samples/s never settles step by step because it follows each
epoch's cycle (a cache smaller than a reshuffled dataset), and at least two complete epochs were simulated,
warm-up ends at the first epoch from which every complete epoch's samples/s is within 1 % of the last one's
(``warmup_method`` says which rule was used).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

TOLERANCE = 0.01


def rolling_mean(y: np.ndarray, window: int) -> np.ndarray:
    """Trailing-and-leading (centred) mean of ``y`` over ``window`` points; edges use what exists."""
    y = np.asarray(y, dtype=np.float64)
    if len(y) == 0:
        return y
    window = max(1, min(window, len(y)))
    c = np.concatenate([[0.0], np.cumsum(np.nan_to_num(y))])
    k = np.concatenate([[0], np.cumsum(~np.isnan(y))])
    half = window // 2
    lo = np.clip(np.arange(len(y)) - half, 0, len(y))
    hi = np.clip(np.arange(len(y)) + window - half, 0, len(y))
    cnt = k[hi] - k[lo]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, (c[hi] - c[lo]) / np.maximum(cnt, 1), np.nan)


def steady_level(y: np.ndarray) -> float:
    """Median of the last quarter of ``y`` (NaN ignored)."""
    y = np.asarray(y, dtype=np.float64)
    tail = y[len(y) - max(1, len(y) // 4):]
    tail = tail[~np.isnan(tail)]
    return float(np.median(tail)) if len(tail) else float("nan")


def settle_index(y: np.ndarray, *, relative: bool = True, tolerance: float = TOLERANCE) -> int:
    """First index from which the rolling mean of ``y`` stays within ``tolerance`` of its steady level
    (relative to the level, or absolute when ``relative`` is False). 0 for a flat series."""
    y = np.asarray(y, dtype=np.float64)
    if len(y) == 0:
        return 0
    level = steady_level(y)
    if not np.isfinite(level):
        return 0
    sm = rolling_mean(y, max(5, len(y) // 100))
    band = tolerance * abs(level) if relative else tolerance
    bad = ~(np.abs(sm - level) <= band)
    idx = np.flatnonzero(bad)
    return 0 if len(idx) == 0 else int(min(idx[-1] + 1, len(y) - 1))


def warmup_end_step(run: Any) -> tuple[int, str]:
    """``(step, method)``: the warm-up engineer's ``costmodel.warmup.analyze`` when available, else the rule."""
    table: pd.DataFrame = run.table
    rule = int(table["step"].iloc[settle_index(table["samples_per_s"].to_numpy())]) if len(table) else 0
    try:
        from ..warmup import analyze
    except Exception:  # noqa: BLE001 - not landed yet, or unavailable: use the rule
        return rule, "rule"
    try:
        res = analyze(run, metric="samples_per_s", curve_evidence=False)  # the end only: no evidence fits
        val = getattr(res, "warmup_end_step", None)
        if val is None and hasattr(res, "to_dict"):
            val = res.to_dict().get("warmup_end_step")
        if val is None or not np.isfinite(float(val)):
            return rule, "rule"
        return int(round(float(val))), "costmodel.warmup.analyze"
    except Exception:  # noqa: BLE001 - a flat or short predicted series may not be analysable
        return rule, "rule"


def summarise_run(table: pd.DataFrame, warmup_step: int, *, steps_per_run: int, epochs: float,
                  truncated: bool, colocated: pd.DataFrame | None = None, edge_steps: int = 0,
                  dataset_samples: int | None = None, cache_holds_dataset: bool = False,
                  dataset_bytes: float | None = None) -> dict[str, Any]:
    """The summary of one predicted run (see :class:`costmodel.simulate.SimulationResult`).

    The steady window is the last complete epoch when the run simulated at least two (the steady state
    of repeated epochs is periodic), else the steps after both samples/s and the hit ratio settled.
    When the run was cut short (``truncated``), the rest of the simulated epoch is assumed to cross the
    link at the steady per-step rate (measured over the steady steps less the last ``edge_steps``, whose
    prefetches for steps beyond the window were never issued); later epochs cross nothing when
    ``cache_holds_dataset`` (the cache keeps every block of the dataset; then epoch 1 is also capped at
    ``dataset_bytes``, each block crossing at most once), else the same steady rate.
    """
    n = len(table)
    hit = table["cache_hit_ratio"].to_numpy()
    hit_settle = settle_index(hit, relative=False)
    settled = hit_settle <= 0.75 * n
    start = min(max(warmup_step, hit_settle if settled else 0), max(n - 1, 0))
    window = "after_warmup"
    epoch_rule = False
    if dataset_samples and "epoch" in table and n:
        # several epochs: the steady state is periodic, so read it over the last complete epoch
        # (a step belongs to the epoch of its first sample, so an epoch may be short by < one step)
        spp = float(table["samples"].max())
        g = table.groupby("epoch")
        per_epoch = g["samples"].sum()
        complete = per_epoch.index[per_epoch > dataset_samples - spp].tolist()
        if len(complete) >= 2:
            if warmup_step > 0.75 * n:
                # samples/s never settled step by step (it follows the epoch's cycle): compare whole epochs
                rate = (g["samples"].sum() / g["step_time_s"].sum()).loc[complete]
                ok = (np.abs(rate / rate.iloc[-1] - 1) <= TOLERANCE).to_numpy()
                first_ok = len(ok) - 1
                while first_ok > 0 and ok[first_ok - 1]:
                    first_ok -= 1
                warmup_step = int(np.flatnonzero(table["epoch"].to_numpy() == complete[first_ok])[0])
                epoch_rule = True
            idx = np.flatnonzero(table["epoch"].to_numpy() == complete[-1])
            if idx[0] >= warmup_step:
                start = int(idx[0])
                window = f"epoch {int(complete[-1])}"
                steady = table.iloc[idx[0]: idx[-1] + 1]
    if window == "after_warmup":
        steady = table.iloc[start:]
    steps_sim = n
    xr = table["cross_region_bytes"].to_numpy()
    simulated_xr = float(np.nansum(xr))
    xr_window = steady["cross_region_bytes"]
    if truncated and len(xr_window) > 2 * edge_steps:
        xr_window = xr_window.iloc[: len(xr_window) - edge_steps]
    steady_xr_per_step = float(np.nanmean(xr_window)) if len(xr_window) else 0.0
    epoch_col = table["epoch"].to_numpy() if "epoch" in table else np.zeros(n)
    n_epochs = max(1, int(np.ceil(epochs)))
    by_epoch = [float(np.nansum(xr[epoch_col == e])) for e in range(n_epochs)]
    if truncated and steps_per_run > steps_sim:
        steps_per_epoch = steps_per_run / max(epochs, 1e-12)
        last_e = int(epoch_col[-1]) if n else 0
        done_in_last = float(np.sum(epoch_col == last_e))
        rest_of_epoch = max(0.0, min(steps_per_epoch, steps_per_run) - done_in_last)
        by_epoch[last_e] += steady_xr_per_step * rest_of_epoch
        if cache_holds_dataset and dataset_bytes and last_e == 0:
            # nothing is evicted: every block crosses at most once per run, so epoch 1 is at most the
            # dataset (a wrong prediction fetches a block some later access would have fetched anyway)
            by_epoch[0] = min(by_epoch[0], max(float(dataset_bytes), simulated_xr))
        for e in range(last_e + 1, n_epochs):
            share = min(1.0, epochs - e)  # a fractional last epoch
            by_epoch[e] = 0.0 if cache_holds_dataset else steady_xr_per_step * steps_per_epoch * share
    xr_run = float(sum(by_epoch))
    w_samples = steady["samples"].to_numpy()
    blocks_hit = steady["cache_hit_ratio"].to_numpy()
    steady_time = float(steady["step_time_s"].sum())
    steady_samples = float(steady["samples"].sum())
    out: dict[str, Any] = {
        "warmup_end_step": int(warmup_step),
        "warmup_by_epoch": epoch_rule,
        "warmup_end_t_s": float(table["t_s"].iloc[min(warmup_step, n - 1)]) if n else 0.0,
        "hit_ratio_settled_step": int(table["step"].iloc[hit_settle]) if n else 0,
        "steady_from_step": int(table["step"].iloc[start]) if n else 0,
        "steady_window": window,
        "hit_ratio_settled": bool(settled),
        "steady_samples_per_s": steady_samples / steady_time if steady_time > 0 else float("nan"),
        "steady_hit_ratio": float(np.nansum(blocks_hit * w_samples) / np.sum(w_samples)) if len(blocks_hit) else float("nan"),
        "steady_gpu_util": float(np.nanmean(steady["gpu_util"])) if len(steady) else float("nan"),
        "steady_read_latency_s": float(np.nanmean(steady["read_latency_s"])) if len(steady) else float("nan"),
        "cold_samples_per_s": float(np.nanmean(table["samples_per_s"].iloc[: max(1, warmup_step)])) if n else float("nan"),
        "steps_simulated": steps_sim,
        "steps_per_run": int(steps_per_run),
        "extrapolated": bool(truncated and steps_per_run > steps_sim),
        "cross_region_bytes_simulated": simulated_xr,
        "cross_region_bytes_per_run": xr_run,
        "cross_region_bytes_per_epoch": xr_run / epochs if epochs > 0 else float("nan"),
        "cross_region_bytes_by_epoch": by_epoch,
        "cross_region_bytes_steady_per_step": steady_xr_per_step,
        "run_time_s_simulated": float(table["t_s"].iloc[-1]) if n else 0.0,
    }
    if colocated is not None and len(colocated) == n:
        lost = float((table["step_time_s"] - colocated["step_time_s"]).clip(lower=0).iloc[:max(warmup_step, 1)].sum())
        co_time = float(colocated["step_time_s"].iloc[start:].sum())
        co_sps = float(colocated["samples"].iloc[start:].sum()) / co_time if co_time > 0 else float("nan")
        out["colocated_samples_per_s"] = co_sps
        out["warmup_lost_s"] = lost
        out["steady_slowdown_fraction"] = max(0.0, 1.0 - out["steady_samples_per_s"] / co_sps) if co_sps > 0 else float("nan")
    return out
