"""Issue 38 item 4: the remaining formats read as given, auto-detected, with a clear error for malformed lines.

Fixtures in tests/data/formats38 (own text in the real shapes; README.md there says how each was made and from
which public source the shape comes): a NeMo 1.x console bar, a Lightning bar over two epochs, modded-nanogpt
speedrun logs (2024 and 2025 record styles), Telegraf bcache + diskio line protocol, time-stamped dm-cache status.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from costmodel.foundation.errors import IngestError
from costmodel.ingest.api import IngestOptions, load, sniff_format

DATA = Path(__file__).resolve().parents[1] / "data" / "formats38"
MB = 1e6


def _mbps(h: float) -> float:
    """The fixtures' read rate (MB/s) at hit ratio h: 2000 MB/s from the cache, 250 MB/s from the backing device."""
    return 1.0 / (h / 2000.0 + (1 - h) / 250.0)


# ------------------------------------------------------------------------------------------ progress bars


def test_nemo1_console_bar_is_detected_and_read_from_its_elapsed_clock() -> None:
    p = DATA / "nemo1_console_gpt.log"
    assert sniff_format(p) == "progress_bar"
    run = load(p)[0]
    tab = run.table
    # updates every 5 steps at ~1.5 s/step are merged until the whole-second clock advanced >= 10 s
    assert run.format == "progress_bar" and len(tab) == 80
    assert tab["step"].iloc[0] == 5 and tab["step"].iloc[1] == 15  # global_step + 1 (steps done)
    st = tab["step_time_s"].to_numpy()
    assert st[0] == pytest.approx(46.0 / 5)  # 40 s first step + 4 x 1.5 s: the start-up stall
    assert float(np.median(st[1:])) == pytest.approx(1.5, rel=0.02)
    assert float(tab["t_s"].iloc[-1]) == pytest.approx(40 + 799 * 1.5, abs=15)
    assert run.metadata["rows"] == "averaged" and run.metadata["skipped_lines"]["other_lines"] >= 2
    assert any("not imported" in w for w in run.warnings)
    assert load(p, IngestOptions(fmt="nemo_console"))[0].rows == 80


def test_lightning_bar_over_two_epochs_continues_the_clock_and_the_steps() -> None:
    run = load(DATA / "lightning_bar_two_epochs.log")[0]
    tab = run.table
    step, t = tab["step"].to_numpy(), tab["t_s"].to_numpy()
    assert np.all(np.diff(step) > 0) and np.all(np.diff(t) > 0)
    assert step[-1] == 2000 and set(tab["epoch"].unique()) == {0.0, 1.0}
    assert run.metadata["epoch_changes"] == 1 and any("restarts at each" in w for w in run.warnings)
    # the warm-up (0.5 -> 0.25 s/step) is in the rows: slow first rows, 0.25 s at the end
    st = tab["step_time_s"].to_numpy()
    assert st[0] > 0.4 and float(np.median(st[-10:])) == pytest.approx(0.25, rel=0.02)


def test_a_progress_bar_with_an_unreadable_clock_names_the_line(tmp_path: Path, cli) -> None:
    good = "Epoch 0:  10%|#         | {n}/100 [00:{s:02d}<01:30, 1.00it/s, loss=1.0]"
    lines = [good.format(n=n, s=n) for n in range(1, 6)]
    lines.insert(3, "Epoch 0:   4%|#         | 4/100 [00:7x<01:30, 1.00it/s, loss=1.0]")
    p = tmp_path / "bar.log"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(IngestError) as exc:
        load(p)
    assert exc.value.line == 4 and "elapsed" in str(exc.value)
    r = cli("ingest", str(p))
    assert r.rc == 2 and f"{p}:4" in r.err and "Traceback" not in r.err


# ------------------------------------------------------------------------------------------ speedrun logs


def test_speedrun_2024_reads_train_time_differences_across_the_clock_reset() -> None:
    run = load(DATA / "speedrun_modded_nanogpt_2024.txt")[0]
    tab = run.table
    assert run.format == "cumclock" and len(tab) == 800
    st = tab["step_time_s"].to_numpy()
    assert st[0] == pytest.approx(31.39, abs=0.01)  # compilation inside step 1 (train_time 31387 ms)
    # the clock restarts after step 10 (the record's "ignore the first 10 steps"): step 11 lasts its own value
    assert run.metadata["clock_resets"] and any("reset" in w for w in run.warnings)
    assert float(np.median(st[1:])) == pytest.approx(0.390, rel=0.01)
    # step_avg is a running mean: never the row's time
    assert run.metadata["clock_from"].startswith("differences of the cumulative clock")


def test_speedrun_log_after_a_long_training_script_is_still_detected(tmp_path: Path) -> None:
    body = (DATA / "speedrun_modded_nanogpt_2025.txt").read_text()
    script = "".join(f"    x{i} = torch.zeros(10, device='cuda')  # line {i} of the training script\n" for i in range(1400))
    p = tmp_path / "record.txt"
    p.write_text("import os\n" + script + body)
    assert p.stat().st_size > 64 * 1024
    assert sniff_format(p) == "cumclock"
    assert load(p)[0].rows == 600


def test_speedrun_with_an_unreadable_clock_value_names_the_line(tmp_path: Path) -> None:
    p = tmp_path / "s.txt"
    p.write_text("step:1/100 train_time:390ms step_avg:390.00ms\nstep:2/100 train_time:78O5ms step_avg:390.2ms\n"
                 "step:3/100 train_time:1170ms step_avg:390.00ms\n")
    with pytest.raises(IngestError) as exc:
        load(p, IngestOptions(fmt="cumclock"))
    assert exc.value.line == 2 and "train_time" in str(exc.value)


# ------------------------------------------------------------------------------------------ block caches


def test_bcache_telegraf_hit_ratio_is_per_interval_and_read_rate_from_diskio() -> None:
    p = DATA / "bcache_telegraf_warmup.lp"
    assert sniff_format(p) == "blockcache"
    run = load(p)[0]
    tab = run.table
    assert run.format == "bcache_telegraf" and len(tab) == 150
    assert run.metadata["bcache_dev"] == "bcache0" and run.metadata["backing_dev"] == "md10"
    hit = tab["cache_hit_ratio"].to_numpy()
    # per interval, not bcache's cumulative percentage (which starts at 90 % from the device's history)
    assert hit[0] == pytest.approx(0.96 - 0.81 * np.exp(-30 / 900), abs=0.04)
    assert float(np.mean(hit[-20:])) == pytest.approx(0.96, abs=0.01)
    rb = tab["read_bytes_per_s"].to_numpy()
    assert float(np.mean(rb[-20:])) == pytest.approx(_mbps(0.96) * MB, rel=0.02)
    assert tab["t_s"].iloc[0] == 60.0 and float(np.median(np.diff(tab["t_s"]))) == 60.0


def test_dmcache_status_reads_read_hits_and_misses_as_interval_ratio_and_iops() -> None:
    run = load(DATA / "dmcache_status_warmup.log")[0]
    tab = run.table
    assert run.format == "dmcache_status" and len(tab) == 180
    assert run.metadata["cache_block_bytes"] == 128 * 512
    iops = tab["read_iops"].to_numpy()
    assert float(np.mean(iops[-20:])) == pytest.approx(_mbps(0.96) * MB / 131072, rel=0.02)
    assert float(np.mean(tab["cache_hit_ratio"].to_numpy()[-20:])) == pytest.approx(0.96, abs=0.01)


def test_block_cache_counter_reset_is_left_out_and_counted(tmp_path: Path) -> None:
    rows = []
    hits, miss = 1000, 1000
    for k in range(8):
        if k == 4:
            hits, miss = 10, 5  # the device was registered again: counters restart
        rows.append(f"bcache,backing_dev=sdb,bcache_dev=bcache1 cache_hits={hits}i,cache_misses={miss}i,"
                    f"cache_hit_ratio=50i {1714557600 + 10 * k}000000000")
        hits, miss = hits + 90, miss + 10
    p = tmp_path / "b.lp"
    p.write_text("\n".join(rows) + "\n")
    run = load(p)[0]
    assert run.rows == 6 and run.metadata["skipped"]["counter_resets"] == 1
    assert np.allclose(run.table["cache_hit_ratio"], 0.9)
    assert "read_bytes_per_s" not in run.table.dropna(axis=1, how="all").columns
    assert any("--metric cache_hit_ratio" in w for w in run.warnings)


@pytest.mark.parametrize(("name", "text", "line"), [
    ("b.lp", ("bcache,bcache_dev=bcache0 cache_hits=10i,cache_misses=1i 1714557600000000000\n"
              "bcache,bcache_dev=bcache0 cache_hits=1x0i,cache_misses=2i 1714557610000000000\n"), 2),
    ("d.log", ("1714557600 0 41943040 cache 8 259/2048 128 10/81920 1 2 0 0 0 0 0 1 writethrough\n"
               "1714557630 0 41943040 cache 8 259/2048 128 10/81920 5 6 0 0 0 0 0 1 writethrough\n"
               "1714557660 0 41943040 cache 8 259/2048 128 10/81920 9 x 0 0 0 0 0 1 writethrough\n"), 3),
])
def test_malformed_block_cache_lines_name_the_line(tmp_path: Path, cli, name: str, text: str, line: int) -> None:
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(IngestError) as exc:
        load(p)
    assert exc.value.line == line
    r = cli("ingest", str(p))
    assert r.rc == 2 and f"{p}:{line}" in r.err and "Traceback" not in r.err


def test_nemo2_console_lines_without_step_timing_are_refused_naming_the_line(tmp_path: Path, cli) -> None:
    # NeMo 2 without its TimingCallback (the shape quoted in NVIDIA-NeMo PR #10128): no time on the line
    p = tmp_path / "nemo2.log"
    p.write_text("[NeMo I 2024-08-13 10:00:00 nemo_logging:393] Setting up optimizer\n" + "".join(
        f"Training epoch 0, iteration {i}/9 | lr: 0.0006 | consumed_samples: {32 * (i + 1)} | global_batch_size: 32 | "
        f"global_step: {i} | reduced_train_loss: {11 - i * 0.3:.3f}\n" for i in range(3)))
    r = cli("ingest", str(p))
    assert r.rc == 2 and f"{p}:2" in r.err and "train_step_timing" in r.err and "Traceback" not in r.err


def test_progress_bar_throughput_comes_from_the_batch_size() -> None:
    run = load(DATA / "nemo1_console_gpt.log", IngestOptions(batch_size=256))[0]
    sps = run.table["samples_per_s"].to_numpy()
    assert float(np.median(sps[1:])) == pytest.approx(256 / 1.5, rel=0.02)


def test_a_megatron_log_after_a_long_argument_dump_is_still_detected(tmp_path: Path) -> None:
    args = "".join(f"  arg_{i:05d} ........................................ {i}\n" for i in range(2000))
    lines = "".join(f" iteration {k * 10:8d}/    1000 | consumed samples: {k * 10 * 256:10d} | elapsed time per iteration "
                    f"(ms): {1200.0 + k:.1f} | global batch size:   256 |\n" for k in range(1, 31))
    p = tmp_path / "megatron.log"
    p.write_text("------------------------ arguments ------------------------\n" + args + lines)
    assert p.stat().st_size > 64 * 1024
    assert sniff_format(p) == "trainlog"
    assert load(p)[0].rows == 30


def test_a_bar_excerpt_without_its_first_update_still_counts_from_the_epoch_start(tmp_path: Path) -> None:
    raw = (DATA / "nemo1_console_gpt.log").read_bytes()
    text = raw.replace(b"Epoch 0:   0%|          | 0/800 [00:00<?, ?it/s]\r", b"")
    assert b"0/800 [00:00" in raw and b"0/800 [00:00" not in text
    p = tmp_path / "excerpt.log"
    p.write_bytes(text)
    run = load(p)[0]
    # the first update (batch 5 at 00:46) covers the epoch's start: the 40 s first step is in row 1
    assert run.table["step"].iloc[0] == 5 and run.table["step_time_s"].iloc[0] == pytest.approx(46.0 / 5)
    assert "tail_not_a_row" not in run.metadata or run.metadata["tail_not_a_row"]["steps"] < 10
