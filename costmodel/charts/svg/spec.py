"""A Vega-Lite spec read into typed views: the units, layers, channels and theme this renderer draws.

Anything outside the subset (another mark, a transform, a facet, a selection, a time field...) raises
:class:`~costmodel.charts.svg.markup.NotDrawable`, so the caller can draw the spec another way.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .markup import NotDrawable

MARKS = frozenset({"bar", "rect", "line", "area", "rule", "text", "point"})
CHANNELS = frozenset({"x", "x2", "y", "y2", "color", "order", "text", "tooltip", "strokeDash", "opacity"})
_CHANNEL_KEYS = frozenset({"field", "type", "title", "scale", "axis", "legend", "sort", "aggregate", "stack", "bin",
                           "format", "value"})
_MARK_KEYS = frozenset({"type", "color", "opacity", "strokeDash", "strokeWidth", "interpolate", "point", "align",
                        "dx", "dy", "fontSize", "baseline", "fill", "stroke", "size"})
_UNIT_KEYS = frozenset({"mark", "encoding", "data", "width", "height", "title", "$schema", "config", "datasets",
                        "description"})
UNSET: Any = object()
_SCALARS = (str, int, float, bool, type(None))

#: Vega-Lite's theme where the spec's config is silent (fonts in px, colours as Vega writes them)
DEFAULTS: dict[str, dict[str, Any]] = {
    "axis": {"labelFontSize": 10, "titleFontSize": 11, "tickSize": 5, "labelPadding": 2, "titlePadding": 4,
             "gridColor": "#ddd", "tickColor": "#888", "domainColor": "#888", "labelColor": "#000",
             "titleColor": "#000"},
    "legend": {"labelFontSize": 10, "titleFontSize": 11, "titlePadding": 5, "rowPadding": 2, "columnPadding": 10,
               "offset": 18, "symbolSize": 100, "labelOffset": 4, "gradientThickness": 16},
    "title": {"fontSize": 13, "subtitleFontSize": 10, "anchor": None, "offset": 4, "subtitlePadding": 3},
    "view": {"stroke": "#ddd", "continuousWidth": 300, "continuousHeight": 300},
}


@dataclass(frozen=True)
class Channel:
    """One encoding channel: a field (with its type and options) or a constant ``value``."""

    name: str
    field: str | None
    type: str | None
    title: Any = UNSET
    scale: Any = UNSET  # a dict, None (``scale: null``: the values are px) or UNSET
    axis: Any = UNSET  # a dict, None (no axis) or UNSET
    legend: Any = UNSET
    sort: Any = None
    aggregate: str | None = None
    stack: Any = UNSET
    format: str | None = None
    value: Any = UNSET


@dataclass
class Layer:
    """One mark with its channels and its rows (the spec's inline data)."""

    mark: str
    props: dict[str, Any]
    channels: dict[str, Channel]
    tooltips: list[Channel]
    rows: list[dict[str, Any]]


@dataclass
class Unit:
    """A plot: layers sharing scales and axes, ``width`` x ``height`` px, and an optional title."""

    layers: list[Layer]
    width: float
    height: float
    title: Title | None


@dataclass
class Concat:
    """Views stacked down (``v``) or across (``h``), ``spacing`` px apart."""

    views: list[Unit | Concat]
    direction: str
    spacing: float
    title: Title | None


@dataclass(frozen=True)
class Title:
    text: list[str]
    subtitle: list[str] = field(default_factory=list)


def config_of(spec: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The theme: :data:`DEFAULTS` with the spec's ``config`` on top."""
    cfg = spec.get("config") or {}
    out = {k: dict(v) for k, v in DEFAULTS.items()}
    for key, values in cfg.items():
        if key not in out or not isinstance(values, Mapping):
            raise NotDrawable(f"config.{key}")
        unknown = set(values) - set(out[key]) - {"labelLimit"}
        if unknown:  # a setting this writer would not honour: the drawing would not be the one asked for
            raise NotDrawable(f"config.{key} {sorted(unknown)}")
        out[key].update(values)
    return out


def _lines(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return value.split("\n") if value else []
    if isinstance(value, Sequence):
        return [str(v) for v in value]
    raise NotDrawable("a title that is not text")


def title_of(value: Any) -> Title | None:
    if value is None or value == "":
        return None
    if isinstance(value, Mapping):
        if set(value) - {"text", "subtitle"}:
            raise NotDrawable("title options")
        return Title(_lines(value.get("text")), _lines(value.get("subtitle")))
    return Title(_lines(value))


def _channel(name: str, raw: Any) -> Channel:
    if not isinstance(raw, Mapping) or set(raw) - _CHANNEL_KEYS:
        raise NotDrawable(f"encoding.{name}")
    if raw.get("bin") not in (None, False):
        raise NotDrawable("binned fields")
    agg = raw.get("aggregate")
    if agg not in (None, "sum"):
        raise NotDrawable(f"aggregate {agg}")
    typ = raw.get("type")
    if typ not in (None, "quantitative", "nominal", "ordinal"):
        raise NotDrawable(f"type {typ}")
    fld = raw.get("field")
    if (fld is not None and not isinstance(fld, str)) or (isinstance(fld, str) and any(c in fld for c in ".[]\\")):
        raise NotDrawable("nested or escaped field names")
    return Channel(name, fld, typ, title=raw.get("title", UNSET), scale=raw.get("scale", UNSET),
                   axis=raw.get("axis", UNSET), legend=raw.get("legend", UNSET), sort=raw.get("sort"),
                   aggregate=agg, stack=raw.get("stack", UNSET), format=raw.get("format"),
                   value=raw.get("value", UNSET))


def _rows(data: Any, datasets: Mapping[str, Any]) -> list[dict[str, Any]]:
    if not isinstance(data, Mapping):
        raise NotDrawable("no data")
    if "values" in data and len(data) == 1:
        rows = data["values"]
    elif "name" in data and len(data) == 1 and data["name"] in datasets:
        rows = datasets[data["name"]]
    else:
        raise NotDrawable("data other than inline values")
    if not isinstance(rows, list) or not all(isinstance(r, Mapping) for r in rows):
        raise NotDrawable("data rows that are not objects")
    if not all(isinstance(v, _SCALARS) for r in rows for v in r.values()):
        raise NotDrawable("data values that are not numbers, text, booleans or null")
    return rows


def _layer(raw: Mapping[str, Any], data: Any, datasets: Mapping[str, Any]) -> Layer:
    mark = raw.get("mark")
    props = dict(mark) if isinstance(mark, Mapping) else {"type": mark}
    kind = props.get("type")
    if kind not in MARKS or set(props) - _MARK_KEYS:
        raise NotDrawable(f"mark {props}")
    enc = raw.get("encoding") or {}
    if set(enc) - CHANNELS:
        raise NotDrawable(f"channels {sorted(set(enc) - CHANNELS)}")
    channels = {k: _channel(k, v) for k, v in enc.items() if k != "tooltip"}
    tips = enc.get("tooltip") or []
    tips = [tips] if isinstance(tips, Mapping) else list(tips)
    tooltips = [_channel("tooltip", t) for t in tips]
    return Layer(str(kind), props, channels, tooltips, _rows(raw.get("data", data), datasets))


def read(spec: Mapping[str, Any]) -> Unit | Concat:
    """``spec`` (a top-level Vega-Lite dict) as views. Raises :class:`NotDrawable` outside the subset."""
    return _view(spec, spec.get("data"), spec.get("datasets") or {}, top=True)


def _view(raw: Mapping[str, Any], data: Any, datasets: Mapping[str, Any], top: bool = False) -> Unit | Concat:
    data = raw.get("data", data)
    title = title_of(raw.get("title"))
    if "hconcat" in raw:
        raise NotDrawable("side-by-side views")
    for key in ("vconcat",):
        if key in raw:
            if set(raw) - {key, "spacing", "title", "data", "$schema", "config", "datasets"}:
                raise NotDrawable(f"{key} options")
            views = [_view(v, data, datasets) for v in raw[key]]
            spacing = raw.get("spacing", 20)
            return Concat(views, key[0], float(spacing), title)
    extra = set(raw) - _UNIT_KEYS - {"layer"}
    if extra:
        raise NotDrawable(f"view options {sorted(extra)}")
    if "layer" in raw:
        layers = []
        for sub in raw["layer"]:
            if "layer" in sub or set(sub) - {"mark", "encoding", "data"}:
                raise NotDrawable("nested layers or layer options")
            layers.append(_layer(sub, data, datasets))
    else:
        layers = [_layer(raw, data, datasets)]
    width, height = raw.get("width"), raw.get("height")
    if not isinstance(width, (int, float)) or not isinstance(height, (int, float)):
        raise NotDrawable("a width or height that is not a number of px")
    return Unit(layers, float(width), float(height), title)
