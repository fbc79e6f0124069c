"""cold_mean (first segment) vs warmup_mean (the whole warm-up window)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from costmodel.warmup import analyze


def test_warmup_mean_is_the_level_over_the_warmup_window(rng):
    # 4 very first steps at 80/s, a cold phase of 100 steps at 97/s, then 600 steps at 116/s
    y = np.concatenate([np.full(4, 80.0), np.full(100, 97.0), np.full(600, 116.0)])
    y = y * (1 + 0.003 * rng.standard_normal(len(y)))
    st = 256.0 / y
    df = pd.DataFrame({"run_id": "r", "step": np.arange(len(y)), "samples_per_s": y, "step_time_s": st,
                       "t_s": np.cumsum(st)})
    r = analyze(df)
    assert r.classification == "warmup"
    assert 100 <= r.warmup_end_step <= 110
    assert r.cold_mean == pytest.approx(80.0, rel=0.01)  # the first segment only
    e = r.warmup_end_step
    # ratio of sums over steps 0..e-1 (hand: 104 steps / (4/80 + 100/97) s per 256 samples = 96.2)
    assert r.warmup_mean == pytest.approx(256.0 * e / np.sum(st[:e]), rel=1e-9)
    assert 95.5 <= r.warmup_mean <= 97.5
    assert r.to_dict()["warmup_mean"] == r.warmup_mean


def test_warmup_mean_is_null_for_a_flat_run(rng):
    y = 100.0 * (1 + 0.01 * rng.standard_normal(500))
    df = pd.DataFrame({"run_id": "f", "step": np.arange(500), "samples_per_s": y, "step_time_s": 256.0 / y})
    r = analyze(df)
    assert r.classification == "flat" and r.warmup_mean is None and r.cold_mean is not None
