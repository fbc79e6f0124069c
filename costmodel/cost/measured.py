"""Both figures: when measurements replace scenario values (``--from-compare``, ``--from-timeline``, the
report), the totals with the scenario's own values beside the measured ones, so ``costmodel cost
scenario.yaml`` and ``costmodel report`` can be told apart (the report applies the measured slowdown and
warm-up; the bare scenario does not)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .scenario import Scenario

#: The key the cost result carries it under (``costmodel cost --json``; the report's ``decision.json``).
KEY = "scenario_figures"


def scenario_figures(before: Scenario, result: Mapping[str, Any]) -> dict[str, Any] | None:
    """What ``before`` (the scenario as written, without measurements) prices, beside ``result`` (the cost
    result of the measured scenario, ``analyze``'s dict): each scenario value a measurement replaced
    (``replaced``: key -> ``{"scenario", "measured", "source"}``), each option's total with the scenario's
    values (USD over the horizon), the cheapest and its margin. None when no measurement replaced a
    scenario value. When the scenario alone cannot be priced (a value only the measurements give), the
    totals are empty and ``note`` says why."""
    from ..foundation.errors import ScenarioError
    from .evaluate import evaluate

    prov = ((result.get("inputs") or {}).get("provenance") or {})
    replaced = {
        key: {"scenario": p.get("replaced"), "measured": p.get("value"), "source": p.get("source")}
        for key, p in prov.items() if isinstance(p, Mapping) and "replaced" in p
    }
    if not replaced:
        return None
    try:
        alone = evaluate(before)
    except ScenarioError as exc:
        return {"replaced": replaced, "totals_usd": {}, "cheapest": None, "margin_usd": None,
                "note": f"the scenario alone cannot be priced: {exc}"}
    return {
        "replaced": replaced,
        "totals_usd": {o: opt.total_usd for o, opt in alone.options.items()},
        "cheapest": alone.cheapest,
        "margin_usd": alone.margin_usd,
        "note": "the totals with the scenario's own values instead of the measured ones (at the expected value "
                "of every input); the cost result above uses the measured values",
    }


def summary_lines(figures: Mapping[str, Any] | None) -> list[str]:
    """The text ``costmodel cost`` prints for :func:`scenario_figures` (nothing for None)."""
    if not figures:
        return []
    parts = []
    for key, r in figures["replaced"].items():
        old = r.get("scenario")
        shown = "unset" if old is None else f"{old:.4g}"
        parts.append(f"{key} {r['measured']:.4g} (scenario: {shown})")
    lines = ["measured values used: " + "; ".join(parts)]
    if not figures["totals_usd"]:
        return [*lines, str(figures.get("note", ""))]
    totals = ", ".join(f"{o} {v:,.2f}" for o, v in figures["totals_usd"].items())
    margin = figures.get("margin_usd")
    lines.append(f"with the scenario's own values instead: {totals} USD; cheapest {figures.get('cheapest')}"
                 + (f" by {margin:,.2f} USD" if margin is not None else ""))
    return lines
