"""Rules 1-5 of the estimator: too short, stalls (outliers, dips, stall signatures, recurring stalls), segmentation
(PELT on block means), a flagged tail, the result record. Cost: O(n log n) for the stalls, PELT on <= 500 blocks."""
from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from . import detect
from .classify import Segment, classify_segments
from .coarse import (
    coarse_cold_phase,
    held_highs,
    is_coarse,
    period_after,
    stalls_but_the_first,
    stalls_from,
)
from .multipass import multipass_summary
from .period import find_period
from .renewal import find_renewal, windowed_rate
from .result import FitResult
from .rulestate import (
    EPS,
    MIN_POINTS,
    MULTIPASS_FORMATS,
    PENALTY_C,
    PLATEAU_MIN,
    TAIL_KEEP,
    TAIL_MAX,
    Fit,
    too_short_result,
)
from .series import RATE_METRICS, Series
from .stats import tau_int


def segments_of(s: Series, ym: np.ndarray, m: int) -> tuple[list[Segment], np.ndarray, np.ndarray, float]:
    yb, starts = detect.block_means(ym, m)
    nb = len(yb)
    pen = PENALTY_C * np.log(max(nb, 2))
    cps_b = detect.pelt_meanvar(yb, pen, min_size=3 if nb >= 30 else 2)
    cps = [int(starts[c]) for c in cps_b]
    cps = detect.refine_changes(ym, cps, m)
    bounds = [0, *cps, s.n]
    # block-level residual autocorrelation for segment standard errors
    lev_b = np.empty(nb)
    for a, b in zip([0, *cps_b], [*cps_b, nb], strict=False):
        lev_b[a:b] = yb[a:b].mean()
    tb = tau_int(yb - lev_b)
    sig_b = float(np.std(yb - lev_b)) if nb > 1 else 0.0
    segs: list[Segment] = []
    for a, b in itertools.pairwise(bounds):
        nbl = max(1.0, (b - a) / m)
        lvl = float(np.sum(ym[a:b] * s.d[a:b]) / np.sum(s.d[a:b])) if s.is_rate else float(np.mean(ym[a:b]))
        segs.append(Segment(start=a, end=b, level=lvl, se=sig_b * np.sqrt(tb / nbl),
                            start_step=int(s.step[a]), end_step=int(s.step[b - 1])))
    return segs, yb, starts, tb


def rule_too_short(f: Fit) -> None:
    """Too few points, or a constant series: ``too_short`` with the reason. O(n)."""
    s = f.s
    if s.fmt.split("/")[0] in MULTIPASS_FORMATS or (s.n < MIN_POINTS and s.metric == "read_bytes_per_s"):
        f.mp = multipass_summary(s)
    if s.n < MIN_POINTS:
        f.res = too_short_result(s, f"{s.n} usable points; at least {MIN_POINTS} are needed to separate a warm-up "
                              "from a steady state", f.base)
        f.res.multipass = f.mp
        if f.mp is not None:
            f.res.cold_mean = f.mp.get("cold")
        f.stop("too_short")
    elif float(np.ptp(s.y)) == 0.0:
        f.res = too_short_result(s, f"constant series ({s.y[0]:g} at every point): no variability, so no "
                              "confidence interval or warm-up can be estimated; check the source", f.base)
        f.res.multipass = f.mp
        f.stop("constant")


def rule_stalls(f: Fit) -> None:
    """Outliers and dips; stalls by their signature and a loader-bound cold phase (per step); recurring stalls,
    looked for after a bursty or coarse cold phase (a cold phase is never a period). O(n log n)."""
    s, n = f.s, f.s.n
    f.n = n
    f.an = detect.find_anomalies(s.y)
    # a time averaged as it is (lower is better, zeros): its drops are improvements, not stalls
    f.mirrored = s.direction == "lower_is_better" and not s.inverted
    # stalls by their signature and a loader-bound (bursty) cold phase, from the step times
    f.coarse = is_coarse(s) and s.is_rate and not s.inverted
    if f.coarse:  # the first warm row after a steep cold phase is where the level arrived, not a fast outlier
        f.an.high &= ~held_highs(s.y, f.an.high, f.an.baseline)
    ren = (find_renewal(s.w, s.d, s.metadata)
           if (s.metric in RATE_METRICS or s.metric == "step_time_s") and s.time_source in ("step_time_s", "t_s")
           and not f.coarse else None)
    bursty = ren is not None and ren.bursty
    per = find_period(s.y, s.step) if not f.mirrored else None
    if bursty and ren is not None and per is not None and per.mask is not None:
        if per.period_steps > 2 * ren.window and float(np.mean(per.mask[ren.wait_mask])) >= 0.5:
            bursty = False  # the "waits" recur all through the run: periodic gaps (read bursts), not a cold phase
        else:
            # a bursty cold phase's waits are not stalls: the period is looked for after them
            per = find_period(s.y, s.step, lo=ren.cold_end_hint)
    if per is not None and ren is not None and bursty and ren.cycle and per.period_steps <= 2 * ren.window:
        per = None  # a loader cycle is never a period
    if ren is not None and not bursty:
        ren.bursty = False
    if f.coarse:
        # rows every N steps: the cold phase from the rows' evidence; stalls are looked for after it
        f.cp_rows = coarse_cold_phase(s, stalls_but_the_first(per, n))
        per2 = period_after(s, per, stalls_from(f.cp_rows))
        if per2 is not per:
            per = per2
            f.cp_rows = coarse_cold_phase(s, per.mask if per is not None else None)
    f.ren, f.bursty, f.per = ren, bursty, per


def rule_segmentation(f: Fit) -> None:
    """Stalls bridged, then PELT on block means -> segments and their classification. O(n) + PELT on <= 500 blocks."""
    s, n, an, per, ren = f.s, f.n, f.an, f.per, f.ren
    stall = an.mask | per.mask if per is not None and per.mask is not None else an.mask
    ym = np.where(stall, an.baseline, s.y)
    if per is not None and per.mask is not None and (~stall).sum() >= 2:
        # stalls (even long idle gaps, where a rolling median sinks) are bridged from the points around them
        ix = np.arange(n)
        ym[per.mask] = np.interp(ix[per.mask], ix[~stall], s.y[~stall])
    if f.bursty and ren is not None:
        # work over time in windows of whole loader cycles, stalls left out: the renewal process's level
        skip = ren.stall_mask | (per.mask if per is not None and per.mask is not None else False)
        ym = windowed_rate(s.w, s.d, skip, ren.window)
    f.stall, f.ym = stall, ym
    f.m = detect.block_size(n)
    f.segs, f.yb, f.starts, _tb = segments_of(s, ym, f.m)
    f.xb, _ = detect.block_means(s.x, f.m)
    f.verdict = classify_segments(f.segs, n, EPS, lower_is_better=f.mirrored)
    f.hi = f.hi_fit = n


DRIFT_PLATEAU = 0.02  # rows every N steps: a plateau before a tail may drift by 2 % (the GPU's own drift)


def _plateau_before_tail(v2: Any, segs: list[Any], n: int) -> bool:
    return bool(v2.classification != "no_steady_state" and v2.steady_start is not None
                and segs[-1].start - v2.steady_start >= PLATEAU_MIN * n)


def _coarse_rows(s: Any) -> bool:
    k = np.diff(s.step)
    return len(k) >= 2 and float(np.median(k)) > 1


def rule_tail(f: Fit) -> None:
    """A long plateau followed by a short tail: the plateau is the steady state, the tail is flagged. O(segments)."""
    n, segs, verdict = f.n, f.segs, f.verdict
    if verdict.classification == "no_steady_state" and len(segs) >= 2 and n - segs[-1].start <= TAIL_MAX * n:
        v2 = classify_segments(segs[:-1], segs[-1].start, EPS, lower_is_better=f.mirrored)
        if not _plateau_before_tail(v2, segs, n) and _coarse_rows(f.s):
            # interval means resolve the GPU's own 1-2 % drift that per-step noise hides: the plateau before the
            # tail is the run's level within DRIFT_PLATEAU (the steady window and its drift checks still apply)
            v2 = classify_segments(segs[:-1], segs[-1].start, DRIFT_PLATEAU, lower_is_better=f.mirrored)
        if _plateau_before_tail(v2, segs, n):
            tail = segs[-1]
            rel = float(tail.level / segs[-2].level - 1.0) if segs[-2].level else float("inf")
            kept = abs(rel) <= TAIL_KEEP
            f.hi = n if kept else segs[-1].start
            # the curve and the warm-up end are fitted before a flagged tail, kept in the steady state or not
            f.hi_fit = segs[-1].start
            f.tail_info = {"start_step": tail.start_step, "end_step": tail.end_step, "level": tail.level,
                           "rel_change": rel, "share_of_run": float((n - tail.start) / n), "kept_in_steady": kept,
                           "note": ("a small change over the last part of the run only (within 5 %, e.g. the GPU's "
                                    "own drift): kept in the steady state and flagged" if kept else
                                    "the level changes over the last part of the run only: the plateau before it is "
                                    "reported as the steady state, this tail is left out of it")}
            f.verdict = v2
            f.trace.append("tail")


def rule_result(f: Fit) -> None:
    """The result record with the segmentation's evidence (MSER-5 beside it). O(n)."""
    s, an, verdict = f.s, f.an, f.verdict
    evidence: dict[str, Any] = {
        "rule": verdict.reason,
        "pelt_penalty": f"{PENALTY_C:g} * log(n_blocks)",
        "block_size": f.m,
        "n_blocks": int(len(f.yb)),
        "outliers": int(an.mask.sum() - sum(e[1] - e[0] for e in an.dip_events)),
        "dip_events": len(an.dip_events),
        "dips_periodic": an.periodic,
        "dip_period_steps": an.period,
        "dip_period_cv": an.period_cv,
        "drift_rel": verdict.drift_rel,
        "mser5_truncation_index": None,
        "mser5_valid": None,
    }
    if f.tail_info is not None:
        evidence["tail"] = f.tail_info
    d5, ok5 = detect.mser(f.ym, 5)
    evidence["mser5_truncation_index"] = d5
    evidence["mser5_valid"] = ok5
    f.evidence = evidence
    f.cls = verdict.classification
    f.trace.append(f"segmentation:{f.cls}")
    res = FitResult(classification=f.cls, evidence=evidence, multipass=f.mp, **f.base)
    res.segments = [sg.to_dict() for sg in f.segs]
    res.cold_mean = s.level(f.segs[0].start, f.segs[0].end)
    res.tail = f.tail_info
    f.res = res
