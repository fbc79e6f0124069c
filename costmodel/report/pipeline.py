"""The report's pipeline, in process: validated parameters in, typed results out.

``run(params)`` reads each input once (the answers file, the scenario, the placement file) and runs ingest ->
fit -> compare -> cost -> placement -> checklist through :mod:`.stages` (the functions the CLI verbs call), then
builds the ``decision.json`` record and checks it against its contract. ``costmodel report`` calls it and renders
the page from the results (:mod:`.page`); the report notebook calls the same :func:`run_stages` and displays
them. Nothing here writes a file, and the verdict is read from the results, never from a file."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..checklist.answers_model import AnswersDocument
from ..contracts.results import CompareRecord, DecisionRecord
from .params import ReportParams
from .stages import CostStage, Inputs

#: the progress line of each stage, in the order they run (``report: <stage>``)
STAGES = ("reading the scenario and the answers", "ingesting inputs", "fitting warm-up and steady state",
          "comparing co-located and remote", "pricing the options", "ranking placements", "walking the checklist",
          "assembling decision.json")


@dataclass
class ReportRun:
    """What the pipeline computed, typed: each stage's result, and ``decision.json``'s object (``record``, checked
    against :class:`~costmodel.contracts.results.DecisionRecord`: ``model``)."""

    params: ReportParams
    inputs: Inputs
    fits: list[Any]  # FitResult per analysed run, co-located first
    compare: CompareRecord | None
    cost: CostStage
    decision: Any  # checklist.Decision
    placement: dict[str, Any] | None  # `costmodel place FILE --json`, None without a placement file
    record: dict[str, Any]
    model: DecisionRecord

    @property
    def verdict(self) -> str:
        return str(self.record["verdict"])

    @property
    def title(self) -> str:
        return str(self.record["title"])


@dataclass(frozen=True)
class Documents:
    """The input files read whole before any run file: the answers file (validated as ``costmodel decide`` reads
    it) and the scenario (as ``costmodel cost`` reads it)."""

    answers: AnswersDocument
    scenario: Any  # cost.Scenario


def read_documents(params: ReportParams) -> Documents:
    """The answers file and the scenario read once, and the placement file validated as ``costmodel place``
    validates it: a bad file is one error (ChecklistError, ScenarioError, PlacementError naming the file and the
    field) before any run file is read or any output folder made."""
    from .. import cost as cm
    from . import stages

    answers = stages.read_answers(params)
    scenario = cm.load_scenario(params.scenario)
    if params.placement:
        from ..place import load_placement

        load_placement(params.placement)
    return Documents(answers=answers, scenario=scenario)


def run_stages(params: ReportParams, progress: Callable[[str], None] | None = None,
               documents: Documents | None = None,
               on_result: Callable[[str, dict[str, Any]], None] | None = None) -> ReportRun:
    """Run the report's stages on validated ``params`` (:func:`~costmodel.report.params.validate_parameters`) and
    return every result; ``progress`` gets one line per stage (:data:`STAGES`); ``documents``: what
    :func:`read_documents` read (read here otherwise); ``on_result(stage, results so far)`` (optional) is called
    after the ``inputs``, ``fits`` and ``cost`` stages (``costmodel report`` starts drawing their charts then).
    Raises the error of the stage that failed (ChecklistError, ScenarioError, PlacementError, IngestError,
    AnalysisError, ReportError)."""
    from . import stages

    say = progress or (lambda _m: None)
    done: dict[str, Any] = {}
    told = on_result or (lambda _stage, _done: None)
    if documents is None:
        say(f"report: {STAGES[0]}")
        documents = read_documents(params)
    answers, scenario = documents.answers, documents.scenario
    say(f"report: {STAGES[1]}")
    inputs = done["inputs"] = stages.load_inputs(params, answers=answers)
    told("inputs", done)
    say(f"report: {STAGES[2]}")
    fits = done["fits"] = stages.fit_runs(inputs, params)
    told("fits", done)
    say(f"report: {STAGES[3]}")
    compare = stages.compare_runs(inputs, params, fits)
    say(f"report: {STAGES[4]}")
    cost = done["cost"] = stages.cost_stage(params, compare, scenario=scenario)
    told("cost", done)
    say(f"report: {STAGES[5]}")
    placement = stages.placement_stage(params)
    say(f"report: {STAGES[6]}")
    decision = stages.checklist_stage(params, compare, cost.typed, fits, answers)
    say(f"report: {STAGES[7]}")
    record = stages.decision_record(inputs, fits, compare, cost, decision, params, placement=placement)
    return ReportRun(params=params, inputs=inputs, fits=list(fits), compare=compare, cost=cost, decision=decision,
                     placement=placement, record=record, model=DecisionRecord.model_validate(record))


def run(params: ReportParams, progress: Callable[[str], None] | None = None) -> DecisionRecord:
    """The report's decision for validated ``params``, in process: :func:`run_stages`' record as its model."""
    return run_stages(params, progress).model
