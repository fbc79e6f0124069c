"""Report parameters: the notebook's ``parameters`` cell mirrors :data:`PARAMETERS`; the cell after
papermill's injection calls :func:`validate_parameters`, so an unknown or wrongly typed parameter
stops the run with a :class:`~costmodel.foundation.errors.ReportError`. Values are data, never evaluated."""
from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..contracts.errors import did_you_mean
from ..foundation.errors import ReportError
from ..foundation.fields_json import FieldsJson, JsonKeys
from ..foundation.resources import PACKAGE_DIR

#: The installed package folder: relative default paths (``data/examples/...``) are tried here after the cwd.
PACKAGE_ROOT = PACKAGE_DIR
#: Names the report notebook itself binds (not parameters); the notebook test checks this list.
NOTEBOOK_NAMES = frozenset(
    {"P", "run", "inputs", "fits", "cmp", "cost", "decision", "placed", "record", "written", "report", "charts"}
)



#: the CLI flag of a parameter: ``--`` and the name with dashes, unless :attr:`Param.flag` says otherwise
SAME = object()


@dataclass(frozen=True)
class Param:
    """One report parameter, described once: its ``kind`` (``paths``, ``path``, ``str``, ``strs``, ``float``,
    ``int``, ``bool``), ``default`` (the notebook's: the bundled example), ``help``, ``unit`` and validation
    (``bounds``: pydantic's ``gt``/``ge``/``lt``/``le``; ``choices``), and how ``costmodel report`` takes it
    (``flag``: '' for ``--name-with-dashes``, None for no flag; ``cli_default``; ``required``; ``repeat``: a flag
    given once per value; ``recorded``: False for run mechanics kept out of ``decision.json``, ``"when given"`` for
    a parameter recorded only when it is not empty, so that adding one leaves older records' bytes as they were)."""

    kind: str
    default: Any
    help: str
    unit: str = ""
    bounds: Mapping[str, float] = field(default_factory=dict)
    choices: tuple[str, ...] = ()
    flag: str | None = ""
    short: str = ""
    metavar: str = ""
    cli_default: Any = SAME
    required: bool = False
    repeat: bool = False
    recorded: bool | str = True

    @property
    def on_cli(self) -> Any:
        """The default ``costmodel report`` uses (the notebook's unless :attr:`cli_default` says otherwise)."""
        return self.default if self.cli_default is SAME else self.cli_default


def param(default: Any, help: str, kind: str, **how: Any) -> Any:
    """A field of :class:`ReportParams` with its :class:`Param` in the field's metadata (``metadata["param"]``)."""
    p = Param(kind, default, help, **how)
    if isinstance(default, (list, tuple)):
        return field(default=tuple(default), metadata={"param": p})
    return field(default=default, metadata={"param": p})


DEFAULT_TITLE = "Cross-region training with a cache, replication or waiting"


@dataclass(frozen=True)
class ReportParams(FieldsJson):
    """The report's parameters: the one model. Each field is declared once here, with its :class:`Param`
    (type, default, help, unit, validation, flag); the CLI flags of ``costmodel report``
    (:mod:`costmodel.report.cli_flags`), the notebook's ``parameters`` cell
    (:func:`costmodel.report.notebook_cell.parameters_cell`), the validation model
    (:func:`report_parameters_model`) and the docs table are generated from it. Validated values have input paths
    resolved to absolute paths (:func:`validate_parameters`)."""

    colocated: tuple[str, ...] = param(
        ["data/examples/colocated_steps.csv"], "co-located (hub) run files: any ingestible benchmark output or "
        "Timeline Parquet, a folder of rank logs, an object-store URL (relative to the cwd or the package)", "paths",
        metavar="FILE", cli_default=())
    remote: tuple[str, ...] = param(["data/examples/remote_steps.csv"], "remote (cross-region spoke) run files",
                                    "paths", metavar="FILE", cli_default=())
    scenario: str = param("data/examples/scenario.yaml", "cost scenario YAML", "path", metavar="S.yaml", required=True)
    answers: str = param("data/examples/answers.yaml", "checklist answers YAML", "path", metavar="A.yaml",
                         required=True)
    metric: str = param("", "throughput column to analyse (empty: the warm-up analysis default, e.g. samples_per_s)",
                        "str")
    format: str = param("", "ingest reader for the run files (empty: sniffed from the content; see costmodel ingest "
                        "--help)", "str", metavar="NAME")
    map: tuple[str, ...] = param([], "map a source column to a Timeline column, with its unit: SRC, an equals sign, "
                                 "COLUMN[:UNIT] (e.g. thr, an equals sign, samples_per_s)", "strs", metavar="SRC=COL[:UNIT]",
                                 repeat=True)
    pattern: str = param("", "a regex with named groups (step, samples_per_s, step_time_ms, ...) to read free-form "
                         "logs (empty: none)", "str", metavar="REGEX")
    batch_size: float = param(0.0, "samples per step, global (0: not given), to derive samples_per_s as batch_size / "
                              "step_time_s", "float", unit="samples", bounds={"ge": 0}, metavar="N")
    tokens_per_step: float = param(0.0, "tokens per step, global (0: not given), to derive tokens_per_s as tokens_per_step / "
                                   "step_time_s", "float", unit="tokens", bounds={"ge": 0}, metavar="N")
    margin: float = param(0.02, "equivalence margin of the comparison (0.02: within 2 per cent)", "float", unit="fraction",
                          bounds={"gt": 0, "lt": 0.5})
    monte_carlo_n: int = param(2000, "Monte Carlo draws for the uncertainty section (0 skips it)", "int",
                               unit="draws", bounds={"ge": 0, "le": 1_000_000}, flag="--monte-carlo", metavar="N")
    seed: int = param(0, "Monte Carlo seed", "int", bounds={"ge": 0})
    title: str = param("", "report and ADR title (empty: the title in the answers file, else a generic title)", "str")
    date: str = param("", "ADR date YYYY-MM-DD (empty: today, UTC)", "str", metavar="YYYY-MM-DD")
    decision_path: str = param("", "write decision.json here (empty: do not write; costmodel report writes it to "
                               "its folder)", "str", flag=None)
    adr_path: str = param("", "write the ADR Markdown here (empty: do not write; costmodel report writes it to its "
                          "folder)", "str", flag=None)
    engine: str = param("auto", "engine that reduces rank logs to the job series (dask: the cluster at "
                        "COSTMODEL_DASK_SCHEDULER, its workers reading the files or objects themselves)", "str",
                        choices=("auto", "pandas", "duckdb", "dask"), recorded=False)
    quiet: bool = param(False, "no progress lines on stderr; warnings and errors still print", "bool", short="-q",
                        recorded=False)
    jobs: tuple[str, ...] = param([], "the files matching GLOB are the rank logs of job NAME on side ROLE: "
                                  "ROLE:NAME, an equals sign, GLOB (docs/jobs.md)", "paths", flag="--job",
                                  metavar="ROLE:NAME=GLOB", repeat=True)
    rank_throughput: str = param("auto", "ranks log their own share (local, summed) or the global figure of the job "
                                 "(global); auto detects it", "str", choices=("auto", "local", "global"))
    placement: str = param("", "a placement file (docs/place.md): adds the placement section (ranked candidate GPU "
                           "regions x data strategies, the cost-vs-time front, why the winner wins) and "
                           "the placement in decision.json (empty: none)", "str", metavar="PLACEMENT.yaml",
                           recorded="when given")
    rows: str = param("", "rows every N steps: sampled (each row is that step's own figures) or averaged (means over "
                      "the steps since the last row); empty: from the format or the clock", "str",
                      choices=("", "sampled", "averaged"), metavar="KIND", recorded="when given")

    JSON = JsonKeys(lists=True)

    def recorded(self) -> dict[str, Any]:
        """The parameters ``decision.json`` records under ``inputs.parameters``: not the output paths, not the run
        mechanics (``engine``, ``quiet``), those marked ``"when given"`` (``placement``, ``rows``) only when given."""
        return {k: v for k, v in self.to_dict().items()
                if PARAMETERS[k].recorded and k not in ("decision_path", "adr_path")
                and (PARAMETERS[k].recorded != "when given" or v)}

    def ingest_options(self, role: str = "") -> Any:
        """The :class:`~costmodel.ingest.IngestOptions` these parameters ask for (``format``, ``map``, ``pattern``,
        ``batch_size``, ``tokens_per_step``); raises IngestError for a malformed ``map`` item."""
        from ..ingest import IngestOptions
        from ..ingest.mapping import parse_map

        return IngestOptions(fmt=self.format or None, role=role, mapping=parse_map(list(self.map)),
                             pattern=self.pattern or None, batch_size=self.batch_size or None,
                             tokens_per_step=self.tokens_per_step or None, rows=self.rows or None)


#: Every report parameter by name, in the model's order: the view of :class:`ReportParams`' fields that the
#: generators (flags, notebook cell, validation model, docs) read
PARAMETERS: dict[str, Param] = {f.name: f.metadata["param"] for f in fields(ReportParams)}


def _user_names(namespace: Mapping[str, Any], notebook_names: frozenset[str] = NOTEBOOK_NAMES) -> dict[str, Any]:
    """Names a user (or papermill) bound in an IPython namespace: not hidden, not private, data only,
    not one of the notebook's own ``notebook_names``."""
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
        if k in notebook_names:
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
    out = check_parameters(given, PARAMETERS, "report")  # kinds, ranges, date and rank_throughput: the model
    for spec in out.get("jobs", ()):  # 'ROLE:NAME=GLOB'
        head = spec.split("=", 1)[0]
        if "=" not in spec or head.split(":", 1)[0] not in ("colocated", "remote") or ":" not in head:
            raise ReportError(f"parameter 'jobs': expected 'colocated:NAME=GLOB' or 'remote:NAME=GLOB', got {spec!r}")
    if not out["colocated"] and not out["remote"] and not out.get("jobs"):
        raise ReportError("parameters 'colocated' and 'remote': expected at least one run file")
    from ..jobs.storage import is_url  # object-store URLs and folders of rank logs are inputs too

    out["colocated"] = tuple(str(p) if is_url(p) else str(resolve_path(p, "colocated", allow_dir=True)) for p in out["colocated"])
    out["remote"] = tuple(str(p) if is_url(p) else str(resolve_path(p, "remote", allow_dir=True)) for p in out["remote"])
    out["scenario"] = str(resolve_path(out["scenario"], "scenario"))
    out["answers"] = str(resolve_path(out["answers"], "answers"))
    if out.get("placement"):  # the placement section, when a placement file is given
        out["placement"] = str(resolve_path(out["placement"], "placement"))
    return ReportParams(**out)


def check_parameters(given: Mapping[str, Any], spec: Mapping[str, Param], what: str = "report") -> dict[str, Any]:
    """``given`` checked against ``spec`` by the model :func:`costmodel.contracts.inputs.parameters_model`
    builds from it: every name known (ReportError naming the closest known one otherwise), every value of
    its kind and in its range (missing ones take their defaults). Values are data, never evaluated.
    Returns the typed values."""
    from pydantic import ValidationError

    from ..contracts.errors import raise_validation_error
    from ..contracts.inputs import parameters_model

    unknown = [k for k in given if k not in spec]
    if unknown:
        k = min(unknown)
        hint = did_you_mean(k, spec, paren=True)
        raise ReportError(f"unknown {what} parameter {k!r}{hint}; known parameters: {', '.join(spec)}")
    model = parameters_model(spec, what)
    try:
        return dict(model.model_validate(dict(given)))
    except ValidationError as exc:
        raise_validation_error(exc, ReportError, model=model, key_format="parameter '{}'")


def resolve_path(path: str | os.PathLike[str], what: str = "input", allow_dir: bool = False) -> Path:
    """An input path made absolute: as given when absolute; else the first that exists of
    ``cwd/path`` and ``<repository>/path`` (papermill may run the kernel in another folder), and for
    ``costmodel/...`` (a bundled file as ``decision.json`` names it) that file in the installed package. Folders only
    with ``allow_dir`` (run files: a folder of rank logs is a job), and then only when they hold a file.
    Raises :class:`ReportError` naming the places tried when none exists."""
    p = Path(os.fspath(path)).expanduser()
    candidates = [p] if p.is_absolute() else [Path.cwd() / p, PACKAGE_ROOT / p]
    if not p.is_absolute() and p.parts[:1] == ("costmodel",) and len(p.parts) > 1:  # a bundled file as records name it
        candidates.append(PACKAGE_ROOT.joinpath(*p.parts[1:]))
    from ..foundation.safeio import refusal

    for c in candidates:
        if c.is_file():
            return c.resolve()
        if c.is_dir() and allow_dir:
            if not any(f.is_file() for f in c.rglob("*")):
                raise ReportError(f"parameter {what!r}: folder {c} holds no files; expected run logs (a folder of "
                                  "rank logs is one job)")
            return c.resolve()
        why = refusal(c)
        if why and why != "no such file":  # a FIFO, device, socket, folder or link loop: refused, never opened
            raise ReportError(f"parameter {what!r}: {c}: {why}")
    tried = ", ".join(dict.fromkeys(str(c) for c in candidates))
    raise ReportError(f"parameter {what!r}: file {os.fspath(path)!r} not found (tried {tried})")


def report_parameters_model() -> Any:
    """The report notebook's parameters as a pydantic model (``papermill -p NAME VALUE``; ``costmodel report``
    passes them), built from :data:`PARAMETERS`."""
    from ..contracts.inputs import parameters_model

    return parameters_model(PARAMETERS, "report")
