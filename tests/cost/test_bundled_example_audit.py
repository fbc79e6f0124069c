"""Audit of cost model v2 (issue 13) on the bundled example and the scenarios its table implies, priced as a
provider bills them. Every expected number is computed here by hand from the example's inputs (not by the
model): D = 792.9856 GB, 48.4 M samples at 116 samples/s, 2 x p5.48xlarge = 110.08 USD/h, 0.02 USD/GB
us-east-2 -> us-west-2, S3 Standard 0.023 USD/GiB-month (given by the scenario), 100 MB shards, 5 Gbit/s, 12 months."""
from __future__ import annotations

import copy
import datetime as dt
import json

import numpy as np
import pytest
import yaml

from costmodel.cli import main
from costmodel.cost import evaluate, monte_carlo, scenario_from_dict, tornado
from costmodel.cost.evaluate import model_inputs
from costmodel.cost.model import totals, totals_scalar

TODAY = dt.date(2026, 12, 2)
D = 792.9856  # GB
EPOCH_H = 48_400_000 / 116 / 3600  # 115.900383 h per epoch at the steady throughput
G = 2 * 55.04  # USD/h for the cluster (p5.48xlarge after the June 2025 cut)
L = 55.0  # s lost per cold start (the example's estimate)
D_SLOW = 0.02 / 3  # expected steady slowdown of the triangular 0/0/2 %
S3 = 0.023 * 1e9 / 2**30  # USD per 10^9 bytes a month: S3 Standard 0.023 per GB-month of 2^30 bytes (S3 FAQ)


@pytest.fixture
def example(examples_dir):
    return yaml.safe_load((examples_dir / "scenario.yaml").read_text())


def price(d, overrides=()):
    return evaluate(scenario_from_dict(copy.deepcopy(d), today=TODAY, overrides=list(overrides)))


def check(r, name):
    return next(c for c in r.consistency if c["check"] == name)


# ---------------------------------------------------------------- row 1: run_hours vs the measured throughput
def test_run_hours_derived_from_throughput_and_a_stated_48_h_is_flagged(example):
    r = price(example)
    T = 3 * EPOCH_H + 1 * L / 3600  # 347.716427 h: 3 epochs + the one warm-up of the month
    assert r.derived["training_hours_per_month"] == pytest.approx(T, rel=1e-12)
    # slowdown: 12 months x 0.667 % x 1 run x T x 196.64
    assert round(r.options["cross_region"].terms["slowdown_usd"], 2) == round(12 * D_SLOW * T * G, 2) == 3062.13
    r48 = price(example, ["training.run_hours=48"])
    c = check(r48, "run_hours")
    assert c["severity"] == "warning" and c["stated"] == 48
    assert c["implied"] == pytest.approx(T, rel=1e-12)
    feasible = (48 - L / 3600) * 3600 * 116 / 48_400_000  # 0.414 epochs fit in 48 h
    assert f"{feasible:.3g} epochs" in c["message"]
    assert any("training.run_hours" in w and "training.epochs_per_run" in w for w in r48.warnings)


# ---------------------------------------------------------------- row 2: per_run NVMe cache, 4 cold starts a month
def test_per_run_cache_four_runs_a_month(example):
    ex = copy.deepcopy(example)
    ex["cache"]["persistence"] = "per_run"
    ex["training"]["runs_per_month"] = 4
    r = price(ex)
    assert r.derived["cold_starts_per_month"] == 4
    cr = r.options["cross_region"].terms
    # 4 cold fills of the working set a month, warm epochs are hits (61,440 GB cache): X = 4 D
    assert round(cr["transfer_usd"], 2) == round(12 * 0.02 * 4 * D, 2) == 761.27
    assert round(cr["warmup_usd"], 2) == round(12 * 4 * L / 3600 * G, 2) == 80.73
    T = 3 * EPOCH_H + L / 3600
    assert round(cr["slowdown_usd"], 2) == round(12 * D_SLOW * 4 * T * G, 2)


def test_runs_shorter_than_an_epoch_each_pay_their_warm_up(example):
    # 4 cold runs of 0.75 epoch: each run fills only the 0.75 D it reads (3 D a month), but every one of the
    # 4 runs pays its warm-up (before: min(n, E*R) = 3 warm-ups)
    ex = copy.deepcopy(example)
    ex["cache"]["persistence"] = "per_run"
    ex["training"].update(runs_per_month=4, epochs_per_run=0.75)
    r = price(ex)
    cr = r.options["cross_region"].terms
    assert round(cr["transfer_usd"], 2) == round(12 * 0.02 * 3 * D, 2) == 570.95
    assert round(cr["warmup_usd"], 2) == round(12 * 4 * L / 3600 * G, 2) == 80.73
    assert r.derived["training_hours_per_month"] == pytest.approx(4 * (0.75 * EPOCH_H + L / 3600), rel=1e-12)


# ---------------------------------------------------------------- row 3: persistent cache holding the working set
def test_persistent_cache_moves_the_set_once_and_churn_once(example):
    ex = copy.deepcopy(example)
    ex["cache"]["persistence"] = "persistent"
    r = price(ex)
    # one fill over 12 months (1/12 a month), warm epochs all hits, 10 % churn moves in the 11/12 of months
    # without a fill: X = D/12 + 0.1 D x 11/12 = 138.77248 GB a month
    X = D / 12 + 0.1 * D * 11 / 12
    assert r.derived["cross_region_gb_per_month"] == pytest.approx(X, rel=1e-12)
    assert r.derived["miss_gb_per_month"] == 0.0
    cr = r.options["cross_region"].terms
    assert round(cr["transfer_usd"], 2) == round(12 * 0.02 * X, 2) == 33.31
    assert round(cr["warmup_usd"], 2) == round(12 * (1 / 12) * L / 3600 * G, 2) == 1.68
    # GETs only for objects that enter the cache: X x 10 objects/GB x 0.0004/1000 x 12
    assert cr["requests_usd"] == pytest.approx(12 * X * 10 * 0.0004 / 1000, rel=1e-12)


def test_cache_smaller_than_the_working_set_charges_misses(example):
    ex = copy.deepcopy(example)
    ex["cache"]["capacity_gb"] = D / 2  # holds half the set: a warm epoch hits at most 50 %
    r = price(ex)
    c = check(r, "cache_capacity")
    assert c["severity"] == "warning" and c["implied"] == pytest.approx(0.5)
    # 1 fill (D) + 2 warm epochs x 50 % misses (D) = 2 D a month
    assert round(r.options["cross_region"].terms["transfer_usd"], 2) == round(12 * 0.02 * 2 * D, 2) == 380.63


# ---------------------------------------------------------------- row 4: path processing
@pytest.mark.parametrize("path,rate", [("nat_gateway", 0.045), ("transit_gateway", 0.02), ("privatelink", 0.01)])
def test_path_processing_per_gb_on_what_crosses(example, path, rate):
    r = price(example, [f"link.path={path}", f"link.path_processing_usd_per_gb={rate}"])
    assert round(r.options["cross_region"].terms["path_processing_usd"], 2) == round(12 * rate * D, 2)
    assert r.options["replicate"].terms["inter_az_usd"] == 0.0  # S3 replication does not cross the customer's NAT
    if path == "nat_gateway":
        assert round(r.options["cross_region"].terms["path_processing_usd"], 2) == 428.21


def test_path_price_from_the_catalog_or_not_priced(example, tmp_path):
    from costmodel.foundation.resources import PRICES_DIR

    r = price(example, ["link.path=nat_gateway"])  # no price stated: the catalog's NAT row (0.045 USD/GB)
    cr = r.options["cross_region"]
    assert cr.priced and round(cr.terms["path_processing_usd"], 2) == round(12 * 0.045 * D, 2) == 428.21
    used = {u["key"]: u for u in r.prices_used}["link.path_processing_usd_per_gb"]
    assert used["item"] == "nat_gateway_processing" and used["unit"] == "GB" and used["source"]
    # a catalog without processing rows: cross_region is not priced, with the key to give, never 0
    for f in PRICES_DIR.glob("*.csv"):
        if f.name != "processing.csv":
            (tmp_path / f.name).write_text(f.read_text())
    ex = copy.deepcopy(example)
    ex["prices"]["dir"] = str(tmp_path)
    r = price(ex, ["link.path=transit_gateway"])
    cr = r.options["cross_region"]
    assert not cr.priced and "link.path_processing_usd_per_gb" in cr.not_priced_reason
    assert "path_processing_usd" in cr.terms and r.cheapest == "replicate"
    assert any("cross_region is not priced" in w for w in r.warnings)


def test_vpc_peering_has_no_processing_term_but_keeps_the_key(example):
    r = price(example)
    assert r.options["cross_region"].terms["path_processing_usd"] == 0.0
    assert set(r.options["cross_region"].terms) >= {"path_processing_usd", "requests_usd", "inter_az_usd"}


# ---------------------------------------------------------------- row 5: requests per object
def test_16_kb_objects_vs_100_mb_shards(example):
    shards = price(example)
    objs = D * 1000 / 100  # 7,929.856 shards
    get = 12 * objs * 0.0004 / 1000  # one GET per shard entering the cache, one fill a month
    put = (objs + 12 * 0.1 * objs) * 0.005 / 1000  # copy + 12 months of 10 % changed objects
    batch = objs * 1.0 / 1e6 + 0.25
    assert shards.options["cross_region"].terms["requests_usd"] == pytest.approx(get, rel=1e-12)
    assert shards.options["replicate"].terms["requests_usd"] == pytest.approx(get + put + batch, rel=1e-12)
    assert get + put + batch < 1.0  # under 1 USD with 100 MB shards
    small = price(example, ["dataset.mean_object_size_mb=0.016"])
    objs = D * 1000 / 0.016  # 49,561,600 objects of 16 KB
    get = 12 * objs * 0.0004 / 1000
    rep = get + (objs + 12 * 0.1 * objs) * 0.005 / 1000 + objs / 1e6 + 0.25
    assert round(small.options["cross_region"].terms["requests_usd"], 2) == round(get, 2) == 237.90
    assert round(small.options["replicate"].terms["requests_usd"], 2) == round(rep, 2) == 832.88


# ---------------------------------------------------------------- row 6: versioning
def test_versioning_with_and_without_lifecycle_both_buckets(example):
    churn = 0.1 * D  # GB overwritten a month
    r = price(example)
    ret = 30 / (365.25 / 12)  # 30 days in months
    months = ret * 12 - ret * ret / 2  # integral of the non-current stock over 12 months, in churn units
    # both buckets are versioned for replication (source and replica)
    assert round(r.options["replicate"].terms["versioning_usd"], 2) == round(2 * S3 * churn * months, 2) == 38.53
    one = price(example, ["replica.source_versioned=true"])
    assert one.options["replicate"].terms["versioning_usd"] == pytest.approx(S3 * churn * months, rel=1e-12)
    ex = copy.deepcopy(example)
    del ex["replica"]["noncurrent_retention_days"]
    none = price(ex)
    # no lifecycle rule: every version overwritten (uniformly over the months) stays to the end; S3 bills
    # byte-hours, so 0.02142 x 79.29856 x 12^2/2 = 122.30 per bucket (month-end steps would give 112.11)
    assert round(none.options["replicate"].terms["versioning_usd"], 2) == round(2 * S3 * churn * 72, 2) == 244.60
    assert any("lifecycle rule" in w for w in none.warnings)


# ---------------------------------------------------------------- row 7: churn not charged twice
def test_churn_inside_a_monthly_cold_fill_is_not_charged_again(example):
    r = price(example)
    assert r.derived["churn_refetch_gb_per_month"] == 0.0
    assert r.derived["cross_region_gb_per_month"] == pytest.approx(D, rel=1e-12)  # the fill re-reads the changes
    assert round(r.options["cross_region"].terms["transfer_usd"], 2) == round(12 * 0.02 * D, 2) == 190.32


# ---------------------------------------------------------------- row 8: the cold fill is bounded by the link
HELD_OUT = {
    "horizon_months": 12,
    "dataset": {"size_gb": 123_000, "monthly_churn_fraction": 0.0, "samples": 10_000_000, "objects": 0},
    "training": {"runs_per_month": 1, "epochs_per_run": 2, "samples_per_s": 1000, "cluster_usd_per_hour": 800},
    "link": {"transfer_usd_per_gb": 0.02, "path": "vpc_peering", "bandwidth_gbit_s": 10},
    "cache": {"steady_hit_ratio": 0.95, "persistence": "per_run", "warmup_lost_s": 420,
              "steady_slowdown_fraction": 0.0, "capacity_gb": 1_000_000},
    "replica": {"storage_usd_per_gb_month": 0.023, "noncurrent_retention_days": 30},
    "wait": {"expected_wait_hours_per_run": 0, "delay_usd_per_hour": 0},
}


def test_cold_fill_of_123_tb_at_10_gbit_s_is_27_h_not_420_s():
    r = evaluate(scenario_from_dict(copy.deepcopy(HELD_OUT), today=TODAY))
    fill_s = 123_000 * 8 / 10  # 98,400 s = 27.33 h
    epoch_s = 10_000_000 / 1000  # 10,000 s: an epoch at the steady throughput
    lost = fill_s - epoch_s  # 88,400 s lost per cold start
    c = check(r, "cold_fill_time")
    assert c["severity"] == "warning" and c["stated"] == 420 and c["implied"] == pytest.approx(lost)
    assert r.derived["cold_fill_hours"] == pytest.approx(27.3333333, rel=1e-6)
    assert round(r.options["cross_region"].terms["warmup_usd"], 2) == round(12 * lost / 3600 * 800, 2) == 235733.33
    # the run includes the raised warm-up: 2 epochs + 88,400 s
    assert r.derived["training_hours_per_month"] == pytest.approx((2 * epoch_s + lost) / 3600)
    # replicate waits for the copy: 27.33 h, priced at the stated 0 USD/h of delay (0, stated)
    assert r.options["replicate"].terms["copy_delay_usd"] == 0.0


# ---------------------------------------------------------------- row 9: no wait section
def test_no_wait_section_leaves_wait_unpriced_and_says_why(example, capsys, tmp_path):
    ex = copy.deepcopy(example)
    del ex["wait"]
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(ex))
    assert main(["cost", str(path), "--json", "--today", "2026-12-02"]) == 0
    out = json.loads(capsys.readouterr().out)
    w = out["options"]["wait"]
    assert w["priced"] is False and "wait.expected_wait_hours_per_run" in w["not_priced_reason"]
    assert set(w["terms"]) == {"delay_usd", "gpu_premium_usd"}
    assert out["cheapest"] == "replicate" and out["ranking"][-1] == "wait"
    assert out["p_cheapest"]["wait"] == 0.0
    # the copy delay has no value of an hour either: 0, with the reason, never silently
    assert out["options"]["replicate"]["terms"]["copy_delay_usd"] == 0.0
    assert "wait.delay_usd_per_hour" in out["options"]["replicate"]["terms_not_priced"]["copy_delay_usd"]


def test_zero_total_is_warned(example):
    ex = copy.deepcopy(example)
    ex["wait"] = {"expected_wait_hours_per_run": 0, "delay_usd_per_hour": 0}
    r = price(ex)
    assert r.options["wait"].priced and r.options["wait"].total_usd == 0.0
    assert r.cheapest == "wait"
    assert any("wait is priced at 0 USD" in w for w in r.warnings)


# ---------------------------------------------------------------- row 10: GiB vs GB
def test_price_per_gib_is_converted_exactly(example):
    r = price(example, ["link.transfer_usd_per_gib=0.02"])
    per_gb = 0.02 * 1e9 / 2**30  # 0.0186264515 USD per 10^9 bytes
    assert r.options["cross_region"].terms["transfer_usd"] == pytest.approx(12 * per_gb * D, rel=1e-12)
    assert round(r.options["cross_region"].terms["transfer_usd"], 2) == 177.25
    assert r.options["replicate"].terms["initial_copy_usd"] == pytest.approx(per_gb * D, rel=1e-12)


# ---------------------------------------------------------------- row 11: copy delay
def test_copy_delay_is_size_over_bandwidth_times_the_delay_value(example):
    r = price(example)
    Tc = D * 8 / 5 / 3600  # 0.352438 h at 5 Gbit/s
    assert r.derived["initial_copy_hours"] == pytest.approx(Tc, rel=1e-12)
    assert round(r.options["replicate"].terms["copy_delay_usd"], 2) == round(Tc * 50, 2) == 17.62


def test_example_totals(example):
    r = price(example)
    ret = 30 / (365.25 / 12)
    rep = (0.02 * D + 12 * S3 * D + 12 * 0.1 * D * 0.02 + 2 * S3 * 0.1 * D * (ret * 12 - ret * ret / 2)
           + 12 * 7929.856 * 0.0004 / 1000 + (7929.856 * 2.2) * 0.005 / 1000 + 7929.856 / 1e6 + 0.25
           + D * 8 / 5 / 3600 * 50)
    cross = 12 * 0.02 * D + 12 * L / 3600 * G + 12 * D_SLOW * (3 * EPOCH_H + L / 3600) * G + 12 * 7929.856 * 0.0004 / 1000
    assert r.options["replicate"].total_usd == pytest.approx(rep, rel=1e-12)
    assert r.options["cross_region"].total_usd == pytest.approx(cross, rel=1e-12)
    assert r.cheapest == "replicate" and r.margin_usd == pytest.approx(cross - rep, rel=1e-12)


# ---------------------------------------------------------------- derived values follow their sampled sources
def test_run_hours_follows_sampled_epochs(example):
    s = scenario_from_dict(copy.deepcopy(example), today=TODAY, overrides=["cache.steady_slowdown_fraction=0.01"])
    t = totals(model_inputs(s, **{"training.epochs_per_run": np.array([2.0, 4.0])}))
    # slowdown 12 x 1 % x T(E) x 196.64 with T = E x 115.9 h + 55 s: 2 more epochs cost 2 x 115.9 h more
    swing = 12 * 0.01 * G * 2 * EPOCH_H
    extra_transfer = 0.0  # the cache holds the set: warm epochs are hits, no more bytes
    d_cross = float(t["cross_region"][1] - t["cross_region"][0])
    assert d_cross == pytest.approx(swing + extra_transfer, rel=1e-9)
    ex = copy.deepcopy(example)
    ex["training"]["epochs_per_run"] = {"dist": "uniform", "low": 2, "high": 4}
    ex["cache"]["steady_slowdown_fraction"] = 0.01
    mc = monte_carlo(scenario_from_dict(ex, today=TODAY), 4000, seed=3, default_ranges=False)
    cr = mc.totals["cross_region"]
    assert cr.max() - cr.min() == pytest.approx(swing, rel=0.01)  # before: the run length was held at 347.7 h


def test_a_swept_derived_value_is_used_as_given(example):
    s = scenario_from_dict(copy.deepcopy(example), today=TODAY, overrides=["cache.steady_slowdown_fraction=0.01"])
    t = totals(model_inputs(s, **{"training.run_hours": np.array([48.0])}))
    base = evaluate(s).options["cross_region"]
    expected = base.total_usd - base.terms["slowdown_usd"] + 12 * 0.01 * 48 * G
    assert float(t["cross_region"][0]) == pytest.approx(expected, rel=1e-12)


def test_copy_hours_and_cold_fill_follow_the_size():
    s = scenario_from_dict(copy.deepcopy(HELD_OUT), today=TODAY, overrides=["wait.delay_usd_per_hour=10"])
    sizes = np.array([61_500.0, 123_000.0, 246_000.0])
    t = totals(model_inputs(s, **{"dataset.size_gb": sizes}))
    lost = np.maximum(420.0, sizes * 8 / 10 - 10_000)  # 420 s stated; the link bound above it
    epochs_h = 2 * 10_000 / 3600
    warm = 12 * lost / 3600 * 800
    transfer = 12 * 0.02 * sizes  # one fill per run, the cache holds the set
    assert np.allclose(t["cross_region"], warm + transfer, rtol=1e-12)
    copy_h = sizes * 8 / 10 / 3600
    storage = 12 * 0.023 * sizes
    assert np.allclose(t["replicate"], 0.02 * sizes + storage + copy_h * 10, rtol=1e-12)
    # the scalar loop (the benchmark's baseline) follows the same way
    for i, size in enumerate(sizes):
        c, r, _ = totals_scalar(model_inputs(s, **{"dataset.size_gb": float(size)}))
        assert c == pytest.approx(t["cross_region"][i], rel=1e-12) and r == pytest.approx(t["replicate"][i], rel=1e-12)
    assert epochs_h > 0


def test_tornado_on_epochs_moves_the_slowdown(example):
    s = scenario_from_dict(copy.deepcopy(example), today=TODAY)
    row = tornado(s, ["training.epochs_per_run"]).iloc[0]
    # epochs 1 .. 9 (x/3 to 3x: one pass to several; 2.25 .. 3.75 before): cross_region moves by
    # 12 x 0.667 % x 8 x 115.9 h x 110.08
    assert (row["low"], row["high"]) == (1.0, 9.0)
    assert row["cross_region_high_usd"] - row["cross_region_low_usd"] == pytest.approx(12 * D_SLOW * 8 * EPOCH_H * G, rel=1e-9)


def test_deterministic(example):
    a = monte_carlo(scenario_from_dict(copy.deepcopy(example), today=TODAY), 3000, seed=7)
    b = monte_carlo(scenario_from_dict(copy.deepcopy(example), today=TODAY), 3000, seed=7)
    assert a.to_dict() == b.to_dict()


# ---------------------------------------------------------------- bad input: exit 2 naming the key
@pytest.mark.parametrize("setting,key", [
    ("link.path=satellite", "link.path"),
    ("cache.capacity_gb=0.005", "cache.capacity_gb"),  # one batch = 384 x 16,384 B = 0.00629 GB
    ("training.run_hours=0.01", "training.epochs_per_run"),  # with epochs omitted: negative implied epochs
])
def test_unresolvable_input_exits_2_naming_the_key(capsys, examples_dir, setting, key):
    argv = ["cost", str(examples_dir / "scenario.yaml"), "--set", setting, "--json"]
    if key == "training.epochs_per_run":
        argv += ["--set", "training.epochs_per_run=null"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert key in err and "Traceback" not in err and len(err.splitlines()) == 1


# ---------------------------------------------------------------- catalog wiring (issue 14's items)
def test_request_prices_from_the_catalog_and_the_missing_one_named(example):
    ex = copy.deepcopy(example)
    del ex["requests"]
    r = price(ex)
    used = {u["key"]: u for u in r.prices_used}
    assert used["requests.get_usd_per_1000"]["item"] == "object_get" and used["requests.get_usd_per_1000"]["usd_used"] == 0.0004
    assert used["requests.put_usd_per_1000"]["item"] == "object_put" and used["requests.put_usd_per_1000"]["usd_used"] == 0.005
    # S3 Batch Operations (per job) and Batch Replication (per object): no dated, traceable price was found, so
    # the catalog ships neither (docs/prices.md, "Not shipped") and the replica is reported as not priced
    assert "requests.batch_job_usd" not in used and "requests.batch_replication_usd_per_million" not in used
    rep = r.options["replicate"]
    assert not rep.priced
    assert "requests.batch_replication_usd_per_million has no price" in rep.not_priced_reason
    assert "requests.batch_job_usd has no price" in rep.not_priced_reason
    assert r.cheapest == "cross_region"  # the only priced option besides wait: never replicate by omission
    r2 = price(ex, ["requests.batch_replication_usd_per_million=1.0", "requests.batch_job_usd=0.25"])
    assert r2.options["replicate"].priced
    assert r2.options["replicate"].terms["requests_usd"] == pytest.approx(
        price(example).options["replicate"].terms["requests_usd"], rel=1e-12)


def test_inter_az_from_the_catalog(example):
    r = price(example, ["cache.cross_az=true"])
    # every epoch's bytes cross the zone boundary, billed out and in: 2 x 0.01 x 12 months x 3 epochs x D
    assert round(r.options["cross_region"].terms["inter_az_usd"], 2) == round(2 * 0.01 * 12 * 3 * D, 2) == 570.95
    assert {u["key"]: u for u in r.prices_used}["link.inter_az_usd_per_gb"]["item"] == "inter_az"
    assert r.options["replicate"].terms["inter_az_usd"] == 0.0


def test_path_processing_tiered_by_monthly_volume(example, tmp_path):
    from costmodel.foundation.resources import PRICES_DIR

    for f in PRICES_DIR.glob("*.csv"):
        text = f.read_text()
        if f.name == "processing.csv":
            row = next(line for line in text.splitlines() if line.startswith("aws,privatelink_processing"))
            text = text.rstrip("\n") + "\n" + row.replace(",0.01,0,1048576,", ",0.006,1048576,,") + "\n"
        (tmp_path / f.name).write_text(text)
    ex = copy.deepcopy(example)
    ex["prices"]["dir"] = str(tmp_path)
    over = ["link.path=privatelink", "dataset.size_gb=2000000", "cache.capacity_gb=3000000"]
    r = price(ex, over)
    # one cold fill of 2,000,000 GB a month: 1,048,576 GB at 0.01 + 951,424 GB at 0.006, x 12
    assert round(r.options["cross_region"].terms["path_processing_usd"], 2) == \
        round(12 * (1_048_576 * 0.01 + 951_424 * 0.006), 2) == 194331.65
    assert not any("beyond the catalog's last tier" in w for w in r.warnings)
    # the bundled catalog has only the first tier: charged at it, with a warning
    r = price(example, over)
    assert r.options["cross_region"].terms["path_processing_usd"] == pytest.approx(12 * 0.01 * 2_000_000)
    assert any("beyond the catalog's last tier of privatelink_processing" in w for w in r.warnings)


def test_cli_json_contract_on_the_example(capsys, examples_dir):
    assert main(["cost", str(examples_dir / "scenario.yaml"), "--json", "--today", "2026-12-02"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("cheapest", "margin_usd", "robust", "robust_reason", "consistency", "ranking", "options", "break_even",
                "sensitivity", "derived", "prices_used", "warnings", "inputs", "horizon_months", "wait_break_even"):
        assert key in out, key
    terms = {"cross_region": {"transfer_usd", "warmup_usd", "slowdown_usd", "cache_usd", "path_processing_usd",
                              "requests_usd", "inter_az_usd", "cache_capacity_usd", "checkpoint_writeback_usd"},
             "replicate": {"initial_copy_usd", "storage_usd", "sync_usd", "ops_usd", "requests_usd", "versioning_usd",
                           "inter_az_usd", "copy_delay_usd", "cache_usd", "cache_capacity_usd", "filesystem_usd", "mechanism_usd"},
             "wait": {"delay_usd", "gpu_premium_usd"}}
    for o, names in terms.items():
        opt = out["options"][o]
        assert set(opt["terms"]) == names and opt["priced"] is True and opt["not_priced_reason"] is None
        assert {"total_usd", "per_month_usd", "terms_per_month_usd"} <= set(opt)
    for c in out["consistency"]:
        assert {"check", "keys", "stated", "implied", "severity"} <= set(c)
    assert out["robust"] is True and out["margin_usd"] == pytest.approx(
        out["options"]["cross_region"]["total_usd"] - out["options"]["replicate"]["total_usd"])


def test_terms_left_at_a_default_0_are_warned(example):
    ex = copy.deepcopy(example)
    del ex["cache"]["usd_per_month"]
    r = price(ex)
    w = [x for x in r.warnings if x.startswith("not given, priced at 0")]
    assert len(w) == 1 and "cache.usd_per_month" in w[0] and "replica.ops_usd_per_month" not in w[0]
    assert not any(x.startswith("not given, priced at 0") for x in price(example).warnings)  # all stated


def test_cli_json_is_deterministic(capsys, examples_dir):
    argv = ["cost", str(examples_dir / "scenario.yaml"), "--json", "--today", "2026-12-02", "--monte-carlo", "3000",
            "--seed", "5"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out == first


# ---------------------------------------------------------------- throughput and bandwidth may be uncertain
def test_sampled_throughput_moves_the_run_length(example):
    ex = copy.deepcopy(example)
    ex["training"]["samples_per_s"] = {"dist": "uniform", "low": 100, "high": 132}
    ex["cache"]["steady_slowdown_fraction"] = 0.01
    ex["cache"]["steady_hit_ratio"] = 0.95
    s = scenario_from_dict(ex, today=TODAY)
    assert s.get("training.samples_per_s") == 116.0  # the headline at the mean
    t = totals(model_inputs(s, **{"training.samples_per_s": np.array([100.0, 132.0])}))

    def cross(thr):  # transfer + warm-up + GETs + 1 % slowdown over 3 epochs at thr samples/s + the warm-up
        T = 3 * 48_400_000 / thr / 3600 + L / 3600
        return 12 * 0.02 * D + 12 * L / 3600 * G + 12 * 7929.856 * 0.0004 / 1000 + 12 * 0.01 * T * G

    assert t["cross_region"] == pytest.approx(np.array([cross(100.0), cross(132.0)]), rel=1e-12)
    mc = monte_carlo(s, 4000, seed=11, default_ranges=False)
    assert mc.uncertain_inputs == ["training.samples_per_s"]
    assert mc.totals["cross_region"].max() == pytest.approx(cross(100.0), rel=2e-3)
    assert mc.totals["cross_region"].min() == pytest.approx(cross(132.0), rel=2e-3)
    row = tornado(s, ["training.samples_per_s"]).iloc[0]
    assert row["cross_region_low_usd"] > row["cross_region_high_usd"]  # slower training, longer runs, dearer


def test_swept_bandwidth_moves_copy_delay_and_cold_fill():
    s = scenario_from_dict(copy.deepcopy(HELD_OUT), today=TODAY, overrides=["wait.delay_usd_per_hour=10"])
    bw = np.array([5.0, 10.0, 100.0])
    t = totals(model_inputs(s, **{"link.bandwidth_gbps": bw}))
    lost = np.maximum(420.0, 123_000 * 8 / bw - 10_000)  # 100 Gbit/s: the fill (9,840 s) hides in the epoch
    assert np.allclose(t["cross_region"], 12 * lost / 3600 * 800 + 12 * 0.02 * 123_000, rtol=1e-12)
    copy_h = 123_000 * 8 / bw / 3600
    assert np.allclose(t["replicate"], 0.02 * 123_000 + 12 * 0.023 * 123_000 + copy_h * 10, rtol=1e-12)
    with pytest.raises(Exception, match=r"link.bandwidth_gbps"):
        scenario_from_dict(copy.deepcopy(HELD_OUT) | {"link": {**HELD_OUT["link"], "bandwidth_gbit_s": [0, 10]}},
                           today=TODAY)


def test_internet_path_tiers_the_monthly_volumes(example):
    # a 200,000 GB dataset over the internet: the bundled AWS internet_egress tiers (per GB: 0.09 to 10,240,
    # 0.085 to 51,200, 0.07 to 153,600, then 0.05), each month's volume tiered on its own
    r = price(example, ["link.path=internet", "dataset.size_gb=200000", "cache.capacity_gb=300000"])

    def tier(v):
        bounds = [(0, 10240, 0.09), (10240, 51200, 0.085), (51200, 153600, 0.07), (153600, float("inf"), 0.05)]
        return sum(rate * min(max(v - lo, 0.0), hi - lo) for lo, hi, rate in bounds)

    cr, rep = r.options["cross_region"].terms, r.options["replicate"].terms
    assert cr["transfer_usd"] == pytest.approx(12 * tier(200_000), rel=1e-12)  # one cold fill a month
    assert rep["initial_copy_usd"] == pytest.approx(tier(200_000), rel=1e-12)
    assert rep["sync_usd"] == pytest.approx(12 * tier(20_000), rel=1e-12)  # 10 % churn: 20,000 GB a month
    assert round(rep["sync_usd"], 2) == round(12 * (10240 * 0.09 + 9760 * 0.085), 2) == 21014.40
