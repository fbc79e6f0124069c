"""Repetitions in compare: run levels are the unit when runs differ; the runs' own errors otherwise."""
from __future__ import annotations

import numpy as np
import pytest

from costmodel.synthetic.shapes import generate
from costmodel.warmup import analyze, compare


def _fits(levels: list[float], seed: int) -> list:
    return [analyze(generate(n=1500, shape="flat", warmup_frac=0.0, plateau=lv, cv=0.02, ar=0.5,
                             seed=seed + i).to_run(f"r{i}", "x")) for i, lv in enumerate(levels)]


def test_runs_that_differ_use_the_spread_of_their_levels():
    # runs 3 % apart from one another: between-run variance dominates, k - 1 = 2 df per side
    fc = _fits([1000.0, 1030.0, 970.0], 100)
    fr = _fits([1000.0, 1030.0, 970.0], 200)
    c = compare(fc, fr, margin=0.02)
    A = c.pooled["colocated"]
    logs = np.log([f.steady_mean for f in fc])
    assert A["se_log"] == pytest.approx(np.std(logs, ddof=1) / np.sqrt(3), rel=1e-9)
    assert A["df"] == 2.0 and A["unit_of_replication"] == "runs"
    # with so few df and that spread nothing can be shown at 2 %
    assert c.equivalence == "inconclusive" and c.min_detectable_margin > 0.05


def test_equal_runs_use_their_own_errors_with_welch_df():
    fc = _fits([1000.0, 1000.0, 1000.0], 300)
    fr = _fits([1000.0, 1000.0, 1000.0], 400)
    c = compare(fc, fr, margin=0.02)
    used_within = 0
    for side, fits in (("colocated", fc), ("remote", fr)):
        P = c.pooled[side]
        rel = np.array([f.steady_se_lr / f.steady_mean for f in fits])
        dfs = np.array([f.steady_df_lr for f in fits])
        within = np.sqrt(np.sum(rel**2)) / 3
        between = np.std(np.log([f.steady_mean for f in fits]), ddof=1) / np.sqrt(3)
        assert P["se_log"] == pytest.approx(max(within, between), rel=1e-9)
        if between < within:
            v = rel**2
            assert P["df"] == pytest.approx(v.sum() ** 2 / np.sum(v * v / dfs), rel=1e-9)
            assert P["df"] <= dfs.sum()
            used_within += 1
    assert used_within == 2  # these seeds: the spread of equal runs is below their own errors
    assert c.equivalent
