"""A period needs stalls more regular than random events would be (p_regular), and irregular drops
are 'dips' only when they cost throughput."""
from __future__ import annotations

import numpy as np

from costmodel.warmup import analyze
from costmodel.warmup.period import find_period, p_regular


def test_chance_of_regular_gaps_from_random_events():
    assert 0.005 < p_regular(4, 0.1) < 0.03  # 4 random events: CV <= 0.1 about 1.3 % of the time
    assert p_regular(5, 0.1) < 0.005
    assert p_regular(5, 0.19) > 0.002  # what a coarse log's straggler rows once produced
    assert p_regular(12, 0.25) == 0.0
    assert p_regular(5, 0.19) == p_regular(5, 0.19)  # deterministic


def _rows_with_drops(at: list[int], depth: float, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    y = 100.0 * np.exp(rng.normal(0, 0.01, n))
    for a in at:
        y[a] *= 1 - depth
    return y, np.arange(n) * 20 + 20


def test_five_shallow_drops_with_gap_cv_0_19_are_not_a_period():
    y, st = _rows_with_drops([1, 56, 115, 202, 282], 0.2)  # gaps 55, 59, 87, 80: CV 0.19
    assert find_period(y, st) is None


def test_five_regular_drops_are_a_period_and_four_deep_idle_gaps_too():
    y, st = _rows_with_drops([20, 80, 140, 200, 260], 0.2)
    p = find_period(y, st)
    assert p is not None and p.period_steps == 1200
    y, st = _rows_with_drops([30, 100, 168, 240], 0.95)  # 4 idle gaps, gap CV 0.02
    p = find_period(y, st)
    assert p is not None and p.period_steps == 1400


def test_heavy_tailed_noise_under_ar_0_9_is_not_dips():
    rng = np.random.default_rng(21)
    n = 6000
    k = np.arange(n)
    e = rng.standard_t(3, n) * 0.04 / np.sqrt(3)
    x = np.empty(n)
    acc = 0.0
    for i in range(n):
        acc = 0.9 * acc + np.sqrt(1 - 0.81) * e[i]
        x[i] = acc
    dt = 0.25 * (1 + 0.8 * np.exp(-k / 300)) * np.exp(x)
    strag = rng.random(n) < 0.002
    dt[strag] *= 5.0
    import pandas as pd

    r = analyze(pd.DataFrame({"step": k + 1, "t_s": np.cumsum(dt), "samples_per_s": 32 / dt}))
    assert r.classification == "warmup", r.evidence["rule"]
