"""`costmodel cost`: the JSON contract, measurements from files, bad input exits 2 with one line."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml
from support.cost_scenarios import ISSUE, RICH

from costmodel.cli import main
from costmodel.foundation.published import round_sig


@pytest.fixture
def issue_yaml(tmp_path):
    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump(ISSUE))
    return p


def test_json_contract_keys(cli, examples_dir):
    out = cli.json("cost", examples_dir / "scenario.yaml", "--today", "2026-12-02", "--json")
    for k in ("horizon_months", "options", "cheapest", "break_even", "prices_used", "warnings", "sensitivity", "inputs"):
        assert k in out
    assert out["horizon_months"] == 12
    terms = {
        "cross_region": {"transfer_usd", "warmup_usd", "slowdown_usd", "cache_usd", "path_processing_usd",
                         "requests_usd", "inter_az_usd", "cache_capacity_usd",  # issue 25 added this one
                         "checkpoint_writeback_usd"},  # issue 36
        "replicate": {"initial_copy_usd", "storage_usd", "sync_usd", "ops_usd", "requests_usd", "versioning_usd",
                      "inter_az_usd", "copy_delay_usd", "cache_usd", "cache_capacity_usd", "filesystem_usd", "mechanism_usd"},
        "wait": {"delay_usd", "gpu_premium_usd"},
    }
    for name, want in terms.items():
        opt = out["options"][name]
        assert set(opt["terms"]) == want
        # published to the cent (docs/contracts.md): the total is rounded from its exact value, not summed from
        # rounded terms, so the two differ by at most half a cent a term
        assert opt["total_usd"] == pytest.approx(sum(opt["terms"].values()), abs=0.005 * len(opt["terms"]))
        assert opt["per_month_usd"] == pytest.approx(opt["total_usd"] / 12, abs=0.01)
    for key in ("training.runs_per_month", "training.epochs_per_run", "dataset.size_gb", "cache.steady_hit_ratio",
                "dataset.monthly_churn_fraction", "cache.cold_starts_per_month", "link.transfer_usd_per_gb"):
        b = out["break_even"][key]
        assert "value" in b and "above" in b
    used = {u["key"]: u for u in out["prices_used"]}
    assert used["link.transfer_usd_per_gb"]["as_of"] == "2026-06" and used["link.transfer_usd_per_gb"]["source"]
    for u in out["prices_used"]:  # the issue-14 contract: every price used says where, when, in what unit, how old
        assert {"source", "as_of", "unit", "age_days"} <= set(u), u
    # the example gives its us-west-2 S3 price per GiB (the catalog has no dated us-west-2 row): a scenario
    # value has no age; the catalog rows it uses are all dated within 12 months of --today
    storage = used["replica.storage_usd_per_gb_month"]
    assert storage["source"].startswith("scenario") and "storage_usd_per_gib_month" in storage["source"]
    # USD per GiB to USD per GB, published to 6 significant digits (docs/contracts.md)
    assert storage["age_days"] is None and storage["usd_used"] == round_sig(0.023 * 1e9 / 2**30) == 0.0214204
    assert used["training.cluster_usd_per_hour"]["age_days"] == 315  # p5.48xlarge as_of 2026-01-21
    assert not any("older than 365 days" in w for w in out["warnings"])
    assert out["inputs"]["provenance"]["link.transfer_usd_per_gb"]["source"].startswith("price table")
    assert "monte_carlo" not in out
    row = out["sensitivity"][0]
    assert {"input", "low", "high", "swing_usd", "delta_low_usd", "delta_high_usd"} <= set(row)


def test_issue_example_numbers_through_the_cli(cli, issue_yaml):
    out = cli.json("cost", issue_yaml, "--json")
    assert round(out["options"]["cross_region"]["total_usd"], 2) == 18796.64
    assert round(out["options"]["replicate"]["total_usd"], 2) == 16000.00
    assert out["cheapest"] == "wait"  # waiting costs nothing in the issue's example
    assert out["break_even"]["cache.steady_hit_ratio"]["value"] == pytest.approx(1 - 3803.36 / 132000)
    assert any("wait is priced at 0 USD" in w for w in out["warnings"])  # priced at 0, and it says so


def test_set_and_monte_carlo(cli, issue_yaml):
    args = [issue_yaml, "--set", "cache.steady_hit_ratio=[0.95, 1.0]", "--set", "wait.delay_usd_per_hour=1000",
            "--set", "wait.expected_wait_hours_per_run=10", "--monte-carlo", "20000", "--seed", "3", "--stated-ranges-only"]
    a = cli.json("cost", *args, "--json")
    b = cli.json("cost", *args, "--json")
    mc = a["monte_carlo"]
    assert set(mc) >= {"p_cheapest", "p5", "p50", "p95"}
    assert set(mc["p_cheapest"]) == {"cross_region", "replicate", "wait"}
    assert mc["p_cheapest"]["cross_region"] == pytest.approx(0.5763, abs=0.02)
    assert mc == b["monte_carlo"]
    assert a["inputs"]["provenance"]["cache.steady_hit_ratio"]["source"] == "--set"


def test_from_compare_fills_measurements(cli, tmp_path):
    d = json.loads(json.dumps(RICH))
    del d["cache"]["warmup_lost_s"]
    s = tmp_path / "s.yaml"
    s.write_text(yaml.safe_dump(d))
    c = tmp_path / "compare.json"
    c.write_text(json.dumps({"ratio": 0.995, "remote_lost_s": 600.0, "equivalent": True, "remote_steady_hit_ratio": None}))
    out = cli.json("cost", s, "--from-compare", c, "--json")
    prov = out["inputs"]["provenance"]
    assert prov["cache.warmup_lost_s"]["source"] == f"compare remote_lost_s from {c}"
    assert prov["cache.steady_slowdown_fraction"]["value"] == pytest.approx(0.005)
    # 2 cold starts x 600 s / 3600 x 196.64 x 12 months
    assert round(out["options"]["cross_region"]["terms"]["warmup_usd"], 2) == 786.56


def test_text_summary(capsys, issue_yaml):
    assert main(["cost", str(issue_yaml)]) == 0
    text = capsys.readouterr().out
    assert "cheapest: wait" in text and "transfer_usd" in text and "18,600.00" in text


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--set", "dataset.size_gb=-1"], "dataset.size_gb"),
        (["--set", "cache.steady_hit_ratio=1.2"], "cache.steady_hit_ratio"),
        (["--set", "dataset.size_tb=50"], "size_gb: 50000"),
        (["--set", "nonsense"], "key.path=value"),
        (["--monte-carlo", "-1"], "--monte-carlo"),
        (["--today", "yesterday"], "--today"),
        (["--from-compare", "/nonexistent/compare.json"], "does not exist"),
    ],
)
def test_bad_input_exit_2_one_line_nothing_on_stdout(capsys, issue_yaml, extra, words):
    rc = main(["cost", str(issue_yaml), "--json", *extra])
    out = capsys.readouterr()
    assert rc == 2
    assert out.out == ""
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.err
    assert lines[0].startswith("costmodel cost: error: ") and words in lines[0]


def test_bad_input_in_a_real_process(issue_yaml):
    proc = subprocess.run(
        [sys.executable, "-m", "costmodel", "cost", str(issue_yaml), "--json", "--set", "dataset.size_tib=50"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "54975.58139" in proc.stderr


def test_missing_scenario_file_and_missing_measurement(capsys, tmp_path):
    assert main(["cost", str(tmp_path / "nope.yaml"), "--json"]) == 2
    assert "nope.yaml" in capsys.readouterr().err
    d = json.loads(json.dumps(ISSUE))
    del d["cache"]["steady_hit_ratio"]
    s = tmp_path / "s.yaml"
    s.write_text(yaml.safe_dump(d))
    assert main(["cost", str(s), "--json"]) == 2
    err = capsys.readouterr().err
    assert "cache.steady_hit_ratio: missing" in err and "--from-compare" in err


def test_from_timeline_parquet_fills_hit_ratio(cli, issue_yaml, tmp_path):
    import numpy as np
    import pandas as pd

    from costmodel.foundation.schema import Run, to_timeline
    from costmodel.foundation.timeline import write_runs

    hits = np.r_[np.linspace(0.0, 0.9, 10), np.full(10, 0.97)]
    df = pd.DataFrame({"step": np.arange(20), "samples_per_s": np.full(20, 100.0), "cache_hit_ratio": hits})
    run = Run("remote-1", to_timeline(df, "remote-1", role="remote"), "csv", "r.csv", role="remote")
    path = write_runs([run], tmp_path / "t.parquet")
    out = cli.json("cost", issue_yaml, "--from-timeline", path, "--json")
    assert out["inputs"]["values"]["cache"]["steady_hit_ratio"] == pytest.approx(0.97)
    assert "timeline" in out["inputs"]["provenance"]["cache.steady_hit_ratio"]["source"]
