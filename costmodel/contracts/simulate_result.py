"""``costmodel simulate --json`` as a model (:class:`SimulateResult`; also named by :mod:`.results`)."""
from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from .base import Num, Obj, Result


class SimulateResult(Result):
    """``costmodel simulate --json``: the predicted run of the what-if link/cache model."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = (
        "run_id", "predicted", "steady_samples_per_s", "steady_hit_ratio", "warmup_end_step", "warmup_lost_s",
        "cold_samples_per_s", "cross_region_bytes_by_epoch", "cross_region_bytes_per_run", "seed",
    )
    run_id: str
    predicted: bool = True
    seed: int = Field(0, ge=0)
    warmup_end_step: int | None = None
    warmup_by_epoch: bool = False
    warmup_end_t_s: Num = None
    hit_ratio_settled_step: int | None = None
    steady_from_step: int | None = None
    steady_window: str = ""
    hit_ratio_settled: bool = False
    steady_samples_per_s: Num = None
    steady_hit_ratio: Num = Field(None, ge=0, le=1)
    steady_gpu_util: Num = None
    steady_read_latency_s: Num = None
    cold_samples_per_s: Num = None
    steps_simulated: int = 0
    steps_per_run: int | None = None
    extrapolated: bool = False
    cross_region_bytes_simulated: Num = None
    cross_region_bytes_per_run: Num = None
    cross_region_bytes_per_epoch: Num = None
    cross_region_bytes_by_epoch: list[float] = Field(default_factory=list)
    cross_region_bytes_steady_per_step: Num = None
    run_time_s_simulated: Num = None
    colocated_samples_per_s: Num = None
    warmup_lost_s: Num = None
    steady_slowdown_fraction: Num = None
    warmup_method: str = ""
    warmup_end_step_rule: int | None = None
    prefetch_in_time_fraction: Num = None
    prefetched_blocks: int | None = None
    prefetched_blocks_used: int | None = None
    block_accesses_simulated: int | None = None
    source: str = ""
    workload: Obj = Field(default_factory=dict)
    per_run: list[Obj] = Field(default_factory=list)
    assumptions: list[str] = Field(default_factory=list)
    not_modelled: list[str] = Field(default_factory=list)
    runs: list[Obj] = Field(default_factory=list)
    output: str | None = None
