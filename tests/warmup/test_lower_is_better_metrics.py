"""Every lower-is-better metric that is a positive time per step is analysed as time per step."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from costmodel.warmup import analyze
from costmodel.warmup.series import metric_direction


@pytest.mark.parametrize("metric,direction", [
    ("step_time_s", "lower_is_better"), ("data_wait_s", "lower_is_better"), ("read_latency_ms", "lower_is_better"),
    ("latency_p99", "lower_is_better"), ("fetch_us", "lower_is_better"), ("samples_per_s", "higher_is_better"),
    ("read_bytes_per_s", "higher_is_better"), ("tokens_per_s", "higher_is_better")])
def test_metric_direction_by_name(metric, direction):
    assert metric_direction(metric) == direction


def _latency_log(col: str, scale: float) -> tuple[pd.DataFrame, int, float]:
    rng = np.random.default_rng(3)
    n = 3000
    k = np.arange(n)
    lv = 12.0 * (1 + 1.5 * np.exp(-k / 300))
    v = lv * np.exp(rng.normal(0, 0.03, n))
    end = int(np.flatnonzero(np.abs(lv / lv[-1] - 1) > 0.01)[-1] + 1)
    df = pd.DataFrame({"step": k + 1, "t_s": np.cumsum(np.full(n, 0.25)), col: v * scale})
    return df, end, float(np.mean(v[end:]) * scale)


@pytest.mark.parametrize("col,scale", [("read_latency_ms", 1.0), ("data_wait_s", 1e-3)])
def test_falling_latency_is_a_warmup_with_the_mean_latency_as_level(col, scale):
    df, end, _ = _latency_log(col, scale)
    r = analyze(df, metric=col)
    mean_after = float(np.mean(df[col].to_numpy()[r.steady_start_step - 1:]))
    assert r.metric_direction == "lower_is_better"
    assert r.classification == "warmup"  # a falling latency is a warm-up, not a slowdown
    assert abs(r.warmup_end_step - end) <= 30  # truth 1,503 (the 1 % rule)
    assert r.steady_mean == pytest.approx(mean_after, rel=1e-9)  # the mean per step, not sum(d^2)/sum(d)
    assert r.steady_ci_low < r.steady_mean < r.steady_ci_high
    assert r.lost_s == 0.0  # a latency's "seconds" are not the run's seconds


def test_wait_with_zeros_is_averaged_and_its_fall_is_still_a_warmup():
    df, end, _ = _latency_log("data_wait_s", 1e-3)
    df.loc[df.index[::50], "data_wait_s"] = 0.0  # cache hits every 50 steps: no wait at all
    r = analyze(df, metric="data_wait_s")
    assert r.metric_direction == "lower_is_better"
    assert "analysed_as" not in r.evidence  # a zero cannot be inverted: averaged per observation instead
    assert r.classification == "warmup"  # mirrored comparisons: an earlier higher wait was slower
    assert r.period_steps is None  # the zeros are improvements, not stalls
    assert abs(r.warmup_end_step - end) <= 0.05 * 3000
    after = df["data_wait_s"].to_numpy()[r.steady_start_step - 1:]
    assert r.steady_mean == pytest.approx(float(np.mean(after)), rel=1e-9)
