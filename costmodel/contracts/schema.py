"""The published JSON Schema of costmodel's files, generated from the models (``docs/schema/NAME.json``).

Outputs (what the verbs print with ``--json``, and ``decision.json``): strict, every contract key
required and no undeclared key (see :mod:`.results`). Inputs: the files users write. Regenerate with
``costmodel schema --write docs/schema --force`` (or ``python -m costmodel.contracts``); a test fails when the
checked-in files differ from what the models generate.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import results as R

SCHEMA_URL = "https://costmodel.invalid/schema/{name}.json"


def _model(model: Any, title: str) -> Callable[[], dict[str, Any]]:
    def build() -> dict[str, Any]:
        s = model.model_json_schema(mode="validation", by_alias=True)
        s["title"] = title
        return s
    return build


def _fit_list() -> dict[str, Any]:
    item = R.FitResult.model_json_schema(mode="validation", by_alias=True)
    defs = item.pop("$defs", {})
    out: dict[str, Any] = {"title": "costmodel fit --json", "type": "array", "items": item}
    if defs:
        out["$defs"] = defs
    return out


def _scenario() -> dict[str, Any]:
    from ..cost.scenario_model import scenario_model

    return _model(scenario_model(), "cost scenario (YAML)")()


def _workload() -> dict[str, Any]:
    from .inputs import workload_schema

    s = workload_schema()
    s["title"] = "simulate workload (the workload: section of a scenario or whatif YAML)"
    return s


def _report_params() -> dict[str, Any]:
    from ..report.params import report_parameters_model  # the report's own table: schema.py sits on floor 3

    return _model(report_parameters_model(), "report notebook parameters")()


def _place() -> dict[str, Any]:
    from .placement import PlaceResult

    return _model(PlaceResult, "costmodel place --json")()


def _placement() -> dict[str, Any]:
    from ..place.model import PlacementIn  # the placement file's model lives beside its room (floor 2)

    return _model(PlacementIn, "placement file (YAML, costmodel place)")()


def _answers() -> dict[str, Any]:
    from ..checklist.answers_model import AnswersFileModel

    return _model(AnswersFileModel, "checklist answers (YAML)")()


#: name -> (kind, builder). Outputs first.
SCHEMAS: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
    "fit": ("output", _fit_list),
    "compare": ("output", _model(R.CompareResult, "costmodel compare --json")),
    "cost": ("output", _model(R.CostResult, "costmodel cost --json")),
    "decide": ("output", _model(R.DecideResult, "costmodel decide --json")),
    "simulate": ("output", _model(R.SimulateResult, "costmodel simulate --json")),
    "report": ("output", _model(R.ReportSummary, "costmodel report --json")),
    "decision": ("output", _model(R.DecisionRecord, "decision.json (written beside a report)")),
    "place": ("output", _place),
    "scenario": ("input", _scenario),
    "workload": ("input", _workload),
    "answers": ("input", _answers),
    "report-parameters": ("input", _report_params),
    "placement": ("input", _placement),
}


def generate(name: str) -> dict[str, Any]:
    """The JSON Schema ``name`` (a key of :data:`SCHEMAS`); KeyError otherwise."""
    _kind, build = SCHEMAS[name]
    s = build()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_URL.format(name=name), **s}


def dumps(schema: dict[str, Any]) -> str:
    """The schema's text as checked in (sorted keys, 2-space indent, newline at the end)."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_all(folder: str | os.PathLike[str]) -> list[Path]:
    """Write every schema to ``folder/NAME.json``; returns the paths."""
    from ..foundation.util import write_text_atomic

    out = []
    d = Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    for name in SCHEMAS:
        p = d / f"{name}.json"
        write_text_atomic(p, dumps(generate(name)))
        out.append(p)
    return out
