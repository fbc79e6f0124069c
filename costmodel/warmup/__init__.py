"""Warm-up and steady-state analysis of throughput series.

Public API::

    from costmodel.warmup import analyze, analyze_runs, compare
    fit = analyze(run)                  # FitResult; fit.to_dict() is the `costmodel fit` JSON
    cmp = compare([hub_run], [spoke_run], margin=0.02)   # CompareResult
"""
from .analyze import EPS as EPS
from .analyze import MIN_POINTS as MIN_POINTS
from .analyze import FitResult as FitResult
from .analyze import analyze as analyze
from .analyze import analyze_runs as analyze_runs
from .analyze import analyze_series as analyze_series
from .analyze import fit_runs as fit_runs
from .classify import CLASSES as CLASSES
from .classify import Segment as Segment
from .classify import classify_segments as classify_segments
from .compare import CompareResult as CompareResult
from .compare import compare as compare
from .curve import MODELS as MODELS
from .curve import CurveFit as CurveFit
from .curve import fit_model as fit_model
from .curve import select as select
from .detect import find_anomalies as find_anomalies
from .detect import isotonic_end as isotonic_end
from .detect import mser as mser
from .detect import pelt_meanvar as pelt_meanvar
from .multipass import multipass_summary as multipass_summary
from .period import Period as Period
from .period import find_period as find_period
from .series import Series as Series
from .series import prepare as prepare
from .stats import LongRunSE as LongRunSE
from .stats import RatioCI as RatioCI
from .stats import longrun_ratio_se as longrun_ratio_se
from .stats import ratio_ci as ratio_ci
from .stats import tau_int as tau_int
