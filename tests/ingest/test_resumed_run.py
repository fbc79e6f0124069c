"""A run that resumes from a checkpoint (issue 38): torchtitan relaunched after step 1000 from the checkpoint of step
900 logs steps 910-1000 again and its logger's wall clock jumps by the downtime. The replayed steps are rejected and
named, the resume and its gap are named (ingest warnings, metadata, fit's JSON and text), and the run is continued:
the fit is the one of the run without the resume."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from support.writer_logs import torchtitan_text

from costmodel.commands.fit import _findings
from costmodel.ingest import load_many
from costmodel.warmup import analyze

W2 = Path(__file__).resolve().parents[1] / "data" / "real_h200" / "w2" / "remote.csv"
DOWN_S = 120.0


def _resumed_log(df: pd.DataFrame) -> str:
    """The first 1,000 steps, then (DOWN_S later) steps 901-... again from the checkpoint of step 900."""
    before, again = df.iloc[:1000], df.iloc[900:].copy()
    again["wall_time"] += float(df["wall_time"].iloc[999] - df["wall_time"].iloc[899]) + DOWN_S
    return torchtitan_text(before, 10, stamp=True) + torchtitan_text(again, 10, stamp=True)


def test_a_resumed_torchtitan_log_names_the_gap_and_continues_the_run(tmp_path: Path) -> None:
    df = pd.read_csv(W2)
    resumed, whole = tmp_path / "resumed.log", tmp_path / "whole.log"
    resumed.write_text(_resumed_log(df))
    whole.write_text(torchtitan_text(df, 10, stamp=True))
    res = load_many([resumed])
    run = res.runs[0]
    # the replayed lines (steps 910-1000 after step 1000) are rejected, each named
    assert len(run.rejected) == 10 and run.rejected[0].reason == "step 910 after step 1000 (steps must increase)"
    assert run.rejected[-1].reason == "duplicate step 1000 (steps must increase)"
    (r,) = run.metadata["resumes"]
    assert (r["after_step"], r["resumed_at_step"], r["replayed_rows"]) == (1000, 910, 10)
    # the gap: the downtime and the first replayed row's own interval (10 steps, 2-3 s)
    assert DOWN_S < r["gap_s"] < DOWN_S + 5.0
    assert r["left_out_s"] > r["gap_s"]  # downtime and the replayed steps' time
    assert any("resumes 1 time(s), after step 1000 (resumed at step 910" in w and "gap 12" in w for w in run.warnings)
    # continued: the row after the resume lasts what it lasted, not the downtime
    run0 = load_many([whole]).runs[0]
    t, t0 = run.table.set_index("step")["t_s"], run0.table.set_index("step")["t_s"]
    assert t[1010] - t[1000] == pytest.approx(t0[1010] - t0[1000], abs=0.002)  # 2.6 s, not 2.6 s + the downtime
    f, f0 = analyze(run), analyze(run0)
    assert f.warmup_end_step == f0.warmup_end_step and f.classification == f0.classification
    assert f.steady_mean == pytest.approx(f0.steady_mean, rel=1e-4)
    assert f.lost_s == pytest.approx(f0.lost_s, rel=1e-3)
    # named in fit's JSON (evidence, warnings) and text
    d = f.to_dict()
    assert d["evidence"]["resumes"][0]["gap_s"] == pytest.approx(r["gap_s"])
    assert any("resumes after step 1000" in w and "gap of 12" in w for w in d["warnings"])
    assert any(line.startswith("resumed after step 1000 (at step 910): gap 12") for line in _findings(f))


def test_steps_that_go_back_without_the_clock_going_on_are_no_resume(tmp_path: Path) -> None:
    df = pd.read_csv(W2)
    text = torchtitan_text(df, 10, stamp=True).splitlines()
    text[50], text[51] = text[51], text[50]  # two lines swapped: disorder, the clock goes back too
    p = tmp_path / "swapped.log"
    p.write_text("\n".join(text) + "\n")
    run = load_many([p]).runs[0]
    assert "resumes" not in run.metadata and len(run.rejected) == 1
