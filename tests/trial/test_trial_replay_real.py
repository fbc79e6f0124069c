"""A real pair replayed as a growing log (tests/data/real_h200/w2, README: warm-up ends at step 148 by the data
wait and the hit ratio; checkpoints every 250 steps; equivalent at 5 %): the watch calls the warm-up end and the
verdict the whole log gives, early."""
from __future__ import annotations

from support.paths import REPO

from costmodel import trial
from costmodel.ingest import load
from costmodel.warmup import analyze, compare

W2 = REPO / "tests" / "data" / "real_h200" / "w2"


def test_w2_replayed_calls_the_warmup_end_and_equivalence_early():
    c, r = load(W2 / "colocated.csv")[0], load(W2 / "remote.csv")[0]
    ref = trial.reference_from_run(c)
    rp = trial.replay(ref, r, trial.Settings(margin=0.05), rows_per_look=10, until_decided=True)
    full_end = analyze(r).warmup_end_step
    assert full_end == 148
    wu = next(e for e in rp.events if e["event"] == "warmup_over")
    assert abs(wu["warmup_end_step"] - full_end) <= 0.1 * full_end
    assert wu["step"] - full_end <= 250  # called within one stall period of the end
    assert [e["event"] for e in rp.events].index("cold_phase") == 0
    assert rp.final["call"] == "equivalent" and rp.final["decided_by"] == "confidence sequence"
    assert rp.final["called_at_step"] < 0.75 * 1401  # the call before the log's last quarter
    assert compare([c], [r], margin=0.05).equivalence == "equivalent"  # what the whole log says
    assert rp.final["paired_stalls"] >= 3 and "paired by step" in rp.final["stall_pairing"]
    assert max(rp.cpu_s) < 5.0  # generous: the benchmark measures it (<= 1 s per update)
