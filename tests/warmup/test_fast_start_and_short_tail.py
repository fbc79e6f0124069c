"""Classes agree with the numbers (issue 24): a start faster than the steady state is no warm-up, and a long
plateau followed by a short tail reports the plateau and flags the tail."""
from __future__ import annotations

import numpy as np
import pandas as pd

from costmodel.warmup import analyze


def _log(level: np.ndarray, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = level * (1.0 + 0.01 * rng.standard_normal(len(level)))
    d = 32.0 / y  # 32 samples per step
    return pd.DataFrame({"step": np.arange(len(y)), "samples_per_s": y, "step_time_s": d, "run_id": "r"})


def test_a_fast_start_is_flat_with_its_own_finding_and_never_a_negative_loss() -> None:
    n = 3000
    lvl = np.where(np.arange(n) < 400, 120.0, 100.0)  # 20 % faster for the first 400 steps (warm page cache)
    f = analyze(_log(lvl))
    assert f.classification in ("flat", "slowdown")
    assert f.fast_start is not None and 0.15 < f.fast_start["rel_excess"] < 0.25
    assert 350 <= f.fast_start["end_step"] <= 450 and f.fast_start["seconds_gained"] > 0
    # lost_s is never negative for a warm-up; a slowdown's negative lost_s is the time the fast start gained
    assert f.lost_s >= 0.0 or (f.classification == "slowdown" and f.lost_s == -f.fast_start["seconds_gained"])


def test_a_long_plateau_then_a_short_tail_reports_the_plateau_and_flags_the_tail() -> None:
    n = 4000
    lvl = np.where(np.arange(n) < 3700, 100.0, 88.0)  # the last 7.5 % of the run 12 % slower
    f = analyze(_log(lvl))
    assert f.classification != "no_steady_state"
    assert f.tail is not None and f.tail["start_step"] >= 3600 and f.tail["rel_change"] < -0.1
    assert not f.tail["kept_in_steady"]
    assert abs(f.steady_mean / 100.0 - 1.0) < 0.01  # the plateau's level, not the tail's


def test_a_small_late_change_stays_in_the_steady_state_and_is_flagged() -> None:
    n = 4000
    lvl = np.where(np.arange(n) < 3500, 100.0, 97.0)  # a 3 % late change (e.g. the GPU's own drift)
    f = analyze(_log(lvl))
    assert f.classification != "no_steady_state"
    if f.tail is not None:
        assert f.tail["kept_in_steady"]
    assert 97.0 < f.steady_mean < 100.0
