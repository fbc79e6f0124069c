"""Long-run variance of a window's sum of residuals, for autocorrelated noise with stalls.

The level of a steady window is ``R = sum(w) / sum(d)``; its error is ``sum(e) / sum(d)`` with the
residuals ``e = w - R d``. Real training logs carry two kinds of noise in ``e``:

1. **continuous noise**: autocorrelated (AR-like) step-to-step jitter. Its share of ``Var(sum e)`` is
   estimated by overlapping batch means (OBM, Meketon & Schmeiser 1984) with a batch of twenty
   integrated autocorrelation times (at most ``n / 10``), the first-order bias correction
   ``1 + 2 tau / b`` and a floor at the AR(1)-implied variance ``n var(e) tau_AR``;
   ``1.5 (n / b - 1)`` degrees of freedom.
2. **jumps**: stalls (checkpoint pauses, epoch-boundary stalls, stragglers, heavy-tailed steps). An
   observation whose residual lies more than ``K = 6`` robust sigmas (1.4826 MAD) from the median is
   winsorised at ``median +- K sigma`` for the OBM part; the excess, summed over each run of
   consecutive such observations, is one jump ``J_j``. Jumps are not autocorrelated noise: a batch
   boundary that cuts one says nothing about their variance, and a handful of them would dominate an
   OBM estimate that claims a hundred degrees of freedom.

   - **periodic stalls** (the caller's ``stall_mask`` on a window of whole periods, or at least four
     jumps in the window whose gaps have a coefficient of variation <= 0.15 (three: <= 0.05; random
     stragglers then pass as periodic in about 2 % of windows), none missing inside or at the edges): their number is
     fixed by the window (up to its phase), so they add
     ``m s_J^2 + f (1 - f) Jbar^2`` (amplitude variance, plus the phase term for a window that is
     ``f`` of a period longer than a whole number of periods; ``f = 0`` for whole-period windows),
     with ``m - 1`` degrees of freedom;
   - **random jumps** (everything else): a compound-Poisson count, ``sum J_j^2``, with as many
     degrees of freedom as jumps.

The parts are added (stalls are independent of the step noise) and their degrees of freedom combined
by Welch-Satterthwaite, so few stalls give few degrees of freedom only when they carry the variance.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..foundation.fields_json import FieldsJson

#: robust sigmas beyond which a residual is a jump
JUMP_K = 6.0
#: largest coefficient of variation of the gaps between jumps for them to be periodic
PERIODIC_CV = 0.15
#: the same for exactly three jumps (two gaps)
PERIODIC_CV_3 = 0.05


@dataclass
class LongRunVar(FieldsJson):
    """``Var(sum e)`` of a window and its degrees of freedom, with the parts it is made of."""

    var_sum: float
    df: float
    method: str
    batch_size: int
    n_events: int = 0
    n_periodic: int = 0
    period_obs: float | None = None
    parts: dict[str, float] = field(default_factory=dict)


def obm_var_sum(e: np.ndarray, tau: float) -> tuple[float, float, int]:
    """Variance of ``sum(e)`` by overlapping batch means, its degrees of freedom and the batch size.

    Batch ``b = clip(ceil(20 tau), 5, n / 10)``; ``sigma^2 = n b / ((n - b + 1)(n - b)) sum_j
    (mean_j(b) - mean)^2`` times ``1 + 2 tau / b`` (first-order batch-means bias under positive
    autocorrelation); ``Var(sum) = n sigma^2``; df ``1.5 (n / b - 1)``.
    """
    n = len(e)
    b = int(np.clip(np.ceil(20.0 * tau), 5, max(5, n // 10)))
    b = min(b, max(1, n // 2))
    ec = e - e.mean()
    if n - b <= 0:
        return float(np.dot(ec, ec)), 1.0, b
    c = np.concatenate([[0.0], np.cumsum(ec)])
    bm = (c[b:] - c[:-b]) / b
    sig2 = n * b / ((n - b + 1.0) * (n - b)) * float(np.sum(bm * bm))
    sig2 *= 1.0 + 2.0 * tau / b
    return n * sig2, max(1.0, 1.5 * (n / b - 1.0)), b


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """``(start, end)`` (end exclusive) of each run of True in ``mask``."""
    if not mask.any():
        return []
    m = np.concatenate([[False], mask, [False]]).astype(np.int8)
    dm = np.diff(m)
    return list(zip(np.flatnonzero(dm == 1).tolist(), np.flatnonzero(dm == -1).tolist(), strict=False))


def _comb_ok(p: np.ndarray, n: int, m: int) -> bool:
    """Whether jumps at positions ``p`` (sorted, ``m`` of them) sit on a regular comb covering a window of
    ``n`` observations (the rule of :func:`_periodic_subset`)."""
    g = np.diff(p)
    P = float(np.median(g))
    if P <= 1:
        return False
    # three events (two gaps) fall evenly by chance now and then: ask them for clockwork regularity
    cv_max, dev_max = (PERIODIC_CV, 0.25) if m >= 4 else (PERIODIC_CV_3, 0.1)
    if float(np.std(g) / np.mean(g)) > cv_max or np.max(np.abs(g / P - 1.0)) > dev_max:
        return False
    return not (p[0] > 1.25 * P or (n - p[-1]) > 1.25 * P)


def _periodic_subset(pos: np.ndarray, size: np.ndarray, n: int) -> np.ndarray | None:
    """Indices of the largest set (>= 3) of the biggest jumps that sit on a regular comb covering the
    window (gaps' CV <= PERIODIC_CV, every gap within 25 % of the median; three jumps: CV <=
    PERIODIC_CV_3, within 10 %; head and tail shorter than
    1.25 periods: no stall missing); None when there is none. ``pos`` is increasing.

    The sets tried are the ``m`` biggest jumps for ``m = k, k - 1, ..., 3``. Each is one jump fewer than
    the one before, so the gaps are kept in a linked list (removing a jump merges its two gaps) with
    their exact integer sum and sum of squares and a min- and a max-heap: three necessary conditions of
    the rule (the CV, max gap / min gap <= (1 + dev) / (1 - dev), head and tail <= 1.25 mean / (1 - dev))
    cost O(log k) per set, and only a set that passes them is checked by the rule itself. O(k log k) in
    all where trying every set was O(k^2 log k) (2.4 s of a 10^6-step fit with 1 % slow steps).
    """
    import heapq
    from collections import Counter

    k = len(pos)
    if k < 3:
        return None
    order = np.argsort(-np.abs(size), kind="stable")
    at = [int(v) for v in pos.tolist()]
    nxt = list(range(1, k + 1))
    prv = list(range(-1, k - 1))
    first, last = 0, k - 1
    gaps = [at[i + 1] - at[i] for i in range(k - 1)]
    s1, s2 = at[-1] - at[0], sum(g * g for g in gaps)
    live: Counter[int] = Counter(gaps)
    lo_heap, hi_heap = list(gaps), [-g for g in gaps]
    heapq.heapify(lo_heap)
    heapq.heapify(hi_heap)
    tol = 1.0 + 1e-9  # float slack on the necessary conditions (the rule itself decides)

    def drop(g: int) -> None:
        live[g] -= 1

    def add(g: int) -> None:
        live[g] += 1
        heapq.heappush(lo_heap, g)
        heapq.heappush(hi_heap, -g)

    for m in range(k, 2, -1):
        while live[lo_heap[0]] <= 0:
            heapq.heappop(lo_heap)
        while live[-hi_heap[0]] <= 0:
            heapq.heappop(hi_heap)
        g_min, g_max = lo_heap[0], -hi_heap[0]
        cv_max, dev_max = (PERIODIC_CV, 0.25) if m >= 4 else (PERIODIC_CV_3, 0.1)
        mean_bound = 1.25 * (s1 / (m - 1)) / (1.0 - dev_max) * tol
        if (g_min > 0 and (s2 * (m - 1) - s1 * s1) <= cv_max * cv_max * s1 * s1 * tol
                and g_max <= g_min * (1.0 + dev_max) / (1.0 - dev_max) * tol
                and at[first] <= mean_bound and n - at[last] <= mean_bound):
            idx = np.sort(order[:m])
            if _comb_ok(pos[idx].astype(float), n, m):
                return idx
        if m == 3:
            break
        x = int(order[m - 1])  # the smallest jump of this set leaves it
        a, b = prv[x], nxt[x]
        if a < 0:  # the first jump
            g = at[b] - at[x]
            drop(g)
            s1 -= g
            s2 -= g * g
            first, prv[b] = b, -1
        elif b >= k:  # the last jump
            g = at[x] - at[a]
            drop(g)
            s1 -= g
            s2 -= g * g
            last, nxt[a] = a, k
        else:
            g1, g2 = at[x] - at[a], at[b] - at[x]
            drop(g1)
            drop(g2)
            add(g1 + g2)
            s2 += (g1 + g2) ** 2 - g1 * g1 - g2 * g2
            nxt[a], prv[b] = b, a
    return None


def _welch_df(parts: list[tuple[float, float]]) -> float:
    tot = sum(v for v, _ in parts)
    den = sum(v * v / max(df, 1.0) for v, df in parts if v > 0)
    return float(tot * tot / den) if den > 0 else 1.0


def longrun_var_sum(e: np.ndarray, tau: float, tau_ar: float,
                    stall_mask: np.ndarray | None = None, med_sig: tuple[float, float] | None = None) -> LongRunVar:
    """``Var(sum e)`` of the residuals of a window (see the module docstring).

    ``tau`` is the integrated autocorrelation time of ``e``, ``tau_ar`` the AR(1)-implied one (the
    floor); ``stall_mask`` marks the stalls of a window of whole periods (count fixed by the window).
    ``med_sig``: ``(median(e), 1.4826 * median(|e - median(e)|))`` when the caller has them already.
    """
    e = np.asarray(e, dtype=float)
    n = len(e)
    if med_sig is None:
        med = float(np.median(e))
        sig = 1.4826 * float(np.median(np.abs(e - med)))
    else:
        med, sig = med_sig
    c = e.copy()
    events: list[tuple[int, float, float]] = []  # (position, jump for the amplitude, whole excursion)
    fixed = np.zeros(n, dtype=bool)
    n_fixed_events = 0
    if stall_mask is not None and stall_mask.any() and (~stall_mask).sum() >= 8:
        fixed = stall_mask.astype(bool)
        for i0, i1 in _runs(fixed):
            j = float(np.sum(e[i0:i1] - med))
            events.append((i0, j, j))
            c[i0:i1] = med
        n_fixed_events = len(events)
    if sig > 0:
        hi, lo = med + JUMP_K * sig, med - JUMP_K * sig
        jmask = ((e > hi) | (e < lo)) & ~fixed
        for i0, i1 in _runs(jmask):
            seg = e[i0:i1]
            excess = float(np.sum(seg - np.clip(seg, lo, hi)))
            events.append((i0, excess, float(np.sum(seg - med))))
        c = np.where(jmask, np.clip(e, lo, hi), c)
    # continuous part: OBM on the winsorised residuals, floored by the AR(1)-implied variance
    cc = c - c.mean()
    var_c = float(np.dot(cc, cc) / n)
    v_obm, df_c, b = obm_var_sum(c, tau)
    v_c = max(v_obm, n * var_c * tau_ar)
    parts: list[tuple[float, float]] = [(v_c, df_c)]
    out = {"continuous": v_c}
    n_per = 0
    period = None
    if events:
        pos = np.array([x[0] for x in events])
        amp = np.array([x[1] for x in events])
        whole = np.array([x[2] for x in events])
        periodic = np.zeros(len(events), dtype=bool)
        phase = 0.0
        if n_fixed_events:
            periodic[:n_fixed_events] = True
            if n_fixed_events >= 2:
                period = float(np.median(np.diff(np.sort(pos[:n_fixed_events]))))
        else:
            idx = _periodic_subset(pos, whole, n)
            if idx is not None:
                periodic[idx] = True
                period = float(np.median(np.diff(np.sort(pos[idx]))))
                f = (n / period) % 1.0
                phase = f * (1.0 - f) * float(np.mean(whole[idx])) ** 2
        n_per = int(periodic.sum())
        if n_per:
            ap = amp[periodic]
            s2 = float(np.var(ap, ddof=1)) if n_per >= 2 else float(ap[0] ** 2)
            v_p = n_per * s2 + phase
            parts.append((v_p, max(n_per - 1, 1)))
            out["periodic_stalls"] = v_p
        r = amp[~periodic]
        if len(r):
            v_r = float(np.sum(r * r))
            parts.append((v_r, float(len(r))))
            out["random_jumps"] = v_r
    v = sum(p for p, _ in parts)
    df = _welch_df(parts) if len(parts) > 1 else df_c
    method = "obm" + ("+periodic_stalls" if n_per else "") + ("+jumps" if len(events) > n_per else "")
    return LongRunVar(var_sum=v, df=df, method=method, batch_size=b, n_events=len(events),
                      n_periodic=n_per, period_obs=period, parts=out)
