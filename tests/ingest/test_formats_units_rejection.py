"""Ingestion: formats, aliases and units, rejection rules, the CLI contract, round trips."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from costmodel.cli import main
from costmodel.foundation.errors import IngestError
from costmodel.foundation.timeline import read_runs, write_runs
from costmodel.ingest import IngestOptions, load, load_many, sniff_format
from costmodel.ingest.units import resolve_column
from costmodel.ingest.validate import MAX_BAD_FRACTION

GIB = 2.0**30


def _w(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


# ------------------------------------------------------------------ read client text


def test_benchtext_exact_format(tmp_path: Path) -> None:
    p = _w(tmp_path, "client.txt", "files=400 workers=8\npass=1 data=0.78 GiB time=0.45s throughput=1.75 GiB/s\n"
           "pass=2 data=0.78 GiB time=0.18s throughput=4.33 GiB/s\n")
    (r,) = load(p)
    assert r.format == "benchtext" and r.metadata["files"] == 400 and r.metadata["workers"] == 8
    t = r.table
    assert t["step"].tolist() == [1, 2]
    assert t["bytes_read"].tolist() == [0.78 * GIB, 0.78 * GIB]
    assert t["read_bytes_per_s"].tolist() == [1.75 * GIB, 4.33 * GIB]
    assert t["t_s"].tolist() == pytest.approx([0.45, 0.63])
    assert r.warnings == []


def test_benchtext_noise_is_a_warning_and_no_files_is_an_error(tmp_path: Path) -> None:
    p = _w(tmp_path, "c.txt", "+ python read.py /mnt\nfiles=4 workers=2\nWARNING: slow\npass=1 data=1.00 GiB time=1.00s throughput=1.00 GiB/s\n")
    (r,) = load(p)
    assert r.rows == 1 and len(r.warnings) == 2 and ":3:" in r.warnings[1]
    q = _w(tmp_path, "none.txt", "No files found under /mnt/data\n")
    with pytest.raises(IngestError, match=r"no files under /mnt/data"):
        load(q)


def test_costmodel_bench_line_format_is_read(tmp_path: Path) -> None:
    from costmodel.bench.result import format_header, format_pass_line  # what `costmodel bench` prints

    text = format_header(10, 4) + "\n" + format_pass_line(3, int(2 * GIB), 0.5) + "\n"
    (r,) = load(_w(tmp_path, "b.txt", text))
    assert r.table["step"].iloc[0] == 3
    assert r.table["read_bytes_per_s"].iloc[0] == pytest.approx(4.0 * GIB)


# ------------------------------------------------------------------ tabular


def test_aliases_and_units() -> None:
    assert resolve_column("read_MBps").factor == 1e6
    assert resolve_column("read_MiBps").factor == 2**20
    assert resolve_column("read_GBps").factor == 1e9
    assert resolve_column("step_time_ms").column == "step_time_s"
    assert resolve_column("gpu_util_pct").factor == 0.01
    assert resolve_column("utilization.gpu [%]").column == "gpu_util"
    assert resolve_column("samples/s").column == "samples_per_s"
    assert resolve_column("tok/s").column == "tokens_per_s"
    assert resolve_column("global_step").column == "step"
    assert resolve_column("hit_rate").column == "cache_hit_ratio"
    assert resolve_column("dataloader_time").column == "data_wait_s"
    assert resolve_column("Throughput MiB/s").column == "read_bytes_per_s"
    assert resolve_column("loss") is None


def test_csv_units_to_si_and_cumsum_time(tmp_path: Path) -> None:
    p = _w(tmp_path, "s.csv", "iteration,samples/s,step_time_ms,gpu_util_pct,read_MiBps,cache_hit_pct\n"
           "1,100,500,80,1000,50\n2,110,250,90,1100,95\n")
    (r,) = load(p)
    t = r.table
    assert t["samples_per_s"].tolist() == [100, 110]
    assert t["step_time_s"].tolist() == [0.5, 0.25]
    assert t["t_s"].tolist() == [0.5, 0.75]  # cumulative step time
    assert t["gpu_util"].tolist() == [0.8, 0.9]
    assert t["read_bytes_per_s"].tolist() == [1000 * 2**20, 1100 * 2**20]
    assert t["cache_hit_ratio"].tolist() == pytest.approx([0.5, 0.95])
    assert r.metadata["t_s_from"] == "cumsum(step_time_s)"


def test_tsv_iso_time_and_epoch_ms(tmp_path: Path) -> None:
    p = _w(tmp_path, "s.tsv", "step\ttimestamp\tthroughput\n1\t2024-05-01T10:00:00\t5\n2\t2024-05-01T10:00:02.5\t6\n")
    (r,) = load(p)
    assert r.table["t_s"].tolist() == [0.0, 2.5] and r.metadata["start_time"].startswith("2024-05-01T10:00:00")
    q = _w(tmp_path, "e.csv", "step,time,samples_per_s\n1,1700000000000,5\n2,1700000001500,6\n")
    assert load(q)[0].table["t_s"].tolist() == [0.0, 1.5]
    q2 = _w(tmp_path, "e2.csv", "step,time,samples_per_s\n1,1700000000,5\n2,1700000003,6\n")
    assert load(q2)[0].table["t_s"].tolist() == [0.0, 3.0]


def test_jsonl_kv_parquet(tmp_path: Path) -> None:
    import pandas as pd

    j = _w(tmp_path, "a.jsonl", '{"global_step": 1, "samples_per_sec": 10, "data_wait_ms": 5}\n'
           '{"global_step": 2, "samples_per_sec": 12, "data_wait_ms": 7}\n')
    (r,) = load(j)
    assert r.table["data_wait_s"].tolist() == [0.005, 0.007]
    k = _w(tmp_path, "train.log", "step=10 samples/s=101.2 gpu_util=87%\nstep=20 samples/s=103.5 gpu_util=90%\n")
    (r,) = load(k)
    assert r.format == "tabular/kv" and r.table["gpu_util"].tolist() == [0.87, 0.90]
    assert r.table["step"].tolist() == [10, 20]
    pq = tmp_path / "x.parquet"
    pd.DataFrame({"batch": [1, 2, 3], "tokens_per_sec": [1e4, 2e4, 3e4], "loss": [3, 2, 1]}).to_parquet(pq)
    (r,) = load(pq)
    assert r.format == "tabular/parquet" and r.table["tokens_per_s"].tolist() == [1e4, 2e4, 3e4]
    assert any("loss" in w for w in r.warnings)


def test_canonical_example_csvs_ingest_as_is(examples_dir: Path) -> None:
    res = load_many([examples_dir / "colocated_steps.csv", examples_dir / "remote_steps.csv"], IngestOptions())
    assert [r.run_id for r in res.runs] == ["colocated_steps", "remote_steps"]
    assert res.rejected_rows == 0 and res.warnings == []
    assert res.runs[0].table["gpu_util"].max() <= 1.0


def test_map_option_and_units(tmp_path: Path) -> None:
    p = _w(tmp_path, "m.csv", "n,speed,lat\n1,50,2\n2,60,3\n")
    opts = IngestOptions(mapping={"n": ("step", None), "speed": ("samples_per_s", None), "lat": ("read_latency_s", "ms")})
    (r,) = load(p, opts)
    assert r.table["read_latency_s"].tolist() == [0.002, 0.003]
    with pytest.raises(IngestError, match="unknown Timeline column"):
        load(p, IngestOptions(mapping={"speed": ("speed_col", None)}))
    with pytest.raises(IngestError, match="no column named"):
        load(p, IngestOptions(mapping={"nope": ("samples_per_s", None)}))


def test_pattern_named_groups(tmp_path: Path) -> None:
    p = _w(tmp_path, "x.log", "boot\nit 1 took 250 ms -> 40.5 img/s\nit 2 took 200 ms -> 50.0 img/s\n")
    opts = IngestOptions(pattern=r"it (?P<step>\d+) took (?P<step_time_ms>[\d.]+) ms -> (?P<samples_per_s>[\d.]+)")
    (r,) = load(p, opts)
    assert r.table["step_time_s"].tolist() == [0.25, 0.2] and r.table["samples_per_s"].tolist() == [40.5, 50.0]
    assert any("did not match" in w for w in r.warnings)
    with pytest.raises(IngestError, match="named groups"):
        load(p, IngestOptions(pattern=r"it \d+"))


def test_fio_concatenated_and_jsonplus(tmp_path: Path) -> None:
    job = {"jobname": "j", "read": {"io_kbytes": 1024, "bw_bytes": 2048, "iops": 2.0, "runtime": 500,
                                    "clat_ns": {"mean": 1000.0, "percentile": {"50.000000": 900, "99.000000": 5000},
                                                "bins": {"FIO_IO_U_PLAT_BITS": 6, "896": 3, "5120": 1}}},
           "write": {"io_kbytes": 0, "bw": 0, "iops": 0, "runtime": 0}}
    doc1 = json.dumps({"fio version": "fio-3.36", "jobs": [job]}, indent=1)
    job2 = json.loads(json.dumps(job))
    job2["read"]["bw_bytes"] = 4096
    doc2 = json.dumps({"fio version": "fio-3.36", "jobs": [job2]}, indent=1)
    p = _w(tmp_path, "f.json", "fio-3.36\nStarting 1 process\n" + doc1 + "\n" + doc2 + "\nRun status group 0\n")
    (r,) = load(p)
    assert r.table["read_bytes_per_s"].iloc[0] == 4096  # last (cumulative) document
    assert r.metadata["read"]["clat_percentiles_s"] == pytest.approx({"p50": 900e-9, "p99": 5000e-9})
    assert r.metadata["read"]["clat_bins"] == 2
    assert any("concatenated" in w for w in r.warnings)


def test_gpu_merged_onto_training_run_by_time(tmp_path: Path) -> None:
    tr = _w(tmp_path, "train.csv", "step,timestamp,samples_per_s\n1,2024-01-01T00:00:01,10\n2,2024-01-01T00:00:02,11\n"
            "3,2024-01-01T00:00:03,12\n")
    smi = _w(tmp_path, "smi.csv", "timestamp, index, utilization.gpu [%], power.draw [W]\n"
             "2024/01/01 00:00:01.000, 0, 50 %, 100.00 W\n2024/01/01 00:00:01.000, 1, 70 %, 120.00 W\n"
             "2024/01/01 00:00:02.000, 0, 90 %, 300.00 W\n2024/01/01 00:00:02.000, 1, 100 %, 310.00 W\n"
             "2024/01/01 00:00:03.000, 0, N/A, 290.00 W\n2024/01/01 00:00:03.000, 1, 80 %, 280.00 W\n")
    res = load_many([tr, smi])
    assert len(res.runs) == 1
    t = res.runs[0].table
    # time-weighted: each row (the second before its timestamp) takes the samples covering that second;
    # mean over GPUs; GPU 0's N/A at 3 s covers nothing, so the third row has GPU 1's 80 % only
    assert t["gpu_util"].tolist() == pytest.approx([0.6, 0.95, 0.80])
    assert t["gpu_power_w"].tolist() == pytest.approx([110.0, 305.0, 285.0])
    assert res.runs[0].metadata["gpu_merged_from"] == ["smi:gpu0", "smi:gpu1"]


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "name,content,match",
    [
        ("empty.csv", "", "empty"),
        ("garbage.bin", None, "binary|unknown format"),
        ("trunc.json", '{"fio version": "fio-3.3", "jobs": [{"jobname": "a", "read": {', "no complete fio JSON"),
        ("nocol.csv", "a,b,c\n1,2,3\n4,5,6\n", "no usable column"),
        ("types.csv", "step,samples_per_s\n1,fast\n2,slow\n3,quick\n", "bad"),
        ("neg.csv", "step,samples_per_s\n1,-5\n2,-6\n3,-7\n4,10\n", "negative"),
        ("nan.csv", "step,samples_per_s\n1,nan\n2,nan\n3,nan\n4,1\n", "not a number"),
        ("back.csv", "step,t_s,samples_per_s\n1,10,1\n2,9,1\n3,8,1\n4,7,1\n", "backwards"),
        ("dup.csv", "step,samples_per_s\n1,1\n1,1\n1,1\n1,1\n", "duplicate step"),
        ("unknown.txt", "hello world\nthis is prose\n", "unknown format"),
    ],
)
def test_bad_files_raise_ingest_error_naming_the_file(tmp_path: Path, name: str, content: str | None, match: str) -> None:
    p = tmp_path / name
    if content is None:
        p.write_bytes(bytes(range(256)) * 8)
    else:
        p.write_text(content)
    with pytest.raises(IngestError, match=match) as exc:
        load(p)
    assert str(p) in str(exc.value)


def test_few_bad_rows_are_rejected_counted_and_shown(tmp_path: Path) -> None:
    rows = [f"{i},{100 + i}" for i in range(1, 41)]
    rows[9] = "10,-3"  # negative throughput at line 11
    rows[19] = "20,abc"  # wrong type at line 21
    rows[29] = "29,130"  # duplicate step at line 31
    p = _w(tmp_path, "few.csv", "step,samples_per_s\n" + "\n".join(rows) + "\n")
    res = load_many([p])
    assert res.rejected_rows == 3 and res.runs[0].rows == 37
    lines = sorted(x.line for x in res.rejected)
    assert lines == [11, 21, 31]
    assert any(":11 [samples_per_s]" in w and "negative" in w for w in res.warnings)
    assert any(":31 [step]" in w and "duplicate step 29" in w for w in res.warnings)
    with pytest.raises(IngestError, match="--strict"):
        load(p, IngestOptions(strict=True))


def test_threshold_between_good_and_bad_file(tmp_path: Path) -> None:
    n = 100
    bad = int(MAX_BAD_FRACTION * n)  # exactly at the limit: still a good file
    rows = [f"{i},{-1 if i <= bad else 5}" for i in range(1, n + 1)]
    p = _w(tmp_path, "edge.csv", "step,samples_per_s\n" + "\n".join(rows) + "\n")
    assert load(p)[0].rows == n - bad
    rows[bad] = f"{bad + 1},-1"
    p.write_text("step,samples_per_s\n" + "\n".join(rows) + "\n")
    with pytest.raises(IngestError, match=r"11 of 100 rows are bad"):
        load(p)


def test_malformed_csv_row_is_rejected_with_line(tmp_path: Path) -> None:
    rows = [f"{i},{i * 2}" for i in range(1, 31)]
    rows[4] = "5,10,99,extra"
    p = _w(tmp_path, "m.csv", "step,samples_per_s\n" + "\n".join(rows) + "\n")
    (r,) = load(p)
    assert r.rows == 29 and r.rejected[0].line == 6 and "fields" in r.rejected[0].reason


# ------------------------------------------------------------------ round trips and CLI


def test_timeline_parquet_round_trip(tmp_path: Path) -> None:
    p = _w(tmp_path, "s.csv", "step,samples_per_s,gpu_util\n1,5,0.5\n2,6,0.6\n")
    runs = load(p, IngestOptions(role="remote", run_id="r1"))
    out = write_runs(runs, tmp_path / "t.parquet")
    assert sniff_format(out) == "timeline"
    (back,) = load(out)
    assert back.run_id == "r1" and back.role == "remote" and back.format == "tabular/csv"
    assert back.table["gpu_util"].tolist() == [0.5, 0.6]
    assert read_runs(out)[0].metadata["columns_mapped"]["gpu_util"] == "gpu_util"


def test_cli_json_contract_and_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _w(tmp_path, "s.csv", "step,samples_per_s\n1,5\n2,-1\n" + "".join(f"{i},{i}\n" for i in range(3, 30)))
    out = tmp_path / "o.parquet"
    rc = main(["ingest", str(p), "--role", "colocated", "-o", str(out), "--json"])
    assert rc == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d) >= {"runs", "rejected_rows", "warnings"} and d["rejected_rows"] == 1
    run = d["runs"][0]
    assert {"run_id", "format", "rows", "columns", "role", "source"} <= set(run)
    assert run["rows"] == 28 and run["role"] == "colocated" and "samples_per_s" in run["columns"]
    assert out.exists() and read_runs(out)[0].rows == 28


def test_cli_bad_input_exits_2_one_line_no_output(tmp_path: Path) -> None:
    p = _w(tmp_path, "bad.csv", "a,b\n1,2\n")
    out = tmp_path / "o.parquet"
    proc = subprocess.run([sys.executable, "-m", "costmodel", "ingest", str(p), "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "no usable column" in proc.stderr and str(p) in proc.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == [p]


def test_unknown_format_option(tmp_path: Path) -> None:
    p = _w(tmp_path, "s.csv", "step,samples_per_s\n1,5\n")
    with pytest.raises(IngestError, match="expected one of"):
        load(p, IngestOptions(fmt="nope"))
    assert np.isnan(load(p, IngestOptions(fmt="csv"))[0].table["t_s"]).all()


# ------------------------------------------------------------------ streaming (inputs larger than memory)


def test_streaming_matches_whole_file_load(tmp_path: Path) -> None:
    from costmodel.ingest.stream import ingest_to_parquet

    n = 20000
    rows = [f"{i},{100 + i % 7},{250 + i % 3},{80 + i % 20},{1000 + i % 11}" for i in range(1, n + 1)]
    rows[12000] = f"{12000},5,250,80,1000"  # duplicate of the previous step, far from the first batch
    p = _w(tmp_path, "big.csv", "step,samples/s,step_time_ms,gpu_util_pct,read_MiBps\n" + "\n".join(rows) + "\n")
    whole = load(p)[0]
    out = tmp_path / "t.parquet"
    res = ingest_to_parquet([p], out, IngestOptions(), stream_bytes=0, block_bytes=64 * 1024)  # many small batches
    assert res.runs[0].rows == whole.rows == n - 1 and res.rejected_rows == 1
    assert res.rejected[0].line == 12002 and "duplicate step 12000" in res.rejected[0].reason
    (back,) = read_runs(out)
    for c in ("step", "samples_per_s", "step_time_s", "gpu_util", "read_bytes_per_s", "t_s"):
        np.testing.assert_allclose(back.table[c].to_numpy(dtype=float), whole.table[c].to_numpy(dtype=float))
    assert back.metadata["streamed"] is True


def test_streaming_bad_file_writes_nothing(tmp_path: Path) -> None:
    from costmodel.ingest.stream import ingest_to_parquet

    p = _w(tmp_path, "bad.csv", "step,samples_per_s\n" + "".join(f"{i},-1\n" for i in range(1, 5000)))
    out = tmp_path / "t.parquet"
    with pytest.raises(IngestError, match="rows are bad"):
        ingest_to_parquet([p], out, IngestOptions(), stream_bytes=0, block_bytes=16 * 1024)
    assert not out.exists() and [x.name for x in tmp_path.iterdir()] == ["bad.csv"]


def test_cli_streams_big_inputs_with_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    import costmodel.ingest.stream as stream

    monkeypatch.setattr(stream, "STREAM_BYTES", 1)  # every CSV counts as big
    p = _w(tmp_path, "s.csv", "step,samples_per_s\n" + "".join(f"{i},{i}\n" for i in range(1, 101)))
    out = tmp_path / "o.parquet"
    assert main(["ingest", str(p), "-o", str(out), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["runs"][0]["rows"] == 100 and d["runs"][0]["metadata"]["streamed"] is True
    assert read_runs(out)[0].table["samples_per_s"].sum() == 5050


def test_dcgm_exporter_csv(tmp_path: Path) -> None:
    p = _w(tmp_path, "dcgm.csv", "timestamp,gpu,DCGM_FI_DEV_GPU_UTIL,DCGM_FI_DEV_POWER_USAGE\n"
           "1700000000,0,0.5,100\n1700000000,1,1,120\n1700000001,0,95,300\n1700000001,1,97,310\n")
    runs = load(p)
    assert [r.run_id for r in runs] == ["dcgm:gpu0", "dcgm:gpu1"] and runs[0].format == "dcgm_exporter"
    # DCGM_FI_DEV_GPU_UTIL is a percentage even when a value is <= 1
    assert runs[0].table["gpu_util"].tolist() == pytest.approx([0.005, 0.95])
    assert runs[0].table["gpu_power_w"].tolist() == [100.0, 300.0]
    assert runs[1].table["t_s"].tolist() == [0.0, 1.0]


def test_fio_client_stats_mixed_and_old_clat(tmp_path: Path) -> None:
    doc = {"fio version": "fio-2.99", "client_stats": [
        {"jobname": "rw", "hostname": "node1",
         "mixed": {"io_bytes": 2048, "io_kbytes": 2, "bw": 4, "iops": 1.0, "runtime": 2000,
                   "clat": {"mean": 250.0, "percentile": {"99.000000": 400, "0.00": 0}}}},
        {"jobname": "All clients", "read": {"io_kbytes": 0, "bw": 0, "iops": 0, "runtime": 0}}]}
    runs = load(_w(tmp_path, "cs.json", json.dumps(doc)))
    assert len(runs) == 1 and runs[0].run_id == "cs:node1/rw"  # the all-zero aggregate gives no row
    row = runs[0].table.iloc[0]
    assert row["read_bytes_per_s"] == 4 * 1024 and row["t_s"] == 2.0
    assert row["read_latency_s"] == pytest.approx(250e-6)  # "clat" without _ns is in us
    assert runs[0].metadata["mixed"]["clat_percentiles_s"] == pytest.approx({"p99": 400e-6})


def test_fio_lat_log_and_format_override(tmp_path: Path) -> None:
    (lat,) = load(_w(tmp_path, "job_lat.1.log", "100, 250000, 0, 4096, 0\n200, 260000, 0, 4096, 0\n300, 900, 1, 4096, 0\n"))
    assert lat.rows == 2 and lat.table["read_latency_s"].tolist() == pytest.approx([250e-6, 260e-6])
    assert any("write latency" in w for w in lat.warnings)
    p = _w(tmp_path, "noname.log", "0, 100, 0, 4096\n500, 200, 0, 4096\n")
    with pytest.raises(IngestError, match="--format fio_bw"):
        load(p)
    (bw,) = load(p, IngestOptions(fmt="fio_bw"))
    assert bw.table["read_bytes_per_s"].tolist() == [102400.0, 204800.0]


def test_dlio_log_line_variants(tmp_path: Path) -> None:
    text = (
        "[INFO] 2025-02-01T10:00:00.000000 Rank 0 step 1 processed 4 samples in 2.0000s) [x.py:1]\n"
        "[INFO] 2025-02-01T10:00:00.500000 Rank 0 step 2: loaded 4 samples in 0.5000 s [x.py:2]\n"
        "[INFO] 2025-02-01T10:00:01.000000 Rank 0 step 1 processed 4 samples in 0.4000s) [x.py:1]\n"
        "[INFO] 2025-02-01T10:00:01.000000 Epoch 1 - Block 1 [Training] Throughput (samples/second): 4.7693\n"
    )
    (r,) = load(_w(tmp_path, "dlio.log", text))
    assert r.table["step_time_s"].tolist() == [2.0, 0.5, 0.4]
    assert r.table["epoch"].tolist() == [1, 1, 2]  # the step number restarts: a new epoch
    assert r.table["t_s"].tolist() == [0.0, 0.5, 1.0]
    assert r.metadata["summary_lines"] and any("not imported" in w for w in r.warnings)


def test_elbencho_read_phase(tmp_path: Path) -> None:
    text = ("OPERATION RESULT TYPE        FIRST DONE  LAST DONE\n========= ================   ==========  =========\n"
            "READ      Elapsed ms       :       1000       2000\n          IOPS             :        100         90\n"
            "          Throughput MiB/s :        200        180\n          Total MiB        :        300        360\n---\n")
    (r,) = load(_w(tmp_path, "elb.txt", text))
    row = r.table.iloc[0]
    assert row["read_bytes_per_s"] == 180 * 2**20 and row["read_iops"] == 90 and row["bytes_read"] == 360 * 2**20
    assert row["step_time_s"] == 2.0 and np.isnan(row["write_bytes_per_s"])


def test_many_files_written_one_at_a_time(tmp_path: Path) -> None:
    from costmodel.ingest.stream import ingest_to_parquet

    d = tmp_path / "logs"
    d.mkdir()
    for k in range(3):
        _w(d, f"n{k}.csv", "step,samples_per_s\n" + "".join(f"{i},{10 * k + i}\n" for i in range(1, 21)))
    (d / "._n0.csv").write_bytes(b"\x00\x05\x16\x07" + bytes(60))
    out = tmp_path / "t.parquet"
    res = ingest_to_parquet([d], out, IngestOptions(), stream_bytes=10)  # tiny limit: as if they did not fit
    assert [r.run_id for r in res.runs] == ["n0", "n1", "n2"] and all(r.rows == 20 for r in res.runs)
    assert any("._n0.csv: skipped" in w for w in res.warnings)
    back = read_runs(out)
    assert [r.table["samples_per_s"].iloc[0] for r in back] == [1.0, 11.0, 21.0]


def test_csv_with_spaces_after_commas(tmp_path: Path) -> None:
    (a,) = load(_w(tmp_path, "a.csv", "step, time, samples/s\n1, 2024-01-01T00:00:00, 5\n2, 2024-01-01T00:00:01.5, 6\n"))
    assert a.table["t_s"].tolist() == [0.0, 1.5] and a.table["samples_per_s"].tolist() == [5.0, 6.0]
    (b,) = load(_w(tmp_path, "b.csv", "step, samples/s, gpu_util\n1, 5, 87%\n2, 6.5, 90 %\n"))
    assert b.table["gpu_util"].tolist() == [0.87, 0.90] and b.table["samples_per_s"].tolist() == [5.0, 6.5]


def test_byte_order_mark_is_not_content(tmp_path: Path) -> None:
    p = tmp_path / "bom.csv"
    p.write_bytes("\ufeffstep,samples_per_s\n1,5\n2,6\n".encode("utf-8"))
    (r,) = load(p)
    assert r.table["step"].tolist() == [1, 2] and r.warnings == []
    q = tmp_path / "bom.jsonl"
    q.write_bytes('\ufeff{"step": 1, "throughput": 5}\n{"step": 2, "throughput": 6}\n'.encode("utf-8"))
    assert load(q)[0].table["samples_per_s"].tolist() == [5.0, 6.0]


def test_unit_guesses_are_said(tmp_path: Path) -> None:
    (r,) = load(_w(tmp_path, "g.csv", "step,latency,read_mbps\n1,5,100\n2,6,110\n"))
    assert r.table["read_latency_s"].tolist() == [5.0, 6.0]  # bare "latency": seconds, with a warning
    assert r.table["read_bytes_per_s"].tolist() == [100e6, 110e6]
    assert any("'latency' has no unit" in w for w in r.warnings)
    assert any("megabytes per second" in w for w in r.warnings)
    (m,) = load(r.source, IngestOptions(mapping={"read_mbps": ("read_bytes_per_s", "Mbit/s"), "latency": ("read_latency_s", "ms")}))
    assert m.table["read_bytes_per_s"].tolist() == [12.5e6, 13.75e6] and m.table["read_latency_s"].tolist() == [0.005, 0.006]
