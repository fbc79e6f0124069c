"""Readers for real training runs (issue 24): nvidia-smi dmon with any column set, telemetry merged by
time weighting, cumulative clocks, MLPerf tracked_stats and mixed MLLOG series, skip counts, Lightning
run names, and views of one console log counted as one repetition."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from costmodel.foundation.errors import IngestError
from costmodel.ingest import load, load_many
from costmodel.ingest.api import IngestOptions
from costmodel.ingest.gpumerge import time_weighted


def _w(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(text)
    return p


# ------------------------------------------------------------------ nvidia-smi dmon, any column set
def test_dmon_su_m_columns_sniffed_without_format(real_dir: Path) -> None:
    h200 = real_dir / "gpu_h200"
    (plain,) = load(h200 / "remote_dmon.txt")
    (dt,) = load(h200 / "remote_dmon_DT.txt")
    assert plain.format == dt.format == "nvidia_smi_dmon"
    assert plain.metadata["fields"][:2] == ["sm", "mem"] and "pwr" not in plain.metadata["fields"]
    # the sm column as a 0..1 fraction (first rows 9 %, 0 %, 0 % in both files: two dmon processes)
    assert plain.table["gpu_util"].tolist()[:3] == pytest.approx([0.09, 0.0, 0.0])
    assert dt.table["gpu_util"].tolist()[:3] == pytest.approx([0.09, 0.0, 0.0])
    assert dt.table["t_s"].tolist()[:3] == [0.0, 1.0, 2.0] and plain.rows > 90 and dt.rows > 90
    assert "start_epoch_s" in dt.metadata and "start_epoch_s" not in plain.metadata
    assert any("1 s interval assumed" in w for w in plain.warnings)


def test_dmon_power_only_and_time_only_and_skipped_lines(tmp_path: Path) -> None:
    p = _w(tmp_path, "p.txt", "#Time        gpu    pwr  gtemp  mtemp\n#HH:MM:SS    Idx      W      C      C\n"
           " 23:59:59      0    100     40      -\n 00:00:00      0    300     41      -\n"
           " 00:00:01      0    310     41\n garbage\n 00:00:02      0    305     42      -\n")
    (r,) = load(p)
    assert r.table["gpu_power_w"].tolist() == [100.0, 300.0, 305.0]
    assert r.table["t_s"].tolist() == [0.0, 1.0, 3.0]  # past midnight: +1 day
    assert "gpu_util" not in r.columns or not np.isfinite(r.table["gpu_util"]).any()
    assert r.metadata["skipped_lines"] == 2 and any("2 line(s)" in w for w in r.warnings)


# ------------------------------------------------------------------ telemetry merged by time weighting
def test_time_weighted_average_counts_each_second_once() -> None:
    # samples each second: busy 100 %, then a 2 s idle stall, then busy
    g = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    v = np.array([1.0, 1.0, 0.0, 0.0, 1.0])
    # 25 short steps inside second (0, 1], one 2 s stall row (2, 4], then a step inside (4, 5]
    a = np.concatenate([np.linspace(0.0, 0.96, 25), [2.0, 4.2]])
    b = np.concatenate([np.linspace(0.04, 1.0, 25), [4.0, 4.6]])
    out = time_weighted(a, b, g, v)
    assert out[:25] == pytest.approx(np.ones(25)) and out[25] == 0.0 and out[26] == 1.0
    d = b - a
    # duration-weighted over the rows = the time average of the telemetry over the covered time
    assert float(np.sum(out * d) / np.sum(d)) == pytest.approx((1.0 + 0.0 + 0.0 + 0.4) / 3.4)
    # outside the telemetry's span: nothing
    assert np.isnan(time_weighted(np.array([10.0]), np.array([11.0]), g, v)[0])


def test_h200_dmon_merged_onto_its_run_matches_the_dmon_time_average(real_dir: Path) -> None:
    h200 = real_dir / "gpu_h200"
    res = load_many([h200 / "remote.csv", h200 / "remote_dmon_DT.txt"])
    (run,) = res.runs
    t = run.table
    g, d = t["gpu_util"].to_numpy(), t["step_time_s"].to_numpy()
    ok = np.isfinite(g)
    assert ok.mean() > 0.99 and "time average" in run.metadata["gpu_merge"]
    merged = float(np.sum(g[ok] * d[ok]) / np.sum(d[ok]))
    (dm,) = load(h200 / "remote_dmon_DT.txt")
    tt = dm.table["t_s"].to_numpy() + dm.metadata["start_epoch_s"] - run.metadata["start_epoch_s"]
    inside = (tt > t["t_s"].iloc[0]) & (tt <= t["t_s"].iloc[-1])
    direct = float(dm.table["gpu_util"].to_numpy()[inside].mean())
    assert abs(merged - direct) < 0.02, (merged, direct)
    # the cold phase (the first 95 steps) ran the GPU far less than the steady state
    cold = float(np.sum(g[:95] * d[:95]) / np.sum(d[:95]))
    warm = float(np.sum(g[946:] * d[946:]) / np.sum(d[946:]))
    assert cold < 0.5 < warm


# ------------------------------------------------------------------ cumulative clocks
SPEEDRUN = """Running PyTorch 2.5.0 compiled for CUDA 12.4
step:0/1770 val_loss:10.8258 train_time:0ms step_avg:nanms
step:1/1770 train_loss:10.8258 train_time:26358ms step_avg:nanms
step:2/1770 train_loss:10.1 train_time:26764ms step_avg:nanms
step:10/1770 train_loss:8.1 train_time:29000ms step_avg:nanms
step:11/1770 train_loss:8.0 train_time:120ms step_avg:nanms
step:12/1770 train_loss:7.9 train_time:240ms step_avg:120.00ms
step:13/1770 train_loss:7.8 train_time:361ms step_avg:120.33ms
step:13/1770 val_loss:7.9 train_time:362ms step_avg:120.67ms
step:14/1770 train_loss:7.7 train_time:480ms step_avg:120.00ms
peak memory consumption: 40000 MiB
"""


def test_cumulative_clock_differences_resets_and_counts(tmp_path: Path) -> None:
    (r,) = load(_w(tmp_path, "train.txt", SPEEDRUN))
    t = r.table
    assert r.format == "cumclock"
    assert t["step"].tolist() == [1, 2, 10, 11, 12, 13, 14]
    # step 1: 26.358 s (compile); step 2: 0.406 s; steps 3-10: 2.236 s / 8; step 11: 0.120 s after the reset
    assert t["step_time_s"].tolist() == pytest.approx([26.358, 0.406, 2.236 / 8, 0.120, 0.120, 0.121, 0.119])
    assert t["t_s"].iloc[-1] == pytest.approx(26.358 + 0.406 + 2.236 + 0.480)
    sk = r.metadata["skipped_lines"]
    assert sk["evaluation_lines_same_step"] == 1 and sk["rows_without_duration"] == 1 and sk["other_lines"] == 2
    assert r.metadata["clock_resets"] == [6]
    assert any("reset" in w for w in r.warnings)
    (rb,) = load(_w(tmp_path, "b.txt", SPEEDRUN), IngestOptions(batch_size=8))
    assert rb.table["samples_per_s"].iloc[-1] == pytest.approx(8 / 0.119)


def test_step_avg_only_log_reads_with_a_warning(tmp_path: Path) -> None:
    text = "".join(f"step:{k}/100 train_loss:1.0 step_avg:{100 + k:.2f}ms\n" for k in range(1, 21))
    (r,) = load(_w(tmp_path, "avg.txt", text))
    assert r.rows == 20 and "step_avg" in r.metadata["clock_from"]
    # c_k = avg_k * k, so step k lasted (100 + k) k - (99 + k)(k - 1) ms = 99 + 2k ms
    assert r.table["step_time_s"].tolist()[1:4] == pytest.approx([0.103, 0.105, 0.107])


# ------------------------------------------------------------------ MLLOG: tracked_stats and mixed series
def _mllog(t: int, key: str, value: object, **md: object) -> str:
    return ":::MLLOG " + json.dumps({"namespace": "", "time_ms": t, "event_type": "POINT_IN_TIME", "key": key,
                                     "value": value, "metadata": {"file": "x.py", "lineno": 1, **md}}) + "\n"


def test_mllog_v3_tracked_stats_throughput(tmp_path: Path) -> None:
    text = _mllog(1000, "run_start", None)
    for k in range(1, 6):
        text += f" 0: {_mllog(1000 + 10_000 * k, 'tracked_stats', {'throughput': 14000.0 + k}, step=384 * k).strip()}\n"
        text += "some other console line\n"
    text += _mllog(1000 + 60_000, "tracked_stats", {"train_epoch_timing": 234.9}, step=2000)
    (r,) = load(_w(tmp_path, "bert.log", text))
    assert r.format == "mllog" and r.table["samples_per_s"].tolist() == [14001.0, 14002.0, 14003.0, 14004.0, 14005.0]
    assert r.table["step"].tolist() == [384, 768, 1152, 1536, 1920]
    assert r.table["t_s"].tolist() == pytest.approx([10.0, 20.0, 30.0, 40.0, 50.0])
    assert r.metadata["skipped_lines"]["not_mllog"] == 5
    assert r.metadata["skipped_lines"]["events_without_a_rate"] == 2  # run_start, train_epoch_timing


def test_mllog_per_step_and_per_epoch_series_are_two_runs(tmp_path: Path) -> None:
    text = _mllog(0, "run_start", None)
    for e in range(1, 4):
        text += _mllog(1000 * e, "epoch_start", None, epoch_num=e)
        for k in range(1, 4):
            text += _mllog(1000 * e + 100 * k, "tracked_stats", {"throughput": 100.0 * e + k}, step=[2, 3 * (e - 1) + k])
        text += _mllog(1000 * e + 900, "throughput", 100.0 * e, epoch_num=e)
    runs = load(_w(tmp_path, "mixed.log", text))
    by = {r.metadata["series"]: r for r in runs}
    assert set(by) == {"epoch", "step"}
    assert by["epoch"].table["step"].tolist() == [1, 2, 3] and by["epoch"].run_id.endswith(":epoch")
    assert by["step"].table["step"].tolist() == list(range(1, 10))
    assert {r.metadata["view_of"] for r in runs} == {str(tmp_path / "mixed.log")}


def test_mlperf_console_log_counts_what_it_skips(real_dir: Path) -> None:
    ml, speed = load(real_dir / "training_logs/mlperf_output.txt")
    # throughput and tracked_stats.imgs_sec log the same 35 epoch figures: one series, duplicates counted
    assert ml.rows == 35 and ml.metadata["skipped_lines"]["same_rate_logged_twice"] == 35
    assert ml.metadata["skipped_lines"]["not_mllog"] > 0 and speed.metadata["skipped_lines"]["other_lines"] > 0
    assert ml.metadata["view_of"] == speed.metadata["view_of"]


def test_speed_lines_of_another_shape_are_counted(tmp_path: Path) -> None:
    text = ("Epoch[0] Batch [0-20]\tSpeed: 100.0 samples/sec\nEpoch[0] Batch [20-40]\tSpeed: 110.0 samples/sec\n"
            "Speed: 105.0 samples/sec (no batch)\nEpoch[0] Batch [40-60]\tSpeed: 120.0 samples/sec\n")
    (r,) = load(_w(tmp_path, "s.log", text))
    assert r.rows == 3 and r.metadata["skipped_lines"]["speed_lines_not_parsed"] == 1
    assert any("without 'Epoch[E] Batch [a-b]'" in w for w in r.warnings)


def test_mllog_without_rates_names_the_keys(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="tracked_stats"):
        load(_w(tmp_path, "none.log", _mllog(0, "run_start", None) + _mllog(5, "tracked_stats", {"loss": 1.0}, step=1)))


# ------------------------------------------------------------------ Lightning names, views in compare
def test_lightning_runs_named_by_their_folder(real_dir: Path, tmp_path: Path) -> None:
    res = load_many([real_dir / "gpu_h200/lightning"])
    assert sorted(r.run_id for r in res.runs) == ["colocated", "remote"]
    v1 = tmp_path / "exp" / "version_1"
    v1.mkdir(parents=True)
    (v1 / "metrics.csv").write_text("epoch,step,throughput/samples_per_sec\n0,0,10\n0,1,11\n")
    (r,) = load(v1 / "metrics.csv")
    assert r.run_id == "exp/version_1"


def test_views_of_one_console_log_are_one_repetition(real_dir: Path) -> None:
    from costmodel.warmup import compare

    runs = load(real_dir / "training_logs/mlperf_output.txt")
    res = compare(runs, runs, margin=0.05)
    assert res.pooled["remote"]["n_runs"] == 1 and res.pooled["colocated"]["n_runs"] == 1
    assert any("views of one run" in n for n in res.notes)
