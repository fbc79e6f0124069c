"""Loader-bound (renewal) cold phases and stalls told apart by their signature.

A data-bound phase with N DataLoader workers is bursty: several steps at GPU speed, then one long wait
for the next worker's batch. Its level is work over time over windows that hold several loader
cycles, never a mean of per-step rates, and its waits are the cold phase itself, not dips to mask.
Checkpoints, epoch boundaries and evaluations are one (or a few) very slow rows *alone*: no other slow
row near them. This module tells the two apart and finds where the cold phase ends:

- a row is **slow** when its time per unit of work is above ``SLOW_X`` (3) times the run's median;
- a slow row is a **stall** (checkpoint, epoch boundary, evaluation, the first step's start-up) when no
  other slow row lies within ``isolation`` rows of it; the others are **waits** (loader cycles);
- the **loader cycle** is the worker count in the metadata (``workers``, ``num_workers``), else the
  median gap between consecutive wait events; windows for levels hold ``CYCLES_PER_WINDOW`` cycles;
- the **warm-up end** is where the excess time over the warm level stops accumulating (a CUSUM:
  ``argmax_k sum_{i<k} (d_i - w_i u_ref (1 + tol))`` with stalls left out): O(n), and the same estimator
  reads the data wait (excess over its warm baseline) when the log has that column.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

SLOW_X = 3.0  # a row slower than 3x the median time per unit of work is "slow"
CYCLES_PER_WINDOW = 4  # a level's window holds at least this many loader cycles
MIN_WAIT_EVENTS = 6  # fewer clustered waits than this: no loader-bound phase
MIN_COLD_ROWS = 24  # ... nor when they all fall within fewer rows than this
RATE_TOL = 0.05  # the throughput CUSUM's allowance: 5 % above the warm time per unit of work
WAIT_MIN_S = 0.002  # the data-wait threshold: max(2 x warm baseline, baseline + 2 ms) per step
WORKER_KEYS = ("workers", "num_workers", "dataloader_workers", "loader_workers")


@dataclass
class Renewal:
    """Stalls, waits and the loader cycle of one run (indices are observation indices)."""

    stall_mask: np.ndarray
    wait_mask: np.ndarray
    stalls: list[tuple[int, float]] = field(default_factory=list)  # (index, excess seconds)
    cycle: float | None = None
    cycle_source: str = ""
    window: int = 1
    bursty: bool = False
    cold_end_hint: int = 0  # one past the last wait event in the first half

    def to_dict(self, step: np.ndarray) -> dict[str, Any]:
        return {"loader_bound": self.bursty, "loader_cycle_steps": self.cycle, "loader_cycle_source": self.cycle_source,
                "window_rows": self.window, "wait_rows": int(self.wait_mask.sum()),
                "stalls": len(self.stalls),
                "stall_steps": [int(step[i]) for i, _ in self.stalls[:200]]}


def _workers(meta: dict[str, Any]) -> int | None:
    for src in (meta, meta.get("args") if isinstance(meta.get("args"), dict) else None):
        if not src:
            continue
        for k in WORKER_KEYS:
            v = src.get(k)
            try:
                if v is not None and int(v) >= 1:
                    return int(v)
            except (TypeError, ValueError):
                continue
    return None


def _events(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    idx = np.flatnonzero(mask)
    if len(idx) == 0:
        return idx, idx
    br = np.flatnonzero(np.diff(idx) > 1)
    return np.concatenate([[idx[0]], idx[br + 1]]), np.concatenate([idx[br], [idx[-1]]]) + 1


def find_renewal(w: np.ndarray, d: np.ndarray, meta: dict[str, Any] | None = None) -> Renewal:
    """Stalls, loader waits and the loader cycle of a series with work ``w`` and durations ``d``."""
    n = len(d)
    ok = (w > 0) & (d > 0)
    u = np.where(ok, d / np.where(w > 0, w, 1.0), np.nan)
    med = float(np.nanmedian(u)) if ok.any() else 0.0
    z = np.zeros(n, dtype=bool)
    if n < 8 or med <= 0:
        return Renewal(stall_mask=z, wait_mask=z.copy())
    slow = ok & (u > SLOW_X * med)
    starts, ends = _events(slow)
    workers = _workers(meta or {})
    # first guess of the cycle (for the isolation distance): the median gap between nearby slow events
    gaps = np.diff(starts)
    near = gaps[gaps <= 32]
    cyc0 = float(workers) if workers else (float(np.median(near)) if len(near) >= MIN_WAIT_EVENTS - 1 else 8.0)
    iso = int(max(4 * cyc0, 16))
    stall = np.zeros(n, dtype=bool)
    wait = np.zeros(n, dtype=bool)
    stalls: list[tuple[int, float]] = []
    for j, (a, b) in enumerate(zip(starts, ends, strict=False)):
        prev_gap = a - ends[j - 1] if j > 0 else n
        next_gap = starts[j + 1] - b if j + 1 < len(starts) else n
        if min(prev_gap, next_gap) >= iso and b - a <= 8:
            stall[a:b] = True
            stalls.append((int(a), float(np.sum(d[a:b] - w[a:b] * med))))
        else:
            wait[a:b] = True
    ws, _we = _events(wait)
    # a cold phase: the waits crowd the first half and (nearly) stop after it (waits all through the
    # run are a periodic pattern, read bursts with idle gaps, not a cold phase)
    n_first = int(np.sum(ws < n // 2))
    # ... and they are a phase, not a few slow rows at the very start (start-up) or random stragglers:
    # at least MIN_WAIT_EVENTS of them over at least MIN_COLD_ROWS rows, one every 16 rows or more often
    first = ws[ws < n // 2]
    span = int(first[-1] - first[0] + 1) if len(first) else 0
    bursty = (n_first >= MIN_WAIT_EVENTS and len(ws) - n_first <= max(1, 0.1 * n_first)
              and span >= MIN_COLD_ROWS and n_first >= span / 16)
    cycle = None
    source = ""
    if workers:
        cycle, source = float(workers), "metadata (loader workers)"
    elif bursty:
        g = np.diff(ws)
        g = g[g <= iso]
        if len(g):
            cycle, source = float(np.median(g)), "median gap between loader waits"
    win = int(max(CYCLES_PER_WINDOW * (cycle or 1.0), 8)) if bursty else 1
    early = ws[ws < n // 2]
    hint = int(_we[np.flatnonzero(ws < n // 2)[-1]]) if len(early) else 0
    return Renewal(stall_mask=stall, wait_mask=wait, stalls=stalls, cycle=cycle, cycle_source=source,
                   window=win, bursty=bursty, cold_end_hint=hint)


def cusum_end(excess: np.ndarray, limit: int) -> tuple[int, float]:
    """``argmax_k sum_{i<k} excess_i`` for k in 0..limit, and the maximum (0 when it never rises)."""
    c = np.concatenate([[0.0], np.cumsum(excess[:limit])])
    k = int(np.argmax(c))
    return k, float(c[k])


def rate_end(w: np.ndarray, d: np.ndarray, skip: np.ndarray, tol: float = RATE_TOL) -> tuple[int, float, float]:
    """Warm-up end by throughput: where the time in excess of the warm level stops accumulating.

    The warm level is work over time over the second half of the run (rows in ``skip`` left out);
    returns (end index, excess seconds up to it, warm time per unit of work).
    """
    n = len(d)
    h = slice(n // 2, n)
    keep = ~skip[h]
    u_ref = float(np.sum(d[h][keep]) / np.sum(w[h][keep])) if np.sum(w[h][keep]) > 0 else 0.0
    ex = np.where(skip, 0.0, d - w * u_ref * (1.0 + tol))
    k, top = cusum_end(ex, int(0.75 * n))
    return k, top, u_ref


def wait_end(wait_s: np.ndarray, skip: np.ndarray, steps_per_row: np.ndarray) -> tuple[int, float, float] | None:
    """Warm-up end by the data wait: where the wait in excess of its warm baseline stops accumulating.

    The baseline is the median wait per step over the second half; a step waits "cold" above
    ``max(2 x baseline, baseline + 2 ms)``. Returns (end index, excess seconds, baseline s/step) or None
    when the column is empty.
    """
    n = len(wait_s)
    okv = np.isfinite(wait_s)
    if okv.sum() < max(8, n // 2):
        return None
    per = np.where(okv, wait_s / np.maximum(steps_per_row, 1.0), np.nan)
    second = per[n // 2:]
    base = float(np.nanmedian(second[~skip[n // 2:]])) if np.isfinite(second).any() else 0.0
    thr = max(2.0 * base, base + WAIT_MIN_S)
    ex = np.where(skip | ~okv, 0.0, (per - thr) * steps_per_row)
    k, top = cusum_end(ex, int(0.75 * n))
    return k, top, base


def hit_high_from(hit: np.ndarray, level: float = 0.9) -> int | None:
    """First index from which every finite cache hit ratio (in the first 75 % of the run) stays >= level."""
    n = len(hit)
    okv = np.isfinite(hit)
    if okv.sum() < max(8, n // 2):
        return None
    bad = np.flatnonzero(okv[: int(0.75 * n)] & (hit[: int(0.75 * n)] < level))
    return int(bad[-1] + 1) if len(bad) else 0


def windowed_rate(w: np.ndarray, d: np.ndarray, skip: np.ndarray, win: int) -> np.ndarray:
    """Work over time in a centred window of ``win`` rows (rows in ``skip`` left out of both sums)."""
    if win <= 1:
        return np.where(d > 0, w / np.where(d > 0, d, 1.0), 0.0)
    ww = np.where(skip, 0.0, w)
    dd = np.where(skip, 0.0, d)
    cw = np.concatenate([[0.0], np.cumsum(ww)])
    cd = np.concatenate([[0.0], np.cumsum(dd)])
    n = len(d)
    i = np.arange(n)
    a = np.clip(i - win // 2, 0, n)
    b = np.clip(a + win, 0, n)
    a = np.clip(b - win, 0, n)
    den = cd[b] - cd[a]
    return np.where(den > 0, (cw[b] - cw[a]) / np.where(den > 0, den, 1.0), 0.0)
