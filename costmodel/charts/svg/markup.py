"""SVG text for the drawn charts: numbers as the page writes them, escaped text and attributes, elements."""
from __future__ import annotations

import math
from collections.abc import Iterable


class NotDrawable(NotImplementedError):
    """The spec uses a part of Vega-Lite this renderer does not draw (the caller draws it with vl-convert)."""


def num(x: float, digits: int = 3) -> str:
    """``x`` with at most ``digits`` decimals, trailing zeros dropped (``-0`` written ``0``): coordinates in px.
    Raises :class:`NotDrawable` for NaN and infinities (no coordinate can be drawn from them)."""
    if not math.isfinite(x):
        raise NotDrawable(f"a coordinate is not finite ({x})")
    text = f"{x:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def escape(text: str) -> str:
    """``text`` safe inside an element or a double-quoted attribute."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;"))


def attrs(pairs: Iterable[tuple[str, object]]) -> str:
    """`` name="value"`` for each pair whose value is not None (strings escaped, numbers by :func:`num`)."""
    out = []
    for name, value in pairs:
        if value is None:
            continue
        text = num(value) if isinstance(value, float) else escape(str(value))
        out.append(f' {name}="{text}"')
    return "".join(out)


def translate(x: float, y: float) -> str:
    return f"translate({num(x)},{num(y)})"


def group(cls: str | None, body: Iterable[str], transform: str | None = None, extra: str = "") -> str:
    """A ``<g>`` holding ``body``."""
    head = "<g" + (f' class="{cls}"' if cls else "") + (f' transform="{transform}"' if transform else "") + extra + ">"
    return head + "".join(body) + "</g>"


def rect_path(x: float, y: float, w: float, h: float) -> str:
    """The path Vega writes for a rectangle (``M x,y h w v h h -w Z``)."""
    return f"M{num(x)},{num(y)}h{num(w)}v{num(h)}h{num(-w)}Z"


def text_el(text: str, x: float, y: float, size: float, anchor: str = "start", fill: str = "#000",
            bold: bool = False, rotate: float | None = None, extra: str = "") -> str:
    """A ``<text>`` at (x, y) (y is the baseline's position, already offset)."""
    transform = translate(x, y) + (f" rotate({num(rotate)})" if rotate is not None else "")
    weight = ' font-weight="bold"' if bold else ""
    return (f'<text text-anchor="{anchor}" transform="{transform}" font-family="sans-serif" '
            f'font-size="{num(size)}px"{weight} fill="{escape(fill)}"{extra}>{escape(text)}</text>')
