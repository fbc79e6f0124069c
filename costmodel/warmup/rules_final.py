"""Rules 16-18: seconds lost to the warm-up (a negative loss settles the class), the curve's dictionary, and
recurring dips after the run settled. Cost: O(n)."""
from __future__ import annotations

import numpy as np

from . import detect
from .coarse import (
    lost_bounds,
)
from .coldphase import telemetry
from .result import curve_dict, settle_negative_lost
from .rulestate import (
    AUX_COLUMNS,
    EPS,
    Fit,
)
from .series import Series


def aux_means(s: Series, lo: int) -> dict[str, float | None]:
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


def rule_lost(f: Fit) -> None:
    """Seconds lost during the warm-up against the steady level (with bounds on coarse rows); a negative loss
    settles the class (a warm-up that was not) or names a slowdown's fast start. O(n)."""
    s, n, i_end, i_s, i_b, ci, res, evidence = f.s, f.n, f.i_end, f.i_s, f.i_b, f.ci, f.res, f.evidence
    assert res is not None
    keep = ~f.stall
    base_lvl = s.level(i_s, i_b, mask=keep)
    res.steady_mean_baseline = base_lvl
    res.dip_loss_fraction = float(1.0 - ci.mean / base_lvl) if base_lvl and np.isfinite(base_lvl) else None
    res.steady_aux = aux_means(s, i_s)
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


def rule_curve(f: Fit) -> None:
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
                     "note": f"no curve is fitted to a run classified {f.cls}" if f.curve_evidence else
                     "no curve fitted: the cold phase decided the warm-up end and the caller asked for the end only"}


def rule_dips(f: Fit) -> None:
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
