"""Vega-Lite specs as plain dicts, without Altair: the subset of Altair's API the chart modules use (``Chart``,
``layer``, ``vconcat``, ``hconcat``, the encoding channels, ``Scale``, ``Axis``, ``Legend``, ``TitleParams``,
``Data``, ``value``, ``mark_*``, ``encode``, ``properties``, ``configure_*``), whose ``vega_lite()`` is the dict
Altair 6's ``to_dict(validate=False)`` makes, key order included: each object's keys in the order of Altair's class signature (the
required key first, the others sorted), shorthand strings parsed as Altair parses them, inline data moved to the
top-level ``datasets`` under Altair's names (``data-`` + SHA-256 of the values), pandas frames sanitised as Altair
sanitises them, the default theme's ``config`` merged in first and ``$schema`` last.

Why: building a report's charts with Altair's objects (its import, ``encode``'s type inference, the deep copies of
every layer) cost ~0.9 CPU-s of a report; this module builds the same specs for a few milliseconds. The report uses
it (:func:`costmodel.charts.render.lite_charts`); a chart function called elsewhere still returns an Altair chart.
What it does not implement raises :class:`LiteUnsupported` (never a different spec).
"""
from __future__ import annotations

import copy as _copy
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

#: Altair 6's ``SCHEMA_URL`` (tests check it against the installed Altair).
SCHEMA_URL = "https://vega.github.io/schema/vega-lite/v6.4.1.json"
#: Altair's default theme: merged under every top-level spec.
DEFAULT_THEME: dict[str, Any] = {"config": {"view": {"continuousWidth": 300, "continuousHeight": 300}}}
#: Altair's default data transformer refuses frames with more rows than this.
MAX_ROWS = 5000


class LiteUnsupported(NotImplementedError):
    """A part of Altair's API this module does not build (use Altair for it)."""


class _MissingMethod(LiteUnsupported, AttributeError):
    """A chart method this module does not build (an AttributeError too: ``hasattr`` answers False)."""


class _UndefinedType:
    def __repr__(self) -> str:
        return "Undefined"


Undefined: Any = _UndefinedType()

_TYPECODES = {"Q": "quantitative", "N": "nominal", "O": "ordinal", "T": "temporal", "G": "geojson"}
_TYPES = "|".join([*_TYPECODES.values(), *_TYPECODES])
_AGGREGATES = ("argmax", "argmin", "average", "count", "distinct", "exponential", "exponentialb", "max", "mean",
               "median", "min", "missing", "product", "q1", "q3", "ci0", "ci1", "stderr", "stdev", "stdevp", "sum",
               "valid", "values", "variance", "variancep")
_TIMEUNITS = ("year", "quarter", "month", "week", "day", "dayofyear", "date", "hours", "minutes", "seconds",
              "milliseconds", "yearquarter", "yearquartermonth", "yearmonth", "yearmonthdate", "yearmonthdatehours",
              "yearmonthdatehoursminutes", "yearmonthdatehoursminutesseconds", "yearweek", "yearweekday",
              "yearweekdayhours", "yearweekdayhoursminutes", "yearweekdayhoursminutesseconds", "yeardayofyear",
              "quartermonth", "monthdate", "monthdatehours", "monthdatehoursminutes", "monthdatehoursminutesseconds",
              "week", "weekday", "weekdayhours", "weekdayhoursminutes", "weekdayhoursminutesseconds", "dayhours",
              "dayhoursminutes", "dayhoursminutesseconds", "hoursminutes", "hoursminutesseconds", "minutesseconds",
              "secondsmilliseconds")


_HEADS = (r"(?P<aggregate>count)\(\)", r"(?P<aggregate>{})\((?P<field>.*)\)".format("|".join(_AGGREGATES)),
          r"(?P<timeUnit>{})\((?P<field>.*)\)".format("|".join(_TIMEUNITS)), r"(?P<field>.*)")
# Altair tries these in order (count(), aggregate(field), timeUnit(field), field), each first with a type
_SHORTHANDS = tuple(re.compile(r"\A" + head + tail + r"\Z", re.DOTALL)
                    for head in _HEADS for tail in (f":(?P<type>{_TYPES})", ""))


def parse_shorthand(shorthand: str) -> dict[str, str]:
    """``"sum(usd):Q"`` -> ``{"aggregate": "sum", "field": "usd", "type": "quantitative"}`` as Altair parses it
    (without a data frame: a type it would infer from the data raises :class:`LiteUnsupported` in the channel)."""
    if not shorthand:
        return {}
    for exp in _SHORTHANDS:
        m = exp.match(shorthand)
        if m is not None:
            attrs = {k: v for k, v in m.groupdict().items() if v is not None}
            break
    if "type" in attrs:
        attrs["type"] = _TYPECODES.get(attrs["type"], attrs["type"])
    if attrs == {"aggregate": "count"}:
        attrs["type"] = "quantitative"
    if "timeUnit" in attrs and "type" not in attrs:
        attrs["type"] = "temporal"
    field = attrs.get("field", "")
    if ":" in field and field[field.rfind(":") - 1] != "\\":
        raise ValueError(f'"{field.split(":")[-1]}" is not one of the valid encoding data types')
    return attrs


def _todict(obj: Any, context: dict[str, Any]) -> Any:
    """Altair's ``_todict``: schema objects to dicts, numpy arrays to lists, numpy numbers to floats, Undefined
    left out of dicts."""
    if isinstance(obj, _Schema):
        return obj._as_dict(context)
    if isinstance(obj, (list, tuple)):
        return [_todict(v, context) for v in obj]
    if isinstance(obj, dict):
        return {k: _todict(v, context) for k, v in obj.items() if v is not Undefined}
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    import numpy as np

    if isinstance(obj, np.ndarray):
        return [_todict(v, context) for v in obj]
    if isinstance(obj, np.number):
        return float(obj)
    raise LiteUnsupported(f"a value of type {type(obj).__name__} in a chart spec")


def _ordered(kw: Mapping[str, Any], first: tuple[str, ...]) -> dict[str, Any]:
    """``kw`` in the order of Altair's class signatures: the required keys, then the others sorted."""
    keys = [k for k in first if k in kw] + sorted(k for k in kw if k not in first)
    return {k: kw[k] for k in keys if kw[k] is not Undefined}


class _Schema:
    """A schema object: its keyword arguments, written in Altair's key order."""

    _first: tuple[str, ...] = ()

    def __init__(self, **kw: Any) -> None:
        self._kw = dict(kw)

    def __getitem__(self, key: str) -> Any:
        return self._kw.get(key, Undefined)

    def __setitem__(self, key: str, value: Any) -> None:
        self._kw[key] = value

    def _copy(self) -> Any:
        new = _copy.copy(self)
        new._kw = dict(self._kw)
        return new

    def _as_dict(self, context: dict[str, Any] | None = None) -> Any:
        """The object as Altair's ``to_dict`` writes it."""
        return _todict(_ordered(self._kw, self._first), context if context is not None else {})


class Scale(_Schema):
    """``alt.Scale``."""


class Axis(_Schema):
    """``alt.Axis``."""


class Legend(_Schema):
    """``alt.Legend``."""


class TitleParams(_Schema):
    """``alt.TitleParams``: ``text`` first."""

    _first = ("text",)

    def __init__(self, text: Any = Undefined, **kw: Any) -> None:
        super().__init__(text=text, **kw)


class Data(_Schema):
    """``alt.Data(values=...)``: inline data Altair leaves in place (not moved to ``datasets``)."""


class _Value(_Schema):
    _first = ("value",)


def value(value: Any, **kw: Any) -> _Value:
    """``alt.value``: a constant in an encoding channel."""
    return _Value(value=value, **kw)


class _Channel(_Schema):
    """A field channel (``alt.X``...): a shorthand string parsed into field, aggregate, type."""

    _typed = True

    def __init__(self, shorthand: Any = Undefined, **kw: Any) -> None:
        super().__init__(**kw)
        self._shorthand = shorthand

    def _as_dict(self, context: dict[str, Any] | None = None) -> Any:
        """The channel as Altair's ``to_dict`` writes it (the shorthand parsed)."""
        sh, kw = self._shorthand, {k: v for k, v in self._kw.items() if v is not Undefined}
        if sh is not Undefined and "field" in kw:
            raise ValueError(f"{type(self).__name__} specifies both shorthand={sh} and field={kw['field']}. ")
        if isinstance(sh, str):
            parsed = parse_shorthand(sh)
            if not self._typed:
                parsed.pop("type", None)
            elif "type" not in parsed and "type" not in kw:
                raise LiteUnsupported(f"{sh} encoding field is specified without a type (Altair would infer it "
                                      "from the data)")
        elif sh is Undefined:
            parsed = {}
        else:
            raise LiteUnsupported(f"a shorthand of type {type(sh).__name__}")
        return _todict(_ordered({**parsed, **kw}, ()), context if context is not None else {})


def _channel(name: str, typed: bool = True) -> type[_Channel]:
    return type(name, (_Channel,), {"_typed": typed, "__doc__": f"``alt.{name}``."})


X, Y, Color, Tooltip, Order, Text = (_channel(n) for n in ("X", "Y", "Color", "Tooltip", "Order", "Text"))
StrokeDash, Shape, Detail = (_channel(n) for n in ("StrokeDash", "Shape", "Detail"))
X2, Y2 = _channel("X2", typed=False), _channel("Y2", typed=False)
_CHANNELS: dict[str, type[_Channel]] = {"x": X, "y": Y, "x2": X2, "y2": Y2, "color": Color, "tooltip": Tooltip,
                                        "order": Order, "text": Text, "strokeDash": StrokeDash, "shape": Shape,
                                        "detail": Detail}


def _wrap(obj: Any, encoding: str) -> Any:
    """Altair's ``infer_encoding_types`` for one channel."""
    if isinstance(obj, _Schema):
        return obj
    if isinstance(obj, (list, tuple)):
        return [_wrap(v, encoding) for v in obj]
    channel = _CHANNELS.get(encoding)
    if channel is None:
        raise LiteUnsupported(f"the encoding channel {encoding!r}")
    if isinstance(obj, str):
        return channel(obj)
    if isinstance(obj, Mapping):
        return _Value(**obj) if "value" in obj else channel(**obj)
    raise LiteUnsupported(f"an encoding of type {type(obj).__name__} for {encoding!r}")


# ---------------------------------------------------------------------------------------------------------------- data
def _dataset_name(values: Any) -> str:
    if values == [{}]:
        return "empty"
    text = json.dumps(values, sort_keys=True, default=str)
    return "data-" + hashlib.sha256(text.encode()).hexdigest()[:32]


def frame_records(df: Any) -> list[dict[str, Any]]:
    """A pandas DataFrame as the records Altair writes (``sanitize_pandas_dataframe`` then ``to_dict("records")``):
    floats with NaN/inf as None, ints and bools as Python numbers, strings and objects with missing values as None.
    Raises :class:`LiteUnsupported` for dtypes the charts never draw (dates, categories, nullable types)."""
    import numpy as np
    import pandas as pd

    if len(df) > MAX_ROWS:
        raise ValueError(f"The number of rows in your dataset ({len(df)}) is greater than the maximum allowed "
                         f"({MAX_ROWS}).")
    if isinstance(df.index, pd.MultiIndex) or isinstance(df.columns, pd.MultiIndex):
        raise ValueError("Hierarchical indices not supported")
    names = [str(c) for c in df.columns] if isinstance(df.columns, pd.RangeIndex) else list(df.columns)
    columns = []
    for i, name in enumerate(names):
        if not isinstance(name, str):
            raise ValueError(f"Dataframe contains invalid column name: {name!r}. Column names must be strings")
        col = df.iloc[:, i]
        dtype = col.dtype
        kind = getattr(dtype, "kind", "")
        if str(dtype) in ("str", "string"):
            obj = col.astype(object)
            values = [_native(v) for v in obj.where(obj.notnull(), None).tolist()]
        elif isinstance(dtype, np.dtype) and kind == "O":  # as Altair: apply infers a dtype (all-NaN: float)
            obj = col.astype(object).apply(lambda v: v.tolist() if isinstance(v, np.ndarray) else v)
            values = [_native(v) for v in obj.where(obj.notnull(), None).tolist()]
        elif isinstance(dtype, np.dtype) and kind == "f":
            arr = col.to_numpy()
            values = arr.tolist()
            for j in np.flatnonzero(~np.isfinite(arr)).tolist():
                values[j] = None
        elif isinstance(dtype, np.dtype) and kind in "iub":
            values = col.to_numpy().tolist()
        else:
            raise LiteUnsupported(f"a column of dtype {dtype} ({name!r}) in chart data")
        columns.append(values)
    return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)] if columns else \
        [{} for _ in range(len(df))]


def _native(v: Any) -> Any:
    """A numpy scalar as the Python number ``DataFrame.to_dict`` writes."""
    return v.item() if hasattr(v, "item") and type(v).__module__ == "numpy" else v


def _prepare_data(data: Any, context: dict[str, Any]) -> Any:
    """Altair's ``_prepare_data``: a frame or an inline ``{"values": ...}`` moved to ``context["datasets"]``,
    a reference by name left in its place."""
    if data is Undefined or isinstance(data, Data):
        return data
    if isinstance(data, Mapping):
        if "values" not in data or "name" in data:
            raise LiteUnsupported("chart data other than a frame, alt.Data(values=...) or {'values': [...]}")
        values, kwds = data["values"], {k: v for k, v in data.items() if k != "values"}
    elif hasattr(data, "to_dict") and hasattr(data, "columns"):
        values, kwds = frame_records(data), {}
    else:
        raise LiteUnsupported(f"chart data of type {type(data).__name__}")
    name = _dataset_name(values)
    context.setdefault("datasets", {})[name] = values
    return {"name": name, **kwds}


def _update_nested(original: dict[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    for key, val in update.items():
        if isinstance(val, Mapping):
            orig = original.get(key, {})
            original[key] = _update_nested(orig, val) if isinstance(orig, dict) else val
        else:
            original[key] = val
    return original


# -------------------------------------------------------------------------------------------------------------- charts
class _TopLevel(_Schema):
    """What every chart has: ``properties``, ``configure_*``, ``vega_lite`` (Altair's ``to_dict``: its specs are not
    results, so they take another name than the results' generated ``to_dict``)."""

    def properties(self, **kw: Any) -> Any:
        """Top-level properties (width, height, title, ...)."""
        new = self._copy()
        new._kw.update(kw)
        return new

    def _configure(self, name: str, kw: Mapping[str, Any]) -> Any:
        new = self._copy()
        config = dict(new._kw.get("config") or {})
        config[name] = _Schema(**kw)
        new._kw["config"] = config
        return new

    def configure_axis(self, **kw: Any) -> Any:
        """``config.axis``."""
        return self._configure("axis", kw)

    def configure_legend(self, **kw: Any) -> Any:
        """``config.legend``."""
        return self._configure("legend", kw)

    def configure_title(self, **kw: Any) -> Any:
        """``config.title``."""
        return self._configure("title", kw)

    def configure_view(self, **kw: Any) -> Any:
        """``config.view``."""
        return self._configure("view", kw)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise _MissingMethod(f"{type(self).__name__}.{name} is not built without Altair (costmodel.charts.vl)")

    def vega_lite(self, validate: bool = False) -> Any:
        """The Vega-Lite spec Altair's ``to_dict(validate=False)`` returns for the same chart (``validate`` is
        accepted, as that call's is, and nothing is validated)."""
        return self._as_dict(None)

    def _as_dict(self, context: dict[str, Any] | None = None) -> Any:
        """This chart as Altair's ``to_dict`` writes it, at the top (``context`` None) or inside a layer or concat."""
        context = dict(context) if context else {}
        context.setdefault("datasets", {})
        top_level = context.get("top_level", True)
        kw = dict(self._kw)
        data = self._data_for(context)
        if data is not Undefined:
            kw["data"] = _prepare_data(data, context)
            context["data"] = data
        context["top_level"] = False
        kw = {k: (_ordered(v, ()) if k == "config" else v) for k, v in kw.items()}
        spec: dict[str, Any] = _todict(_ordered(kw, self._first), dict(context))
        if top_level:
            spec.setdefault("$schema", SCHEMA_URL)
            spec = _update_nested(_copy.deepcopy(DEFAULT_THEME), spec)
            if context["datasets"]:
                spec.setdefault("datasets", {}).update(context["datasets"])
        return spec

    def _data_for(self, context: dict[str, Any]) -> Any:
        return self._kw.get("data", Undefined)


class Chart(_TopLevel):
    """``alt.Chart``: one mark, its encoding."""

    _first = ("data", "mark")

    def __init__(self, data: Any = Undefined, **kw: Any) -> None:
        super().__init__(data=data, **kw)

    def _data_for(self, context: dict[str, Any]) -> Any:
        data = self._kw.get("data", Undefined)
        if data is Undefined and "data" not in context:  # Altair: an empty dataset for datum encodings
            return {"values": [{}]}
        return data

    def _mark(self, mark_type: str, kw: Mapping[str, Any]) -> Chart:
        new = self._copy()
        new._kw["mark"] = _Schema(type=mark_type, **kw) if kw else _Schema(type=mark_type)
        new._kw["mark"]._first = ("type",)
        return new

    def mark_area(self, **kw: Any) -> Chart:
        """An area mark."""
        return self._mark("area", kw)

    def mark_bar(self, **kw: Any) -> Chart:
        """A bar mark."""
        return self._mark("bar", kw)

    def mark_line(self, **kw: Any) -> Chart:
        """A line mark."""
        return self._mark("line", kw)

    def mark_point(self, **kw: Any) -> Chart:
        """A point mark."""
        return self._mark("point", kw)

    def mark_rect(self, **kw: Any) -> Chart:
        """A rect mark."""
        return self._mark("rect", kw)

    def mark_rule(self, **kw: Any) -> Chart:
        """A rule mark."""
        return self._mark("rule", kw)

    def mark_text(self, **kw: Any) -> Chart:
        """A text mark."""
        return self._mark("text", kw)

    def encode(self, *args: Any, **kw: Any) -> Chart:
        """Encoding channels: shorthand strings, channel objects, lists of them, ``value(...)``."""
        if args:
            raise LiteUnsupported("positional encodings")
        new = self._copy()
        before = new._kw.get("encoding")
        encoding = dict(before._kw) if isinstance(before, _Schema) else {}
        encoding.update({k: _wrap(v, k) for k, v in kw.items() if v is not Undefined})
        new._kw["encoding"] = _Schema(**encoding)  # Altair's FacetedEncoding: channels sorted
        return new

    def __add__(self, other: Any) -> LayerChart:
        return layer(self, other)


def _combine_data(data: Any, subcharts: list[Any]) -> tuple[Any, list[Any]]:
    """Altair's ``_combine_subchart_data``: data every subchart shares (the same object) moves up."""

    def remove(c: Any) -> Any:
        if c["data"] is Undefined:
            return c
        c = c._copy()
        c._kw["data"] = Undefined
        return c

    if not subcharts:
        return data, subcharts
    if data is Undefined:
        sub = subcharts[0]["data"]
        if sub is not Undefined and all(c["data"] is sub for c in subcharts):
            return sub, [remove(c) for c in subcharts]
    elif all(c["data"] is Undefined or c["data"] is data for c in subcharts):
        return data, [remove(c) for c in subcharts]
    return data, subcharts


def _check_subcharts(subcharts: list[Any]) -> None:
    for c in subcharts:
        if not isinstance(c, _TopLevel):
            raise LiteUnsupported(f"a subchart of type {type(c).__name__} (mix of Altair and lite charts?)")
        if c["params"] is not Undefined:
            raise LiteUnsupported("charts with params")


class LayerChart(_TopLevel):
    """``alt.layer``: charts drawn on one another."""

    _first = ("layer",)

    def __init__(self, data: Any = Undefined, layer: Any = (), **kw: Any) -> None:
        subcharts = list(layer)
        _check_subcharts(subcharts)
        data, subcharts = _combine_data(data, subcharts)
        super().__init__(data=data, layer=subcharts, **kw)
        for prop in ("height", "width", "view"):  # Altair's _remove_layer_props: moved to the layer
            values = [c[prop] for c in subcharts if c[prop] is not Undefined]
            if self[prop] is Undefined:
                if values and any(v != values[0] for v in values[1:]):
                    raise ValueError(f"There are inconsistent values {values} for {prop}")
                if values:
                    self._kw[prop] = values[0]
            elif any(v != self[prop] for v in values):
                raise ValueError(f"There are inconsistent values for {prop}")
            subcharts = [_without(c, prop) for c in subcharts]
        self._kw["layer"] = subcharts

    def __add__(self, other: Any) -> LayerChart:
        return layer(self, other)


def _without(chart: Any, prop: str) -> Any:
    if chart[prop] is Undefined:
        return chart
    chart = chart._copy()
    chart._kw[prop] = Undefined
    return chart


class _Concat(_TopLevel):
    _key = ""

    def __init__(self, data: Any = Undefined, charts: Any = (), **kw: Any) -> None:
        subcharts = list(charts)
        _check_subcharts(subcharts)
        data, subcharts = _combine_data(data, subcharts)
        super().__init__(data=data, **{self._key: subcharts}, **kw)


class VConcatChart(_Concat):
    """``alt.vconcat``: charts one below the other."""

    _first = ("vconcat",)
    _key = "vconcat"


class HConcatChart(_Concat):
    """``alt.hconcat``: charts side by side."""

    _first = ("hconcat",)
    _key = "hconcat"


def layer(*charts: Any, **kw: Any) -> LayerChart:
    """``alt.layer``."""
    for c in charts:
        enc = c["encoding"] if isinstance(c, _TopLevel) else Undefined
        if isinstance(enc, _Schema) and ({"row", "column", "facet"} & set(enc._kw)):
            raise LiteUnsupported("layers with facet encodings")
    return LayerChart(layer=charts, **kw)


def vconcat(*charts: Any, **kw: Any) -> VConcatChart:
    """``alt.vconcat``."""
    return VConcatChart(charts=charts, **kw)


def hconcat(*charts: Any, **kw: Any) -> HConcatChart:
    """``alt.hconcat``."""
    return HConcatChart(charts=charts, **kw)
