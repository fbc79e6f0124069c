"""A Vega-Lite spec drawn to one SVG document, laid out as Vega's ``pad`` autosize does: the plots at their
width and height, axes, legends and titles around them, 5 px of padding, on white.

:func:`draw` raises :class:`~costmodel.charts.svg.markup.NotDrawable` for a spec outside the subset
(:mod:`costmodel.charts.svg.spec`); it reads only the spec, so the same spec is the same bytes.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from . import guides, marks, scales
from .fonts import text_width
from .markup import NotDrawable, group, num, translate
from .spec import UNSET, Channel, Concat, Layer, Title, Unit, config_of, read

PADDING = 5.0


class _Ids:
    def __init__(self) -> None:
        self.n = 0

    def next(self, stem: str) -> str:
        self.n += 1
        return f"{stem}_{self.n}"


def _title_of(channels: list[Channel]) -> str | None:
    for ch in channels:
        if ch.title is not UNSET:
            return None if ch.title is None else str(ch.title)
    names = [f"Sum of {ch.field}" if ch.aggregate == "sum" else ch.field for ch in channels if ch.field]
    return ", ".join(dict.fromkeys(names)) or None


def _axis_options(channels: list[Channel]) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    for ch in channels:
        if ch.axis is None and ch.scale is not None:
            return None
        if isinstance(ch.axis, Mapping):
            extra = set(ch.axis) - {"labelOverlap", "tickCount", "format", "title"}
            if extra:
                raise NotDrawable(f"axis options {sorted(extra)}")
            out.update(ch.axis)
    return out


def _unit(unit: Unit, cfg: dict[str, dict[str, Any]], ids: _Ids) -> tuple[str, guides.Box]:
    """One plot (layers, axes, legend, title) in its own coordinates: the plot's top left corner is (0, 0)."""
    w, h = unit.width, unit.height
    rows = [marks.aggregated(lay) for lay in unit.layers]
    found: dict[str, Any] = {}
    for axis_name in ("x", "y"):
        chans = [ch for lay in unit.layers for n in (axis_name, axis_name + "2")
                 for ch in [lay.channels.get(n)] if ch is not None and ch.field]
        if not chans:
            found[axis_name] = None
            continue
        for lay in unit.layers:
            ch = lay.channels.get(axis_name)
            if ch is not None and ch.type is None and ch.field:
                raise NotDrawable(f"{axis_name} without a type")
        main = [lay.channels[axis_name] for lay in unit.layers if axis_name in lay.channels
                and lay.channels[axis_name].field]
        values = [v for i, lay in enumerate(unit.layers) for v in marks.placed_values(lay, rows[i], axis_name)
                  if lay.channels.get(axis_name) is None or lay.channels[axis_name].scale is not None]
        bars = any(lay.mark == "bar" for lay in unit.layers)
        typed = main + [c for c in chans if c not in main]
        placing = [lay.mark for lay in unit.layers if lay.channels.get(axis_name) is not None
                   and lay.channels[axis_name].field]
        dimension = axis_name == "x" and all(m in ("line", "area") for m in placing)
        found[axis_name] = (scales.positional(axis_name, typed, values, w if axis_name == "x" else h, bars,
                                              zero_default=not dimension), main)
    color_chans = [lay.channels["color"] for lay in unit.layers if "color" in lay.channels
                   and lay.channels["color"].field]
    color = scales.color(color_chans, unit.layers) if color_chans else None
    xs = found["x"][0] if found["x"] else None
    ys = found["y"][0] if found["y"] else None
    titles = {n: t for n in ("x", "y") if found[n] for t in [_title_of(found[n][1])] if t}
    if color_chans:
        ct = _title_of(color_chans)
        if ct:
            titles["color"] = ct
    drawn = marks.Drawn()
    mark_svg = []
    for i, lay in enumerate(unit.layers):
        lx = None if lay.channels.get("x") is not None and lay.channels["x"].scale is None else xs
        ly = None if lay.channels.get("y") is not None and lay.channels["y"].scale is None else ys
        mark_svg.append(marks.draw(lay, i, rows[i], lx, ly, color, w, h, titles, drawn))
    box = guides.Box(0.0, 0.0, w, h)
    grids, axes = [], []
    for name, orient, length, other in (("x", "bottom", w, h), ("y", "left", h, w)):
        if not found[name] or found[name][0] is None:
            continue
        opts = _axis_options(found[name][1])
        if opts is None:
            continue
        scale = found[name][0]
        if name == "x" and isinstance(scale, scales.Band):
            raise NotDrawable("a discrete x axis (Vega-Lite turns its labels)")
        g, a, b = guides.axis(orient, scale, length, other, cfg["axis"], titles.get(name), opts,
                              grid=isinstance(scale, scales.Linear))
        grids.append(g)
        axes.append(a)
        box = box.union(b)
    frame = (f'<path class="background" aria-hidden="true" d="M0.5,0.5h{num(w)}v{num(h)}h-{num(w)}Z" '
             f'stroke="{cfg["view"]["stroke"]}"/>')
    parts = [frame] if cfg["view"].get("stroke") else []
    parts += grids + axes + mark_svg
    if color is not None and not any(c.legend is None for c in color_chans):
        leg = next((c.legend for c in color_chans if isinstance(c.legend, Mapping)), {})
        if set(leg) - {"orient", "columns"}:
            raise NotDrawable(f"legend options {sorted(leg)}")
        orient = leg.get("orient", "right")
        if orient not in ("right", "bottom"):
            raise NotDrawable(f"legend orient {orient}")
        first = next(lay for lay in unit.layers if "color" in lay.channels)
        symbol = {"line": "stroke", "rule": "stroke", "point": "circle"}.get(first.mark, "square")
        if first.mark == "line" and first.props.get("point"):
            symbol = "circle"
        if orient == "right":
            lx, ly = w + float(cfg["legend"]["offset"]), 0.0
        else:
            lx, ly = 0.0, box.y1 + float(cfg["legend"]["offset"])
        stroked = any(lay.mark in ("line", "rule") for lay in unit.layers if "color" in lay.channels)
        look = guides.SymbolLook(symbol, stroked, float(first.props.get("opacity", 1)))
        lsvg, lbox = guides.legend(color, titles.get("color"), cfg["legend"], look, orient, leg.get("columns"),
                                   lx, ly, ids.next("gradient"), h)
        parts.append(lsvg)
        box = box.union(lbox)
    if unit.title is not None:
        tsvg, box = _titled(unit.title, cfg, box, w)
        parts.append(tsvg)
    return group("mark-group role-frame root", [group(None, parts, transform="translate(0,0)")]), box


def _titled(title: Title, cfg: dict[str, dict[str, Any]], box: guides.Box, width: float) -> tuple[str, guides.Box]:
    anchor = cfg["title"].get("anchor") or "middle"
    tx = box.x0 if anchor == "start" else width / 2
    body, height = guides.title_block(title.text, title.subtitle, cfg["title"], anchor)
    top = box.y0 - float(cfg["title"]["offset"]) - height
    svg = group("mark-group role-title", [group(None, body, transform=translate(tx, top))])
    widths = [text_width(t, float(cfg["title"]["fontSize"]), bold=True) for t in title.text] + [
        text_width(t, float(cfg["title"]["subtitleFontSize"])) for t in title.subtitle]
    wide = max(widths, default=0.0)
    x0, x1 = (tx, tx + wide) if anchor == "start" else (tx - wide / 2, tx + wide / 2)
    return svg, guides.Box(min(box.x0, x0), top, max(box.x1, x1), box.y1)


def _view(view: Unit | Concat, cfg: dict[str, dict[str, Any]], ids: _Ids) -> tuple[str, guides.Box]:
    if isinstance(view, Unit):
        return _unit(view, cfg, ids)
    parts = []
    box: guides.Box | None = None
    offset = 0.0
    for i, child in enumerate(view.views):
        svg, b = _view(child, cfg, ids)
        # Vega's grid layout reads each view's bounds a px wider all round (its strokes), in whole px
        b = guides.Box(math.floor(b.x0 - 1), math.floor(b.y0 - 1), math.ceil(b.x1 + 1), math.ceil(b.y1 + 1))
        if view.direction == "v":
            dy = 0.0 if i == 0 else offset - b.y0
            parts.append(group(None, [svg], transform=translate(0, dy)))
            moved = guides.Box(b.x0, b.y0 + dy, b.x1, b.y1 + dy)
            offset = moved.y1 + view.spacing
        else:
            dx = 0.0 if i == 0 else offset - b.x0
            parts.append(group(None, [svg], transform=translate(dx, 0)))
            moved = guides.Box(b.x0 + dx, b.y0, b.x1 + dx, b.y1)
            offset = moved.x1 + view.spacing
        box = moved if box is None else box.union(moved)
    assert box is not None
    svg = "".join(parts)
    if view.title is not None:
        tsvg, box = _titled(view.title, cfg, box, box.x1 - box.x0)
        svg += tsvg
    return svg, box


def draw(spec: Mapping[str, Any]) -> str:
    """``spec`` (a Vega-Lite dict in the subset) as an SVG document. Raises :class:`NotDrawable` outside it."""
    view = read(spec)
    cfg = config_of(spec)
    if isinstance(view, Unit) and not view.layers:
        raise NotDrawable("no layers")
    body, box = _view(view, cfg, _Ids())
    x0, y0 = math.floor(box.x0), math.floor(box.y0)
    width = int(math.ceil(box.x1) - x0 + 2 * PADDING)
    height = int(math.ceil(box.y1) - y0 + 2 * PADDING)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" '
            f'class="marks" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
            f'<rect width="{width}" height="{height}" fill="white"/>'
            f'<g fill="none" stroke-miterlimit="10" transform="{translate(PADDING - x0, PADDING - y0)}">'
            f"{body}</g></svg>")


def draw_native(spec: Mapping[str, Any]) -> str | None:
    """``spec`` drawn by :func:`draw`, or None when it is outside the subset (vl-convert draws it then)."""
    try:
        return draw(spec)
    except NotDrawable:
        return None


__all__ = ["Layer", "NotDrawable", "draw", "draw_native"]
