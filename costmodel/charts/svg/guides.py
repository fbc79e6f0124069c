"""Axes, legends and titles as Vega lays them out and writes them (default theme: ticks 5 px, labels 2 px
beyond, titles 4 px beyond the labels; legends 18 px from the plot; titles 4 px above everything)."""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import colors, numbers
from .fonts import text_width, truncate
from .markup import escape, group, num, rect_path, text_el, translate
from .scales import Band, Color, Linear

#: the offset Vega adds to a text's y for its baseline, as a share of the font size (rounded to whole px)
_BASELINE = {"top": 0.79, "middle": 0.30, "bottom": -0.21, "alphabetic": 0.0}


def baseline(size: float, kind: str) -> float:
    return float(round(_BASELINE[kind] * size))


def label_box(size: float) -> float:
    """The height Vega's bounds give a one-line label of ``size`` px."""
    return float(math.ceil(size * 0.9))


@dataclass
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    def union(self, other: Box) -> Box:
        return Box(min(self.x0, other.x0), min(self.y0, other.y0), max(self.x1, other.x1), max(self.y1, other.y1))


def _ticks(scale: Linear | Band, count: int, fmt: str | None) -> list[tuple[float, str]]:
    """(px, label) of each tick."""
    if isinstance(scale, Band):
        return [(scale(v) or 0.0, v) for v in scale.domain]
    lo, hi = scale.domain
    values = numbers.ticks(lo, hi, count)
    formatter: Callable[[float], str] = numbers.vega_tick_format(lo, hi, count, fmt)
    return [(scale(v), formatter(v)) for v in values]


def _parity(items: list[Any], overlaps: Callable[[Any, Any], bool]) -> list[Any]:
    """Vega's ``parity`` label overlap: drop every other label until none overlap."""
    while len(items) > 2 and any(overlaps(a, b) for a, b in itertools.pairwise(items)):
        items = items[::2]
    return items


def _line(p: float, bottom: bool, start: float, size: float, stroke: str) -> str:
    """A tick or grid line at ``p`` px (whole px, as Vega rounds ticks) of ``size`` px across the axis."""
    at = translate(round(p), start) if bottom else translate(start, round(p))
    ends = f'x2="0" y2="{num(size)}"' if bottom else f'x2="{num(-size)}" y2="0"'
    return f'<line transform="{at}" {ends} stroke="{stroke}" stroke-width="1"/>'


def axis(orient: str, scale: Linear | Band, length: float, other: float, cfg: dict[str, Any], title: str | None,
         options: dict[str, Any], grid: bool) -> tuple[str, str, Box]:
    """The grid (drawn under the marks) and the axis of ``orient`` (``bottom`` or ``left``) for ``scale``, and the
    box the axis takes (plot coordinates). ``length``: the plot's size along the axis; ``other``: across it."""
    fs, tfs = float(cfg["labelFontSize"]), float(cfg["titleFontSize"])
    tick, pad, tpad = float(cfg["tickSize"]), float(cfg["labelPadding"]), float(cfg["titlePadding"])
    count = int(options.get("tickCount") or math.ceil(length / 40))
    ticks = _ticks(scale, count, options.get("format"))
    bottom = orient == "bottom"
    origin = translate(0.5, other + 0.5) if bottom else translate(0.5, 0.5)
    grid_svg = ""
    if grid and isinstance(scale, Linear):
        lines = [_line(p, bottom, 0.0, -other, cfg["gridColor"]) for p, _ in ticks]
        grid_svg = group("mark-group role-axis", [group(None, [group("mark-rule role-axis-grid", lines)])],
                         transform=origin, extra=' aria-hidden="true"')
    tick_lines = [_line(p, bottom, 0.0, tick, cfg["tickColor"]) for p, _ in ticks]
    limit = float(cfg.get("labelLimit", 180))
    labels = [(p, truncate(text, limit, fs)) for p, text in ticks]
    widths = {text: text_width(text, fs) for _, text in labels}
    flush = bottom and isinstance(scale, Linear)

    def span(item: tuple[float, str]) -> tuple[float, float]:
        """The px a bottom label covers along the axis (flush labels at the ends inside the plot)."""
        p, t = item
        w = widths[t]
        if flush and p <= 0.5:
            return (p, p + w)
        if flush and p >= length - 0.5:
            return (p - w, p)
        return (p - w / 2, p + w / 2)

    if options.get("labelOverlap", isinstance(scale, Linear)):
        if bottom:
            labels = _parity(labels, lambda a, b: span(a)[1] > span(b)[0] and span(b)[1] > span(a)[0])
        else:
            labels = _parity(labels, lambda a, b: abs(a[0] - b[0]) < fs)
    texts = []
    for p, text in labels:
        if bottom:
            anchor = "start" if flush and p <= 0.5 else "end" if flush and p >= length - 0.5 else "middle"
            texts.append(text_el(text, p, tick + pad + baseline(fs, "top"), fs, anchor, cfg["labelColor"]))
        else:
            texts.append(text_el(text, -(tick + pad), p + baseline(fs, "middle"), fs, "end", cfg["labelColor"]))
    domain = (f'<line transform="translate(0,0)" x2="{num(length)}" y2="0" stroke="{cfg["domainColor"]}" '
              f'stroke-width="1"/>' if bottom else
              f'<line transform="translate(0,0)" x2="0" y2="{num(length)}" stroke="{cfg["domainColor"]}" '
              f'stroke-width="1"/>')
    parts = [group("mark-rule role-axis-tick", tick_lines), group("mark-text role-axis-label", texts),
             group("mark-rule role-axis-domain", [domain])]
    if bottom:
        extent = tick + pad + (label_box(fs) if labels else 0.0)
        box = Box(min([0.0] + [span(item)[0] for item in labels]), other,
                  max([length] + [span(item)[1] for item in labels]), other + extent)
    else:
        wmax = max([0.0] + [widths[t] for _, t in labels])
        extent = tick + pad + wmax
        box = Box(-extent, min([0.0] + [p - fs / 2 for p, _ in labels]), 0.0,
                  max([length] + [p + fs / 2 for p, _ in labels]))
    if title:
        if bottom:
            ty = extent + tpad
            parts.append(group("mark-text role-axis-title", [text_el(
                title, length / 2, ty + baseline(tfs, "top"), tfs, "middle", cfg["titleColor"], bold=True)]))
            box = Box(box.x0, box.y0, box.x1, other + ty + tfs)
        else:
            tx = -(extent + tpad)
            turned = (f'<text text-anchor="middle" transform="{translate(tx, length / 2)} rotate(-90) '
                      f'translate(0,{num(baseline(tfs, "bottom"))})" font-family="sans-serif" font-size="{num(tfs)}px" '
                      f'font-weight="bold" fill="{cfg["titleColor"]}">{escape(title)}</text>')
            parts.append(group("mark-text role-axis-title", [turned]))
            half = text_width(title, tfs, bold=True) / 2  # turned: its length runs along the axis
            box = Box(tx - tfs, min(box.y0, length / 2 - half), box.x1, max(box.y1, length / 2 + half))
    label = f"{'X' if bottom else 'Y'}-axis" + (f" titled '{title}'" if title else "")
    axis_svg = group("mark-group role-axis", [group(None, parts)], transform=origin,
                     extra=f' role="graphics-symbol" aria-roledescription="axis" aria-label="{escape(label)}"')
    return grid_svg, axis_svg, box


@dataclass(frozen=True)
class SymbolLook:
    """How a symbol legend draws its symbols: ``shape`` (square, circle or stroke), outlined in the colour too when a
    layer is stroked (lines, rules), at the first coloured layer's ``opacity``."""

    shape: str
    stroked: bool = False
    opacity: float = 1.0


def legend(color: Color, title: str | None, cfg: dict[str, Any], symbol: SymbolLook, orient: str, columns: int | None,
           x: float, y: float, gradient_id: str, plot_height: float) -> tuple[str, Box]:
    """A legend for ``color`` at (x, y): symbols (nominal) or a gradient (continuous)."""
    tfs = float(cfg["titleFontSize"])
    top = (tfs + float(cfg["titlePadding"])) if title else 0.0
    parts: list[str] = []
    if color.nominal is None:
        body, w, h = _gradient(color, cfg, top, gradient_id, plot_height)
        parts.append(body)
    else:
        body, w, h = _symbols(color, cfg, top, symbol, orient, columns)
        parts.append(body)
    if title:
        w = max(w, text_width(title, tfs, bold=True))
        parts.append(group("mark-text role-legend-title", [
            text_el(title, 0, baseline(tfs, "top"), tfs, "start", "#000", bold=True)]))
    w = float(math.ceil(w))
    bg = f'<path class="background" aria-hidden="true" d="{rect_path(0, 0, w, h)}"/>'
    kind = "Gradient" if color.nominal is None else "Symbol"
    label = f"{kind} legend" + (f" titled '{title}'" if title else "")
    svg = group("mark-group role-legend", [group(None, [bg, group(None, parts)], transform=translate(x, y))],
                extra=f' role="graphics-symbol" aria-roledescription="legend" aria-label="{escape(label)}"')
    return svg, Box(x, y, x + w, y + h)


_SYMBOLS = {"square": "M-5,-5h10v10h-10Z", "circle": "M5,0A5,5,0,1,1,-5,0A5,5,0,1,1,5,0",
            "stroke": "M-5,0L5,0"}


def _symbols(color: Color, cfg: dict[str, Any], top: float, symbol: SymbolLook, orient: str,
             columns: int | None) -> tuple[str, float, float]:
    fs = float(cfg["labelFontSize"])
    values = color.order
    ncol = columns or (len(values) if orient in ("top", "bottom") and columns else 1)
    row_h = max(fs, 10.0)
    shown = {v: truncate(v, float(cfg.get("labelLimit", 160)), fs) for v in values}
    entries = [(v, 16 + text_width(shown[v], fs)) for v in values]
    col_w = [max(w for i, (_, w) in enumerate(entries) if i % ncol == c) for c in range(min(ncol, len(entries)))]
    col_x = [0.0]
    for c in col_w[:-1]:
        col_x.append(float(math.ceil(col_x[-1] + c + float(cfg["columnPadding"]))))
    out = []
    for i, (v, w) in enumerate(entries):
        cx, ry = col_x[i % ncol], (i // ncol) * (row_h + float(cfg["rowPadding"]))
        paint = escape(color(v) or "#000")
        paint_attrs = (f'stroke="{paint}"' if symbol.shape == "stroke" else
                       f'fill="{paint}"' + (f' stroke="{paint}"' if symbol.stroked else ""))
        opacity = f' opacity="{num(symbol.opacity)}"' if symbol.opacity != 1 else ""
        shape = (f'<path transform="translate(6,{num(row_h / 2)})" d="{_SYMBOLS[symbol.shape]}" {paint_attrs} '
                 f'stroke-width="1.5"{opacity}/>')
        label = text_el(shown[v], 16, row_h / 2 + baseline(fs, "middle"), fs, "start", "#000")
        out.append(group(None, [
            f'<path class="background" aria-hidden="true" d="{rect_path(0, 0, w, row_h)}"/>',
            group("mark-symbol role-legend-symbol", [shape]), group("mark-text role-legend-label", [label])],
            transform=translate(cx, ry)))
    rows = math.ceil(len(entries) / ncol) if entries else 0
    height = top + rows * row_h + max(0, rows - 1) * float(cfg["rowPadding"])
    width = (col_x[-1] + col_w[-1]) if col_w else 0.0
    return (group("mark-group role-legend-entry", [group("mark-group role-scope", out)],
                  transform=translate(0, top)), width, height)


def _gradient(color: Color, cfg: dict[str, Any], top: float, gid: str, plot_height: float) -> tuple[str, float, float]:
    fs = float(cfg["labelFontSize"])
    length = min(200.0, max(64.0, plot_height))
    thick = float(cfg["gradientThickness"])
    lo, hi = color.domain
    stops = colors.gradient_stops(color.scheme or "blues", color.reverse, color.domain, color.clamp)
    stop_svg = "".join(f'<stop offset="{numbers.js_number(o)}" stop-color="{escape(c)}"/>' for o, c in stops)
    grad = (f'<defs><linearGradient id="{gid}" x1="0" x2="0" y1="1" y2="0">{stop_svg}</linearGradient></defs>'
            f'<g class="mark-rect role-legend-gradient"><path d="{rect_path(0, 0, thick, length)}" '
            f'fill="url(#{gid})" stroke="#ddd" stroke-width="0"/></g>')
    count = max(2, math.ceil(length / 40))
    values = numbers.ticks(lo, hi, count)
    fmt = numbers.vega_tick_format(lo, hi, count)
    labels = []
    wmax = 0.0
    for v in values:
        yy = length - (v - lo) / (hi - lo) * length if hi != lo else length / 2
        kind = "bottom" if yy >= length - 0.5 else "top" if yy <= 0.5 else "middle"
        text = fmt(v)
        wmax = max(wmax, text_width(text, fs))
        labels.append(text_el(text, thick + 2, yy + baseline(fs, kind), fs, "start", "#000"))
    body = group("mark-group role-legend-entry", [grad, group("mark-text role-legend-label", labels)],
                 transform=translate(0, top))
    return body, thick + 2 + wmax, top + length


def title_block(lines: Sequence[str], subtitle: Sequence[str], cfg: dict[str, Any], anchor: str) -> tuple[list[str], float]:
    """The title (``lines``) and ``subtitle`` with their top at 0: the SVG of each part, and the block's height."""
    fs, sfs = float(cfg["fontSize"]), float(cfg["subtitleFontSize"])
    text_anchor = "start" if anchor == "start" else "middle"
    parts = []
    y = 0.0
    for i, line in enumerate(lines):
        parts.append(text_el(line, 0, y + baseline(fs, "top"), fs, text_anchor, "#000", bold=True))
        y += fs + (2 if i < len(lines) - 1 else 0)
    body = [group("mark-text role-title-text", parts)]
    if subtitle:
        y += float(cfg["subtitlePadding"])
        tspans = "".join("<tspan>" + escape(t) + "</tspan>" if i == 0 else
                         '<tspan x="0" dy="' + num(sfs + 2) + '">' + escape(t) + "</tspan>"
                         for i, t in enumerate(subtitle))
        sub = (f'<text text-anchor="{text_anchor}" transform="translate(0,{num(y + baseline(sfs, "top"))})" '
               f'font-family="sans-serif" font-size="{num(sfs)}px" fill="#000">{tspans}</text>')
        body.append(group("mark-text role-title-subtitle", [sub]))
        y += sfs + (sfs + 2) * (len(subtitle) - 1)
    return body, y
