"""Cost charts: each option's cost terms over the horizon, and total cost against one input around the
break-even (cross-region vs replicate)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..foundation.errors import ReportError
from ..foundation.util import finite_float
from .render import HEIGHT, WIDTH, _alt, _configure

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


def cost_terms(cost: Mapping[str, Any]) -> Any:
    """Cost terms stacked per option (USD over the horizon): one bar per option on its own scale
    (options can differ by orders of magnitude), the total in each panel's title."""
    alt = _alt()
    df = cost_terms_frame(cost)
    months = cost.get("horizon_months")
    title = (f"cost over {months:g} months by term (each option on its own scale)" if isinstance(months, (int, float))
             else "cost by term")
    panels = []
    for opt in df["option"].unique():
        part = df[(df["option"] == opt)]
        total = float(part["usd"].sum())
        nonzero = part[part["usd"] != 0]
        panels.append(
            alt.Chart(nonzero if not nonzero.empty else part)
            .mark_bar()
            .encode(
                x=alt.X("sum(usd):Q", title="USD over the horizon", stack="zero"),
                color=alt.Color("term:N", title="term"),
                tooltip=["term:N", alt.Tooltip("usd:Q", format=",.0f")],
            )
            .properties(width=WIDTH - 200, height=28, title=f"{opt}: USD {total:,.0f}")
        )
    return _configure(alt.vconcat(*panels, spacing=6).properties(title=title))


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
    pair = curve[curve["option"].isin(["cross_region", "replicate"])]
    curve = pair if not pair.empty else curve
    base = alt.Chart(curve).mark_line(point=True).encode(
        x=alt.X("value:Q", title=f"{input_name} ({unit})" if unit else input_name),
        y=alt.Y("total_usd:Q", title="cost over the horizon (USD)"),
        color=alt.Color("option:N", title="option"),
        tooltip=["option:N", alt.Tooltip("value:Q"), alt.Tooltip("total_usd:Q", format=",.0f")],
    )
    layers = [base]
    title = f"break-even on {input_name}: never in this range"
    v = finite_float(value)
    if v is not None:
        layers.append(alt.Chart(pd.DataFrame({"value": [v]})).mark_rule(color="black", strokeDash=[4, 4]).encode(x="value:Q"))
        title = f"break-even on {input_name} at {v:,.4g}" + (f"; {above} cheaper above" if above else "")
    return _configure(alt.layer(*layers).properties(width=WIDTH - 120, height=HEIGHT + 40, title=title))
