"""Issue 36, self-audit of the bundled example: every term that flips the cheapest option on its own at a
plausible value is named by the tool, and nothing within a factor of 2 is called deciding when its plausible
range cannot reach the flip. The example: D = 792.9856 GB (198.2464 G tokens x 4 B), 1 run of 3 epochs
(347.716 h) a month, 12 months, 0.02 USD/GB us-east-2 -> us-west-2, a 61,440 GB cache (77.5x the dataset)."""
from __future__ import annotations

import copy
import datetime as dt
import json

import pytest
import yaml

from costmodel.cost import evaluate, scenario_from_dict

TODAY = dt.date(2026, 12, 2)
D = 792.9856


@pytest.fixture
def example(examples_dir):
    return yaml.safe_load((examples_dir / "scenario.yaml").read_text())


def scen(d, overrides=()):
    return scenario_from_dict(copy.deepcopy(d), today=TODAY, overrides=list(overrides))


@pytest.fixture
def report_cost(cli, examples_dir, tmp_path):
    """What the report runs: ``costmodel cost scenario.yaml --from-compare compare.json --monte-carlo 500 --seed 1``
    (tests/support/golden.py), with ``--set`` overrides or another scenario file."""
    ex = examples_dir
    cmp = cli.json("compare", "--colocated", ex / "colocated_steps.csv", "--remote", ex / "remote_steps.csv", "--json")
    (tmp_path / "compare.json").write_text(json.dumps(cmp))

    def run(*sets, scenario=None):
        path = ex / "scenario.yaml"
        if scenario is not None:
            path = tmp_path / "scenario.yaml"
            path.write_text(yaml.safe_dump(scenario))
        args = [a for s in sets for a in ("--set", s)]
        return cli.json("cost", path, "--from-compare", tmp_path / "compare.json", "--monte-carlo", "500",
                        "--seed", "1", *args, "--json")
    return run


# ---------------------------------------------------------------- item 5: forced lru on a cache that holds W
def test_forced_lru_on_a_cache_that_holds_the_working_set_charges_no_warm_misses(example):
    r = evaluate(scen(example, ["link.bytes_basis=lru"]))
    base = evaluate(scen(example, ["link.bytes_basis=dataset"]))
    assert r.derived["lru_hit_ratio"] == 1.0  # was h = 0.95: 0.05 x 792.9856 x 2 warm epochs = 79.3 GB/month more
    xb = r.to_dict()["cross_region_bytes"]
    assert xb["basis"] == "lru"
    assert xb["gb_per_month"] == pytest.approx(D, rel=1e-12)  # one cold fill; was 872.28416 (and reported 0)
    assert xb["estimates_gb_per_month"]["lru"] == pytest.approx(D, rel=1e-12)
    assert r.options["cross_region"].total_usd == pytest.approx(base.options["cross_region"].total_usd, rel=1e-12)
    assert round(r.options["cross_region"].total_usd, 2) == 3272.67  # was 3,291.70


# ---------------------------------------------------------------- item 4: bytes per token decides only in its range
def _bpt_note(out):
    return next(w for w in out["warnings"] if w.startswith("dataset.size_gb rests on"))


def test_bytes_per_token_is_not_deciding_when_its_plausible_range_cannot_reach_the_flip(report_cost):
    out = report_cost()
    assert out["cheapest"] == "replicate" and round(out["margin_usd"], 2) == 53.91
    note = _bpt_note(out)
    flip = out["break_even"]["dataset.size_gb"]["value"] * 1e9 / 198_246_400_000
    assert 4.0 < flip < 8.0  # within a factor 2 of 4 (called DECIDES before), outside uint16/int32's 2-4 bytes
    assert "plausible 2-4" in note and "DECIDES" not in note
    assert (out["recommendation"]["deciding_assumption"] or {}).get("input") != "dataset.bytes_per_token"


def test_bytes_per_token_decides_when_the_flip_lies_in_its_plausible_range(report_cost, example):
    ex = copy.deepcopy(example)
    ex["dataset"]["bytes_per_token"] = 8  # int64 ids: the plausible range becomes 2-8 and holds the flip
    out = report_cost(scenario=ex)
    note = _bpt_note(out)
    assert "plausible 2-8" in note and "DECIDES" in note
    assert out["recommendation"]["deciding_assumption"]["input"] == "dataset.bytes_per_token"


# ---------------------------------------------------------------- items 1-2: retention and churn named when they flip
def _row(out, key):
    return next(r for r in out["sensitivity"] if r["input"] == key)


def test_a_stated_retention_is_swung_up_to_no_lifecycle_rule_and_named_when_that_flips(report_cost):
    out = report_cost()
    r = _row(out, "replica.noncurrent_retention_days")
    # 30 days stated; no lifecycle rule keeps overwritten versions for the horizon: 12 x 30.4375 = 365.25 days
    # the low end is the Monte Carlo's 15 days (x (1 - 0.5)): the tornado is never narrower than the draws
    assert (r["base"], r["low"], r["high"]) == (30.0, 15.0, 365.25)
    assert "no lifecycle rule" in r["range"]
    # replicate 295.26 -> 501.33 USD (2 versioned buckets x 10 % churn x D x 12 months, billed a year each), above
    # cross_region's 349.17: the answer flips (before: 22.5-37.5 days, never named)
    assert round(r["replicate_high_usd"], 2) == 501.33 and round(r["cross_region_high_usd"], 2) == 349.17
    assert r["cheapest_high"] == "cross_region"
    d = out["recommendation"]["deciding_assumption"]
    assert "replica.noncurrent_retention_days" in [d["input"], *d["also"]]
    # the Monte Carlo draws a stated rule over 15-45 days (symmetric: its mean stays the headline's 30); a missing
    # rule is a case with no frequency to draw it from: the tornado's end names it and the verdict is not robust, so
    # no certainty sentence covers it
    assert out["monte_carlo"]["default_ranges"]["replica.noncurrent_retention_days"] == {"low": 15.0, "high": 45.0}
    assert out["robust"] is False and "replica.noncurrent_retention_days" in out["robust_reason"]
    assert "100" not in out["recommendation"]["confidence_statement"]


def test_a_stated_churn_is_swung_over_a_factor_3_and_named_when_that_flips(report_cost):
    out = report_cost()
    r = _row(out, "dataset.monthly_churn_fraction")
    assert r["low"] == pytest.approx(0.1 / 3) and r["high"] == pytest.approx(0.3)  # before: 0.075-0.125
    assert round(r["replicate_high_usd"], 2) == 410.48 and r["cheapest_high"] == "cross_region"
    d = out["recommendation"]["deciding_assumption"]
    assert "dataset.monthly_churn_fraction" in [d["input"], *d["also"]]
    # the Monte Carlo draws it over 0 to 0.2 (twice the stated 0.10; before 0.05-0.15)
    assert out["monte_carlo"]["default_ranges"]["dataset.monthly_churn_fraction"] == {"low": 0.0, "high": 0.2}


# ---------------------------------------------------------------- item 3: checkpoints not stated: a large model's bound
def test_unstated_checkpoints_are_bounded_by_a_large_model_and_said_to_flip_the_verdict(report_cost):
    # replica upkeep 200 USD/month makes cross_region cheapest: 349.17 vs 2,695.26 USD, margin 2,346.09
    out = report_cost("replica.ops_usd_per_month=200")
    assert out["cheapest"] == "cross_region" and round(out["margin_usd"], 2) == 2346.09
    ck = next(r for r in out["not_modelled"] if r["term"] == "checkpoint_writeback_usd")
    T = out["inputs"]["values"]["training"]["run_hours"]
    assert T == pytest.approx(347.716, abs=1e-3)
    # 8e9 parameters x 16 B = 128 GB hourly x 347.716 h = 44,507.7 GB per run x 12 runs x 0.02 USD/GB
    assert ck["bound_usd"] == pytest.approx(12 * 1 * 128.0 * T * 0.02, rel=1e-6)  # the JSON keeps 7 digits
    assert round(ck["bound_usd"], 2) == 10681.87  # was 240 (1,000 GB per run assumed)
    assert ck["can_flip"] is True
    assert "checkpoint_writeback_usd alone could" in out["verdict"]["not_modelled_sentence"]
    w = [x for x in out["warnings"] if x.startswith("checkpoint_writeback_usd: no checkpoint size is stated")]
    assert len(w) == 1 and "can flip the verdict" in w[0]
    assert w[0] in out["recommendation"]["verdict_warnings"]


def test_stated_checkpoints_are_priced_not_bounded_and_raise_no_warning(report_cost):
    out = report_cost("replica.ops_usd_per_month=200", "training.checkpoint_gb_per_run=100")
    ck = next(r for r in out["not_modelled"] if r["term"] == "checkpoint_writeback_usd")
    assert ck["bound_usd"] == 0.0 and ck["can_flip"] is False
    assert not any(x.startswith("checkpoint_writeback_usd: no checkpoint") for x in out["warnings"])


# ---------------------------------------------------------------- priced bytes never above what can physically cross
def test_the_measured_bytes_above_the_physical_bound_are_priced_at_it_and_the_excess_named(report_cost):
    out = report_cost()
    xb = out["cross_region_bytes"]
    # one cold fill of the 792.9856 GB working set through a 61,440 GB cache (77.5x): nothing more can cross
    assert xb["physical_bound_gb_per_month"] == pytest.approx(D, rel=1e-6)
    # measured: the fill + 1.90 MB/s x 5.08 % misses over 347.7 h = 913.8 GB, 1.15x the bound (priced before)
    assert round(xb["estimates_gb_per_month"]["measured"], 1) == 913.8
    assert xb["basis"] == "measured" and xb["gb_per_month"] == pytest.approx(D, rel=1e-6)
    assert xb["within_physical_bound"] is True
    adj = xb["adjustment"]
    assert adj["name"] == "capped_at_physical_bound" and round(adj["excess_gb_per_month"], 1) == 120.8
    assert "read amplification" in adj["why"] and "page cache" in adj["why"]
    # transfer is billed on the bound: 12 x 0.02 x 792.9856 = 190.32 USD (219.30 on the measured 913.8 before)
    assert round(out["options"]["cross_region"]["terms"]["transfer_usd"], 2) == 190.32
    assert round(out["options"]["cross_region"]["total_usd"], 2) == 349.17  # was 378.16
    # the figure as measured is still shown, and what it would cost
    assert round(xb["cross_region_total_usd_by_basis"]["measured"], 2) == 378.16
    assert xb["cross_region_total_usd_by_case"]["measured"] == pytest.approx(
        xb["cross_region_total_usd_by_case"]["dataset"], rel=1e-12)
    # the byte basis stays a case of the Monte Carlo (the estimates agree within 25 %, drawn all the same)
    assert out["monte_carlo"]["byte_cases"] == ["dataset", "measured"]
    assert "the cross-region bytes drawn uniformly over the cases dataset, measured" in out["verdict"]["sentence"]
    # the adjustment is a warning that touches the verdict: on the page and in the ADR
    w = [x for x in out["warnings"] if x.startswith("cross-region bytes: the measured figure 913.765 GB/month")]
    assert len(w) == 1 and w[0] in out["recommendation"]["verdict_warnings"]
    # and the bytes phrase the checklist's link evidence prints says it was capped
    from costmodel.cost.crossing import bytes_phrase

    assert bytes_phrase(xb) == ("cross-region bytes 792.986 GB/month, 792.986 GB per run (measured: read rate x miss "
                                "ratio; 913.765 GB/month as measured, capped at what can physically cross)")


def test_a_measured_figure_far_above_the_bound_is_still_refused_and_a_forced_one_priced_as_measured(report_cost):
    # 1 GB/s read (the storage path's rate): 1e9 x 5.08 % x 347.7 h = 63,5xx GB + the fill: refused, dataset priced
    out = report_cost("cache.read_bytes_per_s=1e9")
    xb = out["cross_region_bytes"]
    assert xb["refused"] == ["measured"] and xb["basis"] == "dataset" and xb["adjustment"] is None
    assert xb["gb_per_month"] == pytest.approx(D, rel=1e-6)
    forced = report_cost("link.bytes_basis=measured")["cross_region_bytes"]
    assert round(forced["gb_per_month"], 1) == 913.8 and forced["within_physical_bound"] is False
    assert forced["adjustment"] is None


# ---------------------------------------------------------------- the zone term falls only where it can apply
def _az(out):
    return next(r for r in out["not_modelled"] if r["term"] == "cross_az_usd")


def test_cross_az_is_no_term_when_the_cache_zone_is_stated_and_the_replica_is_s3(report_cost):
    # the example states cache.cross_az: false (instance NVMe, the GPUs' zone) and replicates to S3, which bills
    # no zone crossing within its region: nothing to bound (before: 570.95 USD on "either", can_flip true)
    r = _az(report_cost())
    assert r["option"] == "none" and r["bound_usd"] == 0.0 and r["can_flip"] is False


def test_cross_az_falls_on_the_option_whose_reads_could_cross_and_flips_only_there(report_cost, example):
    ex = copy.deepcopy(example)
    del ex["cache"]["cross_az"]  # the cache's zone not stated: cross_region's reads could cross zones
    out = report_cost(scenario=ex)
    r = _az(out)
    # 3 epochs x 792.9856 GB a month x 2 directions x 0.01 USD/GB x 12 months = 570.95 USD, on cross_region only
    assert r["option"] == "cross_region" and round(r["bound_usd"], 2) == 570.95
    assert out["cheapest"] == "replicate" and r["can_flip"] is False  # a cost of the runner-up cannot flip it
    ex["replica"]["filesystem_usd_per_gb_month"] = 0.145  # replicate now reads a zonal file system (FSx)
    out = report_cost(scenario=ex)
    r = _az(out)
    assert r["option"] == "either" and round(r["bound_usd"], 2) == 570.95
    # FSx makes cross_region cheapest by 1,325.89 USD: the 570.95 could fall on it, but alone cannot cross the margin
    assert out["cheapest"] == "cross_region" and round(out["margin_usd"], 2) == 1325.89 and r["can_flip"] is False


# ---------------------------------------------------------------- the fresh audit: plausible ranges that flip are named
def test_the_audits_plausible_flips_are_tornado_rows_and_named(report_cost):
    out = report_cost()
    rows = {r["input"]: r for r in out["sensitivity"]}
    # (input, low, high, cross_region at the low end) with replicate at 295.26 USD: each flips the 53.91 USD margin
    for key, low, high, cross_low in (
            ("training.epochs_per_run", 1.0, 9.0, 257.41),  # one pass (pretraining) to several (fine-tuning)
            ("training.runs_per_month", 0.5, 1.5, 280.35),  # the Monte Carlo's own 0.5-1.5 (the tornado had 0.75-1.25)
            ("training.cluster_usd_per_hour", 0.4 * 110.08, 1.25 * 110.08, 253.88),  # spot / commitments to on demand
    ):
        r = rows[key]
        assert r["low"] == pytest.approx(low) and r["high"] == pytest.approx(high)
        assert round(r["cross_region_low_usd"], 2) == cross_low and r["cheapest_low"] == "cross_region"
    # a 1 Gbit/s link (one stream): the initial copy's delay, 1.76 h x 50 USD, makes replicate 365.75 USD
    r = rows["link.bandwidth_gbps"]
    assert (r["low"], r["high"]) == (1.0, 7.5) and round(r["replicate_low_usd"], 2) == 365.75
    assert r["cheapest_low"] == "cross_region"
    d = out["recommendation"]["deciding_assumption"]
    assert {"training.epochs_per_run", "training.runs_per_month", "training.cluster_usd_per_hour",
            "link.bandwidth_gbps"} <= {d["input"], *d["also"]}
    assert out["robust"] is False


def test_no_hundred_percent_when_a_warning_touches_a_robust_verdict(report_cost):
    # upkeep of 200 USD/month: cross_region in every one of 500 draws, robust, but the unstated checkpoints can
    # flip it (a warning that touches the verdict): "nearly all of the draws", never "100.0%"
    out = report_cost("replica.ops_usd_per_month=200")
    assert out["robust"] is True and out["p_cheapest"]["cross_region"] == 1.0
    assert out["recommendation"]["confidence"] == "moderate"
    v = out["verdict"]["sentence"]
    assert "100.0%" not in v and "cheapest in nearly all of the draws" in v
    # the checklist's cost evidence (the page and the ADR) says so too
    from costmodel.checklist.evidence import gather_evidence

    ev = gather_evidence(cost=out)["cost_favourable"]
    assert "cross-region cheapest in over 99.9 % of draws" in ev.summary and "100.0 %" not in ev.summary


def test_no_hundred_percent_in_a_not_robust_statement(report_cost):
    # a 1 B-parameter model checkpointed hourly: replicate in all 500 draws by 1,389.14 USD, not robust
    out = report_cost("training.model_parameters=1e9", "training.checkpoint_interval_hours=1")
    assert round(out["margin_usd"], 2) == 1389.14 and out["p_cheapest"]["replicate"] == 1.0 and out["robust"] is False
    st = out["recommendation"]["confidence_statement"]
    assert "100.0%" not in st and "cheapest in nearly all the draws" in st


def test_a_term_not_modelled_that_can_flip_is_a_warning_on_the_page_and_in_the_adr(report_cost):
    # FSx for Lustre in front of the replica: 1,200 GiB (1,288.49 GB) x 0.145 USD x 12 = 2,241.97 USD on replicate,
    # 41x the 53.91 USD margin (the audit: with it priced cross_region wins by 1,325.89 USD)
    out = report_cost()
    fs = next(r for r in out["not_modelled"] if r["term"] == "filesystem_tier_usd")
    assert round(fs["bound_usd"], 2) == 2241.97 and fs["can_flip"] is True
    w = [x for x in out["warnings"] if x.startswith("filesystem_tier_usd: not modelled; up to 2,241.97 USD")]
    assert len(w) == 1 and "can flip the verdict" in w[0] and w[0] in out["recommendation"]["verdict_warnings"]
    # stated as 0 (training reads the object store): nothing to bound, no warning
    out = report_cost("replica.filesystem_usd_per_gb_month=0")
    fs = next(r for r in out["not_modelled"] if r["term"] == "filesystem_tier_usd")
    assert fs["bound_usd"] == 0.0 and fs["can_flip"] is False
    assert not any(x.startswith("filesystem_tier_usd") for x in out["warnings"])
