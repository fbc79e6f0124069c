"""The co-located reference of a trial: its long-run level, the error of that level and its stall structure."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..foundation.errors import AnalysisError
from ..foundation.fields_json import FieldsJson, JsonKeys
from .levels import WindowLevel, stall_rows, steps_per_row, window_level


@dataclass(frozen=True)
class Reference(FieldsJson):
    """A finished co-located run (or a prediction) analysed once: what every look of a trial compares with."""

    run_id: str
    metric: str
    level: float  # work per second, stalls included (the metric's work unit: samples, tokens, steps)
    log_var: float  # variance of log(level): a finished run's error, fixed while the trial runs
    period_steps: float | None  # the stall schedule (None: no recurring stalls seen between the rows)
    stall_sd_s: float | None
    steady_rows: int
    steady_steps: float
    steps_per_row: float
    work_per_step: float
    warmup_end_step: int | None
    window: WindowLevel
    fit: Any  # the FitResult (compare's final analysis takes it as it is)
    predicted: bool = False

    @property
    def log_se(self) -> float:
        return float(np.sqrt(self.log_var))

    @property
    def n_stalls(self) -> int:
        return self.window.n_stalls

    JSON = JsonKeys(keys=("run_id", "metric", "level", "level_rel_se=log_se", "period_steps", "stall_sd_s", "stalls=n_stalls",
                          "steady_rows", "steady_steps", "steps_per_row", "warmup_end_step", "predicted"))


def reference_from_run(run: Any, metric: str | None = None) -> Reference:
    """Analyse a co-located run (a Run, a Timeline DataFrame or a FitResult's run) once.

    Raises AnalysisError when it has no steady state (nothing to compare a trial with)."""
    from ..warmup import analyze, prepare

    fit = analyze(run, metric)
    s = prepare(run, fit.metric)
    if fit.steady_mean is None or fit.steady_start_step is None:
        raise AnalysisError(f"the co-located run {fit.run_id!r} has no steady state ({fit.classification}): "
                            "it cannot be the reference of a trial")
    i0 = int(np.searchsorted(s.step, fit.steady_start_step))
    w, d, st = s.w[i0:], s.d[i0:], s.step[i0:]
    mask = stall_rows(w, d)
    period = float(fit.period_steps) if fit.period_steps and mask.sum() >= 2 else None
    win = window_level(w, d, st, period, None, mask)
    if win is None:
        raise AnalysisError(f"the co-located run {fit.run_id!r}: too few steady rows between its stalls "
                            f"({int((~mask).sum())}) for a reference level")
    spr = steps_per_row(st)
    return Reference(run_id=fit.run_id, metric=fit.metric, level=win.level, log_var=win.log_var, period_steps=period,
                     stall_sd_s=win.stall_sd_s, steady_rows=win.rows, steady_steps=win.steps, steps_per_row=spr,
                     work_per_step=win.work / win.steps if win.steps > 0 else 1.0,
                     warmup_end_step=fit.warmup_end_step, window=win, fit=fit,
                     predicted=bool(getattr(fit, "predicted", False)))
