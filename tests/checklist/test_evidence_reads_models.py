"""The evidence reads the result models the report's stages hand on; the dicts the verbs print give the same
evidence, byte for byte."""
from __future__ import annotations

import json

from support.results import as_recorded

from costmodel import checklist, report
from costmodel.contracts.results import CompareRecord, CostRecord


def _as_json(ev: dict) -> str:
    return json.dumps({k: e.to_dict() for k, e in ev.items()}, sort_keys=False)


def test_models_and_printed_dicts_give_the_same_evidence(report_stages):
    _p, _inputs, fits, cmp, cost, _decision, record = report_stages
    assert isinstance(cmp, CompareRecord) and isinstance(cost.typed, CostRecord)
    from_models = checklist.gather_evidence(compare=cmp, cost=cost.typed, fits=fits)
    from_dicts = checklist.gather_evidence(compare=record["compare"], cost=record["cost"], fits=record["fit"])
    assert _as_json(from_models) == _as_json(from_dicts)
    # the reference example's figures, read through the typed sections
    cache = from_models["cache_headroom"].facts
    assert cache["cache_capacity_gb"] == 61440.0 and cache["working_set_gb"] == 792.9856
    assert from_models["transfer_budget"].facts["budget_usd_per_month"] == 50.0
    assert from_models["throughput_equivalent"].facts["equivalence"] == cmp.equivalence


def test_the_report_comparison_is_the_verbs_object(report_stages, cli, examples_dir):
    _p, _inputs, _fits, cmp, _cost, _decision, record = report_stages
    printed = cli.json("compare", "--colocated", examples_dir / "colocated_steps.csv", "--remote",
                       examples_dir / "remote_steps.csv", "--json")
    assert cmp.to_json_dict() == printed
    assert record["compare"] == as_recorded(printed, None)  # the bundled files named costmodel/data/examples/...
    assert report.compare_table(cmp).equals(report.compare_table(printed))
