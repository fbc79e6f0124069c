"""costmodel.warmup: warm-up end, steady state and CI, curves, classes, bad input."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from costmodel.foundation.errors import AnalysisError
from costmodel.foundation.schema import Run, to_timeline
from costmodel.foundation.util import dumps
from costmodel.synthetic.shapes import generate
from costmodel.warmup import (
    analyze,
    analyze_runs,
    fit_model,
    mser,
    pelt_meanvar,
    ratio_ci,
    tau_int,
)

CONTRACT = ("run_id", "metric", "axis", "classification", "warmup_end_step", "warmup_end_t_s", "steady_mean",
            "steady_ci_low", "steady_ci_high", "steady_cv", "cold_mean", "curve", "lost_s", "segments", "role",
            "predicted", "n_points", "evidence")
CURVE_KEYS = ("model", "plateau", "initial", "tau_steps", "tau_s", "r2", "t95_steps", "t95_s", "t99_steps", "t99_s")


def run_of(df: pd.DataFrame, run_id: str = "r", role: str = "", fmt: str = "test") -> Run:
    return Run(run_id=run_id, table=to_timeline(df, run_id, role), format=fmt, source="test", role=role)


# ---- the bundled reference example -------------------------------------------------------------
@pytest.fixture(scope="module")
def example_fits(examples_dir):
    from costmodel.ingest import IngestOptions, load

    rem = load(examples_dir / "remote_steps.csv", IngestOptions(role="remote"))[0]
    col = load(examples_dir / "colocated_steps.csv", IngestOptions(role="colocated"))[0]
    return col, rem, analyze(col), analyze(rem)


def test_reference_remote_warms_up_between_batch_100_and_150(example_fits):
    _, _, _, fr = example_fits
    assert fr.classification == "warmup"
    assert 100 <= fr.warmup_end_step <= 150
    assert 115 <= fr.steady_mean <= 117
    assert fr.steady_ci_low < fr.steady_mean < fr.steady_ci_high
    assert 95 <= fr.cold_mean <= 105
    # about 100 cold steps at ~100 instead of ~116 samples/s, 384 samples per step:
    # 100 * 384/100 s - 100 * 384/116 s = 53 s, plus the warming phase
    assert 50 <= fr.lost_s <= 70
    assert 0.94 <= fr.steady_aux["cache_hit_ratio"] <= 0.96


def test_reference_colocated_is_flat_and_equivalent(example_fits):
    from costmodel.warmup import compare

    col, rem, fc, _ = example_fits
    assert fc.classification == "flat"
    assert fc.warmup_end_step == 0 and fc.lost_s == 0
    assert 115 <= fc.steady_mean <= 117
    c = compare([col], [rem], margin=0.02)
    assert c.equivalent and c.verdict == "equivalent"
    assert 0.98 < c.ratio_ci_low <= c.ratio <= c.ratio_ci_high < 1.02
    assert c.remote_extra_warmup_s > 300  # ~118 steps of ~3.5 s
    assert 0.94 <= c.remote_steady_hit_ratio <= 0.96
    assert 115 * 16384 <= c.remote_steady_read_bytes_per_s <= 117 * 16384  # samples/s x 16 KiB (issue 36)
    assert isinstance(c.colocated, list) and isinstance(c.remote, list)
    d = json.loads(dumps(c.to_dict()))
    for key in ("ratio", "ratio_ci_low", "ratio_ci_high", "equivalent", "margin", "remote_extra_warmup_s",
                "remote_lost_s", "colocated", "remote", "steady_slowdown_fraction", "remote_steady_hit_ratio",
                "remote_steady_read_bytes_per_s", "pooled"):
        assert key in d


# ---- ratio of sums and hand-computed numbers ------------------------------------------------------
def test_level_is_a_ratio_of_sums_not_a_mean_of_rates():
    y = np.array([100.0, 50.0] * 30)
    # no time information: every step did the same work -> harmonic mean 66.67, not 75
    r = analyze(pd.DataFrame({"step": np.arange(60), "samples_per_s": y}))
    assert r.classification == "flat"
    assert r.steady_mean == pytest.approx(200.0 / 3.0)
    assert r.time_source == "constant_work" and any("same work" in w for w in r.warnings)
    # with equal step durations the time-weighted level is the plain mean
    r2 = analyze(pd.DataFrame({"step": np.arange(60), "samples_per_s": y, "step_time_s": np.ones(60)}))
    assert r2.steady_mean == pytest.approx(75.0)
    assert r2.time_source == "step_time_s" and not r2.warnings


def test_lost_seconds_of_a_cold_phase_hand_computed():
    # 100 steps of 100 samples at 50 samples/s (2 s each), then 900 at 100 samples/s (1 s each)
    rng = np.random.default_rng(0)
    y = np.r_[np.full(100, 50.0), np.full(900, 100.0)] * (1 + 0.002 * rng.standard_normal(1000))
    d = 100.0 / y
    df = pd.DataFrame({"step": np.arange(1000), "samples_per_s": y, "t_s": np.cumsum(d)})
    r = analyze(df)
    assert r.classification == "warmup"
    assert abs(r.warmup_end_step - 100) <= 2
    # 200 s spent on 10,000 samples that take 100 s at the plateau: 100 s lost
    assert r.lost_s == pytest.approx(100.0, abs=2.0)
    assert r.warmup_end_t_s == pytest.approx(200.0, abs=4.0)
    assert r.cold_mean == pytest.approx(50.0, rel=0.01)
    assert r.curve["model"] == "step"


def test_fit_result_has_the_contract_keys_and_is_strict_json():
    s = generate(n=3000, shape="exp", warmup_frac=0.2, cv=0.02, ar=0.5, seed=11)
    d = json.loads(dumps(analyze(s.to_run("x", "remote")).to_dict()))
    for k in CONTRACT:
        assert k in d
    for k in CURVE_KEYS:
        assert k in d["curve"]
    assert d["role"] == "remote" and d["metric"] == "samples_per_s" and d["n_points"] == 3000
    assert all(set(seg) >= {"start_step", "end_step", "level"} for seg in d["segments"])
    assert d["segments"][0]["start_step"] == 0 and d["segments"][-1]["end_step"] == 2999


# ---- accuracy on known truth (a few seeds; the benchmark does hundreds) -------------------------------
@pytest.mark.parametrize("shape,seed", [("exp", 1), ("logistic", 2), ("ramp", 3), ("step", 4)])
def test_warmup_end_and_plateau_match_the_truth(shape, seed):
    s = generate(n=4000, shape=shape, warmup_frac=0.25, cv=0.02, ar=0.5, seed=seed)
    r = analyze(s.to_run())
    assert r.classification == "warmup"
    assert abs(r.warmup_end_step - s.truth.warmup_end_step) <= 0.02 * 4000
    assert r.steady_mean == pytest.approx(s.truth.plateau_effective, rel=0.003)
    assert r.curve["model"] == shape


def test_exponential_curve_tau_in_steps_and_seconds():
    s = generate(n=4000, shape="exp", plateau=1000.0, initial=500.0, warmup_frac=0.25, cv=0.005, seed=5)
    tau_true = 1000 / np.log(500 / 10)
    r = analyze(s.to_run())
    assert r.curve["tau_steps"] == pytest.approx(tau_true, rel=0.05)
    assert r.curve["plateau"] == pytest.approx(1000.0, rel=0.002)
    assert r.curve["initial"] == pytest.approx(500.0, rel=0.02)
    # t99 by the curve is the warm-up end by construction (1000 steps)
    assert r.curve["t99_steps"] == pytest.approx(1000, rel=0.05)
    assert r.curve["t95_steps"] < r.curve["t99_steps"]
    # seconds: elapsed time at those steps
    t = s.table["t_s"].to_numpy()
    assert r.curve["tau_s"] == pytest.approx(t[int(round(tau_true))], rel=0.06)
    r_t = analyze(s.to_run(), axis="t_s")
    assert r_t.axis == "t_s"
    assert r_t.curve["tau_s"] == pytest.approx(r.curve["tau_s"], rel=0.1)
    assert abs(r_t.warmup_end_step - s.truth.warmup_end_step) <= 80


def test_noiseless_exponential_fit_is_exact():
    x = np.arange(400, dtype=float)
    y = 1000 - 600 * np.exp(-x / 37.0)
    f = fit_model("exp", x, y)
    assert f.plateau == pytest.approx(1000, rel=1e-6)
    assert f.initial == pytest.approx(400, rel=1e-6)
    assert f.params()["tau"] == pytest.approx(37.0, rel=1e-4)
    assert f.tau() == pytest.approx(37.0, rel=1e-4)
    assert f.time_within(0.01) == pytest.approx(37.0 * np.log(60), rel=1e-4)


@pytest.mark.parametrize("kind,seed", [("slowdown", 1), ("invalidation", 2), ("no_steady_state", 3), ("dips", 4)])
def test_classes(kind, seed):
    s = generate(n=3000, shape="exp", warmup_frac=0.15, kind=kind, cv=0.02, ar=0.5, seed=seed)
    r = analyze(s.to_run())
    assert r.classification == kind
    assert r.evidence["rule"]
    if kind == "no_steady_state":
        assert r.steady_mean is None and r.steady_ci_low is None and r.warmup_end_step is None
    if kind == "dips":
        assert r.evidence["dips_periodic"]
        assert r.evidence["dip_period_steps"] == pytest.approx(s.truth.dip_period, rel=0.02)
        # the effective level counts the dips; the baseline level does not
        assert r.steady_mean < r.steady_mean_baseline
        assert r.steady_mean == pytest.approx(s.truth.plateau_effective, rel=0.005)
    if kind == "invalidation":
        # the cache fell back at step 1200 and the re-warm is fitted on its own
        assert r.evidence["episode_start_step"] == pytest.approx(1200, abs=15)
        assert abs(r.warmup_end_step - s.truth.warmup_end_step) <= 0.02 * 3000
        assert r.curve["model"] == "exp"


def test_flat_with_strong_autocorrelation_and_outliers_is_flat():
    s = generate(n=3000, shape="flat", warmup_frac=0.0, cv=0.04, ar=0.8, outlier_frac=0.01, seed=8)
    r = analyze(s.to_run())
    assert r.classification == "flat"
    assert r.warmup_end_step == 0
    assert r.evidence["outliers"] >= 20
    assert r.steady_ci_low <= s.truth.plateau_effective <= r.steady_ci_high


# ---- statistics -------------------------------------------------------------------------------
def test_batch_means_ci_covers_under_ar08_where_iid_does_not():
    from scipy.signal import lfilter

    rng = np.random.default_rng(1)
    hits = hits_iid = 0
    reps = 200
    for _ in range(reps):
        e = rng.standard_normal(2000) * 0.02 * np.sqrt(1 - 0.64)
        x = lfilter([1.0], [1.0, -0.8], e)
        d = 1.0 + x  # step times around 1 s, 1 sample each: true level 1.0
        w = np.ones(2000)
        ci = ratio_ci(w, d)
        hits += ci.ci_low <= 1.0 <= ci.ci_high
        y = w / d
        se = y.std(ddof=1) / np.sqrt(len(y))
        hits_iid += abs(y.mean() - 1.0) <= 1.96 * se
    assert 0.90 <= hits / reps <= 0.99
    assert hits_iid / reps < 0.75


def test_tau_int_of_ar1():
    from scipy.signal import lfilter

    rng = np.random.default_rng(2)
    x = lfilter([1.0], [1.0, -0.7], rng.standard_normal(200_000))
    assert tau_int(x) == pytest.approx(1.7 / 0.3, rel=0.1)
    assert tau_int(rng.standard_normal(10_000)) == pytest.approx(1.0, abs=0.15)


def test_mser5_and_pelt_find_a_step():
    rng = np.random.default_rng(3)
    y = np.r_[np.full(300, 10.0), np.full(700, 20.0)] + 0.5 * rng.standard_normal(1000)
    d, valid = mser(y, 5)
    assert valid and abs(d - 300) <= 5
    z = np.r_[np.full(100, 0.0), np.full(150, 5.0), np.full(250, 2.0)] + rng.standard_normal(500) * 0.3
    cps = pelt_meanvar(z, pen=15 * np.log(500))
    assert len(cps) == 2 and abs(cps[0] - 100) <= 1 and abs(cps[1] - 250) <= 1
    # a stationary series: MSER truncates nothing of note, PELT finds nothing
    w = rng.standard_normal(1000)
    assert mser(w, 5)[0] <= 50
    assert pelt_meanvar(w, pen=15 * np.log(1000)) == []


# ---- metric choice, multipass, bad input ----------------------------------------------------------
def test_metric_falls_back_and_says_which():
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"step": np.arange(200), "read_bytes_per_s": 1e9 * (1 + 0.01 * rng.standard_normal(200))})
    r = analyze(df)
    assert r.metric == "read_bytes_per_s"
    assert r.steady_mean == pytest.approx(1e9, rel=0.005)


def test_multipass_two_passes_is_too_short_with_an_honest_speedup():
    gib = 2.0**30
    df = pd.DataFrame({"step": [1, 2], "bytes_read": [0.78 * gib] * 2, "step_time_s": [0.45, 0.18],
                       "read_bytes_per_s": [0.78 * gib / 0.45, 0.78 * gib / 0.18], "t_s": [0.45, 0.63]})
    r = analyze(run_of(df, fmt="benchtext"))
    assert r.classification == "too_short"
    mp = r.multipass
    assert mp["passes"] == 2 and mp["too_short"]
    assert mp["cold_bytes_per_s"] == pytest.approx(0.78 * gib / 0.45)
    assert mp["warm_bytes_per_s"] == pytest.approx(0.78 * gib / 0.18)
    assert mp["speedup"] == pytest.approx(2.5)
    assert "page cache" in mp["note"] and "single observation" in mp["note"]
    assert r.steady_mean is None


def test_multipass_several_passes_gives_spread():
    gib = 2.0**30
    t = np.array([0.45, 0.18, 0.19, 0.18, 0.17, 0.18])
    df = pd.DataFrame({"step": np.arange(1, 7), "step_time_s": t, "read_bytes_per_s": 0.78 * gib / t})
    r = analyze(run_of(df, fmt="benchtext"))
    mp = r.multipass
    assert not mp["too_short"]
    assert mp["warm_bytes_per_s"] == pytest.approx(5 * 0.78 * gib / t[1:].sum())
    assert mp["warm_cv"] > 0


def test_too_few_points_is_too_short_without_made_up_numbers():
    r = analyze(pd.DataFrame({"step": np.arange(10), "samples_per_s": np.linspace(90, 100, 10)}))
    assert r.classification == "too_short"
    assert r.steady_mean is None and r.steady_ci_low is None and r.warmup_end_step is None
    assert "at least 20" in r.evidence["reason"]


def test_constant_series_is_too_short_with_a_reason():
    r = analyze(pd.DataFrame({"step": np.arange(100), "samples_per_s": np.full(100, 116.0)}))
    assert r.classification == "too_short"
    assert "constant" in r.evidence["reason"]
    assert r.steady_ci_low is None


def test_missing_or_empty_metric_raises_analysis_error():
    df = pd.DataFrame({"step": np.arange(50), "samples_per_s": np.full(50, np.nan), "gpu_util": np.full(50, 0.9)})
    with pytest.raises(AnalysisError, match="samples_per_s"):
        analyze(df, metric="samples_per_s")
    with pytest.raises(AnalysisError, match=r"no column 'tokens_per_s'.*gpu_util"):
        analyze(df, metric="tokens_per_s")
    with pytest.raises(AnalysisError, match="none of samples_per_s"):
        analyze(df)
    with pytest.raises(AnalysisError, match="axis"):
        analyze(df, metric="gpu_util", axis="epoch")
    with pytest.raises(AnalysisError, match="no runs"):
        analyze_runs([])
    with pytest.raises(AnalysisError, match="t_s"):
        analyze(pd.DataFrame({"samples_per_s": np.linspace(1, 2, 50)}), axis="t_s")


def test_nan_rows_are_dropped_and_counted():
    s = generate(n=500, shape="flat", warmup_frac=0, cv=0.01, seed=1)
    df = s.table.copy()
    df.loc[10:19, "samples_per_s"] = np.nan
    df = df.drop(columns=["step_time_s"])
    r = analyze(df)
    assert r.n_points == 490
    assert any("10 observation" in w for w in r.warnings)


def test_compare_bad_input_and_verdicts():
    from costmodel.warmup import compare

    a = generate(n=2000, shape="flat", warmup_frac=0, cv=0.01, ar=0.5, seed=1).to_run("a")
    b = generate(n=2000, shape="flat", warmup_frac=0, plateau=900.0, cv=0.01, ar=0.5, seed=2).to_run("b")
    with pytest.raises(AnalysisError, match="at least one"):
        compare([], [b])
    with pytest.raises(AnalysisError, match="margin"):
        compare([a], [b], margin=2.0)
    c = compare([a], [b])
    assert not c.equivalent and c.verdict == "different"
    assert c.ratio == pytest.approx(0.9, rel=0.005)
    assert c.steady_slowdown_fraction == pytest.approx(0.1, abs=0.005)
    assert c.remote_steady_hit_ratio is None  # the column is absent
    # repetitions: pooled run means and run-to-run spread
    reps = [generate(n=1500, shape="flat", warmup_frac=0, cv=0.01, ar=0.5, seed=10 + i).to_run(f"r{i}") for i in range(3)]
    c2 = compare(reps, reps)
    assert c2.ratio == pytest.approx(1.0)
    assert c2.pooled["remote"]["unit_of_replication"] == "runs"
    assert c2.pooled["remote"]["run_cv"] is not None
    assert len(c2.remote) == 3


def test_deterministic():
    s = generate(n=2000, shape="logistic", warmup_frac=0.2, cv=0.02, ar=0.5, outlier_frac=0.01, seed=21)
    assert dumps(analyze(s.to_run()).to_dict()) == dumps(analyze(s.to_run()).to_dict())


# ---- robustness: any input gives a result or an AnalysisError, never a crash --------------------------
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

_values = st.one_of(
    st.floats(min_value=-10, max_value=1e6),
    st.sampled_from([0.0, 100.0, np.nan, np.inf, -np.inf]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_values, min_size=0, max_size=120), st.booleans())
def test_any_series_gives_a_result_or_an_analysis_error(values, with_time):
    df = pd.DataFrame({"step": np.arange(len(values)), "samples_per_s": np.array(values, dtype=float)})
    if with_time:
        df["t_s"] = np.arange(1, len(values) + 1, dtype=float)
    try:
        r = analyze(df)
    except AnalysisError as exc:
        assert str(exc)
        return
    d = json.loads(dumps(r.to_dict()))
    assert d["classification"] in ("flat", "warmup", "slowdown", "no_steady_state", "dips", "invalidation",
                                   "too_short")
    if d["steady_mean"] is not None:
        assert d["steady_ci_low"] <= d["steady_mean"] <= d["steady_ci_high"]
        assert np.isfinite(d["steady_mean"])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(20, 400), st.integers(0, 10_000),
       st.lists(st.tuples(st.floats(0, 1), st.sampled_from([np.nan, 0.0, -5.0, 1e9, np.inf])), max_size=20))
def test_corrupted_series_never_crash(n, seed, corruptions):
    s = generate(n=n, shape="exp", warmup_frac=0.3, cv=0.03, ar=0.5, seed=seed)
    df = s.table.drop(columns=["step_time_s"]).copy()
    y = df["samples_per_s"].to_numpy().copy()
    for pos, val in corruptions:
        y[int(pos * (n - 1))] = val
    df["samples_per_s"] = y
    try:
        r = analyze(df)
    except AnalysisError:
        return
    d = json.loads(dumps(r.to_dict()))
    if d["steady_mean"] is not None:
        assert d["steady_ci_low"] <= d["steady_mean"] <= d["steady_ci_high"]


# ---- real outputs written by other people ----------------------------------------------------------
def test_real_mlperf_storage_rank_log_has_epoch_boundary_dips(real_dir):
    """MLPerf Storage v1.0 (HPE, unet3d, rank 4): 571 steps per epoch, the first step of each epoch
    waits 2-3.4 s for data; the analysis finds the short warm-up and the once-per-epoch stalls."""
    from costmodel.ingest import load

    run = load(real_dir / "mlperf_storage/v1.0/HPE_unet3d_h100/run-2/4_output.json")[0]
    r = analyze(run)
    assert r.n_points == 2855
    assert r.classification == "dips"
    assert r.evidence["dip_period_steps"] == 571
    assert r.warmup_end_step <= 20
    assert 0 < r.dip_loss_fraction < 0.05
    assert r.steady_ci_low < r.steady_mean < r.steady_ci_high < r.steady_mean_baseline * 1.01
