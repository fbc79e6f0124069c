"""`costmodel fit --json FILE` on logs as they really look: ISO wall_time, step-time-only with and
without --batch-size, coarse rows, and the real fixtures the issue names."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from costmodel.cli import main

BATCH = 32.0


def _fit(capsys, *argv: str) -> list[dict]:
    rc = main(["fit", "--json", *argv])
    out = capsys.readouterr()
    assert rc == 0, out.err
    return json.loads(out.out)


def _steps(n: int = 4000, seed: int = 5) -> tuple[np.ndarray, int]:
    rng = np.random.default_rng(seed)
    k = np.arange(n)
    lv = 0.25 * (1 + 1.0 * np.exp(-k / 250.0))
    end = int(np.flatnonzero(np.abs(lv / lv[-1] - 1) > 0.01)[-1] + 1)
    return lv * np.exp(rng.normal(0, 0.02, n)), end


def test_iso_wall_time_is_read_as_seconds(tmp_path, capsys):
    dt, end = _steps()
    wall = (pd.Timestamp("2026-03-02T09:00:00") + pd.to_timedelta(np.cumsum(dt), unit="s"))
    p = tmp_path / "iso.csv"
    pd.DataFrame({"step": np.arange(1, len(dt) + 1), "wall_time": wall.strftime("%Y-%m-%dT%H:%M:%S.%f"),
                  "samples_per_s": BATCH / dt}).to_csv(p, index=False)
    (f,) = _fit(capsys, str(p))
    assert f["classification"] == "warmup"
    assert abs(f["warmup_end_step"] - end) <= 0.05 * len(dt)
    # elapsed seconds before the warm-up end, from the ISO stamps (about 1,350 s)
    assert f["warmup_end_t_s"] == pytest.approx(float(np.sum(dt[: f["warmup_end_step"] - 1])), rel=0.01)


def test_step_time_only_log_without_and_with_batch_size(tmp_path, capsys):
    dt, _ = _steps(seed=6)
    p = tmp_path / "st.csv"
    pd.DataFrame({"step": np.arange(1, len(dt) + 1), "step_time_s": dt}).to_csv(p, index=False)
    (f,) = _fit(capsys, str(p))
    assert f["metric"] == "step_time_s" and f["metric_direction"] == "lower_is_better"
    assert f["classification"] == "warmup"
    assert f["steady_mean"] == pytest.approx(float(np.mean(dt[f["steady_start_step"] - 1:])), rel=1e-6)
    (g,) = _fit(capsys, str(p), "--batch-size", "32")
    assert g["metric"] == "samples_per_s" and g["metric_direction"] == "higher_is_better"
    assert g["classification"] == "warmup"
    assert g["steady_mean"] == pytest.approx(BATCH / f["steady_mean"], rel=1e-3)


def test_coarse_rows_every_25_steps_end_within_5pct(tmp_path, capsys):
    dt, end = _steps(n=6000, seed=8)
    t = np.cumsum(dt)
    idx = np.arange(24, 6000, 25)
    csum = np.concatenate([[0.0], t])
    rate = BATCH * 25 / (csum[idx + 1] - csum[idx + 1 - 25])
    p = tmp_path / "coarse.csv"
    pd.DataFrame({"step": idx + 1, "t_s": t[idx], "samples_per_s": rate}).to_csv(p, index=False)
    (f,) = _fit(capsys, str(p))
    assert f["classification"] == "warmup"
    assert abs(f["warmup_end_step"] - end) <= 0.05 * 6000


def test_real_dlio_iostat_is_periodic_with_a_tight_level(real_dir, capsys):
    (f,) = _fit(capsys, str(real_dir / "dlio" / "iostat.json"))
    assert f["classification"] == "dips" and 30 <= f["period_steps"] <= 38
    assert 0.95e9 <= f["steady_mean"] <= 1.2e9 and f["steady_ci_high"] - f["steady_ci_low"] < 0.5e9


@pytest.mark.parametrize("name", ["0_output.json", "1_output.json"])
def test_real_dlio_epoch_load_stall_is_periodic(real_dir, capsys, name):
    (f,) = _fit(capsys, str(real_dir / "dlio" / name))
    assert f["classification"] == "dips" and f["period_steps"] == pytest.approx(21.0)


def test_real_bert_log_with_eleven_flat_points_is_a_warmup(real_dir, capsys):
    fits = _fit(capsys, str(real_dir / "training_logs" / "huggingface_bert_pretraining_output.txt"))
    assert fits[0]["classification"] == "warmup"
    assert fits[0]["warmup_end_step"] == 13
