"""The model of ``costmodel place --json``: the ranking of candidate x offer x strategy placements.

Reads leniently and publishes strictly like every result (:class:`~costmodel.contracts.results.Result`): the
contract keys below are required in the published schema (``docs/schema/place.json``), none may be dropped or
renamed; keys may be added.
"""
from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from .base import Num, Obj, Result


class PlacementOffer(Result):
    """One GPU offer: instances, purchase option, price per instance-hour (null: not priced) and wait."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = ("instance_type", "count", "purchase", "usd_per_hour",
                                                "cluster_usd_per_hour", "wait_hours")
    instance_type: str
    count: int = Field(ge=1)
    purchase: str
    usd_per_hour: Num = None
    cluster_usd_per_hour: Num = None
    price_source: str | None = None
    wait_hours: Num = None
    not_priced_reason: str | None = None
    scenario: str | None = None
    cost_command: str | None = None
    price_as_of: str | None = Field(None, description="the catalog row's date (null: stated or undated)")
    speed: Obj | None = Field(None, description="throughput vs the reference cluster: basis, ratio, gpu, gpus, detail")
    commitment: Obj | None = Field(None, description="savings plan / reserved term or capacity block, as stated")
    interruptions_per_run: Num = None
    hours_lost_per_interruption: Num = None


class PlacementRow(Result):
    """One placement: its cost over the horizon (USD), time to a finished first training (hours), flags."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = (
        "id", "rank", "candidate", "provider", "region", "strategy", "trained_in", "offer", "basis", "priced",
        "not_priced_reason", "allowed", "forbidden_reason", "feasible", "infeasible_reason", "cost_usd",
        "compute_usd", "strategy_usd", "time_to_finish_hours", "time", "score_usd", "on_front", "p_best",
        "cost_p5_usd", "cost_p95_usd")
    id: str
    rank: int | None = None
    candidate: str
    provider: str
    region: str
    strategy: Literal["cross_region", "replicate", "wait"]
    strategy_words: str | None = None
    trained_in: str
    offer: PlacementOffer
    basis: Literal["measured", "predicted", "assumed", "not_needed"]
    priced: bool
    not_priced_reason: str | None = None
    allowed: bool
    forbidden_reason: str | None = None
    feasible: bool | None = None
    infeasible_reason: str | None = None
    cost_usd: Num = None
    compute_usd: Num = None
    strategy_usd: Num = None
    time_to_finish_hours: Num = None
    time: dict[str, float] | None = None
    score_usd: Num = None
    on_front: bool = False
    p_best: Num = None
    cost_p5_usd: Num = None
    cost_p95_usd: Num = None
    speed: Obj | None = Field(None, description="the offer's speed (see PlacementOffer.speed)")
    billing: Obj | None = Field(None, description="how the GPU hours are billed: used_hours; for a commitment "
                                "committed_hours, used_share, billed_usd, unused_usd")
    absorbed_usd: Num = Field(None, description="GPU-hour terms of the strategy inside the committed hours")
    ranked_by: str | None = Field(None, description="score_usd, or time (a wait with no value of delay stated)")


class PlaceResult(Result):
    """``costmodel place --json``."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = (
        "placement", "source", "data", "horizon_months", "objective", "counts", "winner", "why", "ranking",
        "not_ranked", "front", "break_even", "monte_carlo", "candidates", "warnings")
    placement: str
    source: str
    data: Obj
    horizon_months: Num = None
    objective: Obj
    counts: dict[str, Any]
    winner: PlacementRow | None = None
    why: list[str]
    ranking: list[PlacementRow]
    not_ranked: list[PlacementRow]
    front: list[str]
    break_even: list[Obj]
    monte_carlo: Obj
    candidates: list[Obj]
    warnings: list[str]
    adr: str | None = Field(None, description="the ADR written with --adr")
    speed_reference: Obj | None = Field(None, description="the cluster the base scenario's throughput describes")
