"""The confidence sequence keeps its error rate however often it is looked at; a fixed-sample bound repeated at
every look does not (the reason the watch does not repeat TOST)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from costmodel.trial.boundary import mixture_factor, one_sided_factor, r_at, z_one_sided


def _crossings(factor_of_look, n_paths: int = 4000, looks: int = 400, seed: int = 7) -> float:
    rng = np.random.default_rng(seed)
    s = np.cumsum(rng.standard_normal((n_paths, looks)), axis=1)
    t = np.arange(1, looks + 1)
    z = s / np.sqrt(t)  # the mean over its standard error at every look
    bound = np.array([factor_of_look(k) for k in t])
    return float(np.mean((z >= bound).any(axis=1)))


def test_the_one_sided_mixture_bound_holds_at_every_look():
    rate = _crossings(lambda k: one_sided_factor(r_at(k, 400), 0.04))
    assert rate <= 0.04  # Ville: at most alpha over all 400 looks (the bound is conservative: about 1-2 %)
    assert rate > 0.001  # and not vacuous


def test_a_fixed_sample_bound_repeated_at_every_look_is_not_valid():
    rate = _crossings(lambda k: z_one_sided(0.95))  # TOST's one-sided 5 % bound, looked at 400 times
    assert rate > 0.25  # far above 5 %: why the watch uses a confidence sequence


def test_factors_are_finite_and_shrink_towards_the_planned_length():
    assert one_sided_factor(8.0, 0.04) == pytest.approx(math.sqrt(1.125 * 2 * math.log(3 / 0.08 + 1)))
    assert mixture_factor(8.0, 0.05) > one_sided_factor(8.0, 0.05)
    f = [one_sided_factor(r, 0.04) for r in (0.5, 2, 8, 32)]
    assert f[0] > f[1] > f[2] and f[3] > z_one_sided(0.95)
    with pytest.raises(ValueError):
        one_sided_factor(0.0, 0.04)
