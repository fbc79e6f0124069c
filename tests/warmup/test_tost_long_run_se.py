"""compare's TOST: long-run (overlapping batch means) standard errors, Welch df, calibrated at the margin."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from costmodel.synthetic.shapes import generate
from costmodel.warmup import analyze, compare
from costmodel.warmup.stats import longrun_ratio_se


def _pair(seed: int, ratio: float = 1.02, ar: float = 0.8, steady: int = 2500):
    a = generate(n=steady, shape="flat", warmup_frac=0.0, plateau=1000.0, cv=0.03, ar=ar, seed=seed)
    b = generate(n=int(steady / 0.8), shape="exp", warmup_frac=0.2, plateau=1000.0 * ratio, cv=0.03, ar=ar,
                 seed=seed + 1)
    return analyze(a.to_run("a", "colocated")), analyze(b.to_run("b", "remote"))


def test_single_runs_use_the_long_run_error_and_welch_df():
    fa, fb = _pair(50_000)
    c = compare([fa], [fb], margin=0.02)
    rel = [np.hypot(f.steady_se_lr, f.steady_bias_bound or 0.0) / f.steady_mean for f in (fa, fb)]
    assert c.se_log_ratio == pytest.approx(float(np.hypot(*rel)), rel=1e-12)
    dfw = (rel[0] ** 2 + rel[1] ** 2) ** 2 / (rel[0] ** 4 / fa.steady_df_lr + rel[1] ** 4 / fb.steady_df_lr)
    assert c.df == pytest.approx(dfw, rel=1e-9)
    theta = np.log(c.ratio)
    t90 = stats.t.ppf(0.95, c.df)
    assert c.ratio_ci90_low == pytest.approx(np.exp(theta - t90 * c.se_log_ratio), rel=1e-12)
    L = np.log(1.02)
    assert c.equivalent == bool(theta - t90 * c.se_log_ratio > -L and theta + t90 * c.se_log_ratio < L)
    # power: the smallest margin shown with 80 % probability at a true ratio of 1
    t80 = stats.t.ppf(0.90, c.df)
    assert c.min_detectable_margin == pytest.approx(np.expm1((t90 + t80) * c.se_log_ratio), rel=1e-12)
    assert c.smallest_equivalent_margin == pytest.approx(np.expm1(abs(theta) + t90 * c.se_log_ratio), rel=1e-12)
    assert 0 < c.min_detectable_margin < 0.02


def test_long_run_error_is_calibrated_under_ar_08():
    # 200 AR(1) 0.8 series of 2,500 steps: the estimated standard error matches the real spread of the level
    from costmodel.synthetic.shapes import _ar1

    rng = np.random.default_rng(5)
    z = []
    for _ in range(200):
        d = 0.25 * (1.0 + _ar1(rng, 2500, 0.8, 0.03))
        w = np.full(2500, 256.0)
        lr = longrun_ratio_se(w, d)
        R = w.sum() / d.sum()
        z.append((R - 1024.0) / lr.se)
    sd = float(np.std(z))
    assert 0.85 <= sd <= 1.15, sd


@pytest.mark.slow  # 120 fits of 2,500-3,125 steps: 1-3 minutes on 2 cores (make pytest-fast leaves it out, CI runs it)
def test_margin_false_equivalence_at_most_about_five_percent():
    # true ratio 1.02 (on the margin), AR 0.8: a level-5 % test says "equivalent" at most ~5 % of the time
    calls = [compare(*[[f] for f in _pair(50_000 + 2 * i)], margin=0.02).equivalent for i in range(60)]
    assert sum(calls) <= 6  # 10 % of 60: the bench measures 5.3 % on 300 pairs


def test_equal_runs_still_equivalent():
    fa, fb = _pair(60_000, ratio=1.0, ar=0.5, steady=1000)
    c = compare([fa], [fb], margin=0.02)
    assert c.equivalent and c.df > 9.0
