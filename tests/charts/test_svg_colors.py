"""Colours of charts.svg.colors equal the fills and gradient stops vl-convert writes."""
from __future__ import annotations

import re
from typing import Any

import pytest

from costmodel.charts.svg.colors import (
    SCHEMES,
    TABLEAU10,
    format_rgb,
    gradient_stops,
    nominal_color,
    nominal_palette,
    scheme_color,
    sequential_color,
    sort_domain,
)

#: the report's heatmap colour scale (job step time per rank vs the job median)
HEATMAP_SCALE: dict[str, Any] = {"clamp": True, "domain": [-20, 20], "reverse": True, "scheme": "redblue"}
VALUES = [-25, -20, -19.99, -17.5, -15, -12.345, -10, -7.5, -5, -2.5, -1, -0.5, -0.1, -0.0890904, -0.0160684, 0,
          0.0194662, 0.038578, 0.119408, 0.5, 1, 2.5, 3.3333, 5, 7.5, 10, 12.5, 15, 17.5, 19.99, 20, 33.3]

#: fills vl-convert 1.9.0 wrote for these values of the heatmap's scale
FROZEN_FILLS = {
    -25: "rgb(19, 75, 133)", -20: "rgb(19, 75, 133)", -17.5: "rgb(37, 103, 162)", -15: "rgb(59, 131, 185)",
    -12.345: "rgb(89, 158, 201)", -10: "rgb(125, 182, 214)", -7.5: "rgb(164, 205, 227)",
    -5: "rgb(197, 222, 236)", -2.5: "rgb(222, 233, 239)", -1: "rgb(234, 237, 238)", -0.5: "rgb(238, 238, 238)",
    -0.1: "rgb(241, 239, 238)", -0.0160684: "rgb(242, 239, 238)", 0: "rgb(242, 239, 238)",
    0.119408: "rgb(242, 238, 237)", 0.5: "rgb(243, 236, 233)", 1: "rgb(244, 234, 229)",
    2.5: "rgb(248, 227, 215)", 3.3333: "rgb(249, 222, 207)", 5: "rgb(249, 208, 187)", 7.5: "rgb(245, 180, 152)",
    10: "rgb(234, 145, 120)", 12.5: "rgb(219, 108, 90)", 15: "rgb(199, 70, 67)", 17.5: "rgb(172, 39, 50)",
    19.99: "rgb(140, 13, 37)", 20: "rgb(140, 13, 37)", 33.3: "rgb(140, 13, 37)",
}

#: the heatmap legend's <linearGradient> stops as vl-convert 1.9.0 wrote them (offset text, stop-color)
FROZEN_GRADIENT = [
    ("0", "rgb(19, 75, 133)"), ("0.05", "rgb(33, 98, 156)"), ("0.1", "rgb(47, 120, 179)"),
    ("0.15", "rgb(70, 141, 191)"), ("0.2", "rgb(93, 162, 203)"), ("0.25", "rgb(125, 182, 214)"),
    ("0.3", "rgb(157, 202, 225)"), ("0.35", "rgb(184, 216, 232)"), ("0.4", "rgb(210, 229, 239)"),
    ("0.45", "rgb(226, 234, 239)"), ("0.5", "rgb(242, 239, 238)"), ("0.55", "rgb(247, 229, 220)"),
    ("0.6", "rgb(251, 219, 201)"), ("0.65", "rgb(248, 197, 173)"), ("0.7", "rgb(244, 174, 145)"),
    ("0.75", "rgb(234, 145, 120)"), ("0.8", "rgb(223, 116, 94)"), ("0.85", "rgb(207, 85, 76)"),
    ("0.9", "rgb(191, 54, 58)"), ("0.95", "rgb(165, 33, 47)"), ("1", "rgb(140, 13, 37)"),
]


def _heatmap(values: list[float]) -> dict[str, Any]:
    return {
        "data": {"values": [{"i": i, "v": v} for i, v in enumerate(values)]},
        "mark": "rect",
        "encoding": {"x": {"field": "i", "type": "ordinal"},
                     "color": {"field": "v", "type": "quantitative", "scale": HEATMAP_SCALE}},
    }


def _heat(value: float) -> str:
    return sequential_color(value, HEATMAP_SCALE["domain"], "redblue", reverse=True, clamp=True)


@pytest.mark.parametrize(("value", "fill"), sorted(FROZEN_FILLS.items()))
def test_frozen_heatmap_fills(value: float, fill: str) -> None:
    assert _heat(value) == fill


def test_frozen_gradient_stops() -> None:
    stops = gradient_stops("redblue", reverse=True, domain=(-20, 20), clamp=True)
    assert [(float(o), c) for o, c in FROZEN_GRADIENT] == stops


def test_scheme_ends_and_reverse() -> None:
    assert scheme_color("redblue", 0) == "rgb(140, 13, 37)"  # #8c0d25: the scheme's first stop
    assert scheme_color("RedBlue", 1) == "rgb(19, 75, 133)"  # #134b85; names are case-insensitive, as Vega's
    assert scheme_color("blues", 0) == "rgb(207, 225, 242)" and scheme_color("viridis", 1) == "rgb(253, 231, 37)"
    assert sequential_color(-20, (-20, 20), "redblue", reverse=True) == scheme_color("redblue", 1)
    assert sequential_color(5, (5, 5), "blues") == scheme_color("blues", 0.5)  # zero span: the middle
    # unclamped, a value beyond the domain extends the end segment; channels clamp to 0..255
    assert sequential_color(-40, (-20, 20), "redblue", reverse=True) != sequential_color(-20, (-20, 20), "redblue",
                                                                                          reverse=True)
    with pytest.raises(ValueError, match="unknown colour scheme 'nope'"):
        scheme_color("nope", 0.5)


def test_rgb_is_rounded_half_up_as_javascript() -> None:
    assert format_rgb(0.5, 1.5, 2.5) == "rgb(1, 2, 3)"  # Python's round() would give 0, 2, 2
    assert format_rgb(-3, 300, float("nan")) == "rgb(0, 255, 0)"


def test_the_gradients_ticks_are_d3s() -> None:
    from costmodel.charts.svg.numbers import ticks

    assert ticks(-20, 20, 15) == [float(v) for v in range(-20, 21, 2)]
    assert ticks(0.001, 0.0137, 15) == [0.001, 0.002, 0.003, 0.004, 0.005, 0.006, 0.007, 0.008, 0.009, 0.01, 0.011,
                                        0.012, 0.013]
    assert ticks(20, -20, 3) == [20.0, 10.0, 0.0, -10.0, -20.0]
    assert ticks(1, 1, 15) == [1] and ticks(0, 1, 0) == []


def test_nominal_colours_follow_the_sorted_domain_and_cycle() -> None:
    # vl-convert 1.9.0: a nominal field with no scale gets tableau10 by the sorted distinct values
    values = ["b", "a", "B", "10", "9", "\u00e9", "Z", "c", "d", "e", "f", "g", "h", "i", "j"]
    written = {"b": "#eeca3b", "a": "#54a24b", "B": "#e45756", "10": "#4c78a8", "9": "#f58518",
               "\u00e9": "#54a24b", "Z": "#72b7b2", "c": "#b279a2", "d": "#ff9da6", "e": "#9d755d", "f": "#bab0ac",
               "g": "#4c78a8", "h": "#f58518", "i": "#e45756", "j": "#72b7b2"}
    domain = sort_domain(values)
    assert domain[:5] == ["10", "9", "B", "Z", "a"] and domain[-1] == "\u00e9"
    assert {v: nominal_color(v, domain) for v in values} == written
    # sort: null keeps the order of first appearance
    assert [nominal_color(v, ["b", "a", "B"]) for v in ["b", "a", "B"]] == list(TABLEAU10[:3])


def test_explicit_domain_and_range() -> None:
    domain, colours = ["cross-region", "replicate", "wait for GPUs"], ["#d62728", "#1f77b4", "#7f7f7f"]
    assert [nominal_color(v, domain, colours) for v in ["wait for GPUs", "cross-region"]] == ["#7f7f7f", "#d62728"]
    assert nominal_color("c", ["a", "b", "c"], ["#111111", "#222222"]) == "#111111"  # a short range cycles
    assert nominal_color("zz", ["a", "b"], ["#111111", "#222222"]) is None  # outside the domain: no fill at all
    assert nominal_palette(["a", "a", "b"])("b") == TABLEAU10[1]  # a repeated value counts once


def test_schemes_are_vegas_stops() -> None:
    assert SCHEMES["redblue"][0] == "#8c0d25" and SCHEMES["redblue"][-1] == "#134b85"
    assert len(SCHEMES["redblue"]) == 11 and len(SCHEMES["blues"]) == 11 and len(SCHEMES["viridis"]) == 31


# -- against vl-convert itself -------------------------------------------------------------------------------------


def _svg(spec: dict[str, Any]) -> str:
    vlc = pytest.importorskip("vl_convert")
    return str(vlc.vegalite_to_svg(spec))


def test_heatmap_fills_and_gradient_equal_vl_convert() -> None:
    svg = _svg(_heatmap(VALUES))
    fills = re.findall(r'aria-label="i: (\d+); v: [^"]*"[^>]*fill="([^"]*)"', svg)
    assert len(fills) == len(VALUES)
    assert {VALUES[int(i)]: f for i, f in fills} == {v: _heat(v) for v in VALUES}
    gradient = re.search(r'<linearGradient id="gradient_\d+" x1="0" x2="0" y1="1" y2="0">(.*?)</linearGradient>', svg)
    assert gradient is not None
    assert re.findall(r'<stop offset="([^"]*)" stop-color="([^"]*)"/>', gradient.group(1)) == FROZEN_GRADIENT


@pytest.mark.parametrize(("scheme", "reverse"), [("blues", False), ("viridis", True), ("redblue", False)])
def test_other_schemes_equal_vl_convert(scheme: str, reverse: bool) -> None:
    values = [v / 4 for v in range(-5, 46)]
    spec = _heatmap(values)
    spec["encoding"]["color"]["scale"] = {"scheme": scheme, "domain": [0, 10], "reverse": reverse}
    svg = _svg(spec)
    fills = {values[int(i)]: f for i, f in re.findall(r'aria-label="i: (\d+); v: [^"]*"[^>]*fill="([^"]*)"', svg)}
    assert fills == {v: sequential_color(v, (0, 10), scheme, reverse) for v in values}


def test_nominal_default_colours_equal_vl_convert() -> None:
    values = ["b", "a", "B", "10", "9", "\u00e9", "Z", "c", "d", "e", "f", "g", "h", "i", "j"]
    spec = {"data": {"values": [{"c": v, "x": i} for i, v in enumerate(values)]}, "mark": {"type": "point", "filled": True},
            "encoding": {"x": {"field": "x", "type": "quantitative"}, "color": {"field": "c", "type": "nominal"}}}
    got = dict(re.findall(r'aria-label="x: \d+; c: ([^"]*)"[^>]*?fill="([^"]*)"', _svg(spec)))
    domain = sort_domain(values)
    assert got == {v: nominal_color(v, domain) for v in values}
