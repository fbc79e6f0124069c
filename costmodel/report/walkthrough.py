"""The checklist notebook (``notebooks/checklist.ipynb``): its parameters and the calls it makes.

The notebook walks a person through the go/no-go checklist in JupyterLab with
:func:`costmodel.interactive.checklist_wizard`, and shows the static verdict table that batch mode
(papermill, ``costmodel decide``) gives for the answers file, since papermill keeps no widget
state. Evidence comes from ``costmodel compare`` / ``cost`` / ``fit`` JSON files when given, else
from the runs and scenario through the report's stages (the bundled example by default).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..contracts.results import CompareRecord, CostRecord, FitRecord
from ..foundation.errors import ReportError
from ..foundation.fields_json import FieldsJson, JsonKeys
from .params import PARAMETERS as REPORT_PARAMETERS
from .params import Param, _user_names, check_parameters, resolve_path, validate_parameters

#: Names the checklist notebook binds itself (not parameters); the notebook test checks this list.
CHECKLIST_NOTEBOOK_NAMES = frozenset({"P", "sources", "evidence", "wizard", "decision"})

CHECKLIST_PARAMETERS: dict[str, Param] = {
    "answers": Param("path", "data/examples/answers.yaml", "checklist answers YAML to load"),
    "save_to": Param("str", "", "where the Save answers button writes (empty: a new answers.yaml in the working folder)"),
    "compare_json": Param("str", "", "output of `costmodel compare --json` (empty: compare the runs below)"),
    "cost_json": Param("str", "", "output of `costmodel cost --json` (empty: price the scenario below)"),
    "fit_json": Param("str", "", "output of `costmodel fit --json` (empty: the fits of the runs below, if used)"),
    "colocated": REPORT_PARAMETERS["colocated"],
    "remote": REPORT_PARAMETERS["remote"],
    "scenario": REPORT_PARAMETERS["scenario"],
    "metric": REPORT_PARAMETERS["metric"],
    "margin": REPORT_PARAMETERS["margin"],
    "monte_carlo_n": REPORT_PARAMETERS["monte_carlo_n"],
    "seed": REPORT_PARAMETERS["seed"],
}


@dataclass(frozen=True)
class ChecklistParams(FieldsJson):
    """Validated checklist-notebook parameters (given paths resolved to absolute paths; '' = not given)."""

    answers: str
    save_to: str = ""
    compare_json: str = ""
    cost_json: str = ""
    fit_json: str = ""
    colocated: tuple[str, ...] = ()
    remote: tuple[str, ...] = ()
    scenario: str = ""
    metric: str = ""
    margin: float = 0.02
    monte_carlo_n: int = 2000
    seed: int = 0

    @property
    def needs_runs(self) -> bool:
        """True when the compare or cost result has to be computed from the runs."""
        return not self.compare_json or not self.cost_json

    JSON = JsonKeys(lists=True)


def validate_checklist_parameters(namespace: Mapping[str, Any] | None = None, **values: Any) -> ChecklistParams:
    """Check the checklist notebook's parameters (``namespace`` is its ``globals()``, or pass
    keywords) and return them typed with paths resolved. Raises :class:`ReportError` naming the
    parameter: unknown names (with the closest known one), wrong types, files not found, and the
    run/scenario parameters (checked like the report's) when a result must be computed from them."""
    given = dict(_user_names(namespace, CHECKLIST_NOTEBOOK_NAMES) if namespace is not None else {})
    given.update(values)
    out = check_parameters(given, CHECKLIST_PARAMETERS, "checklist")
    out["answers"] = str(resolve_path(out["answers"], "answers"))
    for name in ("compare_json", "cost_json", "fit_json"):
        if out[name]:
            out[name] = str(resolve_path(out[name], name))
    params = ChecklistParams(**out)
    if params.needs_runs:
        rp = _report_params(params)
        params = dataclasses.replace(params, colocated=rp.colocated, remote=rp.remote, scenario=rp.scenario)
    return params


def _report_params(params: ChecklistParams):  # -> ReportParams
    return validate_parameters(
        colocated=list(params.colocated), remote=list(params.remote), scenario=params.scenario,
        answers=params.answers, metric=params.metric, margin=params.margin,
        monte_carlo_n=params.monte_carlo_n, seed=params.seed,
    )


@dataclass
class EvidenceSources:
    """The results the checklist's evidence is gathered from (their models), and where each came from."""

    compare: CompareRecord | None
    cost: CostRecord | None
    fits: list[FitRecord] = field(default_factory=list)
    origin: dict[str, str] = field(default_factory=dict)

    def table(self):  # -> pandas.DataFrame
        """One row per result: what it is and where it came from."""
        import pandas as pd

        df = pd.DataFrame([{"result": k, "from": v} for k, v in self.origin.items()], columns=["result", "from"])
        df.attrs["column_kinds"] = {"result": "id", "from": "text"}
        return df


def _read_json(path: str, what: str) -> Any:
    """The result in the JSON file ``path`` as its model (fit: a list of FitRecord), read and checked by
    the same reader as ``costmodel decide`` (:mod:`costmodel.contracts.read`); ReportError naming the
    parameter."""
    from ..contracts.read import load_result

    return load_result(path, what.removesuffix("_json"), f"parameter {what!r}: {path}", ReportError)


def evidence_sources(params: ChecklistParams) -> EvidenceSources:
    """The compare, cost and fit results for the evidence: read from the JSON files given, else
    computed from the runs and scenario exactly as ``costmodel report`` does (ingest, fit, compare,
    cost with the measurements applied). Raises ReportError (or the failing stage's error)."""
    from .stages import compare_runs, cost_stage, fit_dicts, fit_runs, load_inputs

    compare = _read_json(params.compare_json, "compare_json") if params.compare_json else None
    cost = _read_json(params.cost_json, "cost_json") if params.cost_json else None
    fits = _read_json(params.fit_json, "fit_json") if params.fit_json else []
    origin = {
        "compare": params.compare_json,
        "cost": params.cost_json,
        "fit": params.fit_json,
    }
    if params.needs_runs:
        rp = _report_params(params)
        inputs = load_inputs(rp)
        fitted = fit_runs(inputs, rp)
        runs = ", ".join(Path(p).name for p in (*rp.colocated, *rp.remote))
        if not params.fit_json:
            fits, origin["fit"] = [FitRecord.model_validate(f) for f in fit_dicts(fitted)], f"fitted from {runs}"
        if not params.compare_json:
            compare, origin["compare"] = compare_runs(inputs, rp, fitted), f"compared from {runs}"
        if not params.cost_json:
            cost = cost_stage(rp, compare).typed
            origin["cost"] = f"priced from {Path(rp.scenario).name}" + (" with the measured comparison" if compare else "")
    return EvidenceSources(compare=compare, cost=cost, fits=list(fits), origin=origin)


def batch_decision(params: ChecklistParams, evidence: Mapping[str, Any]):  # -> checklist.Decision
    """The verdict for the answers file as batch mode gives it (strict, like ``costmodel decide``):
    ChecklistError naming the item for an answer that lacks a required note."""
    from .. import checklist

    answers, _meta = checklist.read_answers_file(params.answers)
    return checklist.evaluate(answers, evidence, strict=True)
