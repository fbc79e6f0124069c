"""How a JSON Schema is published from a model (``docs/schema/NAME.json``), and the schemas of the contracts' own models.

Outputs (what the verbs print with ``--json``, and ``decision.json``): strict, every contract key
required and no undeclared key (see :mod:`.results`). Inputs: the files users write. The models of the input files
that live beside their rooms (the scenario in ``cost``, the answers in ``checklist``, the report's parameters in
``report``, the placement file in ``place``) are collected at the top, by the ``schema`` verb
(:data:`costmodel.commands.published_schemas.SCHEMAS`): this module imports nothing above the contracts. Regenerate with
``costmodel schema --write docs/schema --force``; a test fails when the
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


def model_schema(model: Any, title: str) -> Callable[[], dict[str, Any]]:
    """A builder of ``model``'s JSON Schema (validation mode, by alias) titled ``title``."""
    def build() -> dict[str, Any]:
        s = model.model_json_schema(mode="validation", by_alias=True)
        s["title"] = title
        return s
    return build


def fit_list() -> dict[str, Any]:
    """``costmodel fit --json``: a list of fit results."""
    item = R.FitRecord.model_json_schema(mode="validation", by_alias=True)
    defs = item.pop("$defs", {})
    out: dict[str, Any] = {"title": "costmodel fit --json", "type": "array", "items": item}
    if defs:
        out["$defs"] = defs
    return out


def workload() -> dict[str, Any]:
    """The workload section of a scenario or what-if file."""
    from .inputs import workload_schema

    s = workload_schema()
    s["title"] = "simulate workload (the workload: section of a scenario or whatif YAML)"
    return s


def place() -> dict[str, Any]:
    """``costmodel place --json``."""
    from .placement import PlaceResult

    return model_schema(PlaceResult, "costmodel place --json")()


#: name -> (kind: "output" or "input", builder)
Schemas = dict[str, tuple[str, Callable[[], dict[str, Any]]]]

#: the contracts' own schemas; the schema verb adds the input files of the rooms above (``commands.schema.SCHEMAS``)
CONTRACT_SCHEMAS: Schemas = {
    "fit": ("output", fit_list),
    "compare": ("output", model_schema(R.CompareRecord, "costmodel compare --json")),
    "cost": ("output", model_schema(R.CostRecord, "costmodel cost --json")),
    "decide": ("output", model_schema(R.DecideResult, "costmodel decide --json")),
    "simulate": ("output", model_schema(R.SimulateResult, "costmodel simulate --json")),
    "report": ("output", model_schema(R.ReportSummary, "costmodel report --json")),
    "decision": ("output", model_schema(R.DecisionRecord, "decision.json (written beside a report)")),
    "place": ("output", place),
    "workload": ("input", workload),
}


def generate(name: str, schemas: Schemas = CONTRACT_SCHEMAS) -> dict[str, Any]:
    """The JSON Schema ``name`` (a key of ``schemas``) with its ``$schema`` and ``$id``; KeyError otherwise."""
    _kind, build = schemas[name]
    s = build()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_URL.format(name=name), **s}


def dumps(schema: dict[str, Any]) -> str:
    """The schema's text as checked in (sorted keys, 2-space indent, newline at the end)."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_all(folder: str | os.PathLike[str], schemas: Schemas = CONTRACT_SCHEMAS) -> list[Path]:
    """Write every schema of ``schemas`` to ``folder/NAME.json``; returns the paths."""
    from ..foundation.util import write_text_atomic

    out = []
    d = Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    for name in schemas:
        p = d / f"{name}.json"
        write_text_atomic(p, dumps(generate(name, schemas)))
        out.append(p)
    return out
