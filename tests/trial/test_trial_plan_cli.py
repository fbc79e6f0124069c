"""`costmodel plan` on a real co-located run (tests/data/real_h200/w2): steps, minutes and USD for a verdict,
what a shorter trial decides, the pilot's warm-up; one-line errors."""
from __future__ import annotations

import json

import pytest
from support.paths import EXAMPLES, REPO

W2 = REPO / "tests" / "data" / "real_h200" / "w2"


def test_plan_from_the_colocated_run_and_a_pilot(cli):
    p = cli.json("plan", "--colocated", W2 / "colocated.csv", "--pilot", W2 / "remote.csv", "--margin", "0.05",
                 "--usd-per-hour", "110", "--json")
    assert p["warmup_steps"] == 148 and p["ratio_source"] == "pilot"  # the pilot's warm-up (README: 148)
    assert 0.98 < p["assumed_ratio"] < 1.02 and p["stall_period_steps"] == 250.0 and p["min_stalls"] == 3
    fixed, watch, stop = p["fixed_length"], p["watch"], p["watch_expected_stop"]
    # the anytime-valid interval costs length: the watch needs more steps than a fixed-length trial at the same
    # power, and its expected stop (50 % power) comes earlier than its 80 % length
    assert fixed["steps"] <= stop["steps"] < watch["steps"]
    # the real run (1,401 steps) was about as long as the fixed-length verdict needs (compare on it: equivalent)
    assert 0.5 * 1401 < fixed["steps"] < 1.25 * 1401
    for t in (fixed, watch, stop):
        assert t["steps"] >= 148 + t["steady_steps"] - 1
        assert t["usd"] == pytest.approx(t["minutes"] / 60 * 110, rel=1e-5)  # both printed to 6 digits
    margins = [s["smallest_margin_watch"] for s in p["shorter"]]
    assert all(m is None or m > 0.05 for m in margins)
    assert [m for m in margins if m is not None] == sorted([m for m in margins if m is not None], reverse=True)
    assert all((s["smallest_margin_fixed"] or 1) < (s["smallest_margin_watch"] or 2) for s in p["shorter"])


def test_human_output_and_errors(cli):
    r = cli("plan", "--colocated", W2 / "colocated.csv", "--margin", "0.05")
    assert r.rc == 0 and "fixed length (TOST at the end)" in r.out and "--plan-steps" in r.out
    assert "remote warm-up is unknown" in r.out  # no pilot: said, not hidden
    r = cli("plan", "--margin", "0.05")
    assert r.rc == 2 and r.err.count("\n") == 1 and "--colocated" in r.err
    sim = cli.json("plan", "--simulate", EXAMPLES / "whatif.yaml", "--json")  # neither run exists: the prediction
    assert sim["ratio_source"] == "prediction" and sim["reference"]["predicted"] is True
    assert sim["warmup_steps"] is not None and sim["warmup_steps"] > 0 and sim["fixed_length"]["steps"] > 0
    r = cli("plan", "--colocated", W2 / "colocated.csv", "--power", "1.5")
    assert r.rc == 2 and "--power" in r.err


def test_the_plan_pays_the_watchs_t_quantile_for_few_checkpoints():
    # the watch widens the paired stalls' part by t_(k-1)(0.95) / z(0.95) (default), and the plan accounts for
    # it: on w2 (a checkpoint every 250 steps) a 10 % margin needs 5 checkpoints (1,262 steps) where the
    # plug-in spread would call at the third (754); at 5 % (many checkpoints, t near z) it costs 8 % more;
    # the fixed-length trial (TOST at the end, no monitoring) is unchanged
    from costmodel import trial
    from costmodel.ingest import load
    from costmodel.trial.plan import plan_trial

    ref = trial.reference_from_run(load(W2 / "colocated.csv")[0])
    for margin, (t_steps, plug_steps) in {0.10: (1262, 754), 0.05: (3824, 3532)}.items():
        t = plan_trial(ref, margin, usd_per_hour=110)
        plug = plan_trial(ref, margin, usd_per_hour=110, settings=trial.Settings(margin=margin, studentize_pairs=False))
        assert t["studentize_pairs"] is True and plug["studentize_pairs"] is False
        assert (t["watch"]["steps"], plug["watch"]["steps"]) == (t_steps, plug_steps)
        assert t["watch"]["usd"] > plug["watch"]["usd"] and t["watch"]["minutes"] > plug["watch"]["minutes"]
        assert t["watch_expected_stop"]["steps"] >= plug["watch_expected_stop"]["steps"]
        assert t["fixed_length"] == plug["fixed_length"]
    assert 1262 // 250 == 5 and 754 // 250 == 3


def test_the_plug_in_flags_reach_plan_and_watch(cli):
    # --plug-in-pairs (research only): the plan's 10 % watch length falls back to 3 checkpoints (754 steps), and
    # the watch calls w2 at its third checkpoint after the warm-up (step 809) instead of the fourth (1,009)
    p = cli.json("plan", "--colocated", W2 / "colocated.csv", "--margin", "0.10", "--plug-in-pairs", "--json")
    assert p["watch"]["steps"] == 754 and p["studentize_pairs"] is False
    r = cli("watch", W2 / "remote.csv", "--colocated", W2 / "colocated.csv", "--margin", "0.05", "--replay", "10",
            "--until", "decided", "--plug-in-pairs", "--json")
    end = json.loads(r.out.splitlines()[-1])
    assert r.rc == 0 and end["call"] == "equivalent" and 800 <= end["called_at_step"] < 1000
