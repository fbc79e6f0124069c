"""Rules 6-8: the cold phase from evidence (flat or warm-up), a drift over the run's tail (no steady state), an
overshoot that settles (a warm-up). Cost: O(n)."""
from __future__ import annotations

import numpy as np

from .coarse import (
    row_first_steps,
    rows_evidence,
)
from .coldphase import cold_phase
from .drift import DRIFT_BATCHES, DRIFT_TAIL, tail_drift, tail_drift_batches, window_drift
from .overshoot import overshoot_end as find_overshoot_end
from .rulestate import (
    DRIFT_BATCH_P,
    DRIFT_PACE_MAX,
    DRIFT_TAIL_REL,
    DRIFT_Z_TAIL,
    HEAD_DRIFT_MIN,
    Fit,
)


def rule_cold_phase(f: Fit) -> None:
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


def rule_tail_drift(f: Fit) -> None:
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
                and 0.5 <= td[3] <= DRIFT_PACE_MAX and kept and _batches_confirm(f, td)):
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


def _batches_confirm(f: Fit, td: tuple[float, float, float, float]) -> bool:
    """The drift is also significant on batch means of equal spans of steps (``tail_drift_batches``, at the
    DRIFT_BATCH_P level): a test that reads the same at any logging cadence. Where it does not confirm, the
    drift is named (evidence ``tail_drift_batches``, a warning) and the level is reported as steady."""
    bt = tail_drift_batches(f.s, f.ym, hi=f.hi)
    f.td_batches = bt
    if bt is None or bt[2] <= DRIFT_BATCH_P:
        return True
    assert f.res is not None
    f.evidence["tail_drift_batches"] = {"t": bt[0], "df": bt[1], "p": bt[2], "spans": DRIFT_BATCHES}
    f.res.warnings.append(
        f"the level drifts by {td[0]:+.1%} over the last {DRIFT_TAIL:.0%} of the run (z = {td[1]:.1f} against the "
        f"{'rows' if f.coarse else 'steps'}), but the means of {DRIFT_BATCHES} equal spans of steps do not confirm it "
        f"(t = {bt[0]:.1f}, p = {bt[2]:.3f} > {DRIFT_BATCH_P:g}): reported as a steady level with this drift")
    return False


def rule_overshoot(f: Fit) -> None:
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
