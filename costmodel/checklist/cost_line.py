"""The cost line shown beside the verdict, in the report's verdict block and in the ADR's context: the
cheapest priced option, its margin, and whether that is robust. One function, so both say the same."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..contracts.results import CostRecord


def cost_robustness_line(cost: CostRecord | Mapping[str, Any] | None) -> str | None:
    """One line for beside the verdict: the cheapest priced option, its margin, and whether the verdict is
    robust (``costmodel cost --json``'s ``cheapest``, ``margin_usd``, ``robust``, ``robust_reason``; the
    model, or its JSON object as read)."""
    from ..contracts.read import read_lenient

    c = read_lenient(CostRecord, cost)
    if c is None or "cheapest" not in c.model_fields_set:
        return None
    if c.cheapest is None:
        return "Cost: no option could be priced"
    text = f"Cost: {c.cheapest} is cheapest"
    if c.margin_usd is not None:
        text += f" by {c.margin_usd:,.2f} USD"
    if "robust" in c.model_fields_set:
        text += f"; robust: {'yes' if c.robust else 'NO'}"
        if c.robust_reason:
            text += f" ({c.robust_reason})"
    if c.headline_basis and "headline_basis" in c.model_fields_set:
        text += f" [totals at the {c.headline_basis.replace('_', ' ')} of the inputs]"
    unpriced = [o for o in ("cross_region", "replicate", "wait") if getattr(c.options, o).priced is False]
    if unpriced:
        text += f"; not priced: {', '.join(unpriced)}"
    return text


def wait_break_even_line(cost: CostRecord | Mapping[str, Any] | None, option: str) -> str | None:
    """The wait hours per run below which waiting for GPUs near the data becomes cheapest, as one sentence
    (``costmodel cost --json``'s ``wait_break_even``: ``value`` and ``current`` in ``unit``), or None when there is
    none or ``option`` (the option taken) is wait already. The report's first screen and the ADR both say it."""
    from ..contracts.read import read_lenient
    from ..foundation.util import finite_float

    c = read_lenient(CostRecord, cost)
    wb = c.wait_break_even if c is not None else None
    value = finite_float(wb.get("value")) if wb is not None else None
    if wb is None or value is None or option == "wait":
        return None
    return (f"GPUs near the data free within {value:,.2g} {wb.get('unit') or ''} "
            f"(now {finite_float(wb.get('current')) or 0:,.0f}): waiting becomes cheapest.")
