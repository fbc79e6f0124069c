"""The ``workload:`` section of a cost scenario: parse, default and validate it.

Every number carries its unit in its key (``_bytes``, ``_s``, ``_bytes_per_s``). Sizes are bytes;
YAML such as ``4e12`` (which PyYAML reads as a string) is accepted as a number. Every problem raises
:class:`~costmodel.errors.SimulateError` whose message starts with the key path (``workload.cache.policy``)
and says what was expected.
"""
from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ..errors import SimulateError
from ..util import yaml_problem

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
class Workload:
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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ----------------------------------------------------------------------------------------------
# validation helpers


def _num(sec: Mapping[str, Any], key: str, path: str, default: Any = ..., *, integer: bool = False,
         min_value: float | None = 0.0, min_exclusive: bool = False, max_value: float | None = None) -> Any:
    full = f"{path}.{key}"
    if key not in sec or sec[key] is None:
        if default is ...:
            raise SimulateError(f"{full}: missing; expected a number" + (" (integer)" if integer else ""), key=full)
        return default
    raw = sec[key]
    if isinstance(raw, bool):
        raise SimulateError(f"{full}: expected a number, got {raw!r}", key=full)
    if isinstance(raw, str):
        try:
            raw = float(raw.replace("_", ""))
        except ValueError:
            raise SimulateError(f"{full}: expected a number, got {sec[key]!r}", key=full) from None
    if not isinstance(raw, (int, float)) or not math.isfinite(float(raw)):
        raise SimulateError(f"{full}: expected a finite number, got {sec[key]!r}", key=full)
    val = float(raw)
    if integer:
        if val != int(val):
            raise SimulateError(f"{full}: expected a whole number, got {sec[key]!r}", key=full)
        val = int(val)
    if min_value is not None and (val < min_value or (min_exclusive and val == min_value)):
        op = ">" if min_exclusive else ">="
        raise SimulateError(f"{full}: must be {op} {min_value:g}, got {sec[key]!r}", key=full)
    if max_value is not None and val > max_value:
        raise SimulateError(f"{full}: must be <= {max_value:g}, got {sec[key]!r}", key=full)
    return val


def _section(parent: Mapping[str, Any], key: str, path: str, required: bool = True) -> Mapping[str, Any]:
    full = f"{path}.{key}"
    sec = parent.get(key)
    if sec is None:
        if required:
            raise SimulateError(f"{full}: missing section; see data/examples/whatif.yaml", key=full)
        return {}
    if not isinstance(sec, Mapping):
        raise SimulateError(f"{full}: expected a mapping of keys, got {type(sec).__name__}", key=full)
    return sec


def _choice(sec: Mapping[str, Any], key: str, path: str, choices: tuple[str, ...], default: str) -> str:
    full = f"{path}.{key}"
    val = sec.get(key, default)
    if not isinstance(val, str) or val not in choices:
        raise SimulateError(f"{full}: unknown value {val!r}; expected one of {', '.join(choices)}", key=full)
    return val


def _bool(sec: Mapping[str, Any], key: str, path: str, default: bool) -> bool:
    val = sec.get(key, default)
    if not isinstance(val, bool):
        raise SimulateError(f"{path}.{key}: expected true or false, got {val!r}", key=f"{path}.{key}")
    return val


def _unknown(sec: Mapping[str, Any], allowed: set[str], path: str) -> None:
    extra = sorted(set(sec) - allowed)
    if extra:
        raise SimulateError(
            f"{path}.{extra[0]}: unknown key; expected one of {', '.join(sorted(allowed))}", key=f"{path}.{extra[0]}"
        )


# ----------------------------------------------------------------------------------------------


def parse_workload(section: Mapping[str, Any], *, scenario: Mapping[str, Any] | None = None,
                   path: str = "workload") -> Workload:
    """Validate a ``workload:`` mapping and return a :class:`Workload`.

    ``scenario`` (the rest of the cost scenario) fills defaults: ``access.epochs`` from
    ``training.epochs_per_run``. Raises SimulateError naming the key path on any problem.
    """
    if not isinstance(section, Mapping):
        raise SimulateError(f"{path}: expected a mapping, got {type(section).__name__}", key=path)
    _unknown(section, {"name", "role", "dataset", "access", "step", "link", "local", "cache", "simulation"}, path)
    name = section.get("name", "whatif")
    if not isinstance(name, str) or not name.strip():
        raise SimulateError(f"{path}.name: expected a non-empty string", key=f"{path}.name")
    role = _choice(section, "role", path, ROLES, "remote")

    p = f"{path}.dataset"
    d = _section(section, "dataset", path)
    _unknown(d, {"samples", "sample_bytes", "sample_bytes_sigma", "files", "block_bytes"}, p)
    block = _num(d, "block_bytes", p, MIN_BLOCK_BYTES, integer=True, min_value=MIN_BLOCK_BYTES)
    samples = _num(d, "samples", p, integer=True, min_value=1)
    dataset = Dataset(
        samples=samples,
        sample_bytes=_num(d, "sample_bytes", p, min_value=1),
        sample_bytes_sigma=_num(d, "sample_bytes_sigma", p, 0.0, max_value=3.0),
        files=_num(d, "files", p, 1, integer=True, min_value=1, max_value=samples),
        block_bytes=block,
    )

    p = f"{path}.access"
    a = _section(section, "access", path, required=False)
    _unknown(a, {"pattern", "epochs", "zipf_exponent"}, p)
    default_epochs = 1.0
    if scenario and isinstance(scenario.get("training"), Mapping):
        ep = scenario["training"].get("epochs_per_run")
        if isinstance(ep, (int, float)) and not isinstance(ep, bool) and ep > 0:
            default_epochs = float(ep)
    pattern = _choice(a, "pattern", p, PATTERNS, "shuffled")
    epochs = _num(a, "epochs", p, default_epochs, min_value=0.0, min_exclusive=True)
    if pattern == "single_pass" and "epochs" in a and epochs != 1:
        raise SimulateError(f"{p}.epochs: pattern single_pass reads each sample once; set epochs: 1 or drop it",
                            key=f"{p}.epochs")
    access = Access(pattern=pattern, epochs=1.0 if pattern == "single_pass" else epochs,
                    zipf_exponent=_num(a, "zipf_exponent", p, 1.1, min_value=0.0, min_exclusive=True))

    p = f"{path}.step"
    s = _section(section, "step", path)
    _unknown(s, {"samples_per_step", "compute_s", "compute_cv", "loader_workers", "prefetch_depth"}, p)
    step = Step(
        samples_per_step=_num(s, "samples_per_step", p, integer=True, min_value=1),
        compute_s=_num(s, "compute_s", p, min_value=0.0),
        compute_cv=_num(s, "compute_cv", p, 0.0, max_value=1.0),
        loader_workers=_num(s, "loader_workers", p, 8, integer=True, min_value=1),
        prefetch_depth=_num(s, "prefetch_depth", p, 2, integer=True, min_value=0, max_value=1024),
    )

    p = f"{path}.link"
    lk = _section(section, "link", path, required=False)
    _unknown(lk, {"rtt_s", "bandwidth_bytes_per_s", "parallel_streams", "origin_latency_s", "request_bytes"}, p)
    rtt_s, bandwidth_bytes_per_s = _link_keys(lk, scenario, p)
    link = Link(
        rtt_s=rtt_s,
        bandwidth_bytes_per_s=bandwidth_bytes_per_s,
        parallel_streams=_num(lk, "parallel_streams", p, 16, integer=True, min_value=1),
        origin_latency_s=_num(lk, "origin_latency_s", p, 0.002, max_value=10.0),
        request_bytes=_num(lk, "request_bytes", p, 1 << 20, integer=True, min_value=block),
    )

    p = f"{path}.local"
    lo = _section(section, "local", path, required=False)
    _unknown(lo, {"read_latency_s", "read_bytes_per_s"}, p)
    local = Local(
        read_latency_s=_num(lo, "read_latency_s", p, 0.0005, max_value=10.0),
        read_bytes_per_s=_num(lo, "read_bytes_per_s", p, 2.0e9, min_value=0.0, min_exclusive=True),
    )

    p = f"{path}.cache"
    c = _section(section, "cache", path)
    _unknown(c, {"policy", "capacity_bytes", "physical_limit_bytes", "survives_between_runs", "prefetch"}, p)
    policy = _choice(c, "policy", p, POLICIES, "lru")
    capacity = _num(c, "capacity_bytes", p, 0.0 if policy == "none" else ...)
    limit = _num(c, "physical_limit_bytes", p, None, min_value=0.0, min_exclusive=True)
    if limit is not None and capacity > limit:
        raise SimulateError(
            f"{p}.capacity_bytes: {capacity:.6g} bytes is larger than the stated physical limit "
            f"{p}.physical_limit_bytes = {limit:.6g} bytes", key=f"{p}.capacity_bytes")
    if policy != "none" and capacity < block:
        raise SimulateError(f"{p}.capacity_bytes: must hold at least one block ({block} bytes) for policy "
                            f"{policy!r}, got {capacity:.6g}; use policy: none for no cache", key=f"{p}.capacity_bytes")
    pp = f"{p}.prefetch"
    pf = _section(c, "prefetch", p, required=False)
    # a prefetch: section with another policy is validated and ignored (handy when toggling the policy)
    _unknown(pf, {"accuracy", "lookahead_steps", "learning_steps", "ramp_steps"}, pp)
    prefetch = Prefetch(
        accuracy=_num(pf, "accuracy", pp, 0.95, max_value=1.0),
        lookahead_steps=_num(pf, "lookahead_steps", pp, 2, integer=True, min_value=1),
        learning_steps=_num(pf, "learning_steps", pp, 0, integer=True),
        ramp_steps=_num(pf, "ramp_steps", pp, 0, integer=True),
    )
    cache = Cache(policy=policy, capacity_bytes=capacity, physical_limit_bytes=limit,
                  survives_between_runs=_bool(c, "survives_between_runs", p, True), prefetch=prefetch)

    p = f"{path}.simulation"
    sm = _section(section, "simulation", path, required=False)
    _unknown(sm, {"max_steps", "max_block_accesses", "runs", "with_colocated", "invalidate_at_steps"}, p)
    inv = sm.get("invalidate_at_steps", [])
    if inv is None:
        inv = []
    if isinstance(inv, (int, float)) and not isinstance(inv, bool):
        inv = [inv]
    if not isinstance(inv, (list, tuple)):
        raise SimulateError(f"{p}.invalidate_at_steps: expected a list of step numbers, got {inv!r}",
                            key=f"{p}.invalidate_at_steps")
    invalidate = tuple(sorted({_num({"invalidate_at_steps": v}, "invalidate_at_steps", p, integer=True, min_value=1)
                               for v in inv}))
    simulation = Simulation(
        max_steps=_num(sm, "max_steps", p, None, integer=True, min_value=1),
        max_block_accesses=_num(sm, "max_block_accesses", p, 50_000_000, integer=True, min_value=1),
        runs=_num(sm, "runs", p, 1, integer=True, min_value=1, max_value=100),
        with_colocated=_bool(sm, "with_colocated", p, False),
        invalidate_at_steps=invalidate,
    )
    return Workload(name=name.strip(), role=role, dataset=dataset, access=access, step=step, link=link,
                    local=local, cache=cache, simulation=simulation)


#: Keys outside ``workload:`` that the simulator reads (the cost scenario's own keys: one quantity, one key).
SCENARIO_INPUTS = ("link.rtt_ms", "link.bandwidth_gbps", "training.epochs_per_run")


def _link_keys(lk: Mapping[str, Any], scenario: Mapping[str, Any] | None, p: str) -> tuple[float, float]:
    """The link's RTT (s) and bandwidth (bytes/s) from the scenario's top-level ``link.rtt_ms`` and
    ``link.bandwidth_gbps`` (what ``costmodel cost`` reads). ``workload.link.rtt_s`` is a deprecated
    alias (FutureWarning); ``workload.link.bandwidth_bytes_per_s`` is used when the scenario states no
    bandwidth. Both forms of one quantity with different values: SimulateError naming both keys."""
    import warnings

    top = scenario.get("link") if scenario is not None and isinstance(scenario.get("link"), Mapping) else {}
    rtt_ms = _num(top, "rtt_ms", "link", None, max_value=10_000.0)
    old_rtt = _num(lk, "rtt_s", p, None, max_value=10.0)
    if rtt_ms is not None and old_rtt is not None and not math.isclose(rtt_ms / 1e3, old_rtt, rel_tol=1e-9, abs_tol=1e-12):
        raise SimulateError(f"{p}.rtt_s = {old_rtt:g} s and link.rtt_ms = {rtt_ms:g} ms state the link's RTT twice, "
                            f"differently; keep link.rtt_ms ({p}.rtt_s is deprecated)", key=f"{p}.rtt_s")
    if rtt_ms is None and old_rtt is None:
        raise SimulateError(f"link.rtt_ms: missing; state the round-trip time between the regions in ms "
                            f"(the key costmodel cost reads)", key="link.rtt_ms")
    if rtt_ms is None:
        warnings.warn(f"{p}.rtt_s is deprecated: state link.rtt_ms = {old_rtt * 1e3:g} (milliseconds, the key "
                      "costmodel cost reads) instead", FutureWarning, stacklevel=3)
    rtt_s = rtt_ms / 1e3 if rtt_ms is not None else float(old_rtt)
    gbps = _num(top, "bandwidth_gbps", "link", None, min_value=0.0, min_exclusive=True)
    bps = _num(lk, "bandwidth_bytes_per_s", p, None, min_value=0.0, min_exclusive=True)
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
    import difflib

    for key in overrides or {}:
        if not isinstance(key, str) or not key.strip():
            raise SimulateError(f"override {key!r}: expected a dotted key path such as link.rtt_ms", key=str(key))
        if key.startswith("workload.") or key in SCENARIO_INPUTS:
            continue
        close = difflib.get_close_matches(key, [*SCENARIO_INPUTS, *(f"workload.{k}" for k in
                                                                      ("link.rtt_s", "link.bandwidth_bytes_per_s"))], n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
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
    if not path.is_file():
        raise SimulateError(f"{path}: no such scenario file", key=str(path))
    import yaml

    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise SimulateError(f"{path}: {yaml_problem(exc)}", key=str(path)) from None
    if not isinstance(doc, Mapping):
        raise SimulateError(f"{path}: expected a YAML mapping with a workload: section", key=str(path))
    if "workload" not in doc:
        raise SimulateError(f"{path}: workload: missing; add a workload: section (see data/examples/whatif.yaml)",
                            key="workload")
    return dict(doc), str(path)
