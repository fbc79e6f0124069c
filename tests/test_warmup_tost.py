"""compare's TOST is conservative: 10-long-batch standard errors and Hsu's min(df) degrees of freedom."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from costmodel.synth import generate
from costmodel.warmup import analyze, compare


def _pair(seed: int, ratio: float = 1.02, ar: float = 0.8, steady: int = 2500):
    a = generate(n=steady, shape="flat", warmup_frac=0.0, plateau=1000.0, cv=0.03, ar=ar, seed=seed)
    b = generate(n=int(steady / 0.8), shape="exp", warmup_frac=0.2, plateau=1000.0 * ratio, cv=0.03, ar=ar,
                 seed=seed + 1)
    return analyze(a.to_run("a", "colocated")), analyze(b.to_run("b", "remote"))


def test_single_runs_use_hsu_df_and_the_larger_standard_error():
    fa, fb = _pair(50_000)
    assert fa.steady_df_10 == 9 and fb.steady_df_10 == 9
    c = compare([fa], [fb], margin=0.02)
    # Hsu: df = min of the sides' (9 each), not Welch-Satterthwaite's (about 18-40 here)
    assert c.df == 9.0
    rel = [np.hypot(max(f.steady_se, f.steady_se_10), f.steady_bias_bound or 0.0) / f.steady_mean for f in (fa, fb)]
    assert c.se_log_ratio == pytest.approx(float(np.hypot(*rel)), rel=1e-12)
    assert c.se_log_ratio >= float(np.hypot(fa.steady_se / fa.steady_mean, fb.steady_se / fb.steady_mean))
    theta = np.log(c.ratio)
    t90 = stats.t.ppf(0.95, 9)
    assert c.ratio_ci90_low == pytest.approx(np.exp(theta - t90 * c.se_log_ratio), rel=1e-12)
    L = np.log(1.02)
    assert c.equivalent == bool(theta - t90 * c.se_log_ratio > -L and theta + t90 * c.se_log_ratio < L)


@pytest.mark.parametrize("seed", [50_000, 50_074])
def test_margin_pairs_the_welch_test_called_equivalent_are_not(seed):
    # true ratio 1.02 (on the margin), AR 0.8: pairs a Welch-df / 10-30-batch TOST called "equivalent"
    fa, fb = _pair(seed)
    c = compare([fa], [fb], margin=0.02)
    assert not c.equivalent
    # ... and the old computation would have said yes (the regression this guards against)
    rel = [np.hypot(f.steady_se, f.steady_bias_bound or 0.0) / f.steady_mean for f in (fa, fb)]
    se = float(np.hypot(*rel))
    dfw = (rel[0] ** 2 + rel[1] ** 2) ** 2 / (rel[0] ** 4 / fa.steady_df + rel[1] ** 4 / fb.steady_df)
    t = stats.t.ppf(0.95, dfw)
    theta = np.log(fb.steady_mean / fa.steady_mean)
    assert abs(theta) + t * se < np.log(1.02)


def test_equal_runs_still_equivalent():
    fa, fb = _pair(60_000, ratio=1.0, ar=0.5, steady=1000)
    c = compare([fa], [fb], margin=0.02)
    assert c.equivalent and c.df == 9.0
