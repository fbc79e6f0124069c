"""Bad placement files: one line naming the file and the key, exit 2, nothing written."""
from __future__ import annotations

import pytest

BASE = "scenario: {scen}\ndata: {{provider: aws, region: us-east-2}}\n"
GOOD_CAND = "candidates: [{provider: aws, region: us-west-2, storage_usd_per_gb_month: 0.02, offers: [{instance_type: p5.48xlarge}]}]\n"


@pytest.mark.parametrize(("body", "key", "words"), [
    ("candidates: [{provider: aws, region: us-wset-2, offers: [{instance_type: p5.48xlarge}]}]\n",
     "candidates[0].region", "did you mean 'us-west-2'"),
    ("candidates: [{provider: aws, region: us-west-2, offers: [{instance_type: p5.48xlarg}]}]\n",
     "candidates[0].offers[0].instance_type", "did you mean 'p5.48xlarge'"),
    ("candidates: [{provider: aws, region: us-west-2, offers: [{instance_type: p5.48xlarge, usd_per_hour: -3}]}]\n",
     "candidates[0].offers[0].usd_per_hour", "negative"),
    ("candidates: [{provider: aws, region: us-west-2, colour: red, offers: [{instance_type: p5.48xlarge}]}]\n",
     "candidates[0].colour", "unknown key"),
    ("candidates: [{provider: aws, region: us-east-2, offers: [{instance_type: p5.48xlarge}]}]\n",
     "candidates[0].region", "data region itself"),
    (GOOD_CAND + "constraints: {deadline_hours: 10}\n", "constraints.deadline_hours", "no placement finishes within 10 h"),
    (GOOD_CAND + "constraints: {governance: [{region: us-west-2, forbid: [gpu]}]}\n", "constraints.governance",
     "forbid every priced placement"),
    (GOOD_CAND + "constraints: {governance: [{region: eu-west-9, forbid: [cache]}]}\n",
     "constraints.governance[0].region", "neither the data region nor a candidate"),
    ("candidates: [{provider: aws, region: eu-west-1, offers: [{instance_type: p5.48xlarge}]}]\n", "candidates",
     "no placement can be priced"),
])
def test_bad_placement_is_one_line_naming_file_and_key(cli, examples_dir, tmp_path, body, key, words):
    p = tmp_path / "bad.yaml"
    p.write_text(BASE.format(scen=examples_dir / "scenario.yaml") + body)
    r = cli("place", p, "--scenarios", tmp_path / "out", "--json")
    assert r.rc == 2, r.err
    assert r.out == ""
    line = r.err.strip()
    assert "\n" not in line and "Traceback" not in line
    assert str(p) in line and key in line and words in line, line
    assert not (tmp_path / "out").exists()


def test_missing_file_and_bad_scenario_path(cli, tmp_path):
    r = cli("place", tmp_path / "nope.yaml")
    assert r.rc == 2 and "does not exist" in r.err
    p = tmp_path / "p.yaml"
    p.write_text("scenario: nowhere.yaml\ndata: {provider: aws, region: us-east-2}\n" + GOOD_CAND)
    r = cli("place", p)
    assert r.rc == 2 and "scenario: no such scenario file 'nowhere.yaml'" in r.err


def test_without_a_workload_the_cache_figures_are_assumed_and_said_so(cli, examples_dir, tmp_path):
    p = tmp_path / "p.yaml"
    p.write_text(BASE.format(scen=examples_dir / "scenario.yaml") + GOOD_CAND)
    out = cli.json("place", p, "--json")
    c = out["candidates"][0]
    assert c["basis"]["kind"] == "assumed" and "no workload" in c["basis"]["detail"]
    cross = next(r for r in out["ranking"] + out["not_ranked"] if r["strategy"] == "cross_region")
    assert cross["basis"] == "assumed"
    # no GPU offer near the data: wait is listed as not priced, with the reason
    wait = next(r for r in out["not_ranked"] if r["strategy"] == "wait")
    assert wait["not_priced_reason"] == "no GPU offer near the data (data.offers)"


def test_a_spot_offer_with_its_price_and_interruptions_pays_the_extra_cold_starts(cli, examples_dir, tmp_path):
    def run(interruptions):
        p = tmp_path / f"spot{interruptions}.yaml"
        p.write_text(BASE.format(scen=examples_dir / "scenario.yaml")
                     + "candidates: [{provider: aws, region: us-west-2, storage_usd_per_gb_month: 0.02, offers: "
                       f"[{{instance_type: p5.48xlarge, purchase: spot, usd_per_hour: 20, "
                       f"interruptions_per_run: {interruptions}}}]}}]\n")
        out = cli.json("place", p, "--scenarios", tmp_path / f"s{interruptions}", "--json")
        return next(r for r in out["ranking"] if r["strategy"] == "cross_region"), out

    calm, _ = run(0)
    stormy, out = run(3)
    assert calm["offer"]["cluster_usd_per_hour"] == 40.0  # 2 instances (the scenario's count) x 20 USD/h
    assert stormy["strategy_usd"] > calm["strategy_usd"]  # each interruption empties the cache: more cold fills
    cmd = out["candidates"][0]["offers"][0]["cost_command"].split()[1:]
    cost = cli.json(*cmd)
    assert cost["options"]["cross_region"]["total_usd"] == stormy["strategy_usd"]
