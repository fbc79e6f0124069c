"""Issue 12: a result whose JSON is its fields writes ``to_dict`` with one helper (``util.dataclass_dict``);
the keys, their order and the values stay what the hand-written methods gave (JSON byte-identical)."""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import MISSING, dataclass, field, fields
from typing import NamedTuple

import pytest

from costmodel import report
from costmodel.bench.pagecache import Eviction, Residency
from costmodel.checklist.answers import Answer
from costmodel.checklist.evidence import Evidence
from costmodel.checklist.items import ITEMS
from costmodel.contracts.results import ReportSummary
from costmodel.cost.evaluate import evaluate
from costmodel.cost.montecarlo import monte_carlo
from costmodel.cost.scenario import load_scenario
from costmodel.foundation.schema import Rejection
from costmodel.foundation.util import dataclass_dict, dumps
from costmodel.prices.catalog import PriceRow
from costmodel.prices.importers import FileSummary
from costmodel.report.render import ReportResult
from costmodel.report.stages import InputFile
from costmodel.synthetic.shapes import SynthTruth
from costmodel.synthetic.training_logs import RealisticTruth
from costmodel.warmup.compare import CompareResult
from costmodel.warmup.longrun_var import LongRunVar
from costmodel.warmup.result import FitResult
from costmodel.warmup.stats import LongRunSE, RatioCI


class Pair(NamedTuple):
    lo: int
    hi: int


@dataclass
class _Inner:
    x: float

    def to_dict(self) -> dict:
        return {"x_renamed": self.x}


@dataclass
class _Plain:
    a: int


@dataclass
class _Outer:
    name: str
    inner: _Inner | None
    plain: _Plain
    tags: tuple[str, ...] = ("a", "b")
    notes: list[str] = field(default_factory=list)
    by_key: dict[str, float] = field(default_factory=dict)
    pair: Pair = field(default_factory=lambda: Pair(1, 2))


def test_fields_in_order_less_exclude_with_renames_and_nested_contracts():
    o = _Outer("n", _Inner(1.5), _Plain(3), notes=["x"], by_key={"k": 2.0})
    d = dataclass_dict(o, exclude=("name",), rename={"inner": "inner_result"})
    assert list(d) == ["inner_result", "plain", "tags", "notes", "by_key", "pair"]
    assert d["inner_result"] == {"x_renamed": 1.5}  # a nested object's own to_dict, not its fields
    assert d["plain"] == {"a": 3} and d["tags"] == ("a", "b") and type(d["pair"]) is Pair
    assert dataclass_dict(o, lists=True)["tags"] == ["a", "b"]
    assert dataclass_dict(_Outer("n", None, _Plain(0)))["inner"] is None


def test_the_dict_is_a_copy():
    o = _Outer("n", None, _Plain(0), notes=["x"], by_key={"k": 1.0})
    d = dataclass_dict(o)
    d["notes"].append("y")
    d["by_key"]["k"] = 9.0
    assert o.notes == ["x"] and o.by_key == {"k": 1.0}


def test_no_dataclass_is_a_type_error():
    with pytest.raises(TypeError, match="dataclass instance"):
        dataclass_dict({"a": 1})
    with pytest.raises(TypeError, match="dataclass instance"):
        dataclass_dict(_Plain)


def test_bench_eviction_keys_and_nested_residency():
    ev = Eviction("fadvise", files=3, errors=1, elapsed_s=0.25,
                  after=Residency(checked_files=3, checked_bytes=4096, resident_bytes=1024, method="mincore"),
                  worked=False, notes=("one page stayed",))
    d = ev.to_dict()
    assert list(d) == ["method", "files", "errors", "elapsed_s", "residency_after", "worked", "notes"]
    assert d["residency_after"]["resident_fraction"] == 0.25 and d["notes"] == ["one page stayed"]
    assert Eviction("none").to_dict()["residency_after"] is None


def test_checklist_answer_and_item_keys():
    assert Answer("network_ready", "yes", "ticket 7").to_dict() == {"answer": "yes", "note": "ticket 7"}
    assert list(ITEMS[0].to_dict()) == ["id", "question", "why", "severity", "condition", "automatic"]


def test_cost_option_and_monte_carlo_keys_on_the_bundled_example(examples_dir):
    scenario = load_scenario(examples_dir / "scenario.yaml")
    opt = evaluate(scenario).to_dict()["options"]["cross_region"]
    assert list(opt) == ["total_usd", "per_month_usd", "terms", "terms_per_month_usd", "priced",
                         "not_priced_reason", "terms_not_priced"]
    assert opt["total_usd"] > 0 and opt["priced"] is True
    mc = monte_carlo(scenario, 200, seed=7).to_dict()
    assert list(mc) == ["n", "seed", "uncertain_inputs", "p_cheapest", "p5", "p50", "p95", "mean", "warnings",
                        "measured_inputs", "default_ranges", "byte_cases", "any_priced"]  # issue 25 added the last two
    assert mc["n"] == 200 and mc["seed"] == 7 and isinstance(mc["uncertain_inputs"], list)
    assert sum(mc["p_cheapest"].values()) == pytest.approx(1.0)


def test_price_import_summary_and_report_parameters_keys(examples_dir):
    s = FileSummary(path="p.json", format="aws-json", output="p.csv", rows=2)
    s.skip("no price", 3)
    assert json.loads(dumps(s.to_dict())) == {
        "path": "p.json", "format": "aws-json", "output": "p.csv", "rows": 2, "skipped": 3, "as_of_min": None,
        "as_of_max": None, "items": {}, "skip_reasons": {"no price": 3}, "as_of_stated": "", "kept": []}
    p = report.validate_parameters()
    d = p.to_dict()
    assert list(d)[:4] == ["colocated", "remote", "scenario", "answers"] and list(d)[-4:] == ["jobs", "rank_throughput", "placement", "rows"]
    assert all(type(d[k]) is list for k in ("colocated", "remote", "map", "jobs"))  # papermill's YAML: no tuples


def test_evidence_keys_are_its_fields_less_the_item_id():
    ev = Evidence("repetitions", "no", "2 runs", {"runs": 2, "range": (1, 3)}, ("compare",), "", True)
    assert ev.to_dict() == {"proposed": "no", "summary": "2 runs", "facts": {"runs": 2, "range": [1, 3]},
                            "sources": ["compare"], "condition": "", "predicted": True}


def test_price_row_fields_then_bytes_per_unit():
    row = PriceRow("aws", "egress", "us-east-1", "eu-west-1", "GB", 0.02, "list", "2026-11", True, "", "p.csv", 4,
                   tier_end=10240.0, verified_how="yes")
    d = row.to_dict()
    assert list(d) == [*(f.name for f in fields(PriceRow)), "bytes_per_unit"]
    assert d["bytes_per_unit"] == 1e9 and d["tier_end"] == 10240.0 and d["line"] == 4
    assert row.age_days(dt.date(2026, 12, 1)) == 30 and row.ref() == "p.csv:4"  # what `prices show` adds


def test_the_report_result_is_the_contract_model_and_its_json_is_generated():
    # issue 41: no hand-written twin; what render_report returns is the model `report --json` is published from
    assert ReportResult is ReportSummary
    r = ReportResult(out_dir="/r", files={"decision.json": "/r/decision.json"}, verdict=None, title="t")
    assert json.dumps(r.to_json_dict()) == ('{"out_dir": "/r", "files": {"decision.json": "/r/decision.json"}, '
                                            '"verdict": null, "title": "t"}')
    assert not hasattr(r, "to_dict")


@pytest.mark.parametrize("cls", [RatioCI, LongRunSE, LongRunVar, SynthTruth, RealisticTruth, Rejection, InputFile,
                                 FitResult, CompareResult])
def test_results_whose_json_is_their_fields(cls):
    """These results give their JSON from their fields (keys in declaration order, nothing added)."""
    names = [f.name for f in fields(cls)]
    obj = _sample(cls)
    assert list(obj.to_dict()) == names


def _sample(cls):
    """An instance with every field filled by a plain value of its kind (enough to see the keys)."""
    if cls is FitResult:
        return FitResult(**{f.name: None for f in fields(cls) if f.default is MISSING
                            and f.default_factory is MISSING})
    if cls is CompareResult:
        kw = {f.name: None for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING}
        kw.update(margin=0.05, pooled={}, colocated=[], remote=[], equivalent=False)
        return CompareResult(**kw)
    kw = {f.name: 0 for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING}
    return cls(**kw)
