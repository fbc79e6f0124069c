"""Every real fixture ingests (or, when it is not a benchmark output, fails with a clear IngestError);
values spot-checked against the files by hand, converted to SI."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from costmodel.foundation.errors import IngestError
from costmodel.ingest import load, load_many

MIB = 2.0**20
NOT_OUTPUTS = {".yaml", ".job", ".md"}
#: files beside real outputs that describe a run but are not outputs (settings, machine, console progress)
DESCRIPTIONS = {"meta.json", "environment.txt", "train.log"}


def _all_files(real_dir: Path) -> list[Path]:
    return sorted(p for p in real_dir.rglob("*") if p.is_file() and p.name != "SOURCES.md")


def test_every_real_file_ingests_or_says_why(real_dir: Path) -> None:
    files = _all_files(real_dir)
    assert len(files) >= 35
    loaded = 0
    for p in files:
        if p.suffix in NOT_OUTPUTS:
            with pytest.raises(IngestError) as exc:
                load(p)
            assert "not a benchmark output" in str(exc.value) or "job file" in str(exc.value)
            assert str(p) in str(exc.value)
            continue
        if p.name in DESCRIPTIONS:
            with pytest.raises(IngestError) as exc:
                load(p)
            assert str(p) in str(exc.value) and "unknown format" in str(exc.value)
            continue
        runs = load(p)
        assert runs, p
        for r in runs:
            assert r.rows >= 1
            assert set(r.columns) - {"step", "t_s", "epoch"}, f"{p}: no metric column"
            assert not r.rejected, f"{p}: {r.rejected[:3]}"
        loaded += 1
    assert loaded >= 30


def test_fio_334_text_before_json(real_dir: Path) -> None:
    (r,) = load(real_dir / "fio/fio-plot_fio-3.34/randread-1-1.json")
    row = r.table.iloc[0]
    assert row["read_bytes_per_s"] == 41380254  # bw_bytes
    assert row["read_iops"] == pytest.approx(10102.601156)
    assert row["t_s"] == pytest.approx(2.767)  # job_runtime 2767 ms
    assert row["bytes_read"] == 111856 * 1024  # io_kbytes
    assert row["read_latency_s"] == pytest.approx(95948.612502e-9)  # clat_ns mean
    assert np.isnan(row["write_bytes_per_s"])  # unused direction is NaN, never 0
    assert any("terminating on signal 2" in w for w in r.warnings)
    assert r.metadata["read"]["clat_percentiles_s"]["p99"] > 0


def test_fio_31_duplicate_percentile_keys_and_kib_bw(real_dir: Path) -> None:
    (r,) = load(real_dir / "fio/fio-plot_fio-3.1/randread-4-1.json")
    row = r.table.iloc[0]
    assert row["read_bytes_per_s"] == 62043 * 1024  # no bw_bytes before 3.2: bw is KiB/s
    assert row["bytes_read"] == 3722652 * 1024
    pct = r.metadata["read"]["clat_percentiles_s"]
    assert "p0" not in pct and all(v > 0 for v in pct.values())


def test_fio_214_five_jobs_old_units(real_dir: Path) -> None:
    runs = load(real_dir / "fio/pkb_fio-2.1.4/fio-parser-sample-result.json")
    assert [r.run_id.split(":")[1] for r in runs] == [
        "sequential_write", "sequential_read", "random_write_test", "random_read_test", "random_read_test_parallel"]
    rr = runs[3].table.iloc[0]
    assert rr["read_bytes_per_s"] == 1269 * 1024
    assert rr["bytes_read"] == 36244 * 1024  # io_bytes is KiB before fio 2.21
    assert rr["read_latency_s"] == pytest.approx(runs[3].metadata["read"]["clat_mean_s"])
    assert 1e-4 < rr["read_latency_s"] < 1.0  # clat in us -> s
    assert np.isnan(runs[0].table.iloc[0]["read_bytes_per_s"]) and runs[0].table.iloc[0]["write_bytes_per_s"] > 0


def test_fio_217_kib_io_bytes(real_dir: Path) -> None:
    runs = load(real_dir / "fio/pkb_fio-2.17_hist/pkb-7fb0c9d8-0_fio.json")
    assert len(runs) == 2
    assert runs[0].table.iloc[0]["bytes_read"] == 1294256 * 1024
    assert runs[0].table.iloc[0]["read_bytes_per_s"] == 129386 * 1024


def test_fio_logs(real_dir: Path) -> None:
    d = real_dir / "fio/axboe_fio_plot_samples"
    (bw,) = load(d / "m2sw1-128k-sdb-read-para.results_bw.log")
    assert bw.rows == 121
    assert bw.table["t_s"].iloc[1] == 0.5 and bw.table["read_bytes_per_s"].iloc[1] == 114432 * 1024
    (iops,) = load(d / "m2sw1-128k-sdb-read-para.results_iops.log")
    assert iops.table["read_iops"].iloc[1] == 894
    w = load(d / "m2sw1-128k-sdb-randwrite-para.results_bw.log")
    assert [r.rows for r in w] == [67, 63]  # two runs appended to one log: time restarts at line 68
    assert w[1].table["write_bytes_per_s"].iloc[0] == 24 * 1024


def test_fio_clat_hist(real_dir: Path) -> None:
    p = real_dir / "fio/pkb_fio-2.17_hist/pkb_fio_avg_1506559526.49_clat_hist.1.log"
    (r,) = load(p)
    first = [int(x) for x in p.read_text().splitlines()[0].split(",")]
    assert r.rows == 9 and r.metadata["bins"] == 1216
    assert r.table["samples"].iloc[0] == sum(first[3:])
    assert r.table["t_s"].iloc[0] == first[0] / 1e3
    assert 50e-6 < r.table["read_latency_s"].iloc[0] < 1e-3  # 16k random reads on a PD


def test_dlio_summary_and_epochs(real_dir: Path) -> None:
    (s,) = load(real_dir / "dlio/summary.json")
    assert s.rows == 4
    assert s.table["gpu_util"].iloc[0] == pytest.approx(0.992928248141294)
    assert s.table["samples_per_s"].iloc[0] == pytest.approx(5.1134572554679085)
    bps = 1139.7296277439752 * MIB / 5.095023867138283  # MB means MiB in DLIO
    assert s.table["read_bytes_per_s"].iloc[0] == pytest.approx(5.1134572554679085 * bps)
    # per_epoch_stats.json beside it gives the clock
    assert s.table["t_s"].iloc[0] == pytest.approx(32.866207, abs=1e-5)
    (e,) = load(real_dir / "dlio/per_epoch_stats.json")
    assert e.table["step_time_s"].tolist() == [32.86, 33.04, 32.53, 33.49]
    assert e.table["t_s"].iloc[0] == pytest.approx(32.866058, abs=1e-6)


def test_dlio_rank_output(real_dir: Path) -> None:
    (r,) = load(real_dir / "dlio/0_output.json")
    assert r.rows == 84  # 21 steps x 4 epochs
    assert r.table["step_time_s"].iloc[0] == pytest.approx(5.452648878097534)
    assert r.table["data_wait_s"].iloc[0] == pytest.approx(2.9556140899658203)
    assert r.table["samples_per_s"].iloc[0] == pytest.approx(4 / 5.452648878097534)  # batch_size 4 from .hydra
    (h,) = load(real_dir / "mlperf_storage/v1.0/HPE_unet3d_h100/run-2/4_output.json")
    assert h.rows == 571 * 5
    assert h.table["data_wait_s"].iloc[0] == pytest.approx(3.38, abs=0.01)
    assert h.table["epoch"].iloc[-1] == 5


def test_iostat(real_dir: Path) -> None:
    (r,) = load(real_dir / "dlio/iostat.json")
    assert r.rows == 132
    assert r.table["read_bytes_per_s"].iloc[0] == pytest.approx(1047.44 * MIB)
    assert r.table["read_latency_s"].iloc[0] == pytest.approx(0.00044)
    assert r.table["t_s"].iloc[1] == 1.0


def test_mlperf_storage_reports(real_dir: Path) -> None:
    runs = load(real_dir / "mlperf_storage/v0.5/mlperf_storage_report.json")
    assert len(runs) == 5
    r0 = runs[0].table.iloc[0]
    assert r0["samples_per_s"] == pytest.approx(2.916286259032672)
    assert r0["read_bytes_per_s"] == pytest.approx(407.72380542942085 * MIB)
    ddn = load(real_dir / "mlperf_storage/v1.0/DDN_cosmoflow_h100_16clients/mlperf_storage_report.json")
    assert all("result_cosmoflow_16" in r.run_id for r in ddn)
    (v,) = load(real_dir / "mlperf_storage/v1.0/Volumez_unet3d_h100_run3/summary.json")
    assert v.table["gpu_util"].iloc[0] == pytest.approx(0.901, abs=1e-3)
    assert v.table["samples_per_s"].iloc[0] == pytest.approx(7460.05, abs=0.01)


def test_dlio_text_log_per_rank(real_dir: Path) -> None:
    runs = load(real_dir / "mlperf_storage/v1.0/Volumez_unet3d_h100_run3/10.0.98.137.log")
    assert sorted(r.metadata["rank"] for r in runs) == [9, 146, 283]
    r9 = next(r for r in runs if r.metadata["rank"] == 9)
    assert r9.rows == 2500 and r9.table["epoch"].max() == 5
    assert r9.table["step_time_s"].iloc[0] == pytest.approx(13.877564907073975)
    assert r9.table["samples_per_s"].iloc[0] == pytest.approx(7 / 13.877564907073975)


def test_training_logs(real_dir: Path) -> None:
    ml, speed = load(real_dir / "training_logs/mlperf_output.txt")
    assert ml.format == "mllog" and ml.table["samples_per_s"].iloc[0] == pytest.approx(18824.00323782711)
    assert ml.table["t_s"].iloc[0] == pytest.approx((1627330333975 - 1627330265629) / 1e3)
    assert speed.rows == 665 and speed.table["samples_per_s"].iloc[0] == 17651.66
    assert speed.table["t_s"].iloc[1] == pytest.approx(3.019)
    (hf,) = load(real_dir / "training_logs/huggingface_bert_pretraining_output.txt")
    assert hf.rows == 24 and hf.table["samples_per_s"].iloc[0] == 1.78 and hf.table["step"].iloc[1] == 2
    assert hf.table["t_s"].iloc[1] == 183.0  # 21:27:46 -> 21:30:49
    (tf,) = load(real_dir / "training_logs/t2t_gpu_output.txt")
    assert tf.table["step"].iloc[0] == 100 and tf.table["step_time_s"].iloc[0] == pytest.approx(0.3279)
    assert tf.table["t_s"].iloc[1] == pytest.approx(32.790 + 24.226)


def test_superbench(real_dir: Path) -> None:
    p = real_dir / "training_logs/results.json"
    runs = load(p)
    assert len(runs) == 6 and all(r.rows == 128 for r in runs)
    doc = json.loads(p.read_text())
    b = next(x for x in doc if x["name"].endswith("resnet50"))
    r = next(x for x in runs if x.run_id.endswith("resnet50/float32"))
    assert r.table["step_time_s"].iloc[0] == pytest.approx(b["raw_data"]["steptime_train_float32"][0][0] / 1e3)
    assert r.table["samples_per_s"].iloc[0] == pytest.approx(b["raw_data"]["throughput_train_float32"][0][0])


def test_elbencho(real_dir: Path) -> None:
    (r,) = load(real_dir / "elbencho/nersc-tbn-6_tests_2021-01-01_0.txt")
    assert r.rows == 11
    row = r.table.iloc[0]
    assert row["write_bytes_per_s"] == 10488 * MIB and row["write_iops"] == 655 and row["step_time_s"] == 99.973


def test_gpu_telemetry(real_dir: Path) -> None:
    (d,) = load(real_dir / "gpu_util/DCGMIDmonResults.txt")
    assert d.rows == 15 and d.table["gpu_util"].iloc[2] == 0.998
    (p,) = load(real_dir / "gpu_util/nvidia_power_output.txt")
    assert p.rows == 91 and p.table["gpu_power_w"].iloc[0] == 16.48 and (p.table["t_s"] == 0).all()
    q = load(real_dir / "gpu_util/query-gpu-8xH100.csv")
    assert len(q) == 8 and q[0].table["gpu_power_w"].iloc[0] == 70.89
    assert q[1].table["t_s"].iloc[0] == pytest.approx(0.024)
    assert q[0].table["gpu_util"].iloc[0] == 0.0


def test_appledouble_skipped_in_many(real_dir: Path, tmp_path: Path) -> None:
    ad = tmp_path / "._summary.json"
    ad.write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        " + bytes(150))
    res = load_many([real_dir / "dlio/summary.json", ad])
    assert len(res.runs) == 1 and any("skipped" in w for w in res.warnings)
    with pytest.raises(IngestError, match="AppleDouble"):
        load(ad)


def test_whole_real_folder_in_one_call(real_dir: Path) -> None:
    res = load_many([real_dir])
    skipped = [w for w in res.warnings if "skipped" in w]
    # every file skipped is one that is not an output (configs, the fio job file, documents, run
    # descriptions), each with a note; identical notes fold into one "xN files: skipped (...)" warning
    names = [Path(f.strip(" ()")).name for w in skipped for f in re.findall(r"[^,()]*\.[A-Za-z]+(?=[,)]|: skipped)", w)]
    assert names and all(n.endswith((".yaml", ".job", ".md")) or n in DESCRIPTIONS for n in names), names
    assert "SOURCES.md" in names and any(n.endswith(".job") for n in names)
    assert any(w.startswith("x5 files: skipped (a YAML configuration file") for w in skipped)
    assert res.rejected_rows == 0
    assert len({r.run_id for r in res.runs}) == len(res.runs) >= 60
