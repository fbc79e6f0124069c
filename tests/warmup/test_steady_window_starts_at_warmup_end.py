"""The steady window starts at (or, by the curve's bias rule, shortly after) the warm-up end and spans
whole stall periods: the plateau is work over time including stalls (epoch stalls, 50 k-step runs)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from costmodel.warmup import analyze

BATCH = 32.0


def _log(n: int, tau: float, stall_every: int, stall_steps: float, seed: int) -> tuple[pd.DataFrame, int, float]:
    rng = np.random.default_rng(seed)
    k = np.arange(n)
    lv = 0.25 * (1 + 1.0 * np.exp(-k / tau))
    dt = lv * np.exp(rng.normal(0, 0.02, n))
    first = stall_every // 2
    for p in range(first, n - 4, stall_every):
        dt[p:p + 3] += stall_steps * 0.25 * np.array([0.5, 0.3, 0.2])
    bad = np.flatnonzero(np.abs(lv / lv[-1] - 1) > 0.01)
    end = int(bad[-1] + 1)
    plateau = BATCH * (n - end) / float(dt[end:].sum())  # work over time from the warm-up end
    df = pd.DataFrame({"step": k + 1, "t_s": np.cumsum(dt), "samples_per_s": BATCH / dt})
    return df, end, plateau


def test_epoch_stall_plateau_within_0_2pct_of_work_over_time():
    # 6,000 steps, an epoch stall (20 steps' time) every 2,000 steps: two or three stalls after the warm-up
    errs = []
    for seed in range(4):
        df, end, plateau = _log(6000, 300.0, 2000, 20.0, seed)
        r = analyze(df)
        assert abs(r.warmup_end_step - end) <= 0.05 * 6000
        assert r.steady_start_step <= end + 0.05 * 6000
        errs.append(abs(r.steady_mean / plateau - 1))
    assert max(errs) < 0.002, errs


def test_long_run_steady_window_starts_well_before_twice_the_warmup_end():
    df, end, plateau = _log(50_000, 2500.0, 1000, 15.0, 11)
    r = analyze(df)
    assert r.classification == "dips" and r.evidence["underlying"] == "warmup"
    assert r.period_steps == 1000
    # the bias rule moves the start past the warm-up end (11,513) only while the curve's residual bias
    # exceeds 0.1 SE, at most one warm-up length; it used to add a whole warm-up length after that
    assert end <= r.steady_start_step <= 1.35 * end
    assert abs(r.steady_mean / plateau - 1) < 0.002
