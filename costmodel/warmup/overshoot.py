"""A level that overshoots its plateau during the warm-up and settles back (a warm-up, not a slowdown)."""
from __future__ import annotations

import numpy as np

from . import curve as curvemod
from .classify import Segment

EPS = 0.01  # within 1 % of the plateau (the warm-up end convention of analyze)


def overshoot_end(xb: np.ndarray, yb: np.ndarray, starts: np.ndarray, segs: list[Segment],
                   group_start: int) -> int | None:
    """Warm-up end of a level that overshoots its plateau and settles back (None if not that shape).

    The plateau is the mean block mean over the last half of the final group (the final group can still
    hold the overshoot's tail, and a ratio of sums with straggler steps is not comparable with block
    means). The segments before the final group that lie above it must come after a lower (cold) phase
    and settle *gradually*: from the peak (the highest 3-block mean of the high phase) to the end of
    the run, an exponential decay fits the block means better than a single abrupt drop (a level that
    stays high and then drops at once is a slowdown). The end is the first block from which a decreasing isotonic fit
    from the peak stays
    within 1 % of the plateau.
    """
    from ..numeric.robust import isotonic_regression

    jg = int(np.searchsorted(starts, group_start))
    if len(yb) - jg < 4:
        return None
    plateau = float(np.mean(yb[jg + (len(yb) - jg) // 2:]))
    hi = [g for g in segs if g.end <= group_start and g.level > plateau]
    if not hi or plateau <= 0:
        return None
    h0 = min(g.start for g in hi)
    before = [g for g in segs if g.end <= h0]
    if not before or min(g.level for g in before) >= plateau * (1 - EPS):
        return None  # no cold phase before the high one
    jb0 = int(np.searchsorted(starts, h0, side="right") - 1)
    ph = yb[jb0:jg]
    if len(ph) < 2:
        return None
    k = 3 if len(ph) >= 6 else 1
    sm = np.convolve(ph, np.ones(k) / k, mode="same") if k > 1 else ph
    jp = jb0 + int(np.argmax(sm))
    fit = isotonic_regression(yb[jp:], increasing=False).x
    excess = float(fit[0] - plateau)
    if excess <= EPS * plateau:
        return None
    # gradual: from the peak to the end, a decay (exp model) fits the block means better than one
    # abrupt drop (step model; both 3 parameters): a level that stays high and then drops at once is a
    # slowdown, a level that falls back towards its plateau is an overshoot settling
    if len(yb) - jp < 8:
        return None
    f_exp = curvemod.fit_model("exp", xb[jp:], yb[jp:])
    f_step = curvemod.fit_model("step", xb[jp:], yb[jp:])
    gradual = f_exp.rss < f_step.rss and f_exp.plateau < f_exp.initial
    if not gradual:
        return None
    ok = fit <= (1.0 + EPS) * plateau
    return int(starts[jp + int(np.argmax(ok))]) if ok.any() else None
