"""Scenario loading: validation messages, overrides, price filling with provenance, measurements."""
from __future__ import annotations

import copy
import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest
from support.cost_scenarios import ISSUE

from costmodel.cost import (
    apply_measurements,
    evaluate,
    load_scenario,
    scenario_from_dict,
)
from costmodel.foundation.errors import PriceError, ScenarioError
from costmodel.foundation.schema import Run

TODAY = dt.date(2026, 12, 2)


def with_(path: str, value, base=ISSUE):
    d = copy.deepcopy(base)
    parts = path.split(".")
    cur = d
    for p in parts[:-1]:
        cur = cur.setdefault(p, {})
    if value is ...:
        del cur[parts[-1]]
    else:
        cur[parts[-1]] = value
    return d


def priced(storage_from_table=False, **prices):
    """The issue example with the transfer and cluster prices left out (and the storage price with
    ``storage_from_table``: the catalog has S3 Standard for us-east-1/us-east-2, not us-west-2) and a prices:
    section."""
    d = copy.deepcopy(ISSUE)
    del d["link"]["transfer_usd_per_gb"]
    if storage_from_table:
        del d["replica"]["storage_usd_per_gb_month"]
    del d["training"]["cluster_usd_per_hour"]
    d["training"].update(instance_type="p5.48xlarge", instance_count=2)
    d["prices"] = {"provider": "aws", "src_region": "us-east-2", "dst_region": "us-west-2", **prices}
    return d


# ------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "path, value, words",
    [
        ("dataset.size_gb", ..., ["dataset.size_gb", "missing", "> 0"]),
        ("horizon_months", ..., ["horizon_months", "missing"]),
        ("training.runs_per_month", ..., ["training.runs_per_month", "missing"]),
        ("dataset.size_gb", -5, ["dataset.size_gb", "negative", "> 0"]),
        ("replica.storage_usd_per_gb_month", -0.023, ["replica.storage_usd_per_gb_month", "negative"]),
        ("link.transfer_usd_per_gb", -0.02, ["link.transfer_usd_per_gb", ">= 0"]),
        ("cache.steady_hit_ratio", 1.5, ["cache.steady_hit_ratio", "[0, 1]"]),
        ("cache.steady_hit_ratio", -0.1, ["cache.steady_hit_ratio", "[0, 1]"]),
        ("cache.steady_hit_ratio", "high", ["cache.steady_hit_ratio", "'high'"]),
        ("dataset.size_gb", True, ["dataset.size_gb"]),
        ("cache.steady_slowdown_fraction", 1.0, ["cache.steady_slowdown_fraction", "[0, 1)"]),
        ("cache.stedy_hit_ratio", 0.9, ["cache.stedy_hit_ratio", "did you mean 'steady_hit_ratio'"]),
        ("dataset.size_tb", 50, ["dataset.size_tb", "size_gb", "1 TB = 1000 GB", "size_gb: 50000"]),
        ("dataset.size_tib", 50, ["dataset.size_tib", "TiB", "54975.58139"]),
        ("dataset.size_gb", "50 TiB", ["dataset.size_gb", "54975.58139", "2^40"]),
        ("dataset.size_gb", "50 TB", ["dataset.size_gb", "write 50000"]),
        ("cache.warmup_lost_min", 5, ["cache.warmup_lost_min", "warmup_lost_s", "write warmup_lost_s: 300"]),
        ("datasett", {}, ["datasett", "did you mean 'dataset'"]),
        ("cache", [1, 2], ["cache", "expected a mapping"]),
        ("cache.steady_hit_ratio", {"dist": "gamma", "mean": 0.9}, ["cache.steady_hit_ratio", "uniform, triangular, lognormal"]),
        ("cache.steady_hit_ratio", {"dist": "normal", "mean": 0.9}, ["cache.steady_hit_ratio", "mean, sd; missing sd"]),
        ("cache.steady_hit_ratio", {"dist": "lognormal", "median": 0.9, "sigma": 0.1}, ["unbounded", "uniform or triangular"]),
        ("cache.steady_hit_ratio", [0.9, 1.1], ["cache.steady_hit_ratio", "out of range"]),
        ("cache.steady_hit_ratio", {"dist": "triangular", "low": 0.9, "mode": 0.8, "high": 1}, ["low <= mode <= high"]),
        ("link.rtt_ms", [1, 2], ["link.rtt_ms", "ranges only for cost inputs"]),  # bandwidth and throughput may be ranges (issue 13b)
        ("training.instance_count", 1.5, ["training.instance_count", "whole number"]),
    ],
)
def test_bad_input_names_key_and_expectation(path, value, words):
    with pytest.raises(ScenarioError) as exc:
        scenario_from_dict(with_(path, value), source="s.yaml", today=TODAY)
    msg = str(exc.value)
    assert msg.startswith("s.yaml: ")
    for w in words:
        assert w in msg, (w, msg)


def test_not_a_mapping():
    with pytest.raises(ScenarioError, match="expected a mapping"):
        scenario_from_dict([1, 2])


def test_region_pair_without_price_suggests_closest():
    d = priced()
    d["prices"]["dst_region"] = "us-west2"  # typo
    with pytest.raises(PriceError) as exc:
        scenario_from_dict(d, today=TODAY)
    msg = str(exc.value)
    assert "us-west2" in msg and "closest known" in msg and "us-west-2" in msg


def test_transfer_pair_without_price_suggests_closest():
    d = priced()
    d["training"]["cluster_usd_per_hour"] = 100.0
    d["prices"]["src_region"] = "ap-south-1"
    with pytest.raises(PriceError) as exc:
        scenario_from_dict(d, today=TODAY)
    msg = str(exc.value)
    assert "ap-south-1 -> us-west-2" in msg and "closest known:" in msg and "link.transfer_usd_per_gb" in msg


def test_price_needed_but_no_prices_section():
    d = with_("link.transfer_usd_per_gb", ...)
    with pytest.raises(ScenarioError, match=r"link.transfer_usd_per_gb: missing.*prices.provider"):
        scenario_from_dict(d, today=TODAY)


def test_yaml_errors_name_the_file(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("horizon_months: [1,\n")
    with pytest.raises(ScenarioError, match=r"bad.yaml: not valid YAML at line"):
        load_scenario(p)
    with pytest.raises(ScenarioError, match="does not exist"):
        load_scenario(tmp_path / "nope.yaml")


# -------------------------------------------------------------------------------- overrides, fill
def test_overrides_apply_and_are_recorded():
    s = scenario_from_dict(ISSUE, overrides=["cache.steady_hit_ratio=0.9", "training.runs_per_month=[2, 6]"], today=TODAY)
    assert s.values["cache.steady_hit_ratio"] == 0.9
    assert s.provenance["cache.steady_hit_ratio"]["source"] == "--set"
    assert s.values["training.runs_per_month"] == 4.0  # midpoint of the uniform range
    assert s.distributions["training.runs_per_month"].kind == "uniform"


@pytest.mark.parametrize("text, words", [("cache.steady_hit_ratio", "key.path=value"), ("cache.hit=0.9", "did you mean"),
                                         ("cache.steady_hit_ratio=", "no value"), ("dataset.size_tib=1", "1099.511627776")])
def test_bad_overrides(text, words):
    with pytest.raises(ScenarioError, match=words.replace(".", r"\.").replace("(", r"\(")):
        scenario_from_dict(ISSUE, overrides=[text], today=TODAY)


def test_prices_filled_with_source_and_as_of_and_age_warnings():
    s = scenario_from_dict(priced(), today=TODAY)
    assert s.values["link.transfer_usd_per_gb"] == 0.02
    assert s.values["replica.storage_usd_per_gb_month"] == 0.023  # given by the scenario
    assert s.values["training.cluster_usd_per_hour"] == pytest.approx(110.08)  # 2 x 55.04 (after AWS's June 2025 cut)
    used = {u["key"]: u for u in s.prices_used}
    assert used["link.transfer_usd_per_gb"]["as_of"] == "2026-06"
    assert used["link.transfer_usd_per_gb"]["age_days"] == 184
    assert "skyplane" in used["link.transfer_usd_per_gb"]["source"]
    assert used["training.cluster_usd_per_hour"]["multiplier"] == 2
    assert used["replica.storage_usd_per_gb_month"]["source"].startswith("scenario")
    assert s.provenance["link.transfer_usd_per_gb"]["source"] == "price table transfer.csv:2"
    assert not any(w.startswith("link.transfer_usd_per_gb") for w in s.warnings)  # 184 days old, verified
    # S3 Standard from the table, per GiB-month as S3 bills it, converted exactly to USD per 10^9 bytes; the
    # us-east-1 row (2025-08-29) is 460 days old on TODAY and warns, but it is verified
    east = priced(storage_from_table=True)
    east["prices"]["dst_region"] = "us-east-1"
    e = scenario_from_dict(east, today=TODAY)
    assert e.values["replica.storage_usd_per_gb_month"] == pytest.approx(0.023 * 1e9 / 2**30, rel=1e-15)
    storage = {u["key"]: u for u in e.prices_used}["replica.storage_usd_per_gb_month"]
    assert storage["unit"] == "GiB-month" and storage["as_of"] == "2025-08-29" and storage["age_days"] == 460
    assert storage["bytes_per_unit"] == 2**30
    assert e.provenance["replica.storage_usd_per_gb_month"]["converted_from"] == "0.023 USD/GiB-month"
    assert any("replica.storage_usd_per_gb_month" in w and "as_of 2025-08-29" in w for w in e.warnings)
    assert not any("marked unverified" in w for w in e.warnings)
    # no S3 Standard row for us-west-2 (no dated source names it): the scenario has to give the price
    with pytest.raises(PriceError, match=r"no aws s3_standard price for us-west-2.*give the price in the scenario"):
        scenario_from_dict(priced(storage_from_table=True), today=TODAY)


def test_no_age_warning_when_price_is_recent():
    s = scenario_from_dict(priced(), today=dt.date(2026, 7, 1))
    transfer = [w for w in s.warnings if w.startswith("link.transfer_usd_per_gb")]
    assert transfer == []  # 30 days old and verified (two sources agree): nothing to warn about
    old = scenario_from_dict(priced(), today=dt.date(2027, 6, 2))
    assert [w for w in old.warnings if w.startswith("link.transfer_usd_per_gb")] == [
        ("link.transfer_usd_per_gb: price aws/inter_region (us-east-2 -> us-west-2) = 0.02 USD/GB [transfer.csv:2] is "
        "366 days old (as_of 2026-06, older than 365 days); verify it and override it in the scenario if it changed")]


def test_user_prices_win_over_the_table():
    d = priced()
    d["link"]["transfer_usd_per_gb"] = 0.015
    s = scenario_from_dict(d, today=TODAY)
    assert s.values["link.transfer_usd_per_gb"] == 0.015
    used = {u["key"]: u for u in s.prices_used}
    assert used["link.transfer_usd_per_gb"]["source"].startswith("scenario")


def test_defaults_workload_passthrough_and_extra_keys():
    d = copy.deepcopy(ISSUE)
    del d["replica"]["ops_usd_per_month"]
    d["workload"] = {"anything": {"goes": [1, 2]}}
    d["name"] = "x"
    d["transfer_budget_usd_per_month"] = 10
    d["cache"]["capacity_gb"] = 1000
    d["link"]["bandwidth_gbps"] = 10
    s = scenario_from_dict(d, today=TODAY)
    assert s.values["replica.ops_usd_per_month"] == 0.0
    assert s.provenance["replica.ops_usd_per_month"]["source"] == "default"
    assert s.workload == {"anything": {"goes": [1, 2]}}
    assert s.nested()["cache"]["capacity_gb"] == 1000
    r = evaluate(s)
    assert any("smaller than the working set" in w for w in r.warnings)
    assert any("above transfer_budget_usd_per_month" in w for w in r.warnings)
    assert r.derived["initial_copy_hours"] == pytest.approx(50000 * 8 / 10 / 3600)


# ----------------------------------------------------------------------------------- measurements
def test_missing_measurement_is_deferred_until_evaluate():
    d = with_("cache.warmup_lost_s", ...)
    s = scenario_from_dict(d, today=TODAY)
    assert s.missing == ["cache.warmup_lost_s"]
    with pytest.raises(ScenarioError, match=r"cache.warmup_lost_s: missing.*--from-compare"):
        evaluate(s)
    filled = apply_measurements(s, compare={"remote_lost_s": 120.0, "ratio": 0.99, "remote_steady_hit_ratio": None}, source="c.json")
    assert filled.values["cache.warmup_lost_s"] == 120.0
    assert filled.values["cache.steady_slowdown_fraction"] == pytest.approx(0.01)
    assert filled.values["cache.steady_hit_ratio"] == 0.95  # null leaves the scenario's value
    assert filled.provenance["cache.warmup_lost_s"]["source"] == "compare remote_lost_s from c.json"
    assert filled.provenance["cache.steady_slowdown_fraction"]["replaced"] == 0.0
    r = evaluate(filled)
    assert round(r.options["cross_region"].terms["warmup_usd"], 2) == round(120 / 3600 * 196.64 * 12, 2)


def test_compare_explicit_slowdown_and_hit_ratio_win():
    s = scenario_from_dict(ISSUE, today=TODAY)
    f = apply_measurements(s, compare={"remote_lost_s": -5, "ratio": 0.5, "steady_slowdown_fraction": 0.03,
                                       "remote_steady_hit_ratio": 0.97})
    assert f.values["cache.warmup_lost_s"] == 0.0
    assert f.values["cache.steady_slowdown_fraction"] == 0.03
    assert f.values["cache.steady_hit_ratio"] == 0.97
    assert any("remote warmed faster" in w for w in f.warnings)
    # the compare result is validated by its model (contracts.results.CompareRecord): the key in the file is named
    with pytest.raises(ScenarioError, match=r"^c.json: remote_steady_hit_ratio: got 1.4; expected a number <= 1$"):
        apply_measurements(s, compare={"remote_steady_hit_ratio": 1.4}, source="c.json")
    with pytest.raises(ScenarioError, match=r"^<measurements>: remote_lost_s: got 'soon'; expected a number$"):
        apply_measurements(s, compare={"remote_lost_s": "soon"})
    for not_a_figure in (True, "120"):  # a bool is no measurement; a quoted number is another tool's text
        with pytest.raises(ScenarioError, match=r"remote_lost_s: got .*; expected a number"):
            apply_measurements(s, compare={"remote_lost_s": not_a_figure, "ratio": 0.99})
    # a measured value outside the scenario key's range is still named by that key
    with pytest.raises(ScenarioError, match=r"cache.warmup_lost_s|cache.steady_slowdown_fraction"):
        apply_measurements(s, compare={"ratio": 0.99, "remote_lost_s": 10.0, "steady_slowdown_fraction": 1.5})


def test_hit_ratio_from_timeline_uses_remote_steady_half():
    remote = pd.DataFrame({"step": np.arange(8), "cache_hit_ratio": [0.0, 0.2, 0.5, 0.8, 0.94, 0.96, 0.95, 0.95]})
    colo = pd.DataFrame({"step": np.arange(4), "cache_hit_ratio": [1.0, 1.0, 1.0, 1.0]})
    runs = [Run("colo", colo, "csv", "a.csv", role="colocated"), Run("rem", remote, "csv", "b.csv", role="remote")]
    s = apply_measurements(scenario_from_dict(ISSUE, today=TODAY), timeline_runs=runs, source="t.parquet")
    assert s.values["cache.steady_hit_ratio"] == pytest.approx(0.95)  # mean of 0.94, 0.96, 0.95, 0.95
    assert "timeline" in s.provenance["cache.steady_hit_ratio"]["source"]


def test_bundled_example_loads_and_is_sized_from_the_reference(examples_dir):
    s = load_scenario(examples_dir / "scenario.yaml", today=TODAY)
    assert s.values["dataset.size_gb"] == pytest.approx(48.4e6 * 4096 * 4 / 1e9)
    assert s.values["training.cluster_usd_per_hour"] == pytest.approx(110.08)
    assert s.values["link.transfer_usd_per_gb"] == 0.02
    # us-west-2 S3 Standard given per GiB-month by the example (no dated catalog row for us-west-2)
    assert s.values["replica.storage_usd_per_gb_month"] == pytest.approx(0.023 * 1e9 / 2**30, rel=1e-15)
    assert s.values["cache.steady_hit_ratio"] == pytest.approx(0.95)  # the triangular's mean
    # 2 instances x 8 GPUs per cluster at 116 samples/s over 48.4 M samples: 3 epochs take 347.7 h + warm-up
    assert s.get("dataset.samples") == 48.4e6 and s.get("training.samples_per_s") == 116
    assert s.values["training.run_hours"] == pytest.approx(3 * 48.4e6 / 116 / 3600 + 55 / 3600)
    assert s.settings["prices.src_region"] == "us-east-2" and s.settings["prices.dst_region"] == "us-west-2"
    assert s.get("link.rtt_ms") == 60
    r = evaluate(s)
    assert r.cheapest in ("cross_region", "replicate")


def test_compare_ci_gives_slowdown_distribution_and_warning():
    s = scenario_from_dict(ISSUE, today=TODAY)
    cmp = {"ratio": 0.999, "ratio_ci_low": 0.995, "ratio_ci_high": 1.002, "steady_slowdown_fraction": 0.001}
    f = apply_measurements(s, compare=cmp, source="c.json")
    d = f.distributions["cache.steady_slowdown_fraction"]
    # issue 25: the estimate's sampling distribution (no df, no se_log_ratio: normal from the CI's log width),
    # not a triangle clipped at 0 whose mean was 2x the estimate
    assert d.kind == "normal"
    assert d.params["mean"] == pytest.approx(0.001)
    assert d.params["sd"] == pytest.approx(0.999 * math.log(1.002 / 0.995) / (2 * 1.959963984540054))
    assert d.mean() == pytest.approx(0.001)
    assert any("not distinguishable from 0" in w for w in f.warnings)


def test_set_value_wins_over_measurement():
    s = scenario_from_dict(ISSUE, overrides=["cache.warmup_lost_s=10"], today=TODAY)
    f = apply_measurements(s, compare={"remote_lost_s": 500.0, "ratio": 0.99, "ratio_ci_low": 0.98, "ratio_ci_high": 1.0})
    assert f.values["cache.warmup_lost_s"] == 10.0
    assert f.values["cache.steady_slowdown_fraction"] == pytest.approx(0.01)
    assert any("kept the --set value 10" in w for w in f.warnings)


def test_sync_extra_from_the_replication_table(tmp_path):
    d = priced(sync_extra_item="s3_rtc_transfer")
    del d["replica"]["sync_extra_usd_per_gb"]
    # the bundled catalog ships no S3 RTC row (only a second-hand quote was found): a clear error
    with pytest.raises(PriceError, match="replication_rtc"):
        scenario_from_dict(d, today=TODAY)
    # a user's catalog folder (the bundled tables plus their own RTC row) fills it
    from costmodel.foundation.resources import PRICES_DIR

    for f in PRICES_DIR.glob("*.csv"):
        (tmp_path / f.name).write_text(f.read_text())
    lines = (tmp_path / "requests.csv").read_text().splitlines()
    lines.append("aws,replication_rtc,*,*,GB,0.015,,,my AWS bill 2026-11,2026-11-30,read from our invoice,S3 RTC fee")
    (tmp_path / "requests.csv").write_text("\n".join(lines) + "\n")
    s = scenario_from_dict(d, today=TODAY, prices_dir=tmp_path)
    assert s.values["replica.sync_extra_usd_per_gb"] == 0.015
    assert s.provenance["replica.sync_extra_usd_per_gb"]["source"] == f"price table requests.csv:{len(lines)}"
    plain = scenario_from_dict(priced(), today=TODAY)
    assert plain.values["replica.sync_extra_usd_per_gb"] == 0.0
    d["prices"]["sync_extra_item"] = "s3_rtc"
    with pytest.raises(PriceError, match="did you mean 's3_rtc_transfer'"):
        scenario_from_dict(d, today=TODAY, prices_dir=tmp_path)


def test_validating_a_scenario_generates_no_json_schema_the_schema_is_generated_when_asked(examples_dir):
    """The scenario model's field schemas are generated only for ``costmodel schema`` (15 TypeAdapters at about
    2 ms each, in every process that read a scenario before): a process that loads the bundled scenario generated
    none, and the schema asked for afterwards is the checked-in one (tests/contracts checks it in full)."""
    import json
    import subprocess
    import sys

    code = ("import json, sys\n"
            "from costmodel.cost import load_scenario\n"
            "from costmodel.cost import scenario_model as sm\n"
            "load_scenario(sys.argv[1])\n"
            "before = sm._schema_once.cache_info().currsize\n"
            "schema = sm.scenario_model().model_json_schema()\n"
            "print(json.dumps([before, sm._schema_once.cache_info().currsize, schema['properties']['dataset']]))\n")
    out = subprocess.run([sys.executable, "-c", code, str(examples_dir / "scenario.yaml")], capture_output=True,
                         text=True, check=True).stdout
    before, after, dataset = json.loads(out)
    assert before == 0
    assert after == 15  # each distinct field schema once, shared by the ~90 fields
    assert dataset == {"anyOf": [{"$ref": "#/$defs/Scenario_dataset"}, {"type": "null"}], "default": None}
