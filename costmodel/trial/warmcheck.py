"""Evidence in the log so far that a warm-up has not ended where the fit of that prefix puts it.

The fit of a prefix reads the warm level from the prefix's second half and looks for the end only in
its first three quarters (as it must for a finished log), so early in a trial it can put the end too
soon: a loader wait still to come, or a cache that is not yet warm. Before the watch calls the end it
looks over the *whole* prefix for a later end (each of these vetoes the call until the prefix is twice
as long as the later end, when the fit itself weighs it):

- throughput: where the time in excess of the warm level (+5 %) stops accumulating (stalls left out);
- data wait (``data_wait_s``): where the wait in excess of ``max(2 x warm median, median + 2 ms)`` stops
  accumulating;
- cache hit ratio: one past the last row below 0.9 (the rule: the cache is warm, not only hidden).
"""
from __future__ import annotations

import numpy as np

from ..warmup.renewal import RATE_TOL, WAIT_MIN_S, cusum_end
from .levels import stall_rows

MATERIAL = 0.002  # an excess below 0.2 % of the time so far is no warm-up
HIT_WARM = 0.9


def later_end(w: np.ndarray, d: np.ndarray, end_i: int, wait_s: np.ndarray | None = None,
              hit: np.ndarray | None = None, tol_rows: int = 2) -> tuple[int, str] | None:
    """The latest row index any evidence puts the end at, and which evidence, when later than
    ``end_i + tol_rows``; None when nothing in the prefix says the end is later."""
    n = len(d)
    if n < 8:
        return None
    skip = stall_rows(w, d)
    total = float(np.sum(d))
    h = slice(n // 2, n)
    keep = ~skip[h]
    cands: list[tuple[int, str]] = []
    if np.sum(w[h][keep]) > 0:
        u_ref = float(np.sum(d[h][keep]) / np.sum(w[h][keep]))
        k, top = cusum_end(np.where(skip, 0.0, d - w * u_ref * (1.0 + RATE_TOL)), n)
        if top >= MATERIAL * total:
            cands.append((k, "throughput"))
    if wait_s is not None and np.isfinite(wait_s).sum() >= n // 2:
        second = wait_s[h][~skip[h]]
        base = float(np.nanmedian(second)) if np.isfinite(second).any() else 0.0
        thr = max(2.0 * base, base + WAIT_MIN_S)
        k, top = cusum_end(np.where(skip | ~np.isfinite(wait_s), 0.0, wait_s - thr), n)
        if top >= MATERIAL * total:
            cands.append((k, "data_wait_s"))
    if hit is not None and np.isfinite(hit).sum() >= n // 2:
        bad = np.flatnonzero(np.isfinite(hit) & (hit < HIT_WARM))
        if len(bad):
            cands.append((int(bad[-1] + 1), "cache_hit_ratio"))
    late = [(k, why) for k, why in cands if k > end_i + tol_rows and n < 2 * k]
    return max(late) if late else None
