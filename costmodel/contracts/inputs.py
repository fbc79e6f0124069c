"""Models of the input files users write, for the published JSON Schema: the cost scenario (built from
:data:`costmodel.cost.spec.PARAMS`, the one table of its keys, units and ranges), the simulator's
``workload:`` section (its dataclasses), the report notebook's parameters
(:data:`costmodel.report.params.PARAMETERS`) and the answers file (:class:`.answers.AnswersFileModel`).
The workload (:mod:`.workload`) and the answers' ``meta`` are validated by their models too.

The files are still read by their loaders (``cost.load_scenario``, ``simulate.workload.parse_workload``,
``report.validate_parameters``, ``checklist.parse_answers``), which say more than a schema can (a key in
another unit with the converted number, deprecated aliases that warn, ranges written as distributions).
"""
from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model


def _number_field(p: Any, uncertain: bool) -> tuple[Any, Any]:
    kw: dict[str, Any] = {"description": f"{p.help + '; ' if p.help else ''}unit: {p.unit}"}
    if math.isfinite(p.lo):
        kw["gt" if p.lo_open else "ge"] = p.lo
    if math.isfinite(p.hi):
        kw["lt" if p.hi_open else "le"] = p.hi
    base: Any = int if p.integer else float
    if uncertain:  # a point value, a [low, high] range or a distribution mapping (docs/cost.md)
        tp: Any = base | list[float] | dict[str, Any] | None
        return tp, Field(None, description=kw["description"] + "; a number, [low, high] or a distribution")
    return base | None, Field(None, **kw)


def scenario_model() -> type[BaseModel]:
    """The scenario file as a pydantic model generated from the key table (sections nested)."""
    from ..cost.spec import ALIASES, BOOLS, CHOICES, PARAM_BY_KEY, PARAMS, SECTIONS, SOURCE_KEYS, STRINGS

    fields: dict[str, dict[str, Any]] = {s: {} for s in ("", *SECTIONS)}
    for p in PARAMS:
        sec, _, leaf = p.key.rpartition(".")
        fields[sec][leaf] = _number_field(p, p.model or p.key in SOURCE_KEYS)
    for key, default in STRINGS.items():
        sec, _, leaf = key.rpartition(".")
        tp: Any = Literal[CHOICES[key]] | None if key in CHOICES else str | None  # type: ignore[valid-type]
        fields[sec][leaf] = (tp, Field(default))
    for key, bdefault in BOOLS.items():
        sec, _, leaf = key.rpartition(".")
        fields[sec][leaf] = (bool | None, Field(bdefault))
    for alias, key in ALIASES.items():
        sec, _, leaf = alias.rpartition(".")
        fields[sec][leaf] = (float | None, Field(None, description=f"alias of {key}"))
    for key in PARAM_BY_KEY:  # prices per GiB are accepted and converted (x 10^9 / 2^30)
        for tail, gib in (("_per_gb", "_per_gib"), ("_per_gb_month", "_per_gib_month")):
            if key.endswith(tail):
                sec, _, leaf = (key[: -len(tail)] + gib).rpartition(".")
                fields[sec][leaf] = (float | list[float] | dict[str, Any] | None,
                                     Field(None, description=f"{key} per GiB (2^30 bytes), converted"))
    forbid = ConfigDict(extra="forbid")
    top = dict(fields[""])
    for sec in SECTIONS:
        model = create_model(f"Scenario_{sec}", __config__=forbid, **fields[sec])
        top[sec] = (model | None, Field(None))
    top["workload"] = (dict[str, Any] | None, Field(None, description="the simulator's workload (workload.json)"))
    return create_model("ScenarioFile", __config__=forbid, **top)


def workload_schema() -> dict[str, Any]:
    """The ``workload:`` section (``costmodel simulate``) as written, as JSON Schema
    (:class:`costmodel.contracts.workload.WorkloadIn`)."""
    from .workload import WorkloadIn

    return WorkloadIn.model_json_schema()


def report_parameters_model() -> type[BaseModel]:
    """The report notebook's parameters (``papermill -p NAME VALUE``; ``costmodel report`` passes them)."""
    from ..report.params import PARAMETERS

    kinds: dict[str, Any] = {"paths": list[str], "strs": list[str], "path": str, "str": str, "float": float,
                             "int": int}
    bounds: dict[str, dict[str, Any]] = {"margin": {"gt": 0, "lt": 0.5}, "monte_carlo_n": {"ge": 0, "le": 1_000_000},
                                         "seed": {"ge": 0}, "batch_size": {"ge": 0}, "tokens_per_step": {"ge": 0}}
    fields: dict[str, Any] = {}
    for name, p in PARAMETERS.items():
        tp = kinds[p.kind]
        if name == "rank_throughput":
            tp = Literal["auto", "local", "global"]
        kw: dict[str, Any] = {"description": p.help, **bounds.get(name, {})}
        if name == "date":
            kw["pattern"] = r"^(\d{4}-\d{2}-\d{2})?$"
        fields[name] = (tp, Field(p.default, **kw))
    return create_model("ReportParameters", __config__=ConfigDict(extra="forbid"), **fields)
