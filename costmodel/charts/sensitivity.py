"""Sensitivity chart: the tornado (the output at each input's low and high value around the base)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..foundation.errors import ReportError
from .render import WIDTH, _alt, _configure, reusable


def tornado_frame(tornado: Any) -> pd.DataFrame:
    """Normalise a tornado result to rows (input, low_usd, high_usd, base_usd, swing_usd).

    Accepts a DataFrame or a list of dicts with ``input``/``name`` and low/high outputs
    (``low_usd``/``high_usd`` or ``low_output``/``high_output``), or an object with ``to_dict()``.
    """
    if hasattr(tornado, "to_dict") and not isinstance(tornado, pd.DataFrame):
        tornado = tornado.to_dict()
    if isinstance(tornado, Mapping):
        tornado = tornado.get("rows") or tornado.get("inputs") or tornado.get("tornado") or [
            {"input": k, **v} for k, v in tornado.items() if isinstance(v, Mapping)
        ]
    df = pd.DataFrame(tornado)
    if df.empty:
        raise ReportError("the tornado result is empty")

    def col(*names: str) -> pd.Series:
        for n in names:
            if n in df.columns:
                return pd.to_numeric(df[n], errors="coerce")
        raise ReportError(f"tornado rows need one of {names}; got columns {list(df.columns)}")

    name = df["input"] if "input" in df.columns else df.get("name", df.get("key"))
    if name is None:
        raise ReportError(f"tornado rows need an 'input' name; got columns {list(df.columns)}")
    out = pd.DataFrame(
        {
            "input": name.astype(str),
            "low_usd": col("low_usd", "low_output", "delta_low_usd", "low"),
            "high_usd": col("high_usd", "high_output", "delta_high_usd", "high"),
        }
    )
    if {"base_usd", "base_output", "base_delta_usd"} & set(df.columns):
        out["base_usd"] = col("base_usd", "base_delta_usd", "base_output")
    else:
        out["base_usd"] = 0.0
    out["swing_usd"] = (out["high_usd"] - out["low_usd"]).abs()
    return out.sort_values("swing_usd", ascending=False).reset_index(drop=True)


@reusable
def tornado(tornado_result: Any, output: str = "cross-region minus replicate, USD over the horizon") -> Any:
    """Tornado: for each input (in words), the output at its low and high value around the base; widest first."""
    from ..foundation.labels import input_label

    alt = _alt()
    df = tornado_frame(tornado_result)
    df["input"] = [input_label(x) for x in df["input"]]
    moved = df[df["swing_usd"] > 0.005]  # inputs that move the output by less than a cent are counted, not drawn
    still = len(df) - len(moved)
    df = moved if not moved.empty else df
    long = pd.concat(
        [
            df.assign(end="low value", usd=df["low_usd"]),
            df.assign(end="high value", usd=df["high_usd"]),
        ],
        ignore_index=True,
    )
    long["reach"] = -(long["usd"] - long["base_usd"]).abs()  # longer bar first, the shorter on top
    order = list(df["input"])
    bars = alt.Chart(long).mark_bar().encode(
        y=alt.Y("input:N", sort=order, title="input"),
        x=alt.X("base_usd:Q", title=output, axis=alt.Axis(labelOverlap=True)),
        x2="usd:Q",
        color=alt.Color("end:N", title="input at", scale=alt.Scale(domain=["low value", "high value"],
                                                                   range=["#9ecae1", "#3182bd"])),
        order=alt.Order("reach:Q"),
        tooltip=["input:N", "end:N", alt.Tooltip("usd:Q", format=",.0f")],
    )
    rule = alt.Chart(pd.DataFrame({"base": [float(df["base_usd"].iloc[0])]})).mark_rule(color="black").encode(x="base:Q")
    return _configure(
        alt.layer(bars, rule).properties(width=WIDTH - 160, height=22 * len(df) + 30, title=alt.TitleParams(
            text="sensitivity (tornado)",
            subtitle=[f"{still} further input(s) move the difference by less than a cent (not drawn)"] if still else []))
    )
