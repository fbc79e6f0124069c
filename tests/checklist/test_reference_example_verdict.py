"""The bundled reference example end to end: compare -> cost -> decide gives the verdict docs/prices.md quotes
(NO_GO for cross-region since issue 25 priced the measured cross-region bytes)."""
from __future__ import annotations

import json


def test_reference_example_is_conditional(cli, tmp_path, examples_dir):
    compare = cli.json("compare", "--colocated", str(examples_dir / "colocated_steps.csv"),
                       "--remote", str(examples_dir / "remote_steps.csv"), "--json")
    cpath = tmp_path / "compare.json"
    cpath.write_text(json.dumps(compare))
    cost = cli.json("cost", str(examples_dir / "scenario.yaml"), "--from-compare", str(cpath), "--json")
    kpath = tmp_path / "cost.json"
    kpath.write_text(json.dumps(cost))
    out = cli.json("decide", "--answers", str(examples_dir / "answers.yaml"), "--compare", str(cpath),
                   "--cost", str(kpath), "--json")
    # issue 25: the measured bytes (read rate x miss ratio, 73,836.5 GB a month) make cross-region 17,584 USD
    # dearer than the replica, 3.8 % of the cluster spend: the cost item is the one blocker
    assert out["verdict"] == "NO_GO"
    assert [b["id"] for b in out["blockers"]] == ["cost_favourable"]
    by = {i["id"]: i for i in out["items"]}
    # what the data can say about the reference case
    assert by["throughput_equivalent"]["proposed"] == "yes"  # equivalent at 2 %
    assert by["reread_fits_cache"]["proposed"] == "yes"  # 3 reads a month, ~95 % hits, fits the NVMe
    assert by["cost_favourable"]["proposed"] == "no"  # the cost model spoke
    assert by["repetitions"]["proposed"] == "no"  # one run per side
    assert by["states_covered"]["evidence"]["facts"]["covered"]["invalidation"] is False
    # what it cannot: left unknown with a note by the person
    for iid in ("network_ready", "governance_allows", "failure_recovery", "checkpoints_independent"):
        assert by[iid]["answer"] == "unknown" and by[iid]["note"]
    conditions = {c["id"] for c in out["conditions"]}
    assert {"states_covered", "repetitions", "governance_allows"} <= conditions
    # the person's unknown replaces the evidence's yes on the transfer budget, and says so
    # (the measured bytes cost 1,476.73 USD a month of transfer, over the 50 USD budget: the evidence says no)
    assert by["transfer_budget"]["proposed"] == "no" and by["transfer_budget"]["answer"] == "unknown"
    assert by["transfer_budget"]["overrides_evidence"] is True
    assert "50 USD/month" in by["transfer_budget"]["note"]
    # the prices docs page quotes what the CLI prints for this example
    section = (examples_dir.parents[2] / "docs" / "prices.md").read_text()
    measured = cost["options"]["cross_region"]["total_usd"]
    assert f"{measured:.2f} USD with the bundled" in section, measured
    assert f"replicating costs {cost['options']['replicate']['total_usd']:.2f} USD a year" in section
