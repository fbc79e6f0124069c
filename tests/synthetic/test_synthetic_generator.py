"""The synthetic generator: determinism, truth by construction, reference example ranges."""
from __future__ import annotations

import numpy as np
import pytest

from costmodel.foundation.errors import AnalysisError
from costmodel.synthetic.shapes import REFERENCE_BATCH, generate, reference_case


def test_same_seed_same_series_and_different_seed_differs():
    a = generate(n=500, shape="exp", warmup_frac=0.2, cv=0.02, ar=0.5, seed=3)
    b = generate(n=500, shape="exp", warmup_frac=0.2, cv=0.02, ar=0.5, seed=3)
    c = generate(n=500, shape="exp", warmup_frac=0.2, cv=0.02, ar=0.5, seed=4)
    assert a.table.equals(b.table)
    assert not np.allclose(a.table["samples_per_s"], c.table["samples_per_s"])


@pytest.mark.parametrize("shape", ["exp", "power", "logistic", "ramp", "step"])
def test_truth_warmup_end_is_the_first_step_within_one_percent(shape):
    s = generate(n=2000, shape=shape, plateau=1000.0, initial=400.0, warmup_frac=0.25, cv=0.0, seed=1)
    te = s.truth.warmup_end_step
    lvl = s.level
    assert np.all(np.abs(lvl[te:] - 1000.0) <= 10.0 + 1e-6)
    assert abs(lvl[te - 1] - 1000.0) > 10.0
    # designed at 25 % of n (step and ramp are exact to a step)
    assert abs(te - 500) <= 2


def test_noiseless_series_has_exact_rates_and_times():
    s = generate(n=100, shape="flat", plateau=200.0, cv=0.0, batch=50, seed=0)
    assert np.allclose(s.table["samples_per_s"], 200.0)
    assert np.allclose(s.table["step_time_s"], 0.25)
    assert s.table["t_s"].iloc[-1] == pytest.approx(25.0)
    assert s.truth.classification == "flat" and s.truth.warmup_end_step == 0


def test_dips_truth_is_the_harmonic_mean_of_the_factors():
    s = generate(n=1000, shape="flat", plateau=100.0, cv=0.0, dips=(100, 10, 0.5), seed=2)
    k = len(s.truth.dip_starts)
    # k dips of 10 steps at half speed: time = (1000 - 10k)/100 + 10k/50 per sample batch
    expected = 100.0 * 1000 / ((1000 - 10 * k) + 10 * k * 2.0)
    assert s.truth.plateau_effective == pytest.approx(expected)
    assert s.truth.classification == "dips"
    y = s.table["samples_per_s"].to_numpy()
    assert np.isclose(y[s.truth.dip_starts[0]], 50.0)


def test_classes_by_construction():
    kinds = {k: generate(n=1000, kind=k, warmup_frac=0.1, seed=5).truth for k in
             ("slowdown", "invalidation", "no_steady_state", "dips")}
    assert kinds["slowdown"].classification == "slowdown"
    assert kinds["invalidation"].warmup_end_step > 400
    assert kinds["no_steady_state"].warmup_end_step is None
    assert kinds["no_steady_state"].plateau_effective is None


def test_ar1_noise_has_the_requested_sd_and_correlation():
    s = generate(n=50_000, shape="flat", plateau=1000.0, cv=0.02, ar=0.8, seed=9)
    d = s.table["step_time_s"].to_numpy()
    x = d / d.mean() - 1
    assert np.std(x) == pytest.approx(0.02, rel=0.1)
    assert np.corrcoef(x[:-1], x[1:])[0, 1] == pytest.approx(0.8, abs=0.03)


def test_bad_arguments_raise_analysis_error():
    with pytest.raises(AnalysisError, match="unknown shape"):
        generate(n=100, shape="zigzag")
    with pytest.raises(AnalysisError, match="ar must be"):
        generate(n=100, ar=1.0)
    with pytest.raises(AnalysisError, match="unknown kind"):
        generate(n=100, kind="chaos")
    with pytest.raises(AnalysisError, match="role"):
        reference_case("hub")


def test_reference_case_reproduces_the_published_ranges():
    rem = reference_case("remote")
    col = reference_case("colocated")
    cold = rem[rem.step < 100]
    steady = rem[rem.step >= 200]
    assert cold.samples_per_s.between(95, 105).all()
    assert cold.gpu_util.between(0.80, 0.90).all()
    # issue 36: training reads samples/s x 16,384 bytes (the published 500-800 MB/s cold, 1.0-1.3 GB/s warm
    # measure the storage path): 95.2-104.8 samples/s -> 1.56-1.72 MB/s
    assert cold.read_bytes_per_s.between(1.55e6, 1.72e6).all()
    assert 115 <= REFERENCE_BATCH * len(steady) / np.sum(REFERENCE_BATCH / steady.samples_per_s) <= 117
    assert steady.cache_hit_ratio.between(0.94, 0.96).all()
    assert (steady.read_latency_s < 5e-3).all()
    assert col.gpu_util.between(0.98, 1.0).all()
    assert col.read_bytes_per_s.between(114.0 * 16384, 118.0 * 16384).all()
    assert col.read_latency_s.between(2e-3, 3e-3).all()
    assert col.cache_hit_ratio.isna().all()
