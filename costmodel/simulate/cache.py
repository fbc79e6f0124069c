"""Cache policies run over a block-access trace: none, LRU, and a predictive prefetcher over LRU.

Every policy is the real algorithm applied access by access (no closed forms):

- ``none``: nothing is kept; every access goes to the origin.
- ``lru``: least-recently-used replacement over ``capacity_blocks`` blocks; a miss inserts the block.
- ``predictive``: the same LRU store, plus a prefetcher that, ``lookahead_steps`` steps before each
  demand access, inserts a predicted block: the right one with probability ``accuracy`` (times the share
  of prefetches that arrive in time), otherwise a uniformly random wrong block of the dataset (wasted
  bytes and cache pollution). It issues nothing while it learns (``learning_steps``), then its coverage
  ramps linearly to every access over ``ramp_steps`` steps. A prefetch of a block already cached costs
  nothing and refreshes it.

The LRU kernel is an array-based doubly linked list compiled with numba (O(1) per access, about
0.02-0.05 µs); without numba the same algorithm runs on an ``OrderedDict`` (about 0.3 µs per access).
:func:`lru_present_reference` is that plain-Python reference; tests check both agree exactly.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

try:  # numba is a declared dependency; the fallback keeps the package importable without it
    from numba import njit

    HAVE_NUMBA = True
except Exception:  # pragma: no cover - exercised only where numba is missing
    HAVE_NUMBA = False

    def njit(*_a, **_k):  # type: ignore[no-redef]
        def wrap(fn):
            return fn

        return wrap


#: Direct block ids are used when the id space is at most this many times the number of events;
#: otherwise ids are compacted with ``np.unique`` first (memory O(distinct blocks)).
DIRECT_ID_FACTOR = 4


@njit(cache=True, nogil=True)
def _lru_present_kernel(ids, n_ids, capacity, reset):  # pragma: no cover - compiled
    n = ids.shape[0]
    out = np.zeros(n, dtype=np.bool_)
    prev = np.empty(n_ids, dtype=np.int64)
    nxt = np.empty(n_ids, dtype=np.int64)
    inc = np.zeros(n_ids, dtype=np.bool_)
    head = -1
    tail = -1
    size = 0
    for i in range(n):
        if reset[i]:
            b = head
            while b != -1:
                inc[b] = False
                b = nxt[b]
            head = -1
            tail = -1
            size = 0
        b = ids[i]
        if inc[b]:
            out[i] = True
            if b != head:
                p = prev[b]
                q = nxt[b]
                nxt[p] = q
                if q != -1:
                    prev[q] = p
                else:
                    tail = p
                prev[b] = -1
                nxt[b] = head
                prev[head] = b
                head = b
        elif capacity > 0:
            inc[b] = True
            prev[b] = -1
            nxt[b] = head
            if head != -1:
                prev[head] = b
            head = b
            if tail == -1:
                tail = b
            size += 1
            if size > capacity:
                t = tail
                tail = prev[t]
                nxt[tail] = -1
                inc[t] = False
                size -= 1
    return out


def dense_ids(blocks: np.ndarray, id_space: int | None = None) -> tuple[np.ndarray, int]:
    """Map block ids to ``0..n_ids-1`` (identity when the id space is small). Returns ``(ids, n_ids)``."""
    blocks = np.asarray(blocks, dtype=np.int64)
    if len(blocks) == 0:
        return blocks, 0
    space = int(id_space) if id_space is not None else int(blocks.max()) + 1
    if blocks.min() >= 0 and space <= max(1 << 20, DIRECT_ID_FACTOR * len(blocks)):
        return blocks, space
    uniq, inv = np.unique(blocks, return_inverse=True)
    return inv.astype(np.int64), len(uniq)


def lru_present(blocks: np.ndarray, capacity_blocks: int, resets: np.ndarray | None = None,
                id_space: int | None = None) -> np.ndarray:
    """For each access in ``blocks``, whether the block was in an LRU cache of ``capacity_blocks``
    blocks just before it (a hit), running LRU over the whole sequence. ``resets[i]`` empties the cache
    before access ``i``. Exactly :func:`lru_present_reference`; O(n) time, O(distinct blocks) memory.
    """
    ids, n_ids = dense_ids(blocks, id_space)
    n = len(ids)
    reset = np.zeros(n, dtype=np.bool_) if resets is None else np.asarray(resets, dtype=np.bool_)
    if n == 0:
        return np.zeros(0, dtype=bool)
    if not HAVE_NUMBA:  # pragma: no cover
        return lru_present_reference(ids, capacity_blocks, reset)
    return _lru_present_kernel(ids, n_ids, int(max(0, capacity_blocks)), reset)


def lru_present_reference(blocks, capacity_blocks: int, resets=None) -> np.ndarray:
    """Plain-Python LRU on an ``OrderedDict``: the reference the fast kernel must match exactly."""
    od: OrderedDict[int, None] = OrderedDict()
    out = np.zeros(len(blocks), dtype=bool)
    cap = int(capacity_blocks)
    for i, b in enumerate(blocks.tolist() if isinstance(blocks, np.ndarray) else blocks):
        if resets is not None and resets[i]:
            od.clear()
        if b in od:
            od.move_to_end(b)
            out[i] = True
        elif cap > 0:
            od[b] = None
            if len(od) > cap:
                od.popitem(last=False)
    return out


@dataclass
class CacheOutcome:
    """What the cache did over one or more runs' demand accesses.

    ``hit[a]``: demand access ``a`` was served locally. ``prefetch_slot``: the step (global, across runs)
    in which each transferred prefetch was issued; ``prefetch_owner``: the demand access it was made for
    (``-1`` for a wrong prediction). ``prefetch_fetched`` counts blocks prefetched across the link;
    ``prefetch_useful`` those later used by their access.
    """

    hit: np.ndarray
    prefetch_slot: np.ndarray
    prefetch_owner: np.ndarray
    prefetch_fetched: int
    prefetch_useful: int


def coverage_by_step(steps: np.ndarray, learning_steps: int, ramp_steps: int) -> np.ndarray:
    """Share of accesses the prefetcher predicts at each step: 0 while learning, then a linear ramp to 1."""
    s = np.asarray(steps, dtype=np.float64) - learning_steps
    if ramp_steps <= 0:
        return (s >= 0).astype(np.float64)
    return np.clip((s + 1) / ramp_steps, 0.0, 1.0)


def merge_order(slot_a: np.ndarray, slot_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of two slot-sorted event lists in their merge, ``a`` before ``b`` within a slot."""
    pos_a = np.arange(len(slot_a), dtype=np.int64) + np.searchsorted(slot_b, slot_a, side="left")
    pos_b = np.arange(len(slot_b), dtype=np.int64) + np.searchsorted(slot_a, slot_b, side="right")
    return pos_a, pos_b


def run_policy(policy: str, blocks: np.ndarray, access_step: np.ndarray, capacity_blocks: int, *,
               total_blocks: int, run_starts: np.ndarray | None = None, accuracy: float = 0.95,
               lookahead_steps: int = 1, learning_steps: int = 0, ramp_steps: int = 0,
               learn_step_offset: np.ndarray | None = None, seed: int = 0) -> CacheOutcome:
    """Run ``policy`` over the demand accesses ``blocks`` (with their global step ``access_step``).

    ``run_starts``: indices of accesses where the cache is emptied (a new run on a cold cache).
    ``learn_step_offset[a]``: the step from which the prefetcher's learning clock counts for access ``a``
    (its run's first step when the predictor restarts each run, else 0). Deterministic in ``seed``.
    """
    n = len(blocks)
    resets = np.zeros(n, dtype=bool)
    if run_starts is not None and len(run_starts):
        resets[np.asarray(run_starts, dtype=np.int64)] = True
        resets[0] = False
    empty = np.zeros(0, dtype=np.int64)
    if policy == "none" or capacity_blocks <= 0:
        return CacheOutcome(np.zeros(n, dtype=bool), empty, empty, 0, 0)
    if policy == "lru":
        hit = lru_present(blocks, capacity_blocks, resets, id_space=total_blocks)
        return CacheOutcome(hit, empty, empty, 0, 0)
    if policy != "predictive":  # pragma: no cover - validated in workload.py
        raise ValueError(policy)
    rng = np.random.default_rng([seed, 17])
    local_step = access_step - (learn_step_offset if learn_step_offset is not None else 0)
    cover = coverage_by_step(local_step, learning_steps, ramp_steps)
    u = rng.random(n)
    issued = u < cover
    right = rng.random(n) < accuracy
    idx = np.flatnonzero(issued)
    pf_block = np.where(right[idx], blocks[idx], rng.integers(0, max(1, total_blocks), size=len(idx)))
    pf_owner = np.where(right[idx], idx, -1)
    pf_slot = np.maximum(access_step[idx] - lookahead_steps, 0)
    # a prefetch may not cross back over the start of its own run
    if run_starts is not None and len(run_starts):
        run_first_step = access_step[np.asarray(run_starts, dtype=np.int64)]
        r = np.searchsorted(np.asarray(run_starts), idx, side="right") - 1
        pf_slot = np.maximum(pf_slot, run_first_step[r])
    order = np.argsort(pf_slot, kind="stable")
    pf_block, pf_owner, pf_slot = pf_block[order], pf_owner[order], pf_slot[order]
    pos_pf, pos_dm = merge_order(pf_slot, access_step)
    m = n + len(pf_block)
    ev = np.empty(m, dtype=np.int64)
    ev[pos_pf] = pf_block
    ev[pos_dm] = blocks
    ev_reset = np.zeros(m, dtype=bool)
    if resets.any():
        # empty the cache before the first event of each new run (its first prefetch or access)
        first_pos = pos_dm[resets]
        rs = access_step[resets]
        pf_first = np.searchsorted(pf_slot, rs, side="left")
        has_pf = pf_first < len(pf_slot)
        cand = np.where(has_pf, np.minimum(first_pos, pos_pf[np.minimum(pf_first, len(pf_slot) - 1)]), first_pos)
        ev_reset[cand] = True
    present = lru_present(ev, capacity_blocks, ev_reset, id_space=total_blocks)
    hit = present[pos_dm]
    fetched = ~present[pos_pf]
    useful = int(np.count_nonzero(fetched & (pf_owner >= 0) & hit[np.maximum(pf_owner, 0)]))
    return CacheOutcome(hit, pf_slot[fetched], pf_owner[fetched], int(fetched.sum()), useful)
