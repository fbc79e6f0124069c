"""Classify a segmented run: flat, warmup, slowdown, no_steady_state, invalidation (dips is an overlay).

The rules follow warmup_stats (Barrett et al. 2017, Listing 1) with two changes for throughput:
the equivalence tolerance is relative, ``tol = max(delta * |mu_final|, 2 * SE(mu_i - mu_final))``
(``delta`` = 1 %), instead of an absolute one; and "slowdown" means an earlier segment had a *higher*
throughput. Walking backwards from the final segment:

- the steady group is the final segment plus the contiguous earlier segments equivalent to it;
- ``no_steady_state``: the steady group is shorter than ``steady_frac`` (25 %) of the run, or its level
  drifts by more than ``2 * delta`` over the group (Theil-Sen slope; the analysis applies the same
  check to the steady window after the warm-up end);
- ``invalidation``: an earlier segment equivalent to (or within 2 % of) the final level lies before a
  cold one (more than 5 % below the final level): the run had settled, fell back to a cold level and
  warmed again; the warm-up analysis then runs on the episode after the drop;
- ``slowdown``: some earlier non-equivalent segment is faster than the final level;
- ``warmup``: every earlier non-equivalent segment is slower;
- ``flat``: there is no non-equivalent earlier segment.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..foundation.fields_json import FieldsJson, JsonKeys

COLD = 0.05  # a segment more than 5 % below the final level is "cold"
SETTLED = 0.02  # within 2 % of the final level counts as settled for the invalidation rule
CLASSES = ("flat", "warmup", "slowdown", "no_steady_state", "dips", "invalidation", "too_short")


@dataclass
class Segment(FieldsJson):
    """A segment of the run: observation indices [start, end), its level and standard error."""

    start: int
    end: int
    level: float
    se: float
    start_step: int = 0
    end_step: int = 0

    #: the indices published after the steps (which have defaults, so cannot come first among the fields)
    JSON = JsonKeys(keys=("start_step", "end_step", "level", "se", "start_index=start", "end_index=end"))


@dataclass
class Verdict:
    classification: str
    steady_start: int | None  # observation index where the steady group starts
    reason: str
    drift_rel: float | None = None
    episode_start: int = 0  # where the final warm-up episode starts (after an invalidation)


def theil_sen_rel(x: np.ndarray, y: np.ndarray) -> float:
    """Relative change over the span of ``x`` predicted by the Theil-Sen slope: slope * span / median(y)."""
    if len(y) < 4:
        return 0.0
    from ..numeric.robust import theilslopes

    res = theilslopes(y, x)
    med = float(np.median(y))
    return float(res[0] * (x[-1] - x[0]) / med) if med != 0 else 0.0


def classify_segments(
    segs: list[Segment],
    n: int,
    delta: float = 0.01,
    steady_frac: float = 0.25,
    tail_x: np.ndarray | None = None,
    tail_y: np.ndarray | None = None,
    lower_is_better: bool = False,
) -> Verdict:
    """Apply the rules above to ``segs`` (in order, covering 0..n).

    ``lower_is_better=True`` (a time or latency averaged as it is, e.g. a data wait that can be 0)
    mirrors the comparisons: an earlier *higher* level is slower (a warm-up), a lower one faster.
    """
    sign = -1.0 if lower_is_better else 1.0
    f = segs[-1]
    mu_f = f.level
    steady_len = steady_frac * n
    group_start = f.start
    seen_noneq = False
    seen_lower = False
    seen_higher = False
    invalid = False
    seen_cold = False
    episode_start = 0
    for s in reversed(segs[:-1]):
        tol = max(delta * abs(mu_f), 2.0 * float(np.hypot(s.se, f.se)))
        eq = abs(s.level - mu_f) <= tol
        if seen_cold and not invalid and (eq or sign * (s.level - mu_f) >= -SETTLED * abs(mu_f)):
            # settled (near the final level) before a cold segment: the cache was invalidated
            invalid = True
            episode_start = s.end
        if eq:
            if not seen_noneq:
                group_start = s.start
            continue
        seen_noneq = True
        if sign * (s.level - mu_f) > 0:
            seen_higher = True  # faster than the final level
        else:
            seen_lower = True  # slower
            if sign * (s.level - mu_f) < -COLD * abs(mu_f):
                seen_cold = True
    if n - group_start < steady_len:
        return Verdict("no_steady_state", None,
                       f"the final steady level lasts {n - group_start} of {n} points (< {steady_frac:.0%})")
    drift = None
    if tail_x is not None and tail_y is not None and len(tail_y) >= 8:
        drift = theil_sen_rel(tail_x, tail_y)
        if abs(drift) > 2 * delta:
            return Verdict("no_steady_state", None,
                           f"the final level drifts by {drift:+.1%} over its span (limit {2 * delta:.0%})", drift)
    if invalid:
        return Verdict("invalidation", group_start, episode_start=episode_start, reason=
                       "settled at the final level, fell back to a lower level, then warmed again", drift_rel=drift)
    if seen_higher:
        return Verdict("slowdown", group_start, "an earlier segment was faster than the final level", drift)
    if seen_lower:
        return Verdict("warmup", group_start, "earlier segments were slower than the final level", drift)
    return Verdict("flat", 0, "no earlier segment differs from the final level", drift)
