"""Cost charts: each option's cost terms over the horizon, and total cost against one input around the
break-even (cross-region vs replicate)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..foundation.errors import ReportError
from ..foundation.util import finite_float
from .render import HEIGHT, WIDTH, _alt, _configure, reusable

_TERM_ORDER = ("cross_region", "replicate", "wait")
_OPTION_COLORS = {"cross_region": "#d62728", "replicate": "#1f77b4", "wait": "#7f7f7f"}


def cost_terms_frame(cost: Mapping[str, Any]) -> pd.DataFrame:
    """Long table (option, term, usd) of every cost term over the horizon, from ``CostResult.to_dict()``."""
    rows = []
    options = cost.get("options") or {}
    for name in list(_TERM_ORDER) + [k for k in options if k not in _TERM_ORDER]:
        opt = options.get(name)
        if not opt:
            continue
        terms = opt.get("terms") or {}
        for term, val in terms.items():
            usd = _term_usd(val)
            if usd is not None:
                rows.append({"option": name, "term": str(term), "usd": usd})
    if not rows:
        raise ReportError("the cost result has no option terms to draw")
    return pd.DataFrame(rows)


def _term_usd(val: Any) -> float | None:
    """A term is either a number (USD over the horizon) or a dict with ``total_usd``/``usd``."""
    if isinstance(val, Mapping):
        for k in ("total_usd", "usd", "horizon_usd"):
            if k in val:
                return finite_float(val[k])
        return None
    return finite_float(val)


#: Options whose total is more than this many times the smallest total are named, not drawn, in the terms
#: chart (one shared scale would flatten the others to nothing; the first screen draws every total).
OFF_SCALE_FACTOR = 5.0


@reusable
def cost_terms(cost: Mapping[str, Any]) -> Any:
    """Cost terms stacked per option (USD over the horizon) on ONE shared scale, terms in words. An option
    more than :data:`OFF_SCALE_FACTOR` times dearer than the cheapest is named with its total in the
    subtitle instead of being drawn (the first screen compares every total on one axis)."""
    from ..foundation.labels import option_label, term_label

    alt = _alt()
    df = cost_terms_frame(cost)
    totals = {str(o): float(v) for o, v in df.groupby("option", sort=False)["usd"].sum().items()}
    positive = [t for t in totals.values() if t > 0]
    floor = min(positive) if positive else 0.0
    off = [o for o, t in totals.items() if floor > 0 and t > OFF_SCALE_FACTOR * floor]
    shown = df[~df["option"].isin(off) & (df["usd"] != 0)].copy()
    if shown.empty:
        shown = df[~df["option"].isin(off)].copy()
    shown["option_label"] = [option_label(o) for o in shown["option"]]
    shown["term_label"] = [term_label(t) for t in shown["term"]]
    order = [option_label(o) for o in totals if o not in off]
    months = cost.get("horizon_months")
    horizon = f" over {months:g} months" if isinstance(months, (int, float)) else ""
    subtitle = ["one scale for every option drawn; total at the end of each bar"]
    if off:
        subtitle.append("not drawn (off this scale): " + "; ".join(
            f"{option_label(o)} USD {totals[o]:,.0f}" for o in off))
    tot_max = max([totals[o] for o in totals if o not in off] + [1.0])
    bars = alt.Chart(shown).mark_bar().encode(
        y=alt.Y("option_label:N", sort=order, title=None),
        x=alt.X("sum(usd):Q", title=f"USD{horizon}", stack="zero",
                scale=alt.Scale(domain=[0, float(tot_max) * 1.18], nice=False)),
        color=alt.Color("term_label:N", title="cost term", legend=alt.Legend(orient="bottom", columns=3)),
        order=alt.Order("term_label:N"),
        tooltip=[alt.Tooltip("option_label:N", title="option"), alt.Tooltip("term_label:N", title="term"),
                 alt.Tooltip("usd:Q", format=",.0f", title="USD")],
    )
    tot = pd.DataFrame({"option_label": order, "usd": [totals[o] for o in totals if o not in off]})
    tot["text"] = [f"USD {v:,.0f}" for v in tot["usd"]]
    labels = alt.Chart(tot).mark_text(align="left", dx=4).encode(
        y=alt.Y("option_label:N", sort=order), x="usd:Q", text="text:N")
    return _configure(alt.layer(bars, labels).properties(
        width=WIDTH - 120, height=46 * len(order),
        title=alt.TitleParams(text=f"cost by term{horizon}", subtitle=subtitle)))


@reusable
def break_even(
    curve: pd.DataFrame,
    input_name: str,
    value: float | None = None,
    above: str | None = None,
    unit: str | None = None,
) -> Any:
    """Total cost of cross-region and replicate (the break-even is between those two; other options
    are left out) against one input (``curve``: columns ``value``, ``option``, ``total_usd``), with a
    rule at the break-even value when there is one."""
    alt = _alt()
    need = {"value", "option", "total_usd"}
    if not need <= set(curve.columns):
        raise ReportError(f"break-even curve needs columns {sorted(need)}, got {sorted(curve.columns)}")
    from ..foundation.labels import input_label, option_label

    pair = curve[curve["option"].isin(["cross_region", "replicate"])]
    curve = (pair if not pair.empty else curve).copy()
    curve["option_label"] = [option_label(o) for o in curve["option"]]
    words = input_label(input_name)
    base = alt.Chart(curve).mark_line(point=True).encode(
        x=alt.X("value:Q", title=f"{words} ({unit})" if unit else words, axis=alt.Axis(labelOverlap=True, tickCount=6)),
        y=alt.Y("total_usd:Q", title="cost over the horizon (USD)", scale=alt.Scale(zero=True)),
        color=alt.Color("option_label:N", title="option", scale=alt.Scale(
            domain=[option_label(o) for o in _TERM_ORDER],
            range=[_OPTION_COLORS[o] for o in _TERM_ORDER])),
        tooltip=["option:N", alt.Tooltip("value:Q"), alt.Tooltip("total_usd:Q", format=",.0f")],
    )
    layers = [base]
    title = f"break-even on {words}: never in this range"
    v = finite_float(value)
    if v is not None:
        layers.append(alt.Chart(pd.DataFrame({"value": [v]})).mark_rule(color="black", strokeDash=[4, 4]).encode(x="value:Q"))
        title = f"break-even on {words} at {v:,.4g}" + (f"; {option_label(above)} cheaper above" if above else "")
    return _configure(alt.layer(*layers).properties(width=WIDTH - 120, height=HEIGHT + 40, title=title))
