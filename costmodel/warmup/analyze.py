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

from collections.abc import Callable, Sequence
from typing import Any

from ..foundation.errors import AnalysisError
from .result import FitResult, invert_levels
from .rulefindings import FINDERS, rules_record
from .rules_cold import rule_cold_phase, rule_overshoot, rule_tail_drift
from .rules_end import rule_not_a_warmup, rule_rows_lost_time, rule_warmup_end
from .rules_final import rule_curve, rule_dips, rule_lost
from .rules_segment import rule_result, rule_segmentation, rule_stalls, rule_tail, rule_too_short
from .rules_steady import rule_bias_window, rule_levels, rule_stall_split, rule_steady_drift, rule_steady_window
from .rulestate import EPS, MIN_POINTS, Fit
from .series import Series, prepare
from .startup import rule_startup_stall

__all__ = ["EPS", "MIN_POINTS", "ROWS_ONLY_RULES", "RULES",
           "Fit", "FitResult", "analyze", "analyze_runs", "analyze_series", "fit_runs", "run_rules"]

#: the state the rules share (the old private name)
_Fit = Fit


def analyze_series(s: Series, *, curve_evidence: bool = True) -> FitResult:
    """Analyse a prepared :class:`Series` (see the module docstring). ``curve_evidence=False``: a caller that reads
    only the warm-up end (the simulator's summary) skips the curve models fitted as evidence once the cold phase
    has decided the end (they do not move it; the result's ``curve`` is then ``model: none``)."""
    res = _analyze_series(s, curve_evidence)
    if s.inverted:
        invert_levels(res, s)
    return res



#: The estimator: an ordered list of named rules. Each takes what the earlier ones found (:class:`Fit`) and
#: adds its finding; a rule that ends the analysis (too short, no steady state) stops the list. The names of the
#: rules that changed the class or ended the analysis are in ``run_rules(series).trace``; the result's ``rules``
#: record (``fit --json``) names the rule that decided, the trace and each rule's finding (:mod:`.rulefindings`).
RULES: tuple[tuple[str, Callable[[Fit], None]], ...] = (
    ("too_short", rule_too_short),
    ("stalls", rule_stalls),
    ("segmentation", rule_segmentation),
    ("tail", rule_tail),
    ("result", rule_result),
    ("cold_phase", rule_cold_phase),
    ("tail_drift", rule_tail_drift),
    ("overshoot", rule_overshoot),
    ("warmup_end", rule_warmup_end),
    ("rows_lost_time", rule_rows_lost_time),
    ("not_a_warmup", rule_not_a_warmup),
    ("bias_window", rule_bias_window),
    ("startup_stall", rule_startup_stall),
    ("steady_drift", rule_steady_drift),
    ("steady_window", rule_steady_window),
    ("stall_split", rule_stall_split),
    ("levels", rule_levels),
    ("lost", rule_lost),
    ("curve", rule_curve),
    ("dips", rule_dips),
)


#: rules that look at rows every N steps only: on a per-step log they have no entry in ``rules.found``
ROWS_ONLY_RULES: tuple[str, ...] = ("rows_lost_time",)


def run_rules(s: Series, until: str | None = None, curve_evidence: bool = True) -> Fit:
    """Apply :data:`RULES` in order to ``s`` (up to and including the rule named ``until``); what they found.
    ``curve_evidence``: see :func:`analyze_series`."""
    base: dict[str, Any] = {
        "run_id": s.run_id, "role": s.role, "metric": s.metric, "axis": s.axis, "n_points": s.n, "metric_direction": s.direction,
        "predicted": bool(s.metadata.get("predicted", False)), "time_source": s.time_source,
        "format": s.fmt, "source": s.source, "warnings": list(s.warnings),
    }
    f = Fit(s=s, base=base, curve_evidence=curve_evidence)
    ran: list[str] = []
    for name, rule in RULES:
        rule(f)
        ran.append(name)
        found = FINDERS[name](f)
        if found is not None:  # None: a rule for rows every N steps, on a per-step log (no entry)
            f.found[name] = found
        if f.done or name == until:
            break
    if f.res is not None:
        f.res.rules = rules_record(f, ran)
        if s.metadata.get("resumes"):  # named at ingest: the steps went back to a checkpoint, the clock jumped
            f.res.evidence["resumes"] = list(s.metadata["resumes"])
    return f


def _analyze_series(s: Series, curve_evidence: bool = True) -> FitResult:
    f = run_rules(s, curve_evidence=curve_evidence)
    assert f.res is not None
    return f.res


def analyze(run: Any, metric: str | None = None, axis: str = "step", *, curve_evidence: bool = True) -> FitResult:
    """Analyse one run (a :class:`costmodel.foundation.schema.Run` or a Timeline DataFrame).

    ``metric`` defaults to ``samples_per_s``, then ``tokens_per_s``, then ``read_bytes_per_s``.
    ``axis`` is ``step`` or ``t_s`` (the axis of the curve fit). Levels are in the metric's unit
    (ratio of sums); times in steps and seconds. Raises AnalysisError when the metric is missing or
    empty; a run too short or constant comes back classified ``too_short`` with the reason.
    """
    return analyze_series(prepare(run, metric, axis), curve_evidence=curve_evidence)


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
