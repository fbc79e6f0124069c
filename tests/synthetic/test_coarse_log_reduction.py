"""The coarse-log generator reduces a per-step log the way writers do (issue 38): sampled rows are the rows as
they are, averaged rows carry work over time and plain means; checked on a real per-step log."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from costmodel.synthetic.coarse_logs import averaged_rows, cut_steps, reduce_log, sampled_rows

W8 = Path(__file__).resolve().parents[1] / "data" / "real_h200" / "w8" / "remote.csv"


def test_sampled_rows_are_every_nth_step_as_written() -> None:
    df = pd.read_csv(W8)
    s = sampled_rows(df, 50)
    assert s["step"].tolist()[:3] == [49, 99, 149]
    row = df[df["step"] == 99].iloc[0]
    assert s.iloc[1]["samples_per_sec"] == row["samples_per_sec"] and s.iloc[1]["wall_time"] == row["wall_time"]


def test_averaged_rows_carry_the_interval_work_over_time_and_plain_means() -> None:
    df = pd.read_csv(W8)
    a = averaged_rows(df, 10)
    part = df[(df["step"] >= 10) & (df["step"] <= 19)]
    got = a[a["step"] == 19].iloc[0]
    work = float(np.sum(part["samples_per_sec"] * part["step_time_s"]))
    assert got["samples_per_sec"] == pytest.approx(work / part["step_time_s"].sum(), rel=1e-12)
    assert got["step_time_s"] == pytest.approx(part["step_time_s"].mean(), rel=1e-12)
    assert got["cache_hit_ratio"] == pytest.approx(part["cache_hit_ratio"].mean(), rel=1e-12)
    assert got["cache_misses"] == part["cache_misses"].sum()
    assert got["wall_time"] == part["wall_time"].iloc[-1]
    # the clock advances by exactly steps x mean step time: what ingest reads as interval means
    prev = a[a["step"] == 9].iloc[0]
    assert got["elapsed_s"] - prev["elapsed_s"] == pytest.approx(10 * got["step_time_s"], rel=1e-4)


def test_cut_and_reduce_log() -> None:
    df = pd.read_csv(W8)
    assert len(cut_steps(df, 900)) == 900
    assert reduce_log(df, "sampled", 1).equals(df)
    with pytest.raises(ValueError, match="sampled"):
        reduce_log(df, "median", 10)
