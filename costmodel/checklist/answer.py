"""One answer per report: the option the record takes, stated the same by the page, the ADR and
``decision.json``'s ``recommendation``.

The option is the ADR's (:func:`chosen_option`: the checklist's verdict, the cheaper
fallback when cross-region is blocked); the cost model's own recommendation (``costmodel cost --json``'s
``recommendation``) gives the margin, the basis, the deciding assumption and the confidence statement. When the
two name different options, or the placement ranks another (region, strategy) first, one sentence says why.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..foundation.labels import option_label
from ..foundation.util import finite_number
from .verdict import Decision

if TYPE_CHECKING:
    from ..contracts.results import CostRecord

OPTION_TITLES: dict[str, str] = {
    "cross_region": ("Cross-region with cache: train in the remote region, read the data across regions through the "
                     "prefetching cache"),
    "replicate": "Replicate: copy the dataset to the GPU region and keep the replica in sync",
    "wait": "Wait: train in the data region when GPUs there become available",
}

def cost_result(cost: CostRecord | Mapping[str, Any] | None) -> CostRecord | None:
    """``cost`` (the model, or ``costmodel cost --json``'s object as read) as :class:`CostRecord`, read once
    and leniently (:func:`costmodel.contracts.read.read_lenient`: a record's figures are drafted from what is
    there; a garbled figure is unknown, not an error); None for no cost result."""
    from ..contracts.read import read_lenient
    from ..contracts.results import CostRecord

    return read_lenient(CostRecord, cost)


def _totals(cost: CostRecord | None) -> dict[str, float | None]:
    if cost is None:
        return dict.fromkeys(OPTION_TITLES)
    return {k: finite_number(getattr(cost.options, k).total_usd) for k in OPTION_TITLES}


def chosen_option(decision: Decision, cost: CostRecord | Mapping[str, Any] | None = None) -> str:
    """The option the record chooses: cross-region unless NO_GO, then the cheaper of replicate and wait."""
    if decision.verdict != "NO_GO":
        return "cross_region"
    t = _totals(cost_result(cost))
    r, w = t["replicate"], t["wait"]
    if r is not None and w is not None and w < r:
        return "wait"
    return "replicate"




def _cost_rec(cost: Any) -> dict[str, Any]:
    if cost is None:
        return {}
    d = cost.to_json_dict() if hasattr(cost, "to_json_dict") else dict(cost)
    rec = d.get("recommendation")
    return dict(rec) if isinstance(rec, Mapping) else {}


def one_answer(decision: Any, cost: Any, placement: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``recommendation`` of ``decision.json``: ``option`` (what the record takes), ``cost_option`` (the
    cheapest priced option), ``margin_usd``, ``basis``, ``deciding_assumption``, ``confidence``,
    ``confidence_statement``, ``verdict_warnings``, ``why_not_cost`` (a sentence when the record takes another
    option than the cheapest, else null), ``placement_winner`` and ``placement_note`` (with a placement), and
    ``sentence``: all of it in one line."""
    from types import SimpleNamespace

    if isinstance(decision, Mapping):  # decision.json's checklist object
        decision = SimpleNamespace(verdict=decision.get("verdict"))
    option = chosen_option(decision, cost_result(cost))
    rec = _cost_rec(cost)
    cost_opt = rec.get("option")
    why_not = None
    if cost_opt and cost_opt != option:
        mat = rec.get("materiality") or {}
        if option == "cross_region" and decision.verdict != "NO_GO":
            why_not = (f"the checklist takes {option_label(option)} ({decision.verdict}) although "
                       f"{option_label(cost_opt)} is cheaper by {rec.get('margin_usd') or 0:,.0f} USD"
                       + (": cost does not decide this (" + str(mat.get("sentence", "")).split(": ", 1)[-1] + ")"
                          if mat and not mat.get("material") else
                          ": the cost_favourable item says whether that gap matters"))
        else:
            why_not = (f"the checklist blocks cross-region ({decision.verdict}) and takes {option_label(option)}; "
                       f"the cost model's cheapest is {option_label(cost_opt)}")
    pw, pnote = None, None
    if placement:
        w = placement.get("winner") if isinstance(placement.get("winner"), Mapping) else None
        if w:
            pw = {"id": w.get("id"), "region": w.get("region"), "strategy": w.get("strategy")}
            if w.get("strategy") == option:
                pnote = (f"the placement's winner ({w.get('id')}) uses the same strategy, {option_label(option)}, "
                         f"in {w.get('region')}")
            else:
                pnote = (f"the placement ranks {w.get('id')} first over every GPU region and offer (GPU hours "
                         f"included), while this record compares the options for the scenario's own GPU region: "
                         f"{option_label(option)} there; choose the region first, then read this record for it")
    head = f"Take {option_label(option)}"
    if rec.get("margin_usd") is not None and cost_opt == option:
        head += f" ({rec['margin_usd']:,.0f} USD cheaper than {option_label(str(rec.get('runner_up')))})"
    parts = [head]
    if why_not:
        parts.append(why_not)
    dec = rec.get("deciding_assumption") or {}
    if dec.get("input"):
        parts.append(f"deciding assumption: {dec['input']}" + ("" if dec.get("within_range") else
                                                                " (no plausible value flips it)"))
    mat = rec.get("materiality") or {}
    if mat.get("sentence") and not why_not:
        parts.append(str(mat["sentence"]))
    if rec.get("confidence_statement"):
        parts.append(f"confidence {rec.get('confidence')}: {rec['confidence_statement']}")
    if pnote:
        parts.append(pnote)
    return {"option": option, "cost_option": cost_opt, "margin_usd": rec.get("margin_usd"),
            "basis": rec.get("basis"), "deciding_assumption": rec.get("deciding_assumption"),
            "confidence": rec.get("confidence"), "confidence_statement": rec.get("confidence_statement"),
            "verdict_warnings": list(rec.get("verdict_warnings") or []), "why_not_cost": why_not,
            "placement_winner": pw, "placement_note": pnote, "status": "proposed",
            "sentence": "; ".join(parts) + "."}
