"""Evaluate a Scenario: each option's terms, totals, the cheapest option, and sanity warnings."""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..foundation.fields_json import FieldsJson, JsonKeys
from .inputs import INTERNAL_DEFAULTS, BytesBasis, ModelInputs, unfollow
from .model import OPTIONS, TERMS, derived, terms, totals
from .scenario import Scenario
from .spec import MODEL_KEYS, SOURCE_KEYS

if TYPE_CHECKING:  # pandas is imported where a frame is built: `costmodel cost` needs none
    import pandas as pd


@dataclass
class OptionCost(FieldsJson):
    """One option: ``terms`` (USD over the horizon), their monthly equivalents, and the totals."""

    name: str
    total_usd: float
    per_month_usd: float
    terms: dict[str, float]
    terms_per_month_usd: dict[str, float]
    priced: bool = True
    not_priced_reason: str | None = None
    terms_not_priced: dict[str, str] = field(default_factory=dict)

    JSON = JsonKeys(exclude=("name",))


@dataclass
class CostResult(FieldsJson):
    """The cost of every option over ``horizon_months``; ``cheapest`` is the lowest total among the priced
    options (None when none is priced); ``margin_usd`` the second-lowest priced total minus the lowest."""

    horizon_months: float
    options: dict[str, OptionCost]
    cheapest: str | None
    derived: dict[str, float]
    warnings: list[str] = field(default_factory=list)
    prices_used: list[dict[str, Any]] = field(default_factory=list)
    inputs: dict[str, Any] = field(default_factory=dict)
    consistency: list[dict[str, Any]] = field(default_factory=list)
    margin_usd: float | None = None
    #: the one byte model's record: every estimate of the cross-region bytes, the one priced and why
    cross_region_bytes: dict[str, Any] = field(default_factory=dict)

    def ranking(self) -> list[str]:
        """Priced options by total (cheapest first), then the options that are not priced."""
        priced = sorted((o for o in self.options if self.options[o].priced), key=lambda k: self.options[k].total_usd)
        return priced + [o for o in self.options if not self.options[o].priced]

    JSON = JsonKeys(keys=("horizon_months", "options", "cheapest", "ranking", "margin_usd", "cross_region_bytes",
                          "consistency", "derived", "prices_used", "warnings", "inputs"))

    def terms_frame(self) -> pd.DataFrame:
        """Tidy table, one row per option and term: option, term, total_usd, per_month_usd."""
        import pandas as pd

        rows = [
            {"option": o.name, "term": t, "total_usd": v, "per_month_usd": o.terms_per_month_usd[t]}
            for o in self.options.values()
            for t, v in o.terms.items()
        ]
        return pd.DataFrame(rows, columns=["option", "term", "total_usd", "per_month_usd"])

    def options_frame(self) -> pd.DataFrame:
        """One row per option: option, total_usd, per_month_usd, cheapest (bool)."""
        import pandas as pd

        return pd.DataFrame(
            [
                {"option": o.name, "total_usd": o.total_usd, "per_month_usd": o.per_month_usd,
                 "cheapest": o.name == self.cheapest}
                for o in self.options.values()
            ]
        )


def model_inputs(scenario: Scenario, **arrays: Any) -> dict[str, Any]:
    """The flat input mapping the model functions take: the scenario's point values, with ``arrays``
    (keyed by key path; ``.`` may be written ``__``) substituted."""
    scenario.require_complete()
    p: dict[str, Any] = {k: scenario.values[k] for k in MODEL_KEYS}
    p.update(INTERNAL_DEFAULTS)
    p.update(scenario.internal)
    for k, v in arrays.items():
        key = k.replace("__", ".")
        if key in SOURCE_KEYS:  # the source of derived values (throughput, bandwidth): they follow it
            p[SOURCE_KEYS[key]] = v
            continue
        p[key] = v
        unfollow(p, key)
    return p


def evaluate(scenario: Scenario) -> CostResult:
    """Price the three options of ``scenario`` at its point values. Raises ScenarioError when an input
    (e.g. a measurement) is missing."""
    p = model_inputs(scenario)
    t = terms(p)
    M = float(p["horizon_months"])
    opts: dict[str, OptionCost] = {}
    extra_warnings: list[str] = []
    for o in OPTIONS:
        tv = {name: float(t[o][name]) for name in TERMS[o]}
        total = float(sum(tv.values()))
        reason = scenario.not_priced.get(o)
        opts[o] = OptionCost(o, total, total / M, tv, {k: v / M for k, v in tv.items()}, priced=reason is None,
                             not_priced_reason=reason, terms_not_priced=dict(scenario.term_notes.get(o, {})))
        if reason is None and total == 0:
            extra_warnings.append(f"{o} is priced at 0 USD: every one of its terms is 0 with the inputs given")
    priced = [o for o in OPTIONS if opts[o].priced]
    ordered = sorted(priced, key=lambda o: opts[o].total_usd)
    cheapest = ordered[0] if ordered else None
    margin = opts[ordered[1]].total_usd - opts[ordered[0]].total_usd if len(ordered) >= 2 else None
    if cheapest is None:
        extra_warnings.append("no option can be priced: see each option's not_priced_reason")
    dv = {k: float(np.asarray(v)) for k, v in derived(p).items()}
    bw = scenario.get("link.bandwidth_gbps")
    if bw:
        dv["initial_copy_hours"] = p["dataset.size_gb"] * 8.0 / bw / 3600.0
        dv["cold_fill_hours"] = dv["working_set_gb"] * 8.0 / bw / 3600.0
    dv["cross_region_transfer_usd_per_month"] = opts["cross_region"].terms_per_month_usd["transfer_usd"]
    crossing = cross_region_bytes(scenario, p, dv)
    dv["cross_region_gb_per_run"] = crossing["gb_per_run"] if crossing["gb_per_run"] is not None else float("nan")
    if not crossing["agree"]:
        extra_warnings.append(crossing["sentence"])
    elif crossing.get("adjustment"):  # a measured figure priced at what can physically cross: said where it is read
        extra_warnings.append("cross-region bytes: " + crossing["adjustment"]["why"])
    warnings = list(scenario.warnings) + sanity_warnings(scenario, p, dv) + extra_warnings
    return CostResult(
        horizon_months=M,
        options=opts,
        cheapest=cheapest,
        derived=dv,
        warnings=warnings,
        prices_used=list(scenario.prices_used),
        inputs=scenario.to_dict(),
        consistency=list(scenario.consistency),
        margin_usd=margin,
        cross_region_bytes=crossing,
    )


def cross_region_bytes(scenario: Scenario, p: Mapping[str, Any], dv: Mapping[str, float]) -> dict[str, Any]:
    """The ``cross_region_bytes`` record (costmodel.cost.crossing.reconcile) at the point values: every estimate
    of the GB that cross a month (dataset model, measured, billed, the LRU miss model when the cache cannot hold
    the working set), what can physically cross, the estimates refused for exceeding it, the one priced and why."""
    from .crossing import BYTES_TOLERANCE, measured_gb_per_month, reconcile, steady_crossing_bytes_per_s

    inputs = ModelInputs.of(p)

    rate, how = steady_crossing_bytes_per_s(scenario.get("cache.read_bytes_per_s"), p["cache.steady_hit_ratio"],
                                            scenario.get("cache.origin_fetch_bytes_per_s"))
    est: dict[str, float | None] = {
        "dataset": dv["cross_region_gb_per_month_dataset"],
        "measured": measured_gb_per_month(dv["cold_fill_gb_per_month"], rate, dv["training_hours_per_month"])
        if rate is not None else None,
        "billed": scenario.get("link.billed_gb_per_month"),
    }
    cap = scenario.get("cache.capacity_gb")
    requested = str(scenario.get("link.bytes_basis") or "auto")
    if (cap is not None and cap < dv["working_set_gb"]) or requested == "lru":  # forced lru: its figure is priced
        est["lru"] = float(np.asarray(derived(inputs.with_(bytes_basis=BytesBasis.LRU))["cross_region_gb_per_month"]))
    bound = float(dv["physical_bound_gb_per_month"])
    bound_how = bound_words(scenario, dv)
    refused = ["measured"] if requested == "auto" and est["measured"] is not None \
        and est["measured"] > bound * (1.0 + BYTES_TOLERANCE) else []
    basis = BytesBasis(int(inputs.bytes_basis)).record_name
    if basis in refused:
        basis = "dataset"
    # under auto a measured figure a little above the bound is priced at the bound (costmodel.cost.bytes_model)
    capped = requested == "auto" and basis == "measured" and est["measured"] is not None and est["measured"] > bound
    out = reconcile(est, basis, requested, how, float(p["training.runs_per_month"]), bound, bound_how, refused,
                    capped=capped)
    out["steady_crossing_bytes_per_s"] = rate
    # what cross_region would cost with each other estimate priced instead (the basis can decide the verdict)
    by_basis: dict[str, float] = {}
    codes = {"dataset": BytesBasis.DATASET, "billed": BytesBasis.BILLED, "lru": BytesBasis.LRU,
             "measured": BytesBasis.MEASURED_ORIGIN if scenario.get("cache.origin_fetch_bytes_per_s") is not None
             else BytesBasis.MEASURED_READ}
    for name, v in est.items():
        if v is None:
            continue
        # the figure as it is, refused or not: what it would cost if it were right
        by_basis[name] = float(totals(inputs.with_(bytes_basis=codes[name], bytes_auto=False))["cross_region"])
    out["cross_region_total_usd_by_basis"] = by_basis
    # what cross_region costs with each case of the uncertainty priced as the model prices it (a measured figure
    # capped at the bound, refused ones left out): what the deciding assumption compares
    out["cross_region_total_usd_by_case"] = {
        name: float(totals(inputs.with_(bytes_basis=codes[name]))["cross_region"])
        for name in out["cases"] if est.get(name) is not None}
    out["case_codes"] = {k: float(codes[k]) for k in out["cases"]}  # the contract's numbers (BytesBasis values)
    return out


def bound_words(scenario: Scenario, dv: Mapping[str, float]) -> str:
    """How ``physical_bound_gb_per_month`` was reached, in words (cold fills x working set, churn, misses)."""
    W, n = dv["working_set_gb"], dv["cold_fills_per_month"]
    cap = scenario.get("cache.capacity_gb")
    parts = [f"{n:,.4g} cold fill(s) x {W:,.6g} GB working set"]
    if cap is None:
        parts.append("every warm epoch's reads (cache.capacity_gb not stated)")
    elif cap >= W:
        parts.append(f"no warm misses: the cache holds the working set {cap / W:,.3g}x")
    else:
        parts.append(f"every warm epoch's reads ({cap / W:.1%} of the working set fits the cache)")
    if n < 1:
        churn = scenario.values.get("dataset.monthly_churn_fraction", 0.0) * W * (1.0 - n)
        parts.append(f"{churn:,.6g} GB of churn re-read")
    return " + ".join(parts)


def sanity_warnings(scenario: Scenario, p: Mapping[str, Any], dv: Mapping[str, float]) -> list[str]:
    """Warnings about inputs that are legal but probably not meant (cache too small, budget exceeded...)."""
    out: list[str] = []
    cap = scenario.get("cache.capacity_gb")
    requested = str(scenario.get("link.bytes_basis") or "auto")
    if (cap is not None and cap < dv["working_set_gb"]) or requested == "lru":  # forced lru: its figure is priced
        out.append(
            f"cache.capacity_gb = {cap:g} GB is smaller than the working set ({dv['working_set_gb']:g} GB): "
            "the cache will evict before reuse, so cache.steady_hit_ratio is probably lower than given"
        )
    if p["cache.cold_starts_per_month"] > dv["epochs_per_month"]:
        out.append(
            f"cache.cold_starts_per_month = {p['cache.cold_starts_per_month']:g} exceeds the epochs per month "
            f"({dv['epochs_per_month']:g}); counted as {dv['cold_fills_per_month']:g}"
        )
    if p["dataset.monthly_churn_fraction"] > 1:
        out.append("dataset.monthly_churn_fraction > 1: more than the whole dataset changes every month")
    budget = scenario.get("transfer_budget_usd_per_month")
    if budget is not None and dv["cross_region_transfer_usd_per_month"] > budget:
        out.append(
            f"cross-region transfer costs {dv['cross_region_transfer_usd_per_month']:.2f} USD/month, "
            f"above transfer_budget_usd_per_month = {budget:g}"
        )
    volumes = {"link.path_processing_usd_per_gb": dv["cross_region_gb_per_month"],
               "link.transfer_usd_per_gb": max(dv["cross_region_gb_per_month"], float(p["dataset.size_gb"])),
               "replica.storage_usd_per_gb_month": float(p["dataset.size_gb"])}
    for u in scenario.prices_used:
        vol = volumes.get(u.get("key") or "")
        last = (u.get("tiers") or [u])[-1]
        end, bpu = last.get("tier_end", last.get("end")), u.get("bytes_per_unit") or 1e9
        if vol is None or end in (None, "") or not math.isfinite(float(end)):
            continue
        end_gb = float(end) * bpu / 1e9
        if vol > end_gb:
            out.append(f"{u['key']}: {vol:,.6g} GB a month is beyond the catalog's last tier of {u.get('item')} "
                       f"(up to {end_gb:,.6g} GB); the volume above it is charged at that tier's price, which the "
                       "provider may lower: state the price in the scenario")
    size = p["dataset.size_gb"]
    s3 = [u for u in scenario.prices_used
          if u.get("item") == "s3_standard" and u.get("key") == "replica.storage_usd_per_gb_month"]
    if s3 and size > 50_000 and not scenario.internal.get("_storage_tiers"):
        out.append(
            "replica.storage_usd_per_gb_month: S3 Standard is tiered (0.022 USD/GB-month above 50 TB, 0.021 above "
            "500 TB); the first-tier price is used for the whole dataset, an over-estimate for this size"
        )
    return out
