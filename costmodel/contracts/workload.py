"""The ``workload:`` section (``costmodel simulate``, the what-if notebook) as written in the file: one
model per section, ``extra="forbid"``, bounds, units in the key names (``_bytes``, ``_s``,
``_bytes_per_s``). Numbers may be written as strings (``"4e12"``, ``"1_000"``; PyYAML reads ``4e12`` as a
string). :func:`costmodel.simulate.workload.parse_workload` validates with these models, then applies the
rules that span keys (files <= samples, capacity <= physical limit, request >= block, the link from the
scenario's ``link.rtt_ms`` / ``link.bandwidth_gbps``, the deprecated ``workload.link.rtt_s`` that warns).
"""
from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

MIN_BLOCK_BYTES = 4096


def _number(v: Any) -> Any:
    """Numbers as YAML gives them: a string such as ``"4e12"`` or ``"1_000"`` is read as a number; true/false
    and non-finite values are refused."""
    if isinstance(v, bool):
        raise ValueError("expected a number")
    if isinstance(v, str):
        try:
            v = float(v.replace("_", ""))
        except ValueError:
            raise ValueError("expected a number") from None
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError("expected a finite number")
    return v


def _whole(v: Any) -> Any:
    v = _number(v)
    if isinstance(v, float):
        if v != int(v):
            raise ValueError("expected a whole number")
        return int(v)
    return v


Num = Annotated[float, BeforeValidator(_number)]
Int = Annotated[int, BeforeValidator(_whole)]


def _steps(v: Any) -> Any:
    if v is None:
        return []
    if isinstance(v, (int, float, str)) and not isinstance(v, bool):
        return [v]
    return v


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)


class DatasetIn(_Section):
    samples: Int = Field(ge=1, description="samples in the dataset")
    sample_bytes: Num = Field(ge=1, description="mean bytes per sample")
    sample_bytes_sigma: Num = Field(0.0, ge=0, le=3.0, description="lognormal spread of the sample size (0: equal)")
    files: Int = Field(1, ge=1, description="files the samples are packed into (<= samples)")
    block_bytes: Int = Field(MIN_BLOCK_BYTES, ge=MIN_BLOCK_BYTES, description="cache block, bytes")


class AccessIn(_Section):
    pattern: Literal["sequential", "shuffled", "shard_shuffle", "single_pass", "zipf"] = "shuffled"
    epochs: Num | None = Field(None, gt=0, description="epochs per run (default: training.epochs_per_run, else 1)")
    zipf_exponent: Num = Field(1.1, gt=0)


class StepIn(_Section):
    samples_per_step: Int = Field(ge=1, description="samples per step (global batch)")
    compute_s: Num = Field(ge=0, description="compute time of one step, s")
    compute_cv: Num = Field(0.0, ge=0, le=1.0, description="coefficient of variation of compute_s")
    loader_workers: Int = Field(8, ge=1, description="data-loader reads in flight")
    prefetch_depth: Int = Field(2, ge=0, le=1024, description="batches prepared ahead")


class WorkloadLinkIn(_Section):
    rtt_s: Num | None = Field(None, ge=0, le=10.0, description="DEPRECATED (warns): state link.rtt_ms in the scenario")
    bandwidth_bytes_per_s: Num | None = Field(None, gt=0, description="used when the scenario states no "
                                                                        "link.bandwidth_gbps")
    parallel_streams: Int = Field(16, ge=1)
    origin_latency_s: Num = Field(0.002, ge=0, le=10.0)
    request_bytes: Int = Field(1 << 20, ge=1, description="largest request one read may ask for, bytes (>= block)")


class LocalIn(_Section):
    read_latency_s: Num = Field(0.0005, ge=0, le=10.0)
    read_bytes_per_s: Num = Field(2.0e9, gt=0)


class PrefetchIn(_Section):
    accuracy: Num = Field(0.95, ge=0, le=1.0, description="share of the predictions that are right")
    lookahead_steps: Int = Field(2, ge=1)
    learning_steps: Int = Field(0, ge=0)
    ramp_steps: Int = Field(0, ge=0)


class CacheIn(_Section):
    policy: Literal["none", "lru", "predictive"] = "lru"
    capacity_bytes: Num | None = Field(None, ge=0, description="required unless policy: none")
    physical_limit_bytes: Num | None = Field(None, gt=0)
    survives_between_runs: bool = True
    prefetch: PrefetchIn | None = None


class SimulationIn(_Section):
    max_steps: Int | None = Field(None, ge=1)
    max_block_accesses: Int = Field(50_000_000, ge=1)
    runs: Int = Field(1, ge=1, le=100)
    with_colocated: bool = False
    invalidate_at_steps: Annotated[list[Annotated[int, BeforeValidator(_whole), Field(ge=1)]],
                                   BeforeValidator(_steps)] = Field(default_factory=list)


class WorkloadIn(_Section):
    """The ``workload:`` mapping as written."""

    name: str = Field("whatif", min_length=1, pattern=r"\S")
    role: Literal["remote", "colocated", ""] = "remote"
    dataset: DatasetIn
    access: AccessIn | None = None
    step: StepIn
    link: WorkloadLinkIn | None = None
    local: LocalIn | None = None
    cache: CacheIn
    simulation: SimulationIn | None = None


class ScenarioLinkIn(BaseModel):
    """The scenario's own ``link:`` keys the simulator reads (the rest belongs to ``costmodel cost``)."""

    model_config = ConfigDict(extra="ignore")
    rtt_ms: Num | None = Field(None, ge=0, le=10_000.0)
    bandwidth_gbps: Num | None = Field(None, gt=0)


class WhatIfParameters(BaseModel):
    """The what-if notebook's papermill parameters (``simulate/whatif.py`` ``PARAMETERS``); other names in the
    notebook's namespace are not parameters and are ignored."""

    model_config = ConfigDict(extra="ignore", strict=True)

    scenario: str = Field("data/examples/whatif.yaml", min_length=1, description="scenario YAML with a workload: section")
    seed: int = Field(0, ge=0, description="random seed of the trace and the predictor")
    overrides: dict[str, Any] = Field(default_factory=dict, description="dotted key paths to change")
    widget_scale: float = Field(0.005, gt=0, le=1, description="dataset and cache scale for the sliders")
    interactive: bool = Field(True, description="show the ipywidgets sliders")
    summary_json: str = Field("", description="write the prediction summary and the comparison here when set")
