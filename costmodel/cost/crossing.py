"""One byte model: the bytes that cross regions per month, from the dataset, from measurements, from the bill.

The cost model and the checklist's evidence both use these functions, so they print the same bytes for the
same inputs. Three estimates of the GB (10^9 bytes) that cross the link in a month:

- ``dataset``: the working set and epochs, ``X = n'*W + (1-hw)*W*(N-n') + c*W*max(0, 1-n')``
  (:func:`costmodel.cost.model.derived`);
- ``measured``: the cold fills plus the steady stream the measurements show crossing over the training
  hours, ``X = n'*W + r_x * 3600*R*T / 10^9`` with ``r_x`` the origin-fetch counter's bytes/s
  (``cache.origin_fetch_bytes_per_s``) or else the read rate times the miss ratio,
  ``cache.read_bytes_per_s * (1 - h)`` (what the checklist's link evidence calls the steady demand);
- ``billed``: the user's billed figure, ``link.billed_gb_per_month``.

They **agree** when each is within :data:`BYTES_TOLERANCE` (25 %) of the largest. ``link.bytes_basis:
auto`` prices the billed figure when given (it is what the provider charges), else the measured one when
given (a measurement of what crossed beats a model of what should cross), else the dataset model; the
result (``cross_region_bytes``) says which one was priced, why, and how far the others are.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from .inputs import BytesBasis

#: estimates within 25 % of the largest agree
BYTES_TOLERANCE = 0.25
#: the model's basis (costmodel.cost.inputs.BytesBasis) of each name resolve chooses
BASIS_CODE = {"dataset": BytesBasis.DATASET, "measured_read": BytesBasis.MEASURED_READ,
              "measured_origin": BytesBasis.MEASURED_ORIGIN, "billed": BytesBasis.BILLED, "lru": BytesBasis.LRU}
#: basis -> its name in the record
BASIS_NAME = {b: b.record_name for b in BytesBasis}


def steady_crossing_bytes_per_s(read_bytes_per_s: float | None, hit_ratio: float | None,
                                origin_fetch_bytes_per_s: float | None = None) -> tuple[float | None, str]:
    """Bytes/s that cross the link in steady state and how it was measured: the origin-fetch counter when
    given, else ``read x (1 - hit ratio)`` (every read crossing when the hit ratio is unknown)."""
    if origin_fetch_bytes_per_s is not None:
        return float(origin_fetch_bytes_per_s), "origin-fetch counter"
    if read_bytes_per_s is None:
        return None, ""
    miss = 1.0 - hit_ratio if hit_ratio is not None else 1.0
    return float(read_bytes_per_s) * miss, "read rate x miss ratio"


def measured_gb_per_month(cold_fill_gb_per_month: float, crossing_bytes_per_s: float,
                          training_hours_per_month: float) -> float:
    """``n'*W + r_x * 3600 * R*T / 10^9``: the cold fills plus the steady stream over the training hours."""
    return cold_fill_gb_per_month + crossing_bytes_per_s * 3600.0 * training_hours_per_month / 1e9


def choose_basis(requested: str, has_measured: bool, has_billed: bool) -> str:
    """The estimate to price: ``requested`` when its figure exists, else billed > measured > dataset."""
    if requested == "billed" and has_billed:
        return "billed"
    if requested == "measured" and has_measured:
        return "measured"
    if requested in ("dataset", "lru"):
        return requested
    return "billed" if has_billed else "measured" if has_measured else "dataset"


def admissible(estimates: dict[str, float | None], bound: float | None, refused: Iterable[str] = ()) -> list[str]:
    """The byte bases that are cases of the uncertainty: every estimate given, but those refused (a measured
    figure above what can physically cross); ``dataset`` always."""
    out = [k for k in ("dataset", "measured", "billed", "lru")
           if estimates.get(k) is not None and k not in set(refused)]
    return out or ["dataset"]


def refusal(name: str, value: float, bound: float, bound_how: str) -> str:
    """Why a measured figure above the physical bound is not priced, in words."""
    return (f"the {name} figure {value:,.6g} GB/month is {value / bound:,.3g}x what can cross ({bound:,.6g} GB/month: "
            f"{bound_how}); a counter that high measures the storage path, not the link (read amplification: "
            "readahead, re-reads of shards, the page cache, several readers of one copy); it is refused as the "
            "basis. Give link.billed_gb_per_month or an origin-fetch counter (cache.origin_fetch_bytes_per_s), "
            "or set link.bytes_basis: measured to price it anyway")


def capping(name: str, value: float, bound: float, bound_how: str) -> dict[str, Any]:
    """The named adjustment when a measured figure above what can physically cross, but within
    :data:`BYTES_TOLERANCE` of it, is priced at the bound: the figure, what is priced, the excess and why the
    excess does not cross (``cross_region_bytes.adjustment``)."""
    excess = value - bound
    why = (f"the {name} figure {value:,.6g} GB/month is {value / bound:,.3g}x what can cross ({bound:,.6g} GB/month: "
           f"{bound_how}); priced at {bound:,.6g} GB/month. The excess {excess:,.6g} GB/month is reads the link "
           "does not carry again: misses of the cold fill counted a second time by the steady miss ratio, read "
           "amplification (readahead, re-reads of shards), the page cache or several readers of one copy. Give "
           "link.billed_gb_per_month (what is paid) to price what crossed, or set link.bytes_basis: measured to price "
           "the figure as measured")
    return {"name": "capped_at_physical_bound", "estimate": name, "measured_gb_per_month": value,
            "priced_gb_per_month": bound, "excess_gb_per_month": excess, "excess_fraction": excess / bound,
            "why": why}


def reconcile(estimates: dict[str, float | None], basis: str, requested: str = "auto",
              how_measured: str = "", runs_per_month: float = 0.0, bound: float | None = None,
              bound_how: str = "", refused: Iterable[str] = (), capped: bool = False) -> dict[str, Any]:
    """The ``cross_region_bytes`` record: every estimate (GB/month), the one priced, whether they agree
    within :data:`BYTES_TOLERANCE`, the physical bound (``physical_bound_gb_per_month``: what can cross) and the
    estimates refused for exceeding it, the byte cases of the uncertainty, and a sentence saying which one was
    used and why. ``capped``: the priced estimate is above ``bound`` but within the tolerance and is priced at
    ``bound`` (``adjustment`` says so, :func:`capping`)."""
    refused = [k for k in refused if estimates.get(k) is not None]
    given = {k: float(v) for k, v in estimates.items() if v is not None and math.isfinite(v)}
    top = max(given.values()) if given else 0.0
    agree = all(v >= (1.0 - BYTES_TOLERANCE) * top for v in given.values()) if len(given) > 1 else True
    used = given.get(basis, 0.0)
    adjustment = None
    if capped and bound is not None and used > bound:
        adjustment = capping(basis, used, bound, bound_how)
        used = bound
    why = {
        "billed": "the provider's billed figure is what is paid",
        "measured": f"a measurement of what crossed ({how_measured}) beats a model of what should cross",
        "dataset": "no measured or billed figure is given" if len(given) == 1 else "link.bytes_basis: dataset",
        "lru": "link.bytes_basis: lru (an LRU cache under per-epoch shuffle hits about (C/W)^2/2)",
    }[basis]
    if refused and basis == "dataset" and requested == "auto":
        why = "; ".join(refusal(k, given[k], bound or 0.0, bound_how) for k in refused)
    if requested != "auto" and requested != basis:
        why = f"link.bytes_basis: {requested} has no figure; " + why
    others = []
    for k, v in given.items():
        if k == basis:
            continue
        ratio = v / used if used > 0 else math.inf
        others.append(f"{k} {v:,.6g} GB ({ratio:,.3g}x)")
    if len(given) == 1:
        sentence = f"cross-region bytes {used:,.6g} GB/month from the {basis} model ({why})"
    elif agree:
        sentence = (f"cross-region bytes {used:,.6g} GB/month ({basis}); the estimates agree within "
                    f"{BYTES_TOLERANCE:.0%}: " + ", ".join(others))
    elif refused and basis == "dataset":
        sentence = (f"cross-region bytes {used:,.6g} GB/month priced from the dataset model: " + why
                    + "; the estimates: " + ", ".join(others))
    else:
        sentence = (f"cross-region bytes {used:,.6g} GB/month priced from the {basis} figure because {why}; "
                    f"the estimates disagree by more than {BYTES_TOLERANCE:.0%}: " + ", ".join(others)
                    + (". Check dataset.size_gb (bytes per token) and read amplification (readahead, re-reads "
                       "of shards), or set link.bytes_basis" if "dataset" in given else ""))
    if adjustment is not None:
        sentence += ". " + adjustment["why"][0].upper() + adjustment["why"][1:]
    # what is priced never above what can cross, but a forced or billed figure (the user's word): said so
    above = bound is not None and used > bound * (1.0 + 1e-9)
    if bound is not None and above:
        sentence += (f". The priced {used:,.6g} GB/month is {used / bound:,.3g}x what the training's reads can move "
                     f"across ({bound:,.6g} GB/month: {bound_how}): explain it (read amplification, other traffic "
                     "on the same bill) before relying on it")
    per_run = used / runs_per_month if runs_per_month > 0 else None
    return {"basis": basis, "requested": requested, "gb_per_month": used, "gb_per_run": per_run,
            "estimates_gb_per_month": {k: given.get(k) for k in ("dataset", "measured", "billed", "lru")},
            "measured_how": how_measured or None, "tolerance": BYTES_TOLERANCE, "agree": agree,
            "reason": why, "sentence": sentence,
            "physical_bound_gb_per_month": bound, "physical_bound_how": bound_how or None,
            "within_physical_bound": not above, "refused": list(refused), "adjustment": adjustment,
            "cases": (["billed"] if "billed" in given else admissible(estimates, bound, refused))
           if requested == "auto" else [basis]}


def bytes_phrase(record: dict[str, Any] | None) -> str:
    """The one sentence both ``costmodel cost`` and the checklist print for a ``cross_region_bytes`` record:
    ``cross-region bytes 72,345.6 GB/month, 72,345.6 GB per run (measured: read rate x miss ratio)``."""
    if not record:
        return ""
    how = record.get("basis", "")
    if how == "measured" and record.get("measured_how"):
        how = f"measured: {record['measured_how']}"
    adj = record.get("adjustment") or {}
    if adj.get("measured_gb_per_month") is not None:  # priced at what can physically cross
        how += f"; {adj['measured_gb_per_month']:,.6g} GB/month as measured, capped at what can physically cross"
    per_run = record.get("gb_per_run")
    run = f", {per_run:,.6g} GB per run" if per_run is not None else ""
    return f"cross-region bytes {record.get('gb_per_month', 0.0):,.6g} GB/month{run} ({how})"
