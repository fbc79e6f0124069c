"""Round 3 fixes: write_runs without full-width copies, streaming rejects bad cells, per-epoch step counters."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import costmodel.foundation.timeline as timeline
from costmodel.cli import main
from costmodel.foundation.errors import IngestError
from costmodel.foundation.timeline import read_runs, write_runs
from costmodel.ingest import IngestOptions, load
from costmodel.ingest.stream import ingest_to_parquet
from costmodel.ingest.validate import build_run


def _w(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


# ------------------------------------------------------------------------------------ 1. write_runs


def _big_run(n: int):
    step = np.arange(n, dtype="float64")
    sps = 100.0 + (step % 7)
    return build_run({"step": step, "samples_per_s": sps}, path=Path("big.csv"), run_id="big", fmt="tabular/csv")


def test_write_runs_allocates_no_full_width_copy(tmp_path: Path) -> None:
    """1 M rows, 2 of 18 metric columns present: the old concat + from_pandas path allocated every
    absent column (16 x 8 MB of NaN) and a Python string per row; now numpy allocations stay small."""
    run = _big_run(1_000_000)
    out = tmp_path / "t.parquet"
    tracemalloc.start()
    try:
        write_runs([run], out)
        _cur, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, f"write_runs allocated {peak / 2**20:.1f} MiB of Python/numpy memory"
    (back,) = read_runs(out)
    assert back.rows == 1_000_000
    assert back.table["step"].iloc[-1] == 999_999
    assert back.table["samples_per_s"].iloc[13] == 100.0 + 13 % 7
    assert back.columns == ["step", "samples_per_s"]


def test_write_runs_slices_and_nulls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timeline, "WRITE_SLICE_ROWS", 1000)
    a = _big_run(2500)
    b = build_run({"step": np.array([1.0, 2.0]), "gpu_util": np.array([0.5, np.nan])}, path=Path("b.csv"), run_id="b",
                  fmt="tabular/csv", role="remote")
    out = write_runs([a, b], tmp_path / "t.parquet")
    f = pq.ParquetFile(out)
    assert f.metadata.num_rows == 2502
    assert f.metadata.num_row_groups == 4  # 1000 + 1000 + 500 + 2
    table = pq.read_table(out)
    assert table.column("read_iops").null_count == 2502  # absent: nulls, not stored NaN values
    assert table.column("gpu_util").null_count == 2501  # NaN of run b is written as null too
    assert table.column("run_id").to_pylist()[2499:] == ["big", "b", "b"]
    ra, rb = read_runs(out)
    assert (ra.run_id, ra.rows, rb.run_id, rb.role, rb.rows) == ("big", 2500, "b", "remote", 2)
    assert rb.table["gpu_util"].iloc[0] == 0.5 and np.isnan(rb.table["gpu_util"].iloc[1])


def test_write_runs_empty_run_keeps_schema(tmp_path: Path) -> None:
    run = _big_run(3)
    run.table = run.table.iloc[:0]
    out = write_runs([run], tmp_path / "t.parquet")
    assert pq.read_table(out).num_rows == 0
    assert read_runs(out)[0].rows == 0


# ------------------------------------------------------------------------- 2. streaming bad cells


def _csv_with_bad(tmp_path: Path, bad_rows: set[int], n: int = 1000) -> Path:
    lines = ["step,samples_per_s"] + [f"{i},{'abc' if i in bad_rows else 100 + i}" for i in range(n)]
    return _w(tmp_path, "s.csv", "\n".join(lines) + "\n")


def test_streaming_rejects_a_bad_cell_and_continues(tmp_path: Path) -> None:
    p = _csv_with_bad(tmp_path, {500, 777})
    res = ingest_to_parquet([p], tmp_path / "s.parquet", IngestOptions(), stream_bytes=0, block_bytes=4096)
    assert res.rejected_rows == 2
    assert [x.line for x in res.rejected] == [502, 779]  # header is line 1, step i on line i + 2
    assert res.rejected[0].field == "samples_per_s"
    assert any(w.startswith(f"{p}:502 [samples_per_s]") and "not a number" in w for w in res.warnings)
    (run,) = read_runs(tmp_path / "s.parquet")
    assert run.rows == 998
    steps = run.table["step"].to_numpy()
    assert 500 not in steps and 777 not in steps and 501 in steps
    assert run.table.loc[run.table["step"] == 501, "samples_per_s"].iloc[0] == 601.0
    # the same file read whole gives the same rows
    (whole,) = load(p)
    assert whole.rows == 998 and [x.line for x in whole.rejected] == [502, 779]


def test_streaming_bad_cells_strict_and_threshold(tmp_path: Path) -> None:
    p = _csv_with_bad(tmp_path, {500})
    out = tmp_path / "s.parquet"
    with pytest.raises(IngestError, match="--strict") as ei:
        ingest_to_parquet([p], out, IngestOptions(strict=True), stream_bytes=0, block_bytes=4096)
    assert ei.value.line == 502
    assert not out.exists()
    p = _csv_with_bad(tmp_path, set(range(0, 1000, 5)))  # 20 % bad
    with pytest.raises(IngestError, match="200 of 1000 rows are bad"):
        ingest_to_parquet([p], out, IngestOptions(), stream_bytes=0, block_bytes=4096)
    assert not out.exists()


def test_cli_streaming_bad_cell_exit_codes(tmp_path: Path) -> None:
    p = _csv_with_bad(tmp_path, {10}, n=200)
    out = tmp_path / "o.parquet"
    env = {**os.environ, "COSTMODEL_STREAM_BYTES": "0"}
    ok = subprocess.run([sys.executable, "-m", "costmodel", "ingest", str(p), "-o", str(out), "--json"],
                        capture_output=True, text=True, env=env)
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert doc["rejected_rows"] == 1 and doc["runs"][0]["rows"] == 199
    assert doc["runs"][0]["metadata"]["streamed"] is True
    out.unlink()
    bad = subprocess.run([sys.executable, "-m", "costmodel", "ingest", str(p), "-o", str(out), "--strict"],
                         capture_output=True, text=True, env=env)
    assert bad.returncode == 2
    assert len(bad.stderr.strip().splitlines()) == 1 and ":12" in bad.stderr
    assert not out.exists()


# ------------------------------------------------------------------------- 3. per-epoch step counters


def _epoch_csv(tmp_path: Path, epochs: int = 3, per: int = 50) -> Path:
    rows = "".join(f"{e},{s},{100 + s}\n" for e in range(epochs) for s in range(per))
    return _w(tmp_path, "ep.csv", "epoch,step,samples_per_s\n" + rows)


def test_step_restarting_each_epoch_becomes_global_step(tmp_path: Path) -> None:
    (run,) = load(_epoch_csv(tmp_path))
    t = run.table
    assert run.rows == 150 and not run.rejected
    assert t["step"].tolist() == list(range(150))
    assert t["epoch"].iloc[[0, 49, 50, 149]].tolist() == [0.0, 0.0, 1.0, 2.0]
    note = run.metadata["epoch_steps"]
    assert note["restart_lines"] == [52, 102] and note["epoch_offsets"] == [0.0, 50.0, 100.0]
    # the per-epoch counter is recoverable: original = step - offset of the row's epoch
    k = t["epoch"].to_numpy().astype(int)
    original = t["step"].to_numpy() - np.array(note["epoch_offsets"])[k]
    assert original.tolist() == [s for _e in range(3) for s in range(50)]
    assert t["samples_per_s"].iloc[50] == 100.0
    assert any("restarts at 0 on line 52" in w for w in run.warnings)


def test_one_based_batch_counter_without_epoch_column(tmp_path: Path) -> None:
    rows = "".join(f"{b},{10 * b}\n" for _e in range(3) for b in range(1, 11))
    (run,) = load(_w(tmp_path, "b.csv", "batch,samples_per_s\n" + rows))
    t = run.table
    assert t["step"].tolist() == list(range(1, 31))
    assert t["epoch"].iloc[[0, 9, 10, 29]].tolist() == [1.0, 1.0, 2.0, 3.0]  # counted from the counter's first value
    assert run.metadata["epoch_steps"]["first_step"] == 1.0


def test_epoch_column_increase_restarts_any_counter(tmp_path: Path) -> None:
    rows = "".join(f"{e},{s},{s}\n" for e in (3, 4) for s in range(5, 10))
    (run,) = load(_w(tmp_path, "e.csv", "epoch,iteration,samples_per_s\n" + rows))
    assert run.table["step"].tolist() == list(range(5, 15))
    assert run.table["epoch"].tolist() == [3.0] * 5 + [4.0] * 5
    assert run.metadata["epoch_steps"]["epoch_offsets"] == [0.0, 5.0]


def test_other_backwards_or_duplicate_steps_stay_rejections(tmp_path: Path) -> None:
    # 0 1 2 | 1 (backwards, not the first value) | 3 | 0 (new epoch) 1 | 1 (duplicate)
    p = _w(tmp_path, "x.csv", "step,samples_per_s\n0,1\n1,1\n2,1\n1,1\n3,1\n0,1\n1,1\n1,1\n")
    (run,) = load(p)
    assert [(x.line, x.field) for x in run.rejected] == [(5, "step"), (9, "step")]
    assert "step 1 after global step 2" in run.rejected[0].reason
    assert "duplicate step 1 (global step 5)" in run.rejected[1].reason  # the file's value, then the global one
    assert run.table["step"].tolist() == [0, 1, 2, 3, 4, 5]
    assert run.table["epoch"].tolist() == [0.0] * 4 + [1.0] * 2
    # a counter that starts at 5 and drops to 0 (no epoch column) is not an epoch restart
    with pytest.raises(IngestError, match="steps must increase"):
        load(_w(tmp_path, "y.csv", "step,samples_per_s\n5,1\n6,1\n7,1\n0,1\n1,1\n2,1\n"))
    (strict_ok,) = load(_epoch_csv(tmp_path), IngestOptions(strict=True))  # restarts are not bad rows
    assert strict_ok.rows == 150


def test_cli_per_epoch_log_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _epoch_csv(tmp_path, epochs=2, per=50)
    out = tmp_path / "t.parquet"
    assert main(["ingest", str(p), "-o", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["runs"][0]["rows"] == 100 and doc["rejected_rows"] == 0
    assert "epoch" in doc["runs"][0]["columns"]
    (back,) = read_runs(out)
    assert back.metadata["epoch_steps"]["restart_lines"] == [52]


def test_streaming_carries_epochs_across_batches(tmp_path: Path) -> None:
    rows = "".join(f"{s},{100 + s}\n" for _e in range(5) for s in range(300))
    p = _w(tmp_path, "s.csv", "step,samples_per_s\n" + rows)
    ingest_to_parquet([p], tmp_path / "s.parquet", IngestOptions(), stream_bytes=0, block_bytes=4096)
    (run,) = read_runs(tmp_path / "s.parquet")
    assert run.table["step"].tolist() == list(range(1500))
    assert run.table["epoch"].iloc[[0, 299, 300, 1499]].tolist() == [0.0, 0.0, 1.0, 4.0]
    assert run.metadata["epoch_steps"]["restart_lines"] == [302, 602, 902, 1202]
    assert run.metadata["epoch_steps"]["epoch_offsets"] == [0.0, 300.0, 600.0, 900.0, 1200.0]


# --------------------------------------------------------------------------- 4. missing cells, truncated JSON


def test_empty_and_na_cells_are_kept_as_missing_and_reported(tmp_path: Path) -> None:
    p = _w(tmp_path, "na.csv", "step,samples_per_s,gpu_util\n0,1,0.5\n1,,0.5\n2,N/A,0.5\n3,4,0.5\n4,5,0.5\n")
    (run,) = load(p)
    assert run.rows == 5 and not run.rejected
    assert np.isnan(run.table["samples_per_s"].iloc[[1, 2]]).all() and run.table["samples_per_s"].iloc[3] == 4.0
    notes = [w for w in run.warnings if "empty or N/A" in w]
    assert notes == [(f"{p}: samples_per_s: 2 empty or N/A cell(s) kept as missing (not measured); "
                     "a literal NaN or inf is a bad value and rejects its row")]
    # a literal NaN is still a bad value: its row is rejected, not kept as missing
    q = _w(tmp_path, "nan.csv", "step,samples_per_s\n0,1\n1,NaN\n2,3\n3,4\n4,5\n")
    (bad,) = load(q)
    assert bad.rows == 4 and [x.line for x in bad.rejected] == [3]
    assert not [w for w in bad.warnings if "empty or N/A" in w]


@pytest.mark.parametrize("text", ['{"runs": [1,2,', '[{"step": 1, "samples_per_s": 2},', '{"a": "unterminated'])
def test_truncated_json_is_named_as_such(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> None:
    p = _w(tmp_path, "t.json", text)
    with pytest.raises(IngestError, match="truncated JSON: the document ends at line 1"):
        load(p)
    assert main(["ingest", str(p), "-o", str(tmp_path / "o.parquet")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "truncated JSON" in err[0]
    assert not (tmp_path / "o.parquet").exists()


def test_json_lines_and_complete_json_are_not_truncated(tmp_path: Path) -> None:
    p = _w(tmp_path, "a.jsonl", '{"step": 1, "samples_per_s": 3}\n{"step": 2, "samples_per_s": 4}\n')
    (run,) = load(p)
    assert run.table["samples_per_s"].tolist() == [3.0, 4.0]


def test_write_runs_coerces_foreign_tables(tmp_path: Path) -> None:
    """Runs built by other code (ints, text, missing step) are written as the Timeline, like to_timeline did."""
    import pandas as pd

    from costmodel.foundation.schema import Run

    table = pd.DataFrame({"samples_per_s": [1, 2, 3], "gpu_util": ["0.5", "x", None]})
    out = write_runs([Run(run_id="sim", table=table, format="simulated", source="-")], tmp_path / "t.parquet")
    (back,) = read_runs(out)
    assert back.table["step"].tolist() == [0, 1, 2]
    assert back.table["samples_per_s"].tolist() == [1.0, 2.0, 3.0]
    assert back.table["gpu_util"].iloc[0] == 0.5 and back.table["gpu_util"].iloc[1:].isna().all()


# ------------------------------------------------------------------ -o streams CSV inputs from 64 MiB


def test_csv_streams_from_the_csv_limit_unless_gpu_telemetry_comes_with_it(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from costmodel.ingest import stream

    monkeypatch.setattr(stream, "STREAM_CSV_BYTES", 100)
    tr = _w(tmp_path, "train.csv", "step,samples_per_s\n" + "".join(f"{i},{i + 1}\n" for i in range(50)))
    assert stream.needs_streaming([tr])
    smi = _w(tmp_path, "smi.csv", "timestamp, index, utilization.gpu [%]\n2024/01/01 00:00:01.000, 0, 50 %\n")
    assert not stream.needs_streaming([tr, smi])  # read whole, so the telemetry is merged onto it
    assert stream.csv_stream_limit([tr, smi]) == stream.STREAM_BYTES
    assert stream.csv_stream_limit([tr]) == 100


def test_cli_o_streams_csv_above_the_csv_limit(tmp_path: Path) -> None:
    p = _epoch_csv(tmp_path, epochs=2, per=50)
    out = tmp_path / "o.parquet"
    env = {**os.environ, "COSTMODEL_STREAM_CSV_BYTES": "10"}
    proc = subprocess.run([sys.executable, "-m", "costmodel", "ingest", str(p), "-o", str(out), "--json"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["runs"][0]["metadata"]["streamed"] is True
    (run,) = read_runs(out)
    assert run.table["step"].tolist() == list(range(100))


def test_background_writer_reraises_a_write_error() -> None:
    from costmodel.ingest.stream import _BackgroundWriter

    class Boom:
        closed = False

        def write_table(self, table: object) -> None:
            raise OSError("disk full")

        def close(self) -> None:
            self.closed = True

    inner = Boom()
    w = _BackgroundWriter(inner)
    w.write_table("t1")
    with pytest.raises(OSError, match="disk full"):
        w.close()
    assert inner.closed
