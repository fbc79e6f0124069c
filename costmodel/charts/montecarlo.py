"""Uncertainty chart: each option's total cost over the Monte Carlo draws, P5/P50/P95 marked."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..foundation.errors import ReportError
from .costs import _OPTION_COLORS, _TERM_ORDER
from .render import FONT_SIZE, WIDTH, _alt, _configure


def monte_carlo(samples: pd.DataFrame | Mapping[str, Sequence[float]], bins: int = 40) -> Any:
    """Distribution of each option's total cost over the Monte Carlo draws: one panel per option
    with its own bins (options differ by orders of magnitude), P5/P50/P95 marked."""
    alt = _alt()
    df = pd.DataFrame(samples)
    if df.empty:
        raise ReportError("no Monte Carlo samples to draw")
    if {"option", "total_usd"} <= set(df.columns):
        long = df[["option", "total_usd"]]
    else:
        long = df.melt(var_name="option", value_name="total_usd")
    long = long.dropna()
    panels = []
    order = [o for o in _TERM_ORDER if o in set(long["option"])] + sorted(set(long["option"]) - set(_TERM_ORDER))
    for opt in order:
        vals = long.loc[long["option"] == opt, "total_usd"].to_numpy(dtype=float)
        lo, hi = float(vals.min()), float(vals.max())
        if hi <= lo:
            hi = lo + max(1.0, abs(lo) * 1e-6)
        edges = np.linspace(lo, hi, bins + 1)
        counts, _ = np.histogram(vals, bins=edges)
        hist = pd.DataFrame({"option": opt, "x0": edges[:-1], "x1": edges[1:], "share": counts / max(1, counts.sum())})
        q = np.percentile(vals, [5, 50, 95])
        qs = pd.DataFrame({"q": ["P5", "P50", "P95"], "usd": q})
        bars = alt.Chart(hist).mark_rect(color=_OPTION_COLORS.get(opt, "#7f7f7f")).encode(
            x=alt.X("x0:Q", title=f"{opt}: total over the horizon (USD)", scale=alt.Scale(zero=False)),
            x2="x1:Q",
            y=alt.Y("share:Q", title="share of draws"),
            tooltip=[alt.Tooltip("share:Q", format=".1%")],
        )
        rules = alt.Chart(qs).mark_rule(color="black", strokeDash=[3, 3]).encode(
            x="usd:Q", tooltip=["q:N", alt.Tooltip("usd:Q", format=",.0f")])
        labels = alt.Chart(qs).mark_text(align="left", dx=3, dy=-4, fontSize=FONT_SIZE - 1).encode(
            x="usd:Q", y=alt.value(8), text="q:N"
        )
        panels.append(alt.layer(bars, rules, labels).properties(width=WIDTH - 120, height=110))
    n = len(long) // max(1, len(order))
    return _configure(alt.vconcat(*panels).properties(title=f"Monte Carlo: {n} draws (dashed: P5, P50, P95)"))
