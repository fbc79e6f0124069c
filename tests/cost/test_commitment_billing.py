"""Commitments billed as signed in `costmodel cost`'s purchase options (issue 37): a savings plan or reserved
instances bill every hour of the term, used or not; a capacity block the whole days booked per run."""
from __future__ import annotations

import datetime as dt

import pytest
from support.cost_scenarios import P5_PAIR_USD_PER_HOUR, peered_scenario

from costmodel.cost import analyze, scenario_from_dict

G = P5_PAIR_USD_PER_HOUR
BASE = peered_scenario(samples=48_400_000, samples_per_s=116, warmup_lost_s=55)
RUN_H = (3 * 48_400_000 / 116 + 55) / 3600  # 347.7 h a run, one a month


def test_a_one_year_plan_at_half_use_costs_its_commitment():
    d = {**BASE, "purchase": {"savings_plan_usd_per_hour": 0.65 * G, "capacity_block_usd_per_hour": 0.57 * G}}
    out = analyze(scenario_from_dict(d, today=dt.date(2026, 12, 2)), monte_carlo_n=0)
    rows = {r["purchase_option"]: r for r in out["purchase_options"]}
    assert "commitment" not in rows["on_demand"]  # billed per hour used
    sp = rows["savings_plan"]["commitment"]
    assert sp["committed_hours"] == 8760.0 and sp["term_months"] == 12.0 and "assumed" in sp["term_source"]
    assert sp["used_hours"] == pytest.approx(12 * RUN_H, rel=1e-9)
    assert sp["used_share"] == pytest.approx(12 * RUN_H / 8760, rel=1e-9) and 0.45 < sp["used_share"] < 0.5
    assert sp["billed_usd"] == pytest.approx(0.65 * G * 8760, rel=1e-12)  # 626,795 USD, used or not
    assert sp["unused_usd"] == pytest.approx(0.65 * G * (8760 - 12 * RUN_H), rel=1e-9)
    assert sp["billed_usd"] > G * 12 * RUN_H  # more than the same hours on demand
    cb = rows["capacity_block"]["commitment"]
    assert cb["committed_hours"] == 12 * 15 * 24  # 347.7 h rounded up to 15 days, per run
    assert "rounded up to whole days" in cb["sentence"]


def test_the_plan_names_its_term():
    d = {**BASE, "training": {**BASE["training"], "instance_type": "p5.48xlarge", "instance_count": 2},
         "prices": {"provider": "aws", "src_region": "us-east-2", "dst_region": "us-west-2"},
         "purchase": {"savings_plan": "compute:3yr:no_upfront", "savings_plan_usd_per_hour": 0.45 * G}}
    out = analyze(scenario_from_dict(d, today=dt.date(2026, 12, 2)), monte_carlo_n=0)
    sp = next(r for r in out["purchase_options"] if r["purchase_option"] == "savings_plan")["commitment"]
    assert sp["term_months"] == 36.0 and sp["committed_hours"] == 36 * 730.0
    assert sp["used_share"] == pytest.approx(12 * RUN_H / (36 * 730), rel=1e-9)  # a 12-month horizon uses a third
