"""Issue 36: physically consistent bytes, nothing unpriced counted as dearer, the deciding assumption named."""
from __future__ import annotations

import copy
import datetime as dt

import pytest
from support.cost_scenarios import peered_scenario

from costmodel.cost import analyze, apply_measurements, evaluate, monte_carlo, scenario_from_dict

TODAY = dt.date(2026, 12, 2)
BASE = peered_scenario()
RUN_H = (3 * 10_000 + 60) / 3600
COMPARE = {"ratio": 1.0, "remote_lost_s": 60.0, "remote_steady_hit_ratio": 0.95, "remote_steady_read_bytes_per_s": 1e9}


def scen(**sections):
    d = copy.deepcopy(BASE)
    for sec, vals in sections.items():
        d.setdefault(sec, {}).update(vals)
    return scenario_from_dict(d, today=TODAY)


def test_a_measured_figure_above_what_can_cross_is_refused_and_the_dataset_bytes_priced():
    out = analyze(apply_measurements(scen(), compare=COMPARE, source="c.json"))
    xb = out["cross_region_bytes"]
    # the cache (2,000 GB) holds the 1,000 GB working set: one cold fill a month is all that can cross
    assert xb["physical_bound_gb_per_month"] == pytest.approx(1000.0)
    # 1e9 B/s x 5 % misses over 8.35 h = 1,503 GB + the fill = 2,503 GB: 2.5x the bound, refused
    assert xb["estimates_gb_per_month"]["measured"] == pytest.approx(1000 + 1e9 * 0.05 * 3600 * RUN_H / 1e9)
    assert xb["refused"] == ["measured"] and xb["basis"] == "dataset" and xb["cases"] == ["dataset"]
    assert "refused as the basis" in xb["sentence"] and "2.5x what can cross" in xb["sentence"]
    assert out["options"]["cross_region"]["terms"]["transfer_usd"] == pytest.approx(12 * 0.02 * 1000.0)
    # the refused figure is still shown, with what it would cost
    assert xb["cross_region_total_usd_by_basis"]["measured"] > xb["cross_region_total_usd_by_basis"]["dataset"]
    assert any("refused as the basis" in w for w in out["recommendation"]["verdict_warnings"])


def test_a_cache_smaller_than_the_working_set_has_an_honest_lru_case_drawn_in_the_monte_carlo():
    s = scen(cache={"capacity_gb": 500})  # holds half of the 1,000 GB working set
    r = evaluate(s)
    xb = r.cross_region_bytes
    # every warm epoch's reads can cross: 1 fill + 2 warm epochs x 1,000 GB
    assert xb["physical_bound_gb_per_month"] == pytest.approx(3000.0)
    # MinIO-like bound min(h, C/W) = 0.5: 1,000 + 0.5 x 2,000; LRU under shuffle (C/W)^2/2 = 0.125: 1,000 + 0.875 x 2,000
    assert xb["estimates_gb_per_month"]["dataset"] == pytest.approx(2000.0)
    assert xb["estimates_gb_per_month"]["lru"] == pytest.approx(2750.0)
    assert r.derived["lru_hit_ratio"] == pytest.approx(0.125)
    assert xb["cases"] == ["dataset", "lru"]
    mc = monte_carlo(s, 2000, seed=1)
    assert mc.byte_cases == ["dataset", "lru"]
    # the draws mix both byte cases: cross_region's P95 reaches the LRU case's transfer (12 x 0.02 x 2,750 = 660)
    assert mc.p95["cross_region"] >= 0.99 * evaluate(scen(cache={"capacity_gb": 500}, link={"bytes_basis": "lru"})
                                                     ).options["cross_region"].total_usd


def test_datasync_needs_no_s3_batch_prices_and_unpriced_is_never_dearer():
    s = scen(dataset={"objects": 10_000}, replica={"mechanism": "datasync", "mechanism_usd_per_gb": 0.0125},
             requests={"get_usd_per_1000": 0.0004, "put_usd_per_1000": 0.005})
    assert s.priced()["replicate"] is True  # no batch_replication / batch_job price needed
    r = evaluate(s)
    assert r.options["replicate"].terms["mechanism_usd"] == pytest.approx(1000 * 0.0125)


def test_nothing_priced_gives_no_p_cheapest_and_no_recommendation():
    d = copy.deepcopy(BASE)
    d["link"]["path"] = "nat_gateway"  # no processing price and no catalog: cross_region not priced
    d["dataset"]["objects"] = 10_000  # requests without prices: replicate not priced
    del d["wait"]  # wait without inputs: not priced
    out = analyze(scenario_from_dict(d, today=TODAY))
    assert out["cheapest"] is None and out["p_cheapest"] is None
    assert out["recommendation"]["option"] is None and out["recommendation"]["confidence"] == "none"


def test_a_winner_without_a_priced_rival_gets_no_margin_and_no_probability():
    d = copy.deepcopy(BASE)
    d["link"]["path"] = "nat_gateway"
    del d["wait"]
    out = analyze(scenario_from_dict(d, today=TODAY))
    assert out["cheapest"] == "replicate" and out["margin_usd"] is None
    v = out["verdict"]
    assert v["p_cheapest"] is None and "100" not in v["sentence"] and "no margin and no probability" in v["sentence"]
    rec = out["recommendation"]
    assert rec["margin_usd"] is None and rec["confidence"] == "low" and "100 %" not in rec["sentence"]


def test_the_deciding_assumption_and_materiality_are_named():
    out = analyze(scen(cache={"steady_slowdown_fraction": 0.0005}))
    rec = out["recommendation"]
    # a 0.05 % slowdown on 100 cluster-hours a year is an immaterial gap next to the 11,030 USD GPU spend
    spend = 12 * 1 * RUN_H * 110.08
    assert rec["materiality"]["gpu_spend_usd"] == pytest.approx(spend)
    assert rec["materiality"]["margin_share_of_gpu_spend"] == pytest.approx(out["margin_usd"] / spend)
    assert rec["deciding_assumption"]["input"]
    assert rec["sentence"].startswith(f"Recommendation: {out['cheapest']}")
    if not out["robust"]:
        assert "100 %" not in rec["sentence"] and rec["confidence"] != "high"
    # every input is tagged where it comes from
    tags = {a["key"]: a["tag"] for a in out["assumptions"]}
    assert tags["dataset.size_gb"] == "stated" and tags["replica.noncurrent_retention_days"] == "stated"


# ------------------------------------------------------------------------------ 5. terms an expert charges
def test_checkpoint_write_back_from_model_size_interval_and_runs():
    s = scen(training={"model_parameters": 1.2e9, "checkpoint_interval_hours": 1})
    r = evaluate(s)
    # 1.2 B parameters x 16 bytes (mixed-precision Adam, assumed) = 19.2 GB an hour over an 8.35 h run
    per_run = 19.2 * RUN_H
    assert r.derived["checkpoint_gb_per_month"] == pytest.approx(per_run)
    assert r.options["cross_region"].terms["checkpoint_writeback_usd"] == pytest.approx(12 * per_run * 0.02)
    assert r.options["replicate"].total_usd == pytest.approx(evaluate(scen()).options["replicate"].total_usd)
    assert any(c["check"] == "checkpoint_bytes" and "bytes per parameter assumed" in c["message"]
               for c in r.consistency)
    # stated per run wins; kept in the GPU region, nothing crosses
    assert evaluate(scen(training={"checkpoint_gb_per_run": 7000})).options["cross_region"].terms[
        "checkpoint_writeback_usd"] == pytest.approx(12 * 7000 * 0.02)
    off = scen(training={"checkpoint_gb_per_run": 7000, "checkpoints_to_data_region": False})
    assert evaluate(off).options["cross_region"].terms["checkpoint_writeback_usd"] == 0.0


def test_a_persistent_cache_priced_at_zero_is_warned_with_what_keeps_it_alive():
    s = scen(cache={"persistence": "persistent"})
    r = evaluate(s)
    idle_h = 730.5 - s.values["training.run_hours"]  # 3 epochs + a warm-up paid once a year
    w = [x for x in r.warnings if x.startswith("cache.persistence = persistent")]
    assert len(w) == 1 and f"{idle_h * 110.08:,.0f} USD/month" in w[0]
    assert not [x for x in evaluate(scen(cache={"persistence": "persistent", "capacity_usd_per_gb_month": 0.145}))
                .warnings if x.startswith("cache.persistence = persistent")]


def test_fsx_for_lustre_is_billed_in_its_provisioning_steps():
    gib = 2**30 / 1e9
    small = evaluate(scen(replica={"filesystem": "fsx_lustre", "filesystem_usd_per_gb_month": 0.145}))
    assert small.options["replicate"].terms["filesystem_usd"] == pytest.approx(12 * 1200 * gib * 0.145)  # 1,000 GB
    big = evaluate(scen(dataset={"size_gb": 3000}, replica={"filesystem": "fsx_lustre",
                                                            "filesystem_usd_per_gb_month": 0.145}))
    # 3,000 GB = 2,794 GiB: two steps of 2,400 GiB
    assert big.options["replicate"].terms["filesystem_usd"] == pytest.approx(12 * 4800 * gib * 0.145)


def test_bytes_per_token_as_a_range_makes_the_size_a_range_and_says_whether_it_decides():
    d = copy.deepcopy(BASE)
    del d["dataset"]["size_gb"]
    d["dataset"].update({"tokens": 250e9, "bytes_per_token": [2, 4]})
    s = scenario_from_dict(d, today=TODAY)
    assert s.values["dataset.size_gb"] == pytest.approx(750.0)  # the mean, 3 bytes per token
    assert s.distributions["dataset.size_gb"].params == pytest.approx({"low": 500.0, "high": 1000.0})
    out = analyze(s)
    note = [w for w in out["warnings"] if "bytes per token" in w and "2-4" in w]
    assert len(note) == 1
