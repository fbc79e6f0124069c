"""The cost formulas checked to the cent against hand computations, break-even, sensitivity, Monte Carlo."""
from __future__ import annotations

import copy
import datetime as dt

import numpy as np
import pytest
from support.cost_scenarios import ISSUE, RICH

from costmodel.cost import (
    break_even,
    evaluate,
    monte_carlo,
    scenario_from_dict,
    sweep_2d,
    tornado,
)
from costmodel.cost.evaluate import model_inputs
from costmodel.cost.model import totals, totals_scalar
from costmodel.cost.spec import PARAM_BY_KEY
from costmodel.foundation.errors import ScenarioError

TODAY = dt.date(2026, 12, 2)

def scen(d, **kw):
    return scenario_from_dict(d, today=TODAY, **kw)


def cents(x: float) -> float:
    return round(x, 2)


def test_issue_example_every_term_to_the_cent():
    r = evaluate(scen(ISSUE))
    cr, rep, wait = (r.options[o] for o in ("cross_region", "replicate", "wait"))
    # W = 50,000 GB, N = 12 epochs/month, 1 cold fill, 11 warm epochs; the churned 10 % travels inside the
    # monthly cold fill (counted once): 50,000 + 0.05 * 50,000 * 11 = 77,500 GB/month x 0.02 x 12 = 18,600
    assert cents(cr.terms["transfer_usd"]) == 18600.00
    # 1 cold start x 300 s x 196.64 USD/h / 3600 x 12 months = 196.64
    assert cents(cr.terms["warmup_usd"]) == 196.64
    assert cr.terms["slowdown_usd"] == 0.0
    assert cr.terms["cache_usd"] == 0.0
    assert cents(cr.total_usd) == 18796.64
    assert cents(cr.per_month_usd) == cents(18796.64 / 12)
    assert cents(rep.terms["initial_copy_usd"]) == 1000.00  # 50,000 x 0.02 once
    assert cents(rep.terms["storage_usd"]) == 13800.00  # 50,000 x 0.023 x 12
    assert cents(rep.terms["sync_usd"]) == 1200.00  # 0.1 x 50,000 x 0.02 x 12
    assert rep.terms["ops_usd"] == 0.0
    assert cents(rep.total_usd) == 16000.00
    assert wait.total_usd == 0.0
    assert r.derived["cross_region_gb_per_month"] == pytest.approx(77500.0)
    assert r.derived["churn_refetch_gb_per_month"] == 0.0


def test_rich_example_every_term_to_the_cent():
    r = evaluate(scen(RICH))
    cr, rep, wait = (r.options[o] for o in ("cross_region", "replicate", "wait"))
    # W = 0.8 x 50,000 = 40,000 GB; N = 12; 2 cold fills, 10 warm epochs
    # GB/month: 2 x 40,000 + 0.05 x 40,000 x 10 = 80,000 + 20,000 = 100,000 (churn inside the fills)
    assert cents(cr.terms["transfer_usd"]) == 24000.00  # 100,000 x 0.02 x 12
    assert cents(cr.terms["warmup_usd"]) == 393.28  # 2 x 300/3600 x 196.64 x 12
    assert cents(cr.terms["slowdown_usd"]) == 4530.59  # 0.01 x (4 x 48) x 196.64 x 12 = 4,530.5856
    assert cents(cr.terms["cache_usd"]) == 1200.00  # 100 x 12
    assert cents(cr.total_usd) == 30123.87  # 30,123.8656
    assert cents(rep.terms["initial_copy_usd"]) == 1000.00
    assert cents(rep.terms["storage_usd"]) == 13800.00
    assert cents(rep.terms["sync_usd"]) == 2100.00  # 0.1 x 50,000 x (0.02 + 0.015) x 12
    assert cents(rep.terms["ops_usd"]) == 3000.00
    assert cents(rep.total_usd) == 19900.00
    assert cents(wait.terms["delay_usd"]) == 46080.00  # 4 runs x 24 h x 40 USD x 12
    assert cents(wait.terms["gpu_premium_usd"]) == 11520.00  # 4 x 48 h x 5 USD x 12
    assert r.cheapest == "replicate"
    assert r.to_dict()["ranking"] == ["replicate", "cross_region", "wait"]
    frame = r.terms_frame()
    assert len(frame) == 23 and set(frame.columns) == {"option", "term", "total_usd", "per_month_usd"}
    assert frame.groupby("option")["total_usd"].sum()["cross_region"] == pytest.approx(cr.total_usd)


def test_cold_starts_are_capped_by_epochs_and_warned():
    d = {**RICH, "cache": {**RICH["cache"], "cold_starts_per_month": 20}}
    r = evaluate(scen(d))
    assert r.derived["cold_fills_per_month"] == 12.0
    assert r.derived["warm_epochs_per_month"] == 0.0
    assert any("exceeds the epochs per month" in w for w in r.warnings)


def test_vectorised_totals_match_the_scalar_loop(rng):
    s = scen(RICH)
    n = 500
    arrays = {
        "cache.steady_hit_ratio": rng.uniform(0.5, 1.0, n),
        "training.runs_per_month": rng.uniform(0.0, 10.0, n),
        "cache.cold_starts_per_month": rng.uniform(0.0, 40.0, n),
        "dataset.size_gb": rng.uniform(1.0, 1e5, n),
    }
    from costmodel.cost.evaluate import model_inputs

    t = totals(model_inputs(s, **arrays))
    for i in range(0, n, 37):
        p = model_inputs(s, **{k: float(v[i]) for k, v in arrays.items()})
        c, r, w = totals_scalar(p)
        assert t["cross_region"][i] == pytest.approx(c, rel=1e-12)
        assert t["replicate"][i] == pytest.approx(r, rel=1e-12)
        assert np.broadcast_to(t["wait"], (n,))[i] == pytest.approx(w, rel=1e-12)


# ------------------------------------------------------------------------------------- break-even
def test_break_even_transfer_price_closed_form():
    # cross = 1,200,000 p + 6,123.8656 ; replicate = 110,000 p + 17,700  =>  p* = 11,576.1344 / 1,090,000
    b = break_even(scen(RICH), ["link.transfer_usd_per_gb"])["link.transfer_usd_per_gb"]
    assert b["method"] == "closed_form"
    assert b["value"] == pytest.approx(11576.1344 / 1090000, rel=1e-9)
    assert b["above"] == "replicate" and b["below"] == "cross_region"
    assert b["never"] is False


def test_break_even_churn_closed_form_cross_region_wins_above():
    # cross = 30,123.8656 (2 cold fills a month re-read the churned data) ; replicate = 17,800 + 21,000 c
    #   =>  c* = 12,323.8656 / 21,000
    b = break_even(scen(RICH), ["dataset.monthly_churn_fraction"])["dataset.monthly_churn_fraction"]
    assert b["value"] == pytest.approx(12323.8656 / 21000, rel=1e-9)
    assert b["above"] == "cross_region"


def test_break_even_runs_per_month_needs_root_finding_at_the_kink():
    # below 2/3 run/month the cold fills are capped (n' = 3R >= 1, no churn re-fetch beyond the fills):
    # cross = 30,522.5664 R + 1,200 ; replicate 19,900  =>  R* = 18,700 / 30,522.5664 (inside (1/3, 2/3))
    b = break_even(scen(RICH), ["training.runs_per_month"])["training.runs_per_month"]
    assert b["method"] == "root_finding"
    assert b["value"] == pytest.approx(18700 / 30522.5664, rel=1e-8)
    assert b["above"] == "replicate"
    assert b["below"] == "cross_region"


def test_break_even_never_when_lines_do_not_cross():
    # diff(h) = 96,000 (1 - h) + 5,423.8656 > 0 for every h in [0, 1]: replicate always cheaper
    out = break_even(scen(RICH), ["cache.steady_hit_ratio", "dataset.size_gb"])
    for key in out:
        assert out[key]["never"] is True and out[key]["value"] is None
        assert out[key]["winner"] == "replicate"


def test_break_even_hit_ratio_issue_example():
    # diff(h) = 132,000 (1 - h) - 3,803.36  =>  h* = 1 - 3,803.36 / 132,000; above it cross-region wins
    b = break_even(scen(ISSUE), ["cache.steady_hit_ratio"])["cache.steady_hit_ratio"]
    assert b["value"] == pytest.approx(1 - 3803.36 / 132000, rel=1e-10)
    assert b["above"] == "cross_region"


def test_break_even_input_that_does_not_matter_is_never():
    # no objects given: the number of GETs per object read changes nothing
    b = break_even(scen(ISSUE), ["requests.gets_per_object_read"])["requests.gets_per_object_read"]
    assert b["never"] is True and "does not change" in b["note"]


def test_break_even_unknown_input_is_scenario_error():
    with pytest.raises(ScenarioError, match=r"training.name"):
        break_even(scen(ISSUE), ["training.name"])


# ------------------------------------------------------------------------------------ sensitivity
def test_tornado_rows_match_direct_evaluation():
    s = scen(RICH)
    df = tornado(s)
    assert list(df["swing_usd"]) == sorted(df["swing_usd"], reverse=True)
    row = df.set_index("input").loc["cache.steady_hit_ratio"]
    # miss ratio 0.05 -/+ 25 %: h in [0.9375, 0.9625]
    assert row["low"] == pytest.approx(0.9375) and row["high"] == pytest.approx(0.9625)
    lo = evaluate(s.with_values(cache__steady_hit_ratio=0.9375))
    assert row["cross_region_low_usd"] == pytest.approx(lo.options["cross_region"].total_usd)
    assert row["delta_low_usd"] == pytest.approx(lo.options["cross_region"].total_usd - lo.options["replicate"].total_usd)
    # transfer_usd is linear in h: 12 x 0.02 x 40,000 x 10 x 0.025 = 2,400 between the ends
    assert row["swing_usd"] == pytest.approx(2400.0)


def test_tornado_zero_input_uses_stated_high_and_distribution_uses_p5_p95():
    d = {**ISSUE, "cache": {**ISSUE["cache"], "steady_hit_ratio": [0.9, 1.0]}}
    df = tornado(scen(d)).set_index("input")
    assert df.loc["cache.steady_slowdown_fraction", "high"] == 0.02
    assert df.loc["cache.steady_hit_ratio", "low"] == pytest.approx(0.905)
    assert df.loc["cache.steady_hit_ratio", "high"] == pytest.approx(0.995)


def test_sweep_2d_is_tidy_and_matches_evaluate():
    s = scen(RICH)
    xs = np.linspace(0.5, 8, 16)
    ys = np.linspace(0.8, 1.0, 21)
    df = sweep_2d(s, "training.runs_per_month", xs, "cache.steady_hit_ratio", ys)
    assert len(df) == 16 * 21
    one = df[(df["training.runs_per_month"] == xs[3]) & (df["cache.steady_hit_ratio"] == ys[7])].iloc[0]
    r = evaluate(s.with_values(training__runs_per_month=xs[3], cache__steady_hit_ratio=ys[7]))
    assert one["cross_region_usd"] == pytest.approx(r.options["cross_region"].total_usd)
    assert one["replicate_usd"] == pytest.approx(r.options["replicate"].total_usd)
    assert one["cheapest"] == r.cheapest


def test_sweep_2d_rejects_out_of_range_values():
    with pytest.raises(ScenarioError, match=r"cache.steady_hit_ratio"):
        sweep_2d(scen(RICH), "training.runs_per_month", [1, 2], "cache.steady_hit_ratio", [0.5, 1.5])


# ------------------------------------------------------------------------------------ Monte Carlo
def test_monte_carlo_probability_matches_closed_form():
    # issue example with h ~ U(0.95, 1.0): cross-region cheaper when h > h* = 1 - 3,803.36/132,000
    # (waiting is made expensive: at 0 USD it would be the cheapest in every draw)
    d = {**ISSUE, "cache": {**ISSUE["cache"], "steady_hit_ratio": {"dist": "uniform", "low": 0.95, "high": 1.0}},
         "wait": {"expected_wait_hours_per_run": 100, "delay_usd_per_hour": 1000}}
    s = scen(d)
    mc = monte_carlo(s, 200_000, seed=7, default_ranges=False)  # the stated range alone
    expected = (3803.36 / 132000) / 0.05  # 0.5763
    assert mc.p_cheapest["cross_region"] == pytest.approx(expected, abs=0.005)
    assert mc.p_cheapest["replicate"] == pytest.approx(1 - expected, abs=0.005)
    assert mc.p_cheapest["wait"] == 0.0
    # median h = 0.975: cross = 12,196.64 + 132,000 x 0.025 = 15,496.64
    assert mc.p50["cross_region"] == pytest.approx(15496.64, abs=15)
    assert mc.p5["replicate"] == mc.p95["replicate"] == pytest.approx(16000.0)
    assert mc.uncertain_inputs == ["cache.steady_hit_ratio"]


def test_monte_carlo_is_deterministic_for_a_seed():
    d = {**RICH, "training": {**RICH["training"], "runs_per_month": {"dist": "triangular", "low": 1, "mode": 4, "high": 8}},
         "dataset": {**RICH["dataset"], "size_gb": {"dist": "lognormal", "median": 50000, "sigma": 0.3}}}
    s = scen(d)
    a, b, c = monte_carlo(s, 5000, 1), monte_carlo(s, 5000, 1), monte_carlo(s, 5000, 2)
    assert a.to_dict() == b.to_dict()
    assert a.p50 != c.p50
    assert a.quantiles_frame().shape == (3, 6)
    assert len(a.samples_frame(max_rows=100)) == 300


@pytest.mark.parametrize("n", [0, -3, 2.5])
def test_monte_carlo_rejects_bad_n(n):
    with pytest.raises(ScenarioError, match="draws"):
        monte_carlo(scen(ISSUE), n, 0)


# -------------------------------------------------------------------------- break-even properties
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    size=st.floats(100, 1e6),
    hit=st.floats(0.5, 1.0),
    runs=st.floats(0.1, 20),
    epochs=st.floats(0.5, 10),
    cold=st.floats(0, 10),
    storage=st.floats(0.005, 0.2),
    key=st.sampled_from(["training.runs_per_month", "training.epochs_per_run", "cache.cold_starts_per_month",
                         "cache.steady_hit_ratio", "link.transfer_usd_per_gb", "dataset.size_gb"]),
)
def test_break_even_is_a_real_crossing(size, hit, runs, epochs, cold, storage, key):
    d = copy.deepcopy(RICH)
    d["dataset"]["size_gb"] = size
    d["cache"].update(steady_hit_ratio=hit, cold_starts_per_month=cold)
    d["training"].update(runs_per_month=runs, epochs_per_run=epochs)
    d["replica"]["storage_usd_per_gb_month"] = storage
    s = scen(d)
    b = break_even(s, [key])[key]
    if b["never"]:
        # one option is cheaper over the whole searched range
        g = np.linspace(*b["search_range"], 257)
        t = totals(model_inputs(s, **{key: g}))
        diff = np.asarray(t["cross_region"] - t["replicate"]) * np.ones_like(g)
        assert np.all(diff >= -1e-6) or np.all(diff <= 1e-6)
        return
    x = b["value"]
    t = totals(model_inputs(s, **{key: np.array([x])}))
    scale = abs(float(t["replicate"][0] if np.ndim(t["replicate"]) else t["replicate"])) + 1.0
    assert abs(float(np.asarray(t["cross_region"] - t["replicate"]).ravel()[0])) <= 1e-6 * scale
    step = max(abs(x), 1.0) * 1e-3
    above = evaluate(s.with_values(**{key.replace(".", "__"): x + step}))
    if PARAM_BY_KEY[key].ok(x + step):
        assert above.options[b["above"]].total_usd <= min(above.options["cross_region"].total_usd,
                                                          above.options["replicate"].total_usd) + 1e-6


def test_wait_break_even_closed_form():
    from costmodel.cost import wait_break_even

    # RICH: replicate 19,900 is the cheaper other option; M*R = 48; T*P = 240
    # Wh* = (19,900 / 48 - 240) / 40 = 4.3645833...
    b = wait_break_even(scen(RICH))
    assert b["value"] == pytest.approx((19900 / 48 - 240) / 40)
    assert b["below"] == "wait" and b["above"] == "replicate"
    r = evaluate(scen(RICH).with_values(wait__expected_wait_hours_per_run=b["value"]))
    assert r.options["wait"].total_usd == pytest.approx(r.options["replicate"].total_usd)
    assert wait_break_even(scen(ISSUE))["never"] is True  # delay_usd_per_hour = 0


def test_distribution_points_and_quantiles():
    from costmodel.cost.dists import parse_distribution

    size = PARAM_BY_KEY["dataset.size_gb"]
    ln = parse_distribution({"dist": "lognormal", "median": 1000, "sigma": 0.5}, size)
    assert ln.point() == pytest.approx(1000 * np.exp(0.125))  # the mean, not the median
    # P95 of a lognormal = median * exp(1.6448536 * sigma)
    assert ln.quantile(0.95) == pytest.approx(1000 * np.exp(1.6448536 * 0.5), rel=1e-6)
    tri = parse_distribution({"dist": "triangular", "low": 0, "mode": 0, "high": 0.02}, PARAM_BY_KEY["cache.steady_slowdown_fraction"])
    # right-triangle with mode at 0: F(x) = 1 - (1 - x/0.02)^2  ->  P50 = 0.02 (1 - sqrt(0.5))
    assert tri.quantile(0.5) == pytest.approx(0.02 * (1 - np.sqrt(0.5)))
    draws = tri.sample(np.random.default_rng(0), 100_000)
    assert np.median(draws) == pytest.approx(0.02 * (1 - np.sqrt(0.5)), rel=0.02)
    uni = parse_distribution([2, 6], PARAM_BY_KEY["training.runs_per_month"])
    assert uni.point() == 4 and uni.quantile(0.25) == 3
