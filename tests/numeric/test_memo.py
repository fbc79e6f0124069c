"""costmodel.numeric.memo: a result is found again only for the same bits and parameters, and never shared."""
from __future__ import annotations

import numpy as np

from costmodel.numeric import filters
from costmodel.numeric.memo import LastResults
from costmodel.warmup import stats


def test_found_again_by_bits_not_by_value_or_identity():
    memo = LastResults(entries=2)
    x = np.array([1.0, np.nan, 0.0, 3.0])
    memo.put(x, 7, np.array([10.0, 20.0]))
    got = memo.get(x.copy(), 7)  # another array with the same bits: NaN matches itself
    assert got is not None and got.tolist() == [10.0, 20.0]
    got[0] = -1.0  # the caller's copy: what is kept does not change
    assert memo.get(x, 7).tolist() == [10.0, 20.0]
    signed = x.copy()
    signed[2] = -0.0  # equal as a value, not as bits
    assert memo.get(signed, 7) is None
    assert memo.get(x, 8) is None  # other parameters
    assert memo.get(x[:3], 7) is None  # other length
    memo.put(np.ones(4), 7, 1.0)
    memo.put(np.zeros(4), 7, 2.0)
    assert memo.get(x, 7) is None  # pushed out by two newer entries
    assert memo.get(np.zeros(4), 7) == 2.0 and memo.get(np.ones(4), 7) == 1.0
    assert memo.get(np.arange(4), 7) is None  # not float64: never kept, never found
    big = LastResults(max_elements=3)
    big.put(x, 0, 1.0)
    assert big.get(x, 0) is None


def test_running_median_and_tau_int_give_what_they_computed_and_a_fresh_array():
    y = np.random.default_rng(5).normal(100.0, 3.0, 100_000)
    first = filters.median_filter(y, 101)
    hits = filters._last.hits
    again = filters.median_filter(y.copy(), 101)
    assert filters._last.hits == hits + 1 and again.tobytes() == first.tobytes() and again is not first
    again[:] = 0.0
    assert filters.median_filter(y, 101).tobytes() == first.tobytes()
    assert filters.median_filter(y, 51).tobytes() != first.tobytes()  # the window is part of the key
    e = y - y.mean()
    t = stats.tau_int(e)
    assert stats.tau_int(e.copy()) == t == stats._tau_int(e, 5.0)
    assert stats.tau_int(e, c=6.0) == stats._tau_int(e, 6.0)
