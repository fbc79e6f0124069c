"""Warm-up and steady-state analysis of throughput series.

Public API::

    from costmodel.warmup import analyze, analyze_runs, compare
    fit = analyze(run)                  # FitResult; fit.to_dict() is the `costmodel fit` JSON
    cmp = compare([hub_run], [spoke_run], margin=0.02)   # CompareResult
"""
from __future__ import annotations

from .analyze import EPS, MIN_POINTS, FitResult, analyze, analyze_runs, analyze_series, fit_runs
from .classify import CLASSES, Segment, classify_segments
from .compare import CompareResult, compare
from .curve import MODELS, CurveFit, fit_model, select
from .detect import find_anomalies, isotonic_end, mser, pelt_meanvar
from .multipass import multipass_summary
from .period import Period, find_period
from .series import Series, prepare
from .stats import LongRunSE, RatioCI, longrun_ratio_se, ratio_ci, tau_int

__all__ = [
    "EPS",
    "MIN_POINTS",
    "CLASSES",
    "MODELS",
    "FitResult",
    "LongRunSE",
    "Period",
    "CompareResult",
    "CurveFit",
    "RatioCI",
    "Segment",
    "Series",
    "analyze",
    "analyze_runs",
    "fit_runs",
    "analyze_series",
    "classify_segments",
    "compare",
    "find_anomalies",
    "find_period",
    "longrun_ratio_se",
    "fit_model",
    "isotonic_end",
    "multipass_summary",
    "mser",
    "pelt_meanvar",
    "prepare",
    "ratio_ci",
    "select",
    "tau_int",
]
