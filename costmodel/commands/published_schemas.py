"""Every published JSON Schema (``costmodel schema``, ``docs/schema/``): the contracts' own, and the input files whose
models live beside their rooms (the scenario in ``cost``, the answers in ``checklist``, the report's parameters in
``report``, the placement file in ``place``), collected here at the top so that no room imports upward to publish
them. Imported by the ``schema`` verb when it runs (not at start-up)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..contracts import schema as published


def _scenario() -> dict[str, Any]:
    from ..cost.scenario_model import scenario_model  # generated from the cost keys' table, beside it

    return published.model_schema(scenario_model(), "cost scenario (YAML)")()


def _answers() -> dict[str, Any]:
    from ..checklist.answers_model import AnswersFileModel  # generated from the checklist's items, beside them

    return published.model_schema(AnswersFileModel, "checklist answers (YAML)")()


def _report_params() -> dict[str, Any]:
    from ..report.params import report_parameters_model  # the report's own table

    return published.model_schema(report_parameters_model(), "report notebook parameters")()


def _placement() -> dict[str, Any]:
    from ..place.model import PlacementIn  # the placement file's model lives beside its room

    return published.model_schema(PlacementIn, "placement file (YAML, costmodel place)")()


_OWN = published.CONTRACT_SCHEMAS
#: every published schema, name -> (kind, builder), outputs first: the contracts' own and the input files whose
#: models live beside their rooms, collected here at the top so that no room imports upward to publish them
SCHEMAS: published.Schemas = {
    **{n: _OWN[n] for n in ("fit", "compare", "cost", "decide", "simulate", "report", "decision", "place")},
    "scenario": ("input", _scenario),
    "workload": _OWN["workload"],
    "answers": ("input", _answers),
    "report-parameters": ("input", _report_params),
    "placement": ("input", _placement),
}


def generate(name: str) -> dict[str, Any]:
    """The published JSON Schema ``name`` (a key of :data:`SCHEMAS`); KeyError otherwise."""
    return published.generate(name, SCHEMAS)


def write_all(folder: str | os.PathLike[str]) -> list[Path]:
    """Write every published schema to ``folder/NAME.json``; returns the paths."""
    return published.write_all(folder, SCHEMAS)
