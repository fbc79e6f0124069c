"""Commitments billed as signed: a savings plan or reserved instances bill every hour of their term,
used or not; a capacity block bills the hours booked per run (whole days). The cost model's options do not
include the GPU hours themselves (they are the same for cross_region, replicate and wait), so a committed purchase
option adds what the job does not see in an hourly rate: the committed hours it leaves unused.

``commitment_billing`` is used by :func:`costmodel.cost.verdict.purchase_options` (one ``commitment`` entry per
committed purchase option row) and follows the same rule as ``costmodel place`` (``place.rank``).
"""
from __future__ import annotations

import math
from typing import Any

#: hours billed per month of a term (AWS bills a 1-year term as 8,760 hours)
HOURS_PER_TERM_MONTH = 730.0
TERMS = {"1yr": 12.0, "3yr": 36.0}
COMMITTED = ("savings_plan", "reserved", "capacity_block")


def term_months(scenario: Any) -> tuple[float, str]:
    """(term in months, where it comes from): the term of ``purchase.savings_plan`` (``compute:1yr:...``), else
    12 months, the shortest term, assumed and said so."""
    plan = scenario.get("purchase.savings_plan")
    if plan and str(plan).split(":")[1:2] and str(plan).split(":")[1] in TERMS:
        return TERMS[str(plan).split(":")[1]], f"purchase.savings_plan {plan}"
    return 12.0, "assumed: 12 months, the shortest term (name the plan in purchase.savings_plan to state it)"


def commitment_billing(scenario: Any, option: str, cluster_usd_per_hour: float,
                       derived: dict[str, Any]) -> dict[str, Any] | None:
    """How ``option`` bills the cluster over the horizon: committed hours, the hours the job uses, the share used,
    the USD billed and the USD of the committed hours left unused. None for options billed per hour used."""
    if option not in COMMITTED:
        return None
    M = float(scenario.horizon_months)
    per_month = float(derived.get("training_hours_per_month") or 0.0)
    used = M * per_month
    G = float(cluster_usd_per_hour)
    if option == "capacity_block":
        R = float(scenario.values.get("training.runs_per_month") or 0.0)
        run_h = per_month / R if R > 0 else 0.0
        block = math.ceil(run_h / 24.0 - 1e-9) * 24.0
        committed = M * R * block
        how = f"a block of {block:g} h (the run, {run_h:,.1f} h, rounded up to whole days) per run"
        term: float | None = None
        source = "capacity blocks are booked per run"
    else:
        term, source = term_months(scenario)
        committed = math.ceil(max(M, 1e-9) / term) * term * HOURS_PER_TERM_MONTH
        how = f"{committed:,.0f} committed hours ({term:g}-month term{'s' if committed > term * 730 else ''})"
    unused = max(committed - used, 0.0)
    share = used / committed if committed > 0 else float("nan")
    return {"term_months": term, "term_source": source, "committed_hours": committed, "used_hours": used,
            "used_share": share, "billed_usd": G * committed, "used_usd": G * min(used, committed),
            "unused_usd": G * unused,
            "sentence": (f"{option} bills {how} at {G:,.2f} USD/h = {G * committed:,.0f} USD, used or not; the job "
                         f"uses {used:,.0f} h ({share:.1%}), so {G * unused:,.0f} USD pays for unused hours")}
