"""Where the cold phase ends, decided by the evidence columns when the log has them.

Order of decision: the **data wait** (``data_wait_s``: the warm-up ends where the wait in excess of its
warm baseline stops accumulating), else, for a loader-bound (bursty) run, the **throughput** over
windows of whole loader cycles (the time in excess of the warm level stops accumulating); otherwise
the segmentation and curve fit of :mod:`costmodel.warmup.analyze` decide. The cache hit ratio is
the first step from which it stays >= 0.9. With the data wait, the cold phase ends when the wait is back at
its warm baseline **and** the hit ratio stays up (the rule: the cache is warm, not only hidden by the
loader's queue): with a deep queue the steps stop waiting before every step's reads hit (a real 8-worker
run: waits end at step ~80, the hit ratio stays up only from step 168), so the end is the later of the two
(``decided_by`` names both) and the wait's own end stays in ``data_wait_end_step``. The time lost is the
same either way (the steps between run at the warm level). A hit ratio that stays up only after the first
half of the run does not move the end (a late dip is not a cold phase). The hit ratio never decides alone;
the GPU utilisation's end (its busy-time deficit against the warm level stops accumulating) is reported.
An excess that is immaterial (below ``MATERIAL`` of the run's time) is no warm-up.

Cold vs warm telemetry (:func:`telemetry`): GPU utilisation, data wait, cache hit ratio and read bytes,
each duration-weighted over the cold phase and over the steady window.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .renewal import Renewal, cusum_end, hit_high_from, rate_end, wait_end
from .series import Series

MATERIAL = 0.002  # an excess below 0.2 % of the run's time is no warm-up
GPU_UTIL_TOL = 0.1  # the GPU counts as warm within 10 % of its warm utilisation
TELEMETRY = ("gpu_util", "data_wait_s", "cache_hit_ratio", "read_bytes_per_s")


@dataclass
class ColdPhase:
    """The cold phase's end by each evidence, and which one decided (indices are observation indices)."""

    end: int | None  # None: the evidence does not decide (the segmentation does)
    decided_by: str
    throughput_end: int
    throughput_excess_s: float
    data_wait_end: int | None = None
    data_wait_excess_s: float | None = None
    data_wait_baseline_s: float | None = None
    hit_high_from: int | None = None
    gpu_util_end: int | None = None

    def to_dict(self, step: np.ndarray) -> dict[str, Any]:
        def st(i: int | None) -> int | None:
            return None if i is None else int(step[min(i, len(step) - 1)])

        return {"decided_by": self.decided_by, "end_step": st(self.end),
                "throughput_end_step": st(self.throughput_end), "throughput_excess_s": self.throughput_excess_s,
                "data_wait_end_step": st(self.data_wait_end), "data_wait_excess_s": self.data_wait_excess_s,
                "data_wait_warm_baseline_s": self.data_wait_baseline_s,
                "cache_hit_high_from_step": st(self.hit_high_from),
                "gpu_util_end_step": st(self.gpu_util_end),
                "method": "CUSUM of the excess over the warm level (throughput: time per unit of work over the "
                          "second half, +5 %; data wait: max(2 x warm median, median + 2 ms) per step), "
                          "stalls left out; the end is where the excess stops accumulating"}


def _col(s: Series, name: str) -> np.ndarray | None:
    if name not in s.table.columns:
        return None
    v = np.asarray(s.table[name].to_numpy(dtype=float))
    return v if np.isfinite(v).any() else None


def cold_phase(s: Series, ren: Renewal, periodic: np.ndarray | None = None) -> ColdPhase:
    """The cold phase's end (see the module docstring); ``periodic`` marks recurring stalls (left out)."""
    total = float(np.sum(s.d))
    skip = ren.stall_mask | periodic if periodic is not None else ren.stall_mask
    k_t, top_t, _u = rate_end(s.w, s.d, skip)
    k_t = k_t if top_t >= MATERIAL * total else 0
    cp = ColdPhase(end=None, decided_by="segmentation", throughput_end=k_t, throughput_excess_s=top_t)
    hit = _col(s, "cache_hit_ratio")
    if hit is not None:
        cp.hit_high_from = hit_high_from(hit)
    gu = _col(s, "gpu_util")
    if gu is not None:
        cp.gpu_util_end = util_end(gu, s.d, skip)
    dw = _col(s, "data_wait_s")
    we = wait_end(dw, skip, np.ones(s.n)) if dw is not None else None
    if we is not None:
        k_w, top_w, base = we
        cp.data_wait_end = k_w if top_w >= MATERIAL * total else 0
        cp.data_wait_excess_s, cp.data_wait_baseline_s = top_w, base
        cp.end, cp.decided_by = cp.data_wait_end, "data_wait_s"
        hh = cp.hit_high_from
        if cp.data_wait_end and hh is not None and cp.data_wait_end < hh <= s.n // 2:
            cp.end, cp.decided_by = hh, "data_wait_s and cache_hit_ratio"
    elif ren.bursty:
        cp.end, cp.decided_by = k_t, "throughput (windows of whole loader cycles)"
    return cp


def util_end(util: np.ndarray, d: np.ndarray, skip: np.ndarray, tol: float = GPU_UTIL_TOL) -> int | None:
    """Where the GPU's busy-time deficit against its warm level stops accumulating (reported, not deciding:
    1 s telemetry samples span tens of steps). The warm level is the median over the second half."""
    n = len(util)
    ok = np.isfinite(util)
    if ok.sum() < max(8, n // 2):
        return None
    # the samples around a stall (a second or two of idle GPU) are left out with it
    k = int(np.ceil(2.0 / max(float(np.median(d)), 1e-9)))
    if skip.any() and k > 0:
        skip = np.convolve(skip.astype(float), np.ones(2 * k + 1), mode="same") > 0
    base = float(np.nanmedian(np.where(skip, np.nan, util)[n // 2:]))
    ex = np.where(skip | ~ok, 0.0, (base * (1.0 - tol) - np.where(ok, util, 0.0)) * d)
    k, top = cusum_end(ex, int(0.75 * n))
    return k if top >= MATERIAL * float(np.sum(d)) * base else 0


def telemetry(s: Series, i_end: int, i_s: int, i_b: int) -> dict[str, dict[str, float | None]]:
    """Duration-weighted means of the telemetry columns over the cold phase [0, i_end) and the steady
    window [i_s, i_b); a column the run lacks is None."""
    out: dict[str, dict[str, float | None]] = {"cold": {}, "steady": {}}
    for c in TELEMETRY:
        v = _col(s, c)
        for name, (a, b) in (("cold", (0, i_end)), ("steady", (i_s, i_b))):
            if v is None or b <= a:
                out[name][c] = None
                continue
            vv, dd = v[a:b], s.d[a:b]
            ok = np.isfinite(vv)
            out[name][c] = float(np.sum(vv[ok] * dd[ok]) / np.sum(dd[ok])) if ok.any() and np.sum(dd[ok]) > 0 else None
    return out
