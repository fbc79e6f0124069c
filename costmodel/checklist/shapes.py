"""Older hand-written shapes of the results that the checklist's evidence has always accepted, moved to
today's keys before the result is read into its model (:mod:`costmodel.contracts.results`). No verb prints
these shapes; dicts written by hand for the Python API (and older tests) use them."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..contracts.results import CostInputs
from ..foundation.util import finite_number as _num


def todays_cost_shape(cost: Mapping[str, Any]) -> dict[str, Any]:
    """Older hand-written shapes of a cost result, which the evidence has always read, moved to today's
    keys: the scenario directly under ``inputs`` (today ``inputs.values``, which wins where it has a value);
    the budget as ``link.transfer_budget_usd_per_month`` or ``budget.transfer_usd_per_month``; the
    cross-region transfer term as ``{per_month_usd, total_usd}``, or per month under ``terms_per_month`` /
    ``per_month_terms`` (today ``terms_per_month_usd``, used when neither it nor ``derived`` has it)."""
    out = dict(cost)
    inputs = out.get("inputs")
    if isinstance(inputs, Mapping):
        values = inputs.get("values")
        vals = _overlay({k: v for k, v in inputs.items() if k not in CostInputs.model_fields},
                        values if isinstance(values, Mapping) else {})
        for section, key in (("link", "transfer_budget_usd_per_month"), ("budget", "transfer_usd_per_month")):
            alt = vals.get(section)
            if _num(vals.get("transfer_budget_usd_per_month")) is None and isinstance(alt, Mapping):
                vals["transfer_budget_usd_per_month"] = alt.get(key)
        out["inputs"] = {**inputs, "values": vals}
    options = out.get("options")
    if not isinstance(options, Mapping) or not isinstance(options.get("cross_region"), Mapping):
        return out
    option = dict(options["cross_region"])
    terms = option.get("terms")
    term = terms.get("transfer_usd") if isinstance(terms, Mapping) else None
    per_month = None
    if isinstance(term, Mapping):  # {per_month_usd, total_usd}
        total, months = _num(term.get("total_usd")), _num(out.get("horizon_months"))
        per_month = _num(term.get("per_month_usd"))
        if per_month is None and total is not None and months:
            per_month = total / months
        option["terms"] = {k: v for k, v in dict(terms or {}, transfer_usd=total).items() if v is not None}
    else:
        for key in ("terms_per_month", "per_month_terms"):
            alt = option.get(key)
            if per_month is None and isinstance(alt, Mapping):
                per_month = _num(alt.get("transfer_usd"))
    monthly = option.get("terms_per_month_usd")
    monthly = dict(monthly) if isinstance(monthly, Mapping) else {}
    derived = out.get("derived")
    known = _num(monthly.get("transfer_usd")) is not None or (
        isinstance(derived, Mapping) and _num(derived.get("cross_region_transfer_usd_per_month")) is not None)
    if per_month is not None and not known:
        option["terms_per_month_usd"] = {**monthly, "transfer_usd": per_month}
    out["options"] = {**options, "cross_region": option}
    return out


def _overlay(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``over`` laid on it, nested mappings merged; a null in ``over`` leaves ``base``'s value."""
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = _overlay(out[k], v)
        elif v is not None or k not in out:
            out[k] = v
    return out
