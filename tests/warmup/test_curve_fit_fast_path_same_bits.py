"""The curve fits' fast path (issue 42: `fit` with >= 150x less CPU than ruptures PELT) computes the same numbers
to the bit as the plain formulas it replaced: grid bases a block at a time, the one-row projection on scalars,
grids shared by the rate and time-per-step fits, Nelder-Mead on Python floats. No published figure may move."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize as so

from costmodel.numeric.optimize import minimize
from costmodel.synthetic.shapes import generate
from costmodel.warmup import curve

SHAPED = ("exp", "ramp", "step", "power", "logistic", "exp2")


def _axes(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(5, 500))
        xs = np.cumsum(rng.uniform(0.5, 3.0, n)) * 10 ** rng.uniform(-1, 4)
        yield rng, xs - xs[0]


def test_grid_bases_in_blocks_and_shapes_are_the_per_row_basis_bit_for_bit():
    for rng, xs in _axes(12, 3):
        span, dx = float(xs[-1]), float(np.median(np.diff(xs)))
        for model in SHAPED:
            grid = curve._grid(model, span, dx, xs)
            want = np.stack([curve._basis(model, xs, th) for th in grid])
            assert np.array_equal(curve._grid_basis(model, xs, grid), want), model
            shape = curve._shape(model, xs)
            for th in grid[:: max(1, len(grid) // 5)]:
                moved = tuple(float(v) * float(rng.uniform(0.9, 1.1)) for v in th)
                assert np.array_equal(shape(moved), curve._basis(model, xs, moved)), (model, moved)


def test_one_row_projection_is_the_profile_bit_for_bit():
    checked = 0
    for rng, xs in _axes(8, 4):
        y = rng.normal(5.0, 1.0, len(xs)) * 10 ** rng.uniform(-3, 3)
        proj = curve._Projection(y)
        for model in SHAPED:
            grid = curve._grid(model, float(xs[-1]), float(np.median(np.diff(xs))), xs)
            for th in grid[:: max(1, len(grid) // 6)]:
                g = curve._basis(model, xs, th)
                a, b, rss = curve._profile(y, g[None, :])
                assert proj(g) == (float(a[0]), float(b[0]), float(rss[0]))
                checked += 1
    # a constant row (sgg = 0): b = 0, rss = the total sum of squares
    a, b, rss = curve._Projection(np.array([1.0, 2.0, 4.0]))(np.zeros(3))
    assert (a, b) == (7.0 / 3.0, 0.0) and rss == pytest.approx(14.0 / 3.0, rel=1e-15)
    assert checked > 200


def test_select_shares_its_grids_and_gives_each_models_own_fit():
    s = generate(n=4000, shape="exp", warmup_frac=0.2, cv=0.02, ar=0.5, seed=7)
    y_all = s.table["samples_per_s"].to_numpy(dtype=float)
    y = y_all[: len(y_all) // 10 * 10].reshape(-1, 10).mean(axis=1)
    x = np.arange(len(y), dtype=float) * 10.0 + 4.5
    sel = curve.select(x, y, inverse=True)
    assert len(sel.fits) == len(curve.MODELS) + len(curve.INVERSE_MODELS)
    for key, fit in sel.fits.items():
        model, _, space = key.partition("/")
        alone = curve.fit_model(model, x, 1.0 / y if space else y)
        got = fit.inner if space else fit
        assert (got.a, got.b, got.theta, got.rss, got.unidentified) == (
            alone.a, alone.b, alone.theta, alone.rss, alone.unidentified), key
    assert sel.best in sel.fits and sel.fits["exp"].r2 > 0.9


def test_nelder_mead_float32_start_keeps_scipys_array_path():
    def f(p):
        return float(np.sum((p - np.array([1.0, -2.0][: len(p)])) ** 2) + np.sin(3 * p[0]))
    for x0 in (np.array([0.3, 0.1], dtype=np.float32), np.array([2.0, 1.0])):
        opts = {"xatol": 1e-4, "fatol": 1e-9, "maxiter": 200}
        want = so.minimize(f, x0, method="Nelder-Mead", options=opts)
        got = minimize(f, x0, method="Nelder-Mead", options=opts)
        assert np.array_equal(got.x, want.x) and got.fun == want.fun and got.nfev == want.nfev
        assert got.x.dtype == want.x.dtype
