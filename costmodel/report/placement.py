"""The report's placement section: the ranked table, the cost-vs-time front chart and why the winner
wins, from what ``costmodel place --json`` prints. Kept apart from the report's other sections
(:mod:`.stages`): the placement notebook (``notebooks/placement.ipynb``) and a report that is given a placement
file call these functions; they compute nothing the placement room did not.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .display import _HTML, html_table, html_text, with_kinds


@dataclass
class PlacementSection:
    """What the section shows: ``table`` (ranked, then not ranked), ``chart`` (Altair), ``why`` (sentences)."""

    result: dict[str, Any]
    table: Any
    not_ranked: Any
    chart: Any
    why: list[str]


def placement_result(path: str | os.PathLike[str], monte_carlo_n: int | None = None) -> dict[str, Any]:
    """``costmodel place PATH --json`` as a dict (the same function)."""
    from ..place import place

    return place(path, monte_carlo_n=monte_carlo_n)


def ranking_table(out: Mapping[str, Any]) -> Any:
    """One row per ranked placement: rank, placement, cost (USD), time (h), basis, P(best), on the front."""
    import pandas as pd

    rows = [{"rank": r["rank"], "placement": r["id"], "cost USD": r["cost_usd"],
             "GPU hours USD": r["compute_usd"], "strategy USD": r["strategy_usd"],
             "time to trained h": r["time_to_finish_hours"],
             "warm-up basis": r["basis"] if r["basis"] != "not_needed" else "-",
             "P(best)": r["p_best"], "Pareto front": r["on_front"]} for r in out["ranking"]]
    return with_kinds(pd.DataFrame(rows), rank="int", placement="id", **{
        "cost USD": "usd", "GPU hours USD": "usd", "strategy USD": "usd", "time to trained h": "num",
        "warm-up basis": "id", "P(best)": "pct", "Pareto front": "bool"})


def not_ranked_table(out: Mapping[str, Any]) -> Any:
    """Every placement left out of the ranking, with the reason."""
    import pandas as pd

    rows = [{"placement": r["id"], "reason": r["not_priced_reason"] or r["forbidden_reason"] or r["infeasible_reason"]}
            for r in out["not_ranked"]]
    return with_kinds(pd.DataFrame(rows, columns=["placement", "reason"]), placement="id", reason="text")


def placement_section(out: Mapping[str, Any]) -> PlacementSection:
    """The section's parts for the placement result ``out``."""
    from ..charts.placement import placement_front

    return PlacementSection(dict(out), ranking_table(out), not_ranked_table(out), placement_front(out),
                            list(out["why"]))


def placement_html(section: PlacementSection) -> _HTML:
    """The section as one offline HTML fragment: heading, why, the ranked table, the chart (inline SVG, no
    script), what is not ranked. Every input string is escaped."""
    from ..charts.render import to_svg

    out = section.result
    parts = [html_text(f"Placement: {out['placement']}", "h3").text]
    parts += [html_text(w).text for w in section.why]
    parts.append(html_table(section.table, caption="ranked placements (cost over the horizon, time to a finished "
                                                   "first training)").text)
    parts.append(to_svg(section.chart, prefix="place"))
    if len(section.not_ranked):
        parts.append(html_table(section.not_ranked, caption="not ranked, and why").text)
    return _HTML("\n".join(parts))
