"""The ``workload:`` section of a cost scenario: parse, default and validate it.

Every number carries its unit in its key (``_bytes``, ``_s``, ``_bytes_per_s``). Sizes are bytes;
YAML such as ``4e12`` (which PyYAML reads as a string) is accepted as a number. Every problem raises
:class:`~costmodel.foundation.errors.SimulateError` whose message starts with the key path (``workload.cache.policy``)
and says what was expected.
"""
from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..foundation.errors import SimulateError
from ..foundation.fields_json import FieldsJson
from ..foundation.util import yaml_problem

PATTERNS = ("sequential", "shuffled", "shard_shuffle", "single_pass", "zipf")
POLICIES = ("none", "lru", "predictive")
ROLES = ("remote", "colocated", "")
MIN_BLOCK_BYTES = 4096


@dataclass(frozen=True)
class Dataset:
    """``samples`` samples of mean ``sample_bytes`` (lognormal spread ``sample_bytes_sigma``, 0 = equal),
    packed in order into ``files`` files; each file starts on a block boundary."""

    samples: int
    sample_bytes: float
    sample_bytes_sigma: float = 0.0
    files: int = 1
    block_bytes: int = MIN_BLOCK_BYTES


@dataclass(frozen=True)
class Access:
    """How samples are visited: ``pattern`` in :data:`PATTERNS`; ``zipf_exponent`` for ``zipf``."""

    pattern: str = "shuffled"
    epochs: float = 1.0
    zipf_exponent: float = 1.1


@dataclass(frozen=True)
class Step:
    """The training step: samples per step, compute time (s) and its coefficient of variation,
    data-loader workers (reads in flight) and prefetch depth (batches prepared ahead)."""

    samples_per_step: int
    compute_s: float
    compute_cv: float = 0.0
    loader_workers: int = 8
    prefetch_depth: int = 2


@dataclass(frozen=True)
class Link:
    """The path to the origin: round trip, bandwidth, concurrent streams, origin storage latency and
    the largest request (bytes) one read may ask for."""

    rtt_s: float
    bandwidth_bytes_per_s: float
    parallel_streams: int = 16
    origin_latency_s: float = 0.002
    request_bytes: int = 1 << 20


@dataclass(frozen=True)
class Local:
    """The local cache device (or, for a co-located run, the local storage)."""

    read_latency_s: float = 0.0005
    read_bytes_per_s: float = 2.0e9


@dataclass(frozen=True)
class Prefetch:
    """The predictive prefetcher: share ``accuracy`` of its predictions are right; it works
    ``lookahead_steps`` steps ahead; it only observes for ``learning_steps`` steps, then its coverage
    ramps linearly to 1 over ``ramp_steps`` steps."""

    accuracy: float = 0.95
    lookahead_steps: int = 2
    learning_steps: int = 0
    ramp_steps: int = 0


@dataclass(frozen=True)
class Cache:
    """The local cache: ``policy`` in :data:`POLICIES`, capacity (bytes), optional physical limit
    (bytes; capacity may not exceed it), whether it survives between runs."""

    policy: str = "lru"
    capacity_bytes: float = 0.0
    physical_limit_bytes: float | None = None
    survives_between_runs: bool = True
    prefetch: Prefetch = field(default_factory=Prefetch)


@dataclass(frozen=True)
class Simulation:
    """How much to simulate: at most ``max_steps`` steps of each run (the rest is extrapolated and
    flagged), at most ``max_block_accesses`` block accesses in total, ``runs`` consecutive runs;
    ``invalidate_at_steps``: steps of each run (0-based) before which the cache is emptied (dataset change,
    eviction, node replacement); the predictor keeps what it learned."""

    max_steps: int | None = None
    max_block_accesses: int = 50_000_000
    runs: int = 1
    with_colocated: bool = False
    invalidate_at_steps: tuple[int, ...] = ()


@dataclass(frozen=True)
class Workload(FieldsJson):
    """The validated ``workload:`` section."""

    name: str
    role: str
    dataset: Dataset
    access: Access
    step: Step
    link: Link
    local: Local
    cache: Cache
    simulation: Simulation

    @property
    def dataset_bytes(self) -> float:
        return float(self.dataset.samples) * float(self.dataset.sample_bytes)

    @property
    def bytes_per_step(self) -> float:
        return float(self.step.samples_per_step) * float(self.dataset.sample_bytes)

    @property
    def capacity_blocks(self) -> int:
        return int(self.cache.capacity_bytes // self.dataset.block_bytes)

    @property
    def samples_per_run(self) -> int:
        if self.access.pattern == "single_pass":
            return int(self.dataset.samples)
        return int(round(self.access.epochs * self.dataset.samples))

    @property
    def steps_per_run(self) -> int:
        return max(1, math.ceil(self.samples_per_run / self.step.samples_per_step))


# ----------------------------------------------------------------------------------------------


def _validated(model: Any, data: Any, path: str) -> Any:
    """``data`` validated by the contract ``model``; SimulateError ``PATH.KEY: what; expected ...``."""
    from pydantic import ValidationError

    from ..contracts.errors import raise_validation_error

    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise_validation_error(exc, SimulateError, model=model, prefix=tuple(path.split(".")))


def parse_workload(section: Mapping[str, Any], *, scenario: Mapping[str, Any] | None = None,
                   path: str = "workload") -> Workload:
    """Validate a ``workload:`` mapping (:class:`costmodel.contracts.workload.WorkloadIn`) and return a
    :class:`Workload`.

    ``scenario`` (the rest of the cost scenario) fills defaults: ``access.epochs`` from
    ``training.epochs_per_run``; the link from ``link.rtt_ms`` and ``link.bandwidth_gbps``. Raises
    SimulateError naming the key path on any problem.
    """
    from ..contracts.workload import AccessIn, LocalIn, PrefetchIn, SimulationIn, WorkloadIn, WorkloadLinkIn

    if not isinstance(section, Mapping):
        raise SimulateError(f"{path}: expected a mapping, got {type(section).__name__}", key=path)
    lk_raw = section.get("link")
    if isinstance(lk_raw, Mapping) and ("rtt_ms" in lk_raw or "bandwidth_gbps" in lk_raw):
        k = "rtt_ms" if "rtt_ms" in lk_raw else "bandwidth_gbps"
        raise SimulateError(f"{path}.link.{k}: unknown key here; state link.{k} in the scenario's top-level link: "
                            "section (the key costmodel cost reads)", key=f"{path}.link.{k}")
    w = _validated(WorkloadIn, dict(section), path)
    d = w.dataset
    if d.files > d.samples:
        raise SimulateError(f"{path}.dataset.files: got {d.files}; expected a whole number <= dataset.samples "
                            f"({d.samples})", key=f"{path}.dataset.files")
    dataset = Dataset(samples=d.samples, sample_bytes=d.sample_bytes, sample_bytes_sigma=d.sample_bytes_sigma,
                      files=d.files, block_bytes=d.block_bytes)

    a = w.access or AccessIn.model_validate({})
    default_epochs = 1.0
    if scenario and isinstance(scenario.get("training"), Mapping):
        ep = scenario["training"].get("epochs_per_run")
        if isinstance(ep, (int, float)) and not isinstance(ep, bool) and ep > 0:
            default_epochs = float(ep)
    epochs = a.epochs if a.epochs is not None else default_epochs
    if a.pattern == "single_pass" and a.epochs is not None and a.epochs != 1:
        raise SimulateError(f"{path}.access.epochs: pattern single_pass reads each sample once; set epochs: 1 or "
                            "drop it", key=f"{path}.access.epochs")
    access = Access(pattern=a.pattern, epochs=1.0 if a.pattern == "single_pass" else float(epochs),
                    zipf_exponent=a.zipf_exponent)
    s = w.step
    step = Step(samples_per_step=s.samples_per_step, compute_s=s.compute_s, compute_cv=s.compute_cv,
                loader_workers=s.loader_workers, prefetch_depth=s.prefetch_depth)

    lk = w.link or WorkloadLinkIn.model_validate({})
    rtt_s, bandwidth_bytes_per_s = _link_keys(lk, scenario, f"{path}.link")
    if lk.request_bytes < d.block_bytes:
        raise SimulateError(f"{path}.link.request_bytes: got {lk.request_bytes}; expected a whole number >= "
                            f"dataset.block_bytes ({d.block_bytes})", key=f"{path}.link.request_bytes")
    link = Link(rtt_s=rtt_s, bandwidth_bytes_per_s=bandwidth_bytes_per_s, parallel_streams=lk.parallel_streams,
                origin_latency_s=lk.origin_latency_s, request_bytes=lk.request_bytes)
    lo = w.local or LocalIn.model_validate({})
    local = Local(read_latency_s=lo.read_latency_s, read_bytes_per_s=lo.read_bytes_per_s)

    p = f"{path}.cache"
    c = w.cache
    if c.capacity_bytes is None and c.policy != "none":
        raise SimulateError(f"{p}.capacity_bytes: missing; expected a number (bytes) for policy {c.policy!r}",
                            key=f"{p}.capacity_bytes")
    capacity = float(c.capacity_bytes) if c.capacity_bytes is not None else 0.0
    limit = c.physical_limit_bytes
    if limit is not None and capacity > limit:
        raise SimulateError(
            f"{p}.capacity_bytes: {capacity:.6g} bytes is larger than the stated physical limit "
            f"{p}.physical_limit_bytes = {limit:.6g} bytes", key=f"{p}.capacity_bytes")
    if c.policy != "none" and capacity < d.block_bytes:
        raise SimulateError(f"{p}.capacity_bytes: must hold at least one block ({d.block_bytes} bytes) for policy "
                            f"{c.policy!r}, got {capacity:.6g}; use policy: none for no cache", key=f"{p}.capacity_bytes")
    pf = c.prefetch or PrefetchIn.model_validate({})  # a prefetch: section with another policy is validated and ignored
    prefetch = Prefetch(accuracy=pf.accuracy, lookahead_steps=pf.lookahead_steps, learning_steps=pf.learning_steps,
                        ramp_steps=pf.ramp_steps)
    cache = Cache(policy=c.policy, capacity_bytes=capacity, physical_limit_bytes=limit,
                  survives_between_runs=c.survives_between_runs, prefetch=prefetch)

    sm = w.simulation or SimulationIn.model_validate({})
    simulation = Simulation(max_steps=sm.max_steps, max_block_accesses=sm.max_block_accesses, runs=sm.runs,
                            with_colocated=sm.with_colocated, invalidate_at_steps=tuple(sorted(set(sm.invalidate_at_steps))))
    return Workload(name=w.name.strip(), role=w.role, dataset=dataset, access=access, step=step, link=link,
                    local=local, cache=cache, simulation=simulation)


#: Keys outside ``workload:`` that the simulator reads (the cost scenario's own keys: one quantity, one key).
SCENARIO_INPUTS = ("link.rtt_ms", "link.bandwidth_gbps", "training.epochs_per_run")


def _link_keys(lk: Any, scenario: Mapping[str, Any] | None, p: str) -> tuple[float, float]:
    """The link's RTT (s) and bandwidth (bytes/s) from the scenario's top-level ``link.rtt_ms`` and
    ``link.bandwidth_gbps`` (what ``costmodel cost`` reads). ``workload.link.rtt_s`` is a deprecated
    alias (FutureWarning); ``workload.link.bandwidth_bytes_per_s`` is used when the scenario states no
    bandwidth. Both forms of one quantity with different values: SimulateError naming both keys."""
    import warnings

    from ..contracts.workload import ScenarioLinkIn

    top = scenario.get("link") if scenario is not None and isinstance(scenario.get("link"), Mapping) else {}
    sl = _validated(ScenarioLinkIn, dict(top or {}), "link")
    rtt_ms, old_rtt = sl.rtt_ms, lk.rtt_s
    if rtt_ms is not None and old_rtt is not None and not math.isclose(rtt_ms / 1e3, old_rtt, rel_tol=1e-9, abs_tol=1e-12):
        raise SimulateError(f"{p}.rtt_s = {old_rtt:g} s and link.rtt_ms = {rtt_ms:g} ms state the link's RTT twice, "
                            f"differently; keep link.rtt_ms ({p}.rtt_s is deprecated)", key=f"{p}.rtt_s")
    if rtt_ms is None and old_rtt is None:
        raise SimulateError("link.rtt_ms: missing; state the round-trip time between the regions in ms "
                            "(the key costmodel cost reads)", key="link.rtt_ms")
    if rtt_ms is None:
        warnings.warn(f"{p}.rtt_s is deprecated: state link.rtt_ms = {old_rtt * 1e3:g} (milliseconds, the key "
                      "costmodel cost reads) instead", FutureWarning, stacklevel=3)
    rtt_s = rtt_ms / 1e3 if rtt_ms is not None else float(old_rtt)
    gbps, bps = sl.bandwidth_gbps, lk.bandwidth_bytes_per_s
    if gbps is not None and bps is not None and not math.isclose(gbps * 1e9 / 8, bps, rel_tol=1e-9):
        raise SimulateError(f"{p}.bandwidth_bytes_per_s = {bps:g} and link.bandwidth_gbps = {gbps:g} state the link's "
                            f"bandwidth twice, differently ({gbps:g} Gbit/s = {gbps * 1e9 / 8:g} bytes/s); keep one",
                            key=f"{p}.bandwidth_bytes_per_s")
    if gbps is None and bps is None:
        raise SimulateError(f"{p}.bandwidth_bytes_per_s: missing (or state link.bandwidth_gbps)",
                            key=f"{p}.bandwidth_bytes_per_s")
    return rtt_s, (gbps * 1e9 / 8 if gbps is not None else float(bps))


def check_override_keys(doc: Mapping[str, Any], overrides: Mapping[str, Any] | None) -> None:
    """Refuse an override that matches no input of the simulator (SimulateError naming the keys that do
    exist): outside ``workload:`` only :data:`SCENARIO_INPUTS` are read; keys under ``workload.`` are
    checked by :func:`parse_workload` (an unknown one names the section's keys)."""
    from ..contracts.errors import closest

    for key in overrides or {}:
        if not isinstance(key, str) or not key.strip():
            raise SimulateError(f"override {key!r}: expected a dotted key path such as link.rtt_ms", key=str(key))
        if key.startswith("workload.") or key in SCENARIO_INPUTS:
            continue
        close = closest(key, [*SCENARIO_INPUTS, *(f"workload.{k}" for k in ("link.rtt_s", "link.bandwidth_bytes_per_s"))])
        hint = f" (did you mean {close}?)" if close else ""
        raise SimulateError(
            f"override {key}: the simulator reads no such input{hint}; it reads {', '.join(SCENARIO_INPUTS)} "
            "and the workload.* keys (workload.dataset.*, access.*, step.*, link.*, local.*, cache.*, simulation.*; "
            "docs/simulate.md)", key=key)


def _set_path(doc: dict[str, Any], dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    cur: Any = doc
    for k in keys[:-1]:
        if not isinstance(cur.get(k), dict):
            cur[k] = {}
        cur = cur[k]
    cur[keys[-1]] = value


def apply_overrides(doc: Mapping[str, Any], overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """A deep copy of ``doc`` with ``{"workload.link.rtt_s": 0.1, ...}`` applied (dotted key paths)."""
    import copy

    out = copy.deepcopy(dict(doc))
    for key, val in (overrides or {}).items():
        _set_path(out, key, val)
    return out


def load_workload_doc(source: str | os.PathLike[str] | Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """Return ``(scenario_mapping, source_label)`` from a YAML path or a mapping.

    A mapping may be the whole scenario (with a ``workload:`` key) or the workload section itself.
    Raises SimulateError for an unreadable file or a file without ``workload:``.
    """
    if isinstance(source, Mapping):
        doc = dict(source)
        if "workload" not in doc:
            doc = {"workload": doc}
        return doc, "<dict>"
    path = Path(source)
    from ..foundation.safeio import input_kind
    from ..foundation.safeyaml import safe_load_file

    if input_kind(path) == "missing":
        raise SimulateError(f"{path}: no such scenario file", key=str(path))
    import yaml

    try:
        doc = safe_load_file(path)
    except yaml.YAMLError as exc:
        raise SimulateError(f"{path}: {yaml_problem(exc)}", key=str(path)) from None
    if not isinstance(doc, Mapping):
        raise SimulateError(f"{path}: expected a YAML mapping with a workload: section", key=str(path))
    if "workload" not in doc:
        raise SimulateError(f"{path}: workload: missing; add a workload: section (see data/examples/whatif.yaml)",
                            key="workload")
    return dict(doc), str(path)
