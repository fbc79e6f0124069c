"""Rules 9-10: the warm-up end (the cold phase's, the overshoot's, or the curve fit's / isotonic 1 % end; too late
is no steady state) and segmentation noise that is no warm-up. Cost: O(blocks) for the curve models."""
from __future__ import annotations

import numpy as np

from . import curve as curvemod
from . import detect
from .coarse import lost_time_end
from .result import curve_dict
from .rulestate import (
    EPS,
    STEADY_FRAC,
    Fit,
    blocks_before,
    index_at,
    isotonic_df,
    published_end,
)
from .shortrun import late_small_rise, startup_stall


def too_late(f: Fit, rule: str) -> None:
    """The warm-up ends after the last quarter of the run begins: ``no_steady_state`` with ``rule``."""
    assert f.res is not None
    f.res.classification = "no_steady_state"
    f.evidence["rule"] = rule
    f.evidence["last_level"] = f.segs[-1].level
    f.stop("warmup_end_too_late")


def rule_warmup_end(f: Fit) -> None:
    """The warm-up end: the cold phase's (evidence), the overshoot's, or the curve fit's / isotonic 1 % end."""
    s, n = f.s, f.n
    f.i_end = int(f.verdict.steady_start or 0)
    if f.decided is not None:
        f.i_end = f.decided if f.cls == "warmup" else 0
        if f.curve_evidence:  # evidence only: the cold phase decided the end
            hb = max(blocks_before(f.starts, f.m, f.hi_fit, n), min(4, len(f.yb)))
            f.sel = curvemod.select(f.xb[:hb], f.yb[:hb], inverse=True)
            f.evidence["models"] = f.sel.table()
        f.evidence["warmup_end_estimator"] = f"cusum:{f.cp.decided_by if f.cp else ''}"
        if f.i_end > int(n * (1 - STEADY_FRAC)):
            too_late(f, f"the cold phase ends only at step {int(s.step[min(f.i_end, n - 1)])}: less than "
                         f"{STEADY_FRAC:.0%} of the run is steady")
    elif f.overshoot_end is not None:
        f.i_end = f.overshoot_end
        if f.i_end > int(n * (1 - STEADY_FRAC)):
            too_late(f, f"the overshoot settles within {EPS:.0%} of its plateau only at step "
                         f"{int(s.step[min(f.i_end, n - 1)])}: less than {STEADY_FRAC:.0%} of the run is steady")
    elif f.cls in ("flat", "warmup", "invalidation"):
        curve_end(f)


def curve_end(f: Fit) -> None:
    """Curve models by BIC against a one-sided isotonic fit on the final warm-up episode's block means. O(blocks)."""
    s, n, evidence, starts, yb = f.s, f.n, f.evidence, f.starts, f.yb
    assert f.res is not None
    # the final warm-up episode: the whole run, or what follows the drop of an invalidation
    j0 = int(np.searchsorted(starts, f.verdict.episode_start)) if f.cls == "invalidation" else 0
    j0 = min(j0, len(yb) - 4) if len(yb) > 4 else 0
    f.j0 = j0
    hb = max(blocks_before(starts, f.m, f.hi_fit, n), min(j0 + 4, len(yb)))
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
                    + isotonic_df(iso_fit) * np.log(len(ye)))
    evidence["models"] = sel.table()
    evidence["isotonic"] = {"bic": iso_bic, "df": isotonic_df(iso_fit), "end_block": j_iso,
                            "end_step": int(s.step[min(int(starts[min(j_iso, len(yb) - 1)]), n - 1)])}
    # each model's own 1 % crossing (on the fitting axis), for the reader and the benchmarks
    # (a candidate with an unidentified parameter: to 4 significant digits, where its polish stopped on the flat optimum)
    evidence["end_by_model"] = {m: published_end(fit) for m, fit in sel.fits.items() if m != "constant"}
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
        curve_or_isotonic_end(f, iso_bic, j_iso)
    else:
        f.i_end = 0


def curve_or_isotonic_end(f: Fit, iso_bic: float, j_iso: int) -> None:
    """The chosen estimator's first point within 1 % of the plateau; too late is ``no_steady_state``. O(1)."""
    s, n, best, evidence = f.s, f.n, f.best, f.evidence
    assert f.res is not None
    if best.model != "constant" and best.bic <= iso_bic:
        f.chosen = best
        x_end = best.time_within(EPS)
        last_x = float(s.x[-1]) if s.axis == "t_s" else float(s.step[-1])
        f.i_end = s.n if (x_end is None or x_end > last_x) else index_at(s, x_end)
        evidence["warmup_end_estimator"] = f"curve:{f.sel.best}"
    else:
        f.i_end = int(f.starts[j_iso]) if j_iso < len(f.yb) else s.n
        evidence["warmup_end_estimator"] = "isotonic"
    evidence["pelt_steady_start_step"] = int(s.step[int(f.verdict.steady_start or 0)])
    if f.cls == "invalidation":
        f.i_end = max(f.i_end, int(f.starts[f.j0]))
    if f.i_end > int(n * (1 - STEADY_FRAC)):
        where = "after the end of the data" if f.i_end >= n else f"at step {int(s.step[f.i_end])}"
        too_late(f, f"the level comes within {EPS:.0%} of its plateau only {where}: "
                     f"less than {STEADY_FRAC:.0%} of the run is steady")
        if f.sel is not None:
            f.res.curve = curve_dict(s, best, float(np.mean(s.d[-max(n // 4, 1):])))


def rule_rows_lost_time(f: Fit) -> None:
    """Rows every N steps without a data wait: the curve's later 1 % end stands only if the rows after the cold
    phase's throughput end lose material time (:func:`~costmodel.warmup.coarse.lost_time_end`). O(n)."""
    est = str(f.evidence.get("warmup_end_estimator") or "")
    if not (f.coarse and f.decided is None and f.cls == "warmup" and f.cp_rows is not None
            and est.startswith(("curve:", "isotonic")) and f.i_end < f.n):
        return
    per = f.per.mask if f.per is not None else None
    found = lost_time_end(f.s, int(f.cp_rows.throughput_end), f.i_end, int(f.verdict.steady_start or 0), f.hi, per)
    if found is None:
        return
    step = f.s.step  # on rows an end index names the first step of the first warm row
    f.evidence["rows_lost_time"] = {
        "curve_end_step": int(step[found["curve_end"] - 1]) + 1,
        "throughput_end_step": int(step[found["throughput_end"] - 1]) + 1,
        "lost_between_s": found["lost_between_s"], "material_s": found["material_s"],
        "bursty_cold_rows": found["bursty"], "kept": "curve" if found["end"] == found["curve_end"] else "throughput"}
    if found["end"] != f.i_end:
        f.i_end = found["end"]
        f.evidence["warmup_end_estimator"] = f"rows_lost_time (was {est})"
        f.evidence["rule"] = (f"the loader-bound cold phase ends where the throughput's excess stops accumulating (step "
                              f"{f.evidence['rows_lost_time']['throughput_end_step']}): the rows up to the curve's 1 % end "
                              f"lose {found['lost_between_s']:.2f} s, below {found['material_s']:.2f} s (0.2 % of the run)")
        assert f.res is not None
        f.res.warmup_end_decided_by = "throughput (rows: loader-bound cold rows; the curve's later end loses immaterial time)"


def rule_not_a_warmup(f: Fit) -> None:
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
