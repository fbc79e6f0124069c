"""`costmodel cost --from-compare` shows both figures: the totals with the measured slowdown and warm-up, and
(`scenario_figures`) what the scenario's own values give, which is what `costmodel cost scenario.yaml` prints.
The report's cost carries the same key, so `cost` and `report` tell one story (issue 26)."""
from __future__ import annotations

import json

import pytest

from costmodel.foundation.published import published


def test_from_compare_prints_the_scenario_totals_beside_the_measured_ones(cli, examples_dir, tmp_path):
    ex = examples_dir
    cmp = cli.json("compare", "--colocated", ex / "colocated_steps.csv", "--remote", ex / "remote_steps.csv", "--json")
    (tmp_path / "compare.json").write_text(json.dumps(cmp))
    plain = cli.json("cost", ex / "scenario.yaml", "--json")
    measured = cli.json("cost", ex / "scenario.yaml", "--from-compare", tmp_path / "compare.json", "--json")
    assert "scenario_figures" not in plain
    both = measured["scenario_figures"]
    assert both["totals_usd"] == {o: plain["options"][o]["total_usd"] for o in ("cross_region", "replicate", "wait")}
    assert both["cheapest"] == plain["cheapest"] and both["margin_usd"] == pytest.approx(plain["margin_usd"])
    slow = both["replaced"]["cache.steady_slowdown_fraction"]
    assert slow["scenario"] == pytest.approx(plain["inputs"]["values"]["cache"]["steady_slowdown_fraction"])
    assert slow["measured"] == pytest.approx(cmp["steady_slowdown_fraction"]) and "compare" in slow["source"]
    # the measured slowdown is far below the scenario's assumption: cross-region costs much less with it
    assert measured["options"]["cross_region"]["terms"]["slowdown_usd"] < \
        0.5 * plain["options"]["cross_region"]["terms"]["slowdown_usd"]

    rc, out, _ = cli("cost", ex / "scenario.yaml", "--from-compare", tmp_path / "compare.json")
    assert rc == 0
    assert "measured values used: " in out and "cache.steady_slowdown_fraction 0.0002997 (scenario: 0.006667)" in out
    assert f"with the scenario's own values instead: cross_region {plain['options']['cross_region']['total_usd']:,.2f}" in out
    rc, out, _ = cli("cost", ex / "scenario.yaml")
    assert "steady slowdown: the scenario's 0.006667 (not measured); --from-compare compare.json" in out


def test_report_cost_carries_the_same_scenario_figures(report_stages, cli, examples_dir):
    _p, _inputs, _fits, _cmp, cost, _decision, record = report_stages
    plain = cli.json("cost", examples_dir / "scenario.yaml", "--json")
    written = published(record["cost"])  # as decision.json publishes it (docs/contracts.md)
    assert written["scenario_figures"]["totals_usd"]["cross_region"] == plain["options"]["cross_region"]["total_usd"]
    assert cost.result["scenario_figures"]["replaced"].keys() == {
        "cache.steady_hit_ratio", "cache.warmup_lost_s", "cache.steady_slowdown_fraction"}
