"""The result of fitting one run (:class:`FitResult`, the JSON contract of ``costmodel fit``) and the
helpers that shape it: levels of a time-per-step metric turned back into its unit, positions on the
fitting axis turned into steps and seconds, and the curve's dictionary."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..foundation.fields_json import FieldsJson, JsonKeys
from . import curve as curvemod
from .series import Series


@dataclass
class FitResult(FieldsJson):
    """The analysis of one run. ``to_dict()`` is the JSON contract of ``costmodel fit``."""

    run_id: str
    role: str
    metric: str
    axis: str
    classification: str
    n_points: int
    metric_direction: str = "higher_is_better"
    period_steps: float | None = None
    drift_per_1k_steps: float | None = None
    predicted: bool = False
    warmup_end_step: int | None = None
    warmup_end_t_s: float | None = None
    warmup_end_index: int | None = None
    steady_start_step: int | None = None
    steady_start_t_s: float | None = None
    steady_mean: float | None = None
    steady_ci_low: float | None = None
    steady_ci_high: float | None = None
    steady_se: float | None = None
    steady_df: int | None = None
    steady_se_10: float | None = None
    steady_df_10: int | None = None
    steady_se_lr: float | None = None
    steady_df_lr: float | None = None
    steady_cv: float | None = None
    steady_n: int | None = None
    steady_duration_s: float | None = None
    steady_bias_bound: float | None = None
    steady_mean_baseline: float | None = None
    dip_loss_fraction: float | None = None
    cold_mean: float | None = None
    warmup_mean: float | None = None
    curve: dict[str, Any] | None = None
    lost_s: float | None = None
    lost_work: float | None = None
    segments: list[dict[str, Any]] = field(default_factory=list)
    steady_aux: dict[str, float | None] = field(default_factory=dict)
    multipass: dict[str, Any] | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    #: which evidence decided the warm-up end (data_wait_s, throughput over loader-cycle windows, segmentation)
    warmup_end_decided_by: str | None = None
    #: the warm-up end the throughput alone gives (excess time over the warm level stops accumulating)
    warmup_end_step_throughput: int | None = None
    #: a short tail after a long plateau (left out of the steady state): start/end step, level, rel_change
    tail: dict[str, Any] | None = None
    #: a start faster than the steady state (not a warm-up): steps, level, rel_excess
    fast_start: dict[str, Any] | None = None
    #: relative change of the level over the steady window (Theil-Sen; stalls left out), a drift's size
    drift_rel_steady: float | None = None
    #: duration-weighted telemetry of the cold phase and of the steady window: {"cold": {...}, "steady": {...}}
    telemetry: dict[str, Any] = field(default_factory=dict)
    #: the steady window as between-stall rate plus stall cost (periodic stalls): see compare
    stall_split: dict[str, Any] | None = None
    #: which named rule decided (``decided_by``: the classification; ``warmup_end_by``), the rules' trace, the rules
    #: applied and what each found (:func:`costmodel.warmup.rulefindings.rules_record`)
    rules: dict[str, Any] = field(default_factory=dict)
    time_source: str = ""
    format: str = ""
    source: str = ""
    warnings: list[str] = field(default_factory=list)

    JSON = JsonKeys(jsonable=True)


def to_seconds(s: Series, x: float | None, steady_d: float) -> float | None:
    """Elapsed seconds at position ``x`` of the fitting axis (extrapolated past the end)."""
    if x is None or not np.isfinite(x):
        return None
    if s.axis == "t_s":
        return float(x)
    st = s.step.astype(float)
    if x <= st[-1]:
        return float(np.interp(x, st, s.t0))
    return float(s.t0[-1] + (x - st[-1]) * steady_d)


def to_steps(s: Series, x: float | None, steady_d: float) -> float | None:
    if x is None or not np.isfinite(x):
        return None
    if s.axis == "step":
        return float(x)
    if x <= s.t0[-1]:
        return float(np.interp(x, s.t0, s.step.astype(float)))
    return float(s.step[-1] + (x - s.t0[-1]) / steady_d) if steady_d > 0 else None


def inv(v: float | None) -> float | None:
    return None if v is None or not np.isfinite(v) or v == 0 else float(1.0 / v)


def invert_levels(res: FitResult, s: Series) -> None:
    """Turn steps-per-second levels back into seconds per step (the metric's unit, lower is better)."""
    m = res.steady_mean
    if m is not None and m > 0:
        for k in ("steady_se", "steady_se_10", "steady_se_lr"):
            v = getattr(res, k)
            if v is not None:
                setattr(res, k, float(v / (m * m)))
        if res.steady_bias_bound is not None:
            res.steady_bias_bound = float(res.steady_bias_bound / (m * m))
    lo, hi = res.steady_ci_low, res.steady_ci_high
    res.steady_ci_low = inv(hi) if hi is not None else None
    res.steady_ci_high = inv(lo) if lo is not None and lo > 0 else (None if lo is None else float("inf"))
    res.steady_mean = inv(m)
    res.steady_mean_baseline = inv(res.steady_mean_baseline)
    res.cold_mean = inv(res.cold_mean)
    res.warmup_mean = inv(res.warmup_mean)
    for sg in res.segments:
        lv = sg.get("level")
        if lv:
            sg["se"] = float(sg["se"] / (lv * lv)) if sg.get("se") is not None else None
            sg["level"] = inv(lv)
    if res.curve and res.curve.get("plateau"):
        res.curve["plateau"] = inv(res.curve["plateau"])
        res.curve["initial"] = inv(res.curve.get("initial"))
        res.curve["note_units"] = "plateau and initial in seconds per step; the curve was fitted on steps per second"
    if "last_level" in res.evidence:
        res.evidence["last_level"] = inv(res.evidence["last_level"])
    if res.steady_aux.get(s.metric) is not None:
        res.steady_aux[s.metric] = res.steady_mean
    res.evidence["analysed_as"] = (f"steps per {s.metric} unit (1 / {s.metric}, work = steps of each row: a time per "
                                   f"step, lower is better); levels reported as the mean {s.metric} per step, "
                                   f"sum({s.metric} x steps) / steps")




def curve_dict(s: Series, cf: curvemod.CurveFit, steady_d: float) -> dict[str, Any]:
    tau = cf.tau()
    t95 = cf.time_within(0.05)
    t99 = cf.time_within(0.01)
    x0 = cf.x_first
    if s.axis == "step":
        tau_steps = tau
        tau_s = None if tau is None else (to_seconds(s, x0 + tau, steady_d) or 0.0) - (to_seconds(s, x0, steady_d) or 0.0)
    else:
        tau_s = tau
        tau_steps = None if tau is None else (to_steps(s, x0 + tau, steady_d) or 0.0) - (to_steps(s, x0, steady_d) or 0.0)
    last_x = float(s.x[-1]) if s.axis == "t_s" else float(s.step[-1])
    return {
        "model": cf.model,
        "plateau": cf.plateau,
        "initial": cf.initial,
        "tau_steps": tau_steps,
        "tau_s": tau_s,
        "r2": cf.r2,
        "t95_steps": to_steps(s, t95, steady_d),
        "t95_s": to_seconds(s, t95, steady_d),
        "t99_steps": to_steps(s, t99, steady_d),
        "t99_s": to_seconds(s, t99, steady_d),
        "extrapolated": bool(t99 is None or t99 > last_x),
        "bic": cf.bic,
        "params": cf.params(),
        "fitted_on": "block means of the series with outliers and dips replaced by the rolling median",
        # "time_per_step": the model (params) describes the reciprocal series; plateau and initial are
        # still on the metric's rate scale (1 / the model's), see curve.InverseFit
        "space": getattr(cf, "space", "rate"),
        # shape parameters the data do not determine (curve.unidentified_params): their values above are where
        # the optimizer stopped on a flat optimum, not a measurement (the candidates in evidence.models publish them null)
        "identifiable": not getattr(cf, "unidentified", ()),
        "unidentified": list(getattr(cf, "unidentified", ())),
    }


def settle_negative_lost(res: FitResult, s: Series, keep: np.ndarray, i_end: int, base_lvl: float, level: float,
                         eps: float = 0.01) -> None:
    """A warm-up whose lost seconds came out negative: a fast start, or a level compared with stalls.

    Stall-free levels decide: when the warm-up ran below the steady state's between-stall level (the
    steady level counts stalls, e.g. checkpoints that grow over a long run, that the warm-up did not
    have), the seconds lost are counted against that level (0 at least: an overshoot after the cold
    start can gain more than the cold phase lost); when it ran above it, the start was fast: a finding of
    its own (``fast_start``), not a warm-up.
    """
    ev = res.evidence
    early = s.level(0, i_end, mask=keep) if i_end > 0 else float("nan")
    cold_worse = res.cold_mean is not None and level > 0 and res.cold_mean < level * (1 - eps)
    if (np.isfinite(early) and np.isfinite(base_lvl) and early < base_lvl) or cold_worse:
        ev["lost_s_net"] = res.lost_s
        kk = keep[:i_end]
        T, W = float(np.sum(s.d[:i_end][kk])), float(np.sum(s.w[:i_end][kk]))
        lost = T - W / base_lvl if base_lvl and np.isfinite(base_lvl) and base_lvl > 0 else 0.0
        res.lost_s = max(0.0, float(lost))
        res.lost_work = max(0.0, float(lost * base_lvl)) if np.isfinite(base_lvl) else 0.0
        ev["lost_s_note"] = ("against the steady level with its stalls the warm-up gained time (it had fewer or "
                             "shorter stalls, or overshot); lost_s is counted against the between-stall level, "
                             "stall rows left out, and is never negative")
        return
    gained = -float(res.lost_s or 0.0)
    res.fast_start = {"end_step": res.warmup_end_step, "level": res.warmup_mean,
                      "rel_excess": float(res.warmup_mean / level - 1.0) if res.warmup_mean and level else None,
                      "seconds_gained": gained,
                      "note": "the run started faster than its steady state (a fast start, e.g. a warm page "
                              "cache or boost clocks): not a warm-up, so no seconds are lost to it"}
    res.classification = "flat"
    ev["rule"] = "the early level is better than the steady state: a fast start, not a warm-up"
    res.lost_s = res.lost_work = 0.0
    res.warmup_end_step, res.warmup_end_t_s, res.warmup_end_index, res.warmup_mean = int(s.step[0]), 0.0, 0, None
