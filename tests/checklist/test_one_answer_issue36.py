"""Issue 36: one answer per report: the option the record takes, why it differs from the cheapest, the placement
winner reconciled in one sentence, and a drafted ADR that stays proposed."""
from __future__ import annotations

from types import SimpleNamespace

from costmodel.checklist.answer import one_answer

REC = {"option": "replicate", "runner_up": "cross_region", "margin_usd": 53.91, "confidence": "low",
       "confidence_statement": "not settled: not robust (cheapest in 58.4% of the draws)",
       "materiality": {"material": False, "sentence": "Cost does not decide this: the margin 54 USD is 0.01% of the "
                                                      "459,320 USD GPU spend"},
       "deciding_assumption": {"input": "dataset.bytes_per_token", "within_range": True},
       "verdict_warnings": ["cross-region bytes 792.986 GB/month priced from the dataset model: ..."]}
COST = {"horizon_months": 12, "cheapest": "replicate", "recommendation": REC,
        "options": {"cross_region": {"total_usd": 349.17}, "replicate": {"total_usd": 295.26},
                    "wait": {"total_usd": 43200.0}}}


def test_a_conditional_record_takes_cross_region_and_says_why_not_the_cheapest():
    ans = one_answer(SimpleNamespace(verdict="CONDITIONAL"), COST)
    assert ans["option"] == "cross_region" and ans["cost_option"] == "replicate" and ans["status"] == "proposed"
    assert ans["why_not_cost"].startswith("the checklist takes cross-region (CONDITIONAL) although replicate is "
                                          "cheaper by 54 USD: cost does not decide this")
    assert "deciding assumption: dataset.bytes_per_token" in ans["sentence"]
    assert ans["sentence"].lower().count("does not decide") == 1  # said once, in why_not_cost
    assert ans["verdict_warnings"] == REC["verdict_warnings"]


def test_a_blocked_record_takes_the_cheapest_fallback_and_states_the_cost_margin():
    ans = one_answer({"verdict": "NO_GO"}, COST)
    assert ans["option"] == "replicate" and ans["why_not_cost"] is None
    assert ans["sentence"].startswith("Take replicate (54 USD cheaper than cross-region); deciding assumption: "
                                      "dataset.bytes_per_token; Cost does not decide this")


def test_the_placement_winner_is_reconciled_in_one_sentence():
    place = {"winner": {"id": "us-east-1 | 2 x p5.48xlarge on_demand | cross_region", "region": "us-east-1",
                        "strategy": "cross_region"}}
    same = one_answer(SimpleNamespace(verdict="CONDITIONAL"), COST, place)
    assert same["placement_winner"]["region"] == "us-east-1"
    assert same["placement_note"].startswith("the placement's winner (us-east-1 | 2 x p5.48xlarge on_demand | "
                                             "cross_region) uses the same strategy")
    other = one_answer({"verdict": "NO_GO"}, COST, place)
    assert "ranks us-east-1 | 2 x p5.48xlarge on_demand | cross_region first" in other["placement_note"]
    assert other["placement_note"] in other["sentence"]


def test_decide_prints_the_one_answer_last(cli, examples_dir, tmp_path):
    import json

    compare = cli.json("compare", "--colocated", str(examples_dir / "colocated_steps.csv"),
                       "--remote", str(examples_dir / "remote_steps.csv"), "--json")
    (tmp_path / "compare.json").write_text(json.dumps(compare))
    cost = cli.json("cost", str(examples_dir / "scenario.yaml"), "--from-compare", str(tmp_path / "compare.json"),
                    "--json")
    (tmp_path / "cost.json").write_text(json.dumps(cost))
    r = cli("decide", "--answers", str(examples_dir / "answers.yaml"), "--compare", str(tmp_path / "compare.json"),
            "--cost", str(tmp_path / "cost.json"))
    assert r.rc == 0
    last = r.out.strip().splitlines()[-1]
    # the bundled example: CONDITIONAL, cross-region taken although replicate is cheaper by an immaterial 54 USD
    assert last.startswith("Take cross-region; the checklist takes cross-region (CONDITIONAL) although replicate is "
                           "cheaper by 54 USD: cost does not decide this")
    assert "deciding assumption: replica.ops_usd_per_month" in last and "100 %" not in last
