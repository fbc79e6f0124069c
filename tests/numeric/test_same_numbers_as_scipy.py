"""costmodel.numeric stands in for SciPy functions at start-up: each must give SciPy's numbers to the bit
(the report, fit and cost JSON are byte-reproducible, and no figure may move because a verb starts faster).
Student's t beyond SciPy's tabled quantiles is computed, not copied: within 1e-12 of SciPy there, and equal to the
closed forms where SciPy is the less exact of the two."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
import scipy.optimize as so
from scipy import stats as scipy_stats
from scipy.ndimage import median_filter as scipy_median_filter

from costmodel.foundation.errors import AnalysisError
from costmodel.numeric import stats
from costmodel.numeric.filters import median_filter
from costmodel.numeric.optimize import minimize, minimize_scalar
from costmodel.numeric.robust import isotonic_regression, theilslopes
from costmodel.numeric.roots import brentq


def test_brentq_same_root_and_same_failures():
    rng = np.random.default_rng(0)
    seen = {"root": 0, "sign": 0, "no convergence": 0}
    for t in range(600):
        c, p, s = rng.normal(0, 10), int(rng.integers(1, 6)), float(rng.choice([-1, 1]))

        def f(x, c=c, p=p, s=s, t=t):
            return s * (x - c) ** p * (np.sign(x - c) if p % 2 == 0 else 1) + (1e-3 * math.sin(x) if t % 3 else 0)
        a, b = c - rng.uniform(0, 50), c + rng.uniform(0, 50) * float(rng.choice([1, -0.01]))
        kw = {"xtol": float(rng.choice([1e-12, 1e-9])), "rtol": float(rng.choice([1e-12, 8.881784197001252e-16]))}
        try:
            want = so.brentq(f, a, b, **kw)
        except ValueError:
            want = "sign"
        except RuntimeError:
            want = "no convergence"
        try:
            got = brentq(f, a, b, **kw)
        except ValueError:
            got = "sign"
        except AnalysisError:
            got = "no convergence"
        assert got == want, (t, a, b, kw)
        seen["root" if isinstance(want, float) else want] += 1
    assert min(seen.values()) > 10, seen
    with pytest.raises(ValueError, match="NaN"):
        brentq(lambda x: float("nan"), 0.0, 1.0)


def test_nelder_mead_and_bounded_minimum_are_scipys():
    rng = np.random.default_rng(1)
    for t in range(120):
        c, s = rng.normal(0, 3, 3), rng.uniform(0.1, 5, 3)

        def f(p, c=c, s=s, t=t):
            return float(np.sum(s[:len(p)] * (p - c[:len(p)]) ** 2) + np.sin(3 * p[0])
                         + (np.inf if t % 17 == 0 and p[0] > c[0] + 1 else 0))
        for dim in (1, 2, 3):
            x0 = rng.normal(0, 2, dim)
            opts = {"xatol": 1e-4, "fatol": 1e-9, "maxiter": int(rng.choice([20, 200]))}
            with np.errstate(invalid="ignore"):  # inf - inf where f is inf (both warn alike)
                want = so.minimize(f, x0, method="Nelder-Mead", options=opts)
                got = minimize(f, x0, method="Nelder-Mead", options=opts)
            assert np.array_equal(got.x, want.x) and got.fun == want.fun and got.nfev == want.nfev

        def g(v, c=c, s=s):
            return float(s[0] * (v - c[0]) ** 2 + np.sin(5 * v))
        lo = float(c[0] - rng.uniform(0, 4))
        hi = lo + float(rng.uniform(0.001, 8))
        want = so.minimize_scalar(g, bounds=(lo, hi), method="bounded", options={"xatol": 1e-5})
        got = minimize_scalar(g, bounds=(lo, hi), method="bounded", options={"xatol": 1e-5})
        assert (got.x, got.fun, got.nfev) == (want.x, want.fun, want.nfev)


def test_theil_sen_and_isotonic_fit_are_scipys():
    rng = np.random.default_rng(2)
    for t in range(400):
        n = int(rng.integers(1, 250))
        y = np.cumsum(rng.normal(0, 1, n)) * rng.choice([1, 0.01]) + rng.normal(0, 1, n)
        if t % 5 == 0:
            y = np.round(y)  # ties
        for increasing in (True, False):
            want = so.isotonic_regression(y, increasing=increasing)
            got = isotonic_regression(y, increasing=increasing)
            assert np.array_equal(got.x, want.x)
            assert np.array_equal(got.weights, want.weights) and np.array_equal(got.blocks, want.blocks)
        if n >= 2:
            x = np.sort(rng.choice(10_000, n, replace=False)).astype(float)
            if t % 7 == 0:
                x = np.round(x / 2_000)  # repeated x
            want_ts = scipy_stats.theilslopes(y, x)
            got_ts = theilslopes(y, x)
            assert (got_ts[0], got_ts[1]) == (want_ts[0], want_ts[1])


@pytest.mark.parametrize("q", [0.9, 0.95, 0.975, 0.5, 0.995, 0.0, 1.0])
def test_t_quantiles_from_the_table_and_beyond_it(q):
    for df in range(1, 121):  # the table: SciPy's own numbers, to the bit
        if q in stats.T_PPF:
            assert stats.t.ppf(q, df) == float(scipy_stats.t.ppf(q, df)), (q, df)
    for df in [*range(1, 130), 1.5, 2.7, 33.3, 257.9, 1999.9, 2000.0, 7777.7, 1e6, 3e9]:
        want = float(scipy_stats.t.ppf(q, df))
        got = stats.t.ppf(q, df)
        assert got == want or abs(got - want) <= 1e-12 * abs(want), (q, df, got, want)
    assert math.isnan(stats.t.ppf(q, 0)) and math.isnan(stats.t.ppf(1.5, 3))


def test_t_tail_probabilities():
    for x in np.linspace(-10, 10, 41):
        for df in (1, 2.5, 10, 100, 1234.5, 5e4, 2e7):
            want = float(scipy_stats.t.sf(x, df))
            got = stats.t.sf(x, df)
            assert abs(got - want) <= 1e-12 * want, (x, df, got, want)


def test_t_against_closed_forms_where_scipy_is_not_the_truth():
    """df = 1 (Cauchy) and df = 2 have closed forms; near the centre SciPy's ``stdtr`` is off by 3e-9 (df = 1,
    x = 1e-8), the pure-Python tail is not."""
    for x in (1e-8, 0.01, 0.3, 1.0, 2.0, 7.5, 40.0):
        assert stats.t.sf(x, 1) == pytest.approx(0.5 - math.atan(x) / math.pi, rel=1e-14)
        assert stats.t.sf(x, 2) == pytest.approx(0.5 - x / (2 * math.sqrt(2 + x * x)), rel=1e-14)
    for p in (0.6, 0.8, 0.9, 0.99, 0.999999):
        assert stats.t.ppf(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-13)
        assert stats.t.ppf(p, 1) == pytest.approx(1.0 / math.tan(math.pi * (1.0 - p)), rel=1e-13)  # 1 - p exact
    assert stats.t.ppf(0.975, math.inf) == pytest.approx(1.959963984540054, rel=1e-15)
    assert stats.t.sf(2.0, math.inf) == pytest.approx(0.5 * math.erfc(2.0 / math.sqrt(2.0)), rel=1e-15)


def test_no_scipy_for_the_t_distribution():
    code = ("import sys; from costmodel.numeric import stats; "
            "stats.t.ppf(0.975, 37.3); stats.t.sf(2.1, 12.5); stats.t.ppf(0.95, 1e5); "
            "print(sorted(m for m in sys.modules if m.startswith('scipy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_median_filter_numpy_path_and_scipy_path_agree_with_ndimage():
    rng = np.random.default_rng(3)
    for t in range(500):
        n, size = int(rng.integers(1, 3000)), int(rng.integers(0, 80)) * 2 + 1
        y = rng.normal(0, 1, n)
        if t % 3 == 0:
            y = np.round(y * 3)  # ties
        assert np.array_equal(median_filter(y, size), scipy_median_filter(y, size=size, mode="reflect"))
    big = rng.normal(0, 1, 200_000)  # over NUMPY_MAX_ELEMENTS: SciPy's C filter
    assert np.array_equal(median_filter(big, 51), scipy_median_filter(big, size=51, mode="reflect"))
    with pytest.raises(ValueError, match="odd"):
        median_filter(big, 50)
