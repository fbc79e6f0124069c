"""The cache policies run over traces: the compiled LRU equals an OrderedDict LRU exactly, and the
closed forms that are exact hold on the trace simulation."""
from __future__ import annotations

import numpy as np
import pytest

from costmodel.simulate.cache import (
    coverage_by_step,
    dense_ids,
    lru_present,
    lru_present_reference,
    merge_order,
    run_policy,
)


@pytest.mark.parametrize("n_ids,capacity", [(5, 1), (50, 7), (200, 64), (1000, 999), (300, 0), (40, 500)])
def test_lru_kernel_matches_ordereddict_on_random_traces(n_ids, capacity, rng):
    for _ in range(5):
        trace = rng.integers(0, n_ids, size=3000)
        fast = lru_present(trace, capacity)
        ref = lru_present_reference(trace, capacity)
        assert np.array_equal(fast, ref)


def test_lru_kernel_matches_reference_with_resets_and_skewed_trace(rng):
    trace = (rng.zipf(1.3, size=20000) % 5000).astype(np.int64)
    resets = np.zeros(len(trace), dtype=bool)
    resets[[5000, 12000]] = True
    for cap in (1, 10, 100, 1000):
        assert np.array_equal(lru_present(trace, cap, resets), lru_present_reference(trace, cap, resets))
    # a reset empties the cache: the access right after it always misses
    assert not lru_present(trace, 1000, resets)[[5000, 12000]].any()


def test_lru_handles_large_sparse_block_ids_by_compaction(rng):
    base = rng.integers(0, 300, size=5000)
    sparse = base * 10_000_019 + 7  # ids far beyond the trace length
    _ids, n = dense_ids(sparse)
    assert n == len(np.unique(base))
    assert np.array_equal(lru_present(sparse, 50), lru_present_reference(base, 50))


def test_cyclic_scan_larger_than_cache_never_hits():
    n_blocks, cap = 1000, 999
    trace = np.tile(np.arange(n_blocks), 5)
    assert lru_present(trace, cap).sum() == 0


def test_cyclic_scan_that_fits_hits_every_access_after_the_first_pass():
    trace = np.tile(np.arange(1000), 4)
    hit = lru_present(trace, 1000)
    assert hit[:1000].sum() == 0 and hit[1000:].all()


def test_uniform_random_steady_hit_ratio_is_capacity_over_blocks():
    # independent uniform references over N blocks, LRU of c blocks: steady hit ratio c/N exactly
    rng = np.random.default_rng(3)
    N, c = 2000, 500
    trace = rng.integers(0, N, size=600_000)
    hit = lru_present(trace, c)
    steady = hit[100_000:].mean()
    assert steady == pytest.approx(c / N, abs=0.004)


def test_merge_order_puts_prefetches_before_demands_of_the_same_step():
    pf = np.array([0, 0, 2])
    dm = np.array([0, 1, 1, 2])
    pa, pb = merge_order(pf, dm)
    merged = np.empty(7, dtype=object)
    merged[pa] = ["p0a", "p0b", "p2"]
    merged[pb] = ["d0", "d1a", "d1b", "d2"]
    assert list(merged) == ["p0a", "p0b", "d0", "d1a", "d1b", "p2", "d2"]


def test_coverage_ramp():
    cov = coverage_by_step(np.array([0, 9, 10, 11, 14, 19, 20, 30]), learning_steps=10, ramp_steps=10)
    assert cov.tolist() == [0.0, 0.0, 0.1, 0.2, 0.5, 1.0, 1.0, 1.0]
    assert coverage_by_step(np.array([4, 5]), 5, 0).tolist() == [0.0, 1.0]


def _single_pass(n_blocks: int, per_step: int):
    blocks = np.random.default_rng(1).permutation(n_blocks).astype(np.int64)
    steps = np.arange(n_blocks) // per_step
    return blocks, steps


def test_predictive_single_pass_hit_ratio_is_its_accuracy():
    # each block read once: only the prefetcher can produce hits; right predictions with prob. 0.8
    blocks, steps = _single_pass(200_000, 100)
    out = run_policy("predictive", blocks, steps, 400_000, total_blocks=200_000, accuracy=0.8,
                     lookahead_steps=2, seed=5)
    # a wrong prediction fetches a uniformly random block; with a cache that keeps everything, access j
    # also hits when one of the ~0.2*j earlier wrong prefetches happened to pick its block:
    # P(hit) = a + (1-a) * mean_j(1 - exp(-(1-a) j / N)) = a + (1-a) * (1 - (1 - e^-(1-a)) / (1-a))
    a = 0.8
    expected = a + (1 - a) * (1 - (1 - np.exp(-(1 - a))) / (1 - a))
    assert expected == pytest.approx(0.81874, abs=1e-5)
    assert out.hit.mean() == pytest.approx(expected, abs=0.004)
    # every access got one prediction; wrong ones fetch another block (some already cached)
    # right predictions whose block was not already cached are fetched and used: 0.8 * (1 - 0.0937) of accesses
    assert out.prefetch_useful / len(blocks) == pytest.approx(0.8 * (1 - (expected - a) / (1 - a)), abs=0.004)
    assert out.prefetch_fetched >= out.prefetch_useful


def test_predictive_with_perfect_accuracy_hits_everything_after_learning():
    blocks, steps = _single_pass(50_000, 100)
    out = run_policy("predictive", blocks, steps, 100_000, total_blocks=50_000, accuracy=1.0,
                     lookahead_steps=1, learning_steps=100, ramp_steps=0, seed=1)
    assert out.hit[steps < 100].sum() == 0
    assert out.hit[steps >= 100].all()


def test_predictive_cache_too_small_for_the_lookahead_loses_its_prefetches():
    # 2 steps of 100 blocks are prefetched ahead but only 50 blocks fit: prefetched blocks are evicted
    blocks, steps = _single_pass(20_000, 100)
    out = run_policy("predictive", blocks, steps, 50, total_blocks=20_000, accuracy=1.0,
                     lookahead_steps=2, seed=1)
    assert out.hit.mean() < 0.01
    big = run_policy("predictive", blocks, steps, 1000, total_blocks=20_000, accuracy=1.0,
                     lookahead_steps=2, seed=1)
    assert big.hit[steps >= 2].all()


def test_policy_none_never_hits_and_lru_zero_capacity_never_hits():
    blocks = np.tile(np.arange(10), 10)
    steps = np.arange(100) // 10
    assert run_policy("none", blocks, steps, 100, total_blocks=10).hit.sum() == 0
    assert run_policy("lru", blocks, steps, 0, total_blocks=10).hit.sum() == 0
    assert run_policy("lru", blocks, steps, 10, total_blocks=10).hit.sum() == 90


@pytest.mark.parametrize("cap,acc,look,learn,ramp", [(50, 0.7, 1, 0, 0), (300, 0.9, 2, 3, 4), (5, 1.0, 3, 0, 2),
                                                     (2000, 0.5, 1, 2, 0)])
def test_predictive_kernel_matches_the_ordereddict_event_list(cap, acc, look, learn, ramp):
    rng = np.random.default_rng(cap)
    blocks = rng.integers(0, 400, size=6000)
    steps = np.arange(6000) // 60
    starts = np.array([0, 2400, 4200])  # three runs
    for reset in (True, False):
        kw = {"total_blocks": 400, "run_starts": starts, "reset_between_runs": reset, "accuracy": acc,
                  "lookahead_steps": look, "learning_steps": learn, "ramp_steps": ramp, "seed": 3}
        fast = run_policy("predictive", blocks, steps, cap, **kw)
        ref = run_policy("predictive", blocks, steps, cap, reference=True, **kw)
        assert np.array_equal(fast.hit, ref.hit)
        assert np.array_equal(fast.prefetch_by_step, ref.prefetch_by_step)
        assert fast.prefetch_useful == ref.prefetch_useful and fast.prefetch_fetched == ref.prefetch_fetched
        assert 0 < fast.hit.sum() < len(blocks)


def test_lru_policy_resets_between_runs_only_when_asked():
    blocks = np.tile(np.arange(100), 4)
    steps = np.arange(400) // 10
    starts = np.array([0, 200])
    kept = run_policy("lru", blocks, steps, 100, total_blocks=100, run_starts=starts, reset_between_runs=False)
    reset = run_policy("lru", blocks, steps, 100, total_blocks=100, run_starts=starts, reset_between_runs=True)
    assert kept.hit.sum() == 300 and reset.hit.sum() == 200


from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=200, deadline=None)
@given(trace=st.lists(st.integers(0, 30), min_size=1, max_size=300), capacity=st.integers(0, 40),
       reset_at=st.lists(st.integers(0, 299), max_size=3))
def test_lru_kernel_equals_ordereddict_property(trace, capacity, reset_at):
    arr = np.array(trace, dtype=np.int64)
    resets = np.zeros(len(arr), dtype=bool)
    resets[[r for r in reset_at if r < len(arr)]] = True
    assert np.array_equal(lru_present(arr, capacity, resets), lru_present_reference(arr, capacity, resets))


@pytest.mark.parametrize("cap,acc,look,learn,ramp,reset", [(400, 0.7, 1, 0, 0, True), (401, 0.9, 2, 3, 4, False),
                                                           (10_000, 1.0, 3, 0, 2, True), (5_000, 0.5, 0, 2, 0, False)])
def test_predictive_cache_that_never_evicts_matches_the_compiled_kernel(monkeypatch, cap, acc, look, learn, ramp, reset):
    """A cache that holds every block is simulated in numpy (no numba); the compiled kernel gives the same hits,
    prefetches per step and counts, on traces with several runs and an invalidation."""
    import costmodel.simulate.cache as cache

    rng = np.random.default_rng(cap)
    blocks = rng.integers(0, 400, size=6000)
    steps = np.arange(6000) // 60
    kw = {"total_blocks": 400, "run_starts": np.array([0, 2400, 4200]), "reset_between_runs": reset,
          "accuracy": acc, "lookahead_steps": look, "learning_steps": learn, "ramp_steps": ramp, "seed": 3,
          "invalidate_steps": np.array([70])}
    fast = run_policy("predictive", blocks, steps, cap, **kw)
    ref = run_policy("predictive", blocks, steps, cap, reference=True, **kw)
    monkeypatch.setattr(cache, "NO_EVICTION_MAX_ACCESSES", 0)  # the compiled kernel (or its reference) only
    kernel = run_policy("predictive", blocks, steps, cap, **kw)
    for other in (ref, kernel):
        assert np.array_equal(fast.hit, other.hit)
        assert np.array_equal(fast.prefetch_by_step, other.prefetch_by_step)
        assert (fast.prefetch_fetched, fast.prefetch_useful) == (other.prefetch_fetched, other.prefetch_useful)
    assert 0 < fast.prefetch_useful <= fast.prefetch_fetched < len(blocks)


def test_cache_that_must_evict_falls_back_to_the_kernel_with_the_same_answer():
    """Capacity one block short of the trace's distinct blocks: the numpy path refuses (an eviction happens) and the
    answer is still exact LRU."""
    import costmodel.simulate.cache as cache

    rng = np.random.default_rng(5)
    blocks = rng.integers(0, 300, size=5000)
    distinct = len(np.unique(blocks))
    first = cache._first_touch(blocks, None)
    assert cache._fits(first, None, distinct) and not cache._fits(first, None, distinct - 1)
    for cap in (distinct - 1, distinct):
        assert np.array_equal(lru_present(blocks, cap), lru_present_reference(blocks, cap))
    resets = np.zeros(len(blocks), dtype=bool)
    resets[[1000, 3000]] = True
    assert np.array_equal(lru_present(blocks, distinct, resets), lru_present_reference(blocks, distinct, resets))
    # block ids beyond what value x 2^k + position can hold in int64: the stable-sort branch, same answer
    huge = blocks * (1 << 50) + 7
    assert np.array_equal(cache._first_touch(huge, None), first)
