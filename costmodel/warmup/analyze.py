"""``analyze(run)``: warm-up end, steady state with a 95 % CI, curve, classification, lost seconds.

Pipeline (each step a pure function of the previous one's output):

1. :func:`costmodel.warmup.series.prepare` - the metric, durations and work per observation;
2. :func:`~costmodel.warmup.detect.find_anomalies` - outliers and dips, masked (replaced by the
   rolling median) for steps 3-5 only;
3. PELT (Normal mean+variance cost, penalty ``15 log(n_blocks)``) on <= 500 block means, refined to
   full resolution -> segments and their levels;
4. :func:`~costmodel.warmup.classify.classify_segments` -> class and steady group;
5. for warm-ups: curve models chosen by BIC against a one-sided isotonic fit; the warm-up end is the
   chosen estimator's first point within 1 % of the plateau; the steady window then starts where the
   fitted curve's residual bias is below a tenth of the standard error (bias rule) and at least one
   warm-up length after the warm-up end (the curve is uncertain too); a steady window
   whose level drifts by more than 2 % (Theil-Sen) and significantly (z >= 4) is ``no_steady_state``;
6. steady level = ratio of sums over the steady window (dips and slow steps included), with a
   batch-means 95 % CI; ``lost_s`` = seconds lost during the warm-up relative to the plateau.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..foundation.errors import AnalysisError
from . import curve as curvemod
from . import detect
from .classify import Segment, classify_segments, theil_sen_rel
from .coarse import (
    coarse_cold_phase,
    end_interval,
    is_coarse,
    lost_bounds,
    period_after,
    row_first_steps,
    rows_evidence,
    stalls_but_the_first,
    stalls_from,
)
from .coldphase import ColdPhase, cold_phase, telemetry
from .drift import DRIFT_TAIL, drift_per_1k, tail_drift, window_drift
from .multipass import multipass_summary
from .overshoot import overshoot_end as find_overshoot_end
from .period import Period, find_period
from .renewal import Renewal, find_renewal, windowed_rate
from .result import FitResult, curve_dict, invert_levels, settle_negative_lost
from .series import RATE_METRICS, Series, prepare
from .shortrun import late_small_rise, startup_stall
from .stallsplit import signature_period, stall_split
from .stats import longrun_ratio_se, ratio_ci, tau_int

EPS = 0.01  # warm-up end convention: within 1 % of the steady level
MIN_POINTS = 20  # below this a run is "too_short"
STEADY_FRAC = 0.25  # a steady state must last at least this share of the run
PENALTY_C = 15.0  # PELT penalty constant (Barrett et al.)
BIAS_SE_FRACTION = 0.1  # residual warm-up bias above 0.1 SE moves the steady start / widens the CI
BIAS_MAX_SHIFT = 1.0  # ... by at most this many warm-up lengths (and never past half the data after the end)
DRIFT_Z = 4.0  # a drift must also be significant: |head - tail| >= 4 standard errors
DRIFT_TAIL_REL = 0.008  # ... still moves by more than 0.8 % (2 % over a whole run) and significantly
DRIFT_Z_TAIL = 3.0  # (slope z, autocorrelation-corrected) and at an undiminished pace
DRIFT_PACE_MAX = 2.0  # ... not accelerating (second half of the tail at most twice the first half's slope)
HEAD_DRIFT_MIN = 0.25  # ... and the window before the tail does not move the other way by >= 1/4 of the tail's change
TAIL_MAX = 0.2  # a final segment this short (share of the run) after a long plateau is a flagged tail ...
PLATEAU_MIN = 0.5  # ... when the plateau before it lasts at least half the run
TAIL_KEEP = 0.05  # a flagged tail within 5 % of the plateau stays in the steady state (a late drift)
MIN_STEADY = 8  # fewest points in a steady window that still give a level with a (wide) CI
AUX_COLUMNS = ("cache_hit_ratio", "read_bytes_per_s", "gpu_util", "read_latency_s", "data_wait_s",
               "cross_region_bytes")
MULTIPASS_FORMATS = ("benchtext", "bench_jsonl")


# ----------------------------------------------------------------------------------------------
def _aux_means(s: Series, lo: int) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    tab = s.table
    d = s.d[lo:]
    for c in AUX_COLUMNS:
        if c not in tab.columns or c == s.metric:
            out[c] = None if c != s.metric else s.level(lo)
            continue
        v = np.asarray(tab[c].to_numpy(dtype=float))[lo:]
        ok = np.isfinite(v)
        out[c] = float(np.sum(v[ok] * d[ok]) / np.sum(d[ok])) if ok.any() and np.sum(d[ok]) > 0 else None
    return out


def _index_at(s: Series, x: float) -> int:
    """First observation index whose axis position is >= x."""
    xs = s.x if s.axis == "t_s" else s.step.astype(float)
    return min(int(np.searchsorted(xs, x - 1e-9, side="left")), s.n - 1)


def _too_short(s: Series, reason: str, base: dict[str, Any]) -> FitResult:
    res = FitResult(classification="too_short", evidence={"reason": reason}, **base)
    return res


def _segments(s: Series, ym: np.ndarray, m: int) -> tuple[list[Segment], np.ndarray, np.ndarray, float]:
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


def _blocks_before(starts: np.ndarray, m: int, hi_fit: int, n: int) -> int:
    """Number of blocks that end before a flagged tail (less one: the change point is refined to +-m)."""
    if hi_fit >= n:
        return len(starts)
    return max(int(np.searchsorted(starts + m, hi_fit, side="right")) - 1, 0)


def _isotonic_df(fit: np.ndarray) -> int:
    """Distinct levels of an isotonic fit: levels within 1e-9 of the largest level of each other count once
    (tied block means that last-bit noise or a 1e-12 change of the inputs split are still one level)."""
    scale = float(np.max(np.abs(fit))) if len(fit) else 0.0
    return int(len(np.unique(np.round(fit / scale, 9)))) if scale > 0 else int(len(np.unique(fit)))


def analyze_series(s: Series) -> FitResult:
    """Analyse a prepared :class:`Series` (see the module docstring)."""
    res = _analyze_series(s)
    if s.inverted:
        invert_levels(res, s)
    return res


@dataclass
class _Fit:
    """What the rules have found so far about one series (each rule reads it and adds its finding)."""

    s: Series
    base: dict[str, Any]
    n: int = 0
    mp: dict[str, Any] | None = None
    an: Any = None
    mirrored: bool = False
    coarse: bool = False
    ren: Renewal | None = None
    bursty: bool = False
    per: Period | None = None
    cp_rows: ColdPhase | None = None
    stall: Any = None
    ym: Any = None
    m: int = 0
    segs: list[Segment] = field(default_factory=list)
    yb: Any = None
    starts: Any = None
    xb: Any = None
    verdict: Any = None
    hi: int = 0
    hi_fit: int = 0
    tail_info: dict[str, Any] | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    cls: str = ""
    res: FitResult | None = None
    cp: ColdPhase | None = None
    decided: int | None = None
    td: Any = None
    overshoot_end: int | None = None
    i_end: int = 0
    sel: Any = None
    best: Any = None
    chosen: Any = None
    j0: int = 0
    i_s: int = 0
    i_s0: int = 0
    i_b: int = 0
    win: tuple[int, int] | None = None
    resid_bias_rel: float = 0.0
    ci: Any = None
    done: bool = False
    #: the rules that changed the classification or ended the analysis, in order
    trace: list[str] = field(default_factory=list)

    def stop(self, rule: str) -> None:
        self.done = True
        self.trace.append(rule)


def _rule_too_short(f: _Fit) -> None:
    """Too few points, or a constant series: ``too_short`` with the reason. O(n)."""
    s = f.s
    if s.fmt.split("/")[0] in MULTIPASS_FORMATS or (s.n < MIN_POINTS and s.metric == "read_bytes_per_s"):
        f.mp = multipass_summary(s)
    if s.n < MIN_POINTS:
        f.res = _too_short(s, f"{s.n} usable points; at least {MIN_POINTS} are needed to separate a warm-up "
                              "from a steady state", f.base)
        f.res.multipass = f.mp
        if f.mp is not None:
            f.res.cold_mean = f.mp.get("cold")
        f.stop("too_short")
    elif float(np.ptp(s.y)) == 0.0:
        f.res = _too_short(s, f"constant series ({s.y[0]:g} at every point): no variability, so no "
                              "confidence interval or warm-up can be estimated; check the source", f.base)
        f.res.multipass = f.mp
        f.stop("constant")


def _rule_stalls(f: _Fit) -> None:
    """Outliers and dips; stalls by their signature and a loader-bound cold phase (per step); recurring stalls,
    looked for after a bursty or coarse cold phase (a cold phase is never a period). O(n log n)."""
    s, n = f.s, f.s.n
    f.n = n
    f.an = detect.find_anomalies(s.y)
    # a time averaged as it is (lower is better, zeros): its drops are improvements, not stalls
    f.mirrored = s.direction == "lower_is_better" and not s.inverted
    # stalls by their signature and a loader-bound (bursty) cold phase, from the step times
    f.coarse = is_coarse(s) and s.is_rate and not s.inverted
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


def _rule_segmentation(f: _Fit) -> None:
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
    f.segs, f.yb, f.starts, _tb = _segments(s, ym, f.m)
    f.xb, _ = detect.block_means(s.x, f.m)
    f.verdict = classify_segments(f.segs, n, EPS, lower_is_better=f.mirrored)
    f.hi = f.hi_fit = n


def _rule_tail(f: _Fit) -> None:
    """A long plateau followed by a short tail: the plateau is the steady state, the tail is flagged. O(segments)."""
    n, segs, verdict = f.n, f.segs, f.verdict
    if verdict.classification == "no_steady_state" and len(segs) >= 2 and n - segs[-1].start <= TAIL_MAX * n:
        v2 = classify_segments(segs[:-1], segs[-1].start, EPS, lower_is_better=f.mirrored)
        if (v2.classification != "no_steady_state" and v2.steady_start is not None
                and segs[-1].start - v2.steady_start >= PLATEAU_MIN * n):
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


def _rule_result(f: _Fit) -> None:
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


def _rule_cold_phase(f: _Fit) -> None:
    """The cold phase from evidence (data wait, hit ratio, loader bursts; rows' evidence): flat or warm-up. O(n)."""
    s, n, res, evidence = f.s, f.n, f.res, f.evidence
    assert res is not None
    cp = cold_phase(s, f.ren, f.per.mask if f.per is not None else None) if f.ren is not None else f.cp_rows
    if f.coarse:
        evidence["log_rows"] = rows_evidence(s)
    decided = cp.end if cp is not None and f.cls != "too_short" else None
    if cp is not None:
        # on rows every N steps an index names the row's first step (where that row's phase begins)
        steps = row_first_steps(s) if f.coarse else s.step
        evidence["cold_phase"] = cp.to_dict(steps)
        res.warmup_end_step_throughput = int(steps[min(cp.throughput_end, n - 1)]) if cp.throughput_end else 0
        res.warmup_end_decided_by = cp.decided_by
    if f.ren is not None:
        evidence["renewal"] = f.ren.to_dict(s.step)
    if decided is not None:
        early, late = s.level(0, decided) if decided > 0 else float("nan"), s.level(decided, f.hi)
        worse = decided > 0 and bool(early < late)
        if f.cls in ("flat", "warmup", "slowdown", "invalidation") or f.verdict.classification == "no_steady_state":
            res.classification = f.cls = "warmup" if worse else "flat"
            f.trace.append(f"cold_phase:{f.cls}")
            what = (cp.decided_by if cp else "").replace(" and cache_hit_ratio", "")
            both = cp is not None and cp.decided_by.endswith(" and cache_hit_ratio")
            evidence["rule"] = (f"the cold phase ends where the excess {what} stops accumulating"
                                + (" and every step's cache_hit_ratio stays >= 0.9, the later of the two" if both else "")
                                + f" (step {int(s.step[min(decided, n - 1)])})" if worse else
                                "no material excess over the warm level at the start of the run")
    f.cp, f.decided = cp, decided
    if f.per is not None:
        res.period_steps = f.per.period_steps
        evidence["period"] = {"period_steps": f.per.period_steps, "gap_cv": f.per.cv, "stalls": len(f.per.events),
                              "method": "recurring drops below the rolling median, gaps in steps"}


def _rule_tail_drift(f: _Fit) -> None:
    """A level that still degrades over the last 40 % of the run at an undiminished pace: no steady state. O(n)."""
    s, hi, evidence, res = f.s, f.hi, f.evidence, f.res
    assert res is not None
    td = tail_drift(s, f.ym, hi=hi)
    f.td = td
    if td is not None:
        evidence["tail_drift_rel"], evidence["tail_drift_z"] = td[0], td[1]
        evidence["tail_drift_half_slope_ratio"] = td[3]
        # a drift keeps its pace (the second half of the tail moves at least half as fast as the first);
        # the end of a warm-up or of a settling decelerates
        # (nor accelerates: a level that holds and then moves at the very end is a tail); and the part
        # of the run before the tail does not move the other way (a wander that rises then falls is no drift)
        head = window_drift(s, f.ym, int(f.decided or f.verdict.steady_start or 0), hi - int(DRIFT_TAIL * hi))
        evidence["head_drift_rel"] = head
        kept = head is None or not (np.sign(head) != np.sign(td[0]) and abs(head) >= HEAD_DRIFT_MIN * abs(td[0]))
        if (f.cls != "no_steady_state" and abs(td[0]) > DRIFT_TAIL_REL and td[1] >= DRIFT_Z_TAIL
                and 0.5 <= td[3] <= DRIFT_PACE_MAX and kept):
            res.classification = f.cls = "no_steady_state"
            res.drift_per_1k_steps = td[2]
            evidence["rule"] = (f"the level still drifts by {td[0]:+.1%} over the last {DRIFT_TAIL:.0%} of the run "
                                f"({td[2]:+.2%} per 1,000 steps, z = {td[1]:.1f}): a drift, not a plateau")
            f.trace.append("tail_drift")
    if f.cls == "no_steady_state":
        evidence["last_level"] = f.segs[-1].level
        if res.drift_per_1k_steps is None and td is not None:
            res.drift_per_1k_steps = td[2]
        f.stop("no_steady_state")


def _rule_overshoot(f: _Fit) -> None:
    """A slowdown that is an overshoot settling back to its plateau is a warm-up. O(blocks)."""
    if f.cls == "slowdown" and not f.mirrored and f.decided is None:
        assert f.res is not None
        g0 = int(f.verdict.steady_start or 0)
        f.overshoot_end = find_overshoot_end(f.xb, f.yb, f.starts, f.segs, g0)
        if f.overshoot_end is not None:
            f.res.classification = f.cls = "warmup"
            f.evidence["rule"] = ("the level overshoots its plateau during the warm-up and settles back: the warm-up "
                                  "ends where a decreasing isotonic fit from the peak stays within 1 % of the plateau")
            f.evidence["warmup_end_estimator"] = "isotonic_from_peak"
            f.trace.append("overshoot")


def _too_late(f: _Fit, rule: str) -> None:
    """The warm-up ends after the last quarter of the run begins: ``no_steady_state`` with ``rule``."""
    assert f.res is not None
    f.res.classification = "no_steady_state"
    f.evidence["rule"] = rule
    f.evidence["last_level"] = f.segs[-1].level
    f.stop("warmup_end_too_late")


def _rule_warmup_end(f: _Fit) -> None:
    """The warm-up end: the cold phase's (evidence), the overshoot's, or the curve fit's / isotonic 1 % end."""
    s, n = f.s, f.n
    f.i_end = int(f.verdict.steady_start or 0)
    if f.decided is not None:
        f.i_end = f.decided if f.cls == "warmup" else 0
        hb = max(_blocks_before(f.starts, f.m, f.hi_fit, n), min(4, len(f.yb)))
        f.sel = curvemod.select(f.xb[:hb], f.yb[:hb], inverse=True)
        f.evidence["models"] = f.sel.table()
        f.evidence["warmup_end_estimator"] = f"cusum:{f.cp.decided_by if f.cp else ''}"
        if f.i_end > int(n * (1 - STEADY_FRAC)):
            _too_late(f, f"the cold phase ends only at step {int(s.step[min(f.i_end, n - 1)])}: less than "
                         f"{STEADY_FRAC:.0%} of the run is steady")
    elif f.overshoot_end is not None:
        f.i_end = f.overshoot_end
        if f.i_end > int(n * (1 - STEADY_FRAC)):
            _too_late(f, f"the overshoot settles within {EPS:.0%} of its plateau only at step "
                         f"{int(s.step[min(f.i_end, n - 1)])}: less than {STEADY_FRAC:.0%} of the run is steady")
    elif f.cls in ("flat", "warmup", "invalidation"):
        _curve_end(f)


def _curve_end(f: _Fit) -> None:
    """Curve models by BIC against a one-sided isotonic fit on the final warm-up episode's block means. O(blocks)."""
    s, n, evidence, starts, yb = f.s, f.n, f.evidence, f.starts, f.yb
    assert f.res is not None
    # the final warm-up episode: the whole run, or what follows the drop of an invalidation
    j0 = int(np.searchsorted(starts, f.verdict.episode_start)) if f.cls == "invalidation" else 0
    j0 = min(j0, len(yb) - 4) if len(yb) > 4 else 0
    f.j0 = j0
    hb = max(_blocks_before(starts, f.m, f.hi_fit, n), min(j0 + 4, len(yb)))
    xe, ye = f.xb[j0:hb], yb[j0:hb]
    if j0:
        evidence["episode_start_step"] = int(s.step[int(starts[j0])])
    sel = curvemod.select(xe, ye, inverse=True)
    best = sel.fits[sel.best]
    f.sel, f.best = sel, best
    i_end, hi_fit = f.i_end, f.hi_fit
    pl_m = float(np.sum(f.ym[i_end:hi_fit] * s.d[i_end:hi_fit]) / np.sum(s.d[i_end:hi_fit]))
    seg_e = [g for g in f.segs if int(starts[j0]) <= g.start < hi_fit] or f.segs
    increasing = seg_e[0].level <= seg_e[-1].level if len(seg_e) > 1 else best.plateau >= best.initial
    j_iso, iso_fit = detect.isotonic_end(ye, pl_m, EPS, increasing=increasing)
    j_iso = j_iso + j0 if j_iso < len(ye) else hb
    iso_bic = float(len(ye) * np.log(max(float(np.sum((ye - iso_fit) ** 2)), 1e-300) / len(ye))
                    + _isotonic_df(iso_fit) * np.log(len(ye)))
    evidence["models"] = sel.table()
    evidence["isotonic"] = {"bic": iso_bic, "df": _isotonic_df(iso_fit), "end_block": j_iso,
                            "end_step": int(s.step[min(int(starts[min(j_iso, len(yb) - 1)]), n - 1)])}
    # each model's own 1 % crossing (on the fitting axis), for the reader and the benchmarks
    # (a candidate with an unidentified parameter: to 4 significant digits, where its polish stopped on the flat optimum)
    evidence["end_by_model"] = {m: _published_end(fit) for m, fit in sel.fits.items() if m != "constant"}
    evidence["selection"] = "lowest BIC on block means among the curve models and the isotonic fit"
    if f.cls == "flat" and sel.best != "constant":
        # a warm-up PELT could not resolve: accept it only if clear (rise > 1 %, BIC better by 10)
        rise = abs(best.plateau - best.initial) / abs(best.plateau) if best.plateau else 0.0
        if rise > 3 * EPS and sel.fits["constant"].bic - best.bic > 20 and (best.time_within(EPS) or 0) > f.xb[0]:
            f.cls = "warmup"
            f.res.classification = f.cls
            evidence["rule"] = "the curve fit finds a warm-up shorter than the segmentation resolves"
            f.trace.append("curve_finds_warmup")
    if f.cls in ("warmup", "invalidation"):
        _curve_or_isotonic_end(f, iso_bic, j_iso)
    else:
        f.i_end = 0


def _curve_or_isotonic_end(f: _Fit, iso_bic: float, j_iso: int) -> None:
    """The chosen estimator's first point within 1 % of the plateau; too late is ``no_steady_state``. O(1)."""
    s, n, best, evidence = f.s, f.n, f.best, f.evidence
    assert f.res is not None
    if best.model != "constant" and best.bic <= iso_bic:
        f.chosen = best
        x_end = best.time_within(EPS)
        last_x = float(s.x[-1]) if s.axis == "t_s" else float(s.step[-1])
        f.i_end = s.n if (x_end is None or x_end > last_x) else _index_at(s, x_end)
        evidence["warmup_end_estimator"] = f"curve:{f.sel.best}"
    else:
        f.i_end = int(f.starts[j_iso]) if j_iso < len(f.yb) else s.n
        evidence["warmup_end_estimator"] = "isotonic"
    evidence["pelt_steady_start_step"] = int(s.step[int(f.verdict.steady_start or 0)])
    if f.cls == "invalidation":
        f.i_end = max(f.i_end, int(f.starts[f.j0]))
    if f.i_end > int(n * (1 - STEADY_FRAC)):
        where = "after the end of the data" if f.i_end >= n else f"at step {int(s.step[f.i_end])}"
        _too_late(f, f"the level comes within {EPS:.0%} of its plateau only {where}: "
                     f"less than {STEADY_FRAC:.0%} of the run is steady")
        if f.sel is not None:
            f.res.curve = curve_dict(s, best, float(np.mean(s.d[-max(n // 4, 1):])))


def _rule_not_a_warmup(f: _Fit) -> None:
    """Segmentation noise is no warm-up: a slow start of a few steps, or a small rise late in the run. O(n)."""
    s, n, i_end = f.s, f.n, f.i_end
    if f.cls == "warmup" and f.decided is None and i_end > 0:
        assert f.res is not None
        noise = (startup_stall(int(s.step[min(i_end, n - 1)]) - int(s.step[0]), int(s.step[-1]) - int(s.step[0]) + 1)
                 or late_small_rise(i_end, n, s.level(0, i_end), s.level(i_end, f.hi)))
        if noise is not None:
            f.evidence["not_a_warmup"] = noise
            f.evidence["rule"] = noise["rule"]
            f.res.classification = f.cls = "flat"
            f.i_end, f.chosen = 0, None
            f.trace.append("not_a_warmup")


def _rule_bias_window(f: _Fit) -> None:
    """The steady window starts at the warm-up end, moved later while the curve's residual bias exceeds 0.1 SE."""
    s, n, i_end, chosen, starts = f.s, f.n, f.i_end, f.chosen, f.starts
    f.i_s = i_end
    f.resid_bias_rel = 0.0
    if chosen is None or i_end >= n:
        return
    ci0 = ratio_ci(s.w[i_end:], s.d[i_end:], s.y[i_end:])
    if ci0 is None or ci0.se <= 0:
        return
    fb = chosen.predict(f.xb)
    S = chosen.plateau
    jb0 = int(np.searchsorted(starts, i_end, side="right") - 1)
    jb0 = max(jb0, 0)
    tail = fb[jb0:]
    cnt = np.arange(len(tail), 0, -1)
    mean_from = np.cumsum(tail[::-1])[::-1] / cnt
    # the steady window starts at the warm-up end (the plateau is work over time from there,
    # stalls included), moved later only while the fitted curve says the window's residual
    # warm-up bias exceeds a tenth of its standard error, by at most one warm-up length and
    # half the data after the end (until the held-out audit a further warm-up length was
    # always added after that, which put a 50 k-step run's window at 55-60 % of the run);
    # what bias remains widens the CI
    L0 = n - i_end
    e0 = int(starts[f.j0]) if f.cls == "invalidation" else 0  # where the warm-up episode starts
    Lj = np.maximum(n - starts[jb0:], 1)
    se_j = ci0.se * np.sqrt(L0 / Lj)
    ok = np.abs(mean_from - S) <= BIAS_SE_FRACTION * se_j
    cap = int(np.searchsorted(starts[jb0:], i_end + min(0.5 * L0, BIAS_MAX_SHIFT * (i_end - e0))))
    jj = min(int(np.argmax(ok)) if ok.any() else cap, cap, len(tail) - 1)
    f.i_s = max(i_end, int(starts[jb0 + jj]))
    f.evidence["steady_start_rule"] = ("the warm-up end, moved later (by at most one warm-up length) while the "
                                       "curve's residual bias exceeds 0.1 SE; what remains widens the CI")
    f.resid_bias_rel = float((S - mean_from[jj]) / S) if S else 0.0


def _rule_steady_drift(f: _Fit) -> None:
    """A steady window whose level drifts by > 2 % (Theil-Sen) and significantly (z >= 4): no steady state."""
    s, i_s, hi, yb, evidence = f.s, f.i_s, f.hi, f.yb, f.evidence
    assert f.res is not None
    j_s = int(np.searchsorted(f.starts, i_s))
    if len(yb) - j_s < 8:
        return
    drift = theil_sen_rel(f.xb[j_s:], yb[j_s:])
    evidence["drift_rel"] = drift
    # significance (Geweke-style): first vs last 40 % of the window, batch-means errors
    L = hi - i_s
    h = ratio_ci(s.w[i_s:i_s + int(0.4 * L)], s.d[i_s:i_s + int(0.4 * L)])
    t = ratio_ci(s.w[hi - int(0.4 * L):hi], s.d[hi - int(0.4 * L):hi])
    z = abs(t.mean - h.mean) / float(np.hypot(t.se, h.se)) if h and t and (t.se or h.se) else float("inf")
    evidence["drift_z"] = z
    if abs(drift) > 2 * EPS and z >= DRIFT_Z:
        f.res.classification = "no_steady_state"
        evidence["rule"] = (f"the level after the warm-up drifts by {drift:+.1%} over its span "
                            f"(limit {2 * EPS:.0%})")
        evidence["last_level"] = f.segs[-1].level
        f.res.drift_per_1k_steps = drift_per_1k(s, f.xb, yb, f.starts, i_s)
        f.stop("steady_drift")


def _rule_steady_window(f: _Fit) -> None:
    """Whole periods when stalls recur (one stall per period wherever it starts); the level's 95 % CI. O(n)."""
    s, per, hi, evidence, res = f.s, f.per, f.hi, f.evidence, f.res
    assert res is not None
    f.i_b, f.i_s0 = hi, f.i_s
    # on rows every N steps a "stall" in the first row is the start-up (or an averaged cold row): no anchor
    win = per.window(max(f.i_s, 1) if f.coarse else f.i_s, hi) if per is not None else None
    if per is not None and win is not None and (win[1] - win[0]) >= max(MIN_STEADY, 0.5 * (hi - f.i_s)):
        f.i_s, f.i_b = win
        i_s, i_b = win
        evidence["steady_window"] = (f"{len(per.anchors)} stall anchors; the window spans "
                                     f"{(int(s.step[i_b - 1]) - int(s.step[i_s]) + 1) / per.period_steps:.1f} "
                                     f"periods of {per.period_steps:g} steps (steps {int(s.step[i_s])}-{int(s.step[i_b - 1])})")
    else:
        win = None
    f.win = win
    i_s, i_b = f.i_s, f.i_b
    ci = ratio_ci(s.w[i_s:i_b], s.d[i_s:i_b], s.y[i_s:i_b])
    if ci is None:
        evidence["reason"] = f"fewer than {MIN_STEADY} points in the steady window"
        evidence["rule"] = f"fewer than {MIN_STEADY} points after the warm-up end ({f.verdict.reason})"
        res.classification = "too_short" if f.cls in ("flat", "warmup") else f.cls
        f.stop("steady_window_too_short")
        return
    lr = longrun_ratio_se(s.w[i_s:i_b], s.d[i_s:i_b],
                          stall_mask=per.mask[i_s:i_b] if win is not None and per is not None and per.mask is not None else None)
    if lr is not None:
        res.steady_se_lr = lr.se
        res.steady_df_lr = lr.df
        evidence["steady_se_longrun"] = lr.to_dict()
        if win is not None:
            # batch boundaries cut stalls at random: the stall-aware long-run error is the honest one
            from ..numeric import stats as _st

            tq = float(_st.t.ppf(0.975, max(lr.df, 1.0)))
            ci.se, ci.ci_low, ci.ci_high, ci.df = lr.se, ci.mean - tq * lr.se, ci.mean + tq * lr.se, int(round(lr.df))
    f.ci = ci


def _rule_stall_split(f: _Fit) -> None:
    """Drift figures of the steady window and its split into between-stall rate and stall cost. O(n)."""
    s, per, ren, res, hi, i_s0 = f.s, f.per, f.ren, f.res, f.hi, f.i_s0
    assert res is not None
    res.drift_per_1k_steps = drift_per_1k(s, f.xb, f.yb, f.starts, f.i_s)
    res.drift_rel_steady = window_drift(s, f.ym, i_s0, hi)
    if per is not None and not s.inverted:
        res.stall_split = stall_split(s, per, ren.stall_mask if ren is not None else None, i_s0, hi)
    elif ren is not None and not s.inverted:
        # too few stalls for a period (a short run with 3 checkpoints): the stalls known by their signature
        # still split the steady state for compare, when as regular as a schedule
        sched = signature_period(s.step, [a for a, _ in ren.stalls if i_s0 <= a < hi and a > 0])
        if sched is not None:
            res.stall_split = stall_split(s, sched, ren.stall_mask, i_s0, hi)


def _rule_levels(f: _Fit) -> None:
    """The warm-up end (an interval on coarse rows), the steady level and its CI (widened for residual bias)."""
    s, n, i_end, i_s, i_b, ci, res, evidence = f.s, f.n, f.i_end, f.i_s, f.i_b, f.ci, f.res, f.evidence
    assert res is not None
    res.warmup_end_index = i_end
    # level over the whole warm-up window [0, warm-up end): unlike cold_mean (the first segment, which
    # can be a few very first steps), this is the average speed the cold phase actually ran at
    res.warmup_mean = s.level(0, i_end) if i_end > 0 else None
    res.warmup_end_step = int(s.step[min(i_end, n - 1)])
    if f.coarse:
        # rows every N steps: the end is the first step of the first warm row, inside a stated interval
        res.warmup_end_step = int(s.step[i_end - 1]) + 1 if i_end > 0 else 0
        iv = end_interval(s, i_end)
        if iv is not None:
            evidence["warmup_end_interval"] = iv
    res.warmup_end_t_s = float(s.t0[min(i_end, n - 1)]) if i_end > 0 else 0.0
    res.steady_start_step = int(s.step[i_s])
    res.steady_start_t_s = float(s.t0[i_s])
    res.steady_mean = ci.mean
    res.steady_ci_low = ci.ci_low
    res.steady_ci_high = ci.ci_high
    if f.resid_bias_rel and abs(f.resid_bias_rel) * ci.mean > BIAS_SE_FRACTION * ci.se:
        # the fitted curve says the window still carries warm-up bias: widen the CI on that side
        widen = abs(f.resid_bias_rel) * ci.mean
        if f.resid_bias_rel > 0:
            res.steady_ci_high = ci.ci_high + widen
        else:
            res.steady_ci_low = ci.ci_low - widen
        evidence["ci_widened_for_residual_bias"] = widen
        res.steady_bias_bound = widen
    res.steady_se = ci.se
    res.steady_df = ci.df
    # the same standard error from 10 long batches (df 9): what compare's TOST uses (see compare.py)
    ci10 = ratio_ci(s.w[i_s:i_b], s.d[i_s:i_b], min_batches=10, max_batches=10)
    if ci10 is not None:
        res.steady_se_10 = ci10.se
        res.steady_df_10 = ci10.df
    res.steady_cv = ci.cv
    res.steady_n = ci.n
    res.steady_duration_s = float(np.sum(s.d[i_s:i_b]))
    f.evidence["steady_ci"] = {"method": "batch means of the ratio of sums", "n_batches": ci.n_batches,
                               "batch_size": ci.batch_size, "tau_int": ci.tau_int}


def _rule_lost(f: _Fit) -> None:
    """Seconds lost during the warm-up against the steady level (with bounds on coarse rows); a negative loss
    settles the class (a warm-up that was not) or names a slowdown's fast start. O(n)."""
    s, n, i_end, i_s, i_b, ci, res, evidence = f.s, f.n, f.i_end, f.i_s, f.i_b, f.ci, f.res, f.evidence
    assert res is not None
    keep = ~f.stall
    base_lvl = s.level(i_s, i_b, mask=keep)
    res.steady_mean_baseline = base_lvl
    res.dip_loss_fraction = float(1.0 - ci.mean / base_lvl) if base_lvl and np.isfinite(base_lvl) else None
    res.steady_aux = _aux_means(s, i_s)
    # lost seconds (relative to the steady level) during the warm-up
    if i_end > 0 and s.is_rate and ci.mean > 0 and (not s.inverted or s.metric == "step_time_s"):
        T = float(np.sum(s.d[:i_end]))
        W = float(np.sum(s.w[:i_end]))
        res.lost_work = float(ci.mean * T - W)
        res.lost_s = float(T - W / ci.mean)
    else:
        res.lost_work = 0.0
        res.lost_s = 0.0
    if f.coarse and res.lost_s:
        lb = lost_bounds(s, i_end, res.steady_ci_low, res.steady_ci_high)
        if lb is not None:
            evidence["lost_s_bounds"] = {"low": lb[0], "high": lb[1],
                                         "method": "seconds lost in whole rows against the steady level's 95 % CI"}
    if res.classification == "warmup" and res.lost_s is not None and res.lost_s < 0:
        settle_negative_lost(res, s, keep, i_end, base_lvl, ci.mean, EPS)
        f.cls = res.classification
        f.trace.append(f"negative_lost:{f.cls}")
    elif res.classification == "slowdown" and res.lost_s is not None and res.lost_s < 0 and i_end > 0:
        # the run was faster before it settled: the fast start is named (the class and lost_s stay a slowdown's)
        wm = s.level(0, i_end)
        res.fast_start = {"end_step": int(s.step[min(i_end, n - 1)]), "level": wm,
                          "rel_excess": float(wm / ci.mean - 1.0) if ci.mean else None,
                          "seconds_gained": -float(res.lost_s),
                          "note": "the run was faster before it settled (a fast start); lost_s is negative for a "
                                  "slowdown: the seconds the early phase gained"}
    res.telemetry = telemetry(s, res.warmup_end_index or 0, i_s, i_b)


def _rule_curve(f: _Fit) -> None:
    """The curve's dictionary (the chosen model, else the best by BIC), in steps and seconds. O(1)."""
    s, i_s, i_b, res = f.s, f.i_s, f.i_b, f.res
    assert res is not None
    steady_d = float(np.sum(s.d[i_s:i_b]) / max(i_b - i_s, 1)) if s.is_rate else float(np.mean(s.d[i_s:i_b]))
    if f.sel is not None:
        cf = f.sel.fits[f.sel.best] if f.chosen is None else f.chosen
        res.curve = curve_dict(s, cf, steady_d)
    else:
        res.curve = {"model": "none", "plateau": None, "initial": None, "tau_steps": None, "tau_s": None,
                     "r2": None, "t95_steps": None, "t95_s": None, "t99_steps": None, "t99_s": None,
                     "note": f"no curve is fitted to a run classified {f.cls}"}


def _rule_dips(f: _Fit) -> None:
    """Stalls or drops that recur after the run settled make a flat or warm-up run ``dips``. O(n)."""
    s, n, i_end, per, res, evidence = f.s, f.n, f.i_end, f.per, f.res, f.evidence
    assert res is not None
    an = detect.find_anomalies(s.y, dips_from=i_end) if i_end > 0 else f.an
    evidence["dip_events"] = len(an.dip_events)
    evidence["dips_periodic"] = an.periodic
    evidence["dip_period_steps"] = an.period
    evidence["dip_period_cv"] = an.period_cv
    per_after = per is not None and sum(1 for a in per.anchors if i_end <= a < n) >= 3
    if per_after and per is not None and res.classification in ("flat", "warmup"):
        evidence["underlying"] = res.classification
        res.classification = "dips"
        evidence["rule"] = (f"{len(per.events)} stalls recur every {per.period_steps:g} steps (gap CV {per.cv:.2f}) "
                            f"after the run settled (checkpoints, epoch boundaries, bursts); the level counts them, "
                            f"over whole periods; " + evidence["rule"])
        evidence["dips"] = [{"start_step": int(s.step[a]), "end_step": int(s.step[b - 1])} for a, b in per.events[:200]]
        f.trace.append("periodic_dips")
    elif an.dips and res.classification in ("flat", "warmup") and not f.mirrored:
        evidence["underlying"] = res.classification
        res.classification = "dips"
        evidence["rule"] = (f"{len(an.dip_events)} recurring drops (period {an.period or 0:.0f} steps, "
                            f"periodic={an.periodic}) after the run settled; " + evidence["rule"])
        evidence["dips"] = [{"start_step": int(s.step[a]), "end_step": int(s.step[b - 1]), "depth": dd}
                            for a, b, dd in an.dip_events[:200]]
        f.trace.append("dips")


#: The estimator: an ordered list of named rules. Each takes what the earlier ones found (:class:`_Fit`) and
#: adds its finding; a rule that ends the analysis (too short, no steady state) stops the list. The names of the
#: rules that changed the class or ended the analysis are in ``run_rules(series).trace`` (not yet in the JSON).
RULES: tuple[tuple[str, Callable[[_Fit], None]], ...] = (
    ("too_short", _rule_too_short),
    ("stalls", _rule_stalls),
    ("segmentation", _rule_segmentation),
    ("tail", _rule_tail),
    ("result", _rule_result),
    ("cold_phase", _rule_cold_phase),
    ("tail_drift", _rule_tail_drift),
    ("overshoot", _rule_overshoot),
    ("warmup_end", _rule_warmup_end),
    ("not_a_warmup", _rule_not_a_warmup),
    ("bias_window", _rule_bias_window),
    ("steady_drift", _rule_steady_drift),
    ("steady_window", _rule_steady_window),
    ("stall_split", _rule_stall_split),
    ("levels", _rule_levels),
    ("lost", _rule_lost),
    ("curve", _rule_curve),
    ("dips", _rule_dips),
)


def run_rules(s: Series, until: str | None = None) -> _Fit:
    """Apply :data:`RULES` in order to ``s`` (up to and including the rule named ``until``); what they found."""
    base: dict[str, Any] = {
        "run_id": s.run_id, "role": s.role, "metric": s.metric, "axis": s.axis, "n_points": s.n, "metric_direction": s.direction,
        "predicted": bool(s.metadata.get("predicted", False)), "time_source": s.time_source,
        "format": s.fmt, "source": s.source, "warnings": list(s.warnings),
    }
    f = _Fit(s=s, base=base)
    for name, rule in RULES:
        rule(f)
        if f.done or name == until:
            break
    return f


def _analyze_series(s: Series) -> FitResult:
    f = run_rules(s)
    assert f.res is not None
    return f.res

def analyze(run: Any, metric: str | None = None, axis: str = "step") -> FitResult:
    """Analyse one run (a :class:`costmodel.foundation.schema.Run` or a Timeline DataFrame).

    ``metric`` defaults to ``samples_per_s``, then ``tokens_per_s``, then ``read_bytes_per_s``.
    ``axis`` is ``step`` or ``t_s`` (the axis of the curve fit). Levels are in the metric's unit
    (ratio of sums); times in steps and seconds. Raises AnalysisError when the metric is missing or
    empty; a run too short or constant comes back classified ``too_short`` with the reason.
    """
    return analyze_series(prepare(run, metric, axis))


def analyze_runs(runs: Sequence[Any], metric: str | None = None, axis: str = "step") -> list[FitResult]:
    """:func:`analyze` for each run, in order."""
    if not runs:
        raise AnalysisError("no runs to analyse")
    return [analyze(r, metric, axis) for r in runs]


def fit_runs(runs: Sequence[Any], metric: str | None = None,
             axis: str = "step") -> tuple[list[FitResult], list[str]]:
    """:func:`analyze` each run, leaving out the runs that cannot be analysed.

    Returns the fits (in input order) and one warning per left-out run naming the run and why (for
    instance a write-only fio job when the metric is ``read_bytes_per_s``). Raises AnalysisError when
    ``runs`` is empty or no run at all can be analysed (the message lists every run's reason).
    """
    if not runs:
        raise AnalysisError("no runs to analyse")
    fits: list[FitResult] = []
    skipped: list[str] = []
    for r in runs:
        try:
            fits.append(analyze(r, metric, axis))
        except AnalysisError as e:
            skipped.append(f"left out: {e}")
    if not fits:
        raise AnalysisError(f"no run could be analysed ({len(skipped)} run(s)): " +
                            "; ".join(w.removeprefix("left out: ") for w in skipped))
    return fits, skipped


def _published_end(f: Any) -> float | None:
    """A candidate's own 1 % crossing, to :data:`~costmodel.foundation.published.DEGENERATE_DIGITS` digits when
    the candidate has an unidentified parameter (its shape is only known to the optimizer's tolerance)."""
    from ..foundation.published import DEGENERATE_DIGITS, round_sig

    t = f.time_within(EPS)
    return round_sig(float(t), DEGENERATE_DIGITS) if t is not None and f.unidentified else t
