"""Small seeded subset of the independent held-out-style generator (benchmarks/heldout_logs.py)."""
import sys

import pytest
from support.paths import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
import heldout_logs as h

from costmodel.warmup import analyze


def test_generator_is_deterministic_and_truth_is_defined():
    a, ta = h.make_log(7, "checkpoint")
    b, tb = h.make_log(7, "checkpoint")
    assert a.equals(b) and ta == tb
    assert ta["warmup_end_step"] > 0 and ta["plateau"] > 0
    _, td = h.make_log(7, "drift")
    assert td["warmup_end_step"] is None


@pytest.mark.parametrize("kind", ["checkpoint", "two_tier"])
def test_warmup_end_within_5pct_and_plateau_within_1pct(kind):
    df, tr = h.make_log(15000 + h.KINDS.index(kind) * 100, kind)
    r = analyze(df, metric="samples_per_s")
    assert abs(r.warmup_end_step - tr["warmup_end_step"]) <= 0.05 * tr["n_steps"]
    assert abs(r.steady_mean / tr["plateau"] - 1) < 0.01


def test_drift_log_gets_no_plateau():
    df, _ = h.make_log(15100, "drift")
    r = analyze(df, metric="samples_per_s")
    assert r.classification == "no_steady_state" and r.steady_mean is None
