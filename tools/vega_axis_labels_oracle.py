"""What vl-convert's Vega draws on a linear axis, frozen as VEGA_AXES in tests/charts/test_svg_numbers.py.

Each case is a point chart whose one quantitative axis has an explicit scale domain [lo, hi] (nice or not) and a
width (x) or height (y) in pixels; the axis's `role-axis-label` texts are read from the SVG, hidden ones (opacity 0,
Vega's label overlap removal) included. Regenerate:
    /work/main/.venv/bin/python tools/vega_axis_labels_oracle.py
and paste its output over the VEGA_AXES table.
"""
from __future__ import annotations

import re

import vl_convert as vlc

CASES = [  # lo, hi, nice, size_px, channel, format, tickCount
    (0, 348.4, False, 400, "x", None, None), (0, 100000, True, 400, "x", None, None),
    (0, 0.9, True, 400, "x", None, None), (-71.48, 135807, True, 400, "x", None, None),
    (-71.48, 135807, True, 300, "y", None, None), (0, 348.4, True, 250, "x", None, None),
    (0, 0.9, False, 130, "x", None, None), (0.001, 0.0097, True, 400, "x", None, None),
    (-0.0005, 0.0005, False, 400, "x", None, None), (1e9, 5e9, True, 600, "x", None, None),
    (0, 115.7, True, 200, "y", None, None), (-3.3, 7.7, True, 401, "x", None, None),
    (123456, 123789, False, 400, "x", None, None), (0, 0.9, True, 100, "x", None, None),
    (0.13, 0.87, True, 120, "x", None, None), (0, 348.4, True, 90, "x", None, None),
    (-1234, 98765, True, 400, "x", ".0%", None), (-1234, 98765, True, 400, "x", "~s", None),
    (-1234, 98765, True, 400, "x", ".2s", None), (-1234, 98765, True, 400, "x", ",.2f", None),
    (-1234, 98765, True, 400, "x", "$,", None), (-1234, 98765, True, 400, "x", "", None),
    (0, 348.4, False, 400, "x", None, 3),
]


def axis_labels(lo: float, hi: float, nice: bool, size: int, channel: str, fmt: str | None,
                tick_count: int | None) -> list[str]:
    axis: dict[str, object] = {} if fmt is None else {"format": fmt}
    if tick_count is not None:
        axis["tickCount"] = tick_count
    other = "y" if channel == "x" else "x"
    spec = {"width": size if channel == "x" else 300, "height": size if channel == "y" else 300,
            "data": {"values": [{"v": lo, "k": "a"}, {"v": hi, "k": "b"}]}, "mark": "point",
            "encoding": {channel: {"field": "v", "type": "quantitative", "axis": axis,
                                   "scale": {"domain": [lo, hi], "nice": nice}},
                         other: {"field": "k", "type": "nominal"}}}
    svg = vlc.vegalite_to_svg(spec)
    axes = [re.findall(r"<text[^>]*>(.*?)</text>", g) for g in
            re.findall(r'<g class="mark-text role-axis-label"[^>]*>(.*?)</g>', svg, re.DOTALL)]
    return next(texts for texts in axes if texts != ["a", "b"])


if __name__ == "__main__":
    print("VEGA_AXES = [  # lo, hi, nice, size_px, channel, format, tickCount, Vega's labels")
    for case in CASES:
        print(f"    ({', '.join(map(repr, case))}, {axis_labels(*case)!a}),")
    print("]")
