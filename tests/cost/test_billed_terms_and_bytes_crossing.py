"""Cost model v2 (issue 13, and issue 18's headline): every new term to the cent, the bytes that cross the
link, consistency with the measured throughput and the link, cache lifetime and capacity, priced options
only, billed byte units, tiers, margin and robustness."""
from __future__ import annotations

import copy
import datetime as dt
import json

import numpy as np
import pytest
from support.cost_scenarios import ISSUE

from costmodel.cli import main
from costmodel.cost import analyze, evaluate, load_scenario, scenario_from_dict
from costmodel.cost.evaluate import model_inputs
from costmodel.cost.model import totals, totals_scalar
from costmodel.foundation.errors import ScenarioError

TODAY = dt.date(2026, 12, 2)

# every new term non-zero, every price given (no catalog rows needed)
V2 = {
    "horizon_months": 12,
    "dataset": {"size_gb": 1000, "monthly_churn_fraction": 0.1, "working_set_fraction": 1.0, "objects": 1_000_000},
    "training": {"runs_per_month": 4, "epochs_per_run": 3, "run_hours": 48, "cluster_usd_per_hour": 100},
    "link": {"transfer_usd_per_gb": 0.02, "path": "nat_gateway", "path_processing_usd_per_gb": 0.045,
             "inter_az_usd_per_gb": 0.01, "bandwidth_gbps": 10},
    "cache": {"steady_hit_ratio": 0.95, "cold_starts_per_month": 1, "warmup_lost_s": 360,
              "steady_slowdown_fraction": 0.0, "cross_az": True},
    "replica": {"storage_usd_per_gb_month": 0.023, "noncurrent_retention_days": 30.4375},
    "requests": {"get_usd_per_1000": 0.0004, "put_usd_per_1000": 0.005, "batch_replication_usd_per_million": 1.0,
                 "batch_job_usd": 0.25},
    "wait": {"expected_wait_hours_per_run": 10, "delay_usd_per_hour": 50},
}


def scen(d, overrides=(), **kw):
    return scenario_from_dict(d, today=TODAY, overrides=overrides, **kw)


def with_(d, **paths):
    d = copy.deepcopy(d)
    for path, v in paths.items():
        sec, _, leaf = path.partition("__")
        if v is ...:
            d[sec].pop(leaf, None)
        else:
            d.setdefault(sec, {})[leaf] = v
    return d


def cents(x):
    return round(x, 2)


# ------------------------------------------------------------------------------------ new terms
def test_every_new_term_to_the_cent():
    r = evaluate(scen(V2))
    cr, rep = r.options["cross_region"].terms, r.options["replicate"].terms
    # W = 1,000 GB, N = 12, 1 cold fill, 11 warm epochs at 5 % misses; churn inside the fill:
    # X = 1,000 + 0.05 x 1,000 x 11 = 1,550 GB/month
    assert r.derived["cross_region_gb_per_month"] == pytest.approx(1550.0)
    assert cents(cr["transfer_usd"]) == 372.00  # 12 x 0.02 x 1,550
    assert cents(cr["warmup_usd"]) == 120.00  # 12 x 1 x 360 s / 3600 x 100 USD/h
    assert cents(cr["path_processing_usd"]) == 837.00  # NAT: 12 x 0.045 x 1,550
    # 1,000 objects per GB: 1,550,000 objects enter the cache a month, one GET each: 12 x 1,550 x 0.0004
    assert cents(cr["requests_usd"]) == 7.44
    # cache in another zone: every epoch's 1,000 GB crosses it, billed out and in: 2 x 0.01 x 12 x 12,000
    assert cents(cr["inter_az_usd"]) == 2880.00
    assert cents(r.options["cross_region"].total_usd) == 4216.44
    assert cents(rep["initial_copy_usd"]) == 20.00
    assert cents(rep["storage_usd"]) == 276.00
    assert cents(rep["sync_usd"]) == 24.00
    # the same 7.44 of GETs (the cache now reads the local replica) + PUTs for 1 M copied and 12 x 100,000
    # changed objects (2.2 M x 0.005 / 1000 = 11.00) + batch replication 1.00 + one job 0.25
    assert cents(rep["requests_usd"]) == 19.69
    # versioning: 100 GB overwritten a month kept 1 month in both buckets (replication needs versioning on the
    # source and the replica): 2 x 0.023 x 100 x (1 x 12 - 1/2) = 52.90
    assert cents(rep["versioning_usd"]) == 52.90
    assert rep["inter_az_usd"] == 0.0  # the replica is in the GPUs' zone
    # copy: 1,000 GB x 8 / 10 Gbit/s = 800 s = 0.2222 h x 50 USD/h of delay
    assert cents(rep["copy_delay_usd"]) == 11.11
    assert cents(r.options["replicate"].total_usd) == 403.70
    assert cents(r.options["wait"].total_usd) == 24000.00  # 12 x 4 x 10 h x 50
    assert r.cheapest == "replicate"
    assert r.margin_usd == pytest.approx(4216.44 - 403.7011, abs=1e-3)


def test_scalar_loop_matches_vectorised_with_every_term(rng):
    s = scen(V2)
    n = 300
    arrays = {"cache.steady_hit_ratio": rng.uniform(0.5, 1.0, n), "training.runs_per_month": rng.uniform(0.1, 10, n),
              "dataset.size_gb": rng.uniform(10, 1e5, n), "replica.noncurrent_retention_days": rng.uniform(0, 900, n),
              "cache.cold_starts_per_month": rng.uniform(0, 5, n)}
    t = totals(model_inputs(s, **arrays))
    for i in range(0, n, 29):
        c, r, _w = totals_scalar(model_inputs(s, **{k: float(v[i]) for k, v in arrays.items()}))
        assert t["cross_region"][i] == pytest.approx(c, rel=1e-12)
        assert t["replicate"][i] == pytest.approx(r, rel=1e-12)


def test_versioning_without_lifecycle_rule_keeps_versions_for_the_horizon():
    d = with_(V2, replica__noncurrent_retention_days=...)
    r = evaluate(scen(d))
    # kept the whole horizon in both buckets: 2 x 0.023 x 100 GB x 12^2 / 2 = 331.20
    assert cents(r.options["replicate"].terms["versioning_usd"]) == 331.20
    assert any("lifecycle rule" in w for w in r.warnings)


def test_mean_object_size_derives_the_object_count_and_16_kib_objects_flip_the_example(examples_dir):
    # the issue's case: the reference dataset as one 16 KiB object per sample instead of 100 MB shards
    big = load_scenario(examples_dir / "scenario.yaml", today=TODAY)
    assert big.values["dataset.objects"] == pytest.approx(792.9856 * 1000 / 100)
    small = load_scenario(examples_dir / "scenario.yaml", ["dataset.objects=48400000"], today=TODAY)
    rb, rs = evaluate(big), evaluate(small)
    assert rb.options["cross_region"].terms["requests_usd"] < 1 and rb.options["replicate"].terms["requests_usd"] < 1
    # 1 cold fill a month, warm epochs hit: 48.4 M GETs a month x 12 x 0.0004 / 1000 = 232.32 (both options)
    assert cents(rs.options["cross_region"].terms["requests_usd"]) == 232.32
    # + PUTs for 48.4 M copied and 12 x 4.84 M changed objects x 0.005 / 1000 = 532.40, batch 48.40 + 0.25
    assert cents(rs.options["replicate"].terms["requests_usd"]) == cents(232.32 + 532.40 + 48.40 + 0.25)


def test_requests_without_object_count_are_zero_with_a_warning_and_a_note():
    d = with_(V2, dataset__objects=...)
    r = evaluate(scen(d))
    assert r.options["cross_region"].terms["requests_usd"] == 0.0
    assert "dataset.objects" in r.options["replicate"].terms_not_priced["requests_usd"]
    assert any(w.startswith("requests_usd: request charges not counted") for w in r.warnings)


# ------------------------------------------------------------------------------ bytes and cache
def test_cold_starts_follow_runs_when_the_cache_is_per_run():
    d = with_(ISSUE, cache__cold_starts_per_month=..., cache__persistence="per_run")
    r = evaluate(scen(d))
    # 4 cold fills + 0.05 x 50,000 x 8 warm epochs = 220,000 GB/month x 0.02 x 12
    assert cents(r.options["cross_region"].terms["transfer_usd"]) == 52800.00
    assert cents(r.options["cross_region"].terms["warmup_usd"]) == 786.56  # 4 x 300 s x 196.64 / 3600 x 12
    c = {x["check"]: x for x in r.consistency}["cold_starts"]
    assert c["severity"] == "derived" and c["implied"] == 4.0
    # in Monte Carlo the cold starts move with the runs
    s = scen(d)
    t = totals(model_inputs(s, **{"training.runs_per_month": np.array([2.0])}))
    assert float(t["cross_region"][0]) == pytest.approx(
        12 * (0.02 * (2 * 50000 + 0.05 * 50000 * 4) + 2 * 300 / 3600 * 196.64))


def test_persistent_cache_and_capacity_that_holds_the_working_set():
    d = with_(ISSUE, cache__cold_starts_per_month=..., cache__persistence="persistent")
    r = evaluate(scen(d))
    # one fill over 12 months: n = 1/12; churn outside the fill: 0.1 x 50,000 x (1 - 1/12)
    x = 50000 / 12 + 0.05 * 50000 * (12 - 1 / 12) + 0.1 * 50000 * (1 - 1 / 12)
    assert r.derived["cross_region_gb_per_month"] == pytest.approx(x)
    assert cents(r.options["cross_region"].terms["transfer_usd"]) == 9250.00
    held = evaluate(scen(with_(d, cache__capacity_gb=61440)))
    # re-reads of a working set the cache holds are hits: only the fill and the churn cross
    assert cents(held.options["cross_region"].terms["transfer_usd"]) == 2100.00  # 8,750 GB x 0.02 x 12
    assert {x["check"]: x for x in held.consistency}["cache_capacity"]["implied"] == 1.0


def test_cache_smaller_than_the_working_set_bounds_the_hit_ratio():
    r = evaluate(scen(with_(ISSUE, cache__capacity_gb=40000)))
    chk = {x["check"]: x for x in r.consistency}["cache_capacity"]
    assert chk["severity"] == "warning" and chk["implied"] == pytest.approx(0.8) and chk["stated"] == 0.95
    assert r.derived["warm_hit_ratio"] == pytest.approx(0.8)
    # 50,000 + 0.2 x 50,000 x 11 = 160,000 GB x 0.02 x 12
    assert cents(r.options["cross_region"].terms["transfer_usd"]) == 38400.00
    assert any("cannot hit more than 0.8" in w for w in r.warnings)


# ---------------------------------------------------------------------------------- consistency
def test_run_hours_checked_against_throughput_on_the_reference(examples_dir):
    s = load_scenario(examples_dir / "scenario.yaml", ["training.run_hours=48"], today=TODAY)
    chk = {x["check"]: x for x in s.consistency}["run_hours"]
    assert chk["severity"] == "warning" and chk["stated"] == 48
    assert chk["implied"] == pytest.approx(3 * 48.4e6 / 116 / 3600 + 55 / 3600)
    assert "training.run_hours" in chk["keys"] and "training.epochs_per_run" in chk["keys"]
    assert "0.414 epochs" in chk["message"]
    assert any("training.run_hours vs training.epochs_per_run" in w for w in s.warnings)


def test_epochs_derived_from_run_hours(examples_dir):
    s = load_scenario(examples_dir / "scenario.yaml", ["training.run_hours=48", "training.epochs_per_run=null"],
                      today=TODAY)
    # (48 h - 55 s of warm-up) x 116 samples/s / 48.4 M samples
    assert s.values["training.epochs_per_run"] == pytest.approx((48 - 55 / 3600) * 3600 * 116 / 48.4e6)
    assert {x["check"]: x for x in s.consistency}["run_hours"]["severity"] == "derived"


def test_throughput_from_compare_derives_run_hours(tmp_path):
    d = with_(ISSUE, training__run_hours=..., dataset__samples=1_000_000)
    s = scen(d)
    assert "training.run_hours" in s.missing
    with pytest.raises(ScenarioError, match=r"training.run_hours: missing.*samples_per_s"):
        evaluate(s)
    from costmodel.cost import apply_measurements

    f = apply_measurements(s, compare={"ratio": 1.0, "remote_lost_s": 300.0, "metric": "samples_per_s",
                                       "pooled": {"remote": {"mean": 100.0}}}, source="c.json")
    # 3 epochs x 1 M samples / 100 samples/s = 30,000 s + 300 s of warm-up per run (1 cold start / 4 runs)
    assert f.values["training.run_hours"] == pytest.approx((3 * 1e6 / 100 + 300 / 4) / 3600)
    assert f.provenance["training.samples_per_s"]["source"] == "compare pooled.remote.mean from c.json"


def test_step_time_compare_gives_throughput_with_the_batch_size():
    # a compare on step_time_s (pooled remote mean 0.5 s per step) and a global batch of 50 samples:
    # 50 / 0.5 = 100 samples/s, so run_hours derives as with a samples/s compare
    d = with_(ISSUE, training__run_hours=..., dataset__samples=1_000_000, training__batch_samples=50)
    from costmodel.cost import apply_measurements

    f = apply_measurements(scen(d), compare={"ratio": 1.0, "remote_lost_s": 300.0, "metric": "step_time_s",
                                             "pooled": {"remote": {"mean": 0.5}}}, source="c.json")
    assert f.settings["training.samples_per_s"] == pytest.approx(100.0)
    assert f.values["training.run_hours"] == pytest.approx((3 * 1e6 / 100 + 300 / 4) / 3600)
    assert f.provenance["training.samples_per_s"]["source"].startswith("training.batch_samples / ")


def test_cold_fill_cannot_be_faster_than_the_link():
    # the held-out shape: 123 TB at 10 Gbit/s = 27.3 h, stated as 420 s lost per cold start
    d = with_(ISSUE, dataset__size_gb=123000, dataset__samples=1e9, training__samples_per_s=50000,
              link__bandwidth_gbps=10, cache__warmup_lost_s=420)
    r = evaluate(scen(d))
    chk = {x["check"]: x for x in r.consistency}["cold_fill_time"]
    # fill 123,000 x 8 / 10 = 98,400 s; an epoch at full speed 1e9 / 50,000 = 20,000 s: >= 78,400 s lost
    assert chk["severity"] == "warning" and chk["implied"] == pytest.approx(78400.0) and chk["stated"] == 420
    assert cents(r.options["cross_region"].terms["warmup_usd"]) == cents(12 * 78400 / 3600 * 196.64)


def test_copy_time_is_derived_from_bandwidth_and_checked():
    s = scen(V2)
    assert s.values["replica.copy_hours"] == pytest.approx(800 / 3600)
    s2 = scen(with_(V2, replica__copy_hours=0.01))
    chk = {x["check"]: x for x in s2.consistency}["copy_time"]
    assert chk["severity"] == "warning" and s2.values["replica.copy_hours"] == pytest.approx(800 / 3600)


@pytest.mark.parametrize("setting, key, words", [
    ("training.run_hours=0.01", "training.epochs_per_run", "expected a run longer than its warm-up"),
    ("cache.capacity_gb=0.001", "cache.capacity_gb", "smaller than one batch"),
    ("link.path=nat", "link.path", "vpc_peering | transit_gateway | nat_gateway | privatelink | internet"),
    ("cache.persistence=forever", "cache.persistence", "persistent | per_cluster | per_run"),
    ("cache.cross_az=maybe", "cache.cross_az", "true or false"),
])
def test_unresolvable_contradictions_exit_2_naming_the_key(capsys, examples_dir, setting, key, words):
    extra = ["--set", "training.epochs_per_run=null"] if "run_hours" in setting else []
    rc = main(["cost", str(examples_dir / "scenario.yaml"), "--set", setting, *extra, "--json"])
    out = capsys.readouterr()
    assert rc == 2 and out.out == ""
    line = out.err.strip()
    assert "\n" not in line and "Traceback" not in line
    assert key in line and words in line, line


# ---------------------------------------------------------------------------------- priced or not
def test_wait_without_inputs_is_not_priced_and_never_cheapest():
    d = copy.deepcopy(ISSUE)
    del d["wait"]
    out = analyze(scen(d), monte_carlo_n=2000, seed=1)
    w = out["options"]["wait"]
    assert w["priced"] is False and "wait.expected_wait_hours_per_run" in w["not_priced_reason"]
    assert out["cheapest"] != "wait" and out["ranking"][-1] == "wait"
    assert out["monte_carlo"]["p_cheapest"]["wait"] == 0.0
    assert out["options"]["cross_region"]["priced"] is True and out["options"]["cross_region"]["not_priced_reason"] is None


def test_a_path_without_a_price_leaves_cross_region_not_priced():
    d = with_(V2, link__path_processing_usd_per_gb=...)
    r = evaluate(scen(d, prices_dir=None))
    # V2 has no prices: section, so the catalog cannot be asked
    assert r.options["cross_region"].priced is False
    assert "link.path_processing_usd_per_gb" in r.options["cross_region"].not_priced_reason
    assert r.cheapest == "replicate"


# ------------------------------------------------------------------------------------- units
def test_scenario_price_per_gib_converts_exactly():
    d = with_(ISSUE, link__transfer_usd_per_gb=...)
    d["link"]["transfer_usd_per_gib"] = 0.02
    s = scen(d)
    assert s.values["link.transfer_usd_per_gb"] == pytest.approx(0.02 * 1e9 / 2**30, rel=1e-15)
    assert "as link.transfer_usd_per_gib" in s.provenance["link.transfer_usd_per_gb"]["source"]
    # 77,500 GB/month x 12 x 0.0186264514923 USD/GB
    assert cents(evaluate(s).options["cross_region"].terms["transfer_usd"]) == cents(77500 * 12 * 0.02 * 1e9 / 2**30)


def test_catalog_row_in_gib_is_priced_per_gib(tmp_path, examples_dir):
    from costmodel.foundation.resources import PRICES_DIR

    for f in PRICES_DIR.glob("*.csv"):
        text = f.read_text()
        if f.name == "transfer.csv":
            text = text.replace("aws,inter_region,us-east-2,us-west-2,GB,0.02", "aws,inter_region,us-east-2,us-west-2,GiB,0.02")
        (tmp_path / f.name).write_text(text)
    s = load_scenario(examples_dir / "scenario.yaml", today=TODAY, prices_dir=tmp_path)
    assert s.values["link.transfer_usd_per_gb"] == pytest.approx(0.02 * 1e9 / 2**30, rel=1e-15)
    used = {u["key"]: u for u in s.prices_used}["link.transfer_usd_per_gb"]
    from costmodel.prices.catalog import parse_as_of

    assert used["unit"] == "GiB" and used["bytes_per_unit"] == 2**30
    assert used["source"] and used["age_days"] == (TODAY - parse_as_of(used["as_of"])).days



def test_tiered_storage_by_monthly_volume(examples_dir):
    # the bundled catalog's S3 Standard tiers (issue 14), per GiB-month as S3 bills them (S3 FAQ: 1 GB =
    # 2^30 bytes): first 50 TB (51,200 GiB), next 450 TB, over 500 TB; the example gives us-west-2's price
    # itself, so the replica is put in us-east-1 (which the catalog has) and the scenario's price dropped
    s = load_scenario(examples_dir / "scenario.yaml", ["dataset.size_gb=600000", "replica.storage_usd_per_gib_month=null",
                                                     "prices.dst_region=us-east-1"], today=TODAY)
    r = evaluate(s)
    gib = 600000 * 1e9 / 2**30  # 558,793.5 GiB
    month = 51200 * 0.023 + 460800 * 0.022 + (gib - 512000) * 0.021  # 12,297.86 USD/month
    assert r.options["replicate"].terms["storage_usd"] == pytest.approx(12 * month, rel=1e-9)
    assert cents(r.options["replicate"].terms["storage_usd"]) == 147574.37
    assert not any("first-tier price is used" in w for w in r.warnings)


# ----------------------------------------------------------------- headline, margin, robustness
def test_headline_is_the_expected_value_not_the_mode(examples_dir):
    """Issue 18: the triangular 0/0/2 % slowdown headlined 0 (its mode); the headline is its mean."""
    s = load_scenario(examples_dir / "scenario.yaml", today=TODAY)
    out = analyze(s, monte_carlo_n=100_000, seed=3)
    assert out["headline_basis"] == "expected_value"
    cr = out["options"]["cross_region"]
    hours = 3 * 48.4e6 / 116 / 3600 + 55 / 3600
    assert cr["terms"]["slowdown_usd"] == pytest.approx(12 * 0.02 / 3 * hours * 110.08, rel=1e-12)
    assert cr["terms"]["slowdown_usd"] > 3000  # the mode (0) would headline nothing
    mc = out["monte_carlo"]
    assert cr["total_usd"] == pytest.approx(mc["mean"]["cross_region"], rel=0.01)
    assert cr["p5_usd"] == mc["p5"]["cross_region"] < cr["total_usd"] < cr["p95_usd"] == mc["p95"]["cross_region"]


def test_margin_and_robust_on_the_reference(examples_dir):
    out = analyze(load_scenario(examples_dir / "scenario.yaml", today=TODAY))
    o = out["options"]
    assert out["cheapest"] == "replicate"
    assert out["margin_usd"] == pytest.approx(o["cross_region"]["total_usd"] - o["replicate"]["total_usd"])
    assert out["robust"] is True and "P(cheapest)" in out["robust_reason"]


def test_not_robust_when_monte_carlo_is_split():
    d = with_(ISSUE, cache__steady_hit_ratio={"dist": "uniform", "low": 0.95, "high": 1.0},
              wait__expected_wait_hours_per_run=100, wait__delay_usd_per_hour=1000)
    out = analyze(scen(d), seed=0)
    assert out["robust"] is False and "Monte Carlo" in out["robust_reason"]


def test_not_robust_when_one_tornado_input_crosses_the_margin():
    # h = 0.975: cross-region cheaper by 503.36; at the low end of h (0.96875) replicate is cheaper by 321.64
    d = with_(ISSUE, cache__steady_hit_ratio=0.975)
    del d["wait"]
    out = analyze(scen(d))
    assert out["cheapest"] == "cross_region"
    assert out["margin_usd"] == pytest.approx(503.36)
    assert out["robust"] is False and "cache.steady_hit_ratio at its low value" in out["robust_reason"]


def test_cli_json_has_the_new_contract_keys(capsys, examples_dir):
    rc = main(["cost", str(examples_dir / "scenario.yaml"), "--today", "2026-12-02", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    for k in ("consistency", "margin_usd", "robust", "robust_reason", "headline_basis"):
        assert k in out
    for c in out["consistency"]:
        assert {"check", "keys", "stated", "implied", "severity"} <= set(c)
    for o in out["options"].values():
        assert {"priced", "not_priced_reason", "p5_usd", "p95_usd"} <= set(o)
    for u in out["prices_used"]:
        assert {"source", "as_of", "unit", "age_days"} <= set(u)


def test_verdict_shows_robustness_beside_it_and_checklist_respects_priced(examples_dir):
    from costmodel import checklist, report

    out = analyze(load_scenario(examples_dir / "scenario.yaml", today=TODAY))
    html = report.verdict_html({"verdict": "CONDITIONAL", "blockers": [], "conditions": []}, out).text
    first = html.index("Verdict")
    assert html.index("replicate is cheapest by") > first and "robust: yes" in html
    assert "expected value" in html
    unpriced = copy.deepcopy(out)
    unpriced["options"]["cross_region"]["priced"] = False
    unpriced["options"]["cross_region"]["not_priced_reason"] = "no NAT price"
    e2 = checklist.gather_evidence(cost=unpriced)["cost_favourable"]
    assert e2.proposed == "unknown" and "no NAT price" in e2.summary
    assert checklist.gather_evidence(cost=out)["cost_favourable"].facts["robust"] is True


def test_whatif_example_prices_like_the_reference(examples_dir):
    a = analyze(load_scenario(examples_dir / "scenario.yaml", today=TODAY))
    b = analyze(load_scenario(examples_dir / "whatif.yaml", today=TODAY))
    assert {o: v["total_usd"] for o, v in a["options"].items()} == {o: v["total_usd"] for o, v in b["options"].items()}


def test_run_hours_not_checked_without_samples_says_so():
    chk = {x["check"]: x for x in scen(ISSUE).consistency}["run_hours"]
    assert chk["severity"] == "info" and "dataset.samples" in chk["message"]


def test_adr_states_margin_and_robustness_beside_the_verdict(examples_dir):
    from costmodel import checklist as cl
    from costmodel.checklist import adr

    out = analyze(load_scenario(examples_dir / "scenario.yaml", today=TODAY))
    decision = cl.evaluate({}, cl.gather_evidence(cost=out))
    text = adr.render_adr(decision, title="t", date="2026-10-01", cost=out)
    verdict_at = text.index("Checklist verdict:")
    line_at = text.index(f"Cost: replicate is cheapest by {out['margin_usd']:,.2f} USD; robust: yes")
    assert verdict_at < line_at < text.index("## Decision Drivers")


def test_cold_fill_bound_from_the_run_length_when_throughput_is_unknown():
    # 123 TB at 10 Gbit/s = 98,400 s; no throughput, but 3 epochs in a 48 h run: an epoch takes at most
    # 16 h = 57,600 s, so at least 40,800 s are lost per cold start, not the stated 420 s
    d = with_(ISSUE, dataset__size_gb=123000, link__bandwidth_gbps=10, cache__warmup_lost_s=420)
    r = evaluate(scen(d))
    chk = {x["check"]: x for x in r.consistency}["cold_fill_time"]
    assert chk["severity"] == "warning" and chk["implied"] == pytest.approx(40800.0)
    assert cents(r.options["cross_region"].terms["warmup_usd"]) == cents(12 * 40800 / 3600 * 196.64)


def test_bandwidth_derived_from_a_stated_copy_time():
    d = with_(V2, link__bandwidth_gbps=..., replica__copy_hours=2.0)
    s = scen(d)
    assert s.settings["link.bandwidth_gbps"] == pytest.approx(1000 * 8 / 7200)
    assert s.values["replica.copy_hours"] == 2.0
    assert cents(evaluate(s).options["replicate"].terms["copy_delay_usd"]) == 100.00  # 2 h x 50 USD/h


def test_timeline_throughput_derives_run_hours(tmp_path):
    import pandas as pd

    from costmodel.cost import apply_measurements
    from costmodel.foundation.schema import Run, to_timeline

    thr = np.r_[np.full(10, 50.0), np.full(10, 200.0)]  # the second half is the steady part
    df = pd.DataFrame({"step": np.arange(20), "samples_per_s": thr, "cache_hit_ratio": np.full(20, 0.96)})
    run = Run("remote-1", to_timeline(df, "remote-1", role="remote"), "csv", "r.csv", role="remote")
    s = scen(with_(ISSUE, training__run_hours=..., dataset__samples=2_000_000))
    f = apply_measurements(s, timeline_runs=[run], source="t.parquet")
    # 3 epochs x 2 M samples / 200 samples/s = 30,000 s, + 300 s warm-up per run (1 cold start / 4 runs)
    assert f.values["training.run_hours"] == pytest.approx((30000 + 75) / 3600)
    assert f.provenance["training.samples_per_s"]["source"] == "timeline steady samples_per_s from t.parquet"
