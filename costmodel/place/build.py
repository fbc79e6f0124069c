"""Each candidate x offer as a cost scenario: the base scenario with that candidate's region, prices, link and
warm-up figures, evaluated by the one cost model (:mod:`costmodel.cost`), never by a second one.

The scenario written for a candidate (:attr:`CandidateScenario.doc`, exported by ``costmodel place
--scenarios DIR``) is what ``costmodel cost`` reads: its ``cross_region``, ``replicate`` and ``wait`` totals are
the strategy figures of the ranking (``--from-compare`` for a measured candidate). Keys set here:

- ``prices.provider/src_region`` = the data region's, ``prices.dst_region`` = the candidate's region (the
  transfer price is filled from the catalog unless stated; across providers ``link.path: internet``, billed as
  the data provider's internet egress);
- ``training.cluster_usd_per_hour`` = the offer's price per instance-hour x instances (stated, so the GPU
  price is one visible number); ``training.instance_type`` and ``instance_count``;
- ``link.rtt_ms``, ``link.bandwidth_gbps`` (stated, else the dated link table), the replica's storage price;
- ``wait.expected_wait_hours_per_run`` = the wait for GPUs near the data, ``wait.cluster_premium_usd_per_hour``
  = the data region's cluster price minus this one, ``wait.delay_usd_per_hour: 0`` (time is its own axis of the
  placement, valued by ``objective.usd_per_hour``, not inside the money);
- the cache figures: **measured** (a compare result of runs in this candidate), **predicted** (``costmodel
  simulate`` of the base scenario's ``workload:`` with this candidate's link figures) or **assumed** (the base
  scenario's own figures, when neither is possible; the reason is given).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..foundation import diskcache
from ..foundation.errors import PlacementError, PriceError, ScenarioError, SimulateError
from .model import Candidate, Offer, Placement

#: per-candidate keys removed from the base scenario before the candidate's own are set
CANDIDATE_KEYS: dict[str, tuple[str, ...]] = {
    "training": ("instance_type", "cluster_usd_per_hour", "instance_count"),
    "link": ("transfer_usd_per_gb", "transfer_usd_per_gib", "rtt_ms", "bandwidth_gbps", "bandwidth_gbit_s"),
    "replica": ("storage_usd_per_gb_month", "storage_usd_per_gib_month"),
    "wait": ("expected_wait_hours_per_run", "delay_usd_per_hour", "cluster_premium_usd_per_hour"),
    "prices": ("provider", "src_region", "dst_region", "storage_item"),
}
CACHE_KEYS = ("cache.steady_hit_ratio", "cache.warmup_lost_s", "cache.steady_slowdown_fraction")


@dataclass
class Basis:
    """Where a candidate's warm-up, slowdown and hit ratio come from: measured, predicted or assumed."""

    kind: str
    detail: str
    figures: dict[str, float] = field(default_factory=dict)
    compare: Any = None  # the CompareResult of a measured candidate
    compare_source: str | None = None


@dataclass
class CandidateScenario:
    """One candidate x offer: the scenario mapping, the validated Scenario (None when it cannot be priced)."""

    candidate: Candidate
    offer: Offer
    data_offer: Offer | None
    basis: Basis
    doc: dict[str, Any] | None = None
    scenario: Any = None
    not_priced_reason: str | None = None
    storage_not_priced: str | None = None
    kind: str = "candidate"  # or "wait": a GPU offer near the data, priced once for the wait strategy
    speed_key: str | None = None  # the scenario key the offer's speed scaled (training.samples_per_s or run_hours)

    @property
    def label(self) -> str:
        return f"{self.candidate.name} | {self.offer.label()}"


def _put(doc: dict[str, Any], dotted: str, value: Any) -> None:
    head, _, leaf = dotted.partition(".")
    sec = doc.get(head)
    if not isinstance(sec, dict):
        sec = {}
        doc[head] = sec
    sec[leaf] = value


def _strip(base: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(base)
    for section, keys in CANDIDATE_KEYS.items():
        sec = doc.get(section)
        if isinstance(sec, dict):
            for k in keys:
                sec.pop(k, None)
    doc.pop("transfer_budget_usd_per_month", None)  # a budget of one link, not of every candidate
    return doc


def _stripped_copy(pl: Placement) -> dict[str, Any]:
    """:func:`_strip` of the base scenario, deep-copied once per placement; each call returns a copy of its
    top-level sections (what :func:`candidate_doc` writes into), the nested values shared read-only."""
    cached = getattr(pl, "_stripped", None)
    if cached is None or cached[0] is not pl.base:
        cached = (pl.base, _strip(pl.base))
        pl._stripped = cached  # type: ignore[attr-defined]
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in cached[1].items()}


def data_offer_for(pl: Placement, offer: Offer) -> Offer | None:
    """The GPU offer near the data that the wait strategy compares with ``offer``: the same instance type and
    purchase option, else the same instance type, else the first one."""
    for same in (lambda d: d.instance_type == offer.instance_type and d.purchase == offer.purchase,
                 lambda d: d.instance_type == offer.instance_type, lambda d: True):
        for d in pl.data_offers:
            if same(d):
                return d
    return None


def measured_basis(pl: Placement, cand: Candidate, progress: Any = None) -> Basis | None:
    """The compare result of runs in ``cand`` (``measured:``), None when the candidate has none. ``progress``: told
    before the runs are read and compared (not when the disk cache has the result)."""
    m = cand.measured
    if m is None:
        return None
    key = f"candidates[{cand.index}].measured"
    if m.compare and (m.colocated or m.remote):
        raise PlacementError("give compare (a compare JSON) or colocated and remote (run files), not both",
                             key=key, path=_src(pl))
    if m.compare:
        from ..contracts.read import load_result

        p = _rel(pl, m.compare)
        try:
            cmp = load_result(str(p), "compare", f"{key}.compare {m.compare}", PlacementError)
        except ScenarioError as exc:
            raise PlacementError(exc.message, key=f"{key}.compare", path=_src(pl)) from None
        return Basis("measured", f"compare result {m.compare}", compare=cmp, compare_source=str(p))
    if not (m.colocated and m.remote):
        raise PlacementError("give compare, or both colocated and remote run files", key=key, path=_src(pl))
    files = ", ".join(m.colocated) + " vs " + ", ".join(m.remote)
    ck = _compare_key(pl, m.colocated, m.remote)
    res = diskcache.get("compare", ck) if ck is not None else None
    if isinstance(res, dict):
        return Basis("measured", f"costmodel compare of {files}", compare=res)
    if progress is not None:
        progress(f"{cand.name}: reading and comparing the measured runs ({files})")
    from ..foundation.errors import CostmodelError
    from ..foundation.published import published
    from ..foundation.util import to_jsonable
    from ..ingest import IngestOptions, load
    from ..warmup import compare

    try:
        co = [r for f in m.colocated for r in load(_rel(pl, f), options=IngestOptions(role="colocated"))]
        re_ = [r for f in m.remote for r in load(_rel(pl, f), options=IngestOptions(role="remote"))]
        # what `costmodel compare --json` prints for these files, as published (docs/contracts.md): the cost is
        # the one `costmodel cost --from-compare` gives from the compare file place writes beside the scenario
        res = published(to_jsonable(dict(compare(co, re_).to_dict(), jobs=[])))
    except CostmodelError as exc:
        raise PlacementError(str(exc), key=key, path=_src(pl)) from None
    if ck is not None:
        diskcache.put("compare", ck, res)
    return Basis("measured", f"costmodel compare of {files}", compare=res)


def _compare_key(pl: Placement, colocated: list[str], remote: list[str]) -> str | None:
    """The disk-cache key of the compare of these run files (their paths and bytes, in order, by role), None when one
    of them is not a regular local file (nothing cached) or the cache is off."""
    if diskcache.cache_dir() is None:
        return None
    files: dict[str, list[list[str]]] = {}
    for role, names in (("colocated", colocated), ("remote", remote)):
        for name in names:
            p = _rel(pl, name)
            d = diskcache.file_digest(p)
            if d is None:
                return None
            files.setdefault(role, []).append([str(p.resolve()), d])
    return diskcache.key("compare", files)


def _src(pl: Placement) -> str | None:
    return pl.source if pl.source != "<dict>" else None


def _rel(pl: Placement, name: str) -> Path:
    p = Path(name)
    return p if p.is_absolute() else pl.folder / p


def predicted_basis(pl: Placement, cand: Candidate, cache: dict[tuple, Basis], progress: Any = None) -> Basis:
    """``costmodel simulate`` of the base scenario's workload with ``cand``'s link figures, or the base
    scenario's own figures (assumed) with the reason a prediction was not possible. Predictions are kept in
    ``cache`` (this run: one per distinct link) and on disk (:mod:`costmodel.foundation.diskcache`: a rerun of the
    same inputs and code reads them back). ``progress``: told before a prediction is simulated."""
    if "workload" not in pl.base:
        return Basis("assumed", "the base scenario's cache figures (it has no workload: section to predict from)")
    if cand.rtt_ms is None or cand.bandwidth_gbps is None:
        lacking = " and ".join(k for k, v in (("link.rtt_ms", cand.rtt_ms), ("link.bandwidth_gbps", cand.bandwidth_gbps))
                               if v is None)
        return Basis("assumed", f"the base scenario's cache figures (no {lacking} for this link to predict with)")
    k = (pl.base_source, cand.rtt_ms, cand.bandwidth_gbps, pl.predict_max_steps, pl.predict_seed)
    if k in cache:
        return cache[k]
    doc = _strip(pl.base)
    _put(doc, "link.rtt_ms", cand.rtt_ms)
    _put(doc, "link.bandwidth_gbps", cand.bandwidth_gbps)
    wl = doc.get("workload")
    if isinstance(wl, dict) and isinstance(wl.get("link"), dict):  # one quantity, one key: the candidate's
        wl["link"] = {k: v for k, v in wl["link"].items() if k not in ("bandwidth_bytes_per_s", "rtt_s")}
    over: dict[str, Any] = {}
    if pl.predict_max_steps:
        over["workload.simulation.max_steps"] = pl.predict_max_steps
    dk = diskcache.key("prediction", {"doc": doc, "seed": pl.predict_seed, "overrides": over}) \
        if diskcache.cache_dir() is not None else None
    figs = diskcache.get("prediction", dk) if dk is not None else None
    try:
        if not (isinstance(figs, dict) and all(isinstance(v, float) for v in figs.values())):
            if progress is not None:
                progress(f"{cand.name}: predicting the warm-up with the what-if simulator (rtt {cand.rtt_ms:g} ms, "
                         f"{cand.bandwidth_gbps:g} Gbit/s)")
            from ..simulate import simulate

            res = simulate(doc, seed=pl.predict_seed, overrides=over)
            figs = {k2: float(v) for k2, v in res.scenario_overrides().items()}
            if dk is not None:
                diskcache.put("prediction", dk, figs)
    except SimulateError as exc:
        b = Basis("assumed", f"the base scenario's cache figures (the prediction failed: {exc})")
    else:
        b = Basis("predicted", f"costmodel simulate of the base workload with rtt {cand.rtt_ms:g} ms, "
                               f"bandwidth {cand.bandwidth_gbps:g} Gbit/s (seed {pl.predict_seed})", figures=figs)
    cache[k] = b
    return b


def candidate_doc(pl: Placement, cand: Candidate, offer: Offer, data_offer: Offer | None, basis: Basis,
                  storage_usd: float | None) -> dict[str, Any]:
    """The scenario mapping of ``cand`` x ``offer`` (see the module docstring)."""
    doc = _stripped_copy(pl)
    doc["name"] = f"{pl.name}: {cand.name} ({offer.label()})"
    _put(doc, "prices.provider", pl.data_provider)
    _put(doc, "prices.src_region", pl.data_region)
    _put(doc, "prices.dst_region", cand.region)
    _put(doc, "prices.storage_item", cand.storage_item)
    _put(doc, "training.instance_type", offer.instance_type)
    _put(doc, "training.instance_count", offer.count)
    _put(doc, "training.cluster_usd_per_hour", offer.cluster_usd_per_hour)
    if offer.interruptions_per_run is not None:
        _put(doc, "training.interruptions_per_run", offer.interruptions_per_run)
    if cand.rtt_ms is not None:
        _put(doc, "link.rtt_ms", cand.rtt_ms)
    if cand.bandwidth_gbps is not None:
        _put(doc, "link.bandwidth_gbps", cand.bandwidth_gbps)
    if cand.transfer_usd_per_gb is not None:
        _put(doc, "link.transfer_usd_per_gb", cand.transfer_usd_per_gb)
    if cand.path is not None:
        _put(doc, "link.path", cand.path)
    if storage_usd is not None:
        _put(doc, "replica.storage_usd_per_gb_month", storage_usd)
    data_g = data_offer.cluster_usd_per_hour if data_offer is not None else None
    _put(doc, "wait.expected_wait_hours_per_run", data_offer.wait_hours if data_offer is not None else 0.0)
    _put(doc, "wait.delay_usd_per_hour", 0.0)
    _put(doc, "wait.cluster_premium_usd_per_hour",
         (data_g - offer.cluster_usd_per_hour) if data_g is not None and offer.cluster_usd_per_hour is not None else 0.0)
    for k, v in basis.figures.items():
        _put(doc, k, v)
    return doc


def scale_speed(doc: dict[str, Any], ratio: float) -> str | None:
    """Scale the scenario's throughput by ``ratio`` (the offer's cluster vs the reference cluster): a stated
    ``training.samples_per_s`` is multiplied, else a stated ``training.run_hours`` divided. Returns the key
    scaled (None when ``ratio`` is 1 and nothing needed scaling); raises PlacementError when neither is a number."""
    tr = doc.get("training")
    tr = tr if isinstance(tr, dict) else {}
    for key, f in (("samples_per_s", ratio), ("run_hours", 1.0 / ratio)):
        v = tr.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            if ratio != 1.0:
                tr[key] = float(v) * f
            return f"training.{key}"
    if ratio == 1.0:
        return None
    raise PlacementError("the offer's speed differs from the reference cluster, but the base scenario states neither "
                         "training.samples_per_s nor training.run_hours as a number to scale")


def _storage(pl: Placement, cand: Candidate) -> tuple[float | None, str | None]:
    """The replica's storage price: stated; across providers looked up here (the scenario's lookups use the data
    provider); within one provider left to the scenario's own fill (with its tiers). (price, why not priced)."""
    if cand.storage_usd_per_gb_month is not None:
        return cand.storage_usd_per_gb_month, None
    from ..prices.billing import usd_per_decimal_gb
    from ..prices.catalog import load_prices

    try:
        row = load_prices().lookup(cand.provider, cand.storage_item, cand.region)
    except PriceError as exc:
        return 0.0, (f"replica storage has no price: {exc.message}; state storage_usd_per_gb_month for "
                     f"{cand.name}")
    if cand.provider != pl.data_provider:
        return usd_per_decimal_gb(row), None
    return None, None


def build(pl: Placement, today: Any = None, predictions: dict[tuple, Basis] | None = None,
          progress: Any = None) -> list[CandidateScenario]:
    """Every candidate x offer as a :class:`CandidateScenario` (in file order). Raises PlacementError for a
    measurement that cannot be read; a price that cannot be found leaves the offer not priced, with the reason."""
    from ..cost import apply_measurements, scenario_from_dict

    out: list[CandidateScenario] = []
    predictions = {} if predictions is None else predictions
    step = max(1, len(pl.candidates) // 10)
    for k, cand in enumerate(pl.candidates):
        if progress is not None and k and k % step == 0:
            progress(f"candidate scenarios: {k} of {len(pl.candidates)}")
        basis = measured_basis(pl, cand, progress) or predicted_basis(pl, cand, predictions, progress)
        storage, storage_why = _storage(pl, cand)
        for offer in cand.offers:
            d_offer = data_offer_for(pl, offer)
            cs = CandidateScenario(cand, offer, d_offer, basis, storage_not_priced=storage_why)
            out.append(cs)
            _price(pl, cs, storage, today, apply_measurements, scenario_from_dict)
    data_offers = pl.data_offers or [Offer("(none)", 1, "on_demand", None, "", 0.0,
                                           not_priced_reason="no GPU offer near the data (data.offers)")]
    for j, offer in enumerate(data_offers):
        cand = data_candidate(pl, j)
        cs = CandidateScenario(cand, offer, offer, Basis("assumed", "waits near the data: nothing is read across "
                                                                    "regions"), kind="wait")
        out.append(cs)
        _price(pl, cs, 0.0, today, apply_measurements, scenario_from_dict)
    return out


def data_candidate(pl: Placement, j: int) -> Candidate:
    """The data region as the place a wait trains in (its offer ``data.offers[j]``): no link, nothing stored."""
    return Candidate(f"{pl.data_provider}:{pl.data_region} (data region)", pl.data_provider, pl.data_region, [],
                     None, None, 0.0, None, 0.0, "", None, {}, -1 - j)


def _price(pl: Placement, cs: CandidateScenario, storage: float | None, today: Any, apply_measurements: Any,
           scenario_from_dict: Any) -> None:
    """Fill ``cs.doc`` and ``cs.scenario`` (or ``cs.not_priced_reason``)."""
    cand, offer, d_offer, basis = cs.candidate, cs.offer, cs.data_offer, cs.basis
    if offer.usd_per_hour is None:
        cs.not_priced_reason = offer.not_priced_reason
        return
    cs.doc = candidate_doc(pl, cand, offer, d_offer, basis, storage)
    if cs.kind == "wait":
        cs.doc.get("prices", {}).pop("storage_item", None)
    try:
        cs.speed_key = scale_speed(cs.doc, offer.speed.ratio)
    except PlacementError as exc:
        raise PlacementError(f"{cs.label}: {exc.message}", key="scenario",
                             path=pl.source if pl.source != "<dict>" else None) from None
    try:
        sc = scenario_from_dict(cs.doc, source=f"{pl.source} [{cs.label}]", today=today)
        if basis.compare is not None:
            sc = apply_measurements(sc, compare=basis.compare, source=basis.compare_source or basis.detail)
        sc.require_complete()
    except PriceError as exc:
        cs.not_priced_reason = f"no catalog price: {exc.message}"
        return
    except ScenarioError as exc:
        raise PlacementError(f"{cs.label}: the candidate's scenario is invalid: {exc.message}",
                             key=f"candidates[{cand.index}]" if cand.index >= 0 else "data.offers",
                             path=pl.source if pl.source != "<dict>" else None) from None
    cs.scenario = sc
