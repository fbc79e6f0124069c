"""Periodic stalls: checkpoint pauses, epoch-boundary stalls, read bursts with idle gaps.

A stall is an observation (or a run of consecutive observations) whose rate falls below its rolling
median by more than ``max(k * local robust sigma, min_drop)``. Stalls recur with a period when there
are at least ``min_events`` (4) of them (after ``lo``) whose gaps between starts, measured in *steps* (so
coarse logs give the same period), have a coefficient of variation <= ``max_cv`` and that random events would match
with a chance below
:data:`P_CHANCE` (:func:`p_regular`: 4 events need a gap CV below about 0.04, 5 below 0.1, 6 below
0.17; a coarse log's straggler rows once made 5 random events with a CV of 0.19), or
:data:`P_CHANCE_DEEP` when the stalls more than halve the rate. The period is the
median gap in steps.

Steady windows then span whole periods: they run from one stall's start (an anchor) to a later one,
so they hold exactly one stall per period whatever phase the run starts in, and the level (work over
time including the stalls) is not biased by where the window starts. The end of the data counts as
an anchor when the tail after the last stall is at least 98 % of a period long.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .detect import robust_sigma

#: Largest chance that events placed at random in the run look as regular as the stalls found.
P_CHANCE = 0.002
#: The same when the stalls' median depth is below half the baseline (idle gaps, checkpoint pauses).
P_CHANCE_DEEP = 0.02


@lru_cache(maxsize=512)
def _p_regular_cached(e: int, cv_milli: int) -> float:
    rng = np.random.default_rng(12345)
    u = np.sort(rng.random((4000, e)), axis=1)
    g = np.diff(u, axis=1)
    cvs = g.std(axis=1) / g.mean(axis=1)
    return float(np.mean(cvs <= cv_milli / 1000.0))


def p_regular(e: int, cv: float) -> float:
    """Chance that ``e`` events placed uniformly at random have gaps with a CV <= ``cv``.

    Monte Carlo (4,000 draws, fixed seed, so deterministic), cached. With 4 events a CV of 0.1 happens
    by chance 1.3 % of the time, with 5 events 0.2 %, with 8 or more essentially never.
    """
    if e < 3:
        return 1.0
    if e > 40:
        return 0.0 if cv <= 0.5 else 1.0
    return _p_regular_cached(int(e), round(min(cv, 2.0) * 1000))


@dataclass
class Period:
    """Recurring stalls of one run (indices are observation indices)."""

    period_steps: float
    period_obs: float
    cv: float
    anchors: list[int]  # observation index where each stall starts (after lo), plus n when the tail is whole
    events: list[tuple[int, int]] = field(default_factory=list)  # (start, end excl.)
    mask: np.ndarray | None = None  # True on stall observations

    def window(self, i_s: int, n: int) -> tuple[int, int] | None:
        """The longest whole-period window [a, b) with a >= i_s; None when fewer than one period fits."""
        a = [x for x in self.anchors if i_s <= x <= n]
        if len(a) < 2:
            return None
        return a[0], a[-1]


def _low_points(yf: np.ndarray, w: int, k: float, min_drop: float) -> tuple[np.ndarray, np.ndarray]:
    """Points below the rolling median by more than ``k`` robust sigmas (two passes), and every point's relative
    deviation from that median."""
    from ..numeric.filters import median_filter

    n = len(yf)
    ix = np.arange(n)
    low = np.zeros(n, dtype=bool)
    rel = np.zeros(n)
    for _ in range(2):
        # second pass: the baseline and its scale from the points that are not stalls (idle gaps can
        # fill a third of a window and drag a rolling median and MAD down/up)
        src = yf
        if low.any() and not low.all():
            good = ix[~low]
            src = np.interp(ix, good, yf[~low])
            # beyond the first / last good point: the median of the nearest good points, not the edge one
            src[: good[0]] = np.median(yf[good[: w // 2 + 1]])
            src[good[-1] + 1:] = np.median(yf[good[-(w // 2 + 1):]])
        base = median_filter(src, w)
        ok = base > 0
        rel = np.where(ok, yf / np.where(ok, base, 1.0) - 1.0, 0.0)
        rs = np.where(ok, src / np.where(ok, base, 1.0) - 1.0, 0.0)
        sig = robust_sigma(rs)
        sig_loc = np.maximum(1.4826 * median_filter(np.abs(rs - np.median(rs)), w), 0.5 * sig)
        # a drop below half the rolling median is a stall whatever the local noise
        low = rel < -np.maximum(np.minimum(k * sig_loc, 0.5), min_drop)
        # hysteresis: an event also takes in its shoulders (the partial seconds at the edge of a gap)
        weak = rel < -np.maximum(np.minimum(0.5 * k * sig_loc, 0.25), min_drop)
        for _ in range(3):
            grow = weak & ~low & (np.concatenate([low[1:], [False]]) | np.concatenate([[False], low[:-1]]))
            if not grow.any():
                break
            low |= grow
    return low, rel


def _regular_subset(starts: np.ndarray, ends: np.ndarray, rel: np.ndarray, st: np.ndarray, min_events: int,
                    max_cv: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float] | None:
    """Clockwork stalls among stray slow steps: the costliest events, else the deepest, else a comb, if regular."""
    depth = np.array([float(np.min(rel[a:b])) for a, b in zip(starts, ends, strict=False)])
    ref = float(np.percentile(depth, 10))
    # stalls that cost the most time (area below the baseline: a checkpoint's multi-step pause)
    # among one-step stragglers as deep as they are: the biggest events alone, when regular
    area = np.array([float(np.sum(np.clip(-rel[a:b], 0.0, None))) for a, b in zip(starts, ends, strict=False)])
    ref_a = float(np.percentile(area, 90))
    for f in (0.5, 0.35, 0.25):
        big = area >= f * ref_a
        if big.sum() < min_events or big.all():
            continue
        s2, e2 = starts[big], ends[big]
        g2 = np.diff(st[s2])
        cv2 = float(np.std(g2) / np.mean(g2)) if np.mean(g2) > 0 else 1.0
        d2 = float(np.median(depth[big]))
        if cv2 <= max_cv and 4 * p_regular(len(s2), cv2) <= (P_CHANCE_DEEP if d2 <= -0.5 else P_CHANCE):
            return s2, e2, g2, cv2
    for f in (0.9, 0.8, 0.65, 0.5):
        deep = depth <= f * ref
        if deep.sum() < min_events:
            continue
        s2, e2 = starts[deep], ends[deep]
        g2 = np.diff(st[s2])
        cv2 = float(np.std(g2) / np.mean(g2)) if np.mean(g2) > 0 else 1.0
        p_max2 = P_CHANCE_DEEP if float(np.median(depth[deep])) <= -0.5 else P_CHANCE
        if cv2 <= max_cv and 4 * p_regular(len(s2), cv2) <= p_max2:
            return s2, e2, g2, cv2
    keep = _comb(st[starts], st[-1] - st[0], min_events)
    if keep is None:
        return None
    s2, e2 = starts[keep], ends[keep]
    g2 = np.diff(st[s2])
    return s2, e2, g2, float(np.std(g2) / np.mean(g2))


def find_period(y: np.ndarray, step: np.ndarray, lo: int = 0, k: float = 5.0, min_drop: float = 0.04,
                min_events: int = 4, max_cv: float = 0.25, window: int = 51) -> Period | None:
    """Recurring stalls in the rate series ``y`` (see the module docstring); None when there are none."""
    n = len(y)
    if n < 12:
        return None
    w = int(min(window, max(5, (n // 4) | 1)))
    w += 1 - w % 2
    low, rel = _low_points(y.astype(float), w, k, min_drop)
    low[:lo] = False
    if low.sum() < min_events:
        return None
    idx = np.flatnonzero(low)
    br = np.flatnonzero(np.diff(idx) > 1)
    starts = np.concatenate([[idx[0]], idx[br + 1]])
    ends = np.concatenate([idx[br], [idx[-1]]]) + 1
    if len(starts) < min_events:
        return None
    st = step.astype(float)
    gaps = np.diff(st[starts])
    if len(gaps) < min_events - 1 or np.mean(gaps) <= 0:
        return None
    cv = float(np.std(gaps) / np.mean(gaps))
    depth_all = np.array([float(np.min(rel[a:b])) for a, b in zip(starts, ends, strict=False)])
    # stalls that more than halve the rate are themselves evidence (idle gaps, checkpoints): a looser chance
    p_max = P_CHANCE_DEEP if float(np.median(depth_all)) <= -0.5 else P_CHANCE
    if cv <= max_cv and p_regular(len(starts), cv) > p_max:
        cv = max_cv + 1.0  # as regular as random events often are: try the deepest events or a comb
    if cv > max_cv:
        # clockwork stalls plus a few stray slow steps: keep the deepest events if they are regular
        found = _regular_subset(starts, ends, rel, st, min_events, max_cv)
        if found is None:
            return None
        starts, ends, gaps, cv = found
    p_steps = float(np.median(gaps))
    p_obs = float(np.median(np.diff(starts)))
    if p_obs < 2:
        return None
    anchors = [int(a) for a in starts]
    tail_steps = st[-1] - st[starts[-1]] + (st[-1] - st[-2] if n >= 2 else 1.0)
    if 0.97 * p_steps <= tail_steps <= 1.03 * p_steps:
        anchors.append(n)
    mask = np.zeros(n, dtype=bool)
    for a, b in zip(starts, ends, strict=False):
        mask[a:b] = True
    return Period(period_steps=p_steps, period_obs=p_obs, cv=cv, anchors=anchors,
                  events=[(int(a), int(b)) for a, b in zip(starts, ends, strict=False)], mask=mask)


def _comb(pos: np.ndarray, span: float, min_events: int, tol: float = 0.03, max_events: int = 150) -> np.ndarray | None:
    """Indices of the events that sit on a comb of period P (clockwork stalls among stray slow steps).

    Candidate periods are the gaps between events (to the 6 next ones); for each, the comb's phase is
    the event phase (position modulo P) shared, within ``tol * P``, by the most events. A comb is
    accepted when it holds at least ``min_events`` events in consecutive periods, none missed, each
    gap within ``2 tol`` of P, and unlikely from randomly placed events (``E * candidates *
    q^(L-1) < 0.01``, q the chance that a predicted position holds an event by chance). Returns the indices of the
    largest comb, or None. O(E^2) per candidate, E <= 150.
    """
    e = len(pos)
    if e < min_events or e > max_events:
        return None
    cands = np.unique(np.concatenate([pos[i + 1: i + 7] - pos[i] for i in range(e - 1)]))
    cands = cands[cands > 0]
    best = None
    for P in cands:
        ph = np.mod(pos, P)
        dm = np.abs(ph[:, None] - ph[None, :])
        dm = np.minimum(dm, P - dm)
        cnt = (dm <= tol * P).sum(axis=1)
        r = int(np.argmax(cnt))
        if cnt[r] < min_events:
            continue
        on = np.flatnonzero(dm[r] <= tol * P)
        k = np.round((pos[on] - pos[on[0]]) / P)
        k, first = np.unique(k, return_index=True)
        on = on[first]
        # the longest run of consecutive periods with no position missed (clockwork stalls never skip one)
        runs = np.split(np.arange(len(k)), np.flatnonzero(np.diff(k) != 1) + 1)
        run = max(runs, key=len)
        on = on[run]
        if len(on) < min_events:
            continue
        g = np.diff(pos[on])
        if np.max(np.abs(g / P - 1.0)) > 2 * tol:
            continue
        # chance of such a comb from randomly placed events: each next position is hit with probability
        # q = 1 - exp(-rate * 2 tol P); times the number of combs tried
        q = 1.0 - np.exp(-e / max(span, 1.0) * 2.0 * tol * P)
        p_chance = e * len(cands) * q ** (len(on) - 1)
        if p_chance < 0.01 and (best is None or p_chance < best[0]):
            best = (p_chance, on)
    return None if best is None else best[1]
