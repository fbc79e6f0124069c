"""The watched trial as a chart: the remote throughput with the warm-up call, and the ratio's confidence
sequence narrowing towards the margin's band (data in, chart out; the notebook view draws it)."""
from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .render import HEIGHT, POINTS_PER_RUN, WIDTH, _alt, _configure


def throughput_points(step: np.ndarray, w: np.ndarray, d: np.ndarray, points: int = POINTS_PER_RUN) -> list[dict[str, float]]:
    """Work over time in at most ``points`` bins of rows (a ratio of sums per bin, never a mean of rates)."""
    n = len(d)
    if n == 0:
        return []
    edges = np.unique(np.linspace(0, n, min(points, n) + 1).astype(int))
    out = []
    for a, b in itertools.pairwise(edges):
        den = float(np.sum(d[a:b]))
        if den > 0:
            out.append({"step": float(step[b - 1]), "level": float(np.sum(w[a:b]) / den)})
    return out


def trial_chart(levels: Sequence[Mapping[str, float]], looks: Sequence[Mapping[str, Any]], margin: float,
                reference_level: float | None = None, warmup_end_step: float | None = None,
                title: str = "trial") -> Any:
    """Two panels on one step axis: the throughput (``levels``: step, level) with the co-located level and
    the warm-up call, and the ratio with its confidence sequence per look (``looks``: the watcher's
    status rows with ``ratio_cs_low``/``ratio_cs_high``) inside the band ``[1/(1+margin), 1+margin]``."""
    alt = _alt()
    top = alt.Chart(alt.Data(values=list(levels))).mark_line(color="#1f77b4").encode(
        x=alt.X("step:Q", title="step"), y=alt.Y("level:Q", title="throughput (work/s)", scale=alt.Scale(zero=False)))
    layers = [top]
    if reference_level:
        layers.append(alt.Chart(alt.Data(values=[{"y": reference_level}])).mark_rule(color="#555555", strokeDash=[4, 3])
                      .encode(y="y:Q"))
    if warmup_end_step is not None:
        layers.append(alt.Chart(alt.Data(values=[{"x": warmup_end_step}])).mark_rule(color="#d62728").encode(x="x:Q"))
    upper = alt.layer(*layers).properties(width=WIDTH, height=HEIGHT, title=title)
    band = [{"step": float(r["step"]), "low": float(r["ratio_cs_low"]), "high": float(r["ratio_cs_high"]),
             "ratio": float(r["ratio"])} for r in looks if r.get("ratio_cs_low") is not None and r.get("step") is not None]
    lo, hi = 1.0 / (1.0 + margin), 1.0 + margin
    ys = [lo, hi] + [b["low"] for b in band] + [b["high"] for b in band]
    scale = alt.Scale(domain=[max(min(ys), 0.5), min(max(ys), 2.0)], clamp=True)
    base = alt.Chart(alt.Data(values=band))
    lower_layers = [
        alt.Chart(alt.Data(values=[{"y": lo}, {"y": hi}])).mark_rule(color="#2ca02c", strokeDash=[4, 3]).encode(
            y=alt.Y("y:Q", scale=scale, title="ratio remote / co-located")),
    ]
    if band:
        lower_layers += [base.mark_area(opacity=0.3, color="#ff7f0e").encode(
                             x=alt.X("step:Q", title="step"), y=alt.Y("low:Q", scale=scale), y2="high:Q"),
                         base.mark_line(color="#ff7f0e").encode(x="step:Q", y=alt.Y("ratio:Q", scale=scale))]
    lower = alt.layer(*lower_layers).properties(width=WIDTH, height=HEIGHT,
                                                title=f"ratio and its 90 % confidence sequence (band: +-{margin:.0%})")
    return _configure(alt.vconcat(upper, lower))
