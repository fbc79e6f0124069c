"""Stragglers of one job: ranks persistently slower than the job's other ranks, steps one rank held back,
and the job time lost to them. Pure functions of :class:`~costmodel.jobs.aggregate.JobTables`.

Rule (defaults in brackets):

* per step bin ``b`` (see ``JobTables.bins``) each rank's mean step time ``st_rb``; a rank's ratio to a
  baseline ``x_rb = st_rb / base_b``;
* a rank is a **straggler** when it holds the job back for a large share of the run: ``x_rb >= 1 +
  threshold / 2`` (a *slow bin*) in at least ``persistence`` [0.5] of its bins, and its median excess over
  its slow bins ``median_{b slow}(x_rb) - 1`` >= ``threshold`` [0.05] (a rank 12 % slower for 75 % of the
  run is one; a rank slow in one burst, or a few per cent slower, is not): a stall every rank shares
  (checkpoint, epoch start) raises the baseline too and flags nobody. ``excess_step_time_fraction`` is
  that median excess (how much slower it runs while it is slow), ``bins_above`` / ``bins`` the share of
  the run it was slow for;
* the baseline is found in two passes, so that a slow group as large as the rest (one slow node of two,
  the common two-node job) cannot hide in the median it drags up: first ``base_b`` = the median of the
  faster half of the ranks in the bin (those at or below the bin's median) gives the candidates; then
  ``base_b`` = the median of the ranks that are not candidates, and the rule is applied again against it
  (a candidate that is within ``threshold`` of the others is dropped). The excess reported is the second
  pass's, i.e. over the median of the job's other ranks;
* a step is **held back** by rank ``r`` when ``r`` is the slowest and its step time exceeds the second
  slowest by more than ``hold_threshold`` [0.05] (relative);
* **time lost** to the stragglers, ``straggler_lost_s`` = sum over steps of (slowest step time - step
  time of the slowest rank that is not a straggler), i.e. how much shorter the job's steps would have
  been at the pace of its other ranks (computed exactly by the engine: ``JobTables.others_max``).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .aggregate import JobTables

THRESHOLD = 0.05
PERSISTENCE = 0.5
HOLD_THRESHOLD = 0.05
MIN_RANKS = 3


def rank_ratios(tabs: JobTables) -> pd.DataFrame:
    """The bins table with the job median per bin (``median_st``) and each rank's ratio to it."""
    b = tabs.bins[np.isfinite(tabs.bins["st_mean"])].copy()
    if b.empty:
        return b.assign(median_st=np.nan, ratio=np.nan)
    med = b.groupby("bin")["st_mean"].median().rename("median_st")
    cnt = b.groupby("bin")["st_mean"].size().rename("n_ranks_bin")
    b = b.join(med, on="bin").join(cnt, on="bin")
    b = b[(b["n_ranks_bin"] >= MIN_RANKS) & (b["median_st"] > 0)]
    return b.assign(ratio=b["st_mean"] / b["median_st"])


def _flag(b: pd.DataFrame, base: pd.Series, threshold: float, persistence: float) -> dict[int, tuple[float, int, int]]:
    """Ranks over ``base`` (per bin) by the rule: rank -> (median excess, bins above, bins)."""
    x = b.assign(ratio=b["st_mean"] / b["bin"].map(base)).dropna(subset=["ratio"])
    out: dict[int, tuple[float, int, int]] = {}
    for rank, g in x.groupby("rank"):
        slow = g["ratio"][g["ratio"] >= 1.0 + threshold / 2]
        above = len(slow)
        if not above or above / len(g) < persistence:
            continue
        excess = float(slow.median() - 1.0)
        if excess >= threshold:
            out[int(rank)] = (excess, above, len(g))
    return out


def _faster_half_median(b: pd.DataFrame) -> pd.Series:
    """Per bin, the median of the ranks at or below the bin's median step time."""
    low = b[b["st_mean"] <= b["median_st"]]
    return low.groupby("bin")["st_mean"].median()


def find_stragglers(tabs: JobTables, threshold: float = THRESHOLD, persistence: float = PERSISTENCE,
                    hold_threshold: float = HOLD_THRESHOLD) -> dict[str, Any]:
    """Stragglers, held-back steps and time lost for one job (see the module docstring).

    Returns ``stragglers`` [{rank, excess_step_time_fraction, bins_above, bins, held_back_steps,
    slowest_steps, evidence, source}], ``held_back_steps`` (total), ``held_back_by`` (top ranks by
    held-back steps), ``straggler_lost_s``, ``straggler_lost_fraction`` (of the job's summed step
    time), ``threshold``, ``persistence``, ``hold_threshold`` and ``notes``.
    """
    notes: list[str] = []
    out: dict[str, Any] = {"threshold": threshold, "persistence": persistence, "hold_threshold": hold_threshold,
                           "stragglers": [], "held_back_steps": 0, "held_back_by": [], "straggler_lost_s": 0.0,
                           "straggler_lost_fraction": 0.0, "notes": notes}
    n_ranks = len(tabs.ranks)
    if n_ranks < MIN_RANKS:
        notes.append(f"{n_ranks} rank(s): at least {MIN_RANKS} are needed to tell a straggler from the job median")
    rr = rank_ratios(tabs)
    steps = tabs.steps
    # held-back steps and slowest counts
    slow = steps["slowest_rank"].to_numpy(dtype="int64") if "slowest_rank" in steps else np.zeros(0, dtype="int64")
    st_max = steps["st_max"].to_numpy(dtype="float64")
    st_2 = steps["st_second"].to_numpy(dtype="float64") if "st_second" in steps else np.full(len(steps), np.nan)
    with np.errstate(invalid="ignore"):
        is_held = (st_2 > 0) & (st_max > st_2 * (1.0 + hold_threshold)) & (slow >= 0)
    held = {int(r): int(c) for r, c in zip(*np.unique(slow[is_held], return_counts=True), strict=False)}
    slowest = {int(r): int(c) for r, c in zip(*np.unique(slow[slow >= 0], return_counts=True), strict=False)}
    flagged: list[dict[str, Any]] = []
    if not rr.empty and n_ranks >= MIN_RANKS:
        candidates = _flag(rr, _faster_half_median(rr), threshold, persistence)
        found: dict[int, tuple[float, int, int]] = {}
        if candidates:
            others = rr[~rr["rank"].isin(list(candidates))]
            base = others.groupby("bin")["st_mean"].median()
            found = {r: v for r, v in _flag(rr, base, threshold, persistence).items() if r in candidates}
        for r, (excess, n_above, n_bins) in found.items():
            flagged.append({
                "rank": r,
                "excess_step_time_fraction": round(excess, 6),
                "bins_above": n_above,
                "bins": n_bins,
                "held_back_steps": int(held.get(r, 0)),
                "slowest_steps": int(slowest.get(r, 0)),
                "evidence": (f"rank {r}: mean step time {excess:+.1%} over the median of the job's other ranks "
                             f"(median over the bins of {tabs.bin_steps} steps where it was at least "
                             f"{threshold / 2:+.1%} over it: {n_above} of {n_bins} bins, {n_above / n_bins:.0%} of the run); "
                             f"slowest rank at {slowest.get(r, 0)} of {len(steps)} steps, held the others back "
                             f"(> {hold_threshold:.0%} over the next slowest) at {held.get(r, 0)}"),
                "source": tabs.sources.get(r, ""),
            })
    flagged.sort(key=lambda d: -d["excess_step_time_fraction"])
    out["stragglers"] = flagged
    out["held_back_steps"] = int(sum(held.values()))
    out["held_back_by"] = [{"rank": int(r), "steps": int(c)} for r, c in
                           sorted(held.items(), key=lambda kv: (-kv[1], kv[0]))[:10]]
    bad = {d["rank"] for d in flagged}
    lost = 0.0
    if bad and tabs.others_max is not None:
        other = np.asarray(tabs.others_max(bad), dtype="float64")
        mask = np.isin(slow, list(bad)) & np.isfinite(other) & np.isfinite(st_max)
        lost = float(np.sum(np.maximum(st_max[mask] - other[mask], 0.0)))
    elif bad:
        notes.append("the engine gave no per-step maximum over the other ranks: time lost not measured")
    total = float(np.nansum(steps["st_max"].to_numpy(dtype="float64"))) if len(steps) else 0.0
    out["straggler_lost_s"] = lost
    out["straggler_lost_fraction"] = lost / total if total > 0 else 0.0
    if not np.isfinite(steps["st_max"].to_numpy(dtype="float64")).any():
        notes.append("no step time logged: stragglers cannot be measured from throughput alone")
    return out
