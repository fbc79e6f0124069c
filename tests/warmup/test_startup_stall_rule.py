"""Issue 38 item 4d: a start-up stall (a long first step or row before a flat run) is reported as a stall with
its lost seconds, never as a warm-up end; a cold phase that comes back gradually stays a warm-up."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from costmodel.ingest.api import load
from costmodel.warmup.analyze import analyze, run_rules
from costmodel.warmup.series import prepare
from costmodel.warmup.startup import find_startup_stall

DATA = Path(__file__).resolve().parents[1] / "data" / "formats38"


def _steps(st: np.ndarray, every: int = 1) -> pd.DataFrame:
    step = np.arange(1, len(st) + 1) * every
    return pd.DataFrame({"step": step, "step_time_s": st, "t_s": np.cumsum(st * every)})


def _flat(n: int, level: float, seed: int) -> np.ndarray:
    return level * (1 + np.random.default_rng(seed).normal(0, 0.02, n))


def test_a_compile_step_before_a_flat_run_is_a_stall_with_its_lost_seconds() -> None:
    st = _flat(2000, 0.4, 1)
    st[0] = 30.0  # torch.compile inside step 1
    st[1:3] = 1.2  # two slow steps after it (autotuning, the loader's first batches)
    s = prepare(_steps(st), "step_time_s")
    found = find_startup_stall(s)
    assert found is not None and found["rows"] == 3 and found["steps"] == 3 and found["end_step"] == 4
    level = float(np.sum(st[3:]) / len(st[3:]))
    assert found["lost_s"] == pytest.approx(30.0 + 2.4 - 3 * level, rel=1e-6)
    assert found["level_after"] == pytest.approx(level, rel=1e-9)


def test_the_fit_says_flat_names_the_stall_and_keeps_it_out_of_the_steady_level() -> None:
    st = _flat(2000, 0.4, 2)
    st[:8] = 3.0  # 8 slow steps (0.4 % of the run): more than the old 5-step limit
    res = analyze(_steps(st), "step_time_s")
    assert res.classification == "flat"
    stall = res.evidence["startup_stall"]
    assert stall["rows"] == 8 and stall["lost_s"] == pytest.approx(8 * (3.0 - 0.4), rel=0.01)
    assert "start-up stall" in res.evidence["rule"] and res.lost_s == 0.0
    assert res.steady_start_step == 9 and res.steady_mean == pytest.approx(0.4, rel=0.005)
    assert "startup_stall" in run_rules(prepare(_steps(st), "step_time_s")).trace


def test_a_gradual_cold_phase_after_a_compile_step_stays_a_warmup() -> None:
    k = np.arange(2000)
    st = 0.4 * (1 + 1.5 * np.exp(-k / 60)) * (1 + np.random.default_rng(3).normal(0, 0.02, 2000))
    st[0] = 30.0
    s = prepare(_steps(st), "step_time_s")
    assert find_startup_stall(s, end=300) is None
    res = analyze(_steps(st), "step_time_s")
    assert res.classification == "warmup" and "startup_stall" not in res.evidence
    assert 200 <= res.warmup_end_step <= 400


def test_a_flat_run_without_a_slow_start_has_no_stall() -> None:
    s = prepare(_steps(_flat(1000, 0.4, 4)), "step_time_s")
    assert find_startup_stall(s) is None


def test_a_slow_first_row_of_a_coarse_log_is_a_stall_when_within_one_percent_of_the_run() -> None:
    st = _flat(200, 0.4, 5)  # rows every 50 steps: 10,000 steps
    st[0] = 0.4 + 45.0 / 50  # the first row's mean carries a 45 s compilation
    s = prepare(_steps(st, every=50), "step_time_s")
    found = find_startup_stall(s)
    assert found is not None and found["rows"] == 1 and found["steps"] == 50
    assert found["lost_s"] == pytest.approx(45.0, rel=0.05)
    short = prepare(_steps(st[:40], every=50), "step_time_s")  # 2,000 steps: 50 steps are 2.5 % of the run
    assert find_startup_stall(short) is None


def test_nemo_console_log_start_up_stall_is_not_a_warmup() -> None:
    res = analyze(load(DATA / "nemo1_console_gpt.log")[0])
    assert res.classification == "flat" and res.lost_s == 0.0
    assert res.evidence["startup_stall"]["lost_s"] == pytest.approx(40.0 - 1.5, abs=1.0)
    assert res.steady_mean == pytest.approx(1.5, rel=0.01)


def test_speedrun_2024_compile_step_is_a_stall_and_the_level_is_the_steps_after_it() -> None:
    res = analyze(load(DATA / "speedrun_modded_nanogpt_2024.txt")[0])
    assert res.classification == "flat" and res.warmup_end_index == 0
    assert res.evidence["startup_stall"]["lost_s"] == pytest.approx(31.0, abs=0.1)
    assert res.steady_mean == pytest.approx(0.390, rel=0.005)


@pytest.mark.parametrize(("name", "end_s", "level"), [
    ("bcache_telegraf_warmup.lp", 5458.0, 1562.5e6),
    ("dmcache_status_warmup.log", 3650.0, 1562.5e6 / 131072),
])
def test_block_cache_warmup_has_an_end_and_a_level(name: str, end_s: float, level: float) -> None:
    res = analyze(load(DATA / name)[0], axis="t_s")
    assert res.classification == "warmup"
    assert res.warmup_end_t_s == pytest.approx(end_s, rel=0.1)
    assert res.steady_mean == pytest.approx(level, rel=0.01)
    assert res.steady_aux["cache_hit_ratio"] == pytest.approx(0.96, abs=0.005)
