"""Slow degradation that never settles (thermal throttling) is no_steady_state with its drift rate."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from costmodel.warmup import analyze


@pytest.mark.parametrize("per_1k", [0.01, 0.02])
def test_step_time_growing_1_to_2pct_per_1k_steps_is_a_drift_with_no_level(per_1k):
    rng = np.random.default_rng(9)
    n = 6000
    k = np.arange(n)
    lv = 0.25 * (1 + 0.5 * np.exp(-k / 100.0) + per_1k * k / 1000)
    dt = lv * np.exp(rng.normal(0, 0.02, n))
    r = analyze(pd.DataFrame({"step": k + 1, "t_s": np.cumsum(dt), "samples_per_s": 32 / dt}))
    assert r.classification == "no_steady_state"
    assert r.steady_mean is None and r.steady_ci_low is None
    # throughput falls by about per_1k / (1 + per_1k * k/1000) per 1,000 steps late in the run
    assert -1.6 * per_1k < r.drift_per_1k_steps < -0.6 * per_1k
