"""The report's stages: plain functions the notebook calls one per section. They call the package's
ingest, warm-up, cost, checklist and ADR functions exactly as the CLI verbs do, so ``decision.json``
matches what ``costmodel fit``, ``compare``, ``cost`` and ``decide`` print for the same inputs.

The stages hand each other the result models (:mod:`costmodel.contracts.results`: the comparison is a
:class:`CompareRecord`, the cost stage carries its :class:`CostRecord`); JSON is made only at the edges
(``decision.json``, the ADR's figures, the functions that still take the printed dict)."""
from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..checklist.answers_model import AnswersDocument
from ..contracts.results import DECISION_SCHEMA, CompareRecord, CostRecord, DecisionRecord, Result
from ..foundation.fields_json import FieldsJson
from .params import DEFAULT_TITLE, ReportParams

__all__ = ["DECISION_SCHEMA"]



@dataclass
class InputFile(FieldsJson):
    """One input file with its provenance."""

    role: str
    path: str
    sha256: str
    size_bytes: int
    format: str = ""
    run_ids: list[str] = field(default_factory=list)
    predicted: bool = False
    job_id: str = ""


@dataclass
class Inputs:
    """The runs of both sides and every input file's provenance."""

    colocated: list[Any]
    remote: list[Any]
    files: list[InputFile]
    warnings: list[str] = field(default_factory=list)
    jobs: list[dict[str, Any]] = field(default_factory=list)
    job_tables: dict[str, Any] = field(default_factory=dict)
    #: the answers file, read and validated once (answers and ADR meta) when the inputs are loaded
    answers: AnswersDocument | None = None
    #: runs the warm-up fit left out, one line each naming the run and why (see :func:`fit_runs`)
    fit_left_out: list[str] = field(default_factory=list)

    @property
    def runs(self) -> list[Any]:
        return [*self.colocated, *self.remote]

    def table(self, collapse_over: int = 20):  # -> pandas.DataFrame
        """One row per input file: role, file name, format, runs, measured or predicted (runs only),
        size in bytes, SHA-256 (display kinds in ``attrs["column_kinds"]``: the report shows the hash
        shortened, the full one in the cell's title and in decision.json). Beyond ``collapse_over``
        files, the files of each job are one row (file count, bytes summed, one combined SHA-256:
        :func:`costmodel.jobs.report.combined_sha256`); :meth:`file_list_html` lists them all."""
        import pandas as pd

        from ..jobs.report import collapse_files

        rows = collapse_files([f.to_dict() for f in self.files], collapse_over)
        df = pd.DataFrame(
            [
                {
                    "role": f["role"],
                    "file": f["file"],
                    "format": f["format"],
                    "runs": ", ".join(f["run_ids"]),
                    "kind": ("predicted" if f["predicted"] else "measured") if f["role"] in ("colocated", "remote") else "",
                    "bytes": f["size_bytes"],
                    "sha256": f["sha256"],
                }
                for f in rows
            ],
            columns=["role", "file", "format", "runs", "kind", "bytes", "sha256"],
        )
        df.attrs["column_kinds"] = {"role": "id", "file": "path", "format": "id", "runs": "text", "kind": "id",
                                    "bytes": "int", "sha256": "sha"}
        return df

    def jobs_display(self) -> list[Any]:
        """What the report shows for multi-rank jobs: the expandable file list and the straggler table."""
        from ..jobs.report import RawHTML, straggler_table
        from .display import html_table

        return [RawHTML(self.file_list_html()), html_table(straggler_table(self.jobs), "jobs and stragglers")]

    def job_heatmaps(self) -> list[Any]:
        """Rank x step heatmaps (Altair charts) of up to 4 jobs, those with stragglers first."""
        from ..charts.fleet import job_heatmaps

        return job_heatmaps(self)

    def file_list_html(self, collapse_over: int = 20) -> str:
        """An expandable ``<details>`` list of every input file per job (empty when the table is not collapsed)."""
        from ..jobs.report import file_list_html

        return file_list_html([f.to_dict() for f in self.files], collapse_over)


def load_inputs(params: ReportParams, answers: AnswersDocument | None = None) -> Inputs:
    """Ingest each side's inputs as ``costmodel compare`` does (:func:`costmodel.jobs.load_side`: rank
    logs of a job become one job-level run; folders and object-store URLs are inputs too) and hash
    every input file; ``answers``: the answers file already read (read here otherwise). Raises IngestError for an
    unreadable input."""
    from ..foundation.util import sha256_file
    from ..ingest import IngestOptions
    from ..jobs import load_side

    sides: dict[str, list[Any]] = {"colocated": [], "remote": []}
    files: list[InputFile] = []
    warnings: list[str] = []
    jobs: list[dict[str, Any]] = []
    tables: dict[str, Any] = {}
    mode = getattr(params, "rank_throughput", "") or None
    from ..jobs import parse_job_spec

    specs = [parse_job_spec(x) for x in getattr(params, "jobs", ())]
    for role in ("colocated", "remote"):
        paths = list(getattr(params, role))
        mine = [x for x in specs if x.role == role]
        if not paths and not mine:
            continue
        opts = params.ingest_options(role) if hasattr(params, "ingest_options") else IngestOptions(role=role)
        side = load_side(paths, role, opts, job_specs=mine,
                         rank_throughput=None if mode in (None, "auto") else mode, hash_files=True,
                         engine=getattr(params, "engine", "auto") or "auto")
        sides[role] = side.runs
        jobs += side.jobs
        tables.update({f"{role}:{k}": v for k, v in side.tables.items()})
        warnings += [f"{role}: {w}" for w in side.warnings]
        files += [InputFile(role=role, path=f["path"], sha256=f["sha256"], size_bytes=f["size_bytes"],
                            format=f["format"], run_ids=f["run_ids"], predicted=f["predicted"], job_id=f["job_id"])
                  for f in side.files]
    for role, path in (("scenario", params.scenario), ("answers", params.answers)):
        files.append(InputFile(role=role, path=path, sha256=sha256_file(path), size_bytes=os.path.getsize(path)))
    return Inputs(colocated=sides["colocated"], remote=sides["remote"], files=files, warnings=warnings,
                  jobs=jobs, job_tables=tables, answers=answers if answers is not None else read_answers(params))


def read_answers(params: ReportParams) -> AnswersDocument:
    """The answers file read once (answers and ``meta``), as ``costmodel decide`` reads it: a bad item or a
    bad ADR people list is the same ChecklistError in both."""
    from ..checklist.answers import read_answers_document

    return read_answers_document(params.answers)


def _answers(params: ReportParams, answers: AnswersDocument | None) -> AnswersDocument:
    return answers if answers is not None else read_answers(params)


def fit_runs(inputs: Inputs, params: ReportParams) -> list[Any]:
    """:func:`costmodel.warmup.fit_runs` on every run, co-located first, as ``costmodel fit`` does
    (FitResults; ``[f.to_dict() for f in ...]`` is the list ``costmodel fit --json`` prints). A run that
    cannot be analysed is left out of the fits and reported, not dropped: ``inputs.fit_left_out`` gets
    one line naming it and why (the report shows them and decision.json lists them under
    ``fit_left_out``); AnalysisError when no run at all can be analysed."""
    from .. import warmup

    fits, left_out = warmup.fit_runs(inputs.runs, params.metric or None)
    inputs.fit_left_out = list(left_out)
    return fits


def fit_dicts(fits: Sequence[Any]) -> list[dict[str, Any]]:
    """FitResults (or dicts) as JSON-able dicts."""
    from ..foundation.util import jsonable_dicts

    return jsonable_dicts(fits)


def compare_runs(inputs: Inputs, params: ReportParams, fits: Sequence[Any] | None = None) -> CompareRecord | None:
    """``warmup.compare`` of the co-located and remote runs, reusing ``fits`` when given (None when a
    side has no run), as its model, validated once here: ``.to_json_dict()`` is the object
    ``costmodel compare --json`` prints."""
    from .. import warmup
    from ..foundation.published import published
    from ..foundation.util import to_jsonable

    if not inputs.colocated or not inputs.remote:
        return None
    n = len(inputs.colocated)
    if fits is not None and len(fits) == len(inputs.runs) and all(hasattr(f, "steady_mean") for f in fits):
        colo, rem = list(fits[:n]), list(fits[n:])
    else:
        colo, rem = inputs.colocated, inputs.remote
    res = warmup.compare(colo, rem, metric=params.metric or None, margin=params.margin)
    # the jobs beside the fits, as `costmodel compare --json` prints them, and with the published
    # precision of compare.json (docs/contracts.md): the cost and the checklist read the figures
    # `costmodel cost --from-compare compare.json` and `costmodel decide --compare` read
    return CompareRecord.model_validate(published(to_jsonable(dict(res.to_dict(), jobs=list(inputs.jobs)))))


def _json(result: Result | Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """A result as the JSON object its verb prints (a model's ``to_json_dict()``; a dict as it is)."""
    return result.to_json_dict() if isinstance(result, Result) else result


@dataclass
class CostStage:
    """The cost stage: the scenario (with measurements applied), the ``costmodel cost --json`` dict,
    the Monte Carlo draws and a break-even curve to draw."""

    scenario: Any
    result: dict[str, Any]
    model: CostRecord | None = None  # ``result`` as the typed contract (what later stages read)
    mc_samples: Any = None  # DataFrame, one column of totals (USD) per option, or None
    break_even_input: str = ""
    break_even_curve: Any = None  # DataFrame (value, option, total_usd)

    @property
    def typed(self) -> CostRecord:
        """The cost result as :class:`~costmodel.contracts.results.CostRecord`."""
        if self.model is None:
            self.model = CostRecord.model_validate(self.result)
        return self.model

    @property
    def tornado(self) -> list[dict[str, Any]]:
        return list(self.typed.sensitivity)


#: Inputs tried in order for the break-even chart (the first with a finite break-even wins).
BREAK_EVEN_CHART_INPUTS = (
    "training.runs_per_month",
    "training.epochs_per_run",
    "cache.steady_hit_ratio",
    "link.transfer_usd_per_gb",
    "dataset.size_gb",
)


def cost_stage(params: ReportParams, compare: CompareRecord | Mapping[str, Any] | None,
               curve_points: int = 41, scenario: Any = None) -> CostStage:
    """Load the scenario, apply the measured comparison (``--from-compare``) and analyse it with
    :func:`costmodel.cost.analyze`: ``result`` is what ``costmodel cost S.yaml --from-compare
    compare.json [--monte-carlo N --seed S] --json`` prints. Adds the Monte Carlo draws and each
    option's total along one input for the break-even chart. ``scenario``: the scenario already loaded
    (:func:`costmodel.cost.load_scenario` of ``params.scenario``; loaded here otherwise)."""
    import numpy as np
    import pandas as pd

    from .. import cost as cm
    from ..cost.measured import KEY, scenario_figures
    from ..foundation.util import to_jsonable

    as_written = scen = scenario if scenario is not None else cm.load_scenario(params.scenario)
    if compare:
        scen = cm.apply_measurements(scen, compare=compare, source="compare")
    raw, mc = cm.analyze_with_draws(scen, monte_carlo_n=params.monte_carlo_n, seed=params.seed)
    both = scenario_figures(as_written, raw) if scen is not as_written else None
    if both is not None:  # as `costmodel cost --from-compare` prints it: the scenario's own totals beside
        raw[KEY] = both
    result = to_jsonable(raw)
    model = CostRecord.model_validate(result)
    samples = None
    if mc is not None:  # the draws the summary was computed from: the Monte Carlo runs once per report
        samples = pd.DataFrame({k: np.asarray(v, dtype=float) for k, v in mc.totals.items()})
    key = _break_even_key(model.break_even)
    curve = _total_curve(scen, key, model.break_even.get(key, {}), curve_points) if key else None
    return CostStage(scenario=scen, result=result, model=model, mc_samples=samples, break_even_input=key,
                     break_even_curve=curve)


def _break_even_key(be: Mapping[str, Any]) -> str:
    for k in BREAK_EVEN_CHART_INPUTS:
        if k in be and be[k].get("value") is not None:
            return k
    for k, v in be.items():
        if v.get("value") is not None:
            return k
    for k in BREAK_EVEN_CHART_INPUTS:
        if k in be:
            return k
    return next(iter(be), "")


def _total_curve(scen: Any, key: str, be: Mapping[str, Any], n: int):  # -> DataFrame
    """Each option's total over the horizon at ``n`` values of ``key`` spanning the current value and
    the break-even (vectorised through the cost model)."""
    import numpy as np
    import pandas as pd

    from ..cost.evaluate import model_inputs
    from ..cost.model import OPTIONS, totals
    from ..cost.spec import PARAM_BY_KEY

    cur = float(scen.values[key])
    v = be.get("value")
    hi = max(cur, float(v) if v is not None else 0.0) * 2.0 or 1.0
    p = PARAM_BY_KEY[key]
    if math.isfinite(p.hi):
        hi = min(hi, p.hi)
    lo = max(0.0, p.lo) if math.isfinite(p.lo) else 0.0
    xs = np.linspace(lo, hi, n)
    xs = np.array([x for x in xs if p.ok(float(x))])
    t = totals(model_inputs(scen, **{key: xs}))
    rows = []
    for o in OPTIONS:
        vals = np.asarray(t[o], dtype=float) * np.ones(len(xs))
        rows += [{"value": float(x), "option": o, "total_usd": float(y)} for x, y in zip(xs, vals, strict=False)]
    return pd.DataFrame(rows)


def break_even_point(cost: CostStage) -> tuple[float | None, str | None, str | None]:
    """(value, option cheaper above it, unit) of the charted break-even input."""
    be = cost.typed.break_even.get(cost.break_even_input) or {}
    return be.get("value"), be.get("above"), be.get("unit")



def checklist_stage(
    params: ReportParams,
    compare: CompareRecord | Mapping[str, Any] | None,
    cost: CostRecord | Mapping[str, Any] | None,
    fits: Sequence[Any],
    answers: AnswersDocument | None = None,
):
    """Evaluate the checklist with evidence from compare, cost and fits (their models, or the dicts the
    verbs print) in strict batch mode, with the answers read once (``inputs.answers``; read here when not
    given): what ``costmodel decide --json`` prints is ``Decision.to_dict()``."""
    from .. import checklist

    doc = _answers(params, answers)
    # the figures as published (docs/contracts.md), as `costmodel decide` reads them from fit.json and cost.json
    evidence = checklist.gather_evidence(compare=_published(compare), cost=_published(cost),
                                         fits=[_published(f) for f in fits])
    return checklist.evaluate(doc.answers, evidence, strict=True, source=str(params.answers))


def _published(result: Any) -> Any:
    """A result (a model, an object with ``to_dict``, or the dict a verb prints) as the JSON object its verb
    publishes: every float at its published precision (:mod:`costmodel.foundation.published`)."""
    from ..foundation.published import published
    from ..foundation.util import to_jsonable

    if result is None:
        return None
    if isinstance(result, Result):
        result = result.to_json_dict()
    elif not isinstance(result, Mapping) and callable(getattr(result, "to_dict", None)):
        result = result.to_dict()
    return published(to_jsonable(result))


def answers_meta(params: ReportParams, answers: AnswersDocument | None = None) -> dict[str, Any]:
    """The ``meta`` section of the answers file (title, decision-makers, ...), as written."""
    return _answers(params, answers).meta_dict


def report_title(params: ReportParams, answers: AnswersDocument | None = None) -> str:
    """The title: the parameter, else the answers file's ``meta.title``, else a generic title."""
    return params.title or _answers(params, answers).meta.title or DEFAULT_TITLE


def decision_record(
    inputs: Inputs,
    fits: Sequence[Any],
    compare: CompareRecord | Mapping[str, Any] | None,
    cost: CostStage | Mapping[str, Any] | None,
    decision: Any,
    params: ReportParams,
    base_dir: str | os.PathLike[str] | None = None,
    placement: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The contents of ``decision.json``: fit (list), compare, cost, checklist and verdict, and the
    inputs with their SHA-256; with ``placement`` (:func:`placement_stage`) a ``placement`` key too,
    what ``costmodel place --json`` prints for the file. Deterministic for the same inputs (no timestamps), and free of machine
    paths: every input path is relative to ``base_dir`` (default: the folder of ``params.decision_path``,
    else the current folder) or named inside the package (:mod:`costmodel.report.paths`)."""
    from .. import __version__
    from ..foundation.util import to_jsonable
    from .paths import path_map, record_base_dir, relocate

    cost_dict = cost.result if isinstance(cost, CostStage) else cost
    dec = decision.to_dict() if hasattr(decision, "to_dict") else dict(decision)
    record = to_jsonable(
        {
            "schema": DECISION_SCHEMA,
            "costmodel_version": __version__,
            "title": report_title(params, getattr(inputs, "answers", None)),
            "verdict": dec.get("verdict"),
            "inputs": {
                "files": [f.to_dict() for f in inputs.files],
                "parameters": params.recorded(),
            },
            "runs": [
                {
                    "run_id": r.run_id,
                    "role": r.role,
                    "format": r.format,
                    "source": r.source,
                    "rows": r.rows,
                    "predicted": bool(r.metadata.get("predicted", False)),
                }
                for r in inputs.runs
            ],
            "fit": _with_jobs(fit_dicts(fits), getattr(inputs, "jobs", [])),
            "fit_left_out": list(getattr(inputs, "fit_left_out", [])),
            "compare": _json(compare),
            "jobs": list(getattr(inputs, "jobs", [])),
            "cost": cost_dict,
            "checklist": dec,
            **({"placement": dict(placement)} if placement is not None else {}),
            # the one answer the page, the ADR and this record state (checklist.answer.one_answer)
            "recommendation": _one_answer(decision, cost_dict, placement),
        }
    )
    base = os.fspath(base_dir) if base_dir is not None else record_base_dir(params.decision_path)
    record = relocate(record, path_map(input_paths(inputs, params), base))
    # the record is checked against its contract before it is written (decision.json's schema)
    return DecisionRecord.model_validate(record).to_json_dict()


def input_paths(inputs: Inputs, params: ReportParams) -> list[str]:
    """Every local path the record may name: each input file and each run file or folder parameter (and the
    placement file with its folder, whose base scenario and measured runs it names relative to itself)."""
    from .paths import placement_paths

    return [*(f.path for f in inputs.files), *params.colocated, *params.remote, params.scenario, params.answers,
            *placement_paths(params.placement)]


def placement_stage(params: ReportParams) -> dict[str, Any] | None:
    """``costmodel place FILE --json`` for the ``placement`` parameter, None when none is given: the
    same function, so decision.json's ``placement`` holds the verb's figures."""
    if not params.placement:
        return None
    from .placement import placement_result

    return placement_result(params.placement)


def _one_answer(decision: Any, cost: Any, placement: Mapping[str, Any] | None) -> dict[str, Any]:
    from ..checklist.answer import one_answer

    return one_answer(decision, cost, placement)


#: The command named in the ADR as the one that wrote it.
ADR_PRODUCER = "costmodel report"


def _with_jobs(fits: list[dict[str, Any]], jobs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each fit dict with ``jobs`` (its job's summary, or []), as ``costmodel fit --json`` prints it."""
    by = {(j.get("role", ""), j["job_id"]): j for j in jobs}
    return [dict(f, jobs=[by[(f.get("role", ""), f.get("run_id"))]] if (f.get("role", ""), f.get("run_id")) in by else [])
            for f in fits]


def render_adr_text(
    decision: Any,
    record: Mapping[str, Any],
    params: ReportParams,
    report_link: str | None = "report.html",
    base_dir: str | os.PathLike[str] | None = None,
    answers: AnswersDocument | None = None,
) -> str:
    """The ADR (MADR Markdown, via :func:`costmodel.checklist.adr.render_adr`) for this report, drafted by
    ``costmodel report``. ``base_dir`` is the folder the ADR is written to: the input-file links are
    relative to it (None: the folder of ``params.adr_path``, else the paths as given)."""
    from ..checklist import adr
    from .paths import display_path, local_path, record_base_dir

    doc = _answers(params, answers)  # meta validated as `decide` validates it (a bad people list is an error)
    if base_dir is None and params.adr_path:
        base_dir = os.path.dirname(os.path.abspath(params.adr_path))
    record_base = record_base_dir(params.decision_path)
    inputs = []
    for f in record["inputs"]["files"]:  # (role, the file, the name shown: relative to the ADR's folder, SHA-256)
        real = local_path(f["path"], record_base)  # the SHA-256 is the record's: hashed as the ingest read the bytes
        inputs.append((f["role"], real, display_path(real, base_dir if base_dir is not None else record_base),
                       f.get("sha256")))
    return adr.render_adr(
        decision,
        title=report_title(params, doc),
        date=params.date or None,
        report_link=report_link,
        inputs=inputs,
        compare=record.get("compare"),
        cost=record.get("cost"),
        placement=record.get("placement"),
        decision_makers=doc.meta.decision_makers,
        consulted=doc.meta.consulted,
        informed=doc.meta.informed,
        base_dir=base_dir,
        producer=ADR_PRODUCER,
    )


def write_outputs(record: Mapping[str, Any], decision: Any, params: ReportParams,
                  answers: AnswersDocument | None = None) -> list[str]:
    """Write ``decision.json`` and the ADR where the parameters say (atomically); returns the paths."""
    from ..foundation.util import dumps, write_text_atomic

    written = []
    if params.decision_path:
        write_text_atomic(params.decision_path, dumps(record) + "\n")
        written.append(params.decision_path)
    if params.adr_path:
        write_text_atomic(params.adr_path, render_adr_text(decision, record, params, answers=answers))
        written.append(params.adr_path)
    return written
