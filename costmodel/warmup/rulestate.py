"""What the estimator's rules share: their constants and :class:`Fit`, what the rules have found so far
about one series, with the small helpers more than one rule uses. See :mod:`costmodel.warmup.analyze` for the rules' order."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .classify import Segment
from .coldphase import ColdPhase
from .period import Period
from .renewal import Renewal
from .result import FitResult
from .series import Series

EPS = 0.01  # warm-up end convention: within 1 % of the steady level
MIN_POINTS = 20  # below this a run is "too_short"
STEADY_FRAC = 0.25  # a steady state must last at least this share of the run
PENALTY_C = 15.0  # PELT penalty constant (Barrett et al.)
BIAS_SE_FRACTION = 0.1  # residual warm-up bias above 0.1 SE moves the steady start / widens the CI
BIAS_MAX_SHIFT = 1.0  # ... by at most this many warm-up lengths (and never past half the data after the end)
DRIFT_Z = 4.0  # a drift must also be significant: |head - tail| >= 4 standard errors
DRIFT_TAIL_REL = 0.008  # ... still moves by more than 0.8 % (2 % over a whole run) and significantly
DRIFT_Z_TAIL = 3.0  # (slope z, autocorrelation-corrected) and at an undiminished pace
DRIFT_PACE_MAX = 2.0  # ... not accelerating (second half of the tail at most twice the first half's slope)
DRIFT_BATCH_P = 0.01  # ... and confirmed by the batch means of equal spans of steps (two-sided p, Student's t)
HEAD_DRIFT_MIN = 0.25  # ... and the window before the tail does not move the other way by >= 1/4 of the tail's change
TAIL_MAX = 0.2  # a final segment this short (share of the run) after a long plateau is a flagged tail ...
PLATEAU_MIN = 0.5  # ... when the plateau before it lasts at least half the run
TAIL_KEEP = 0.05  # a flagged tail within 5 % of the plateau stays in the steady state (a late drift)
MIN_STEADY = 8  # fewest points in a steady window that still give a level with a (wide) CI
AUX_COLUMNS = ("cache_hit_ratio", "read_bytes_per_s", "gpu_util", "read_latency_s", "data_wait_s",
               "cross_region_bytes")
MULTIPASS_FORMATS = ("benchtext", "bench_jsonl")



@dataclass
class Fit:
    """What the rules have found so far about one series (each rule reads it and adds its finding)."""

    s: Series
    base: dict[str, Any]
    n: int = 0
    mp: dict[str, Any] | None = None
    an: Any = None
    mirrored: bool = False
    coarse: bool = False
    ren: Renewal | None = None
    bursty: bool = False
    per: Period | None = None
    cp_rows: ColdPhase | None = None
    stall: Any = None
    ym: Any = None
    m: int = 0
    segs: list[Segment] = field(default_factory=list)
    yb: Any = None
    starts: Any = None
    xb: Any = None
    verdict: Any = None
    hi: int = 0
    hi_fit: int = 0
    tail_info: dict[str, Any] | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    cls: str = ""
    res: FitResult | None = None
    cp: ColdPhase | None = None
    decided: int | None = None
    td: Any = None
    td_batches: Any = None
    overshoot_end: int | None = None
    i_end: int = 0
    sel: Any = None
    best: Any = None
    #: fit the curve models where they are evidence only (False: the caller reads only the warm-up end)
    curve_evidence: bool = True
    chosen: Any = None
    j0: int = 0
    i_s: int = 0
    i_s0: int = 0
    i_b: int = 0
    win: tuple[int, int] | None = None
    resid_bias_rel: float = 0.0
    ci: Any = None
    done: bool = False
    #: the rules that changed the classification or ended the analysis, in order
    trace: list[str] = field(default_factory=list)
    #: what each rule found, compactly (rule name -> finding; :mod:`costmodel.warmup.rulefindings`)
    found: dict[str, Any] = field(default_factory=dict)

    def stop(self, rule: str) -> None:
        self.done = True
        self.trace.append(rule)


def index_at(s: Series, x: float) -> int:
    """First observation index whose axis position is >= x."""
    xs = s.x if s.axis == "t_s" else s.step.astype(float)
    return min(int(np.searchsorted(xs, x - 1e-9, side="left")), s.n - 1)


def too_short_result(s: Series, reason: str, base: dict[str, Any]) -> FitResult:
    res = FitResult(classification="too_short", evidence={"reason": reason}, **base)
    return res


def blocks_before(starts: np.ndarray, m: int, hi_fit: int, n: int) -> int:
    """Number of blocks that end before a flagged tail (less one: the change point is refined to +-m)."""
    if hi_fit >= n:
        return len(starts)
    return max(int(np.searchsorted(starts + m, hi_fit, side="right")) - 1, 0)


def isotonic_df(fit: np.ndarray) -> int:
    """Distinct levels of an isotonic fit: levels within 1e-9 of the largest level of each other count once
    (tied block means that last-bit noise or a 1e-12 change of the inputs split are still one level)."""
    scale = float(np.max(np.abs(fit))) if len(fit) else 0.0
    return int(len(np.unique(np.round(fit / scale, 9)))) if scale > 0 else int(len(np.unique(fit)))


def published_end(f: Any) -> float | None:
    """A candidate's own 1 % crossing, to :data:`~costmodel.foundation.published.DEGENERATE_DIGITS` digits when
    the candidate has an unidentified parameter (its shape is only known to the optimizer's tolerance)."""
    from ..foundation.published import DEGENERATE_DIGITS, round_sig

    t = f.time_within(EPS)
    return round_sig(float(t), DEGENERATE_DIGITS) if t is not None and f.unidentified else t
