"""An overshoot that settles is a warm-up (not a slowdown); an abrupt drop after a plateau stays a slowdown."""
from __future__ import annotations

import numpy as np
import pandas as pd

from costmodel.warmup import analyze

BATCH = 32.0


def _log(level_s: np.ndarray, seed: int, sd: float = 0.02, phi: float = 0.5) -> pd.DataFrame:
    """Per-step log from an underlying step time (s): AR(1) log-normal noise, samples/s and t_s."""
    rng = np.random.default_rng(seed)
    e = rng.normal(0.0, sd * np.sqrt(1 - phi * phi), len(level_s))
    x = np.empty(len(e))
    acc = 0.0
    for i, v in enumerate(e):
        acc = phi * acc + v
        x[i] = acc
    dt = level_s * np.exp(x)
    return pd.DataFrame({"step": np.arange(1, len(dt) + 1), "t_s": np.cumsum(dt), "samples_per_s": BATCH / dt})


def _end_by_1pct(level_s: np.ndarray) -> int:
    bad = np.flatnonzero(np.abs(level_s / level_s[-1] - 1) > 0.01)
    return 0 if bad.size == 0 else int(bad[-1] + 1)


def test_overshoot_settling_back_is_a_warmup_with_its_end_within_3pct_of_n():
    n, tau = 6000, 300.0
    k = np.arange(n)
    # step time: cold start, then FASTER than the final level (8 % overshoot at k = tau), settling slowly
    lv = 0.25 * (1 + 0.6 * np.exp(-k / (tau / 3)) - 0.08 * (k / tau) * np.exp(1 - k / tau))
    truth = _end_by_1pct(lv)
    assert 1300 < truth < 1500  # the 1 % rule on the underlying level
    for seed in (1, 2, 3):
        r = analyze(_log(lv, seed))
        assert r.classification == "warmup", r.evidence["rule"]
        assert r.evidence["warmup_end_estimator"] == "isotonic_from_peak"
        assert abs(r.warmup_end_step - truth) <= 0.03 * n
        plateau = BATCH / 0.25
        assert abs(r.steady_mean / plateau - 1) < 0.01


def test_flat_then_abrupt_drop_stays_a_slowdown():
    n = 6000
    k = np.arange(n)
    # warm-up to 0.25 s/step, then an abrupt 10 % slower step time from step 3000 on
    lv = 0.25 * (1 + 0.5 * np.exp(-k / 150.0))
    lv[3000:] *= 1.10
    r = analyze(_log(lv, 7))
    assert r.classification == "slowdown"
    assert abs(r.steady_start_step - 3000) <= 60
