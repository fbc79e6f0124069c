"""TOST power on checkpointed logs: stalls counted as what they are (periodic: amplitude spread, count
fixed by the window), so equal checkpointed runs are called equivalent; runs too short for that say
so, with the length that would settle it."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from costmodel.synthetic.training_logs import generate_realistic
from costmodel.warmup import analyze, compare

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import heldout_logs as h


def _synth_pair(seed: int, ratio: float = 1.0):
    common = {"n": 10_000, "cv": 0.02, "ar": 0.8, "ckpt_every": 1000, "ckpt_steps": 20.0}
    a = generate_realistic(kind="flat", plateau=1000.0, seed=seed, **common)
    b = generate_realistic(kind="warmup", plateau=1000.0 * ratio, warmup_frac=0.15, seed=seed + 1, **common)
    return a.to_run("a", "colocated"), b.to_run("b", "remote")


def test_equal_checkpointed_runs_are_called_equivalent():
    calls, mdm = [], []
    for seed in range(4):
        c = compare(*[[r] for r in _synth_pair(20_000 + 2 * seed)], margin=0.02)
        calls.append(c.equivalent)
        mdm.append(c.min_detectable_margin)
        # the stalls were counted apart from the step noise
        methods = [f["evidence"]["steady_se_longrun"]["method"] for f in c.colocated + c.remote]
        assert any("periodic_stalls" in m for m in methods), methods
    assert sum(calls) == 4
    assert max(mdm) < 0.012, mdm


def test_checkpointed_runs_three_percent_apart_are_not_equivalent():
    c = compare(*[[r] for r in _synth_pair(20_100, ratio=1.03)], margin=0.02)
    assert not c.equivalent and c.equivalence == "different"
    assert 1.02 < c.ratio_ci_low < 1.03 < c.ratio_ci_high < 1.04


def test_heldout_checkpointed_logs_find_their_periodic_stalls():
    # an independent generator's checkpoints (multi-step ramps of random size, +-5 % period jitter):
    # the window's stalls are found periodic and the pair at a true ratio of 1 is called equivalent
    a, b, _ = h.pair(510, 1.0, n=6000)
    fa, fb = analyze(a, metric="samples_per_s"), analyze(b, metric="samples_per_s")
    for f in (fa, fb):
        lr = f.evidence["steady_se_longrun"]
        assert lr["n_stalls"] >= 3 and "periodic_stalls" in lr["method"]
        assert 800 <= lr["period_obs"] <= 1200
    c = compare([fa], [fb], margin=0.02)
    assert c.equivalent and c.ratio_ci90_low < 1.0 < c.ratio_ci90_high
    assert c.min_detectable_margin < 0.03


def test_short_checkpointed_pair_is_inconclusive_and_says_how_much_longer():
    # 4,000 steps: about two stalls per steady window, whose count and size cannot be told apart from
    # chance; an honest test cannot show 2 % here, and the note says what would
    a, b, _ = h.pair(500, 1.0, n=4000)
    c = compare([a], [b], margin=0.02)
    assert c.equivalence == "inconclusive" and c.min_detectable_margin > 0.02
    note = next(n for n in c.notes if n.startswith("inconclusive"))
    m = re.search(r"about ([0-9.]+)x longer", note)
    assert m, note
    need = np.log(1.02) / (1.6449 + 1.2816)
    assert float(m.group(1)) == pytest.approx((c.se_log_ratio / need) ** 2, rel=0.05)
    assert "runs per side" in note
