"""Report parameters: the notebook's ``parameters`` cell mirrors :data:`PARAMETERS`; the cell after
papermill's injection calls :func:`validate_parameters`, so an unknown or wrongly typed parameter
stops the run with a :class:`~costmodel.foundation.errors.ReportError`. Values are data, never evaluated."""
from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
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
    {"P", "inputs", "fits", "cmp", "cost", "decision", "placed", "record", "written", "report", "charts"}
)



@dataclass(frozen=True)
class Param:
    """One notebook parameter: kind (``paths``, ``path``, ``str``, ``strs``, ``float``, ``int``), default, help."""

    kind: str
    default: Any
    help: str


PARAMETERS: dict[str, Param] = {
    "colocated": Param("paths", ["data/examples/colocated_steps.csv"],
                       "co-located run files (list; relative to the cwd or the repository)"),
    "remote": Param("paths", ["data/examples/remote_steps.csv"], "remote (cross-region) run files (list)"),
    "scenario": Param("path", "data/examples/scenario.yaml", "cost scenario YAML"),
    "answers": Param("path", "data/examples/answers.yaml", "checklist answers YAML"),
    "metric": Param("str", "", "throughput column to analyse ('' = the warm-up analysis default)"),
    "format": Param("str", "", "ingest reader for the run files ('' = sniffed from the content; see costmodel ingest --help)"),
    "map": Param("strs", [], "ingest --map items SRC=COLUMN[:UNIT] (list; [] = none)"),
    "pattern": Param("str", "", "ingest --pattern: a regex with named groups for free-form logs ('' = none)"),
    "batch_size": Param("float", 0.0, "samples per step, global (0 = not given): samples_per_s = batch_size / step_time_s"),
    "tokens_per_step": Param("float", 0.0,
                             "tokens per step, global (0 = not given): tokens_per_s = tokens_per_step / step_time_s"),
    "margin": Param("float", 0.02, "equivalence margin of the comparison (fraction, 0 < margin < 0.5)"),
    "monte_carlo_n": Param("int", 2000, "Monte Carlo draws (0 = skip)"),
    "seed": Param("int", 0, "Monte Carlo seed"),
    "title": Param("str", "", "report and ADR title ('' = the answers file's meta.title or a generic title)"),
    "date": Param("str", "", "ADR date YYYY-MM-DD ('' = today, UTC)"),
    "jobs": Param("paths", [], "multi-rank jobs: strings ROLE:NAME, an equals sign, a GLOB (docs/jobs.md)"),
    "rank_throughput": Param("str", "auto",
                             "ranks log their own share ('local') or the job's figure ('global'); 'auto' detects it"),
    "placement": Param("str", "", "placement file YAML (docs/place.md): adds the placement section ('' = none)"),
    "decision_path": Param("str", "", "write decision.json here ('' = do not write)"),
    "adr_path": Param("str", "", "write the ADR Markdown here ('' = do not write)"),
}

DEFAULT_TITLE = "Cross-region training with a cache, replication or waiting"


@dataclass(frozen=True)
class ReportParams(FieldsJson):
    """Validated report parameters (paths resolved to absolute paths)."""

    colocated: tuple[str, ...]
    remote: tuple[str, ...]
    scenario: str
    answers: str
    metric: str = ""
    format: str = ""
    map: tuple[str, ...] = ()
    pattern: str = ""
    batch_size: float = 0.0
    tokens_per_step: float = 0.0
    margin: float = 0.02
    monte_carlo_n: int = 2000
    seed: int = 0
    title: str = ""
    date: str = ""
    decision_path: str = ""
    adr_path: str = ""
    jobs: tuple[str, ...] = ()
    rank_throughput: str = "auto"
    placement: str = ""

    JSON = JsonKeys(lists=True)

    def ingest_options(self, role: str = "") -> Any:
        """The :class:`~costmodel.ingest.IngestOptions` these parameters ask for (``format``, ``map``, ``pattern``,
        ``batch_size``, ``tokens_per_step``); raises IngestError for a malformed ``map`` item."""
        from ..ingest import IngestOptions
        from ..ingest.mapping import parse_map

        return IngestOptions(fmt=self.format or None, role=role, mapping=parse_map(list(self.map)),
                             pattern=self.pattern or None, batch_size=self.batch_size or None,
                             tokens_per_step=self.tokens_per_step or None)


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
