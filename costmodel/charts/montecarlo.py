"""Uncertainty chart: each option's total cost over the Monte Carlo draws, P5/P50/P95 marked."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..foundation.errors import ReportError
from .costs import _OPTION_COLORS, _TERM_ORDER
from .render import FONT_SIZE, WIDTH, _alt, _configure, reusable


@reusable
def monte_carlo(samples: pd.DataFrame | Mapping[str, Sequence[float]], bins: int = 40) -> Any:
    """Distribution of each option's total cost over the Monte Carlo draws, on ONE shared axis: a histogram
    (shared bins) for each option whose total varies, a labelled rule for each option whose total is the same
    in every draw (a one-bar histogram says nothing), P5/P50/P95 of the varying ones marked. An option far off
    the others' range (over 5 times their largest value) is named in the subtitle, not drawn."""
    from ..foundation.labels import option_label

    alt = _alt()
    df = pd.DataFrame(samples)
    if df.empty:
        raise ReportError("no Monte Carlo samples to draw")
    if {"option", "total_usd"} <= set(df.columns):
        long = df[["option", "total_usd"]]
    else:
        long = df.melt(var_name="option", value_name="total_usd")
    long = long.dropna()
    order = [o for o in _TERM_ORDER if o in set(long["option"])] + sorted(set(long["option"]) - set(_TERM_ORDER))
    vals = {o: long.loc[long["option"] == o, "total_usd"].to_numpy(dtype=float) for o in order}
    lo_all = min(float(v.min()) for v in vals.values())
    off = [o for o in order if lo_all > 0 and float(vals[o].min()) > 5.0 * max(
        float(vals[p].max()) for p in order if p != o) if len(order) > 1]
    if len(order) - len(off) < 2:  # what is compared stays drawn: never leave one option alone on the axis
        off = []
    kept = [o for o in order if o not in off]
    lo = min(float(vals[o].min()) for o in kept)
    hi = max(float(vals[o].max()) for o in kept)
    if hi <= lo:
        hi = lo + max(1.0, abs(lo) * 1e-6)
    edges = np.linspace(lo, hi, bins + 1)
    # an option whose draws fit in two of the shared bins would be a one-bar histogram: a labelled line instead
    varying = [o for o in kept if float(vals[o].max()) - float(vals[o].min()) >= 2 * (hi - lo) / bins]
    fixed = [o for o in kept if o not in varying]
    colours = [_OPTION_COLORS.get(o, "#7f7f7f") for o in kept]
    domain = [option_label(o) for o in kept]
    colour = alt.Color("option:N", title="option", scale=alt.Scale(domain=domain, range=colours))
    x = alt.X("x0:Q", title="total over the horizon (USD)", scale=alt.Scale(domain=[lo, hi], nice=True, zero=False),
              axis=alt.Axis(labelOverlap=True, format=",.0f"))
    layers = []
    if varying:
        hist = pd.concat([pd.DataFrame({"option": option_label(o), "x0": edges[:-1], "x1": edges[1:],
                                        "share": np.histogram(vals[o], bins=edges)[0] / max(1, len(vals[o]))})
                          for o in varying], ignore_index=True)
        layers.append(alt.Chart(hist).mark_rect(opacity=0.75).encode(
            x=x, x2="x1:Q", y=alt.Y("share:Q", title="share of draws", axis=alt.Axis(format=".0%")), color=colour,
            tooltip=["option:N", alt.Tooltip("share:Q", format=".1%")]))
        qs = pd.DataFrame([{"option": option_label(o), "q": q, "x0": float(v)}
                           for o in varying for q, v in zip(("P5", "P50", "P95"), np.percentile(vals[o], [5, 50, 95]),
                                                            strict=True)])
        layers.append(alt.Chart(qs).mark_rule(strokeDash=[3, 3], strokeWidth=1.5).encode(
            x="x0:Q", color=colour, tooltip=["option:N", "q:N", alt.Tooltip("x0:Q", format=",.0f")]))
    if fixed:
        rows = []
        for i, o in enumerate(fixed):
            v = vals[o]
            p5, p50, p95 = (float(q) for q in np.percentile(v, [5, 50, 95]))
            text = (f"{option_label(o)}: USD {p50:,.0f} in every draw" if float(v.max()) == float(v.min())
                    else f"{option_label(o)}: USD {p50:,.0f} (P5-P95 {p5:,.0f}-{p95:,.0f})")
            rows.append({"option": option_label(o), "x0": p50, "text": text, "y": 14 + 16 * i})
        rules = pd.DataFrame(rows)
        layers.append(alt.Chart(rules).mark_rule(strokeWidth=3).encode(x=x, color=colour))
        layers.append(alt.Chart(rules).mark_text(align="left", dx=5, fontSize=FONT_SIZE - 1).encode(
            x="x0:Q", y=alt.Y("y:Q", scale=None, axis=None), text="text:N"))
    n = len(long) // max(1, len(order))
    subtitle = ["one axis for every option drawn; dashed lines: each option's P5, P50 and P95 (table below)"]
    if off:
        subtitle.append("not drawn (off this scale): " + "; ".join(
            f"{option_label(o)} USD {float(np.median(vals[o])):,.0f}" for o in off))
    return _configure(alt.layer(*layers).properties(
        width=WIDTH - 120, height=170, title=alt.TitleParams(text=f"Monte Carlo: {n:,} draws", subtitle=subtitle)))
