"""The rendered report: notebook parameters, the report's stages, and ``costmodel report``.

Three layers, each usable alone:

* **Parameters** (:data:`PARAMETERS`, :func:`validate_parameters`): the report notebook's
  ``parameters`` cell mirrors :data:`PARAMETERS`; the cell after papermill's injection calls
  :func:`validate_parameters` so an unknown or wrongly typed parameter stops the run with a clear
  :class:`~costmodel.errors.ReportError`. Values are data: nothing is ever evaluated.
* **Stages** (:func:`load_inputs`, :func:`fit_runs`, :func:`compare_runs`, :func:`cost_stage`,
  :func:`checklist_stage`, :func:`decision_record`, :func:`write_outputs`): plain functions the
  notebook calls one per section; they call the package's ingest, warm-up, cost, checklist and ADR
  functions exactly as the CLI verbs do, so ``decision.json`` matches what ``costmodel fit``,
  ``compare``, ``cost`` and ``decide`` print for the same inputs.
* **Rendering** (:func:`render_report`): papermill executes ``notebooks/report.ipynb`` into a
  temporary folder beside the output folder, nbconvert exports the HTML in-process with inputs
  hidden and no external script, and the folder is renamed into place only when everything
  succeeded (never a half-written output folder).
"""
from __future__ import annotations

import contextlib
import dataclasses
import difflib
import html
import json
import math
import os
import re
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .errors import CostmodelError, ReportError

#: The repository (or source tree) root: relative default paths are tried here after the cwd.
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
#: The report notebook shipped with the repository.
REPORT_NOTEBOOK = PACKAGE_ROOT / "notebooks" / "report.ipynb"
#: Schema tag written into decision.json.
DECISION_SCHEMA = "costmodel.decision/1"
#: Names the report notebook itself binds (not parameters); the notebook test checks this list.
NOTEBOOK_NAMES = frozenset(
    {"P", "inputs", "fits", "cmp", "cost", "decision", "record", "written", "report", "charts"}
)
#: Output files of ``costmodel report``.
OUTPUT_FILES = ("report.ipynb", "report.html", "decision.json", "adr.md")


# --------------------------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """One notebook parameter: kind (``paths``, ``path``, ``str``, ``float``, ``int``), default, help."""

    kind: str
    default: Any
    help: str


PARAMETERS: dict[str, Param] = {
    "colocated": Param("paths", ["data/examples/colocated_steps.csv"], "co-located run files (list; relative to the cwd or the repository)"),
    "remote": Param("paths", ["data/examples/remote_steps.csv"], "remote (cross-region) run files (list)"),
    "scenario": Param("path", "data/examples/scenario.yaml", "cost scenario YAML"),
    "answers": Param("path", "data/examples/answers.yaml", "checklist answers YAML"),
    "metric": Param("str", "", "throughput column to analyse ('' = the warm-up analysis default)"),
    "margin": Param("float", 0.02, "equivalence margin of the comparison (fraction, 0 < margin < 0.5)"),
    "monte_carlo_n": Param("int", 2000, "Monte Carlo draws (0 = skip)"),
    "seed": Param("int", 0, "Monte Carlo seed"),
    "title": Param("str", "", "report and ADR title ('' = the answers file's meta.title or a generic title)"),
    "date": Param("str", "", "ADR date YYYY-MM-DD ('' = today, UTC)"),
    "decision_path": Param("str", "", "write decision.json here ('' = do not write)"),
    "adr_path": Param("str", "", "write the ADR Markdown here ('' = do not write)"),
}

DEFAULT_TITLE = "Cross-region training with a cache, replication or waiting"


@dataclass(frozen=True)
class ReportParams:
    """Validated report parameters (paths resolved to absolute paths)."""

    colocated: tuple[str, ...]
    remote: tuple[str, ...]
    scenario: str
    answers: str
    metric: str = ""
    margin: float = 0.02
    monte_carlo_n: int = 2000
    seed: int = 0
    title: str = ""
    date: str = ""
    decision_path: str = ""
    adr_path: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["colocated"] = list(self.colocated)
        d["remote"] = list(self.remote)
        return d


def _user_names(namespace: Mapping[str, Any]) -> dict[str, Any]:
    """Names a user (or papermill) bound in an IPython namespace: not hidden, not private, data only."""
    hidden: Mapping[str, Any] = {}
    with contextlib.suppress(Exception):
        from IPython import get_ipython

        ip = get_ipython()
        if ip is not None and ip.user_ns is namespace:
            hidden = ip.user_ns_hidden
    import types

    out = {}
    for k, v in namespace.items():
        if k.startswith("_") or k in hidden or k in ("In", "Out", "get_ipython", "exit", "quit", "open"):
            continue
        if isinstance(v, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type)):
            continue
        if k in NOTEBOOK_NAMES:
            continue
        out[k] = v
    return out


def validate_parameters(namespace: Mapping[str, Any] | None = None, **values: Any) -> ReportParams:
    """Check the report parameters and return them typed, with input paths resolved.

    ``namespace`` is the notebook's ``globals()`` (every data name bound there must be a known
    parameter), or pass ``values`` as keywords. Missing parameters take their defaults. Raises
    :class:`ReportError` naming the parameter, the value received and what was expected: unknown
    names (with the closest known one), wrong types, out-of-range numbers, input files not found.
    Values are never evaluated (a string stays a string).
    """
    given = dict(_user_names(namespace) if namespace is not None else {})
    given.update(values)
    unknown = [k for k in given if k not in PARAMETERS]
    if unknown:
        k = sorted(unknown)[0]
        close = difflib.get_close_matches(k, PARAMETERS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ReportError(
            f"unknown report parameter {k!r}{hint}; known parameters: {', '.join(PARAMETERS)}"
        )
    out: dict[str, Any] = {}
    for name, spec in PARAMETERS.items():
        value = given.get(name, spec.default)
        out[name] = _coerce(name, spec, value)
    if not (0.0 < out["margin"] < 0.5):
        raise ReportError(f"parameter 'margin': expected a fraction with 0 < margin < 0.5, got {out['margin']!r}")
    if not (0 <= out["monte_carlo_n"] <= 1_000_000):
        raise ReportError(f"parameter 'monte_carlo_n': expected 0..1000000 draws, got {out['monte_carlo_n']!r}")
    if out["seed"] < 0:
        raise ReportError(f"parameter 'seed': expected an integer >= 0, got {out['seed']!r}")
    if out["date"] and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", out["date"]):
        raise ReportError(f"parameter 'date': expected YYYY-MM-DD or '', got {out['date']!r}")
    if not out["colocated"] and not out["remote"]:
        raise ReportError("parameters 'colocated' and 'remote': expected at least one run file")
    out["colocated"] = tuple(str(resolve_path(p, "colocated")) for p in out["colocated"])
    out["remote"] = tuple(str(resolve_path(p, "remote")) for p in out["remote"])
    out["scenario"] = str(resolve_path(out["scenario"], "scenario"))
    out["answers"] = str(resolve_path(out["answers"], "answers"))
    return ReportParams(**out)


def _coerce(name: str, spec: Param, value: Any) -> Any:
    def bad(expected: str) -> ReportError:
        return ReportError(
            f"parameter {name!r}: expected {expected}, got {type(value).__name__} {value!r}"
        )

    if spec.kind == "paths":
        if isinstance(value, (str, os.PathLike)):
            value = [value]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, (str, os.PathLike)) for v in value):
            raise bad("a list of file paths (strings)")
        return tuple(os.fspath(v) for v in value)
    if spec.kind == "path":
        if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
            raise bad("a file path (a non-empty string)")
        return os.fspath(value)
    if spec.kind == "str":
        if not isinstance(value, str):
            raise bad("a string")
        return value
    if spec.kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
            raise bad("a finite number")
        return float(value)
    if spec.kind == "int":
        if isinstance(value, bool):
            raise bad("an integer")
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if not isinstance(value, int):
            raise bad("an integer")
        return int(value)
    raise ReportError(f"parameter {name!r}: unknown kind {spec.kind!r}")  # pragma: no cover


def resolve_path(path: str | os.PathLike[str], what: str = "input") -> Path:
    """An input path made absolute: as given when absolute; else the first that exists of
    ``cwd/path`` and ``<repository>/path`` (papermill may run the kernel in another folder).
    Raises :class:`ReportError` naming the places tried when none exists."""
    p = Path(os.fspath(path)).expanduser()
    if p.is_absolute():
        candidates = [p]
    else:
        candidates = [Path.cwd() / p, PACKAGE_ROOT / p]
    for c in candidates:
        if c.is_file():
            return c.resolve()
    tried = ", ".join(dict.fromkeys(str(c) for c in candidates))
    raise ReportError(f"parameter {what!r}: file {os.fspath(path)!r} not found (tried {tried})")


# --------------------------------------------------------------------------------------------
# Stages
# --------------------------------------------------------------------------------------------


@dataclass
class InputFile:
    """One input file with its provenance."""

    role: str
    path: str
    sha256: str
    size_bytes: int
    format: str = ""
    run_ids: list[str] = field(default_factory=list)
    predicted: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class Inputs:
    """The runs of both sides and every input file's provenance."""

    colocated: list[Any]
    remote: list[Any]
    files: list[InputFile]
    warnings: list[str] = field(default_factory=list)

    @property
    def runs(self) -> list[Any]:
        return [*self.colocated, *self.remote]

    def table(self):  # -> pandas.DataFrame
        """One row per input file: role, file name, format, runs, rows, predicted, SHA-256."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "role": f.role,
                    "file": Path(f.path).name,
                    "format": f.format,
                    "runs": ", ".join(f.run_ids),
                    "kind": "predicted" if f.predicted else "measured",
                    "bytes": f.size_bytes,
                    "sha256": f.sha256,
                }
                for f in self.files
            ]
        )


def load_inputs(params: ReportParams) -> Inputs:
    """Ingest each side's files as ``costmodel compare`` does (``ingest.load`` per file with the side's
    role, run ids made unique within the side like ``load_many``) and hash every input file.
    Raises IngestError for an unreadable input."""
    from .ingest import IngestOptions, load
    from .util import sha256_file

    sides: dict[str, list[Any]] = {"colocated": [], "remote": []}
    per_file: list[tuple[str, str, list[Any]]] = []
    warnings: list[str] = []
    for role in ("colocated", "remote"):
        opts = IngestOptions(role=role)
        for path in getattr(params, role):
            runs = load(path, opts)
            sides[role].extend(runs)
            per_file.append((role, path, runs))
        _unique_run_ids(sides[role])  # as ingest.load_many does for one `compare` side
        rejected = [x for r in sides[role] for x in r.rejected]
        warnings += [f"{role}: {w}" for r in sides[role] for w in r.warnings]
        warnings += [f"{role}: rejected row {x}" for x in rejected[:10]]
    files = [
        InputFile(
            role=role,
            path=path,
            sha256=sha256_file(path),
            size_bytes=os.path.getsize(path),
            format=",".join(sorted({r.format for r in runs})),
            run_ids=[r.run_id for r in runs],
            predicted=any(bool(r.metadata.get("predicted")) for r in runs),
        )
        for role, path, runs in per_file
    ]
    for role, path in (("scenario", params.scenario), ("answers", params.answers)):
        files.append(InputFile(role=role, path=path, sha256=sha256_file(path), size_bytes=os.path.getsize(path)))
    return Inputs(colocated=sides["colocated"], remote=sides["remote"], files=files, warnings=warnings)


def _unique_run_ids(runs: Sequence[Any]) -> None:
    """Suffix repeated run ids ``#2``, ``#3``... in place, exactly as ``ingest.load_many`` does."""
    seen: dict[str, int] = {}
    for r in runs:
        n = seen.get(r.run_id, 0) + 1
        seen[r.run_id] = n
        if n > 1:
            r.run_id = f"{r.run_id}#{n}"
            r.table["run_id"] = r.run_id


def fit_runs(inputs: Inputs, params: ReportParams) -> list[Any]:
    """``warmup.analyze`` on every run, co-located first (FitResults; ``[f.to_dict() for f in ...]``
    is the list ``costmodel fit --json`` prints)."""
    from . import warmup

    metric = params.metric or None
    return [warmup.analyze(r, metric=metric) for r in inputs.runs]


def fit_dicts(fits: Sequence[Any]) -> list[dict[str, Any]]:
    """FitResults (or dicts) as JSON-able dicts."""
    from .util import to_jsonable

    return [to_jsonable(f.to_dict() if hasattr(f, "to_dict") else dict(f)) for f in fits]


def compare_runs(inputs: Inputs, params: ReportParams, fits: Sequence[Any] | None = None) -> dict[str, Any] | None:
    """``warmup.compare`` of the co-located and remote runs, reusing ``fits`` when given (None when a
    side has no run): the dict ``costmodel compare --json`` prints."""
    from . import warmup
    from .util import to_jsonable

    if not inputs.colocated or not inputs.remote:
        return None
    n = len(inputs.colocated)
    if fits is not None and len(fits) == len(inputs.runs) and all(hasattr(f, "steady_mean") for f in fits):
        colo, rem = list(fits[:n]), list(fits[n:])
    else:
        colo, rem = inputs.colocated, inputs.remote
    res = warmup.compare(colo, rem, metric=params.metric or None, margin=params.margin)
    return to_jsonable(res.to_dict())


@dataclass
class CostStage:
    """The cost stage: the scenario (with measurements applied), the ``costmodel cost --json`` dict,
    the Monte Carlo draws and a break-even curve to draw."""

    scenario: Any
    result: dict[str, Any]
    mc_samples: Any = None  # DataFrame, one column of totals (USD) per option, or None
    break_even_input: str = ""
    break_even_curve: Any = None  # DataFrame (value, option, total_usd)

    @property
    def tornado(self) -> list[dict[str, Any]]:
        return list(self.result.get("sensitivity") or [])


#: Inputs tried in order for the break-even chart (the first with a finite break-even wins).
BREAK_EVEN_CHART_INPUTS = (
    "training.runs_per_month",
    "training.epochs_per_run",
    "cache.steady_hit_ratio",
    "link.transfer_usd_per_gb",
    "dataset.size_gb",
)


def cost_stage(params: ReportParams, compare: Mapping[str, Any] | None, curve_points: int = 41) -> CostStage:
    """Load the scenario, apply the measured comparison (``--from-compare``) and analyse it with
    :func:`costmodel.cost.analyze`: ``result`` is what ``costmodel cost S.yaml --from-compare
    compare.json [--monte-carlo N --seed S] --json`` prints. Adds the Monte Carlo draws and each
    option's total along one input for the break-even chart."""
    import numpy as np
    import pandas as pd

    from . import cost as cm
    from .util import to_jsonable

    scen = cm.load_scenario(params.scenario)
    if compare:
        scen = cm.apply_measurements(scen, compare=compare, source="compare")
    result = to_jsonable(cm.analyze(scen, monte_carlo_n=params.monte_carlo_n, seed=params.seed))
    samples = None
    if params.monte_carlo_n:
        mc = cm.monte_carlo(scen, params.monte_carlo_n, params.seed)
        samples = pd.DataFrame({k: np.asarray(v, dtype=float) for k, v in mc.totals.items()})
    key = _break_even_key(result.get("break_even") or {})
    curve = _total_curve(scen, key, (result.get("break_even") or {}).get(key, {}), curve_points) if key else None
    return CostStage(scenario=scen, result=result, mc_samples=samples, break_even_input=key, break_even_curve=curve)


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

    from .cost.evaluate import model_inputs
    from .cost.model import OPTIONS, totals
    from .cost.spec import PARAM_BY_KEY

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
        rows += [{"value": float(x), "option": o, "total_usd": float(y)} for x, y in zip(xs, vals)]
    return pd.DataFrame(rows)


def break_even_point(cost: CostStage) -> tuple[float | None, str | None, str | None]:
    """(value, option cheaper above it, unit) of the charted break-even input."""
    be = (cost.result.get("break_even") or {}).get(cost.break_even_input) or {}
    return be.get("value"), be.get("above"), be.get("unit")


def break_even_table(result: Mapping[str, Any]):  # -> DataFrame
    """One row per input: current value, break-even value (or never), the option cheaper above."""
    import pandas as pd

    rows = []
    for k, v in (result.get("break_even") or {}).items():
        rows.append(
            {
                "input": k,
                "unit": v.get("unit"),
                "current": v.get("current"),
                "break-even": "never" if v.get("never") else v.get("value"),
                "cheaper above": v.get("above") or "-",
                "cheaper now": v.get("winner_now"),
                "method": v.get("method"),
            }
        )
    return pd.DataFrame(rows)


def monte_carlo_table(result: Mapping[str, Any]):  # -> DataFrame
    """One row per option: probability of being cheapest and P5/P50/P95 of its total (USD)."""
    import pandas as pd

    mc = result.get("monte_carlo")
    if not mc:
        return pd.DataFrame({"Monte Carlo": ["not run (monte_carlo_n = 0)"]})
    return pd.DataFrame(
        [
            {
                "option": o,
                "P(cheapest)": mc["p_cheapest"].get(o),
                "P5 (USD)": mc["p5"].get(o),
                "P50 (USD)": mc["p50"].get(o),
                "P95 (USD)": mc["p95"].get(o),
            }
            for o in mc.get("p_cheapest", {})
        ]
    )


def checklist_stage(
    params: ReportParams,
    compare: Mapping[str, Any] | None,
    cost: Mapping[str, Any] | None,
    fits: Sequence[Mapping[str, Any]],
):
    """Read the answers and evaluate the checklist with evidence from compare, cost and fits
    (strict batch mode): what ``costmodel decide --json`` prints is ``Decision.to_dict()``."""
    from . import checklist

    answers, _meta = checklist.read_answers_file(params.answers)
    evidence = checklist.gather_evidence(compare=compare, cost=cost, fits=fit_dicts(fits))
    return checklist.evaluate(answers, evidence, strict=True)


def answers_meta(params: ReportParams) -> dict[str, Any]:
    """The ``meta`` section of the answers file (title, decision-makers, ...)."""
    from . import checklist

    _answers, meta = checklist.read_answers_file(params.answers)
    return dict(meta or {})


def report_title(params: ReportParams) -> str:
    """The title: the parameter, else the answers file's ``meta.title``, else a generic title."""
    return params.title or str(answers_meta(params).get("title") or DEFAULT_TITLE)


def decision_record(
    inputs: Inputs,
    fits: Sequence[Mapping[str, Any]],
    compare: Mapping[str, Any] | None,
    cost: CostStage | Mapping[str, Any] | None,
    decision: Any,
    params: ReportParams,
) -> dict[str, Any]:
    """The contents of ``decision.json``: fit (list), compare, cost, checklist and verdict, and the
    inputs with their SHA-256. Deterministic for the same inputs (no timestamps)."""
    from . import __version__
    from .util import to_jsonable

    cost_dict = cost.result if isinstance(cost, CostStage) else cost
    dec = decision.to_dict() if hasattr(decision, "to_dict") else dict(decision)
    return to_jsonable(
        {
            "schema": DECISION_SCHEMA,
            "costmodel_version": __version__,
            "title": report_title(params),
            "verdict": dec.get("verdict"),
            "inputs": {
                "files": [f.to_dict() for f in inputs.files],
                "parameters": {k: v for k, v in params.to_dict().items() if k not in ("decision_path", "adr_path")},
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
            "fit": fit_dicts(fits),
            "compare": compare,
            "cost": cost_dict,
            "checklist": dec,
        }
    )


def render_adr_text(decision: Any, record: Mapping[str, Any], params: ReportParams, report_link: str | None = "report.html") -> str:
    """The ADR (MADR Markdown, via :func:`costmodel.adr.render_adr`) for this report."""
    from . import adr

    meta = answers_meta(params)

    def people(key: str) -> list[str]:
        v = meta.get(key, meta.get(key.replace("-", "_"), []))
        if isinstance(v, str):
            return [v]
        return [str(x) for x in v] if isinstance(v, list) else []

    inputs = [(f["role"], f["path"]) for f in record["inputs"]["files"]]
    return adr.render_adr(
        decision,
        title=report_title(params),
        date=params.date or None,
        report_link=report_link,
        inputs=inputs,
        compare=record.get("compare"),
        cost=record.get("cost"),
        decision_makers=people("decision-makers"),
        consulted=people("consulted"),
        informed=people("informed"),
    )


def write_outputs(record: Mapping[str, Any], decision: Any, params: ReportParams) -> list[str]:
    """Write ``decision.json`` and the ADR where the parameters say (atomically); returns the paths."""
    from .util import dumps, write_text_atomic

    written = []
    if params.decision_path:
        write_text_atomic(params.decision_path, dumps(record) + "\n")
        written.append(params.decision_path)
    if params.adr_path:
        write_text_atomic(params.adr_path, render_adr_text(decision, record, params))
        written.append(params.adr_path)
    return written


# --------------------------------------------------------------------------------------------
# Display helpers (notebook): every string from an input is escaped
# --------------------------------------------------------------------------------------------


class _HTML:
    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_html_(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return re.sub(r"<[^>]+>", "", self.text)[:2000]


def html_table(df: Any, caption: str = "", max_rows: int = 200) -> _HTML:
    """An escaped HTML table of a DataFrame (pandas escapes cell text; the caption is escaped here)."""
    cap = f"<p><b>{html.escape(caption)}</b></p>" if caption else ""
    body = df.head(max_rows).to_html(
        index=False, escape=True, na_rep="-", border=0, classes="cm-table", float_format=_fmt_float
    )
    more = f"<p>({len(df) - max_rows} more rows not shown)</p>" if len(df) > max_rows else ""
    return _HTML(cap + body + more)


def _fmt_float(x: float) -> str:
    """Six significant digits, thousands separated: readable tables, no float noise."""
    if not math.isfinite(x):
        return "-"
    return f"{x:,.0f}" if abs(x) >= 1e6 else f"{x:,.6g}"


def html_text(text: str, tag: str = "p") -> _HTML:
    """A paragraph (or heading) of escaped text."""
    if tag not in ("p", "h3", "h4", "pre", "b"):
        raise ReportError(f"html_text: tag {tag!r} not allowed")
    return _HTML(f"<{tag}>{html.escape(str(text))}</{tag}>")


def show(*objs: Any) -> None:
    """Display objects in the notebook (no-op outside IPython)."""
    with contextlib.suppress(ImportError):
        from IPython.display import display

        for o in objs:
            display(o)


def fit_table(fits: Sequence[Any], runs: Sequence[Any] = ()):  # -> DataFrame
    """One row per fit: run, classification, warm-up end (step, s), steady mean and CI, curve, lost_s."""
    import pandas as pd

    fits = fit_dicts(fits)
    pred = {r.run_id: bool(r.metadata.get("predicted", False)) for r in runs}
    rows = []
    for f in fits:
        curve = f.get("curve") or {}
        rid = str(f.get("run_id"))
        rows.append(
            {
                "run": rid + (" (predicted)" if pred.get(rid) else ""),
                "metric": f.get("metric"),
                "classification": f.get("classification"),
                "warm-up end (step)": f.get("warmup_end_step"),
                "warm-up end (s)": f.get("warmup_end_t_s"),
                "steady mean": f.get("steady_mean"),
                "95 % CI low": f.get("steady_ci_low"),
                "95 % CI high": f.get("steady_ci_high"),
                "steady CV": f.get("steady_cv"),
                "curve": curve.get("model"),
                "tau (steps)": curve.get("tau_steps"),
                "r2": curve.get("r2"),
                "lost (cluster-s)": f.get("lost_s"),
            }
        )
    return pd.DataFrame(rows)


def compare_table(compare: Mapping[str, Any] | None):  # -> DataFrame
    """The comparison's headline figures as (quantity, value) rows."""
    import pandas as pd

    if not compare:
        return pd.DataFrame({"quantity": ["comparison"], "value": ["not available (a side has no run)"]})
    keys = [
        ("ratio", "remote / co-located steady state"),
        ("ratio_ci_low", "ratio 95 % CI low"),
        ("ratio_ci_high", "ratio 95 % CI high"),
        ("equivalent", "equivalent (TOST)"),
        ("margin", "equivalence margin (fraction)"),
        ("remote_extra_warmup_s", "remote extra warm-up (s)"),
        ("remote_lost_s", "remote lost cluster-seconds (s)"),
    ]
    return pd.DataFrame([{"quantity": label, "value": _fmt_value(compare.get(k))} for k, label in keys])


def cost_table(cost: Mapping[str, Any]):  # -> DataFrame
    """One row per option: total and per-month USD, then each term."""
    import pandas as pd

    rows = []
    for name, opt in (cost.get("options") or {}).items():
        row = {"option": name, "total (USD)": opt.get("total_usd"), "per month (USD)": opt.get("per_month_usd")}
        for term, val in (opt.get("terms") or {}).items():
            row[term] = val.get("total_usd") if isinstance(val, Mapping) else val
        rows.append(row)
    return pd.DataFrame(rows)


def _fmt_value(v: Any) -> Any:
    if isinstance(v, float):
        return f"{v:.4g}"
    return v


def verdict_html(decision: Any) -> _HTML:
    """The verdict, its blockers and conditions, escaped."""
    d = decision.to_dict() if hasattr(decision, "to_dict") else dict(decision)
    colour = {"GO": "#2ca02c", "CONDITIONAL": "#ff9900", "NO_GO": "#d62728"}.get(d.get("verdict"), "#777")
    parts = [
        f'<p style="font-size:1.4em"><b>Verdict: <span style="color:{colour}">'
        f"{html.escape(str(d.get('verdict')))}</span></b></p>"
    ]
    for label, key, fmt in (
        ("Blockers", "blockers", lambda b: f"{b.get('id')}: {b.get('reason')}"),
        ("Conditions", "conditions", lambda c: f"{c.get('id')} ({c.get('severity')}, {c.get('answer')}): {c.get('condition')}"),
    ):
        if d.get(key):
            parts.append(f"<p><b>{label}</b></p><ul>")
            parts.extend(f"<li>{html.escape(str(fmt(x)))}</li>" for x in d[key])
            parts.append("</ul>")
    return _HTML("".join(parts))


# --------------------------------------------------------------------------------------------
# Rendering: papermill, in-process HTML export, atomic output folder
# --------------------------------------------------------------------------------------------

_TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block extra_css -%}
<style type="text/css">
.cm-table { border-collapse: collapse; font-size: 12px; margin: 4px 0 12px 0; }
.cm-table th, .cm-table td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top;
  max-width: 30em; overflow-wrap: anywhere; }
.jp-RenderedSVG svg { max-width: 100%; height: auto; }
@media print {
  .jp-Cell { break-inside: avoid; }
  .jp-OutputArea-output { overflow: visible !important; }
}
</style>
{%- endblock extra_css -%}
{% block data_svg scoped -%}
<div class="jp-RenderedSVG jp-OutputArea-output {{ extra_class }}" data-mime-type="image/svg+xml">
{{ output.data['image/svg+xml'] }}
</div>
{%- endblock data_svg %}
"""

_EXTERNAL_RE = re.compile(
    r"""<(?:script|link|img|iframe|embed|object|source)\b[^>]*?\b(?:src|href|data)\s*=\s*["']?\s*(?:https?:)?//""",
    re.IGNORECASE,
)
_CSS_IMPORT_RE = re.compile(r"""@import\s+(?:url\()?\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//""", re.IGNORECASE)


def external_references(text: str) -> list[str]:
    """Every place in an HTML page that would load something from the network (scripts, styles,
    images, frames, CSS imports). Empty for a self-contained page."""
    found = [m.group(0) for m in _EXTERNAL_RE.finditer(text)]
    found += [m.group(0) for m in _CSS_IMPORT_RE.finditer(text)]
    return found


_exporter_lock = threading.Lock()
_exporter: Any = None


def html_exporter():  # -> nbconvert.HTMLExporter
    """The offline HTML exporter (built once per process): lab template, inputs and prompts
    hidden, no require.js / MathJax / widget / mermaid scripts, SVG inlined."""
    global _exporter
    with _exporter_lock:
        if _exporter is None:
            from .charts import lean_imports

            with lean_imports():
                from nbconvert import HTMLExporter

            _exporter = HTMLExporter(
                template_name="lab",
                raw_template=_TEMPLATE,
                exclude_input=True,
                exclude_input_prompt=True,
                exclude_output_prompt=True,
                embed_images=True,
            )
        return _exporter


def export_html(nb: Any) -> str:
    """The executed notebook as one self-contained HTML page. Raises :class:`ReportError` when the
    page would load anything from the network."""
    body, _resources = html_exporter().from_notebook_node(nb)
    ext = external_references(body)
    if ext:
        raise ReportError(f"the exported HTML would load {len(ext)} resource(s) from the network, e.g. {ext[0][:120]!r}")
    return body


def _stage_engine(progress: Callable[[str], None] | None):  # -> papermill engine class
    from papermill.engines import NBClientEngine

    class StageEngine(NBClientEngine):
        """papermill's nbclient engine, printing one progress line per notebook stage."""

        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):  # noqa: ANN001, ANN206
            orig = nb_man.cell_start

            def cell_start(cell, cell_index=None, **kw):  # noqa: ANN001, ANN202
                stage = (cell.get("metadata", {}).get("costmodel") or {}).get("stage")
                if stage and progress is not None:
                    progress(f"report: {stage}")
                return orig(cell, cell_index, **kw)

            nb_man.cell_start = cell_start
            return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)

    return StageEngine


def _import_papermill() -> None:
    from .charts import lean_imports

    with lean_imports():
        import papermill  # noqa: F401
        import papermill.engines  # noqa: F401


def execute_notebook(
    notebook: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    parameters: Mapping[str, Any],
    progress: Callable[[str], None] | None = None,
    cwd: str | os.PathLike[str] | None = None,
):  # -> NotebookNode
    """Run ``notebook`` with papermill (kernel ``python3``, i.e. this Python) and save it to
    ``output_path``. A failing cell becomes a :class:`ReportError` with the cell's error."""
    from .charts import lean_imports

    with lean_imports():
        import papermill as pm
        from papermill.engines import papermill_engines
        from papermill.exceptions import PapermillExecutionError

    name = f"costmodel-stages-{id(progress)}"
    papermill_engines.register(name, _stage_engine(progress))
    try:
        return pm.execute_notebook(
            str(notebook),
            str(output_path),
            parameters=dict(parameters),
            engine_name=name,
            kernel_name="python3",
            progress_bar=False,
            request_save_on_cell_execute=False,
            cwd=str(cwd) if cwd else None,
            extra_arguments=["--IPKernelApp.log_level=ERROR"],  # no transport warning on the user's terminal
        )
    except PapermillExecutionError as exc:
        msg = str(exc.evalue).replace("\n", " ").strip()
        raise ReportError(f"the report notebook stopped at cell {exc.exec_count}: {exc.ename}: {msg}") from None
    finally:
        papermill_engines._engines.pop(name, None)


@dataclass
class ReportResult:
    """What ``costmodel report`` wrote."""

    out_dir: str
    files: dict[str, str]
    verdict: str | None
    title: str

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def check_output_dir(out_dir: str | os.PathLike[str], force: bool, inputs: Sequence[str] = ()) -> Path:
    """The output folder, checked before anything runs.

    Refused: a file; an existing non-empty folder without ``force``; with ``force``, a folder holding
    anything but a previous report's files (``force`` replaces a report, never a folder of other
    files); the current folder or one above it; a folder that contains an input file.
    """
    d = Path(out_dir)
    if d.exists() and not d.is_dir():
        raise ReportError(f"output {d} exists and is not a folder")
    full = d.resolve()
    cwd = Path.cwd().resolve()
    if full == cwd or full in cwd.parents:
        raise ReportError(f"output folder {d} is the current folder or above it; name a new folder, e.g. -o reports")
    for path in inputs:
        if full in Path(path).resolve().parents:
            raise ReportError(f"output folder {d} contains the input {path}; write the report elsewhere")
    if d.is_dir():
        entries = sorted(p.name for p in d.iterdir())
        if entries and not force:
            raise ReportError(f"output folder {d} exists and is not empty; pass --force to replace it")
        foreign = [e for e in entries if e not in OUTPUT_FILES]
        if foreign:
            shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
            raise ReportError(
                f"output folder {d} holds files that are not part of a report ({shown}); "
                "--force only replaces a previous report: choose another folder"
            )
    return d


def render_report(
    colocated: Sequence[str | os.PathLike[str]],
    remote: Sequence[str | os.PathLike[str]],
    scenario: str | os.PathLike[str],
    answers: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    force: bool = False,
    notebook: str | os.PathLike[str] | None = None,
    progress: Callable[[str], None] | None = None,
    **options: Any,
) -> ReportResult:
    """Execute the report notebook and write ``out_dir/{report.ipynb, report.html, decision.json,
    adr.md}``.

    The folder is built in a temporary folder beside ``out_dir`` and renamed into place only when
    every file is written; on any failure nothing is left behind and an existing ``out_dir`` is
    untouched. ``options`` are further notebook parameters (``metric``, ``margin``,
    ``monte_carlo_n``, ``seed``, ``title``, ``date``). Raises :class:`ReportError` (or the
    package error of the stage that failed) for bad input.
    """
    say = progress or (lambda _m: None)
    values = {
        "colocated": [os.fspath(p) for p in colocated],
        "remote": [os.fspath(p) for p in remote],
        "scenario": os.fspath(scenario),
        "answers": os.fspath(answers),
        **options,
    }
    params = validate_parameters(**values)
    dest = check_output_dir(out_dir, force, [*params.colocated, *params.remote, params.scenario, params.answers]).resolve()
    nb_path = Path(notebook) if notebook else REPORT_NOTEBOOK
    if not nb_path.is_file():
        raise ReportError(f"report notebook {nb_path} not found")
    say("report: inputs checked")

    _import_papermill()  # first, in this thread: concurrent imports of shared modules can deadlock
    warm = threading.Thread(target=html_exporter, daemon=True)  # import nbconvert while the kernel runs
    warm.start()
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
    except OSError as exc:
        raise ReportError(f"cannot create the output folder beside {dest}: {exc.strerror or exc}") from None
    try:
        nb_params = {k: v for k, v in params.to_dict().items()}
        nb_params["decision_path"] = str(tmp / "decision.json")
        nb_params["adr_path"] = str(tmp / "adr.md")
        nb = execute_notebook(nb_path, tmp / "report.ipynb", nb_params, progress=say, cwd=PACKAGE_ROOT)
        say("report: exporting HTML (inputs hidden, offline)")
        warm.join()
        nb.metadata["title"] = report_title(params)
        page = export_html(nb)
        (tmp / "report.html").write_text(page, encoding="utf-8")
        for name in OUTPUT_FILES:
            if not (tmp / name).is_file():
                raise ReportError(f"the report notebook did not write {name}")
        record = json.loads((tmp / "decision.json").read_text(encoding="utf-8"))
        _usual_permissions(tmp)
        _swap_into_place(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    say(f"report: wrote {dest}")
    return ReportResult(
        out_dir=str(dest),
        files={name: str(dest / name) for name in OUTPUT_FILES},
        verdict=record.get("verdict"),
        title=str(record.get("title", "")),
    )


def _usual_permissions(folder: Path) -> None:
    """mkdtemp/mkstemp create private (0700/0600) entries: give the output the umask's usual modes."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(folder, 0o777 & ~umask)
    for f in folder.iterdir():
        os.chmod(f, 0o666 & ~umask)


def _swap_into_place(tmp: Path, dest: Path) -> None:
    """Rename ``tmp`` onto ``dest``; an existing ``dest`` is moved aside first and removed after."""
    old = None
    if dest.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old.", dir=dest.parent))
        os.rmdir(old)
        os.replace(dest, old)
    try:
        os.replace(tmp, dest)
    except BaseException:
        if old is not None:
            os.replace(old, dest)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


__all__ = [
    "PARAMETERS",
    "Param",
    "ReportParams",
    "validate_parameters",
    "resolve_path",
    "Inputs",
    "InputFile",
    "load_inputs",
    "fit_runs",
    "fit_dicts",
    "compare_runs",
    "break_even_point",
    "break_even_table",
    "monte_carlo_table",
    "CostStage",
    "cost_stage",
    "checklist_stage",
    "decision_record",
    "render_adr_text",
    "write_outputs",
    "html_table",
    "html_text",
    "fit_table",
    "compare_table",
    "cost_table",
    "verdict_html",
    "external_references",
    "export_html",
    "execute_notebook",
    "render_report",
    "ReportResult",
    "check_output_dir",
    "CostmodelError",
]
