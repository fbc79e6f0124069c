"""Models of the input files users write that belong to no room below the report: the simulator's
``workload:`` section (:mod:`.workload`) and the report notebook's parameters (:func:`parameters_model`, from
:data:`costmodel.report.params.PARAMETERS`). The cost scenario's model is built from the cost room's key table
(:mod:`costmodel.cost.scenario_model`), the answers file's from the checklist's catalogue
(:mod:`costmodel.checklist.answers_model`); each sits in its room, so this room imports none above it.

Each file is validated by its model when it is read (``cost.load_scenario``,
``simulate.workload.parse_workload``, ``report.validate_parameters``, ``checklist.parse_answers``); the
field validators keep what the hand-written checks said (a key in another unit with the converted number,
ranges written as distributions, did-you-mean). What spans several keys (derived values, deprecated
aliases that warn, consistency) stays in the loaders.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, create_model


def workload_schema() -> dict[str, Any]:
    """The ``workload:`` section (``costmodel simulate``) as written, as JSON Schema
    (:class:`costmodel.contracts.workload.WorkloadIn`)."""
    from .workload import WorkloadIn

    return WorkloadIn.model_json_schema()


def parse_list_text(name: str, text: str) -> list[Any]:
    """A JSON or YAML flow list given as a string (``papermill -p remote '["a.csv", "b.csv"]'`` arrives as
    the string): parsed as data (YAML's safe loader, which reads JSON), never evaluated. ReportError
    naming the parameter when it is not a list."""
    import yaml

    from ..foundation.errors import ReportError

    try:
        parsed = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at column {mark.column + 1}" if mark is not None else ""
        raise ReportError(f"parameter {name!r}: {text!r} looks like a list but is not valid JSON/YAML{where}; "
                          "expected e.g. '[\"a.csv\", \"b.csv\"]'") from None
    if not isinstance(parsed, list):
        raise ReportError(f"parameter {name!r}: expected a list of file paths, got {text!r}")
    return parsed



def _paths(v: Any) -> Any:
    if isinstance(v, str) and v.strip().startswith("["):
        v = _parse_list_value(parse_list_text, v)
    if isinstance(v, (str, os.PathLike)):
        v = [v]
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, (str, os.PathLike)) for x in v):
        raise ValueError("expected a list of file paths (strings)")
    return tuple(os.fspath(x) for x in v)


def _parse_list_value(parse: Any, text: str) -> Any:
    from ..foundation.errors import ReportError

    try:
        return parse("?", text)
    except ReportError as exc:  # the message names the parameter later, from the error's location
        raise ValueError(str(exc).split(": ", 1)[1]) from None


def _strs(v: Any) -> Any:
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) for x in v):
        raise ValueError("expected a list of strings")
    return tuple(v)


def _path(v: Any) -> Any:
    if not isinstance(v, (str, os.PathLike)) or not os.fspath(v):
        raise ValueError("expected a file path (a non-empty string)")
    return os.fspath(v)


def _text(v: Any) -> Any:
    if not isinstance(v, str):
        raise ValueError("expected a string")
    return v


def _date(v: Any) -> Any:
    import re

    if not isinstance(v, str) or not re.fullmatch(r"(\d{4}-\d{2}-\d{2})?", v):
        raise ValueError("expected YYYY-MM-DD or ''")
    return v


def _finite(v: Any) -> Any:
    """A finite float (the one number reader: ``true`` is not 1, ``10**400`` is refused, not an overflow)."""
    from ..foundation.numbers import NumberRefused, number

    if isinstance(v, str) or (not isinstance(v, (int, float)) and not hasattr(v, "item")):
        raise ValueError("expected a finite number")
    try:
        return float(number(v, "value"))
    except NumberRefused as exc:
        raise ValueError(f"got {exc.args[0].split(': got ', 1)[1]}") from None


def _integer(v: Any) -> Any:
    """A whole number, exact at any size (a float beyond 2**53 is refused; never shown as ``np.float64(...)``)."""
    from ..foundation.numbers import NumberRefused, number

    if isinstance(v, str) or (not isinstance(v, (int, float)) and not hasattr(v, "item")):
        raise ValueError("expected an integer")
    try:
        return number(v, "value", integer=True)
    except NumberRefused as exc:
        raise ValueError(f"got {exc.args[0].split(': got ', 1)[1]}") from None


def _bool(v: Any) -> Any:
    if not isinstance(v, bool):
        raise ValueError("expected true or false")
    return v


#: notebook parameter kind -> (type, the check that reads papermill's values as data, never evaluated)
KINDS: dict[str, tuple[Any, Any]] = {
    "paths": (tuple[str, ...], _paths), "strs": (tuple[str, ...], _strs), "path": (str, _path),
    "str": (str, _text), "float": (float, _finite), "int": (int, _integer), "bool": (bool, _bool),
}
#: ranges of the report's numeric parameters (also in the published schema)
BOUNDS: dict[str, dict[str, Any]] = {"margin": {"gt": 0, "lt": 0.5}, "monte_carlo_n": {"ge": 0, "le": 1_000_000},
                                     "seed": {"ge": 0}, "batch_size": {"ge": 0}, "tokens_per_step": {"ge": 0}}
_MODELS: dict[tuple[str, tuple[str, ...]], type[BaseModel]] = {}


def parameters_model(spec: Mapping[str, Any], what: str = "report") -> type[BaseModel]:
    """A model of notebook parameters from their table (name -> Param(kind, default, help[, bounds, choices])):
    ``extra="forbid"``, each kind read as data, the Param's ``bounds`` (else :data:`BOUNDS` where the name has
    one), its ``choices`` as a Literal, ``date`` as YYYY-MM-DD or ''."""
    key = (what, tuple(spec))
    if key in _MODELS:
        return _MODELS[key]
    fields: dict[str, Any] = {}
    for name, p in spec.items():
        tp, check = KINDS[p.kind]
        choices = tuple(getattr(p, "choices", ()) or ())
        if choices:
            tp = Literal[choices]
        elif name == "rank_throughput":
            tp = Literal["auto", "local", "global"]
        bounds = getattr(p, "bounds", None)
        kw: dict[str, Any] = {"description": p.help, **(dict(bounds) if bounds is not None else BOUNDS.get(name, {}))}
        if name == "date":
            kw["pattern"] = r"^(\d{4}-\d{2}-\d{2})?$"
            check = _date
        default = tuple(p.default) if isinstance(p.default, list) else p.default
        fields[name] = (Annotated[tp, BeforeValidator(check)], Field(default, **kw))
    title = "ReportParameters" if what == "report" else f"{what.title()}Parameters"
    model = create_model(title, __config__=ConfigDict(extra="forbid"), **fields)
    _MODELS[key] = model
    return model
