"""The periodic-stall subset of the long-run variance (warmup.longrun_var._periodic_subset) is found in
O(k log k) and picks exactly the set the rule defines: the same answer as trying every set of the m
biggest jumps, m = k .. 3, on random, comb-like, tied and gapped inputs."""
from __future__ import annotations

import numpy as np
import pytest

from costmodel.warmup import longrun_var as L


def _every_set(pos: np.ndarray, size: np.ndarray, n: int) -> np.ndarray | None:
    """The rule as first written: try the m biggest jumps for m = k, k - 1, ..., 3 (quadratic)."""
    order = np.argsort(-np.abs(size), kind="stable")
    for m in range(len(pos), 2, -1):
        idx = np.sort(order[:m])
        if L._comb_ok(pos[idx].astype(float), n, m):
            return idx
    return None


def _case(rng: np.random.Generator, kind: int) -> tuple[np.ndarray, np.ndarray, int]:
    n = int(rng.integers(50, 5000))
    if kind == 0:  # random jumps
        pos = np.sort(rng.choice(n, size=int(rng.integers(0, 40)), replace=False))
        return pos, rng.normal(0, 1, len(pos)) * rng.choice([1, 10], len(pos)), n
    period = int(rng.integers(3, max(4, n // 3)))
    comb = np.arange(int(rng.integers(0, period)), n, period)
    comb = comb + rng.integers(-kind, kind + 1, size=len(comb))  # jitter
    comb = comb[(comb >= 0) & (comb < n)]
    if kind == 3 and len(comb) > 4:
        comb = np.delete(comb, rng.integers(0, len(comb)))  # one stall missing
    pos = np.unique(np.concatenate([comb, rng.choice(n, size=int(rng.integers(0, 30)), replace=False)]))
    size = np.where(np.isin(pos, comb), rng.normal(10, 2, len(pos)), rng.normal(0, 3, len(pos)))
    return pos, (np.round(size) if kind == 2 else size), n  # kind 2: tied sizes


@pytest.mark.parametrize("kind", [0, 1, 2, 3])
def test_same_subset_as_trying_every_set(kind):
    rng = np.random.default_rng(100 + kind)
    found = 0
    for _ in range(400):
        pos, size, n = _case(rng, kind)
        want = _every_set(pos, size, n)
        got = L._periodic_subset(pos, size, n)
        assert (got is None) == (want is None), (pos.tolist(), size.tolist(), n)
        if want is not None:
            assert np.array_equal(got, want)
            found += 1
    if kind:
        assert found > 50  # combs are found (the check above is not all None == None)


def test_a_comb_among_many_random_slow_steps():
    rng = np.random.default_rng(5)
    n = 200_000
    comb = np.arange(250, n, 500)
    noise = rng.choice(n, 2_000, replace=False)
    pos = np.unique(np.concatenate([comb, noise]))
    size = np.where(np.isin(pos, comb), 50.0 + rng.normal(0, 1, len(pos)), rng.normal(0, 5, len(pos)))
    idx = L._periodic_subset(pos, size, n)
    assert idx is not None and np.array_equal(pos[idx], comb)
