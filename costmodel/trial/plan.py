"""How long a remote trial must run for a verdict at a margin, from a co-located run (or a pilot, or a
prediction).

The noise model is the reference run's own (or a remote pilot's, when given): the between-stall rate's long-
run (autocorrelation-aware) error, which falls as 1/sqrt(rows), and the stall costs, one per stall period
(checkpoints, epoch boundaries), paired by step with the reference's: before the trial their paired spread is
taken as that of two independent stalls, 2 (g sd)^2 (conservative: one job's checkpoints on the two sides move
together; a pilot with at least 3 paired stalls gives its own spread instead). A trial of ``n`` steady rows
decides at ``margin`` with power ``power`` (at the assumed true ratio) when ``log(1 + margin) - |log ratio| >=
h(n) + z_power * sd(n)``: ``h`` the half-width of the watch's interval (:mod:`costmodel.trial.watcher`: the
anytime-valid confidence sequence, its paired stall part widened by ``t_(k-1)(0.95) / z(0.95)`` for the
``k`` stalls seen, as the watch does by default) or, for the planned final analysis, TOST's (``z_0.95 sd``).
The watch needs
at least ``MIN_PAIRS`` stalls after the warm-up and calls the warm-up end once the log is about twice as long
as it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .boundary import one_sided_factor, r_at, studentized_factor, z_one_sided, z_two_sided
from .pairing import MIN_PAIRS
from .reference import Reference
from .watcher import Settings

FRACTIONS = (0.25, 0.5, 0.75)


@dataclass(frozen=True)
class Pilot:
    """What a remote pilot (or a prediction) says before the trial: warm-up and, when it got that far, the ratio."""

    warmup_end_step: int | None
    warmup_end_t_s: float | None
    theta: float | None = None
    var_monitored_per_row: float | None = None  # var(theta) x rows, the pilot's own noise
    stall_pair_var: float | None = None  # var of one paired stall difference (from >= 3 paired stalls)
    source: str = "pilot"


@dataclass(frozen=True)
class NoiseModel:
    v_between_rows: float  # var of the remote between-stall part x rows
    v_stall_pair: float  # var of one paired stall difference (log-level units)
    v_fixed: float  # the reference's own error (fixed)
    period_steps: float | None
    steps_per_row: float


def noise_model(ref: Reference, pilot: Pilot | None = None) -> NoiseModel:
    """The per-row noise of a trial like ``ref`` (see the module docstring)."""
    win = ref.window
    v_b = (win.between_share * win.between_rel_se) ** 2
    v_stall = 0.0
    if ref.period_steps and win.n_stalls >= 2 and win.stall_sd_s:
        g = 1.0 / (ref.period_steps * ref.work_per_step / ref.level)
        v_stall = 2.0 * (g * win.stall_sd_s) ** 2
    v_rows = v_b * win.rows
    if pilot is not None and pilot.var_monitored_per_row:
        v_rows = max(v_rows, pilot.var_monitored_per_row)
    if pilot is not None and pilot.stall_pair_var is not None and v_stall > 0:
        v_stall = pilot.stall_pair_var  # the pilot's own paired stalls (>= 3) replace the independent-sides guess
    return NoiseModel(v_between_rows=v_rows, v_stall_pair=v_stall, v_fixed=v_b,
                      period_steps=ref.period_steps, steps_per_row=ref.steps_per_row)


def _sd_parts(nm: NoiseModel, rows: float, studentize: bool = False) -> tuple[float, float]:
    """The remote (monitored) and reference standard errors of the log ratio after ``rows`` steady rows;
    ``studentize``: the paired stalls' part times ``t_(k-1)(0.95) / z(0.95)`` (k stalls, k >= 2), as the
    watch's boundary widens it (``Settings.studentize_pairs``)."""
    steps = rows * nm.steps_per_row
    v = nm.v_between_rows / rows
    if nm.period_steps and nm.v_stall_pair > 0:
        k = max(math.floor(steps / nm.period_steps), 1)
        fac = studentized_factor(k - 1) if studentize and k >= 2 else 1.0
        v += nm.v_stall_pair / k * fac * fac
    return math.sqrt(v), math.sqrt(nm.v_fixed)


def margin_at(nm: NoiseModel, rows: float, theta: float, power: float, settings: Settings,
              plan_rows: float, sequential: bool = True) -> float | None:
    """The smallest margin (fraction) a trial of ``rows`` steady rows decides with ``power`` at ``theta``;
    None when it cannot (fewer stalls than the watch needs)."""
    if rows < settings.min_rows or (nm.period_steps and rows * nm.steps_per_row < MIN_PAIRS * nm.period_steps):
        return None
    se_m, se_f = _sd_parts(nm, rows)
    sd = math.hypot(se_m, se_f)
    zp = z_one_sided(power)
    if sequential:
        # the boundary's width uses the watch's (studentized) standard error; the estimate's own spread (power) not
        se_b = _sd_parts(nm, rows, settings.studentize_pairs)[0]
        h = one_sided_factor(r_at(rows, plan_rows), settings.alpha_remote) * se_b + z_two_sided(settings.alpha_reference) * se_f
    else:
        h = z_one_sided(0.95) * sd
    return math.expm1(abs(theta) + h + zp * sd)


def rows_needed(nm: NoiseModel, margin: float, theta: float, power: float, settings: Settings, plan_rows: float,
                sequential: bool = True, max_rows: float = 1e8) -> float | None:
    """The fewest steady rows that decide ``margin`` with ``power`` (None: no length does)."""
    rows = float(settings.min_rows)
    while rows <= max_rows:
        m = margin_at(nm, rows, theta, power, settings, plan_rows or rows, sequential)
        if m is not None and m <= margin:
            return rows
        rows *= 1.02
    return None


def plan_trial(ref: Reference, margin: float, power: float = 0.8, ratio: float | None = None,
               pilot: Pilot | None = None, usd_per_hour: float | None = None,
               settings: Settings | None = None) -> dict[str, Any]:
    """The plan (a JSON-able dict): steady and total steps, minutes and USD for the watch's early call
    (anytime-valid) and for a fixed-length trial (TOST at its end), and what shorter trials could decide."""
    st = settings or Settings(margin=margin)
    theta = math.log(ratio) if ratio else (pilot.theta if pilot and pilot.theta is not None else 0.0)
    nm = noise_model(ref, pilot)
    notes: list[str] = []
    wu = pilot.warmup_end_step if pilot and pilot.warmup_end_step is not None else None
    if wu is None:
        notes.append("no pilot and no prediction: the remote warm-up is unknown and taken as 0 steps; "
                     "give --pilot or --simulate")
    wu_steps = float(wu or 0)
    level_r = ref.level * math.exp(theta)
    step_s = ref.work_per_step / level_r
    wu_s = pilot.warmup_end_t_s if pilot and pilot.warmup_end_t_s is not None else wu_steps * step_s

    def total(steady_rows: float | None) -> dict[str, Any]:
        if steady_rows is None:
            return {"steady_steps": None, "steps": None, "minutes": None, "usd": None}
        steady_steps = steady_rows * nm.steps_per_row
        steps = max(wu_steps + steady_steps, 2 * wu_steps + st.min_after_rows * nm.steps_per_row)
        seconds = wu_s + (steps - wu_steps) * step_s
        return {"steady_steps": math.ceil(steady_steps), "steps": math.ceil(steps), "minutes": seconds / 60.0,
                "usd": (seconds / 3600.0 * usd_per_hour) if usd_per_hour is not None else None}

    fixed_rows = rows_needed(nm, margin, theta, power, st, 0, sequential=False)
    plan_rows = fixed_rows or float(ref.steady_rows)
    seq_rows = rows_needed(nm, margin, theta, power, st, plan_rows, sequential=True)
    expected_rows = rows_needed(nm, margin, theta, 0.5, st, plan_rows, sequential=True)
    if seq_rows is None:
        notes.append(f"the co-located run's own error ({math.sqrt(nm.v_fixed):.2%} of its level) or the assumed ratio "
                     f"leaves no trial length that decides +-{margin:.1%} with {power:.0%} power")
    plan = {"margin": margin, "power": power, "assumed_ratio": math.exp(theta),
            "ratio_source": "given" if ratio else (pilot.source if pilot and pilot.theta is not None else "assumed 1"),
            "warmup_steps": wu_steps if wu is not None else None, "warmup_s": wu_s if wu is not None else None,
            "step_s": step_s, "stall_period_steps": ref.period_steps, "min_stalls": MIN_PAIRS if ref.period_steps else 0,
            "watch": total(seq_rows), "watch_expected_stop": total(expected_rows), "fixed_length": total(fixed_rows),
            "plan_steps": math.ceil(plan_rows * nm.steps_per_row), "usd_per_hour": usd_per_hour,
            "studentize_pairs": st.studentize_pairs,
            "noise": {"between_rel_se_per_row": math.sqrt(nm.v_between_rows), "stall_pair_rel_sd": math.sqrt(nm.v_stall_pair),
                      "reference_rel_se": math.sqrt(nm.v_fixed)},
            "reference": ref.to_dict(), "notes": notes}
    base = seq_rows or fixed_rows or float(ref.steady_rows)
    shorter = []
    for f in FRACTIONS:
        rows = base * f
        shorter.append({"fraction": f, **total(rows),
                        "smallest_margin_watch": margin_at(nm, rows, theta, power, st, plan_rows, True),
                        "smallest_margin_fixed": margin_at(nm, rows, theta, power, st, plan_rows, False)})
    plan["shorter"] = shorter
    plan["method"] = ("per-row noise of the reference (between-stall long-run error, stall costs paired by step); "
                      "watch: one-sided normal-mixture confidence sequence, tightest at plan_steps, the paired stalls' "
                      "part times t_(k-1)(0.95)/z(0.95) when the watch studentizes them; fixed_length: TOST "
                      "at the end; power at the assumed ratio")
    return plan


def pilot_from_run(ref: Reference, run: Any, source: str = "pilot") -> Pilot:
    """A :class:`Pilot` from a remote pilot run (or a predicted remote run)."""
    import numpy as np

    from ..warmup import analyze, prepare
    from .levels import window_level
    from .pairing import theta_of

    fit = analyze(run, ref.metric)
    if fit.warmup_end_step is None or fit.classification in ("too_short", "no_steady_state"):
        return Pilot(warmup_end_step=None, warmup_end_t_s=None, source=source)
    s = prepare(run, ref.metric)
    i0 = int(np.searchsorted(s.step, fit.warmup_end_step))
    wl = window_level(s.w[i0:], s.d[i0:], s.step[i0:], ref.period_steps, ref.stall_sd_s)
    theta = var_rows = pair_var = None
    if wl is not None:
        th = theta_of(wl, ref.window, ref.steps_per_row)
        theta = th.theta if th is not None else math.log(wl.level / ref.level)
        var_rows = (wl.between_share * wl.between_rel_se) ** 2 * wl.rows
        if th is not None and th.pairs >= 3:
            pair_var = (th.var_monitored - (wl.between_share * wl.between_rel_se) ** 2) * th.pairs
    return Pilot(warmup_end_step=int(fit.warmup_end_step), warmup_end_t_s=fit.warmup_end_t_s, theta=theta,
                 var_monitored_per_row=var_rows, stall_pair_var=pair_var, source=source)
