"""Rules 11-15: the steady window (moved for residual bias, whole periods when stalls recur), a drift inside it,
the stall split, and the levels with their CI. Cost: O(n)."""
from __future__ import annotations

import numpy as np

from .classify import theil_sen_rel
from .coarse import (
    end_interval,
)
from .drift import drift_per_1k, window_drift
from .rulestate import (
    BIAS_MAX_SHIFT,
    BIAS_SE_FRACTION,
    DRIFT_Z,
    EPS,
    MIN_STEADY,
    Fit,
)
from .stallsplit import signature_period, stall_split
from .stats import longrun_ratio_se, ratio_ci


def rule_bias_window(f: Fit) -> None:
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


def rule_steady_drift(f: Fit) -> None:
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


def rule_steady_window(f: Fit) -> None:
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


def rule_stall_split(f: Fit) -> None:
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


def rule_levels(f: Fit) -> None:
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
