"""Segmentation and warm-up truncation: block means, dips/outliers, PELT, MSER-5, isotonic end.

All functions are pure and O(n log n) or better in the series length ``n``:

- :func:`block_means` reduces a series to at most ``max_blocks`` block means (O(n));
- :func:`find_anomalies` marks slow/fast outliers and dip events against a rolling median with a
  MAD scale (O(n * window)); dips recur (>= 3 multi-point events that are periodic, or >= 5);
- :func:`pelt_meanvar` is PELT (Killick et al. 2012) with the Normal mean-and-variance cost of R's
  ``changepoint::cpt.meanvar`` (as used by Barrett et al. 2017), vectorised over candidates and run on
  block means (<= 500 blocks, so even its worst case is cheap), then each change is refined at full
  resolution inside its block;
- :func:`mser` is MSER-m truncation (White 1997; MSER-5 with ``m = 5``), O(n), a baseline and a
  "run long enough?" guard;
- :func:`isotonic_end` is the one-sided isotonic (PAVA) warm-up end.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Irregular (non-periodic) drops make a run "dips" only when they cost at least this share of the work.
MANY_DIPS_MIN_LOSS = 0.003
#: Default largest number of blocks for segmentation and curve fitting.
MAX_BLOCKS = 500


def block_size(n: int, max_blocks: int = MAX_BLOCKS) -> int:
    """Smallest block size that gives at most ``max_blocks`` blocks."""
    return max(1, int(np.ceil(n / max_blocks)))


def block_means(v: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Means of consecutive blocks of ``m`` values (the last may be shorter) and block start indices."""
    n = len(v)
    starts = np.arange(0, n, m)
    sums = np.add.reduceat(v, starts) if n else np.zeros(0)
    lens = np.diff(np.concatenate([starts, [n]]))
    return sums / lens, starts


def robust_sigma(r: np.ndarray) -> float:
    """1.4826 * MAD of ``r`` (a robust standard deviation)."""
    if len(r) == 0:
        return 0.0
    med = np.median(r)
    return float(1.4826 * np.median(np.abs(r - med)))


@dataclass
class Anomalies:
    """Points far from the rolling-median baseline, grouped into events."""

    baseline: np.ndarray
    sigma: float
    low: np.ndarray  # bool mask: slow outliers and dip points
    high: np.ndarray  # bool mask: fast spikes
    events: list[tuple[int, int, float]] = field(default_factory=list)  # (start, end excl., depth)
    dip_events: list[tuple[int, int, float]] = field(default_factory=list)
    dips: bool = False
    periodic: bool = False
    period: float | None = None
    period_cv: float | None = None

    @property
    def mask(self) -> np.ndarray:
        return self.low | self.high


def find_anomalies(y: np.ndarray, window: int = 101, k: float = 5.0, dips_from: int = 0) -> Anomalies:
    """Mark outliers and dips: residuals from a rolling median beyond ``k`` robust sigmas.

    Low points are grouped into events (runs of consecutive points). Dip events are those of at least
    two points; the run "has dips" when there are >= 3 dip events whose inter-event gaps have a
    coefficient of variation <= 0.2 (periodic), or >= max(5, 3 x chance + 5) dip events, where
    "chance" is the number of adjacent slow-point pairs expected from isolated outliers; or when >= 4
    drops of at least 10 % (even one step wide) recur with a gap CV <= 0.1 (epoch-boundary stalls). Isolated one-point drops are
    outliers (slow steps), not dips. Only events starting at or after ``dips_from`` count as dips
    (dips are drops after the run settled).
    """
    from ..numeric.filters import median_filter

    n = len(y)
    if n < 5:
        z = np.zeros(n, dtype=bool)
        return Anomalies(baseline=y.astype(float).copy(), sigma=0.0, low=z, high=z.copy())
    w = int(min(window, max(5, (n // 5) | 1)))
    if w % 2 == 0:
        w += 1
    base = median_filter(y.astype(float), w)
    r = y - base
    sig = robust_sigma(r)
    if sig <= 0:
        z = np.zeros(n, dtype=bool)
        return Anomalies(baseline=base, sigma=0.0, low=z, high=z.copy())
    # local scale: rolling MAD, so a noisier phase (e.g. a cold start) is judged by its own noise
    sig_loc = np.maximum(1.4826 * median_filter(np.abs(r), w), 0.5 * sig)
    low = r < -k * sig_loc
    high = r > k * sig_loc
    # like warmup_stats, never flag the first half-window: a steep warm-up there is not an outlier
    low[: w // 2] = False
    high[: w // 2] = False
    events: list[tuple[int, int, float]] = []
    if low.any():
        idx = np.flatnonzero(low)
        breaks = np.flatnonzero(np.diff(idx) > 1)
        starts = np.concatenate([[idx[0]], idx[breaks + 1]])
        ends = np.concatenate([idx[breaks], [idx[-1]]]) + 1
        for s, e in zip(starts, ends, strict=False):
            depth = float(np.mean(1.0 - y[s:e] / np.where(base[s:e] > 0, base[s:e], 1.0)))
            events.append((int(s), int(e), depth))
    dip_events = [ev for ev in events if ev[1] - ev[0] >= 2 and ev[0] >= dips_from]
    periodic = False
    period = cvg = None
    if len(dip_events) >= 3:
        gaps = np.diff([ev[0] for ev in dip_events]).astype(float)
        period = float(np.median(gaps))
        cvg = float(np.std(gaps) / np.mean(gaps)) if np.mean(gaps) > 0 else None
        periodic = cvg is not None and cvg <= 0.2
    # multi-point events expected by chance from isolated slow points (two adjacent ones)
    n_tail = max(n - dips_from, 1)
    p_low = sum(1 for ev in events if ev[1] - ev[0] == 1 and ev[0] >= dips_from) / n_tail  # isolated slow points
    chance = n_tail * p_low * p_low
    # irregular drops count as "dips" only when there are many AND they cost throughput: >= 0.3 % of the
    # work after dips_from (heavy-tailed noise under AR 0.9 makes short multi-point drops that cost ~0.1 %)
    loss = sum((e - s) * dd for s, e, dd in dip_events) / n_tail
    many = len(dip_events) >= max(5.0, 3.0 * chance + 5.0) and loss >= MANY_DIPS_MIN_LOSS
    dips = (len(dip_events) >= 3 and periodic and len(dip_events) >= 2.0 * chance) or many
    if not dips:
        # one-step stalls that recur like clockwork (e.g. the first step of every epoch)
        deep = [ev for ev in events if ev[2] >= 0.1 and ev[0] >= dips_from]
        if len(deep) >= 4:
            g = np.diff([ev[0] for ev in deep]).astype(float)
            cv1 = float(np.std(g) / np.mean(g)) if np.mean(g) > 0 else 1.0
            if cv1 <= 0.1:
                dips, periodic, period, cvg, dip_events = True, True, float(np.median(g)), cv1, deep
    return Anomalies(
        baseline=base,
        sigma=sig,
        low=low,
        high=high,
        events=events,
        dip_events=dip_events,
        dips=bool(dips),
        periodic=bool(periodic),
        period=period,
        period_cv=cvg,
    )


def pelt_meanvar(x: np.ndarray, pen: float, min_size: int = 3, var_floor: float | None = None) -> list[int]:
    """PELT with the Normal mean+variance cost; returns the change indices (segment starts > 0).

    Cost of a segment of length L: ``L * log(max(var, var_floor))`` (the -2 log-likelihood up to
    constants). Exact (same optimum as optimal partitioning); vectorised over the candidate set.
    """
    n = len(x)
    if n < 2 * min_size:
        return []
    if var_floor is None:
        s = robust_sigma(np.diff(x)) / np.sqrt(2.0)
        var_floor = max((0.05 * s) ** 2, 1e-12 * (float(np.mean(np.abs(x))) ** 2 + 1e-300))
    s1 = np.concatenate([[0.0], np.cumsum(x)])
    s2 = np.concatenate([[0.0], np.cumsum(x * x)])
    F = np.full(n + 1, np.inf)
    F[0] = -pen
    last = np.zeros(n + 1, dtype=np.int64)
    R = np.array([0], dtype=np.int64)
    for t in range(min_size, n + 1):
        s_new = t - min_size
        if s_new >= min_size:
            R = np.append(R, s_new)
        L = (t - R).astype(float)
        mean = (s1[t] - s1[R]) / L
        var = (s2[t] - s2[R]) / L - mean * mean
        cost = L * np.log(np.maximum(var, var_floor))
        vals = F[R] + cost
        j = int(np.argmin(vals))
        F[t] = vals[j] + pen
        last[t] = R[j]
        R = R[vals <= F[t]]  # pruning (K = 0 for an MLE cost)
    cps: list[int] = []
    t = n
    while t > 0:
        s = int(last[t])
        if s > 0:
            cps.append(s)
        t = s
    return sorted(cps)


def refine_changes(y: np.ndarray, cps_full: list[int], m: int) -> list[int]:
    """Move each change (full-resolution index) to the best single split within +-m points.

    The left and right levels are the means of the neighbouring segments (least squares).
    """
    if m <= 1 or not cps_full:
        return list(cps_full)
    n = len(y)
    bounds = [0, *list(cps_full), n]
    out: list[int] = []
    for j, c in enumerate(cps_full):
        a, b = bounds[j], bounds[j + 2]
        lo, hi = max(a + 1, c - m), min(b - 1, c + m)
        if hi <= lo:
            out.append(c)
            continue
        left = float(np.mean(y[a : max(a + 1, c - m)])) if c - m > a else float(np.mean(y[a:c]))
        right = float(np.mean(y[min(b - 1, c + m) : b])) if c + m < b else float(np.mean(y[c:b]))
        seg = y[lo:hi]
        # cost of splitting at lo+k: sum_{i<k} (y-left)^2 + sum_{i>=k} (y-right)^2
        cl = np.concatenate([[0.0], np.cumsum((seg - left) ** 2)])
        cr = np.concatenate([[0.0], np.cumsum((seg - right) ** 2)])
        total_r = cr[-1]
        cost = cl + (total_r - cr)
        k = int(np.argmin(cost))
        out.append(lo + k)
    # keep them strictly increasing
    res: list[int] = []
    for c in out:
        if not res or c > res[-1]:
            res.append(c)
    return res


def mser(y: np.ndarray, m: int = 5) -> tuple[int, bool]:
    """MSER-m truncation point (in observations) and whether it is valid (d* <= n/2).

    Batch means of size ``m``; ``MSER(d) = sum_{i>=d}(Z_i - mean_d)^2 / (k-d)^2`` minimised over
    ``d <= k/2``, ignoring the last ``min(m, k/4)`` batches as candidates (end sensitivity).
    """
    z, _ = block_means(np.asarray(y, dtype=float), m)
    if len(y) % m:
        z = z[:-1]  # drop the incomplete batch
    k = len(z)
    if k < 4:
        return 0, False
    c1 = np.cumsum(z[::-1])[::-1]
    c2 = np.cumsum((z * z)[::-1])[::-1]
    cnt = np.arange(k, 0, -1, dtype=float)
    ss = c2 - c1 * c1 / cnt
    stat = ss / cnt**2
    ignore = int(min(m, k // 4))
    cand = stat[: max(1, k - ignore)]
    d = int(np.argmin(cand))
    return d * m, d <= k // 2


def isotonic_end(yb: np.ndarray, plateau: float, eps: float = 0.01, increasing: bool = True) -> tuple[int, np.ndarray]:
    """First block index where the one-sided isotonic fit reaches ``(1-eps) * plateau``.

    ``increasing=False`` handles a level that falls to its plateau. Returns (index, fitted values).
    """
    from ..numeric.robust import isotonic_regression

    if len(yb) == 0:
        return 0, np.zeros(0)
    fit = isotonic_regression(yb, increasing=increasing).x
    ok = fit >= (1.0 - eps) * plateau if increasing else fit <= (1.0 + eps) * plateau
    idx = int(np.argmax(ok)) if ok.any() else len(yb)
    return idx, fit
