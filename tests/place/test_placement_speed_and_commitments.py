"""Placement v2 (issue 37): GPUs that differ in speed, commitments billed as signed, near-ties that share P(best),
one wait per data-region offer, names escaped. The realistic file below is ranked by hand in the tests."""
from __future__ import annotations

import pytest

TODAY = "2026-12-05"
RUN_H = 3 * 48_400_000 / 116 / 3600  # the base scenario's run: 3 epochs of 48.4 M samples at 116 samples/s on 16 H100
FOLD_H = 55 / 3600  # the derived run_hours also holds one cold start (cache.warmup_lost_s 55 s) per run


def _file(examples_dir, body: str, tmp_path, name="p.yaml"):
    p = tmp_path / name
    p.write_text(f"scenario: {examples_dir / 'scenario.yaml'}\n" + body)
    return p


REALISTIC = """\
data:
  provider: aws
  region: us-east-2
  offers: [{instance_type: p5.48xlarge, count: 2, expected_wait_hours: 200}]
candidates:
  - name: us-east-1
    provider: aws
    region: us-east-1
    storage_usd_per_gb_month: 0.0214
    offers:
      - {instance_type: p4d.24xlarge, count: 2}     # 16 A100: 21.96 USD/h each (catalog)
      - {instance_type: p5.48xlarge, count: 2}      # 16 H100: 55.04
      - {instance_type: p5en.48xlarge, count: 2}    # 16 H200: 63.296
  - name: lambda
    provider: lambda
    region: us-east-1
    storage_usd_per_gb_month: 0.02
    offers:
      - {instance_type: gpu_8x_h100_sxm5, count: 2} # 16 H100: 23.92 (imported SkyPilot catalog)
    link: {rtt_ms: 15}
constraints: {deadline_hours: 400}
monte_carlo: {draws: 400, seed: 0}
"""


@pytest.fixture(scope="module")
def realistic(cli, examples_dir, tmp_path_factory):
    p = _file(examples_dir, REALISTIC, tmp_path_factory.mktemp("v2"))
    return cli.json("place", p, "--today", TODAY, "--json")


def _row(out, cand, itype, strategy):
    return next(r for r in out["ranking"] + out["not_ranked"]
                if r["candidate"] == cand and r["offer"]["instance_type"] == itype and r["strategy"] == strategy)


def test_an_a100_pair_misses_the_deadline_an_h100_pair_meets(realistic):
    a100 = _row(realistic, "us-east-1", "p4d.24xlarge", "replicate")
    h100 = _row(realistic, "us-east-1", "p5.48xlarge", "replicate")
    assert a100["speed"]["basis"] == "table" and a100["speed"]["ratio"] == pytest.approx(0.4)
    assert "estimate" in a100["speed"]["detail"] and "MLPerf" in a100["speed"]["detail"]
    assert h100["speed"]["basis"] == "reference" and h100["speed"]["ratio"] == 1.0
    # time to trained: the run at 1/0.4 of the speed; the A100 pair is cheaper per hour but late
    assert a100["time"]["run_hours"] == pytest.approx(RUN_H / 0.4, rel=1e-6)
    assert a100["time_to_finish_hours"] > 400 and a100["rank"] is None
    assert "after the deadline of 400 h" in a100["infeasible_reason"]
    assert h100["time_to_finish_hours"] < 400 and h100["rank"] is not None
    # GPU hours per trained model use the speed: 2.5x the hours at 21.96 x 2 USD/h
    assert a100["compute_usd"] == pytest.approx(12 * (RUN_H / 0.4 + FOLD_H) * 2 * 21.95764, rel=1e-6)


def test_the_ranking_matches_a_hand_ranking_per_trained_model(realistic):
    ranked = [r for r in realistic["ranking"] if r["strategy"] == "replicate"]
    hand = {  # 12 runs x the run's hours at the offer's speed x the cluster's USD/h
        ("lambda", "gpu_8x_h100_sxm5"): 12 * (RUN_H + FOLD_H) * 2 * 23.92,
        ("us-east-1", "p5.48xlarge"): 12 * (RUN_H + FOLD_H) * 2 * 55.04,
        ("us-east-1", "p5en.48xlarge"): 12 * (RUN_H / 1.15 + FOLD_H) * 2 * 63.296,
    }
    got = {(r["candidate"], r["offer"]["instance_type"]): r["compute_usd"] for r in ranked}
    for k, v in hand.items():
        assert got[k] == pytest.approx(v, rel=1e-6), k
    assert realistic["winner"]["candidate"] == "lambda"  # the GPU cloud's H100 pair is cheapest per trained model
    # an H200 pair costs what an H100 pair does per trained model when it is 1.15x as fast (63.296 / 55.04 = 1.15)
    assert hand[("us-east-1", "p5en.48xlarge")] == pytest.approx(hand[("us-east-1", "p5.48xlarge")], rel=1e-4)


def test_near_ties_share_p_best(cli, examples_dir, tmp_path):
    body = REALISTIC.replace("      - {instance_type: gpu_8x_h100_sxm5, count: 2} # 16 H100: 23.92 (imported SkyPilot catalog)",
                             "      - {instance_type: gpu_8x_h100_sxm5, count: 2, usd_per_hour: 80}")
    out = cli.json("place", _file(examples_dir, body, tmp_path), "--today", TODAY, "--json")
    p5 = _row(out, "us-east-1", "p5.48xlarge", "replicate")
    p5en = _row(out, "us-east-1", "p5en.48xlarge", "replicate")
    # the H200's speed is uncertain (the table's range, drawn per GPU type): it wins the draws where it is faster
    assert "speed.H200.bf16" in out["monte_carlo"]["uncertain_inputs"]
    assert p5["p_best"] > 0.05 and p5en["p_best"] > 0.05
    assert sum(r["p_best"] for r in out["ranking"]) == pytest.approx(1.0)


def test_a_one_year_plan_at_half_use_costs_its_commitment(cli, examples_dir, tmp_path):
    body = REALISTIC.replace("      - {instance_type: p4d.24xlarge, count: 2}     # 16 A100: 21.96 USD/h each (catalog)\n",
                             "      - {instance_type: p5.48xlarge, count: 2, purchase: savings_plan, usd_per_hour: "
                             "35.776, commitment: {term_months: 12}}\n")
    out = cli.json("place", _file(examples_dir, body, tmp_path), "--today", TODAY, "--json")
    sp = _row(out, "us-east-1", "p5.48xlarge", "replicate")
    sp = next(r for r in out["ranking"] + out["not_ranked"] if r["offer"]["purchase"] == "savings_plan"
              and r["strategy"] == "replicate")
    b = sp["billing"]
    assert b["committed_hours"] == 8760.0  # 12 months x 730 h, billed whether used or not
    assert sp["compute_usd"] == pytest.approx(35.776 * 2 * 8760, abs=0.011)  # published to the cent  # 0.65 x 55.04 x 2 x 8760 = 626,795
    assert b["used_share"] == pytest.approx(12 * (RUN_H + FOLD_H) / 8760, rel=1e-6) and 0.4 < b["used_share"] < 0.6
    assert b["unused_usd"] == pytest.approx(35.776 * 2 * (8760 - 12 * (RUN_H + FOLD_H)), rel=1e-6)
    od = _row(out, "us-east-1", "p5.48xlarge", "replicate")
    assert sp["cost_usd"] > od["cost_usd"]  # at half use, the plan's 0.65x rate costs more than on demand
    # what other work pays for the hours left: half of them credited
    body2 = body.replace("commitment: {term_months: 12}", "commitment: {term_months: 12, other_use_fraction: 0.5}")
    out2 = cli.json("place", _file(examples_dir, body2, tmp_path, "p2.yaml"), "--today", TODAY, "--json")
    sp2 = next(r for r in out2["ranking"] + out2["not_ranked"] if r["offer"]["purchase"] == "savings_plan"
               and r["strategy"] == "replicate")
    assert sp2["compute_usd"] == pytest.approx(35.776 * 2 * (8760 - 0.5 * (8760 - 12 * (RUN_H + FOLD_H))), abs=0.011)


def test_a_plan_without_its_term_and_an_unknown_gpu_are_not_priced_with_the_reason(cli, examples_dir, tmp_path):
    body = REALISTIC.replace("      - {instance_type: p4d.24xlarge, count: 2}     # 16 A100: 21.96 USD/h each (catalog)\n",
                             "      - {instance_type: p5.48xlarge, count: 2, purchase: reserved, usd_per_hour: 30}\n"
                             "      - {instance_type: g6e.48xlarge, count: 2, usd_per_hour: 30}\n")
    out = cli.json("place", _file(examples_dir, body, tmp_path), "--today", TODAY, "--json")
    why = {r["offer"]["instance_type"] + " " + r["offer"]["purchase"]: r["not_priced_reason"] for r in out["not_ranked"]}
    assert "state commitment" in why["p5.48xlarge reserved"]
    assert why["g6e.48xlarge on_demand"].startswith("state speed")


def test_a_capacity_block_bills_whole_days_per_run(cli, examples_dir, tmp_path):
    body = REALISTIC.replace("      - {instance_type: p4d.24xlarge, count: 2}     # 16 A100: 21.96 USD/h each (catalog)\n",
                             "      - {instance_type: p5.48xlarge, count: 2, purchase: capacity_block, usd_per_hour: 31.46}\n")
    out = cli.json("place", _file(examples_dir, body, tmp_path), "--today", TODAY, "--json")
    cb = next(r for r in out["ranking"] + out["not_ranked"] if r["offer"]["purchase"] == "capacity_block"
              and r["strategy"] == "replicate")
    days = -(-(RUN_H + FOLD_H) // 24)
    assert cb["billing"]["block_hours"] == days * 24
    assert cb["compute_usd"] == pytest.approx(12 * days * 24 * 31.46 * 2, abs=0.011)


def test_the_winners_break_even_names_the_best_other_placement(realistic):
    be = next(b for b in realistic["break_even"] if b["candidate"] == "lambda")
    others = [r for r in realistic["ranking"] if r["candidate"] != "lambda"]
    assert be["usd_per_hour"] == 23.92 and be["above"]["usd_per_hour"] > 23.92
    assert be["above"]["winner"] == min(others, key=lambda r: (r["score_usd"], r["id"]))["id"]


def test_names_from_the_file_are_escaped_and_never_cut(cli, examples_dir, tmp_path):
    body = REALISTIC.replace("name: lambda", 'name: "lambda \\e[31mred\\e[0m and a rather long name that goes on"')
    r = cli("place", _file(examples_dir, body, tmp_path), "--today", TODAY, "--monte-carlo", "50")
    assert r.rc == 0, r.err
    assert "\x1b" not in r.out and "\\x1b[31mred" in r.out
    assert "and a rather long name that goes on | 2 x gpu_8x_h100_sxm5 on_demand | cross_region" in r.out


def test_progress_goes_to_the_callback_once_a_run_takes_long(examples_dir, tmp_path, monkeypatch):
    from costmodel.place import summary

    p = _file(examples_dir, REALISTIC, tmp_path)
    quiet: list[str] = []
    monkeypatch.setattr(summary, "PROGRESS_AFTER_S", 1e9)
    summary.place(p, monte_carlo_n=20, progress=quiet.append)
    assert quiet == []  # a run shorter than the threshold says nothing
    monkeypatch.setattr(summary, "PROGRESS_AFTER_S", 0.0)
    said: list[str] = []
    summary.place(p, monte_carlo_n=20, progress=said.append)
    assert any("ranking" in m for m in said) and any("Monte Carlo" in m for m in said)
    assert all(m.startswith("costmodel place: ") for m in said)


def test_a_stage_still_running_at_the_threshold_is_said_then_not_when_it_ends():
    import time

    from costmodel.place.summary import _Progress

    said: list[str] = []
    p = _Progress(said.append, after_s=0.05)
    p("us-east-1: predicting the warm-up")  # starts before the threshold ...
    deadline = time.monotonic() + 5.0
    while not said and time.monotonic() < deadline:  # ... and is still running after it
        time.sleep(0.01)
    p.close()
    assert len(said) == 1 and said[0].startswith("costmodel place: us-east-1: predicting the warm-up (")
    quick: list[str] = []
    q = _Progress(quick.append, after_s=0.2)
    q("ranking")
    q.close()  # the run ended before the threshold: nothing is said, then or later
    time.sleep(0.3)
    assert quick == []
