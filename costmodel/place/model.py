"""The placement file (``costmodel place FILE``): its model, and reading it into a :class:`Placement`.

A YAML mapping (``data/examples/placement.yaml``; every key in ``docs/place.md``)::

    scenario: whatif.yaml            # the base cost scenario (dataset, training, cache, replica, requests)
    data: {provider: aws, region: us-east-2, dataset: ..., offers: [...]}   # where the data is; GPUs there
    candidates:                      # GPU regions, each with its offers and its link to the data region
      - {provider: aws, region: us-west-2, offers: [{instance_type: p5.48xlarge}], link: {...}, measured: {...}}
    constraints: {deadline_hours: 800, governance: [{region: eu-west-1, forbid: [cache, replica]}]}
    objective: {usd_per_hour: 0}     # the value of finishing an hour sooner (0: cost only)
    monte_carlo: {draws: 2000, seed: 0}

Unknown keys, providers, regions and instance types, numbers out of range and an infeasible constraint
raise :class:`~costmodel.foundation.errors.PlacementError` naming the file and the key path (exit 2). An
offer whose price is not in the catalog is *not* an error: it is ranked as not priced, with the reason.
"""
from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..cost.dists import Distribution
from ..cost.scenario_model import GIB_PER_GB, parse_number
from ..cost.spec import INF, Param
from ..foundation.errors import PlacementError, ScenarioError
from ..foundation.names import shown
from ..foundation.safeio import input_kind
from ..foundation.safeyaml import safe_load_file
from ..foundation.util import yaml_problem
from .regions import REGIONS, STORAGE_ITEMS


def _whole(v: Any) -> Any:
    """A whole number (``true`` is not 1): foundation's one number reader, before pydantic."""
    from ..foundation.numbers import NumberRefused, number

    if v is None:
        return v
    try:
        return number(v, "count", integer=True)
    except NumberRefused as exc:
        raise ValueError(f"got {exc.args[0].split(': got ', 1)[1]}") from None


PURCHASE_OPTIONS = ("on_demand", "spot", "reserved", "savings_plan", "capacity_block")
FORBIDDABLE = ("cache", "replica", "gpu")
PATHS = ("vpc_peering", "transit_gateway", "nat_gateway", "privatelink", "internet")
DEFAULT_DRAWS = 2000


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SpeedIn(_Strict):
    samples_per_s: float = Field(gt=0, description="measured steady throughput of this offer's whole cluster")
    source: str | None = Field(None, max_length=300, description="where it was measured")


class CommitmentIn(_Strict):
    term_months: float | None = Field(None, gt=0, le=120, description="savings plan / reserved term (12 or 36)")
    other_use_fraction: float = Field(0.0, ge=0, le=1, description="share of the committed hours this job does "
                                      "not use that other work uses (credited; default 0: the job pays them)")
    block_hours: float | None = Field(None, gt=0, description="capacity block: hours booked per run (default: the "
                                      "run rounded up to whole days)")


class OfferIn(_Strict):
    instance_type: str = Field(min_length=1, description="instance type, e.g. p5.48xlarge")
    count: int | None = Field(None, ge=1, description="instances in the cluster (default: the scenario's "
                                                        "training.instance_count, else 1)")
    purchase: Literal["on_demand", "spot", "reserved", "savings_plan", "capacity_block"] = "on_demand"
    usd_per_hour: Any = Field(None, description="USD per instance-hour (default: the catalog's on-demand price); "
                                                "a number, [low, high] or a distribution")
    expected_wait_hours: Any = Field(0.0, description="hours until the GPUs are free, per run; a number, "
                                                      "[low, high] or a distribution")
    interruptions_per_run: float | None = Field(None, ge=0, description="instance replacements per run (spot "
                                                "interruptions): the cost model's training.interruptions_per_run")
    hours_lost_per_interruption: float | None = Field(None, ge=0, description="work redone and restart time per "
                                                      "interruption (hours since the last checkpoint + restart)")
    gpu: str | None = Field(None, max_length=40, description="the GPU the instance carries (default: data/gpus)")
    gpus_per_instance: int | None = Field(None, ge=1, le=1024, description="GPUs per instance (default: data/gpus)")
    speed: float | SpeedIn | None = Field(None, description="training throughput per GPU relative to the reference "
                                          "GPU (a number), or {samples_per_s: ...} measured on this offer's cluster")
    commitment: CommitmentIn | None = Field(None, description="savings_plan / reserved / capacity_block: the term "
                                            "billed")

    @field_validator("count", mode="before")
    @classmethod
    def _whole_count(cls, v: Any) -> Any:  # true is not 1
        return _whole(v)


class LinkIn(_Strict):
    rtt_ms: float | None = Field(None, gt=0, description="round trip data region <-> GPU region (ms)")
    bandwidth_gbps: float | None = Field(None, gt=0, description="Gbit/s from the data region")
    transfer_usd_per_gb: float | None = Field(None, ge=0, description="USD per GB (10^9 bytes) moved")
    path: Literal["vpc_peering", "transit_gateway", "nat_gateway", "privatelink", "internet"] | None = None


class MeasuredIn(_Strict):
    compare: str | None = Field(None, description="`costmodel compare --json` output for this candidate")
    colocated: list[str] | None = Field(None, description="co-located run files (compared with remote)")
    remote: list[str] | None = Field(None, description="remote run files from this candidate")


class SpeedRefIn(_Strict):
    reference_gpu: str | None = Field(None, max_length=40, description="the GPU the base scenario's throughput was "
                                      "measured on (default: the base scenario's training.instance_type's)")
    reference_gpus: int | None = Field(None, ge=1, description="GPUs of that run (default: the base scenario's "
                                       "instance_count x GPUs per instance)")
    precision: str = Field("bf16", max_length=20, description="training precision of the speed table")


class CandidateIn(_Strict):
    name: str | None = Field(None, max_length=80)
    provider: str = Field(min_length=2, max_length=40, pattern=r"^[a-z][a-z0-9_-]*$",
                          description="aws, gcp, azure or a GPU cloud (lambda, runpod, nebius, ...)")
    region: str
    offers: list[OfferIn] = Field(min_length=1)
    link: LinkIn = Field(default_factory=LinkIn)  # type: ignore[arg-type]
    storage_usd_per_gb_month: float | None = Field(None, ge=0, description="replica storage, USD per GB-month")
    storage_usd_per_gib_month: float | None = Field(None, ge=0, description="the same per GiB-month (2^30 bytes)")
    storage_item: str | None = Field(None, description="catalog item of the replica (default: the provider's "
                                                       "object store)")
    measured: MeasuredIn | None = None


class DataIn(_Strict):
    provider: Literal["aws", "gcp", "azure"]
    region: str
    dataset: str | None = Field(None, max_length=200, description="what the dataset is (its figures are in the "
                                                                    "scenario)")
    offers: list[OfferIn] = Field(default_factory=list, description="GPUs near the data (the wait strategy)")


class GovernanceIn(_Strict):
    region: str
    provider: str | None = Field(None, max_length=40, description="the region's provider (default: a region of that "
                                 "name at any provider; GPU clouds reuse names such as us-east-1)")
    forbid: list[Literal["cache", "replica", "gpu"]] = Field(min_length=1)
    reason: str | None = Field(None, max_length=200)


class ConstraintsIn(_Strict):
    deadline_hours: float | None = Field(None, gt=0, description="the first training must finish within this "
                                                                  "many hours")
    governance: list[GovernanceIn] = Field(default_factory=list)


class ObjectiveIn(_Strict):
    usd_per_hour: float = Field(0.0, ge=0, description="USD an hour sooner to a finished training is worth (the value "
                                                        "of delay; 0: not stated, waits are ranked by time)")


class MonteCarloIn(_Strict):
    draws: int = Field(DEFAULT_DRAWS, ge=1, le=1_000_000)
    seed: int = Field(0, ge=0)
    tie_fraction: float = Field(0.001, ge=0, le=0.1, description="placements within this share of a draw's best "
                                "score share that draw's win (near-ties the model cannot tell apart)")


class PredictIn(_Strict):
    max_steps: int | None = Field(None, ge=10, description="steps the simulator runs per prediction")
    seed: int = Field(0, ge=0)


class PlacementIn(_Strict):
    name: str | None = Field(None, max_length=200)
    notes: str | None = None
    scenario: str | dict[str, Any] = Field(description="the base cost scenario: a file (relative to this one) "
                                                       "or the mapping itself")
    data: DataIn
    candidates: list[CandidateIn] = Field(min_length=1)
    constraints: ConstraintsIn = Field(default_factory=ConstraintsIn)  # type: ignore[arg-type]
    objective: ObjectiveIn = Field(default_factory=ObjectiveIn)  # type: ignore[arg-type]
    monte_carlo: MonteCarloIn = Field(default_factory=MonteCarloIn)  # type: ignore[arg-type]
    predict: PredictIn = Field(default_factory=PredictIn)  # type: ignore[arg-type]
    speed: SpeedRefIn = Field(default_factory=SpeedRefIn)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------ resolved
@dataclass
class Offer:
    """One GPU offer: ``usd_per_hour`` per instance (None: not priced, ``not_priced_reason`` says why)."""

    instance_type: str
    count: int
    purchase: str
    usd_per_hour: float | None
    price_source: str
    wait_hours: float
    wait_distribution: Distribution | None = None
    price_distribution: Distribution | None = None
    not_priced_reason: str | None = None
    key: str = ""
    interruptions_per_run: float | None = None
    hours_lost_per_interruption: float = 0.0
    speed: Any = None  # place.speed.Speed
    commitment: CommitmentIn | None = None
    price_notes: str = ""
    price_as_of: str | None = None
    price_row: Any = None  # the catalog's PriceRow (None: stated)

    @property
    def cluster_usd_per_hour(self) -> float | None:
        return None if self.usd_per_hour is None else self.usd_per_hour * self.count

    def label(self) -> str:
        return f"{self.count} x {self.instance_type} {self.purchase}"


@dataclass
class Candidate:
    name: str
    provider: str
    region: str
    offers: list[Offer]
    rtt_ms: float | None
    bandwidth_gbps: float | None
    transfer_usd_per_gb: float | None
    path: str | None
    storage_usd_per_gb_month: float | None
    storage_item: str
    measured: MeasuredIn | None
    link_sources: dict[str, str] = field(default_factory=dict)
    index: int = 0


@dataclass
class Placement:
    name: str
    source: str
    base: dict[str, Any]
    base_source: str
    data_provider: str
    data_region: str
    dataset: str | None
    data_offers: list[Offer]
    candidates: list[Candidate]
    deadline_hours: float | None
    governance: list[GovernanceIn]
    usd_per_hour: float
    draws: int
    seed: int
    predict_max_steps: int | None
    predict_seed: int
    folder: Path
    tie_fraction: float = 0.001
    reference: Any = None  # place.speed.Reference

    def forbidden(self, region: str, what: str, provider: str | None = None) -> str | None:
        """The reason ``what`` (cache, replica, gpu) is forbidden in ``region`` (of ``provider``), None when allowed."""
        for g in self.governance:
            if g.region == region and what in g.forbid and (g.provider is None or provider is None
                                                             or g.provider == provider):
                return f"governance: {what} forbidden in {region}" + (f" ({g.reason})" if g.reason else "")
        return None


# ------------------------------------------------------------------------------------------- loading
def load_placement(path: str | os.PathLike[str], overrides: Mapping[str, Any] | None = None) -> Placement:
    """Read and validate a placement file. ``overrides`` replace whole top-level sections (widgets, tests).
    Raises PlacementError naming the file and key path."""
    p = Path(path)
    src = str(p)
    if input_kind(p) == "missing":
        raise PlacementError(f"placement file {p} does not exist", path=src)
    try:
        data = safe_load_file(p)
    except yaml.YAMLError as exc:
        raise PlacementError(yaml_problem(exc), path=src) from None
    except ScenarioError as exc:
        raise PlacementError(exc.message, path=src) from None
    if not isinstance(data, Mapping):
        raise PlacementError("expected a mapping with scenario, data and candidates", path=src)
    data = dict(data)
    data.update(overrides or {})
    return placement_from_dict(data, source=src, folder=p.parent)


def placement_from_dict(data: Mapping[str, Any], source: str = "<dict>", folder: Path | None = None) -> Placement:
    """Validate a placement mapping (as read from YAML); see :func:`load_placement`."""
    from ..contracts.errors import raise_validation_error

    path = source if source != "<dict>" else None
    _check_size(data, path)
    try:
        m = PlacementIn.model_validate(dict(data))
    except ValidationError as exc:
        raise_validation_error(exc, PlacementError, source=path, model=PlacementIn)
    folder = folder or Path(".")
    try:
        return _resolve(m, source, folder)
    except PlacementError as exc:
        if exc.path is None and path:
            raise PlacementError(_strip_key(exc), key=exc.key, path=path) from None
        raise


def _check_size(data: Mapping[str, Any], path: str | None) -> None:
    """PlacementError, before any work, for more candidate x offer rows than ``COSTMODEL_MAX_CANDIDATES`` (
    10^5 candidates ran for minutes without a word)."""
    from ..foundation.limits import max_candidates

    cands = data.get("candidates") if isinstance(data, Mapping) else None
    if not isinstance(cands, list):
        return
    rows = sum(len(c["offers"]) if isinstance(c, Mapping) and isinstance(c.get("offers"), list) else 1 for c in cands)
    if rows > max_candidates():
        raise PlacementError(f"{len(cands):,} candidates with {rows:,} offers in all, more than {max_candidates():,} "
                             "candidate x offer rows (COSTMODEL_MAX_CANDIDATES raises the bound; each row is a cost "
                             "scenario and a Monte Carlo column)", key="candidates", path=path)


def _strip_key(exc: ScenarioError) -> str:
    msg = exc.message
    return msg[len(exc.key) + 2:] if exc.key and msg.startswith(f"{exc.key}: ") else msg


_REGION_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")


def _region(provider: str, region: str, key: str) -> None:
    from ..contracts.errors import did_you_mean

    if provider not in REGIONS:  # a GPU cloud: its region names are its own; only their shape is checked
        if not _REGION_NAME.match(region):
            raise PlacementError(f"region {shown(region, 80)!r}: expected letters, digits, '-', '_' or '.'", key=key)
        return
    if region not in REGIONS[provider]:
        raise PlacementError(f"unknown {provider} region {region!r}{did_you_mean(region, REGIONS[provider])}",
                             key=key)


def _base(m: PlacementIn, folder: Path) -> tuple[dict[str, Any], str]:
    if isinstance(m.scenario, dict):
        return dict(m.scenario), "<placement scenario:>"
    p = Path(m.scenario)
    if not p.is_absolute():
        p = folder / p
    if input_kind(p) == "missing":
        raise PlacementError(f"no such scenario file {m.scenario!r} (relative to the placement file)",
                             key="scenario")
    try:
        doc = safe_load_file(p)
    except (yaml.YAMLError, ScenarioError) as exc:
        raise PlacementError(f"{p}: {yaml_problem(exc) if isinstance(exc, yaml.YAMLError) else exc}",
                             key="scenario") from None
    if not isinstance(doc, Mapping):
        raise PlacementError(f"{p} is not a scenario mapping", key="scenario")
    return dict(doc), str(p)


def _number(value: Any, key: str, unit: str, allow_dist: bool = True) -> tuple[float, Distribution | None]:
    try:
        n = parse_number(value, Param(key, unit, lo=0.0, hi=INF), allow_dist)
    except ScenarioError as exc:
        raise PlacementError(_strip_key(exc), key=key) from None
    return n.value, n.distribution


COMMITTED = ("savings_plan", "reserved", "capacity_block")


def _offer(o: OfferIn, provider: str, region: str, key: str, default_count: int, table: Any, ref: Any) -> Offer:
    from .speed import offer_speed

    wait, wait_dist = _number(o.expected_wait_hours, f"{key}.expected_wait_hours", "hours")
    count = o.count or default_count
    offer = _priced_offer(o, provider, region, key, count, wait, wait_dist, table)
    offer.interruptions_per_run = o.interruptions_per_run
    offer.hours_lost_per_interruption = float(o.hours_lost_per_interruption or 0.0)
    offer.commitment = o.commitment
    if o.commitment is not None and o.purchase not in COMMITTED:
        raise PlacementError(f"commitment is for {', '.join(COMMITTED)}, not {o.purchase}", key=f"{key}.commitment")
    offer.speed = offer_speed(ref, provider, o.instance_type, count, gpu=o.gpu, gpus_per_instance=o.gpus_per_instance,
                              stated=o.speed, price_notes=offer.price_notes)
    if offer.usd_per_hour is not None:
        why = None
        if offer.speed.ratio is None:
            why = offer.speed.reason
        elif o.purchase in ("savings_plan", "reserved") and (o.commitment is None or o.commitment.term_months is None):
            why = (f"state commitment: {{term_months: 12 or 36}} for the {o.purchase}: it is billed for every hour "
                   "of its term, used or not")
        elif o.purchase == "spot" and o.interruptions_per_run is None:
            why = ("state interruptions_per_run for spot (how often the instances are reclaimed in a run; each "
                   "restart re-warms the cache)")
        if why:
            offer.usd_per_hour, offer.price_distribution, offer.not_priced_reason = None, None, why
    return offer


def _priced_offer(o: OfferIn, provider: str, region: str, key: str, count: int, wait: float,
                  wait_dist: Distribution | None, table: Any) -> Offer:
    from ..contracts.errors import did_you_mean
    from ..foundation.errors import PriceError

    known = table.items(provider) if provider in table.providers() else []
    if o.usd_per_hour is None and provider not in table.providers():
        return Offer(o.instance_type, count, o.purchase, None, "", wait, wait_dist, key=key,
                     not_priced_reason=f"no catalog price: the catalog has no {provider} prices (`costmodel prices "
                                       "import` its SkyPilot catalog, or state usd_per_hour)")
    if o.usd_per_hour is not None:
        usd, dist = _number(o.usd_per_hour, f"{key}.usd_per_hour", "USD per instance-hour")
        return Offer(o.instance_type, count, o.purchase, usd, "placement file", wait, wait_dist, dist, key=key)
    if o.instance_type not in known and f"{o.instance_type}:spot" not in known:
        gpu_like = [k for k in known if not k.startswith(("inter_", "internet", "s3_", "gcs_", "ebs_", "object_",
                                                           "nat_", "transit_", "privatelink", "blob_"))]
        raise PlacementError(f"unknown {provider} instance type {o.instance_type!r}"
                             f"{did_you_mean(o.instance_type, gpu_like)}; known: {', '.join(gpu_like)} "
                             "(or state usd_per_hour)", key=f"{key}.instance_type")
    if o.purchase not in ("on_demand", "spot"):
        return Offer(o.instance_type, count, o.purchase, None, "", wait, wait_dist, key=key,
                     not_priced_reason=f"the catalog holds on-demand and spot prices only; state usd_per_hour for "
                                       f"{o.purchase} {o.instance_type} in {region}")
    item = o.instance_type if o.purchase == "on_demand" else f"{o.instance_type}:spot"
    try:
        if item not in known:
            raise PriceError(f"no {provider} price item {item!r} (a spot price comes from `costmodel prices import` "
                             "of a SkyPilot catalog, or state usd_per_hour)")
        row = table.lookup(provider, item, region, key=f"{key}.instance_type")
    except PriceError as exc:
        return Offer(o.instance_type, count, o.purchase, None, "", wait, wait_dist, key=key,
                     not_priced_reason=f"no catalog price: {_strip_key(exc)}")
    return Offer(o.instance_type, count, o.purchase, float(row.usd),
                 f"price table {row.ref()} (as_of {row.as_of or 'undated'})", wait, wait_dist, key=key,
                 price_notes=row.notes, price_as_of=row.as_of or None, price_row=row)


def _resolve(m: PlacementIn, source: str, folder: Path) -> Placement:
    from ..prices.catalog import load_prices
    from ..prices.links import lookup_link

    base, base_source = _base(m, folder)
    prices = base.get("prices")
    table = load_prices(prices.get("dir") if isinstance(prices, Mapping) else None)
    _region(m.data.provider, m.data.region, "data.region")
    tr = base.get("training")
    training: Mapping[str, Any] = tr if isinstance(tr, Mapping) else {}
    raw_count = training.get("instance_count", 1)
    default_count = int(raw_count) if isinstance(raw_count, (int, float)) and not isinstance(raw_count, bool) \
        and raw_count >= 1 else 1
    from .speed import reference

    ref = reference(base, m.speed.reference_gpu, m.speed.reference_gpus, m.speed.precision, m.data.provider)
    data_offers = [_offer(o, m.data.provider, m.data.region, f"data.offers[{i}]", default_count, table, ref)
                   for i, o in enumerate(m.data.offers)]
    cands: list[Candidate] = []
    names: set[str] = set()
    for i, c in enumerate(m.candidates):
        key = f"candidates[{i}]"
        _region(c.provider, c.region, f"{key}.region")
        if (c.provider, c.region) == (m.data.provider, m.data.region):
            raise PlacementError("is the data region itself: its GPUs belong under data.offers (the wait "
                                 "strategy)", key=f"{key}.region")
        name = c.name or f"{c.provider}:{c.region}"
        if name in names:
            raise PlacementError(f"candidate name {name!r} is given twice; name each candidate (name: ...)",
                                 key=f"{key}.name")
        names.add(name)
        offers = [_offer(o, c.provider, c.region, f"{key}.offers[{j}]", default_count, table, ref)
                  for j, o in enumerate(c.offers)]
        row = lookup_link(m.data.provider, m.data.region, c.provider, c.region)
        sources: dict[str, str] = {}
        rtt, bw = c.link.rtt_ms, c.link.bandwidth_gbps
        for what, stated, cat in (("rtt_ms", rtt, row.rtt_ms if row else None),
                                  ("bandwidth_gbps", bw, row.bandwidth_gbps if row else None)):
            if stated is not None:
                sources[what] = "placement file"
            elif cat is not None:
                sources[what] = f"link table {row.ref()} (as_of {row.as_of}): {row.source}"  # type: ignore[union-attr]
            else:
                sources[what] = "not known (not stated, not in data/links/links.csv)"
        rtt = rtt if rtt is not None else (row.rtt_ms if row else None)
        bw = bw if bw is not None else (row.bandwidth_gbps if row else None)
        storage = c.storage_usd_per_gb_month
        if c.storage_usd_per_gib_month is not None:
            if storage is not None:
                raise PlacementError("give storage_usd_per_gb_month or storage_usd_per_gib_month, not both",
                                     key=f"{key}.storage_usd_per_gib_month")
            storage = c.storage_usd_per_gib_month * GIB_PER_GB
        path = c.link.path or ("internet" if c.provider != m.data.provider else None)
        cands.append(Candidate(name, c.provider, c.region, offers, rtt, bw, c.link.transfer_usd_per_gb, path, storage,
                               c.storage_item or STORAGE_ITEMS.get(c.provider, "object_storage"), c.measured,
                               sources, i))
    for i, g in enumerate(m.constraints.governance):
        regions = {m.data.region} | {c.region for c in cands}
        if g.region not in regions:
            from ..contracts.errors import did_you_mean

            raise PlacementError(f"region {g.region!r} is neither the data region nor a candidate"
                                 f"{did_you_mean(g.region, sorted(regions))}", key=f"constraints.governance[{i}].region")
    return Placement(
        name=m.name or Path(source).stem, source=source, base=base, base_source=base_source,
        data_provider=m.data.provider, data_region=m.data.region, dataset=m.data.dataset, data_offers=data_offers,
        candidates=cands, deadline_hours=m.constraints.deadline_hours, governance=list(m.constraints.governance),
        usd_per_hour=m.objective.usd_per_hour, draws=m.monte_carlo.draws, seed=m.monte_carlo.seed,
        predict_max_steps=m.predict.max_steps, predict_seed=m.predict.seed, folder=folder,
        tie_fraction=m.monte_carlo.tie_fraction, reference=ref)


def finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)
