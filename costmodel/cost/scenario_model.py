"""The cost scenario file (``costmodel cost SCENARIO``, the report's ``scenario`` parameter) as one model.

:func:`scenario_model` builds the model from :data:`costmodel.cost.spec.PARAMS` (the one table of the
scenario's keys, units and ranges) plus its text and yes/no keys: one nested model per section,
``extra="forbid"``. It validates the file (:func:`validate_scenario`, called by
:func:`costmodel.cost.load_scenario`) and generates the published JSON Schema (``docs/schema/scenario.json``).

Each field's validator reads the value the way the cost model needs it: a number in the key's range, or
for a cost input a ``[low, high]`` range or a distribution mapping (:class:`ScenarioNumber`), text, a
choice, or true/false. A key or value written in another unit (``size_tb``, ``"50 TiB"``) is an error that
gives the converted number; a price written per GiB (``..._usd_per_gib``) is converted exactly to the
per-GB key (x 10^9 / 2^30); an alias (``link.bandwidth_gbit_s``) is read as its key.

Errors are :class:`~costmodel.foundation.errors.ScenarioError` naming the key path and what was expected, with a
did-you-mean for unknown keys. When a file has several problems the first is reported in the file's order
(unknown keys and sections that are not mappings before values), with ``(N more problems after this one)``.
The rules that span keys (derivations, consistency, prices) stay in :mod:`costmodel.cost.resolve`.
"""
from __future__ import annotations

import copy
import functools
import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    TypeAdapter,
    ValidationError,
    create_model,
)
from pydantic_core import PydanticCustomError

from ..contracts.errors import did_you_mean
from ..foundation.errors import ScenarioError
from ..foundation.units import GIB

if TYPE_CHECKING:
    from .dists import Distribution
    from .spec import Param

__all__ = ["GIB_PER_GB", "ScenarioNumber", "check_known_path", "converted_key", "gib_variant", "parse_number", "scenario_model",
           "validate_scenario"]

GIB_PER_GB = 1e9 / GIB  # a price per GiB times this is the price per decimal GB (GIB = 2**30 bytes)


class ScenarioNumber(NamedTuple):
    """A validated number: its point value (in the key's unit) and, for a range or distribution, the
    distribution (``None`` for a plain number)."""

    value: float
    distribution: Distribution | None = None


# ------------------------------------------------------------------------------------ number values
def _fmt(x: float) -> str:
    return f"{x:.10g}"


_UNIT_NAMES = {"gb": "GB", "tb": "TB", "pb": "PB", "mb": "MB", "kb": "kB", "gib": "GiB", "tib": "TiB", "pib": "PiB",
               "mib": "MiB", "kib": "KiB", "gbps": "Gbit/s", "mbps": "Mbit/s", "tbps": "Tbit/s"}
_UNIT_VALUE = re.compile(r"^\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]+)\s*$")


def _value_with_unit(value: str, param: Param) -> str | None:
    """For ``"50 TiB"`` given to a ``_gb`` key: the converted number to write instead."""
    from .spec import unit_dimension

    m = _UNIT_VALUE.match(value)
    if not m:
        return None
    num, unit = float(m.group(1)), m.group(2).lower()
    my_unit = param.key.rsplit("_", 1)[-1]
    dim = unit_dimension(unit)
    if dim is None or dim is not unit_dimension(my_unit):
        return None
    conv = num * dim[unit] / dim[my_unit]
    hint = " (1 TiB = 2^40 bytes = 1099.511627776 GB)" if unit.endswith("ib") else ""
    return f"write {_fmt(conv)} ({value.strip()} in {my_unit.upper() if my_unit == 'gb' else my_unit}){hint}"


def parse_number(value: Any, param: Param, allow_dist: bool) -> ScenarioNumber:
    """``value`` as written for the numeric key ``param``: a number in its range (text that is a number
    is read as one), or when ``allow_dist`` a ``[low, high]`` range / distribution mapping (its point
    value and the distribution). Raises ScenarioError naming ``param.key`` and what was expected."""
    from .dists import parse_distribution

    key = param.key
    if isinstance(value, bool):
        raise ScenarioError(f"got {value!r}; expected {param.expected()}", key=key)
    if isinstance(value, (list, tuple, dict)):
        if not allow_dist:
            raise ScenarioError(f"got {value!r}; expected {param.expected()} (ranges only for cost inputs)", key=key)
        d = parse_distribution(value, param)
        _in_range(d.point(), value, param, key)
        return ScenarioNumber(d.point(), d)
    if isinstance(value, str):
        conv = _value_with_unit(value, param)
        if conv:
            raise ScenarioError(f"got {value!r}; expected {param.expected()} as a plain number: {conv}", key=key)
        try:
            value = float(value)
        except ValueError:
            raise ScenarioError(f"got {value!r}; expected {param.expected()}", key=key) from None
    if not isinstance(value, (int, float)):
        raise ScenarioError(f"got {value!r}; expected {param.expected()}", key=key)
    v = float(value)
    if not math.isfinite(v):
        raise ScenarioError(f"got {value!r} (not a finite number); expected {param.expected()}", key=key)
    _in_range(v, value, param, key)
    if param.integer and v != int(v):
        raise ScenarioError(f"got {value!r}; expected {param.expected()}", key=key)
    if not param.ok(v):
        neg = " (negative)" if v < 0 <= param.lo else ""
        raise ScenarioError(f"got {value!r}{neg}; expected {param.expected()}", key=key)
    return ScenarioNumber(v)


#: the largest magnitude a scenario number may have: products of a few such numbers (bytes x runs x months x prices)
#: stay far from the float limit (values near 1e308 gave null totals, exit 0, or an internal error)
MAX_SCENARIO_MAGNITUDE = 1e18


def _in_range(v: float, value: Any, param: Any, key: str) -> None:
    if abs(v) > MAX_SCENARIO_MAGNITUDE:
        raise ScenarioError(f"got {value!r}: beyond {MAX_SCENARIO_MAGNITUDE:g} in magnitude, where the cost formulas' "
                            f"products overflow; expected {param.expected()} (check the unit)", key=key)


def scale_value(value: Any, factor: float) -> Any:
    """A number, range or distribution mapping multiplied by ``factor`` (sigma kept)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value * factor
    if isinstance(value, (list, tuple)):
        return [scale_value(v, factor) for v in value]
    if isinstance(value, Mapping):
        return {k: (scale_value(v, factor) if k in ("low", "mode", "high", "median") else v) for k, v in value.items()}
    return value


# --------------------------------------------------------------------------------------- key paths
#: a price written per GiB -> its per-GB key: (tail per GiB, tail per GB)
_GIB_TAILS = (("_per_gib", "_per_gb"), ("_per_gib_month", "_per_gb_month"))


@functools.lru_cache(maxsize=4096)
def gib_variant(key: str) -> str | None:
    """The decimal-GB price key that ``key`` writes per GiB (``..._usd_per_gib[_month]``), or None (memoised:
    the key tables are fixed, and a placement asks the same few dozen keys once per candidate)."""
    from .spec import PARAM_BY_KEY

    for tail, gb in _GIB_TAILS:
        if key.endswith(tail):
            cand = key[: -len(tail)] + gb
            if cand in PARAM_BY_KEY:
                return cand
    return None


@functools.lru_cache(maxsize=4096)
def converted_key(key: str) -> str | None:
    """The key that ``key`` is another spelling of (a per-GiB price or an alias), or None (memoised)."""
    from .spec import ALIASES

    return gib_variant(key) or ALIASES.get(key)


def _uncertain(p: Param) -> bool:
    """Whether key ``p`` may be a range or distribution: a cost input, or the source of a derived one."""
    from .spec import RANGE_SOURCE_KEYS, SOURCE_KEYS

    return p.model or p.key in SOURCE_KEYS or p.key in RANGE_SOURCE_KEYS


def _unit_variant(section: str, leaf: str, value: Any = None) -> str | None:
    """If ``leaf`` is a known key written in another unit (``size_tb`` for ``size_gb``), say how to convert."""
    from .spec import section_keys, unit_dimension

    tokens = leaf.split("_")
    for known in section_keys(section):
        ktoks = known.split("_")
        if len(ktoks) != len(tokens):
            continue
        diff = [i for i, (a, b) in enumerate(zip(tokens, ktoks, strict=False)) if a != b]
        if len(diff) != 1:
            continue
        i = diff[0]
        mine, theirs = tokens[i].lower(), ktoks[i]
        dim = unit_dimension(mine)
        if dim is None or dim is not unit_dimension(theirs):
            continue
        factor = dim[mine] / dim[theirs]
        per = "per" in tokens[:i]
        a, b = _UNIT_NAMES.get(mine, mine), _UNIT_NAMES.get(theirs, theirs)
        rel = f"per {a} = per {_fmt(factor)} {b}" if per else f"1 {a} = {_fmt(factor)} {b}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            conv = value / factor if per else value * factor
            rel += f"; write {known}: {_fmt(conv)}"
        hint = ""
        if mine in ("tib", "gib", "mib", "pib", "kib"):
            hint = " (binary units: 1 TiB = 2^40 bytes = 1099.511627776 GB, 10 % more than 1 TB)"
        elif theirs == "gb":
            hint = " (decimal GB = 10^9 bytes)"
        return f"{known} ({rel}){hint}"
    return None


def check_known_path(key: str, path: str | None = None, value: Any = None) -> None:
    """Nothing when ``key`` (a dotted path) is a scenario key; else ScenarioError: an unknown section
    (did-you-mean), a key in another unit (with the converted number) or an unknown key (did-you-mean and
    the keys allowed there)."""
    from .spec import ALIASES, BOOLS, PARAM_BY_KEY, PASSTHROUGH, SECTIONS, STRINGS, section_keys

    parts = key.split(".")
    if parts[0] in PASSTHROUGH:
        return
    if key in PARAM_BY_KEY or key in STRINGS or key in SECTIONS or key in BOOLS or key in ALIASES:
        return
    if gib_variant(key):
        return
    section = ".".join(parts[:-1])
    leaf = parts[-1]
    if section and section not in SECTIONS:
        raise ScenarioError(f"unknown section {section!r}{did_you_mean(section, SECTIONS)}", key=key, path=path)
    variant = _unit_variant(section, leaf, value)
    if variant:
        raise ScenarioError(f"unknown key in another unit; use {variant}", key=key, path=path)
    raise ScenarioError(
        f"unknown key{did_you_mean(leaf, section_keys(section))}; allowed here: {', '.join(section_keys(section))}",
        key=key,
        path=path,
    )


# ------------------------------------------------------------------------------------------ the model
def _fail(message: str, key: str) -> PydanticCustomError:
    """The error a field validator raises: ``message`` about ``key`` (the key the message names)."""
    return PydanticCustomError("scenario_value", "{message}", {"message": message, "key": key})


def _relayed(exc: ScenarioError) -> PydanticCustomError:
    key = exc.key or ""
    return _fail(exc.message.removeprefix(f"{key}: "), key)


def _number_check(param: Param, allow_dist: bool, factor: float | None = None) -> Any:
    def check(raw: Any) -> ScenarioNumber | None:
        if raw is None:
            return None
        try:
            return parse_number(scale_value(raw, factor) if factor is not None else raw, param, allow_dist)
        except ScenarioError as exc:
            raise _relayed(exc) from None
    return check


def _text_check(key: str, choices: tuple[str, ...] | None) -> Any:
    def check(raw: Any) -> str | None:
        if raw is None:
            return None
        if not isinstance(raw, (str, int, float)) or isinstance(raw, bool):
            raise _fail(f"expected text, got {raw!r}", key)
        if choices is not None and str(raw) not in choices:
            raise _fail(f"got {raw!r}; expected one of {' | '.join(choices)}{did_you_mean(str(raw), choices)}", key)
        return str(raw)
    return check


def _bool_check(key: str) -> Any:
    def check(raw: Any) -> bool | None:
        if raw is None:
            return None
        if not isinstance(raw, bool):
            raise _fail(f"got {raw!r}; expected true or false", key)
        return raw
    return check


class _SchemaOf:
    """The JSON Schema of ``tp`` with ``field_kw`` (bounds), for a field whose validator is our own: what
    ``WithJsonSchema(TypeAdapter(Annotated[tp, Field(**field_kw)]).json_schema())`` gives, generated when a JSON
    Schema is asked for (``costmodel schema``), not when the model is built to validate a file (each of the 15
    distinct schemas of the model's ~90 fields once, a copy for each field)."""

    __slots__ = ("field_kw", "tp")

    def __init__(self, tp: Any, **field_kw: Any) -> None:
        self.tp = tp
        # each bound's type in the key too: a bound of 0 and of 0.0 are equal, but their schemas write 0 and 0.0
        self.field_kw = tuple((k, type(v), v) for k, v in sorted(field_kw.items()))

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        return copy.deepcopy(_schema_once(self.tp, self.field_kw))


@functools.cache
def _schema_once(tp: Any, field_kw: tuple[tuple[str, type, Any], ...]) -> dict[str, Any]:
    return TypeAdapter(Annotated[tp, Field(**{k: v for k, _t, v in field_kw})]).json_schema()


def _field(check: Any, schema: _SchemaOf, default: Any, description: str | None = None) -> tuple[Any, Any]:
    return (Annotated[Any, PlainValidator(check), schema], Field(default, description=description))


def _number_field(p: Param, uncertain: bool, check: Any) -> tuple[Any, Any]:
    import math

    description = f"{p.help + '; ' if p.help else ''}unit: {p.unit}"
    base: Any = int if p.integer else float
    if uncertain:  # a point value, a [low, high] range or a distribution mapping (docs/cost.md)
        schema = _SchemaOf(base | list[float] | dict[str, Any] | None)
        return _field(check, schema, None, description + "; a number, [low, high] or a distribution")
    bounds: dict[str, Any] = {}
    if math.isfinite(p.lo):
        bounds["gt" if p.lo_open else "ge"] = p.lo
    if math.isfinite(p.hi):
        bounds["lt" if p.hi_open else "le"] = p.hi
    return _field(check, _SchemaOf(base | None, **bounds), None, description)


@functools.cache
def scenario_model() -> type[BaseModel]:
    """The scenario file as a pydantic model generated from the key table (sections nested, built once)."""
    from .spec import ALIASES, BOOLS, CHOICES, PARAM_BY_KEY, PARAMS, SECTIONS, STRINGS

    fields: dict[str, dict[str, Any]] = {s: {} for s in ("", *SECTIONS)}
    for p in PARAMS:
        sec, _, leaf = p.key.rpartition(".")
        fields[sec][leaf] = _number_field(p, _uncertain(p), _number_check(p, _uncertain(p)))
    for key, default in STRINGS.items():
        sec, _, leaf = key.rpartition(".")
        tp: Any = Literal[CHOICES[key]] | None if key in CHOICES else str | None
        fields[sec][leaf] = _field(_text_check(key, CHOICES.get(key)), _SchemaOf(tp), default)
    for key, bdefault in BOOLS.items():
        sec, _, leaf = key.rpartition(".")
        fields[sec][leaf] = _field(_bool_check(key), _SchemaOf(bool | None), bdefault)
    for alias, key in ALIASES.items():
        sec, _, leaf = alias.rpartition(".")
        p = PARAM_BY_KEY[key]
        fields[sec][leaf] = _field(_number_check(p, _uncertain(p)), _SchemaOf(float | None), None, f"alias of {key}")
    for key, p in PARAM_BY_KEY.items():  # prices per GiB are accepted and converted (x 10^9 / 2^30)
        for gib, tail in _GIB_TAILS:
            if key.endswith(tail):
                sec, _, leaf = (key[: -len(tail)] + gib).rpartition(".")
                fields[sec][leaf] = _field(_number_check(p, _uncertain(p), GIB_PER_GB),
                                           _SchemaOf(float | list[float] | dict[str, Any] | None), None,
                                           f"{key} per GiB (2^30 bytes), converted")
    forbid = ConfigDict(extra="forbid")
    top = dict(fields[""])
    for sec in SECTIONS:
        model = create_model(f"Scenario_{sec}", __config__=forbid, **fields[sec])
        top[sec] = (model | None, Field(None))
    top["workload"] = _field(lambda v: v, _SchemaOf(dict[str, Any] | None), None,
                             "the simulator's workload (workload.json)")
    return create_model("ScenarioFile", __config__=forbid, **top)


# ------------------------------------------------------------------------------------------ validation
def validate_scenario(data: Mapping[str, Any]) -> BaseModel:
    """``data`` (the scenario mapping as read from YAML, keys as text) validated by :func:`scenario_model`.

    Raises ScenarioError for the first problem in the file's order: unknown keys and sections that are
    not mappings first, then a key given twice (as a per-GiB price or alias and as its key), then values
    (converted keys last); ``(N more problems after this one)`` when there are several."""
    model = scenario_model()
    try:
        validated = model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
    else:
        errors = []
    ranked = sorted(errors, key=lambda e: _rank(e, data))
    more = len(errors) - 1
    if ranked and _rank(ranked[0], data)[0] == 0:
        raise _structural_error(ranked[0], data, more)
    _check_given_once(data)
    if ranked:
        err = ranked[0]
        ctx = err.get("ctx") or {}
        key = str(ctx.get("key") or ".".join(str(p) for p in err["loc"]))
        raise ScenarioError(f"{ctx.get('message', err['msg'])}{_more(more)}", key=key)
    return validated


def _more(n: int) -> str:
    return f" ({n} more problem{'s' if n > 1 else ''} after this one)" if n > 0 else ""


def _rank(err: Mapping[str, Any], data: Mapping[str, Any]) -> tuple[int, int, int]:
    """(0 structure / 1 value / 2 converted value, position of the top key, position within the section)."""
    loc = [str(p) for p in err.get("loc", ())]
    tops = list(data)
    pos_top = tops.index(loc[0]) if loc and loc[0] in tops else len(tops)
    pos_leaf = 0
    if len(loc) > 1 and isinstance(data.get(loc[0]), Mapping):
        leaves = [str(k) for k in data[loc[0]]]
        pos_leaf = leaves.index(loc[1]) if loc[1] in leaves else len(leaves)
    if err.get("type") in ("extra_forbidden", "model_type", "model_attributes_type", "dict_type"):
        return 0, pos_top, pos_leaf
    return (2 if converted_key(".".join(loc)) else 1), pos_top, pos_leaf


def _structural_error(err: Mapping[str, Any], data: Mapping[str, Any], more: int) -> ScenarioError:
    from .spec import section_keys

    loc = [str(p) for p in err.get("loc", ())]
    path = ".".join(loc)
    if err.get("type") == "extra_forbidden":
        try:
            check_known_path(path, None, err.get("input"))
        except ScenarioError as exc:
            if more:
                exc = ScenarioError(exc.message.removeprefix(f"{path}: ") + _more(more), key=path)
            return exc
        return ScenarioError(f"unknown key{_more(more)}", key=path)
    top = loc[0] if loc else ""
    return ScenarioError(f"expected a mapping of keys ({', '.join(section_keys(top))}), got {data.get(top)!r}"
                         f"{_more(more)}", key=top)


def _check_given_once(data: Mapping[str, Any]) -> None:
    """ScenarioError when a quantity is given twice: per GiB and per GB, or as an alias and as its key."""
    from .spec import PASSTHROUGH, SECTIONS

    given: list[str] = []
    for top, val in data.items():
        if top in SECTIONS and isinstance(val, Mapping):
            given += [f"{top}.{leaf}" for leaf in val]
        elif top not in PASSTHROUGH:
            given.append(str(top))
    for key in given:
        target = converted_key(key)
        if target is not None and target in given:
            raise ScenarioError(f"given twice, as {key} and as {target}; keep one", key=key)
