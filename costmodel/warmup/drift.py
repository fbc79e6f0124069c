"""Drift of a level that keeps moving: over the tail of the run and over the steady window (Theil-Sen on
block means, significance with the residuals' autocorrelation)."""
from __future__ import annotations

import numpy as np

from . import detect
from .series import Series
from .stats import tau_int

DRIFT_TAIL = 0.4  # drift before a plateau: the level over the last 40 % of the run ...


def tail_drift(s: Series, ym: np.ndarray, lo: int = 0, hi: int | None = None) -> tuple[float, float, float, float] | None:
    """Drift of the level over the last DRIFT_TAIL of the run (stalls and outliers masked in ``ym``).

    Returns (relative change over the tail by the Theil-Sen slope, its z, relative change per 1,000
    steps, ratio of the second half's slope to the first half's). The z is the least-squares slope over
    its standard error inflated by the residuals' integrated autocorrelation time. ``hi`` ends the
    region looked at (a flagged short tail is left out).
    """
    n = s.n if hi is None else hi
    a = max(lo, n - int(DRIFT_TAIL * n))
    if n - a < 16:
        return None
    m = detect.block_size(n - a, 200)
    yb, _ = detect.block_means(ym[a:n], m)
    sb, _ = detect.block_means(s.step[a:n].astype(float), m)
    if len(yb) < 8:
        return None
    from ..numeric.robust import theilslopes

    slope = float(theilslopes(yb, sb)[0])
    med = float(np.median(yb))
    if med == 0:
        return None
    span = float(sb[-1] - sb[0])
    rel = slope * span / med
    x = s.step[a:n].astype(float)
    y = ym[a:n]
    xc = x - x.mean()
    sxx = float(np.dot(xc, xc))
    if sxx <= 0:
        return None
    b = float(np.dot(xc, y - y.mean()) / sxx)
    r = y - y.mean() - b * xc
    var = float(np.dot(r, r) / max(len(r) - 2, 1))
    rc = r - r.mean()
    phi = float(np.clip(np.dot(rc[:-1], rc[1:]) / max(np.dot(rc, rc), 1e-300), 0.0, 0.99))
    tau = max(tau_int(r), (1 + phi) / (1 - phi))
    se_b = float(np.sqrt(var * tau / sxx))
    z = abs(b) / se_b if se_b > 0 else float("inf")
    h = len(yb) // 2
    s1 = float(theilslopes(yb[:h], sb[:h])[0])
    s2 = float(theilslopes(yb[h:], sb[h:])[0])
    ratio = s2 / s1 if s1 != 0 else 0.0
    return rel, z, slope * 1000.0 / med, ratio


def drift_per_1k(s: Series, xb: np.ndarray, yb: np.ndarray, starts: np.ndarray, i_s: int) -> float | None:
    """Relative change of the level per 1,000 steps over the steady window (Theil-Sen on block means)."""
    j = int(np.searchsorted(starts, i_s))
    if len(yb) - j < 8:
        return None
    from ..numeric.robust import theilslopes

    sb = s.step[np.minimum(starts[j:], s.n - 1)].astype(float)
    med = float(np.median(yb[j:]))
    if med == 0 or sb[-1] <= sb[0]:
        return None
    return float(theilslopes(yb[j:], sb)[0] * 1000.0 / med)


def window_drift(s: Series, ym: np.ndarray, lo: int, hi: int) -> float | None:
    """Relative change of the level over observations [lo, hi) by the Theil-Sen slope of block means."""
    if hi - lo < 16:
        return None
    m = detect.block_size(hi - lo, 200)
    yb, _ = detect.block_means(ym[lo:hi], m)
    sb, _ = detect.block_means(s.step[lo:hi].astype(float), m)
    if len(yb) < 8:
        return None
    from ..numeric.robust import theilslopes

    med = float(np.median(yb))
    return float(theilslopes(yb, sb)[0] * (sb[-1] - sb[0]) / med) if med else None


DRIFT_BATCHES = 10  # the tail cut into this many spans of equal length in steps (batch means)


def tail_drift_batches(s: Series, ym: np.ndarray, lo: int = 0, hi: int | None = None,
                       k: int = DRIFT_BATCHES) -> tuple[float, int, float] | None:
    """The drift of :func:`tail_drift`'s region tested on batch means of ``k`` equal spans of steps.

    Returns (t of the least-squares slope of the batch means on the batch centres, its degrees of freedom
    ``k - 2``, the two-sided p-value from Student's t), or None where the region is too short. A span of steps
    holds the same work at any logging cadence, so the test reads the same on a per-step log and on its rows
    every N steps (means or samples); the spread of the batch means carries the level's slow wander, which a
    per-observation z (its autocorrelation estimated from the rows) misses when there are few rows.
    """
    n = s.n if hi is None else hi
    a = max(lo, n - int(DRIFT_TAIL * n))
    if n - a < 16:
        return None
    x = s.step[a:n].astype(float)
    if x[-1] <= x[0]:
        return None
    k = min(k, (n - a) // 2)
    which = np.minimum(((x - x[0]) / (x[-1] - x[0]) * k).astype(int), k - 1)
    cnt = np.bincount(which, minlength=k)
    ok = cnt > 0
    xb = np.bincount(which, weights=x, minlength=k)[ok] / cnt[ok]
    yb = np.bincount(which, weights=ym[a:n], minlength=k)[ok] / cnt[ok]
    dof = len(yb) - 2
    if dof < 3:
        return None
    xc = xb - xb.mean()
    b = float(np.dot(xc, yb - yb.mean()) / np.dot(xc, xc))
    r = yb - yb.mean() - b * xc
    se = float(np.sqrt(np.dot(r, r) / dof / np.dot(xc, xc)))
    t = b / se if se > 0 else (float("inf") if b else 0.0)
    from ..numeric.student_t import t_sf

    return t, dof, min(1.0, 2.0 * t_sf(abs(t), dof))
