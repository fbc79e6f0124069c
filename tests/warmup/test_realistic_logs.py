"""Warm-up analysis on logs as they really look (issue 15): real fixtures and the realistic generator."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from costmodel.synthetic.training_logs import KINDS, generate_realistic, realistic_suite
from costmodel.warmup import analyze, compare


def _load(path):
    from costmodel.commands.fit import load_runs

    return load_runs([str(path)])


# ------------------------------------------------------------------------------- real fixtures
def test_dlio_iostat_is_periodic_not_slowdown(real_dir):
    (run,) = _load(real_dir / "dlio" / "iostat.json")
    f = analyze(run)
    assert f.classification == "dips"  # four read bursts with idle gaps: periodic stalls
    assert 30 <= f.period_steps <= 38
    # the level spans whole burst+gap periods: about 1.08 GB/s, and a CI far tighter than 0.19-1.74 GB/s
    assert 0.95e9 <= f.steady_mean <= 1.2e9
    assert f.steady_ci_low > 0.8e9 and f.steady_ci_high < 1.35e9


@pytest.mark.parametrize("name", ["0_output.json", "1_output.json"])
def test_dlio_epoch_first_step_stall_is_periodic_not_warmup(real_dir, name):
    (run,) = _load(real_dir / "dlio" / name)
    f = analyze(run)
    assert f.classification == "dips"
    assert f.period_steps == pytest.approx(21.0)
    assert f.warmup_end_step == 1 and f.lost_s == 0.0
    # four whole epochs: the level is all samples over all seconds, the load stalls included
    t = run.table
    level = float(t["samples"].sum() / t["step_time_s"].sum())
    assert f.steady_mean == pytest.approx(level, rel=1e-9)


def test_bert_log_with_eleven_flat_points_is_a_warmup(real_dir):
    (run,) = _load(real_dir / "training_logs" / "huggingface_bert_pretraining_output.txt")
    f = analyze(run)
    assert f.classification == "warmup"
    assert 12 <= f.warmup_end_step <= 14
    assert f.steady_mean == pytest.approx(32.83, abs=0.05)
    assert f.steady_ci_low < f.steady_mean < f.steady_ci_high


def test_step_time_only_real_log_is_not_refused(real_dir):
    (run,) = _load(real_dir / "training_logs" / "t2t_gpu_output.txt")
    f = analyze(run)
    assert f.metric == "step_time_s" and f.metric_direction == "lower_is_better"


# ------------------------------------------------------------------------------- generator
def test_generator_truth_and_determinism():
    a = generate_realistic(kind="warmup", n=4000, ckpt_every=500, seed=1)
    b = generate_realistic(kind="warmup", n=4000, ckpt_every=500, seed=1)
    assert a.table.equals(b.table) and a.truth == b.truth
    assert a.truth.classification == "dips" and a.truth.period_steps == 500
    # plateau = work over time including stalls: batch / (batch / S + stall seconds per step)
    assert a.truth.plateau < 1000.0
    assert {p["kind"] for p, _ in realistic_suite(12)} == set(KINDS)
    d = generate_realistic(kind="drift", n=4000, seed=2)
    assert d.truth.classification == "no_steady_state" and d.truth.warmup_end_step is None
    assert d.truth.drift_per_1k_steps < 0


@pytest.mark.parametrize("seed", [3, 4])
def test_long_run_checkpoint_dips_found_and_window_early(seed):
    s = generate_realistic(kind="warmup", n=50_000, warmup_frac=0.1, ckpt_every=1000, ckpt_steps=20.0,
                           cv=0.02, ar=0.5, seed=seed)
    f = analyze(s.to_run())
    assert f.classification == "dips"
    assert f.period_steps == pytest.approx(1000, rel=0.03)
    assert abs(f.warmup_end_step - s.truth.warmup_end_step) <= 0.05 * 50_000
    assert f.steady_start_step < 0.3 * 50_000  # not at 55-60 % of the run
    assert f.steady_mean == pytest.approx(s.truth.plateau, rel=0.005)


@pytest.mark.parametrize("seed", range(6))
def test_epoch_stalls_level_not_biased_by_window_start(seed):
    # one stall per 500-step epoch worth 6 steps: a window holding one stall fewer is 1.2 % too high
    s = generate_realistic(kind="flat", n=6000 + 97 * seed, epoch_steps=500, epoch_stall_steps=6.0, cv=0.01,
                           ar=0.5, seed=100 + seed)
    f = analyze(s.to_run())
    assert f.classification == "dips" and f.period_steps == pytest.approx(500)
    assert f.steady_mean == pytest.approx(s.truth.plateau, rel=0.002)


def test_slow_drift_is_no_steady_state_with_a_rate():
    s = generate_realistic(kind="drift", n=10_000, warmup_frac=0.1, drift_total=-0.06, cv=0.01, ar=0.5, seed=7)
    f = analyze(s.to_run())
    assert f.classification == "no_steady_state"
    assert f.steady_mean is None
    assert f.drift_per_1k_steps == pytest.approx(s.truth.drift_per_1k_steps, rel=0.5)
    assert f.drift_per_1k_steps < 0


def test_a_real_slowdown_is_still_a_slowdown():
    s = generate_realistic(kind="slowdown", n=10_000, cv=0.01, ar=0.5, seed=8)
    f = analyze(s.to_run())
    assert f.classification == "slowdown"


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_overshoot_is_a_warmup_ending_where_it_settles(seed):
    s = generate_realistic(kind="overshoot", n=10_000, warmup_frac=0.2, overshoot=0.06, cv=0.01, ar=0.5, seed=seed)
    f = analyze(s.to_run())
    assert f.classification == "warmup"
    assert abs(f.warmup_end_step - s.truth.warmup_end_step) <= 0.05 * 10_000
    assert f.steady_mean == pytest.approx(s.truth.plateau, rel=0.005)


# ------------------------------------------------------------------------------- direction
def test_step_time_only_log_is_time_per_step_in_the_right_direction():
    s = generate_realistic(kind="warmup", n=5000, warmup_frac=0.2, step_time_only=True, log_every=10, cv=0.01,
                           seed=21)
    assert "samples_per_s" not in s.table.columns
    f = analyze(s.to_run())  # no --metric: step_time_s is picked, not refused
    assert f.metric == "step_time_s" and f.metric_direction == "lower_is_better"
    assert f.classification == "warmup"  # a falling step time is a warm-up, not a slowdown
    # level = mean step time over the steady window: sum(d) / steps
    t = s.table
    tail = t[t["step"] > f.steady_start_step - 10]
    assert f.steady_mean == pytest.approx(float(tail["step_time_s"].mean()), rel=1e-9)
    assert f.steady_ci_low < f.steady_mean < f.steady_ci_high
    assert f.steady_mean == pytest.approx(s.truth.plateau_step_time_s, rel=0.005)


def test_compare_on_step_time_is_a_throughput_like_ratio():
    a = generate_realistic(kind="flat", n=5000, step_time_only=True, cv=0.01, seed=31)
    b = generate_realistic(kind="flat", n=5000, step_time_only=True, cv=0.01, plateau=1000 / 1.05, seed=32)
    c = compare([a.to_run("a", "colocated")], [b.to_run("b", "remote")], margin=0.02)
    assert c.metric_direction == "lower_is_better"
    # remote 5 % slower (its step time 1.05x): ratio = co-located time / remote time ~ 0.952, below 1
    assert c.ratio == pytest.approx(1 / 1.05, rel=0.005)
    assert c.ratio_ci_low < c.ratio < c.ratio_ci_high < 1.0
    assert c.steady_slowdown_fraction == pytest.approx(1 - 1 / 1.05, abs=0.005)
    assert c.verdict == "different"
    assert c.min_detectable_margin is not None and 0 < c.min_detectable_margin < 0.02


def test_cli_fit_and_compare_json_keys(tmp_path):
    a = generate_realistic(kind="flat", n=3000, epoch_steps=500, cv=0.01, seed=41)
    b = generate_realistic(kind="warmup", n=3000, epoch_steps=500, cv=0.01, seed=42)
    pa, pb = tmp_path / "a.csv", tmp_path / "b.csv"
    a.table.to_csv(pa, index=False)
    b.table.to_csv(pb, index=False)
    out = subprocess.run([sys.executable, "-m", "costmodel", "fit", "--json", str(pa)], capture_output=True,
                         text=True, check=True)
    (fit,) = json.loads(out.stdout)
    assert fit["metric_direction"] == "higher_is_better"
    assert fit["period_steps"] == pytest.approx(500)
    assert "drift_per_1k_steps" in fit and abs(fit["drift_per_1k_steps"]) < 0.005
    out = subprocess.run([sys.executable, "-m", "costmodel", "compare", "--json", "--colocated", str(pa),
                          "--remote", str(pb)], capture_output=True, text=True, check=True)
    cmp = json.loads(out.stdout)
    assert cmp["min_detectable_margin"] > 0 and cmp["metric_direction"] == "higher_is_better"
    assert np.isfinite(cmp["ratio"])
