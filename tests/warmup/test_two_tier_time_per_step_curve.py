"""A two-tier cache that decays exponentially in step time is fitted in time per step (exp2)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from costmodel.synthetic.shapes import generate
from costmodel.warmup import analyze


def test_two_tier_in_step_time_picks_exp2_in_time_per_step_and_ends_within_2pct():
    n, tau = 6000, 400.0
    k = np.arange(n)
    lv = 0.25 * (1 + 2.0 * np.exp(-k / (tau / 4)) + 0.25 * np.exp(-k / (1.5 * tau)))
    end = int(np.flatnonzero(np.abs(lv / lv[-1] - 1) > 0.01)[-1] + 1)  # 1,932
    errs = []
    for seed in (1, 2, 3):
        rng = np.random.default_rng(seed)
        dt = lv * np.exp(rng.normal(0, 0.02, n))
        r = analyze(pd.DataFrame({"step": k + 1, "t_s": np.cumsum(dt), "samples_per_s": 32 / dt}))
        assert r.evidence["warmup_end_estimator"] == "curve:exp2/time_per_step"
        assert r.curve["model"] == "exp2" and r.curve["params"]["space"] == "time_per_step"
        assert abs(r.curve["plateau"] - 128.0) < 0.5  # samples/s, back on the rate scale
        errs.append(abs(r.warmup_end_step - end) / n)
    assert max(errs) < 0.02, errs


def test_exponential_in_throughput_keeps_the_rate_scale_model():
    s = generate(n=4000, shape="exp", warmup_frac=0.25, cv=0.02, ar=0.5, seed=1)
    r = analyze(s.to_run())
    assert r.evidence["warmup_end_estimator"] == "curve:exp"
    assert "space" not in r.curve["params"]
