"""Warm-up and equivalence on real two-site H200 pairs logged every N steps (issue 38's done-when).

The per-step logs are reduced the way writers reduce them (:mod:`costmodel.synthetic.coarse_logs`) and read
back through ingest. Truth: the same pair's per-step answer (remote warm-up end 148 for ``w2``, 82 for
``w4long``; steady levels; compare's verdicts).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from costmodel.ingest import load_many
from costmodel.synthetic.coarse_logs import cut_steps, reduce_log
from costmodel.warmup import analyze, compare
from costmodel.warmup.coarse import end_interval, lost_bounds, stalls_but_the_first
from costmodel.warmup.shortrun import late_small_rise, startup_stall

HERE = Path(__file__).resolve().parents[1] / "data" / "real_h200"


def _fit(tmp_path: Path, df: pd.DataFrame, name: str):  # type: ignore[no-untyped-def]
    p = tmp_path / f"{name}.csv"
    df.to_csv(p, index=False)
    (run,) = load_many([p]).runs
    return analyze(run)


@pytest.fixture(scope="module")
def per_step() -> dict[str, tuple]:  # type: ignore[type-arg]
    out = {}
    for run in ("w2", "w4long"):
        c, r = (load_many([HERE / run / f"{side}.csv"]).runs[0] for side in ("colocated", "remote"))
        fc, fr = analyze(c), analyze(r)
        out[run] = (fc, fr, compare([fc], [fr], margin=0.02))
    return out


@pytest.mark.parametrize("run", ["w2", "w4long"])
@pytest.mark.parametrize("rows", ["sampled", "averaged"])
@pytest.mark.parametrize("every", [10, 50])
def test_coarse_rows_keep_the_level_the_end_and_the_extra_warmup(tmp_path: Path, per_step, run: str, rows: str,
                                                                  every: int) -> None:  # type: ignore[no-untyped-def]
    _fc0, fr0, cmp0 = per_step[run]
    c_df, r_df = (pd.read_csv(HERE / run / f"{side}.csv") for side in ("colocated", "remote"))
    fc = _fit(tmp_path, reduce_log(c_df, rows, every), "colocated")
    fr = _fit(tmp_path, reduce_log(r_df, rows, every), "remote")
    # the steady level from the clock (stalls between rows included): within 3 % of the per-step level
    assert abs(fr.steady_mean / fr0.steady_mean - 1.0) < 0.03
    assert fr.time_source == "clock_between_rows" and fr.evidence["log_rows"]["cadence_steps"] == every
    assert fr.evidence["log_rows"]["rows"] == rows
    # the warm-up end within one logging interval of the per-step end, stated as an interval
    assert abs(fr.warmup_end_step - fr0.warmup_end_step) <= every
    iv = fr.evidence["warmup_end_interval"]
    assert iv["high_step"] == fr.warmup_end_step and iv["high_step"] - iv["low_step"] == every
    lb = fr.evidence["lost_s_bounds"]
    assert 0 <= lb["low"] <= fr.lost_s <= lb["high"]
    # no co-located warm-up; the extra warm-up > 0, and within 30 % of the per-step one where the first row's
    # duration is known (averaged rows, or every 10 steps)
    assert fc.warmup_end_step == 0
    cmp = compare([fc], [fr], margin=0.02)
    assert cmp.remote_extra_warmup_s is not None and cmp.remote_extra_warmup_s > 0
    if rows == "averaged" or every == 10:
        assert abs(cmp.remote_extra_warmup_s / cmp0.remote_extra_warmup_s - 1.0) <= 0.30
    if cmp0.verdict == "different":
        assert not cmp.equivalent


def test_sampled_rows_without_a_clock_are_never_called_equivalent(tmp_path: Path) -> None:
    c_df, r_df = (pd.read_csv(HERE / "w2" / f"{side}.csv") for side in ("colocated", "remote"))
    drop = ["wall_time", "elapsed_s"]
    fc = _fit(tmp_path, reduce_log(c_df, "sampled", 50).drop(columns=drop), "colocated")
    fr = _fit(tmp_path, reduce_log(r_df, "sampled", 50).drop(columns=drop), "remote")
    assert fr.evidence["log_rows"]["stalls_between_rows_invisible"] is True
    assert any("invisible" in w for w in fr.warnings)
    cmp = compare([fc], [fr], margin=0.05)
    assert not cmp.equivalent and cmp.verdict != "equivalent"
    assert any("equivalence is not called" in n for n in cmp.notes)


@pytest.mark.parametrize("run", ["w2", "w8", "w4long"])
def test_cut_to_900_steps_throughput_only_no_colocated_warmup(tmp_path: Path, run: str) -> None:
    dfs = [cut_steps(pd.read_csv(HERE / run / f"{side}.csv"), 900).drop(
        columns=["data_wait_s", "cache_hit_ratio"], errors="ignore") for side in ("colocated", "remote")]
    fc, fr = _fit(tmp_path, dfs[0], "colocated"), _fit(tmp_path, dfs[1], "remote")
    assert fc.warmup_end_step == 0 and fc.lost_s == 0.0
    cmp = compare([fc], [fr], margin=0.05)
    assert cmp.remote_extra_warmup_s is not None and cmp.remote_extra_warmup_s > 0


def test_rules_alone() -> None:
    # a slow start of 3 steps in 900 is a start-up stall; 40 steps are not
    assert startup_stall(3, 900) is not None and startup_stall(40, 900) is None and startup_stall(0, 900) is None
    assert startup_stall(3, 100) is None  # 3 % of a 100-step run: too long a share to be a start-up stall
    # a 2 % rise placed at 70 % of the run is no warm-up; a 50 % rise, or one in the first half, is left alone
    assert late_small_rise(627, 900, 387.7, 395.5) is not None
    assert late_small_rise(627, 900, 200.0, 395.5) is None and late_small_rise(100, 900, 387.7, 395.5) is None


def test_coarse_helpers_alone() -> None:
    from costmodel.warmup.period import Period
    from costmodel.warmup.series import prepare

    df = pd.DataFrame({"step": np.arange(9, 500, 10), "t_s": np.arange(50) * 1.0 + 1.0,
                       "samples_per_s": np.full(50, 100.0), "step_time_s": np.full(50, 0.1)})
    s = prepare(df)
    assert end_interval(s, 0) is None
    iv = end_interval(s, 3)
    assert iv is not None and (iv["low_step"], iv["high_step"]) == (20, 30)
    lb = lost_bounds(s, 3, 90.0, 110.0)
    assert lb is not None and lb[0] < lb[1]
    mask = np.zeros(50, dtype=bool)
    mask[[0, 1, 20, 40]] = True
    per = Period(period_steps=200.0, period_obs=20.0, cv=0.0, events=[(0, 2), (20, 21), (40, 41)], anchors=[0, 20, 40], mask=mask)
    m = stalls_but_the_first(per, 50)
    assert m is not None and not m[0] and not m[1] and m[20] and m[40]


def test_fit_prints_what_a_row_is_and_the_interval(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "w2_every50.csv"
    reduce_log(pd.read_csv(HERE / "w2" / "remote.csv"), "sampled", 50).to_csv(p, index=False)
    r = cli("fit", str(p), "--rows", "sampled", "-q")
    assert r.rc == 0, r.err
    assert "rows: every 50 steps, sampled; rate between rows from the clock" in r.out
    assert "warm-up ends between step 50 and 100; lost " in r.out
    assert "throughput alone: step 100" in r.out
    j = cli.json("fit", str(p), "--rows", "sampled", "--json", "-q")
    f = j[0] if isinstance(j, list) else j
    assert f["evidence"]["log_rows"]["rows_from"] == "--rows" and f["warmup_end_step"] == 100
