"""The cost model's inputs as one typed model (item 7).

The scenario keys (``dataset.size_gb``) and the values :mod:`costmodel.cost.resolve` derives for the model
(``_capacity_gb``, the byte basis, which derived value follows its sources) arrive as one flat mapping, the
form the Monte Carlo, the sweeps and the placement substitute arrays into. :meth:`ModelInputs.of` reads that
mapping **once**, here, into typed fields; the formulas (:mod:`costmodel.cost.model`, :mod:`.follow`,
:mod:`.bytes_model`) read attributes, never a dotted string, and the modes are enums, never float codes:

- :class:`BytesBasis`: which estimate of the cross-region bytes is priced (one value, or one per draw when the
  Monte Carlo draws the basis as a case);
- :class:`Follow`: whether a derived value follows its sources in draws (``DERIVED``), is stated but raised to a
  physical lower bound (``BOUNDED``), or is fixed (``NONE``);
- :class:`CachePersistence`, :class:`ReplicaMechanism`: the scenario's modes as written in the YAML.

The point evaluation (``costmodel cost``), the Monte Carlo, the sweeps, break-even and the placement all price
through the same :func:`costmodel.cost.model.terms` of one :class:`ModelInputs`; a draw with zero spread is the
point value to the bit (tests/cost/test_typed_inputs.py).
"""
from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: a model quantity: a float at the point value, a numpy array in draws, sweeps and grids
Num = Any


class BytesBasis(enum.IntEnum):
    """Which estimate of the GB that cross the link a month is priced (costmodel.cost.crossing)."""

    DATASET = 0  # the working set, epochs, cold fills and churn
    MEASURED_READ = 1  # cold fills + measured read rate x miss ratio over the training hours
    MEASURED_ORIGIN = 2  # cold fills + the origin-fetch counter over the training hours
    BILLED = 3  # the user's billed GB a month
    LRU = 4  # the dataset model with an LRU cache's hit ratio under per-epoch shuffle

    @property
    def record_name(self) -> str:
        """The basis as ``cross_region_bytes`` names it (both measured forms are ``measured``)."""
        return "measured" if self in (BytesBasis.MEASURED_READ, BytesBasis.MEASURED_ORIGIN) else self.name.lower()

    @property
    def measured(self) -> bool:
        return self in (BytesBasis.MEASURED_READ, BytesBasis.MEASURED_ORIGIN)


class Follow(enum.IntEnum):
    """How a derived model input (run hours, epochs, warm-up lost, copy hours) behaves when its sources vary."""

    NONE = 0  # stated (or varied explicitly): fixed
    DERIVED = 1  # derived from its sources: recomputed from them in every draw
    BOUNDED = 2  # stated or measured: kept, but raised to the link's lower bound where more than 10 % below it


class CachePersistence(str, enum.Enum):
    """``cache.persistence``: when the cache starts cold."""

    PERSISTENT = "persistent"
    PER_CLUSTER = "per_cluster"
    PER_RUN = "per_run"


class ReplicaMechanism(str, enum.Enum):
    """``replica.mechanism``: what copies the dataset and keeps the replica in sync."""

    S3_REPLICATION = "s3_replication"
    DATASYNC = "datasync"
    FILESYSTEM_REPLICATION = "filesystem_replication"
    INSTANCE_COPY = "instance_copy"

    @property
    def s3_batch(self) -> bool:
        """Versioning, S3 Batch Operations and batch replication apply (S3 Replication only)."""
        return self is ReplicaMechanism.S3_REPLICATION

    @property
    def writes_puts(self) -> bool:
        """The replica is an object store written by PUTs (not a file system's own replication)."""
        return self is not ReplicaMechanism.FILESYSTEM_REPLICATION


NAN = float("nan")

#: Internal (non-scenario) inputs of the model, keyed as in the flat mapping, and their neutral values.
INTERNAL_DEFAULTS: dict[str, object] = {
    "_capacity_gb": NAN,  # cache capacity (nan: not stated)
    "_cold_starts_per_run": NAN,  # cold starts follow runs (per_run / per_cluster): n = R * this
    "_cache_cross_az": 0.0,
    "_replica_cross_az": 0.0,
    "_versioned_buckets": 2.0,  # buckets whose versioning replication turns on (1: source already versioned)
    "_transfer_tiers": None,
    "_storage_tiers": None,
    "_path_tiers": None,  # path processing tiered by monthly volume (e.g. PrivateLink)
    "_samples": NAN,  # dataset.samples (nan: unknown)
    "_samples_per_s": NAN,  # training.samples_per_s (nan: unknown)
    "_bw_gbps": NAN,  # link.bandwidth_gbps (nan: unknown)
    "_follow_run_hours": Follow.NONE,
    "_follow_epochs": Follow.NONE,
    "_follow_copy_hours": Follow.NONE,
    "_follow_warmup": Follow.NONE,
    "_epoch_from_run": 0.0,  # 1: no throughput, an epoch is run_hours / epochs_per_run
    "_warmup_stated": NAN,  # the stated warmup_lost_s before the point value was raised to the bound
    "_copy_hours_stated": NAN,  # the stated copy_hours before it was raised
    "_cache_persistent": 0.0,  # cache.persistence = persistent (survives clusters and interruptions)
    "_cache_shared": 0.0,  # replicate reads through the same cache (cache.shared)
    "_s3_replication": 1.0,  # replica.mechanism = s3_replication (versioning, batch operations)
    "_replica_puts": 1.0,  # the replica is an object store written by PUTs
    "_instance_copy": 0.0,  # replica.mechanism = instance_copy (instance-hours of the copy are charged)
    "_copy_gbps": NAN,  # replica.mechanism_gbps (nan: the link alone bounds the copy)
    "_bytes_basis": BytesBasis.DATASET,
    "_read_bytes_per_s": NAN,  # cache.read_bytes_per_s (measured)
    "_origin_bytes_per_s": NAN,  # cache.origin_fetch_bytes_per_s (measured)
    "_billed_gb_per_month": NAN,  # link.billed_gb_per_month
    "_bytes_auto": 0.0,  # link.bytes_basis auto: a measured figure above the physical bound is refused
    "_checkpoint_gb_per_run": NAN,  # checkpoints written back per run (stated)
    "_checkpoint_gb_per_hour": NAN,  # or per training hour (parameters x bytes per parameter / interval)
    "_fs_min_gb": NAN,  # the replica's file system: minimum size (GB = 10^9 bytes; nan: per byte)
    "_fs_step_gb": NAN,  # ... and its step
}

#: scenario keys added later, neutral when a caller's input mapping predates them
NEW_KEY_DEFAULTS: dict[str, float] = {
    "training.interruptions_per_run": 0.0,
    "cache.capacity_usd_per_gb_month": 0.0,
    "replica.filesystem_usd_per_gb_month": 0.0,
    "replica.mechanism_usd_per_gb": 0.0,
    "replica.copy_instance_usd_per_hour": 0.0,
}

#: model key -> the internal flag that makes it follow its sources (an explicitly varied key stops following)
FOLLOW_FLAGS: dict[str, str] = {
    "training.run_hours": "_follow_run_hours",
    "training.epochs_per_run": "_follow_epochs",
    "replica.copy_hours": "_follow_copy_hours",
    "cache.warmup_lost_s": "_follow_warmup",
}


def unfollow(p: dict[str, Any], key: str) -> None:
    """An explicitly given ``key`` no longer follows its sources (a varied warm-up or copy time still respects
    the link's lower bound: ``BOUNDED``)."""
    flag = FOLLOW_FLAGS.get(key)
    if flag is None:
        return
    if key == "cache.warmup_lost_s" and p.get(flag):
        p[flag] = Follow.BOUNDED
        p["_warmup_stated"] = NAN
    elif key == "replica.copy_hours" and p.get(flag):
        p[flag] = Follow.BOUNDED
        p["_copy_hours_stated"] = NAN
    else:
        p[flag] = Follow.NONE


def _key(name: str) -> str:
    """The mapping key of a scenario field: ``dataset_size_gb`` -> ``dataset.size_gb``."""
    room, _, rest = name.partition("_")
    return name if room == "horizon" else f"{room}.{rest}"


#: the fields resolve derives (mapping key ``_<name>``) and how each is typed; every other field is a scenario key
_INTERNAL: dict[str, str] = {
    "capacity_gb": "num",
    "cold_starts_per_run": "num",
    "cache_cross_az": "bool",
    "replica_cross_az": "bool",
    "versioned_buckets": "num",
    "transfer_tiers": "any",
    "storage_tiers": "any",
    "path_tiers": "any",
    "samples": "num",
    "samples_per_s": "num",
    "bw_gbps": "num",
    "follow_run_hours": "follow",
    "follow_epochs": "follow",
    "follow_copy_hours": "follow",
    "follow_warmup": "follow",
    "epoch_from_run": "bool",
    "warmup_stated": "num",
    "copy_hours_stated": "num",
    "cache_persistent": "bool",
    "cache_shared": "bool",
    "s3_replication": "bool",
    "replica_puts": "bool",
    "instance_copy": "bool",
    "copy_gbps": "num",
    "bytes_basis": "basis",
    "read_bytes_per_s": "num",
    "origin_bytes_per_s": "num",
    "billed_gb_per_month": "num",
    "bytes_auto": "bool",
    "checkpoint_gb_per_run": "num",
    "checkpoint_gb_per_hour": "num",
    "fs_min_gb": "num",
    "fs_step_gb": "num",
}


@dataclass(frozen=True)
class ModelInputs:
    """Every input of the formulas, typed: the scenario's model keys (a float, or an array in draws and grids;
    units in the names) and what resolve derived for the model (modes as enums and booleans)."""

    horizon_months: Num
    dataset_size_gb: Num
    dataset_monthly_churn_fraction: Num
    dataset_working_set_fraction: Num
    dataset_objects: Num
    training_runs_per_month: Num
    training_epochs_per_run: Num
    training_run_hours: Num
    training_cluster_usd_per_hour: Num
    training_interruptions_per_run: Num
    link_transfer_usd_per_gb: Num
    link_path_processing_usd_per_gb: Num
    link_inter_az_usd_per_gb: Num
    cache_steady_hit_ratio: Num
    cache_cold_starts_per_month: Num
    cache_warmup_lost_s: Num
    cache_steady_slowdown_fraction: Num
    cache_usd_per_month: Num
    cache_capacity_usd_per_gb_month: Num
    replica_storage_usd_per_gb_month: Num
    replica_sync_extra_usd_per_gb: Num
    replica_ops_usd_per_month: Num
    replica_mechanism_usd_per_gb: Num
    replica_copy_instance_usd_per_hour: Num
    replica_filesystem_usd_per_gb_month: Num
    replica_noncurrent_retention_days: Num
    replica_copy_hours: Num
    requests_get_usd_per_1000: Num
    requests_put_usd_per_1000: Num
    requests_batch_replication_usd_per_million: Num
    requests_batch_job_usd: Num
    requests_gets_per_object_read: Num
    wait_expected_wait_hours_per_run: Num
    wait_delay_usd_per_hour: Num
    wait_cluster_premium_usd_per_hour: Num
    # -- what resolve derived for the model
    capacity_gb: Num
    cold_starts_per_run: Num
    cache_cross_az: bool
    replica_cross_az: bool
    versioned_buckets: float
    transfer_tiers: Any
    storage_tiers: Any
    path_tiers: Any
    samples: Num
    samples_per_s: Num
    bw_gbps: Num
    follow_run_hours: Follow
    follow_epochs: Follow
    follow_copy_hours: Follow
    follow_warmup: Follow
    epoch_from_run: bool
    warmup_stated: Num
    copy_hours_stated: Num
    cache_persistent: bool
    cache_shared: bool
    s3_replication: bool
    replica_puts: bool
    instance_copy: bool
    copy_gbps: Num
    bytes_basis: Any  # a BytesBasis, or an array of them (one per draw)
    read_bytes_per_s: Num
    origin_bytes_per_s: Num
    billed_gb_per_month: Num
    bytes_auto: bool
    checkpoint_gb_per_run: Num
    checkpoint_gb_per_hour: Num
    fs_min_gb: Num
    fs_step_gb: Num

    @classmethod
    def of(cls, p: Mapping[str, Any] | ModelInputs) -> ModelInputs:
        """The typed inputs of the flat mapping ``p`` (scenario keys and ``_`` internal names, as
        :func:`costmodel.cost.evaluate.model_inputs` builds it); ``p`` itself when it is typed already. Internal
        values and keys added after a caller's mapping was written take their neutral values; a scenario key
        missing otherwise raises KeyError."""
        if isinstance(p, ModelInputs):
            return p
        kw: dict[str, Any] = {}
        get = p.get
        for name, key, kind in _FIELDS:
            v = get(key)
            if v is None:
                if kind is None and key not in NEW_KEY_DEFAULTS:
                    raise KeyError(key)
                v = INTERNAL_DEFAULTS[key] if kind else NEW_KEY_DEFAULTS[key]
            kw[name] = v if kind is None else _typed(v, kind)
        return cls(**kw)

    def to_mapping(self) -> dict[str, Any]:
        """The flat mapping again (scenario keys and internal names), e.g. for the placement's figures."""
        return {key: getattr(self, name) for name, key, _kind in _FIELDS}

    def with_(self, **changes: Any) -> ModelInputs:
        """A copy with some fields replaced."""
        return dataclasses.replace(self, **changes)


def _typed(v: Any, kind: str | None) -> Any:
    if kind == "bool":
        return bool(float(v)) if not isinstance(v, bool) else v
    if kind == "follow":
        return Follow(int(float(v)))
    if kind == "basis":
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return BytesBasis(int(float(v)))
        return v  # an array of codes, one per draw
    return v


#: (field, mapping key, kind or None for a scenario key) of every field, in order
_FIELDS: tuple[tuple[str, str, str | None], ...] = tuple(
    (f.name, f"_{f.name}" if f.name in _INTERNAL else _key(f.name), _INTERNAL.get(f.name))
    for f in dataclasses.fields(ModelInputs))
#: scenario keys the typed model reads (the model keys of costmodel.cost.spec)
SCENARIO_KEYS: tuple[str, ...] = tuple(key for _name, key, kind in _FIELDS if kind is None)


def known(v: Any) -> bool:
    """A source value is known: an array (drawn or swept), or a positive number (not nan)."""
    if isinstance(v, (int, float)):
        return v == v and v > 0
    return v is not None


def is_nan(v: Any) -> bool:
    """``v`` is the float nan (not stated); arrays are never."""
    return isinstance(v, float) and math.isnan(v)
