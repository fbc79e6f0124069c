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

A cache that never has to evict (every distinct block of the trace, between two resets, fits) is a simpler
problem: an access hits exactly when its block was read or prefetched before, since the last reset. For a trace
of at most :data:`NO_EVICTION_MAX_ACCESSES` accesses that question is answered with one sort in numpy
(:func:`_first_touch`), the same hits, prefetches and counts as the kernel, and numba is neither imported nor
loaded (its import and the loading of the cached kernels cost about 0.7 s of CPU, more than the policy itself on
a trace of a million accesses). When the trace is longer, or an eviction would happen, the kernel runs.
Numba is imported on the first call of a kernel (:func:`_compiled`), not when this module is.
"""
from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Longest trace (demand accesses) for which a cache that never evicts is simulated in numpy (:func:`_first_touch`)
#: rather than by the compiled kernel: the sort holds about ten int64 arrays of the events (prefetches included),
#: about 0.3 GB at this length.
NO_EVICTION_MAX_ACCESSES = 4_000_000


@functools.cache
def _compiled(name: str) -> Callable[..., Any] | None:
    """The numba-compiled kernel ``name`` of this module (compiled once, then read from numba's on-disk cache),
    None when numba cannot be imported (the plain-Python reference runs instead)."""
    try:  # numba is an optional extra (`sim`); its import also fails with non-ImportErrors (numpy mismatch)
        from numba import njit
    except Exception:  # noqa: BLE001  # pragma: no cover - depends on the installation
        return None
    return njit(cache=True, nogil=True)(globals()[name])


def _first_touch(values: np.ndarray, segment: np.ndarray | None) -> np.ndarray:
    """Whether each event is the first of its value within its segment (``segment`` non-decreasing in event
    order; None: one segment): in a cache that never evicts and is emptied at each new segment, the events
    that find their block absent. One sort of ``value x 2^k + position`` (a plain sort, faster than a stable
    argsort; a stable argsort when that product would not fit in int64), O(n log n)."""
    m = len(values)
    out = np.zeros(m, dtype=bool)
    if m == 0:
        return out
    shift = int(m - 1).bit_length()
    if int(values.min()) >= 0 and (int(values.max()) + 1) << shift < 1 << 62:
        key = values << shift
        key |= np.arange(m, dtype=np.int64)
        key.sort()
        v = key >> shift
        pos = key & ((1 << shift) - 1)
    else:
        pos = np.argsort(values, kind="stable")
        v = values[pos]
    first = np.empty(m, dtype=bool)
    first[0] = True
    np.not_equal(v[1:], v[:-1], out=first[1:])
    if segment is not None:
        sg = segment[pos]
        first[1:] |= sg[1:] != sg[:-1]
    out[pos] = first
    return out


def _fits(first: np.ndarray, segment: np.ndarray | None, capacity: int) -> bool:
    """Whether no segment inserts more distinct blocks than ``capacity`` (so nothing was ever evicted)."""
    if segment is None:
        return int(np.count_nonzero(first)) <= capacity
    counts = np.bincount(segment[first]) if first.any() else np.zeros(1, dtype=np.int64)
    return int(counts.max()) <= capacity


#: Direct block ids are used when the id space is at most this many times the number of events;
#: otherwise ids are compacted with ``np.unique`` first (memory O(distinct blocks)).
DIRECT_ID_FACTOR = 4


def _lru_present_kernel(ids, n_ids, capacity, reset):  # pragma: no cover - compiled
    # link[b, 0] = previous (towards MRU), link[b, 1] = next (towards LRU); both in one cache line.
    # link[b, 0] == -2 marks "not cached". int32 halves the memory traffic of the random accesses.
    n = ids.shape[0]
    out = np.zeros(n, dtype=np.bool_)
    link = np.full((n_ids, 2), -2, dtype=np.int32)
    head = -1
    tail = -1
    size = 0
    for i in range(n):
        if reset[i]:
            b = head
            while b != -1:
                nb = link[b, 1]
                link[b, 0] = -2
                b = nb
            head = -1
            tail = -1
            size = 0
        b = ids[i]
        if link[b, 0] != -2:
            out[i] = True
            if b != head:
                p = link[b, 0]
                q = link[b, 1]
                link[p, 1] = q
                if q != -1:
                    link[q, 0] = p
                else:
                    tail = p
                link[b, 0] = -1
                link[b, 1] = head
                link[head, 0] = b
                head = b
        elif capacity > 0:
            link[b, 0] = -1
            link[b, 1] = head
            if head != -1:
                link[head, 0] = b
            head = b
            if tail == -1:
                tail = b
            size += 1
            if size > capacity:
                t = tail
                tail = link[t, 0]
                link[tail, 1] = -1
                link[t, 0] = -2
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
    blocks = np.asarray(blocks, dtype=np.int64)
    n = len(blocks)
    reset = np.zeros(n, dtype=np.bool_) if resets is None else np.asarray(resets, dtype=np.bool_)
    if n == 0 or capacity_blocks <= 0:
        return np.zeros(n, dtype=bool)
    if n <= NO_EVICTION_MAX_ACCESSES:  # a cache that never evicts: a hit is a block read before (since a reset)
        seg = np.cumsum(reset, dtype=np.int64) if reset.any() else None
        first = _first_touch(blocks, seg)
        if _fits(first, seg, capacity_blocks):
            return ~first
    ids, n_ids = dense_ids(blocks, id_space)
    kernel = _compiled("_lru_present_kernel")
    if kernel is None:  # pragma: no cover
        return lru_present_reference(ids, capacity_blocks, reset)
    return kernel(ids, n_ids, int(max(0, min(capacity_blocks, n_ids + 1))), reset)


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

    ``hit[a]``: demand access ``a`` was served locally. ``prefetch_by_step[s]``: blocks the prefetcher
    fetched across the link during (global) step ``s``; ``prefetch_fetched`` their total;
    ``prefetch_useful`` the right predictions that were fetched and then used by their access.
    """

    hit: np.ndarray
    prefetch_by_step: np.ndarray
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


@dataclass
class PredictorDraws:
    """The prefetcher's random choices for each demand access (seeded): issue when ``issue_u < coverage``,
    right when ``right_u < accuracy``, else it fetches ``wrong_block``."""

    issue_u: np.ndarray
    right_u: np.ndarray
    wrong_block: np.ndarray


def predictor_draws(n: int, total_blocks: int, seed: int) -> PredictorDraws:
    rng = np.random.default_rng([seed, 17])
    return PredictorDraws(rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32),
                          rng.integers(0, max(1, total_blocks), size=n, dtype=np.int64))


class PredictiveInputs:
    """What the predictive policy draws and maps before its kernel, from the trace and seed alone: the
    predictor's draws (``draws``) and, computed on first use, the dense ids of the demand blocks and of the wrong
    predictions (``ids``, ``wrong_ids``, ``n_ids``: only the compiled kernel needs them)."""

    def __init__(self, draws: PredictorDraws, blocks: np.ndarray, total_blocks: int) -> None:
        self.draws = draws
        self._blocks = blocks
        self._total_blocks = total_blocks
        self._dense: tuple[np.ndarray, np.ndarray, int] | None = None

    def _ids(self) -> tuple[np.ndarray, np.ndarray, int]:
        if self._dense is None:
            n = len(self._blocks)
            both, n_ids = dense_ids(np.concatenate([self._blocks, self.draws.wrong_block]), id_space=self._total_blocks)
            self._dense = (both[:n], both[n:], n_ids)
        return self._dense

    @property
    def ids(self) -> np.ndarray:
        return self._ids()[0]

    @property
    def wrong_ids(self) -> np.ndarray:
        return self._ids()[1]

    @property
    def n_ids(self) -> int:
        return self._ids()[2]


def predictive_inputs(blocks: np.ndarray, total_blocks: int, seed: int) -> PredictiveInputs:
    """The :class:`PredictiveInputs` of the demand accesses ``blocks`` (the draws now; the dense ids, O(n log n):
    one ``np.unique`` when the id space is large, when the kernel first asks for them)."""
    blocks = np.asarray(blocks, dtype=np.int64)
    return PredictiveInputs(predictor_draws(len(blocks), total_blocks, seed), blocks, total_blocks)


def _predictive_kernel(ids, wrong_ids, issue_u, right_u, step_start, cover, accuracy, lookahead,
                       run_of_step, reset_step, n_ids, capacity):  # pragma: no cover - compiled
    n = ids.shape[0]
    n_steps = step_start.shape[0] - 1
    hit = np.zeros(n, dtype=np.bool_)
    fetched_right = np.zeros(n, dtype=np.bool_)
    pf_by_step = np.zeros(n_steps, dtype=np.int64)
    link = np.full((n_ids, 2), -2, dtype=np.int32)
    head = -1
    tail = -1
    size = 0
    acc = np.float32(accuracy)
    for s in range(n_steps):
        if reset_step[s]:
            b = head
            while b != -1:
                nb = link[b, 1]
                link[b, 0] = -2
                b = nb
            head = -1
            tail = -1
            size = 0
        # prefetches issued now: for step s + lookahead, or, at a run's first step, for s .. s + lookahead
        first_t = s + lookahead
        if s == 0 or run_of_step[s - 1] != run_of_step[s]:
            first_t = s
        for t in range(first_t, min(s + lookahead + 1, n_steps)):
            if run_of_step[t] != run_of_step[s]:
                break
            cov = np.float32(cover[t])
            for j in range(step_start[t], step_start[t + 1]):
                if issue_u[j] >= cov:
                    continue
                right = right_u[j] < acc
                b = ids[j] if right else wrong_ids[j]
                # touch b (prefetch): fetched across the link when not cached
                if link[b, 0] != -2:
                    if b != head:
                        p = link[b, 0]
                        q = link[b, 1]
                        link[p, 1] = q
                        if q != -1:
                            link[q, 0] = p
                        else:
                            tail = p
                        link[b, 0] = -1
                        link[b, 1] = head
                        link[head, 0] = b
                        head = b
                else:
                    pf_by_step[s] += 1
                    if right:
                        fetched_right[j] = True
                    link[b, 0] = -1
                    link[b, 1] = head
                    if head != -1:
                        link[head, 0] = b
                    head = b
                    if tail == -1:
                        tail = b
                    size += 1
                    if size > capacity:
                        tt = tail
                        tail = link[tt, 0]
                        link[tail, 1] = -1
                        link[tt, 0] = -2
                        size -= 1
        # the step's demand accesses
        for j in range(step_start[s], step_start[s + 1]):
            b = ids[j]
            if link[b, 0] != -2:
                hit[j] = True
                if b != head:
                    p = link[b, 0]
                    q = link[b, 1]
                    link[p, 1] = q
                    if q != -1:
                        link[q, 0] = p
                    else:
                        tail = p
                    link[b, 0] = -1
                    link[b, 1] = head
                    link[head, 0] = b
                    head = b
            else:
                link[b, 0] = -1
                link[b, 1] = head
                if head != -1:
                    link[head, 0] = b
                head = b
                if tail == -1:
                    tail = b
                size += 1
                if size > capacity:
                    tt = tail
                    tail = link[tt, 0]
                    link[tail, 1] = -1
                    link[tt, 0] = -2
                    size -= 1
    return hit, fetched_right, pf_by_step


def _step_arrays(step_start: np.ndarray, run_starts: np.ndarray | None, reset_between_runs: bool,
                 learn_step_offset: np.ndarray | None, learning_steps: int,
                 ramp_steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per global step: coverage, run index, whether the cache is emptied first."""
    n_steps = len(step_start) - 1
    new_run = np.zeros(n_steps, dtype=np.int64)
    reset_step = np.zeros(n_steps, dtype=np.bool_)
    if run_starts is not None and len(run_starts):
        first_steps = np.searchsorted(step_start, np.asarray(run_starts, dtype=np.int64), side="right") - 1
        first_steps = first_steps[first_steps > 0]
        new_run[first_steps] = 1
        if reset_between_runs:
            reset_step[first_steps] = True
    run_of_step = np.cumsum(new_run)
    local = np.arange(n_steps, dtype=np.int64)
    if learn_step_offset is not None and len(learn_step_offset):
        local = local - np.asarray(learn_step_offset, dtype=np.int64)[:n_steps]
    cover = coverage_by_step(local, learning_steps, ramp_steps)
    return cover, run_of_step, reset_step


def run_policy(policy: str, blocks: np.ndarray, access_step: np.ndarray | None, capacity_blocks: int, *,
               total_blocks: int, run_starts: np.ndarray | None = None, reset_between_runs: bool = True,
               accuracy: float = 0.95, lookahead_steps: int = 1, learning_steps: int = 0, ramp_steps: int = 0,
               learn_step_offset: np.ndarray | None = None, seed: int = 0,
               reference: bool = False, step_start: np.ndarray | None = None,
               coverage_scale: float = 1.0, invalidate_steps: np.ndarray | None = None,
               prepared: PredictiveInputs | None = None) -> CacheOutcome:
    """Run ``policy`` over the demand accesses ``blocks`` (with their global, non-decreasing ``access_step``).

    ``run_starts``: indices of the accesses that start a new run; the cache is emptied there when
    ``reset_between_runs``; prefetches never cross into the next run. ``learn_step_offset[a]``: the step from
    which the prefetcher's learning clock counts for access ``a`` (its run's first step when the predictor
    restarts each run, else 0).
    ``prepared``: :func:`predictive_inputs` of these ``blocks``, ``total_blocks`` and ``seed`` when the caller
    already has them (the same trace run over several links). ``reference=True`` runs the same algorithm as a
    merged event list through the ``OrderedDict`` LRU (slow; for tests). Deterministic in ``seed``. O(accesses)
    time, O(distinct blocks) memory.
    """
    n = len(blocks)
    blocks = np.asarray(blocks, dtype=np.int64)
    if step_start is None:
        access_step = np.asarray(access_step, dtype=np.int64)
        n_steps = int(access_step[-1]) + 1 if n else 0
        step_start = np.searchsorted(access_step, np.arange(n_steps + 1), side="left").astype(np.int64)
    step_start = np.asarray(step_start, dtype=np.int64)
    n_steps = len(step_start) - 1
    none = np.zeros(n_steps, dtype=np.int64)
    if policy == "none" or capacity_blocks <= 0 or n == 0:
        return CacheOutcome(np.zeros(n, dtype=bool), none, 0, 0)
    if policy == "lru":
        resets = np.zeros(n, dtype=bool)
        if run_starts is not None and len(run_starts) and reset_between_runs:
            resets[np.asarray(run_starts, dtype=np.int64)] = True
        if invalidate_steps is not None and len(invalidate_steps):
            inv = np.asarray(invalidate_steps, dtype=np.int64)
            inv = inv[(inv > 0) & (inv < n_steps)]
            resets[step_start[inv]] = True
        resets[0] = False
        if reference:
            return CacheOutcome(lru_present_reference(blocks, capacity_blocks, resets), none, 0, 0)
        return CacheOutcome(lru_present(blocks, capacity_blocks, resets, id_space=total_blocks), none, 0, 0)
    if policy != "predictive":  # pragma: no cover - validated in workload.py
        raise ValueError(policy)
    draws = prepared.draws if prepared is not None else predictor_draws(n, total_blocks, seed)
    cover, run_of_step, reset_step = _step_arrays(step_start, run_starts, reset_between_runs,
                                                  learn_step_offset, learning_steps, ramp_steps)
    cover = cover * float(coverage_scale)
    if invalidate_steps is not None and len(invalidate_steps):
        inv = np.asarray(invalidate_steps, dtype=np.int64)
        reset_step[inv[(inv > 0) & (inv < n_steps)]] = True
    if not reference and n <= NO_EVICTION_MAX_ACCESSES:
        out = _predictive_no_eviction(blocks, draws, step_start, cover, run_of_step, reset_step, accuracy,
                                      lookahead_steps, capacity_blocks)
        if out is not None:
            return out
    kernel = None if reference else _compiled("_predictive_kernel")
    if kernel is None:
        access_step = np.repeat(np.arange(n_steps, dtype=np.int64), np.diff(step_start))
        return _predictive_reference(blocks, access_step, draws, step_start, cover, run_of_step, reset_step,
                                     accuracy, lookahead_steps, capacity_blocks)
    pre = prepared if prepared is not None else predictive_inputs(blocks, total_blocks, seed)
    ids, wrong_ids, n_ids = pre.ids, pre.wrong_ids, pre.n_ids
    cap = int(max(0, min(capacity_blocks, n_ids + 1)))
    hit, fetched_right, pf_by_step = kernel(
        ids, wrong_ids, draws.issue_u, draws.right_u, step_start, cover, float(accuracy), int(lookahead_steps),
        run_of_step, reset_step, n_ids, cap)
    return CacheOutcome(hit, pf_by_step, int(pf_by_step.sum()), int(np.count_nonzero(fetched_right & hit)))


def _prefetch_events(step_start: np.ndarray, draws: PredictorDraws, blocks: np.ndarray, cover: np.ndarray,
                     run_of_step: np.ndarray, accuracy: float,
                     lookahead: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The prefetches the kernel issues, in its order: (demand access index, block, step issued in, right).
    Access ``j`` of step ``t`` is predicted when ``issue_u[j] < cover[t]`` (float32, as the kernel compares), at
    step ``max(t - lookahead, first step of t's run)``; its block is the right one when ``right_u[j] < accuracy``.
    The issue steps are non-decreasing in ``j``, so the order is the kernel's: by step, then by access."""
    n_steps = len(cover)
    per_step = np.diff(step_start)
    issued = draws.issue_u < np.repeat(cover.astype(np.float32), per_step)
    idx = np.flatnonzero(issued)
    right = draws.right_u[idx] < np.float32(accuracy)
    pf_block = np.where(right, blocks[idx], draws.wrong_block[idx])
    starts = np.flatnonzero(np.concatenate([[True], run_of_step[1:] != run_of_step[:-1]]))
    steps = np.arange(n_steps, dtype=np.int64)
    run_first = starts[np.searchsorted(starts, steps, side="right") - 1]
    slot_of_step = np.maximum(steps - lookahead, run_first)
    pf_slot = np.repeat(slot_of_step, per_step)[idx]
    return idx, pf_block, pf_slot, right


def _predictive_no_eviction(blocks: np.ndarray, draws: PredictorDraws, step_start: np.ndarray, cover: np.ndarray,
                            run_of_step: np.ndarray, reset_step: np.ndarray, accuracy: float, lookahead: int,
                            capacity: int) -> CacheOutcome | None:
    """The predictive policy when nothing is ever evicted: the kernel's merged event list (a step's prefetches
    before its demand accesses), in which a demand access hits and a prefetch costs nothing exactly when its block
    was read or prefetched before, since the last reset (:func:`_first_touch`). None when some reset segment
    inserts more distinct blocks than ``capacity`` (an eviction: the kernel must run). Same hits, prefetches per
    step and counts as :func:`_predictive_kernel`."""
    n = len(blocks)
    n_steps = len(step_start) - 1
    idx, pf_block, pf_slot, pf_right = _prefetch_events(step_start, draws, blocks, cover, run_of_step, accuracy,
                                                        lookahead)
    # merged positions (:func:`merge_order` without its binary searches): a prefetch issued in step s comes after
    # every demand access of the steps before s; a demand access of step t after every prefetch issued up to t
    pf_upto = np.cumsum(np.bincount(pf_slot, minlength=n_steps))
    pos_pf = np.arange(len(pf_slot), dtype=np.int64) + step_start[pf_slot]
    pos_dm = np.arange(n, dtype=np.int64) + np.repeat(pf_upto, np.diff(step_start))
    m = n + len(pf_block)
    ev = np.empty(m, dtype=np.int64)
    ev[pos_pf] = pf_block
    ev[pos_dm] = blocks
    seg = None
    if reset_step.any():  # the cache is emptied at the start of such a step, before its prefetches
        step_seg = np.cumsum(reset_step, dtype=np.int64)
        seg = np.empty(m, dtype=np.int64)
        seg[pos_pf] = step_seg[pf_slot]
        seg[pos_dm] = np.repeat(step_seg, np.diff(step_start))
    first = _first_touch(ev, seg)
    if not _fits(first, seg, capacity):
        return None
    hit = ~first[pos_dm]
    fetched = first[pos_pf]
    pf_by_step = np.bincount(pf_slot[fetched], minlength=n_steps).astype(np.int64)
    useful = int(np.count_nonzero(fetched & pf_right & hit[idx]))
    return CacheOutcome(hit, pf_by_step, int(pf_by_step.sum()), useful)


def _predictive_reference(blocks, access_step, draws, step_start, cover, run_of_step, reset_step,
                          accuracy, lookahead, capacity) -> CacheOutcome:
    """The predictive policy as an explicit merged event list (prefetches of a step before its demand
    accesses) run through :func:`lru_present_reference`. Same draws, same result as the kernel."""
    n = len(blocks)
    n_steps = len(step_start) - 1
    issued = draws.issue_u < cover[access_step].astype(np.float32)
    right = draws.right_u < np.float32(accuracy)
    idx = np.flatnonzero(issued)
    pf_block = np.where(right[idx], blocks[idx], draws.wrong_block[idx])
    run_first = np.zeros(n_steps, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate([[True], run_of_step[1:] != run_of_step[:-1]]))
    run_first[:] = starts[run_of_step - run_of_step[0]] if n_steps else 0
    pf_slot = np.maximum(access_step[idx] - lookahead, run_first[access_step[idx]])
    order = np.argsort(pf_slot, kind="stable")
    idx, pf_block, pf_slot = idx[order], pf_block[order], pf_slot[order]
    pos_pf, pos_dm = merge_order(pf_slot, access_step)
    m = n + len(pf_block)
    ev = np.empty(m, dtype=np.int64)
    ev[pos_pf] = pf_block
    ev[pos_dm] = blocks
    ev_reset = np.zeros(m, dtype=bool)
    for s in np.flatnonzero(reset_step):
        cands = [pos_dm[step_start[s]]] if step_start[s] < n else []
        k = np.searchsorted(pf_slot, s, side="left")
        if k < len(pf_slot) and pf_slot[k] == s:
            cands.append(pos_pf[k])
        if cands:
            ev_reset[min(cands)] = True
    present = lru_present_reference(ev, capacity, ev_reset)
    hit = present[pos_dm]
    fetched = ~present[pos_pf]
    pf_by_step = np.bincount(pf_slot[fetched], minlength=n_steps).astype(np.int64)
    useful = int(np.count_nonzero(fetched & right[idx] & hit[idx]))
    return CacheOutcome(hit, pf_by_step, int(fetched.sum()), useful)
