"""Warm-up at the log's resolution: rows every N steps, sampled or averaged.

A log with a row every N steps cannot show where inside a row the cold phase ended, nor the per-step
signatures (a loader's bursts, one slow checkpoint step) that :mod:`costmodel.warmup.renewal` reads. What it
does show, when rows carry a clock (:func:`costmodel.warmup.series.prepare` turns them into work between
rows over the clock's seconds, stalls included), is each row's rate and its data wait and hit ratio. So:

- the cold phase's end is decided on the rows by the same evidence as per step (:func:`coarse_cold_phase`):
  the data wait back at its warm baseline (and the hit ratio up), and the time in excess of the warm level
  (the second half's work over time, +5 %) no longer accumulating, the later of the two (a row straddles the
  end, and a sampled row's wait is one step's); rows of recurring stalls are left out, and a recurring stall
  is looked for only after the cold phase (a cold phase is never a run of "stalls"). A cold phase of the first
  row alone is a start-up stall, not a warm-up. Without a data wait the
  segmentation and curve fit decide, as per step;
- the end is stated as the interval of steps the last cold row covers (:func:`end_interval`): "between
  step 150 and 200"; ``warmup_end_step`` is the interval's end (the first step of the first warm row);
- the lost seconds are exact sums over whole rows; their bounds come from the steady level's 95 % CI.

Cost: O(n) per rule on n rows.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .coldphase import MATERIAL, ColdPhase
from .period import Period, find_period
from .renewal import RATE_TOL, hit_high_from, rate_end, wait_end
from .series import Series, cadence_steps

#: the hit ratio of an averaged row is a mean: a row counts as warm from this mean on
HIT_WARM = 0.9


def is_coarse(s: Series) -> bool:
    """True when the rows are every N > 1 steps (the log's cadence, :func:`cadence_steps`)."""
    return s.n >= 3 and cadence_steps(s.step.astype(float)) > 1


def _col(s: Series, name: str) -> np.ndarray | None:
    if name not in s.table.columns:
        return None
    v = np.asarray(s.table[name].to_numpy(dtype=float))
    return v if np.isfinite(v).any() else None


def coarse_cold_phase(s: Series, stalls: np.ndarray | None) -> ColdPhase:
    """The cold phase's end on rows every N steps (see the module docstring); ``stalls`` marks rows left out."""
    skip = stalls if stalls is not None else np.zeros(s.n, dtype=bool)
    total = float(np.sum(s.d))
    k_t, top_t, _u = rate_end(s.w, s.d, skip)
    k_t = k_t if top_t >= MATERIAL * total else 0
    # without evidence columns the segmentation and curve fit decide (a smooth curve's 1 % end, not this
    # rule's 5 % one); the throughput's end still says where recurring stalls may be looked for
    cp = ColdPhase(end=None, decided_by="segmentation", throughput_end=k_t, throughput_excess_s=top_t)
    hit = _col(s, "cache_hit_ratio")
    if hit is not None:
        cp.hit_high_from = hit_high_from(hit, HIT_WARM)
    dw = _col(s, "data_wait_s")
    we = wait_end(dw, skip, np.ones(s.n)) if dw is not None else None
    if we is not None:
        k_w, top_w, base = we
        cp.data_wait_end = k_w if top_w * cadence_steps(s.step.astype(float)) >= MATERIAL * total else 0
        cp.data_wait_excess_s, cp.data_wait_baseline_s = top_w, base
        cp.end, cp.decided_by = cp.data_wait_end, "data_wait_s"
        hh = cp.hit_high_from
        if cp.data_wait_end and hh is not None and cp.data_wait_end < hh <= s.n // 2:
            cp.end, cp.decided_by = hh, "data_wait_s and cache_hit_ratio"
        if k_t > (cp.end or 0):
            # the throughput still short of its warm level after the wait ended (rows straddle the end; a
            # sampled row's wait is one step's, which a loader's queue can hide)
            cp.end, cp.decided_by = k_t, cp.decided_by + " and throughput"
        if cp.end == 1:
            # the first row alone: a start-up stall (initialisation, compilation, first batch), not a warm-up
            cp.end, cp.decided_by = 0, cp.decided_by + " (first row only: a start-up stall)"
    return cp


#: a row of the cold phase at less than this share of the warm rate is a wait (a drop below half the level is a
#: stall whatever the noise, as in :mod:`costmodel.warmup.period`)
WAIT_ROW_SHARE = 0.5


def bursty_rows(ratio: np.ndarray, ok: np.ndarray, k_thr: int) -> bool:
    """Rows [0, k_thr) alternate between the warm level and waits: a row within the throughput rule's tolerance of
    the warm rate (``ratio`` = row rate / warm rate) is followed by a row below :data:`WAIT_ROW_SHARE` of it. A
    warm-up by a cache or any smooth curve only gets faster; a loader-bound cold phase (the bursts that, per step,
    license the throughput rule) goes back to waiting after a warm row. Rows not ``ok`` are left out. O(n)."""
    idx = np.flatnonzero(ok[:k_thr])
    warm = idx[ratio[idx] >= 1.0 / (1.0 + RATE_TOL)]
    return bool(len(warm) and np.any(ratio[idx[idx > warm[0]]] < WAIT_ROW_SHARE))


def lost_time_end(s: Series, k_thr: int, i_end: int, steady_start: int, hi: int,
                  stalls: np.ndarray | None) -> dict[str, Any] | None:
    """Rule ``rows_lost_time``: on rows every N steps without a data wait, whether the curve's later 1 % end
    (``i_end``) stands, or the cold phase ends where the throughput's excess stops accumulating (``k_thr``).

    Looked at only when two rules already say the cold phase is over by ``k_thr`` (the throughput's excess over the
    warm level +5 % stops accumulating there, over more than the first row, and the segmentation's steady start
    ``steady_start`` is no later than one row after it) and the curve alone says later, by more than one row
    (None otherwise). The warm level is the median time per unit of work of the second half's rows up to ``hi``
    (the between-stall level, which stall rows that no period marks do not drag; ``stalls`` left out). The end is
    ``k_thr`` when the cold rows are loader-bound (:func:`bursty_rows`: the signature that per step licenses the
    throughput rule, which interval means average away) and the rows between the two ends lose less than
    :data:`~costmodel.warmup.coldphase.MATERIAL` of the run's time against the warm level (a plateau within the
    tolerance, not the cold phase); else the curve's end stands. Returns the finding (``end`` the index to use,
    seconds). O(n).
    """
    n = s.n
    if k_thr < 2 or i_end - k_thr < 2 or steady_start > k_thr + 1:
        return None
    ok = ~(stalls if stalls is not None else np.zeros(n, dtype=bool)) & (s.w > 0) & (s.d > 0)
    h = np.zeros(n, dtype=bool)
    h[n // 2:max(hi, n // 2 + 1)] = True
    if not (ok & h).any():
        return None
    u = float(np.median(s.d[ok & h] / s.w[ok & h]))
    ratio = np.where(ok, s.w * u / np.where(s.d > 0, s.d, 1.0), 0.0)
    between = np.zeros(n, dtype=bool)
    between[k_thr:i_end] = True
    lost = float(np.sum((s.d - s.w * u)[between & ok]))
    material = MATERIAL * float(np.sum(s.d))
    bursty = bursty_rows(ratio, ok, k_thr)
    return {"end": k_thr if bursty and lost < material else i_end, "curve_end": i_end, "throughput_end": k_thr,
            "lost_between_s": lost, "material_s": material, "bursty": bursty, "warm_s_per_unit": u}


def stalls_from(cp: ColdPhase) -> int:
    """Where recurring stalls may start: after the cold phase by the evidence, else by the throughput."""
    return int(cp.end if cp.end is not None else cp.throughput_end)


def period_after(s: Series, per: Period | None, end: int) -> Period | None:
    """Recurring stalls looked for after the cold phase only: a cold phase is never a run of stalls."""
    if per is None or end <= 0 or not any(a < end for a in per.anchors):
        return per
    return find_period(s.y, s.step, lo=end)


def end_interval(s: Series, i_end: int) -> dict[str, Any] | None:
    """The steps the last cold row covers: the warm-up ends inside them (None without a warm-up)."""
    if i_end <= 0:
        return None
    every = cadence_steps(s.step.astype(float))
    hi = int(s.step[i_end - 1]) + 1
    lo = int(s.step[i_end - 2]) + 1 if i_end >= 2 else max(hi - every, 0)
    return {"low_step": lo, "high_step": hi, "cadence_steps": every,
            "note": f"rows every {every} steps: the warm-up ends between step {lo} and step {hi} "
                    "(the steps of the last row below the warm level); warmup_end_step is the interval's end"}


def lost_bounds(s: Series, i_end: int, ci_low: float | None, ci_high: float | None) -> tuple[float, float] | None:
    """Seconds lost in rows [0, i_end) against the steady level's 95 % CI bounds (low, high)."""
    if i_end <= 0 or not ci_low or not ci_high or ci_low <= 0:
        return None
    T = float(np.sum(s.d[:i_end]))
    W = float(np.sum(s.w[:i_end]))
    return max(T - W / ci_low, 0.0), max(T - W / ci_high, 0.0)


def rows_evidence(s: Series) -> dict[str, Any]:
    """What a row is: the cadence, sampled or averaged (and how that is known), whether stalls are visible."""
    md = s.metadata
    return {"cadence_steps": cadence_steps(s.step.astype(float)), "rows": md.get("rows") or "unknown",
            "rows_from": md.get("rows_from") or "not stated",
            "rate_from": ("steps x work per step / clock seconds between rows (stalls included)"
                          if s.time_source == "clock_between_rows" else f"the logged rate ({s.time_source})"),
            "stalls_between_rows_invisible": bool(md.get("stalls_between_rows_invisible", False)),
            # sampled rows without a step time: the work per step the clock implies on a typical row (median)
            "work_per_step_from_clock": md.get("work_per_step_from_clock"),
            # how long the first row took: an elapsed clock's time before it, or no faster than the next row
            **({"first_row_s_from": md["first_row_s_from"]} if md.get("first_row_s_from") else {}),
            # a clock in whole seconds too coarse for the rows' spacing: averaged rows' step times used instead
            **({"clock_too_coarse": md["clock_too_coarse"]} if md.get("clock_too_coarse") else {})}


def stalls_but_the_first(per: Period | None, n: int) -> np.ndarray | None:
    """The recurring stalls' rows less a "stall" at the very start of the run (where a cold phase looks like one)."""
    if per is None or per.mask is None:
        return None
    m = per.mask.copy()
    for a, b in per.events:
        if a == 0:
            m[a:b] = False
    return m


def row_first_steps(s: Series) -> np.ndarray:
    """The first step each row covers (a row at step ``b`` after one at ``a`` covers ``a + 1 .. b``)."""
    step = s.step.astype(np.int64)
    every = cadence_steps(step.astype(float))
    return np.concatenate([[max(int(step[0]) - every + 1, 0)], step[:-1] + 1]) if len(step) else step


#: rows after a fast row that must hold its level for it to be the first warm row, not an outlier
HELD_ROWS = 3


def held_highs(y: np.ndarray, high: np.ndarray, baseline: np.ndarray) -> np.ndarray:
    """Fast "outliers" that the next HELD_ROWS rows hold (their median nearer the row's value than the rolling
    median ``baseline`` it was flagged against): on rows every N steps the first warm row after a steep cold phase
    sits above a rolling median that still holds cold rows, but it is where the level arrived, not a spike (after
    a spike the rows fall back to the baseline). O(n)."""
    held = np.zeros(len(y), dtype=bool)
    for i in np.flatnonzero(high):
        after = y[i + 1:i + 1 + HELD_ROWS]
        held[i] = len(after) == HELD_ROWS and float(np.median(after)) >= 0.5 * (float(y[i]) + float(baseline[i]))
    return held
