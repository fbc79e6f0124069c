"""A layer's marks as Vega writes them to SVG: bars and rects as paths, lines and areas as one path per series
(d3's linear and step-after curves), rules as lines, texts, and the points a ``line`` with ``point: true`` adds."""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import numbers
from .markup import NotDrawable, escape, group, num, rect_path, text_el, translate
from .scales import Band, Color, Linear, number
from .spec import UNSET, Channel, Layer

DEFAULT_COLOR = "#4c78a8"
Scale = Linear | Band | None
_DESCRIBE_LIMIT = 10


def aggregated(layer: Layer) -> list[dict[str, Any]]:
    """The layer's rows after its ``sum`` aggregate (grouped by every other field it encodes, as Vega-Lite does),
    then stacked: each summed row gets ``<field>_start``/``<field>_end`` (stack ``zero`` over the other axis, in the
    ``order`` channel's order)."""
    summed = [c for c in layer.channels.values() if c.aggregate == "sum"]
    if not summed:
        return layer.rows
    if len(summed) > 1 or summed[0].name not in ("x", "y"):
        raise NotDrawable("an aggregate other than one sum on x or y")
    agg = summed[0]
    total = agg.field
    if not total:
        raise NotDrawable("a sum without a field")
    keys = [c.field for c in [*layer.channels.values(), *layer.tooltips]
            if c.field and c.aggregate is None and c.field != total]
    keys = list(dict.fromkeys(keys))
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in layer.rows:
        key = tuple(row.get(k) for k in keys)
        v = number(row.get(total))
        out = groups.get(key)
        if out is None:
            out = groups[key] = {k: row.get(k) for k in keys}
            out[total] = 0.0
        if v is not None:
            out[total] += v
    rows = list(groups.values())
    if agg.stack is not UNSET and agg.stack not in ("zero", None, True):
        raise NotDrawable("stack other than zero")
    other = layer.channels.get("y" if agg.name == "x" else "x")
    order = layer.channels.get("order")
    if agg.stack is None:
        for r in rows:
            r[f"{total}_start"], r[f"{total}_end"] = 0.0, r[total]
        return rows
    by: dict[Any, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r.get(other.field) if other and other.field else None, []).append(r)
    by_field = order.field if order is not None else None
    for members in by.values():
        if by_field:
            members.sort(key=lambda r: _sort_key(r.get(by_field)))
        pos = neg = 0.0
        for r in members:
            v = r[total]
            if v >= 0:
                r[f"{total}_start"], r[f"{total}_end"] = pos, pos + v
                pos += v
            else:
                r[f"{total}_start"], r[f"{total}_end"] = neg + v, neg
                neg += v
    return rows


def _sort_key(value: Any) -> tuple[int, Any]:
    v = number(value)
    return (0, v) if v is not None else (1, str(value))


def placed_values(layer: Layer, rows: Sequence[Mapping[str, Any]], axis: str) -> list[Any]:
    """The values ``layer`` places on ``axis`` (its ``axis`` and ``axis2`` fields; stacked sums' extents)."""
    out: list[Any] = []
    for name in (axis, axis + "2"):
        ch = layer.channels.get(name)
        if ch is None or not ch.field:
            continue
        if ch.aggregate == "sum":
            out += [r.get(f"{ch.field}_start") for r in rows] + [r.get(f"{ch.field}_end") for r in rows]
        else:
            out += [r.get(ch.field) for r in rows]
    return out


def _fmt(ch: Channel, value: Any) -> str:
    if value is None:
        return "null"
    v = number(value)
    if v is not None:
        return numbers.format_number(ch.format, v) if ch.format else numbers.js_number(v)
    return str(value)


def describe(layer: Layer, row: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    """The ``aria-label`` Vega-Lite gives a mark: each encoded field as ``title: value``, then the tooltip's."""
    parts = []
    for name in ("x", "y", "x2", "y2", "color", "text"):
        ch = layer.channels.get(name)
        if ch is not None and ch.field:
            parts.append(f"{titles.get(name, ch.field)}: {_fmt(ch, row.get(ch.field))}")
    for ch in layer.tooltips:
        if ch.field:
            label = ch.title if isinstance(ch.title, str) else ch.field
            parts.append(f"{label}: {_fmt(ch, row.get(ch.field))}")
    return "; ".join(dict.fromkeys(parts))


class Drawn:
    """Where a layer's marks were put, for the page's bounds: (x0, y0, x1, y1) px."""

    def __init__(self) -> None:
        self.box = [math.inf, math.inf, -math.inf, -math.inf]

    def add(self, x0: float, y0: float, x1: float, y1: float) -> None:
        b = self.box
        b[0], b[1], b[2], b[3] = min(b[0], x0, x1), min(b[1], y0, y1), max(b[2], x0, x1), max(b[3], y0, y1)


def _pos(scale: Scale, value: Any) -> float | None:
    if scale is None:
        return number(value)
    if isinstance(scale, Band):
        return scale(value)
    v = number(value)
    return None if v is None else scale(v)


def _span(layer: Layer, row: Mapping[str, Any], axis: str, scale: Scale, size: float) -> tuple[float, float] | None:
    """The px extent of a bar or rect along ``axis``."""
    ch, ch2 = layer.channels.get(axis), layer.channels.get(axis + "2")
    if ch is None or not ch.field:
        return (0.0, size)
    if isinstance(scale, Band):
        s = scale.start(row.get(ch.field))
        return None if s is None else (s, s + scale.bandwidth)
    if ch.aggregate == "sum":
        a, b = _pos(scale, row.get(f"{ch.field}_start")), _pos(scale, row.get(f"{ch.field}_end"))
    elif ch2 is not None and ch2.field:
        a, b = _pos(scale, row.get(ch.field)), _pos(scale, row.get(ch2.field))
    else:
        a = _pos(scale, row.get(ch.field))
        b = _pos(scale, 0.0) if isinstance(scale, Linear) else None
        if isinstance(scale, Linear):
            lo, hi = scale.domain
            b = scale(min(max(0.0, lo), hi))
    if a is None or b is None:
        return None
    return (min(a, b), max(a, b))


def _paint(layer: Layer, row: Mapping[str, Any], color: Color | None) -> str | None:
    ch = layer.channels.get("color")
    if ch is not None and ch.field and color is not None:
        return color(row.get(ch.field))
    if ch is not None and isinstance(ch.value, str):
        return ch.value
    return layer.props.get("color") or layer.props.get("fill") or None


def draw(layer: Layer, index: int, rows: Sequence[Mapping[str, Any]], x: Scale, y: Scale, color: Color | None,
         width: float, height: float, titles: Mapping[str, str], drawn: Drawn) -> str:
    """The SVG group of ``layer``'s marks (``index``: its place in the plot, for Vega's class names)."""
    kind = layer.mark
    maker: Callable[..., str] = {"bar": _rects, "rect": _rects, "line": _lines, "area": _areas, "rule": _rules,
                                 "text": _texts, "point": _points}[kind]
    body = maker(layer, rows, x, y, color, width, height, titles, drawn)
    role = {"bar": "rect", "line": "line", "area": "area", "rule": "rule", "text": "text", "point": "symbol"}.get(
        kind, "rect")
    out = group(f"mark-{role} role-mark layer_{index}_marks", [body])
    if kind == "line" and layer.props.get("point"):
        out += group(f"mark-symbol role-mark layer_{index}_points",
                     [_points(layer, rows, x, y, color, width, height, titles, drawn, filled=True)])
    return out


def _opacity(layer: Layer, default: float | None = None) -> str:
    op = layer.props.get("opacity", default)
    return "" if op is None else f' opacity="{num(float(op))}"'


def _rects(layer: Layer, rows: Sequence[Mapping[str, Any]], x: Scale, y: Scale, color: Color | None,
           width: float, height: float, titles: Mapping[str, str], drawn: Drawn) -> str:
    out = []
    role = "bar" if layer.mark == "bar" else "rect"
    for row in rows:
        xs, ys = _span(layer, row, "x", x, width), _span(layer, row, "y", y, height)
        fill = _paint(layer, row, color) or DEFAULT_COLOR
        if xs is None or ys is None:
            continue
        drawn.add(xs[0], ys[0], xs[1], ys[1])
        label = escape(describe(layer, row, titles))
        out.append(f'<path aria-label="{label}" role="graphics-symbol" aria-roledescription="{role}" '
                   f'd="{rect_path(xs[0], ys[0], xs[1] - xs[0], ys[1] - ys[0])}" fill="{escape(fill)}"'
                   f"{_opacity(layer)}/>")
    return "".join(out)


def _series(layer: Layer, rows: Sequence[Mapping[str, Any]], color: Color | None) -> list[tuple[str | None,
                                                                                                 list[Mapping[str, Any]]]]:
    """Rows split by colour (one line or area per colour), in the colour scale's order."""
    ch = layer.channels.get("color")
    if ch is None or not ch.field:
        return [(_paint(layer, {}, color), list(rows))]
    by: dict[Any, list[Mapping[str, Any]]] = {}
    for r in rows:
        by.setdefault(r.get(ch.field), []).append(r)
    return [(_paint(layer, rs[0], color), rs) for rs in by.values()]


def _xy(layer: Layer, row: Mapping[str, Any], x: Scale, y: Scale, ych: str = "y") -> tuple[float, float] | None:
    cx, cy = layer.channels.get("x"), layer.channels.get(ych)
    if cx is None or cy is None or not cx.field or not cy.field:
        raise NotDrawable(f"a {layer.mark} without x and {ych} fields")
    px, py = _pos(x, row.get(cx.field)), _pos(y, row.get(cy.field))
    return None if px is None or py is None else (px, py)


def _stroke(layer: Layer, paint: str | None, width: float = 2.0) -> str:
    dash = layer.props.get("strokeDash")
    sw = float(layer.props.get("strokeWidth", width))
    out = f' stroke="{escape(paint or DEFAULT_COLOR)}" stroke-width="{num(sw)}"'
    if dash:
        out += f' stroke-dasharray="{",".join(num(float(d)) for d in dash)}"'
    return out + _opacity(layer)


def _sorted_by_x(layer: Layer, rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    field = layer.channels["x"].field or ""
    return sorted(rows, key=lambda r: (number(r.get(field)) is None, number(r.get(field)) or 0.0))


def _lines(layer: Layer, rows: Sequence[Mapping[str, Any]], x: Scale, y: Scale, color: Color | None,
           width: float, height: float, titles: Mapping[str, str], drawn: Drawn) -> str:
    out = []
    for paint, rs in _series(layer, rows, color):
        pts = [p for p in (_xy(layer, r, x, y) for r in _sorted_by_x(layer, rs)) if p is not None]
        if not pts:
            continue
        for px, py in pts:
            drawn.add(px, py, px, py)
        d = "M" + "L".join(f"{num(px)},{num(py)}" for px, py in pts)
        out.append(f'<path role="graphics-object" aria-roledescription="line mark" d="{d}"{_stroke(layer, paint)}/>')
    return "".join(out)


def _areas(layer: Layer, rows: Sequence[Mapping[str, Any]], x: Scale, y: Scale, color: Color | None,
           width: float, height: float, titles: Mapping[str, str], drawn: Drawn) -> str:
    interp = layer.props.get("interpolate", "linear")
    if interp not in ("linear", "step-after"):
        raise NotDrawable(f"interpolate {interp}")
    out = []
    for paint, rs in _series(layer, rows, color):
        top, base = [], []
        for r in _sorted_by_x(layer, rs):
            p = _xy(layer, r, x, y)
            q = _xy(layer, r, x, y, "y2") if "y2" in layer.channels else (
                (p[0], _pos(y, 0.0) if isinstance(y, Linear) else height) if p else None)
            if p is None or q is None or q[1] is None:
                continue
            top.append(p)
            base.append((q[0], q[1]))
        if not top:
            continue
        if interp == "step-after":
            top = _step_after(top)
            base = _step_after(base)
        for px, py in top + base:
            drawn.add(px, py, px, py)
        d = "M" + "L".join(f"{num(px)},{num(py)}" for px, py in top) + "L" + "L".join(
            f"{num(px)},{num(py)}" for px, py in reversed(base)) + "Z"
        out.append(f'<path role="graphics-object" aria-roledescription="area mark" d="{d}" '
                   f'fill="{escape(paint or DEFAULT_COLOR)}"{_opacity(layer)}/>')
    return "".join(out)


def _step_after(pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out = [pts[0]]
    for (_, y0), (x1, y1) in itertools.pairwise(pts):
        out += [(x1, y0), (x1, y1)]
    return out


def _rules(layer: Layer, rows: Sequence[Mapping[str, Any]], x: Scale, y: Scale, color: Color | None,
           width: float, height: float, titles: Mapping[str, str], drawn: Drawn) -> str:
    out = []
    ch = layer.channels
    for row in rows:
        paint = _paint(layer, row, color) or "black"
        fx, fy, fx2 = (ch[n].field if n in ch else None for n in ("x", "y", "x2"))
        if fx and not fy:
            at = _pos(x, row.get(fx))
            if at is None:
                continue
            x0, x1, y0, y1 = at, at, 0.0, height
        elif fy and not fx:
            at = _pos(y, row.get(fy))
            if at is None:
                continue
            x0, x1, y0, y1 = width, 0.0, at, at  # as Vega draws it: from the right edge back
        elif fx and fy and fx2:
            a, b, c = _pos(x, row.get(fx)), _pos(x, row.get(fx2)), _pos(y, row.get(fy))
            if a is None or b is None or c is None:
                continue
            x0, x1, y0, y1 = a, b, c, c
        else:
            raise NotDrawable("a rule that is neither across nor along an axis")
        drawn.add(x0, y0, x1, y1)
        label = escape(describe(layer, row, titles))
        out.append(f'<line aria-label="{label}" role="graphics-symbol" aria-roledescription="rule" '
                   f'transform="{translate(x0, y0)}" x2="{num(x1 - x0)}" y2="{num(y1 - y0)}"'
                   f"{_stroke(layer, paint, 1.0)}/>")
    return "".join(out)


def _texts(layer: Layer, rows: Sequence[Mapping[str, Any]], x: Scale, y: Scale, color: Color | None,
           width: float, height: float, titles: Mapping[str, str], drawn: Drawn) -> str:
    from .fonts import text_width

    ch = layer.channels
    tch = ch.get("text")
    if tch is None or not tch.field:
        raise NotDrawable("a text mark without a text field")
    size = float(layer.props.get("fontSize", 11))
    align = layer.props.get("align", "center")
    anchor = {"left": "start", "center": "middle", "right": "end"}.get(align)
    if anchor is None or layer.props.get("baseline", "middle") != "middle":
        raise NotDrawable("text alignment")
    dx, dy = float(layer.props.get("dx", 0)), float(layer.props.get("dy", 0))
    out = []
    for row in rows:
        px = _pos(x, row.get(ch["x"].field)) if "x" in ch and ch["x"].field else width / 2
        py = _pos(y, row.get(ch["y"].field)) if "y" in ch and ch["y"].field else height / 2
        if px is None or py is None:
            continue
        text = _fmt(tch, row.get(tch.field))
        tx, ty = px + dx, py + dy
        w = text_width(text, size)
        left = tx if anchor == "start" else tx - w / 2 if anchor == "middle" else tx - w
        drawn.add(left, ty - size / 2, left + w, ty + size / 2)
        out.append(text_el(text, tx, ty + round(0.3 * size), size, anchor, fill=_paint(layer, row, color) or "black"))
    return "".join(out)


def _points(layer: Layer, rows: Sequence[Mapping[str, Any]], x: Scale, y: Scale, color: Color | None,
            width: float, height: float, titles: Mapping[str, str], drawn: Drawn, filled: bool = False) -> str:
    r = math.sqrt(float(layer.props.get("size", 30))) / 2
    rs = num(r)
    d = f"M{rs},0A{rs},{rs},0,1,1,-{rs},0A{rs},{rs},0,1,1,{rs},0"
    out = []
    for row in rows:
        p = _xy(layer, row, x, y)
        if p is None:
            continue
        drawn.add(p[0] - r, p[1] - r, p[0] + r, p[1] + r)
        paint = escape(_paint(layer, row, color) or DEFAULT_COLOR)
        label = escape(describe(layer, row, titles))
        out.append(f'<path aria-label="{label}" role="graphics-symbol" aria-roledescription="point" '
                   f'transform="{translate(*p)}" d="{d}" fill="{paint}" stroke-width="2"/>')
    return "".join(out)
