"""Ingest v2 readers (issue 17 item 1), on real public excerpts (tests/data/real_public, see SOURCES.md there),
on output of the real tools run here, and on files written by the real libraries (tensorboardX, torch)."""
from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from support.paths import TEST_DATA

from costmodel.foundation.errors import IngestError
from costmodel.ingest import IngestOptions, load, load_many, sniff_format
from costmodel.ingest.tfevents import masked_crc

REAL = TEST_DATA / "real_public"


def _w(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


# ------------------------------------------------------------------------------------ framework logs (real excerpts)


def test_megatron_deepspeed_iteration_lines_real() -> None:
    p = REAL / "megatron_deepspeed_tr1-13B_chronicles.txt"
    assert sniff_format(p) == "trainlog"
    (run,) = load(p)
    t = run.table
    assert run.format == "megatron" and t["step"].tolist() == list(range(29020, 29100, 10))
    assert t["step_time_s"].iloc[0] == pytest.approx(22.3066)
    # samples/s from the log's own global batch size: 1024 / 22.3066 s
    assert t["samples_per_s"].iloc[0] == pytest.approx(1024 / 22.3066)
    assert run.metadata["global_batch_size"] == 1024.0
    # no clock in the lines: t_s is the step time x the 10 iterations of each log interval
    assert t["t_s"].iloc[1] - t["t_s"].iloc[0] == pytest.approx(10 * 22.3364)
    assert any("9 other line(s)" in w for w in run.warnings)  # the 'time (ms)' lines are counted, not dropped silently


def test_torchtitan_tps_lines_real() -> None:
    p = REAL / "torchtitan_aurora_llama2_7b.log"
    (run,) = load(p)
    t = run.table
    assert run.format == "torchtitan" and run.rows == 36 and t["step"].iloc[0] == 1
    assert t["tokens_per_s"].iloc[:3].tolist() == [149.0, 6697.0, 6562.0]  # '6,697' with its thousands separator
    assert t["t_s"].iloc[1] == pytest.approx(47.568581 - 46.954794)
    assert "per GPU" in run.metadata["tokens_per_s_scope"] and run.metadata["mfu_pct"][1] == pytest.approx(20.84)


def test_deepspeed_curr_samples_per_sec_real() -> None:
    (run,) = load(REAL / "deepspeed_chat_opt350m_reward.log")
    t = run.table
    assert run.format == "deepspeed" and run.rows == 11 and t["step"].tolist()[:3] == [10, 20, 30]
    assert t["samples_per_s"].iloc[0] == pytest.approx(265.4349789974132)
    assert t["t_s"].iloc[1] == pytest.approx(3.012)  # 03:36:05,695 - 03:36:02,683
    assert run.metadata["running_avg_samples_per_s"][0] == pytest.approx(265.320034984211)


def test_hf_trainer_state_real() -> None:
    p = REAL / "hf_trainer_state_t5_summarization.json"
    assert sniff_format(p) == "trainlog"
    (run,) = load(p)
    t = run.table
    assert run.format == "hf_trainer" and t["step"].iloc[0] == 500 and t["step"].iloc[-1] == 215337
    # per-step entries log loss only; the measured throughput is the run's mean on the last step
    assert t["samples_per_s"].isna().sum() == run.rows - 1 and t["samples_per_s"].iloc[-1] == 15.743
    assert run.metadata["train_runtime_s"] == pytest.approx(54713.1806) and run.metadata["train_batch_size"] == 4
    assert any("logs loss, not time, per step" in w for w in run.warnings)


def test_nemo_lines_with_batch_size(tmp_path: Path) -> None:
    lines = [f"retraining/0 [default0]:Training epoch 0, iteration {i}/99 | lr: 1e-05 | global_batch_size: 128 | "
             f"global_step: {i} | reduced_train_loss: 6.2 | train_step_timing in s: {12.2 + 0.01 * i:.2f} | "
             f"consumed_samples: {128 * (i + 1)}" for i in range(20)]
    (run,) = load(_w(tmp_path, "nemo.log", "\n".join(lines) + "\n"))
    assert run.format == "nemo" and run.rows == 20
    assert run.table["samples_per_s"].iloc[0] == pytest.approx(128 / 12.2)


# ------------------------------------------------------------------------------------ system telemetry


def test_iostat_x_real_run_here() -> None:
    p = REAL / "iostat_x_t_vm.txt"
    assert sniff_format(p) == "iostat_x"
    (run,) = load(p)
    t = run.table
    assert run.run_id.endswith(":vda") and run.rows == 3  # 4 reports, the first (since boot) dropped
    text = p.read_text().splitlines()
    rows = [ln.split() for ln in text if ln.startswith("vda")]
    head = next(ln.split() for ln in text if ln.startswith("Device"))
    second = dict(zip(head, rows[1], strict=True))
    assert t["read_bytes_per_s"].iloc[0] == pytest.approx(float(second["rkB/s"]) * 1024)
    assert t["read_iops"].iloc[0] == pytest.approx(float(second["r/s"]))
    assert t["read_latency_s"].iloc[0] == pytest.approx(float(second["r_await"]) / 1e3)
    assert t["t_s"].tolist() == [0.0, 1.0, 2.0]  # -t timestamps one second apart
    (mb,) = load(REAL / "iostat_x_m_vm.txt")
    assert mb.rows == 2 and any("no timestamps" in w for w in mb.warnings)


def test_sar_d_real_run_here() -> None:
    p = REAL / "sar_d_p_vm.txt"
    assert sniff_format(p) == "sar_d"
    (run,) = load(p)
    assert run.rows == 3 and run.table["read_bytes_per_s"].iloc[0] == pytest.approx(336.0 * 1024)
    assert run.table["t_s"].tolist() == [0.0, 1.0, 2.0]
    assert run.metadata["average"]["rkB/s"] == "865.12"  # the Average: line is kept, not a row


def test_dstat_csv_real() -> None:
    p = REAL / "dstat_0.7.2_sgurjar.csv"
    assert sniff_format(p) == "dstat"
    (run,) = load(p)
    assert run.rows == 12 and run.table["t_s"].iloc[1] == 60.0  # 60 s interval from the time column
    assert run.table["write_bytes_per_s"].iloc[0] == pytest.approx(16520.533)  # first row (since boot) dropped
    assert any("since boot" in w for w in run.warnings)


def test_nvidia_smi_dmon_merges_like_gpu_telemetry(tmp_path: Path) -> None:
    dmon = ("#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk\n"
            "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %    MHz    MHz\n")
    dmon += "".join(f"20261202   10:00:{s:02d}      {g}    {300 + g}     50      -     {80 + s % 5}      30      0      0   2619   1980\n"
                    for s in range(10) for g in (0, 1))
    p = _w(tmp_path, "dmon.txt", dmon)
    assert sniff_format(p) == "nvidia_smi_dmon"
    runs = load(p)
    assert [r.run_id for r in runs] == ["dmon:gpu0", "dmon:gpu1"]
    assert runs[1].table["gpu_power_w"].iloc[0] == 301.0 and runs[0].table["gpu_util"].iloc[2] == pytest.approx(0.82)
    train = _w(tmp_path, "train.csv", "timestamp,step,samples_per_s\n" + "".join(
        f"2026-12-02T10:00:{s:02d},{s},{100 + s}\n" for s in range(10)))
    res = load_many([train, p])
    (tr,) = res.runs
    assert tr.metadata["gpu_merged_from"] == ["dmon:gpu0", "dmon:gpu1"]
    assert tr.table["gpu_util"].iloc[3] == pytest.approx(0.83)


# ------------------------------------------------------------------------------------ TensorBoard events


def test_tfevents_written_by_tensorboardx(tmp_path: Path) -> None:
    tbx = pytest.importorskip("tensorboardX")
    d = tmp_path / "run-remote"
    w = tbx.SummaryWriter(str(d))
    for s in range(1, 31):
        w.add_scalar("train/samples_per_sec", 20.0 * s if s <= 5 else 100.0 + s, s)
        w.add_scalar("perf/step_time_ms", 250.0, s)
        w.add_scalar("eval/samples_per_sec", 300.0, s)
        w.add_scalar("train/loss", 3.0 - 0.01 * s, s)
    w.close()
    (f,) = list(d.iterdir())
    assert sniff_format(f) == "tfevents"
    (run,) = load(f)
    t = run.table
    assert run.run_id == "run-remote" and run.rows == 30
    assert t["samples_per_s"].iloc[:6].tolist() == [20.0, 40.0, 60.0, 80.0, 100.0, 106.0]  # train/ wins over eval/
    assert t["step_time_s"].iloc[0] == pytest.approx(0.25)
    assert run.metadata["column_prefixes"] == {"train/samples_per_sec": "train", "perf/step_time_ms": "perf"}
    assert "train/loss" in run.metadata["tags"] and np.all(np.diff(t["t_s"]) >= 0)
    # a file cut inside its last record (TensorBoard still writing) keeps what came before, with a warning
    cut = tmp_path / "cut" / "events.out.tfevents.1.host"
    cut.parent.mkdir()
    cut.write_bytes(f.read_bytes()[:-7])
    (part,) = load(cut)
    assert part.rows == 30 and any("ends inside the record" in w for w in part.warnings)


def test_tfevents_own_decoder_reads_tensor_scalars(tmp_path: Path) -> None:
    def varint(n: int) -> bytes:
        out = b""
        while True:
            b = n & 0x7F
            n >>= 7
            out += bytes([b | (0x80 if n else 0)])
            if not n:
                return out

    def record(data: bytes) -> bytes:
        head = struct.pack("<Q", len(data))
        return head + struct.pack("<I", masked_crc(head)) + data + struct.pack("<I", masked_crc(data))

    def event(wall: float, step: int, tag: str, value: float) -> bytes:
        tensor = b"\x08\x01" + b"\x32" + varint(4) + struct.pack("<f", value)  # dtype float, float_val packed
        val = b"\x0a" + varint(len(tag)) + tag.encode() + b"\x42" + varint(len(tensor)) + tensor
        summary = b"\x0a" + varint(len(val)) + val
        return b"\x09" + struct.pack("<d", wall) + b"\x10" + varint(step) + b"\x2a" + varint(len(summary)) + summary

    data = b"".join(record(event(1764700000.0 + s, s, "throughput", 50.0 + s)) for s in range(5))
    p = tmp_path / "tb" / "events.out.tfevents.9.x"
    p.parent.mkdir()
    p.write_bytes(data)
    (run,) = load(p)
    assert run.table["samples_per_s"].tolist() == [50.0, 51.0, 52.0, 53.0, 54.0]
    assert run.table["t_s"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0] and run.metadata["start_epoch_s"] == 1764700000.0


# ------------------------------------------------------------------------------------ PyTorch profiler traces


def test_torch_profiler_trace_real_committed() -> None:
    p = REAL / "torch_profiler_cpu_trace.json"
    assert sniff_format(p) == "torch_trace"
    (run,) = load(p, IngestOptions(batch_size=32))
    doc = json.loads(p.read_text())
    steps = sorted((e for e in doc["traceEvents"] if str(e.get("name", "")).startswith("ProfilerStep#")),
                   key=lambda e: e["ts"])
    assert run.table["step"].tolist() == [int(e["name"].split("#")[1]) for e in steps]
    assert run.table["step_time_s"].tolist() == pytest.approx([e["dur"] / 1e6 for e in steps])
    assert run.table["samples_per_s"].tolist() == pytest.approx([32 / (e["dur"] / 1e6) for e in steps])
    assert (run.table["data_wait_s"] > 0).all() and (run.table["data_wait_s"] < run.table["step_time_s"]).all()


def test_torch_profiler_trace_written_by_torch(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, TensorDataset

    out = tmp_path / "trace.json"
    torch.manual_seed(0)
    dl = DataLoader(TensorDataset(torch.randn(256, 16), torch.randn(256, 1)), batch_size=16)
    model = torch.nn.Linear(16, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    sched = torch.profiler.schedule(wait=0, warmup=1, active=4, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=sched,
                                on_trace_ready=lambda p: p.export_chrome_trace(str(out))) as prof:
        for i, (x, y) in enumerate(dl):
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            prof.step()
            if i >= 6:
                break
    (run,) = load(out)
    assert run.rows == 4 and run.table["step"].tolist() == [1, 2, 3, 4]
    assert (run.table["step_time_s"] > 0).all() and any("--batch-size" in w for w in run.warnings)
    bad = _w(tmp_path, "nosteps.json", json.dumps({"schemaVersion": 1, "traceEvents": [{"ph": "X", "name": "aten::mm",
                                                                                       "ts": 1, "dur": 2}]}))
    with pytest.raises(IngestError, match="no ProfilerStep#N events"):
        load(bad)


# ------------------------------------------------------------------------------------ exports without --map


def test_lightning_metrics_csv_epoch_end_rows_are_merged(tmp_path: Path) -> None:
    rows = ["epoch,step,train_loss,train/samples_per_sec,val_loss,val_acc"]
    for e in range(3):
        for k in range(5):
            st = e * 50 + k * 10 + 9
            rows.append(f"{e},{st},{1.0 - 0.001 * st:.3f},{200 + st},,")
        rows.append(f"{e},{e * 50 + 49},,,{0.5 - 0.1 * e},{0.8 + 0.05 * e}")  # the epoch-end validation row
    (run,) = load(_w(tmp_path, "lightning_logs/version_0/metrics.csv", "\n".join(rows) + "\n"))
    assert run.rows == 15 and not run.rejected  # not 3 "duplicate step" rejections
    assert run.metadata["rows_merged_by_step"]["rows_merged"] == 3
    assert run.table["samples_per_s"].iloc[-1] == 349.0 and run.metadata["column_prefixes"] == {"train/samples_per_sec": "train"}
    # a row logged twice with its values is still a duplicate step
    dup = _w(tmp_path, "dup.csv", "step,samples_per_s\n1,5\n2,6\n2,6\n3,7\n4,8\n5,9\n6,9\n7,9\n8,9\n9,9\n10,9\n")
    (d,) = load(dup)
    assert len(d.rejected) == 1 and "duplicate step" in d.rejected[0].reason


def test_wandb_history_and_panel_exports(tmp_path: Path) -> None:
    hist = _w(tmp_path, "wandb_history.csv", "_step,_runtime,_timestamp,train/loss,perf/tokens_per_sec,eval/tokens_per_sec\n"
              + "".join(f"{i},{1.5 + i},{1764700000.5 + i},{3 - 0.1 * i},{1000 + i},{500 if i == 1 else ''}\n" for i in range(6)))
    (run,) = load(hist)
    assert run.table["tokens_per_s"].tolist() == [1000.0, 1001.0, 1002.0, 1003.0, 1004.0, 1005.0]
    assert run.table["t_s"].tolist() == [1.5, 2.5, 3.5, 4.5, 5.5, 6.5]
    assert run.metadata["column_prefixes"] == {"perf/tokens_per_sec": "perf"}
    panel = _w(tmp_path, "panel.csv", '"Step","run-7 - train/samples_per_sec","run-7 - train/samples_per_sec__MIN",'
               '"run-7 - train/samples_per_sec__MAX"\n1,100,99,101\n2,110,109,111\n3,111,110,112\n')
    (p,) = load(panel)
    assert p.table["samples_per_s"].tolist() == [100.0, 110.0, 111.0]
    assert any("__MIN" in w and "not imported" in w for w in p.warnings)


def test_mlflow_file_store_and_metric_history_csv(tmp_path: Path) -> None:
    run_dir = tmp_path / "mlruns" / "0" / "abc123"
    t0 = 1764700000000
    _w(tmp_path, "mlruns/0/abc123/metrics/train/samples_per_sec", "".join(f"{t0 + i * 500} {100 + i} {i}\n" for i in range(30)))
    _w(tmp_path, "mlruns/0/abc123/metrics/loss", "".join(f"{t0 + i * 500} {3 - 0.01 * i} {i}\n" for i in range(30)))
    _w(tmp_path, "mlruns/0/abc123/tags/mlflow.runName", "remote-a")
    res = load_many([tmp_path / "mlruns"])
    (run,) = res.runs  # one run, read once, from its two metric files
    assert run.run_id == "abc123" and run.format == "mlflow" and run.metadata["run_name"] == "remote-a"
    assert run.table["samples_per_s"].iloc[[0, 29]].tolist() == [100.0, 129.0] and run.table["t_s"].iloc[2] == 1.0
    assert run.source == str(run_dir)
    long = _w(tmp_path, "history.csv", "key,value,step,timestamp,run_id\n" + "".join(
        f"samples_per_sec,{100 + i},{i},{t0 + i * 1000},r1\nloss,{3 - 0.1 * i},{i},{t0 + i * 1000},r1\n"
        f"samples_per_sec,{90 + i},{i},{t0 + i * 1000},r2\n" for i in range(5)))
    a, b = load(long)
    assert (a.run_id, b.run_id) == ("history:r1", "history:r2")
    assert a.table["samples_per_s"].tolist() == [100.0, 101.0, 102.0, 103.0, 104.0] and a.table["t_s"].iloc[4] == 4.0
