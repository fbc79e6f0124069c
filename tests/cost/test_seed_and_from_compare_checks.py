"""Round-3 audit fixes in `costmodel cost`: seeds validated, --from-compare requires compare output."""
from __future__ import annotations

import json

import pytest

from costmodel.cost import load_scenario, monte_carlo
from costmodel.cost.measurements import apply_measurements, compare_from_json
from costmodel.foundation.errors import ScenarioError

TODAY = ["--today", "2026-12-02"]


def one_line(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err and "internal error" not in err, err
    return lines[0]


@pytest.mark.parametrize("seed", ["-1", "1.5", "x"])
def test_cost_bad_seed_exits_2_one_line(cli, examples_dir, seed):
    rc, out, err = cli("cost", examples_dir / "scenario.yaml", "--monte-carlo", "100", "--seed", seed, "--json")
    assert rc == 2 and out == ""
    line = one_line(err)
    assert line.startswith("costmodel cost: error: argument --seed: expected a whole number >= 0"), line


def test_monte_carlo_library_rejects_negative_seed(examples_dir):
    s = load_scenario(examples_dir / "scenario.yaml")
    with pytest.raises(ScenarioError, match=r"monte_carlo.seed: .*whole number >= 0, got -1"):
        monte_carlo(s, 10, seed=-1)
    with pytest.raises(ScenarioError, match="got True"):
        monte_carlo(s, 10, seed=True)
    assert monte_carlo(s, 10, seed=0).seed == 0


def test_from_compare_rejects_files_that_are_not_compare_output(cli, examples_dir, tmp_path):
    s = examples_dir / "scenario.yaml"
    rc, cost_out, err = cli("cost", s, "--json", *TODAY)
    assert rc == 0, err
    files = {
        "cost.json": (cost_out, "looks like `costmodel cost --json` output"),
        "empty.json": ("{}", "missing key(s) ratio, remote_lost_s"),
        "fits.json": (json.dumps([{"run_id": "a", "classification": "flat"}, {"run_id": "b"}]), "a list of 2 items"),
        "fit1.json": (json.dumps([{"run_id": "a", "classification": "flat", "warmup_end_step": 3}]),
                      "looks like `costmodel fit --json` output"),
    }
    for name, (text, words) in files.items():
        p = tmp_path / name
        p.write_text(text)
        rc, out, err = cli("cost", s, "--from-compare", p, "--json", *TODAY)
        assert rc == 2 and out == "", name
        line = one_line(err)
        assert f"--from-compare {p}" in line and words in line, line


def test_from_compare_accepts_compare_output_and_a_reports_decision_json(cli, examples_dir, tmp_path):
    cmp = {"ratio": 0.9, "remote_lost_s": 100.0, "ratio_ci_low": None, "ratio_ci_high": None}
    p = tmp_path / "compare.json"
    p.write_text(json.dumps(cmp))
    rc, out, err = cli("cost", examples_dir / "scenario.yaml", "--from-compare", p, "--json", *TODAY)
    assert rc == 0, err
    prov = json.loads(out)["inputs"]["provenance"]
    assert prov["cache.steady_slowdown_fraction"]["value"] == pytest.approx(0.1)
    assert "compare" in prov["cache.steady_slowdown_fraction"]["source"]
    d = tmp_path / "decision.json"
    d.write_text(json.dumps({"verdict": "GO", "compare": cmp, "cost": {}, "checklist": {}}))
    rc, out2, err = cli("cost", examples_dir / "scenario.yaml", "--from-compare", d, "--json", *TODAY)
    assert rc == 0, err
    assert json.loads(out2)["options"] == json.loads(out)["options"]


def test_compare_shape_in_the_library(examples_dir):
    assert compare_from_json([{"ratio": None, "remote_lost_s": None}], "c.json") == {"ratio": None, "remote_lost_s": None}
    with pytest.raises(ScenarioError, match=r"^c.json: expected the JSON object printed by `costmodel compare --json` \(keys ratio, remote_lost_s\); missing key\(s\) remote_lost_s"):
        compare_from_json({"ratio": 1.0}, "c.json")
    s = load_scenario(examples_dir / "scenario.yaml")
    with pytest.raises(ScenarioError, match=r"x.json: not a compare result"):
        apply_measurements(s, compare={"options": {}, "cheapest": "replicate"}, source="x.json")


@pytest.mark.parametrize(
    "setting, expected",
    [
        ("cache.steady_hit_ratio=1.2", "--set cache.steady_hit_ratio=1.2: got 1.2; expected a number in [0, 1]"),
        ("dataset.size_tb=50", "--set dataset.size_tb=50: unknown key in another unit; use size_gb"),
        ("cache.nope=1", "--set cache.nope=1: unknown key; allowed here: steady_hit_ratio"),
    ],
)
def test_set_errors_name_the_set_value_not_the_file(cli, examples_dir, setting, expected):
    rc, out, err = cli("cost", examples_dir / "scenario.yaml", "--set", setting, "--json", *TODAY)
    assert rc == 2 and out == ""
    line = one_line(err)
    assert line.startswith(f"costmodel cost: error: {expected}"), line
    assert "scenario.yaml" not in line


def test_file_errors_still_name_the_file(cli, examples_dir, tmp_path):
    p = tmp_path / "s.yaml"
    p.write_text((examples_dir / "scenario.yaml").read_text().replace("horizon_months: 12", "horizon_months: -3"))
    assert "horizon_months: -3" in p.read_text()
    rc, _out, err = cli("cost", p, "--json", *TODAY)
    assert rc == 2 and one_line(err).startswith(f"costmodel cost: error: {p}: horizon_months: got -3")
