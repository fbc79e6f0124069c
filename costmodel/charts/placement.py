"""The placement chart: cost over the horizon against time to a finished training, one point per placement
(what ``costmodel place --json`` prints), the Pareto front joined, the deadline as a rule, the winner labelled."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..foundation.errors import ReportError
from .render import HEIGHT, WIDTH, _alt, _configure

_COLORS = {"cross_region": "#d62728", "replicate": "#1f77b4", "wait": "#7f7f7f"}


def placement_frame(out: Mapping[str, Any]) -> pd.DataFrame:
    """One row per priced, allowed placement: id, candidate, strategy, cost_usd, time_h, rank, on_front,
    feasible, basis, winner."""
    rows = []
    winner = (out.get("winner") or {}).get("id")
    for r in list(out.get("ranking") or []) + list(out.get("not_ranked") or []):
        if not r.get("priced") or not r.get("allowed"):
            continue
        rows.append({"id": r["id"], "candidate": r["candidate"], "strategy": r["strategy"],
                     "cost_usd": r["cost_usd"], "time_h": r["time_to_finish_hours"], "rank": r.get("rank"),
                     "on_front": bool(r.get("on_front")), "feasible": bool(r.get("feasible")),
                     "basis": r.get("basis"), "winner": r["id"] == winner})
    if not rows:
        raise ReportError("the placement result has no priced, allowed placement to draw")
    return pd.DataFrame(rows)


def placement_front(out: Mapping[str, Any]) -> Any:
    """Cost (USD over the horizon) vs time to a finished first training (hours): points by strategy (hollow:
    misses the deadline), the Pareto front as a line, the deadline as a dashed rule, the winner labelled."""
    alt = _alt()
    df = placement_frame(out)
    x = alt.X("time_h:Q", title="time to a finished first training (hours)", scale=alt.Scale(zero=False))
    y = alt.Y("cost_usd:Q", title="cost over the horizon (USD)", scale=alt.Scale(zero=False))
    color = alt.Color("strategy:N", scale=alt.Scale(domain=list(_COLORS), range=list(_COLORS.values())),
                      title="strategy")
    tips = ["id:N", "cost_usd:Q", "time_h:Q", "basis:N", "rank:Q"]
    points = alt.Chart(df).mark_point(size=70, filled=True).encode(x=x, y=y, color=color, tooltip=tips,
                                                                    shape=alt.Shape("feasible:N", title="in time"))
    front = alt.Chart(df[df["on_front"]].sort_values("time_h")).mark_line(color="#444444", strokeDash=[2, 2]).encode(
        x=x, y=y)
    label = alt.Chart(df[df["winner"]]).mark_text(align="left", dx=8, dy=-8).encode(
        x=x, y=y, text=alt.Text("id:N"))
    layers = [front, points, label]
    deadline = (out.get("objective") or {}).get("deadline_hours")
    if deadline:
        layers.append(alt.Chart(pd.DataFrame({"time_h": [float(deadline)]})).mark_rule(
            color="#9467bd", strokeDash=[6, 4]).encode(x="time_h:Q"))
    title = "placements: cost vs time (dashed: Pareto front" + (", deadline" if deadline else "") + ")"
    return _configure(alt.layer(*layers).properties(width=WIDTH, height=HEIGHT, title=title))
