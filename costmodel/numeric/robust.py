"""Theil-Sen slope and isotonic regression: the numbers of ``scipy.stats.theilslopes`` (slope and the
``separate`` intercept) and ``scipy.optimize.isotonic_regression`` without importing SciPy (their
packages take 0.3-1 s to import; the analysis calls them on a few hundred block means)."""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np


class TheilSlopes(NamedTuple):
    slope: float
    intercept: float


def theilslopes(y: Any, x: Any = None) -> TheilSlopes:
    """Theil-Sen estimator: the median of the slopes ``(y_j - y_i) / (x_j - x_i)`` over pairs with
    ``x_j > x_i``; intercept ``median(y) - slope * median(x)``. Memory O(n^2) (meant for block means).
    Raises ValueError when every ``x`` is equal."""
    y = np.asarray(y, dtype=float).ravel()
    x = np.arange(len(y), dtype=float) if x is None else np.asarray(x, dtype=float).ravel()
    if len(x) != len(y):
        raise ValueError(f"x and y must have the same length, got {len(x)} and {len(y)}")
    dx = x[:, np.newaxis] - x
    dy = y[:, np.newaxis] - y
    pos = dx > 0
    slopes = dy[pos] / dx[pos]
    if not slopes.size:
        raise ValueError("all x values are equal: no slope")
    slopes.sort()
    slope = float(np.median(slopes))
    return TheilSlopes(slope, float(np.median(y) - slope * np.median(x)))


class IsotonicResult(NamedTuple):
    x: np.ndarray  # the fitted values, same length as y
    weights: np.ndarray  # per block
    blocks: np.ndarray  # block boundaries (b + 1 indices)


def isotonic_regression(y: Any, increasing: bool = True) -> IsotonicResult:
    """Least-squares monotone fit of ``y`` (unit weights) by the pool-adjacent-violators algorithm
    (Busing 2022, Algorithm 1, as SciPy's ``_pava``): O(n)."""
    ya = np.atleast_1d(np.asarray(y, dtype=float))
    xs = [float(v) for v in (ya if increasing else ya[::-1])]
    n = len(xs)
    ws = [1.0] * n
    r = [0] * (n + 1)
    if n:
        r[1] = 1
    b = 0
    i = 1
    xb_prev = xs[0] if n else 0.0
    wb_prev = 1.0
    while i < n:
        b += 1
        xb, wb = xs[i], ws[i]
        if xb_prev >= xb:
            b -= 1
            sb = wb_prev * xb_prev + wb * xb
            wb += wb_prev
            xb = sb / wb
            while i < n - 1 and xb >= xs[i + 1]:
                i += 1
                sb += ws[i] * xs[i]
                wb += ws[i]
                xb = sb / wb
            while b > 0 and xs[b - 1] >= xb:
                b -= 1
                sb += ws[b] * xs[b]
                wb += ws[b]
                xb = sb / wb
        xs[b] = xb_prev = xb
        ws[b] = wb_prev = wb
        r[b + 1] = i + 1
        i += 1
    nb = b + 1 if n else 0
    out = np.empty(n)
    for k in range(nb):
        out[r[k]:r[k + 1]] = xs[k]
    blocks = np.asarray(r[:nb + 1], dtype=np.intp)
    w = np.asarray(ws[:nb])
    if not increasing:
        out, w, blocks = out[::-1], w[::-1], blocks[-1] - blocks[::-1]
    return IsotonicResult(out, w, blocks)
