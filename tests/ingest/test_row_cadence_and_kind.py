"""Ingest knows what a row is (issue 38): the cadence, sampled or averaged (option, format or clock), and warns
when sparse rows have no clock."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from costmodel.foundation.errors import IngestError
from costmodel.ingest import IngestOptions, load_many
from costmodel.synthetic.coarse_logs import reduce_log

W2 = Path(__file__).resolve().parents[1] / "data" / "real_h200" / "w2" / "remote.csv"


def _load(tmp_path: Path, df: pd.DataFrame, **kw):  # type: ignore[no-untyped-def]
    p = tmp_path / "rows.csv"
    df.to_csv(p, index=False)
    res = load_many([p], IngestOptions(**kw))
    return res.runs[0], res.warnings


@pytest.mark.parametrize(("rows", "every"), [("sampled", 10), ("averaged", 10), ("sampled", 50), ("averaged", 50)])
def test_kind_and_cadence_from_the_clock(tmp_path: Path, rows: str, every: int) -> None:
    run, _ = _load(tmp_path, reduce_log(pd.read_csv(W2), rows, every))
    assert run.metadata["log_cadence_steps"] == every
    assert run.metadata["rows"] == rows


def test_per_step_log_gets_no_row_metadata(tmp_path: Path) -> None:
    run, _ = _load(tmp_path, pd.read_csv(W2))
    assert "log_cadence_steps" not in run.metadata and "rows" not in run.metadata


def test_option_wins_and_a_bad_kind_is_refused(tmp_path: Path) -> None:
    run, _ = _load(tmp_path, reduce_log(pd.read_csv(W2), "sampled", 10), rows="averaged")
    assert run.metadata["rows"] == "averaged" and run.metadata["rows_from"] == "--rows"
    with pytest.raises(IngestError, match="rows must be one of sampled, averaged"):
        _load(tmp_path, pd.read_csv(W2), rows="median")


def test_sparse_sampled_rows_without_a_clock_warn_loudly(tmp_path: Path) -> None:
    df = reduce_log(pd.read_csv(W2), "sampled", 50).drop(columns=["wall_time", "elapsed_s"])
    run, warnings = _load(tmp_path, df)
    assert run.metadata["stalls_between_rows_invisible"] is True
    assert any("stalls between rows" in w and "invisible" in w for w in warnings)


def test_a_resumed_run_whose_clock_restarts_continues_with_the_gap_named(tmp_path: Path) -> None:
    df = pd.read_csv(W2)[["step", "elapsed_s", "step_time_s", "samples_per_sec"]]
    e = df["elapsed_s"].to_numpy().copy()
    last = float(e[699])
    e[700:] -= last  # the relaunched process's clock starts again from zero at step 700
    df["elapsed_s"] = e
    run, warnings = _load(tmp_path, df)
    assert run.rows == len(df)  # nothing rejected as "time goes backwards"
    (restart,) = run.metadata["clock_restarts"]
    assert restart["step"] == 700 and restart["continued_from_s"] == pytest.approx(last - float(e[0]) + float(e[0]))
    t = run.table["t_s"].to_numpy()
    assert t[700] > t[699] and (t[1:] >= t[:-1]).all()
    assert any("clock restarts at step 700" in w and "gap" in w for w in warnings)


def test_a_clock_that_goes_backwards_without_a_restart_is_still_rejected(tmp_path: Path) -> None:
    df = pd.read_csv(W2)[["step", "elapsed_s", "samples_per_sec"]]
    e = df["elapsed_s"].to_numpy().copy()
    e[300:900] -= 0.3  # a small step back: disorder, not a restart from zero
    df["elapsed_s"] = e
    run, _ = _load(tmp_path, df)
    assert "clock_restarts" not in run.metadata
    assert run.rejected and all("time goes backwards" in r.reason for r in run.rejected)


def test_rows_without_a_clock_are_of_unknown_kind_unless_the_writer_says(tmp_path: Path) -> None:
    # the step times added up are no clock: they cannot tell sampled from averaged rows (they said "sampled")
    df = pd.DataFrame({"step": list(range(49, 2000, 50)), "samples_per_s": 380.0, "step_time_s": 16 / 380.0})
    plain = tmp_path / "rows.csv"
    df.to_csv(plain, index=False)
    run = load_many([plain]).runs[0]
    assert run.metadata["rows"] == "unknown" and run.metadata["stalls_between_rows_invisible"]
    # Lightning's CSVLogger (lightning_logs/<name>/version_N/metrics.csv) logs each step's own on_step values
    light = tmp_path / "lightning_logs" / "remote" / "version_3" / "metrics.csv"
    light.parent.mkdir(parents=True)
    df.to_csv(light, index=False)
    run = load_many([light]).runs[0]
    assert run.metadata["rows"] == "sampled" and "CSVLogger" in run.metadata["rows_from"]
