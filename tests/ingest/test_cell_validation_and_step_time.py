"""Ingest v2 (issue 17): per-cell validation, throughput from step time, --pattern safety, bench JSONL passes,
new readers, folded warnings."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from costmodel.cli import main
from costmodel.foundation.errors import IngestError
from costmodel.foundation.timeline import read_runs
from costmodel.ingest import IngestOptions, load, load_many
from costmodel.ingest.stream import ingest_to_parquet


def _w(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


# ------------------------------------------------------------------------ item 3: per-cell validation


def _aux_bad_csv(tmp_path: Path, n: int = 100, bad_util: tuple[int, ...] = (5, 9), bad_read: tuple[int, ...] = (7,)) -> Path:
    rows = ["step,samples_per_s,gpu_util_pct,read_MBps"]
    for i in range(n):
        util = "100.6" if i in bad_util else "90"
        read = "abc" if i in bad_read else "5"
        rows.append(f"{i},{100 + i},{util},{read}")
    return _w(tmp_path, "aux.csv", "\n".join(rows) + "\n")


def test_bad_auxiliary_cell_becomes_missing_and_the_row_stays(tmp_path: Path) -> None:
    p = _aux_bad_csv(tmp_path)
    res = load_many([p])
    (run,) = res.runs
    assert res.rejected_rows == 0 and run.rows == 100
    t = run.table
    # the valid primary metric of the rows with a bad auxiliary cell is kept
    assert t["samples_per_s"].iloc[5] == 105.0 and t["samples_per_s"].iloc[7] == 107.0
    assert np.isnan(t["gpu_util"].iloc[5]) and np.isnan(t["gpu_util"].iloc[9]) and t["gpu_util"].iloc[6] == pytest.approx(0.9)
    assert np.isnan(t["read_bytes_per_s"].iloc[7]) and t["read_bytes_per_s"].iloc[8] == 5e6
    mc = res.to_dict()["runs"][0]["missing_cells"]
    assert mc["gpu_util"]["count"] == 2 and mc["gpu_util"]["first_lines"] == [7, 11]  # header is line 1
    assert "1.006 (expected a fraction 0..1)" in mc["gpu_util"]["first_reason"]
    assert mc["read_bytes_per_s"] == {"count": 1, "first_lines": [9],
                                      "first_reason": "read_bytes_per_s: not a number (expected a finite number)"}
    assert any("gpu_util: 2 bad cell(s) kept as missing" in w for w in res.warnings)


def test_bad_key_or_primary_metric_still_rejects_the_row(tmp_path: Path) -> None:
    p = _w(tmp_path, "k.csv", "step,t_s,samples_per_s,gpu_util\n0,0,1,0.5\n1,1,-2,0.5\n2,inf,3,0.5\n3,3,4,0.5\n4,4,5,0.5\n"
           "5,5,6,0.5\n6,6,7,0.5\n7,7,8,0.5\n8,8,9,0.5\n9,9,10,0.5\n10,10,11,0.5\n11,11,12,0.5\n12,12,13,0.5\n")
    res = load_many([p])
    assert res.rejected_rows == 2 and sorted(x.line for x in res.rejected) == [3, 4]
    assert {x.field for x in res.rejected} == {"samples_per_s", "t_s"}
    assert res.to_dict()["runs"][0]["missing_cells"] == {}


def test_primary_metric_is_step_time_when_there_is_no_throughput(tmp_path: Path) -> None:
    p = _w(tmp_path, "st.csv", "step,step_time_ms,data_wait_ms\n" + "\n".join(
        f"{i},{-5 if i == 3 else 100},{-1 if i == 4 else 2}" for i in range(30)) + "\n")
    (run,) = load(p)
    assert run.rows == 29 and [x.line for x in run.rejected] == [5]  # step 3: bad step time -> row rejected
    assert run.metadata["missing_cells"]["data_wait_s"]["count"] == 1  # step 4: bad data wait -> cell missing
    assert run.metadata["missing_cells"]["data_wait_s"]["first_lines"] == [6]


def test_ten_percent_rule_and_strict_apply_per_column(tmp_path: Path) -> None:
    ok = _aux_bad_csv(tmp_path, n=100, bad_util=tuple(range(10)), bad_read=())  # exactly 10 %: still good
    assert load(ok)[0].metadata["missing_cells"]["gpu_util"]["count"] == 10
    bad = _aux_bad_csv(tmp_path, n=100, bad_util=tuple(range(11)), bad_read=())
    with pytest.raises(IngestError, match=r"column gpu_util: 11 of 100 cells are bad") as ei:
        load(bad)
    assert ei.value.field == "gpu_util" and ei.value.line == 2
    # two columns each under 10 % do not add up to a bad file
    two = _aux_bad_csv(tmp_path, n=100, bad_util=tuple(range(8)), bad_read=tuple(range(50, 58)))
    assert load(two)[0].rows == 100
    with pytest.raises(IngestError, match=r"column gpu_util: 8 bad cell\(s\) and --strict is set"):
        load(two, IngestOptions(strict=True))


def test_streamed_bad_cells_are_counted_over_the_whole_file(tmp_path: Path) -> None:
    p = _aux_bad_csv(tmp_path, n=1000, bad_util=(5, 600, 900), bad_read=(700,))
    res = ingest_to_parquet([p], tmp_path / "o.parquet", IngestOptions(), stream_bytes=0, block_bytes=4096)
    mc = res.to_dict()["runs"][0]["missing_cells"]
    assert mc["gpu_util"]["count"] == 3 and mc["gpu_util"]["first_lines"] == [7, 602, 902]
    assert mc["read_bytes_per_s"]["first_lines"] == [702]
    (run,) = read_runs(tmp_path / "o.parquet")
    assert run.rows == 1000 and np.isnan(run.table["gpu_util"].iloc[600]) and run.table["samples_per_s"].iloc[600] == 700.0
    many = _aux_bad_csv(tmp_path, n=1000, bad_util=tuple(range(0, 1000, 5)), bad_read=())
    with pytest.raises(IngestError, match="column gpu_util: 200 of 1000 cells are bad"):
        ingest_to_parquet([many], tmp_path / "o2.parquet", IngestOptions(), stream_bytes=0, block_bytes=4096)
    assert not (tmp_path / "o2.parquet").exists()


def test_cli_json_has_missing_cells_beside_rejected_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _aux_bad_csv(tmp_path)
    assert main(["ingest", str(p), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    run = doc["runs"][0]
    assert {"run_id", "format", "rows", "columns", "role", "source", "rejected_rows", "metadata", "missing_cells"} <= set(run)
    assert run["rejected_rows"] == 0 and run["missing_cells"]["gpu_util"]["count"] == 2
    assert main(["ingest", str(p), "--strict"]) == 2


# ------------------------------------------------------------------------ item 2: throughput from step time


def _step_time_csv(tmp_path: Path, name: str = "st.csv", ms: float = 250.0, n: int = 40) -> Path:
    return _w(tmp_path, name, "step,step_time_ms\n" + "\n".join(f"{i},{ms}" for i in range(n)) + "\n")


def test_batch_size_and_tokens_per_step_derive_throughput(tmp_path: Path) -> None:
    p = _step_time_csv(tmp_path)
    (run,) = load(p, IngestOptions(batch_size=32, tokens_per_step=32 * 2048))
    assert run.table["samples_per_s"].iloc[0] == pytest.approx(128.0)  # 32 / 0.25 s
    assert run.table["tokens_per_s"].iloc[5] == pytest.approx(262144.0)
    assert run.metadata["samples_per_s_from"] == "--batch-size 32 / step_time_s"
    (plain,) = load(p)
    assert plain.table["samples_per_s"].isna().all()
    # a run that has its throughput keeps it, and says the option was ignored
    q = _w(tmp_path, "thr.csv", "step,samples_per_s,step_time_ms\n0,100,250\n1,101,250\n2,102,250\n")
    (kept,) = load(q, IngestOptions(batch_size=32))
    assert kept.table["samples_per_s"].tolist() == [100.0, 101.0, 102.0]
    assert any("--batch-size ignored" in w for w in kept.warnings)


def test_tf_step_log_with_batch_size(real_dir: Path) -> None:
    src = real_dir / "training_logs" / "t2t_gpu_output.txt"
    (plain,) = load(src)
    assert any("--batch-size N" in w for w in plain.warnings)
    (run,) = load(src, IngestOptions(batch_size=4096))
    # step = 100 (32.790 sec): 100 steps in 32.79 s -> 0.3279 s per step -> 4096 / 0.3279 samples/s
    assert run.table["samples_per_s"].iloc[0] == pytest.approx(4096 / 0.3279)
    assert not any("needs the batch size" in w for w in run.warnings)


def test_fit_and_compare_take_the_ingest_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(3)
    col = _w(tmp_path, "col.log", "\n".join(f"it {i} took {250 + rng.normal(0, 2):.2f} ms" for i in range(200)) + "\n")
    rem = _w(tmp_path, "rem.log", "\n".join(f"it {i} took {(400 if i < 30 else 260) + rng.normal(0, 2):.2f} ms"
                                            for i in range(200)) + "\n")
    pat = r"it (?P<step>\d+) took (?P<step_time_ms>[\d.]+) ms"
    assert main(["fit", str(col), "--pattern", pat, "--batch-size", "64", "--json"]) == 0
    (fit,) = json.loads(capsys.readouterr().out)
    assert fit["metric"] == "samples_per_s" and fit["steady_mean"] == pytest.approx(64 / 0.25, rel=0.02)
    assert main(["compare", "--colocated", str(col), "--remote", str(rem), "--pattern", pat, "--batch-size", "64",
                 "--json"]) == 0
    cmp = json.loads(capsys.readouterr().out)
    assert cmp["ratio"] == pytest.approx(250 / 260, rel=0.02)  # remote slower: ratio below 1
    with pytest.raises(SystemExit) as ei:
        main(["fit", str(col), "--pattern", pat, "--batch-size", "-3"])
    assert ei.value.code == 2


def test_report_parameters_carry_the_ingest_options(tmp_path: Path) -> None:
    from costmodel.foundation.errors import ReportError
    from costmodel.report.params import validate_parameters
    from costmodel.report.stages import load_inputs

    p = _step_time_csv(tmp_path)
    q = _step_time_csv(tmp_path, "r.csv", ms=300.0)
    params = validate_parameters(colocated=[str(p)], remote=[str(q)], batch_size=32.0, map=["step_time_ms=step_time_s:ms"])
    assert params.map == ("step_time_ms=step_time_s:ms",)
    opts = params.ingest_options("remote")
    assert opts.batch_size == 32.0 and opts.mapping == {"step_time_ms": ("step_time_s", "ms")} and opts.role == "remote"
    inputs = load_inputs(params)
    assert inputs.remote[0].table["samples_per_s"].iloc[0] == pytest.approx(32 / 0.3)
    with pytest.raises(ReportError, match="batch_size"):
        validate_parameters(colocated=[str(p)], batch_size=-1.0)
    with pytest.raises(ReportError, match=r"'map': got .*; expected a list of strings"):
        validate_parameters(colocated=[str(p)], map=[3])


# ------------------------------------------------------------------------ item 5: --pattern safety, time aliases


def test_pattern_groups_that_are_not_columns_are_kept_as_extras_never_guessed(tmp_path: Path) -> None:
    p = _w(tmp_path, "p.log", "\n".join(
        f"20261202 step {i} gpu {i % 2} util {80 + i} thr {100 + i} t {1764700000000 + i * 500}" for i in range(10)) + "\n")
    pat = (r"(?P<date>\d+) step (?P<step>\d+) gpu (?P<gpu>\d) util (?P<gpu_util_pct>\d+) thr (?P<samples_per_s>\d+) "
           r"t (?P<t_s>\d+)")
    (run,) = load(p, IngestOptions(pattern=pat))
    t = run.table
    assert t["gpu_util"].tolist()[:3] == pytest.approx([0.80, 0.81, 0.82])  # the real utilisation, not the GPU index
    assert t["t_s"].tolist()[:3] == [0.0, 0.5, 1.0]  # epoch ms, as a CSV header would be read
    assert run.metadata["start_epoch_s"] == pytest.approx(1764700000.0)
    assert run.metadata["extra_columns"] == {"date": [20261202] * 10, "gpu": [i % 2 for i in range(10)]}
    assert any("date, gpu are not Timeline columns or documented aliases" in w for w in run.warnings)
    # --map still names a group explicitly
    (mapped,) = load(p, IngestOptions(pattern=pat, mapping={"gpu": ("samples", None)}))
    assert mapped.table["samples"].tolist()[:2] == [0.0, 1.0] and "gpu" not in mapped.metadata["extra_columns"]


@pytest.mark.parametrize("name", ["wall_time", "time", "timestamp", "t_s", "elapsed"])
def test_every_time_alias_reads_iso_and_epoch_the_same_way(tmp_path: Path, name: str) -> None:
    iso = _w(tmp_path, "iso.csv", f"{name},samples_per_s\n2026-12-02T10:00:00,1\n2026-12-02T10:00:02.5,2\n2026-12-02T10:00:05,3\n")
    (run,) = load(iso)
    assert run.table["t_s"].tolist() == [0.0, 2.5, 5.0] and not run.rejected
    assert run.metadata["start_time"] == "2026-12-02T10:00:00"
    ms = _w(tmp_path, "ms.csv", f"{name},samples_per_s\n1764700000000,1\n1764700000500,2\n1764700001000,3\n")
    (run,) = load(ms)
    assert run.table["t_s"].tolist() == [0.0, 0.5, 1.0] and run.metadata["start_epoch_s"] == 1764700000.0
    el = _w(tmp_path, "el.csv", f"{name},samples_per_s\n3.5,1\n4.0,2\n4.5,3\n")
    assert load(el)[0].table["t_s"].tolist() == [3.5, 4.0, 4.5]  # elapsed seconds stay as they are


def test_text_cells_in_a_numeric_csv_block_are_converted_per_column() -> None:
    import pyarrow as pa

    from costmodel.ingest.tabular import _text_to_float

    vals, bad, unit = _text_to_float(pa.array(["97.5", "12", "N/A", "", " 3.5 ", "-4", "1e3", "nan", "err"]))
    assert np.isnan(vals[[2, 3, 7, 8]]).all() and vals[[0, 1, 4, 5, 6]].tolist() == [97.5, 12.0, 3.5, -4.0, 1000.0]
    assert bad.tolist() == [False, False, False, False, False, False, False, True, True] and unit is False
    assert _text_to_float(pa.array(["87", "88 %"]))[2] is True  # a unit in a cell: the caller reads the file as text


def test_text_bad_aux_cells_keep_the_typed_columns(tmp_path: Path) -> None:
    n = 30_000
    rows = [f"{i},{1000 + i % 7},{'err' if i % 50 == 7 else 85 + i % 10}" for i in range(n)]
    p = _w(tmp_path, "big.csv", "step,samples_per_s,gpu_util_pct\n" + "\n".join(rows) + "\n")
    (run,) = load(p)
    assert run.rows == n and run.metadata["missing_cells"]["gpu_util"]["count"] == n // 50
    assert run.metadata["missing_cells"]["gpu_util"]["first_lines"][:2] == [9, 59]  # step 7 on line 9
    assert run.table["samples_per_s"].iloc[7] == 1000.0 and np.isnan(run.table["gpu_util"].iloc[7])
    assert run.table["gpu_util"].iloc[8] == pytest.approx(0.93)


def test_malformed_row_and_text_cell_in_one_block_are_each_reported_once(tmp_path: Path) -> None:
    rows = ["step,samples_per_s,gpu_util_pct"] + [f"{i},{100 + i},{'err' if i == 30 else 90}" for i in range(100)]
    rows[50] = "49,149,90,extra"  # step 49 has a fourth field
    (run,) = load(_w(tmp_path, "m.csv", "\n".join(rows) + "\n"))
    assert run.rows == 99 and [(x.line, x.reason) for x in run.rejected] == [(51, "malformed row: expected 3 fields, found 4")]
    assert run.metadata["missing_cells"]["gpu_util"]["first_lines"] == [32]


def test_one_out_of_range_fraction_cell_is_a_bad_cell_not_a_percent_column(tmp_path):
    # 19 gpu_util cells near 0.99 and one 7.5: the 7.5 is a bad cell (kept as missing); the column is not
    # divided by 100 (which turned 0.99 into 0.0099 for every row). A real percent column still is.
    rows = ["step,t_s,samples_per_s,gpu_util"] + [f"{i},{i + 1}.0,100.0,{0.9 + i / 1000:.3f}" for i in range(20)]
    rows[5] = "4,5.0,100.0,7.5"
    p = tmp_path / "aux.csv"
    p.write_text("\n".join(rows) + "\n")
    (run,) = load(p)
    util = run.table["gpu_util"].to_numpy()
    assert len(run.table) == 20
    assert np.isnan(util[4])
    assert util[0] == pytest.approx(0.9) and util[19] == pytest.approx(0.919)
    pct = tmp_path / "pct.csv"
    pct.write_text("\n".join(["step,t_s,samples_per_s,gpu_util"]
                             + [f"{i},{i + 1}.0,100.0,{90 + i / 10:.1f}" for i in range(20)]) + "\n")
    (run,) = load(pct)
    assert run.table["gpu_util"].to_numpy()[0] == pytest.approx(0.9)
