"""Colours as Vega (vl-convert) writes them: the categorical default, continuous schemes, legend gradients.

Nominal colour (``type: nominal``, no ``scale.range``): Vega's ``tableau10`` (:data:`TABLEAU10`). The domain is
the field's distinct values **sorted ascending** (Vega-Lite's default ``sort``; strings compare by UTF-16 code
unit, so ``"10" < "9" < "B" < "a" < "é"``), or their order of first appearance with ``sort: null``; the value at
domain index ``i`` gets ``range[i % len(range)]`` (the range cycles). With an explicit ``scale.domain`` the
index is the value's place in that list; with ``scale.range`` the colours are that list (cycled when shorter); a
value outside an explicit domain gets no colour at all: Vega writes no ``fill`` attribute (:func:`nominal_color`
answers ``None``). Colours are written as given (``#4c78a8``).

Continuous colour (``type: quantitative`` with ``scale.scheme``): Vega-Lite's ``linear`` scale becomes Vega's
``sequential-linear`` (a two-value domain); the scheme is Vega's list of hex stops (:data:`SCHEMES`, from
vega-scale's palettes) joined by d3's ``piecewise(interpolateRgb)``: plain RGB, linear per channel between
neighbouring stops (``scale.interpolate: hcl``, which Vega-Lite adds, is not used for a named scheme). A value
``x`` maps to ``t = (x - d0) * (1 / (d1 - d0))``, clamped to [0, 1] with ``clamp``; ``reverse`` reads the
scheme at ``1 + t * -1``. The fill is written ``rgb(r, g, b)`` (d3-color's format: each channel rounded half
up, clamped to 0..255, ", " between them).

Legend gradient (:func:`gradient_stops`): Vega's ``scaleGradient``: stops at the scale's ticks (d3 ``ticks``
with count 15) plus the domain's ends, offset ``(v - d0) / (d1 - d0)``, colour the scale's at ``v``; a vertical
legend's ``<linearGradient>`` runs ``x1=0 x2=0 y1=1 y2=0`` (offset 0 at the bottom).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence

from . import numbers

#: Vega's default categorical scheme (``tableau10``), in the order it assigns them
TABLEAU10: tuple[str, ...] = (
    "#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac",
)

_PALETTES = {
    "blues": "cfe1f2bed8eca8cee58fc1de74b2d75ba3cf4592c63181bd206fb2125ca40a4a90",
    "greens": "d3eecdc0e6baabdda594d3917bc77d60ba6c46ab5e329a512089430e7735036429",
    "greys": "e2e2e2d4d4d4c4c4c4b1b1b19d9d9d8888887575756262624d4d4d3535351e1e1e",
    "oranges": "fdd8b3fdc998fdb87bfda55efc9244f87f2cf06b18e4580bd14904b93d029f3303",
    "purples": "e2e1efd4d4e8c4c5e0b4b3d6a3a0cc928ec3827cb97566ae684ea25c3696501f8c",
    "reds": "fdc9b4fcb49afc9e80fc8767fa7051f6573fec3f2fdc2a25c81b1db21218970b13",
    "redblue": "8c0d25bf363adf745ef4ae91fbdbc9f2efeed2e5ef9dcae15da2cb2f78b3134b85",
    "redgrey": "8c0d25bf363adf745ef4ae91fcdccbfaf4f1e2e2e2c0c0c0969696646464343434",
    "blueorange": "134b852f78b35da2cb9dcae1d2e5eff2f0ebfce0bafbbf74e8932fc5690d994a07",
    "redyellowblue": "a50026d4322cf16e43fcac64fedd90faf8c1dcf1ecabd6e875abd04a74b4313695",
    "viridis": "440154470e61481a6c482575472f7d443a834144873d4e8a39568c35608d31688e2d708e2a788e27818e23888e21918d"
               "1f988b1fa08822a8842ab07f35b77943bf7154c56866cc5d7ad1518fd744a5db36bcdf27d2e21be9e51afde725",
}

#: Vega's continuous schemes by (lower-case) name: their hex stops, first to last
SCHEMES: dict[str, tuple[str, ...]] = {
    name: tuple("#" + hexes[i:i + 6] for i in range(0, len(hexes), 6)) for name, hexes in _PALETTES.items()
}


def _rgb(hex_color: str) -> tuple[int, int, int]:
    value = int(hex_color[1:], 16)
    return value >> 16, (value >> 8) & 255, value & 255


def format_rgb(r: float, g: float, b: float) -> str:
    """d3-color's ``rgb(r, g, b)`` string: each channel rounded half up and clamped to 0..255 (NaN: 0)."""
    def channel(v: float) -> int:
        return 0 if math.isnan(v) else max(0, min(255, int(numbers.js_round(v))))

    return f"rgb({channel(r)}, {channel(g)}, {channel(b)})"


def _stops(name: str) -> tuple[str, ...]:
    try:
        return SCHEMES[name.lower()]
    except KeyError:
        raise ValueError(f"unknown colour scheme {name!r}; known: {', '.join(sorted(SCHEMES))}") from None


def scheme_color(name: str, t: float) -> str:
    """Vega's continuous scheme ``name`` at ``t`` (0: first stop, 1: last), as the SVG's fill ``rgb(r, g, b)``.

    d3's ``piecewise(interpolateRgb, stops)``: ``t`` beyond [0, 1] extends the end segments (channels then
    clamp to 0..255). Raises ValueError for a scheme not in :data:`SCHEMES`.
    """
    stops = _stops(name)
    n = len(stops) - 1
    t = t * n
    i = max(0, min(n - 1, math.floor(t))) if not math.isnan(t) else 0
    u = t - i
    a, b = _rgb(stops[i]), _rgb(stops[i + 1])
    r, g, bl = (a[k] + u * (b[k] - a[k]) for k in range(3))
    return format_rgb(r, g, bl)


def sequential_color(value: float, domain: Sequence[float], scheme: str, reverse: bool = False,
                     clamp: bool = False) -> str:
    """The fill Vega gives ``value`` on a quantitative colour scale ``{scheme, domain: [d0, d1], reverse, clamp}``.

    ``t = (value - d0) * (1 / (d1 - d0))`` (0.5 when d0 == d1), clamped to [0, 1] with ``clamp``; ``reverse``
    reads the scheme at ``1 + t * -1``. Raises ValueError for a domain not of two values.
    """
    if len(domain) != 2:
        raise ValueError(f"a sequential colour scale needs a domain of two values, got {list(domain)!r}")
    d0, d1 = float(domain[0]), float(domain[1])
    span = d1 - d0
    if span == 0:
        t = 0.5
    else:
        t = (value - d0) * (1 / span)
        if clamp:
            t = max(0.0, min(1.0, t))
    return scheme_color(scheme, 1 + t * -1 if reverse else t)


def gradient_stops(name: str, reverse: bool = False, domain: Sequence[float] = (0.0, 1.0), clamp: bool = False,
                   count: int = 15) -> list[tuple[float, str]]:
    """The ``(offset, colour)`` stops Vega writes in a gradient legend's ``<linearGradient>`` for this scale.

    Vega's ``scaleGradient``: the scale's ``ticks(count)`` (15 unless the legend says otherwise), with the
    domain's ends added when they are not ticks; offset ``(v - d0) / (d1 - d0)`` (a float: Vega writes it as
    JavaScript prints the number, ``0``, ``0.05``, ``1``); colour :func:`sequential_color` at ``v``. A domain of
    zero span is read as [0, 1].
    """
    d0, d1 = float(domain[0]), float(domain[-1])
    if not d1 - d0:
        d0, d1 = 0.0, 1.0
    values = numbers.ticks(d0, d1, count)
    if not values or values[0] != d0:
        values.insert(0, d0)
    if values[-1] != d1:
        values.append(d1)

    def fraction(v: float) -> float:
        return (v - d0) / (d1 - d0)

    return [(fraction(v), sequential_color(v, (d0, d1), name, reverse, clamp)) for v in values]


def sort_domain(values: Iterable[str]) -> list[str]:
    """The distinct ``values`` in Vega's ascending order (UTF-16 code units, as JavaScript compares strings)."""
    return sorted(set(values), key=lambda s: s.encode("utf-16-be"))


def nominal_color(value: Hashable, domain: Sequence[Hashable], colors: Sequence[str] = TABLEAU10) -> str | None:
    """The colour Vega's ordinal scale gives ``value``: ``colors[domain.index(value) % len(colors)]``.

    ``domain`` is the scale's domain (:func:`sort_domain` of the field's values, or the spec's
    ``scale.domain``); a value outside it has no colour (``None``: Vega writes no ``fill``/``stroke``). A value
    listed twice in ``domain`` counts once (d3's ordinal scale keeps distinct values, in order).
    """
    return nominal_palette(domain, colors)(value)


def nominal_palette(domain: Sequence[Hashable], colors: Sequence[str] = TABLEAU10) -> Callable[[Hashable], str | None]:
    """:func:`nominal_color` with the domain looked up once: ``value -> colour or None``.

    A value listed twice keeps its first place, and later values are not shifted by the repeat (d3's ordinal
    scale keeps distinct values in order).
    """
    return nominal_table(domain, colors).get


def nominal_table(domain: Sequence[Hashable], colors: Sequence[str] = TABLEAU10) -> dict[Hashable, str]:
    """Each distinct value of ``domain`` (in order) with its colour, ``colors`` repeated from the start."""
    return {v: colors[i % len(colors)] for i, v in enumerate(dict.fromkeys(domain))}
