r"""The three options and their cost terms, vectorised over numpy arrays.

Notation (per month unless stated; every input is a scenario key, all sizes in decimal GB = 10^9 bytes and
every per-byte price converted to USD per decimal GB, whatever unit the price row bills in):

=========  ==============================================  =========================================
symbol     key                                              unit
=========  ==============================================  =========================================
``M``      ``horizon_months``                               months
``D``      ``dataset.size_gb``                              GB (10^9 bytes)
``c``      ``dataset.monthly_churn_fraction``               1/month
``w``      ``dataset.working_set_fraction``                 fraction of D one epoch reads
``O``      ``dataset.objects``                              objects (0: requests not counted)
``R``      ``training.runs_per_month``                      runs/month
``E``      ``training.epochs_per_run``                      epochs/run
``T``      ``training.run_hours``                           hours/run
``G``      ``training.cluster_usd_per_hour``                USD/hour (whole cluster)
``p``      ``link.transfer_usd_per_gb``                     USD/GB, data region -> GPU region
``q``      ``link.path_processing_usd_per_gb``              USD/GB processed by NAT / TGW / PrivateLink
``z``      ``link.inter_az_usd_per_gb``                     USD/GB, each direction
``h``      ``cache.steady_hit_ratio``                       0..1
``C``      ``cache.capacity_gb``                            GB (optional)
``n``      ``cache.cold_starts_per_month``                  cold fills/month
``L``      ``cache.warmup_lost_s``                          cluster-seconds lost per cold start
``d``      ``cache.steady_slowdown_fraction``               0..1
``K``      ``cache.usd_per_month``                          USD/month
``s``      ``replica.storage_usd_per_gb_month``             USD/GB-month
``x``      ``replica.sync_extra_usd_per_gb``                USD/GB (e.g. S3 RTC)
``Op``     ``replica.ops_usd_per_month``                    USD/month
``r``      ``replica.noncurrent_retention_days``/30.4375     months a non-current version stays billed
``Tc``     ``replica.copy_hours``                           hours until the replica is usable
``g``      ``requests.gets_per_object_read``                GETs per object read
``Pg``     ``requests.get_usd_per_1000``                    USD/1000 GETs
``Pp``     ``requests.put_usd_per_1000``                    USD/1000 PUTs
``Pb``     ``requests.batch_replication_usd_per_million``   USD/1M objects (batch replication)
``Pj``     ``requests.batch_job_usd``                       USD/job
``Wh``     ``wait.expected_wait_hours_per_run``             hours/run
``V``      ``wait.delay_usd_per_hour``                      USD/hour of delay
``P``      ``wait.cluster_premium_usd_per_hour``            USD/hour
=========  ==============================================  =========================================

Derived: working set ``W = w*D``; epochs per month ``N = E*R``; cold fills that happen ``n' = min(n, N)``
(a run shorter than an epoch fills only what it reads); warm-ups paid ``n'' = min(n, max(R, N))`` (every
cold run pays its warm-up, even one shorter than an epoch);
warm epochs ``N - n'``; the warm-epoch hit ratio ``hw = h`` when ``C`` is not stated, ``1`` when ``C >= W``
(re-reads of a working set the cache holds are hits), else ``min(h, C/W)``.

Bytes across the link per month (each byte counted once):

``X = n'*W  +  (1-hw)*W*(N-n')  +  c*W*max(0, 1-n')``

a cold fill moves the working set once (prefetched or not); warm epochs move their misses; churned data
moves once, and only when no cold fill re-reads it that month (a fill after the change moves it inside ``n'*W``).

cross_region (read across regions through the cache)
  - ``transfer_usd        = M * p * X``  (tiered: ``M * p * tier(X)``, see below)
  - ``warmup_usd          = M * n'' * L/3600 * G``
  - ``slowdown_usd        = M * d * R*T * G``
  - ``cache_usd           = M * K``
  - ``path_processing_usd = M * q * X``  (tiered: ``M * q * tier(X)``, e.g. PrivateLink above 1 PB/month)
  - ``requests_usd        = M * g * X*O/D * Pg/1000``  GETs for every object that enters the cache
  - ``inter_az_usd        = M * 2*z * N*W`` when the cache is in another zone (every epoch's bytes cross
    the zone boundary; billed out and in)
  - ``checkpoint_writeback_usd = M * R * ckpt * p``: the checkpoints a run writes back to the data region (issue 36;
    ``ckpt`` stated per run, or parameters x bytes per parameter x run_hours / interval; 0 when unknown)
replicate (copy the dataset to the GPU region and keep it in sync)
  - ``initial_copy_usd = p * D``  once
  - ``storage_usd      = M * s * D``  (tiered: ``M * s * tier(D)``)
  - ``sync_usd         = M * (p * tier(c*D) + x * c*D)``  (untiered: ``M * c*D * (p + x)``)
  - ``ops_usd          = M * Op``
  - ``requests_usd     = M * g * X*O/D * Pg/1000 + (O + M*c*O) * Pp/1000 + O * Pb/1e6 + Pj``: the same
    reads through the cache (now from the local replica), a PUT per object copied and per changed object,
    and batch replication of the objects that existed before replication was switched on
  - ``versioning_usd   = B * s * c*D * (M^2/2 if r >= M else r*M - r^2/2)``: replication needs versioning on
    both buckets; the overwritten versions (``c*D`` per month) stay billed ``r`` months in each of the ``B``
    buckets it switches versioning on for (``B = 2``: source and replica; ``B = 1`` when
    ``replica.source_versioned: true`` says the source keeps versions anyway); churn uniform over the month
    and storage billed by byte-hours, hence the integral
  - ``inter_az_usd     = M * 2*z * N*W`` when the replica is in another zone than the GPUs
  - ``copy_delay_usd   = Tc * V``  once: training waits for the initial copy
  - ``filesystem_usd   = M * fs(D) * Pfs``: ``fs(D) = D``, or provisioned in steps (FSx for Lustre: 1,200 GiB, then
    multiples of 2,400 GiB; ``replica.filesystem: fsx_lustre``)
wait (train in the data region once GPUs are free there)
  - ``delay_usd       = M * R * Wh * V``
  - ``gpu_premium_usd = M * R * T * P``

Tiers (``_transfer_tiers``, ``_storage_tiers``): tuples ``(start_gb, end_gb, ratio)`` of monthly volume with
the tier's price as a ratio of the first tier's (``p`` or ``s``); ``tier(V) = sum ratio_i * clip(V - start_i,
0, end_i - start_i)``; no tiers: ``tier(V) = V``.

``total_usd`` is the sum of an option's terms over the horizon; ``per_month_usd = total_usd / M`` (the
one-off terms spread over the horizon). All functions broadcast: pass arrays for any inputs.
"""
from __future__ import annotations

import functools
import math
import operator
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

OPTIONS: tuple[str, ...] = ("cross_region", "replicate", "wait")
TERMS: dict[str, tuple[str, ...]] = {
    "cross_region": ("transfer_usd", "warmup_usd", "slowdown_usd", "cache_usd", "path_processing_usd", "requests_usd",
                     "inter_az_usd", "cache_capacity_usd", "checkpoint_writeback_usd"),
    "replicate": ("initial_copy_usd", "storage_usd", "sync_usd", "ops_usd", "requests_usd", "versioning_usd",
                  "inter_az_usd", "copy_delay_usd", "cache_usd", "cache_capacity_usd", "filesystem_usd", "mechanism_usd"),
    "wait": ("delay_usd", "gpu_premium_usd"),
}
DAYS_PER_MONTH = 365.25 / 12.0  # 30.4375
HOURS_PER_MONTH = 365.25 * 24 / 12  # 730.5

#: Internal (non-scenario) inputs of the model and their neutral values.
INTERNAL_DEFAULTS: dict[str, object] = {
    "_capacity_gb": float("nan"),  # cache capacity (nan: not stated)
    "_cold_starts_per_run": float("nan"),  # cold starts follow runs (per_run / per_cluster): n = R * this
    "_cache_cross_az": 0.0,
    "_replica_cross_az": 0.0,
    "_versioned_buckets": 2.0,  # buckets whose versioning replication turns on: source and replica (1: source already versioned)
    "_transfer_tiers": None,
    "_storage_tiers": None,
    "_path_tiers": None,  # path processing tiered by monthly volume (e.g. PrivateLink)
    # derived values that follow their sources in draws, sweeps and break-even (set by resolve.finalize)
    "_samples": float("nan"),  # dataset.samples (nan: unknown)
    "_samples_per_s": float("nan"),  # training.samples_per_s (nan: unknown)
    "_bw_gbps": float("nan"),  # link.bandwidth_gbps (nan: unknown)
    "_follow_run_hours": 0.0,  # 1: run_hours = E*w*S/thr/3600 + n'/R*L/3600
    "_follow_epochs": 0.0,  # 1: epochs_per_run = (T - n/R*L/3600)*3600*thr/(w*S)
    "_follow_copy_hours": 0.0,  # 1: copy_hours = D*8/bw/3600; 2: stated, raised to it when >10 % below
    "_follow_warmup": 0.0,  # 1: warmup_lost_s = max(0, W*8/bw - t_epoch); 2: stated/measured, raised to it
    "_epoch_from_run": 0.0,
    "_warmup_stated": float("nan"),  # the stated warmup_lost_s before the point value was raised to the bound
    "_copy_hours_stated": float("nan"),  # the stated copy_hours before it was raised
    # issue 25, one byte model (costmodel.cost.crossing): which estimate of the bytes that cross is priced
    "_cache_persistent": 0.0,  # 1: cache.persistence = persistent (survives clusters and interruptions)
    "_cache_shared": 0.0,  # 1: replicate reads through the same cache (cache.shared)
    "_s3_replication": 1.0,  # 1: replica.mechanism = s3_replication (versioning, batch operations); 0: another
    "_replica_puts": 1.0,  # 1: the replica is an object store written by PUTs (0: file-system replication)
    "_instance_copy": 0.0,  # 1: replica.mechanism = instance_copy (instance-hours of the copy are charged)
    "_copy_gbps": float("nan"),  # replica.mechanism_gbps (nan: the link alone bounds the copy)
    "_bytes_basis": 0.0,  # 0 dataset model, 1 measured read x miss, 2 measured origin fetches, 3 billed
    "_read_bytes_per_s": float("nan"),  # cache.read_bytes_per_s (measured)
    "_origin_bytes_per_s": float("nan"),  # cache.origin_fetch_bytes_per_s (measured)
    "_billed_gb_per_month": float("nan"),  # link.billed_gb_per_month
    # issue 36: physics first. 1: link.bytes_basis auto, so a measured figure above what can physically cross
    # (physical_bound_gb_per_month) is refused and the dataset model priced instead
    "_bytes_auto": 0.0,
    # issue 36: checkpoints written back to the data region by cross_region: GB per run when stated, else GB per
    # training hour (model parameters x bytes per parameter / interval), which follows run_hours in draws
    "_checkpoint_gb_per_run": float("nan"),
    "_checkpoint_gb_per_hour": float("nan"),
    # issue 36: the replica's file system is provisioned in steps (GB = 10^9 bytes; nan: per byte)
    "_fs_min_gb": float("nan"),
    "_fs_step_gb": float("nan"),
}

#: scenario keys added in issue 25, neutral when a caller's input mapping predates them
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
BOUND_TOLERANCE = 0.10  # a stated value more than 10 % below a link bound is raised to it (resolve.TOLERANCE)


def unfollow(p: dict[str, Any], key: str) -> None:
    """An explicitly given ``key`` no longer follows its sources (a varied warm-up still respects the link's
    lower bound)."""
    flag = FOLLOW_FLAGS.get(key)
    if flag is None:
        return
    if key == "cache.warmup_lost_s" and p.get(flag):
        p[flag] = 2.0
        p["_warmup_stated"] = float("nan")
    elif key == "replica.copy_hours" and p.get(flag):
        p[flag] = 2.0
        p["_copy_hours_stated"] = float("nan")
    else:
        p[flag] = 0.0

ArrayMap = Mapping[str, "np.ndarray | float"]


def _get(p: ArrayMap, key: str):
    v = p.get(key) if hasattr(p, "get") else None
    if v is not None:
        return v
    return INTERNAL_DEFAULTS[key] if key in INTERNAL_DEFAULTS else NEW_KEY_DEFAULTS[key]


def tier_volume(v, tiers):
    """``sum ratio_i * clip(v - start_i, 0, end_i - start_i)`` (``v`` when ``tiers`` is None)."""
    if not tiers:
        return v
    out = 0.0
    for start, end, ratio in tiers:
        out = out + ratio * np.clip(v - start, 0.0, end - start)
    return out


def _tier_scalar(v: float, tiers) -> float:
    if not tiers:
        return v
    out = 0.0
    for start, end, ratio in tiers:
        out += ratio * min(max(v - start, 0.0), end - start)
    return out


def _cold_starts(p: ArrayMap):
    per_run = _get(p, "_cold_starts_per_run")
    extra = _interruption_starts(p)
    if isinstance(per_run, float) and math.isnan(per_run):
        return p["cache.cold_starts_per_month"] + extra
    return p["training.runs_per_month"] * per_run + extra


def _interruption_starts(p: ArrayMap):
    """Cold starts a month from interruptions: ``R * I`` unless the cache is persistent."""
    I = _get(p, "training.interruptions_per_run")
    if isinstance(I, (int, float)) and I == 0:
        return 0.0
    return (1.0 - _flag(p, "_cache_persistent")) * p["training.runs_per_month"] * I


def cache_life_fraction(p: ArrayMap):
    """The share of the month the cache tier exists (and is billed): 1 when persistent, else the training hours
    ``min(1, R*T / 730.5)``."""
    if _flag(p, "_cache_persistent"):
        return 1.0
    return np.minimum(1.0, p["training.runs_per_month"] * p["training.run_hours"] / HOURS_PER_MONTH)


def _flag(p: ArrayMap, key: str) -> float:
    v = _get(p, key)
    return float(v) if isinstance(v, (int, float)) else 0.0


def _known(v) -> bool:
    """A source value is known: an array (drawn or swept), or a positive number (not nan)."""
    if isinstance(v, (int, float)):
        return v == v and v > 0
    return v is not None


def _stated(p: ArrayMap, internal: str, key: str):
    """The value stated for ``key`` before resolve raised it to a bound (``p[key]`` when not raised)."""
    v = _get(p, internal)
    return p[key] if isinstance(v, float) and math.isnan(v) else v


def follow(p: ArrayMap) -> ArrayMap:
    """``p`` with the derived values recomputed from their (possibly sampled) sources, as
    :func:`costmodel.cost.resolve.finalize` derives them at the point values:

    - ``t_epoch = w*S/thr`` s (or ``T*3600/E`` when only both of those are stated);
    - ``cache.warmup_lost_s``: derived ``L = max(0, W*8/bw - t_epoch)``; stated or measured: raised to that
      bound where it is more than 10 % below it;
    - ``replica.copy_hours``: derived ``Tc = D*8/bw/3600``; stated: raised to it where more than 10 % below;
    - ``training.run_hours``: derived ``T = E*t_epoch/3600 + min(n, max(R, E*R))/R * L/3600``;
    - ``training.epochs_per_run``: derived ``E = max(0, (T - n/R*L/3600) * 3600 / t_epoch)``.

    Returns ``p`` itself when nothing follows (no flags set)."""
    fw, fc = _flag(p, "_follow_warmup"), _flag(p, "_follow_copy_hours")
    ft, fe = _flag(p, "_follow_run_hours"), _flag(p, "_follow_epochs")
    if not (fw or fc or ft or fe):
        return p
    q = dict(p)
    D = q["dataset.size_gb"]
    w = q["dataset.working_set_fraction"]
    S, thr, bw = _get(q, "_samples"), _get(q, "_samples_per_s"), _get(q, "_bw_gbps")
    has_thr = _known(S) and _known(thr)
    has_bw = _known(bw)
    ep = None
    if has_thr:
        ep = w * S / thr
    elif _flag(q, "_epoch_from_run"):
        # an epoch as long as run_hours / epochs_per_run; no epoch (E = 0 on a break-even grid): unbounded
        E0 = np.asarray(q["training.epochs_per_run"], dtype=float)
        ep = np.where(E0 > 0, q["training.run_hours"] * 3600.0 / np.where(E0 > 0, E0, 1.0), np.inf)
    if fw and has_bw and ep is not None:
        bound = np.maximum(0.0, w * D * 8.0 / bw - ep)
        L = _stated(q, "_warmup_stated", "cache.warmup_lost_s")
        q["cache.warmup_lost_s"] = bound if fw == 1 else np.where(L < bound * (1 - BOUND_TOLERANCE), bound, L)
    if fc and has_bw:
        bound = D * 8.0 / _copy_rate(bw, _get(q, "_copy_gbps")) / 3600.0
        Tc = _stated(q, "_copy_hours_stated", "replica.copy_hours")
        q["replica.copy_hours"] = bound if fc == 1 else np.where(Tc < bound * (1 - BOUND_TOLERANCE), bound, Tc)
    R = q["training.runs_per_month"]
    safe_R = np.where(R > 0, R, 1.0)
    L = q["cache.warmup_lost_s"]
    if ft and has_thr and ep is not None:  # has_thr: ep = w*S/thr is set
        E = q["training.epochs_per_run"]
        fills = np.minimum(_cold_starts(q), np.maximum(R, E * R))
        q["training.run_hours"] = E * ep / 3600.0 + np.where(R > 0, fills / safe_R * L / 3600.0, 0.0)
    elif fe and has_thr and ep is not None:
        T = q["training.run_hours"]
        warm = np.where(R > 0, _cold_starts(q) / safe_R * L / 3600.0, 0.0)
        q["training.epochs_per_run"] = np.maximum(0.0, (T - warm) * 3600.0 / ep)
    return q


def _copy_rate(bw, mech):
    """Gbit/s of the initial copy: the link's, or the replication mechanism's when that is slower."""
    if isinstance(mech, float) and math.isnan(mech):
        return bw
    return np.minimum(bw, mech)


def mechanism_terms(p: ArrayMap, M, D, c):
    """(mechanism_usd, s3 flag, put flag) of ``replica.mechanism``: the mechanism's own per-GB fee on the
    initial copy and the month's sync, ``(D + M*c*D) * Pm``; for ``instance_copy`` the instance-hours the copy
    takes, ``(D + M*c*D) * 8 / min(bw, mech) / 3600 * Pi``."""
    copied = D + M * c * D
    fee = copied * _get(p, "replica.mechanism_usd_per_gb")
    if _flag(p, "_instance_copy"):
        bw = _get(p, "_bw_gbps")
        rate = _copy_rate(bw, _get(p, "_copy_gbps"))
        hours = np.where(rate > 0, copied * 8.0 / np.where(rate > 0, rate, 1.0) / 3600.0, 0.0) \
            if _known(bw) else 0.0 * copied
        fee = fee + hours * _get(p, "replica.copy_instance_usd_per_hour")
    return fee


def warm_hit_ratio(h, W, cap):
    """The warm-epoch hit ratio: ``h`` (capacity not stated), 1 when the cache holds ``W``, else min(h, C/W)."""
    if isinstance(cap, float) and math.isnan(cap):
        return h
    ratio = cap / W  # W > 0: size_gb > 0 and working_set_fraction > 0
    return np.where(ratio >= 1.0, 1.0, np.minimum(h, ratio))


def derived(p: ArrayMap) -> dict[str, np.ndarray]:
    """Quantities behind the terms: GB and hours per month (arrays broadcast like the inputs)."""
    return _derived(follow(p))


def _derived(p: ArrayMap) -> dict[str, np.ndarray]:
    D = p["dataset.size_gb"]
    W = p["dataset.working_set_fraction"] * D
    N = p["training.epochs_per_run"] * p["training.runs_per_month"]
    n = np.minimum(_cold_starts(p), N)
    R = p["training.runs_per_month"]
    nw = np.minimum(_cold_starts(p), np.maximum(R, N))
    h = p["cache.steady_hit_ratio"]
    hw = warm_hit_ratio(h, W, _get(p, "_capacity_gb"))
    c = p["dataset.monthly_churn_fraction"]
    cold_gb = n * W
    miss_gb = (1.0 - hw) * W * (N - n)
    churn_gb = c * W * np.maximum(0.0, 1.0 - n)
    X = cold_gb + miss_gb + churn_gb
    X_dataset = X
    bound = physical_bound(p, n, N, W, c)
    basis = _get(p, "_bytes_basis")
    if np.any(np.asarray(basis) != 0.0):  # a measured or billed figure replaces the dataset model's (crossing)
        X = _basis_x(p, X_dataset, cold_gb, h, n, N, W, c, basis, bound)
        priced_other = np.asarray(X != X_dataset)
        miss_gb = np.where(priced_other, X - cold_gb, miss_gb)
        churn_gb = np.where(priced_other, 0.0, churn_gb)
    O = p["dataset.objects"]
    return {
        "cross_region_gb_per_month_dataset": X_dataset,
        "physical_bound_gb_per_month": bound,
        "lru_hit_ratio": lru_hit_ratio(h, W, _get(p, "_capacity_gb")),
        "working_set_gb": W,
        "epochs_per_month": N,
        "cold_starts_per_month": _cold_starts(p),
        "cold_fills_per_month": n,
        "warmups_per_month": nw,
        "warm_epochs_per_month": N - n,
        "warm_hit_ratio": hw,
        "cold_fill_gb_per_month": cold_gb,
        "miss_gb_per_month": miss_gb,
        "churn_refetch_gb_per_month": churn_gb,
        "cross_region_gb_per_month": X,
        "cache_fill_objects_per_month": X * O / D,
        "training_hours_per_month": p["training.runs_per_month"] * p["training.run_hours"],
        "training_read_gb_per_month": N * W,
        "checkpoint_gb_per_month": R * checkpoint_gb_per_run(p),
        "replica_sync_gb_per_month": c * D,
        "replica_sync_objects_per_month": c * O,
    }


#: LRU under a fresh shuffle every epoch: the share of a warm epoch's reads that hit a cache holding C of W
#: bytes is about (C/W)^2 / 2 (an item hits only when fewer than C bytes were read since its last read; CoorDL,
#: VLDB 2021, measures LRU far below C/W). Code 4 of ``_bytes_basis`` prices the bytes with this miss model.
def lru_hit_ratio(h, W, cap):
    """The warm hit ratio of an LRU cache under per-epoch shuffle, ``min(h, (C/W)^2 / 2)``; ``h`` when the cache
    holds the working set or its capacity is not stated (nan)."""
    if isinstance(cap, float) and math.isnan(cap):
        return h + 0.0 * W
    ratio = cap / W
    return np.where(ratio >= 1.0, h + 0.0 * ratio, np.minimum(h, 0.5 * ratio * ratio))


def filesystem_gb(p: ArrayMap, D):
    """GB of file system billed for a dataset of ``D`` GB: ``D`` itself, or with a minimum and a step (FSx for Lustre:
    1,200 GiB, then multiples of 2,400 GiB) the minimum when ``D`` fits it, else ``ceil(D/step) * step``."""
    lo, step = _get(p, "_fs_min_gb"), _get(p, "_fs_step_gb")
    if not _known(lo):
        return D
    if not _known(step):
        return np.maximum(D, lo)
    return np.where(D <= lo, lo, np.ceil(D / step) * step)


def checkpoint_gb_per_run(p: ArrayMap):
    """GB of checkpoints a run writes back to the data region: the stated ``training.checkpoint_gb_per_run``, else
    ``model_parameters x bytes_per_parameter / 10^9 x run_hours / checkpoint_interval_hours``, else 0."""
    per_run = _get(p, "_checkpoint_gb_per_run")
    if _known(per_run):
        return per_run + 0.0 * p["training.run_hours"]
    per_hour = _get(p, "_checkpoint_gb_per_hour")
    if _known(per_hour):
        return per_hour * p["training.run_hours"]
    return 0.0 * p["training.run_hours"]


def physical_bound(p: ArrayMap, n, N, W, c):
    """GB a month that can physically cross the link for training reads: the cold fills of the working set, plus
    every warm epoch's reads when the cache cannot hold the working set (or its capacity is not stated), plus the
    churn a month without a cold fill re-reads: ``n'*W + [C < W] * (N - n')*W + c*W*max(0, 1 - n')``; and never
    more than the link carries over the training hours, ``bw/8 * 3600 * R*T`` (when the bandwidth is known)."""
    cap = _get(p, "_capacity_gb")
    holds = 0.0 if isinstance(cap, float) and math.isnan(cap) else np.where(cap >= W, 1.0, 0.0)
    bound = n * W + (1.0 - holds) * (N - n) * W + c * W * np.maximum(0.0, 1.0 - n)
    bw = _get(p, "_bw_gbps")
    if _known(bw):
        link = bw / 8.0 * 3600.0 * p["training.runs_per_month"] * p["training.run_hours"]
        bound = np.minimum(bound, link)
    return bound


def _basis_x(p: ArrayMap, X_dataset, cold_gb, h, n, N, W, c, basis, bound):
    """GB/month priced under ``basis`` (a code or an array of codes, one per draw: 0 dataset, 1 read x miss,
    2 origin fetches, 3 billed, 4 the LRU miss model); with ``_bytes_auto`` a measured figure (1, 2) above
    ``bound`` x (1 + BYTES_TOLERANCE) is refused and the dataset model priced instead."""
    from .crossing import BYTES_TOLERANCE

    basis = np.asarray(basis, dtype=float)
    rate_read = _get(p, "_read_bytes_per_s") * (1.0 - h)
    hours = 3600.0 * p["training.runs_per_month"] * p["training.run_hours"] / 1e9
    x_read = cold_gb + rate_read * hours
    x_origin = cold_gb + _get(p, "_origin_bytes_per_s") * hours
    x_billed = _get(p, "_billed_gb_per_month") + 0.0 * cold_gb
    x_lru = cold_gb + (1.0 - lru_hit_ratio(h, W, _get(p, "_capacity_gb"))) * W * (N - n) \
        + c * W * np.maximum(0.0, 1.0 - n)
    X = np.select([basis == 1.0, basis == 2.0, basis == 3.0, basis == 4.0],
                  [x_read + 0.0 * X_dataset, x_origin + 0.0 * X_dataset, x_billed + 0.0 * X_dataset,
                   x_lru + 0.0 * X_dataset], X_dataset)
    if _flag(p, "_bytes_auto"):
        measured = (basis == 1.0) | (basis == 2.0)
        X = np.where(measured & (X > bound * (1.0 + BYTES_TOLERANCE)), X_dataset, X)
    return X if X.ndim else float(X)


def _versioning_months(M, r):
    """Integral over the horizon of the non-current stock in units of (c*D): M^2/2 if r >= M else r*M - r^2/2."""
    return np.where(r >= M, 0.5 * M * M, r * M - 0.5 * r * r)


def terms(p: ArrayMap) -> dict[str, dict[str, np.ndarray]]:
    """Every option's terms in USD over the horizon (see the module docstring for the formulas); derived
    values follow their sources first (:func:`follow`)."""
    p = follow(p)
    M = p["horizon_months"]
    G = p["training.cluster_usd_per_hour"]
    px = p["link.transfer_usd_per_gb"]
    D = p["dataset.size_gb"]
    R = p["training.runs_per_month"]
    T = p["training.run_hours"]
    c = p["dataset.monthly_churn_fraction"]
    s = p["replica.storage_usd_per_gb_month"]
    V = p["wait.delay_usd_per_hour"]
    O = p["dataset.objects"]
    dv = _derived(p)
    X = dv["cross_region_gb_per_month"]
    tt = _get(p, "_transfer_tiers")
    gets = M * p["requests.gets_per_object_read"] * dv["cache_fill_objects_per_month"] * p["requests.get_usd_per_1000"] / 1000.0
    az = 2.0 * p["link.inter_az_usd_per_gb"] * M * dv["training_read_gb_per_month"]
    r_months = p["replica.noncurrent_retention_days"] / DAYS_PER_MONTH
    cap = _get(p, "_capacity_gb")
    cap_gb = 0.0 if isinstance(cap, float) and math.isnan(cap) else cap
    cache_cap = M * cap_gb * _get(p, "cache.capacity_usd_per_gb_month") * cache_life_fraction(p)
    shared = _flag(p, "_cache_shared")
    s3 = _flag(p, "_s3_replication")
    return {
        "cross_region": {
            "transfer_usd": M * px * tier_volume(X, tt),
            "warmup_usd": M * dv["warmups_per_month"] * p["cache.warmup_lost_s"] / 3600.0 * G,
            "slowdown_usd": M * p["cache.steady_slowdown_fraction"] * R * T * G,
            "cache_usd": M * p["cache.usd_per_month"],
            "path_processing_usd": M * p["link.path_processing_usd_per_gb"] * tier_volume(X, _get(p, "_path_tiers")),
            "requests_usd": gets,
            "inter_az_usd": _get(p, "_cache_cross_az") * az,
            "cache_capacity_usd": cache_cap + 0.0 * M,
            "checkpoint_writeback_usd": M * R * checkpoint_gb_per_run(p) * px,
        },
        "replicate": {
            "initial_copy_usd": px * tier_volume(D, tt) + 0.0 * M,
            "storage_usd": M * s * tier_volume(D, _get(p, "_storage_tiers")),
            "sync_usd": M * (px * tier_volume(c * D, tt) + c * D * p["replica.sync_extra_usd_per_gb"]),
            "ops_usd": M * p["replica.ops_usd_per_month"],
            "requests_usd": gets + _flag(p, "_replica_puts") * (O + M * c * O) * p["requests.put_usd_per_1000"] / 1000.0
            + s3 * O * p["requests.batch_replication_usd_per_million"] / 1e6
            + s3 * np.where(O > 0, 1.0, 0.0) * p["requests.batch_job_usd"],
            "versioning_usd": s3 * _get(p, "_versioned_buckets") * s * c * D * _versioning_months(M, r_months),
            "inter_az_usd": _get(p, "_replica_cross_az") * az,
            "copy_delay_usd": p["replica.copy_hours"] * V + 0.0 * M,
            "cache_usd": shared * M * p["cache.usd_per_month"],
            "cache_capacity_usd": shared * cache_cap + 0.0 * M,
            "filesystem_usd": M * filesystem_gb(p, D) * _get(p, "replica.filesystem_usd_per_gb_month"),
            "mechanism_usd": mechanism_terms(p, M, D, c) + 0.0 * M,
        },
        "wait": {
            "delay_usd": M * R * p["wait.expected_wait_hours_per_run"] * V,
            "gpu_premium_usd": M * R * T * p["wait.cluster_premium_usd_per_hour"],
        },
    }


def totals(p: ArrayMap) -> dict[str, np.ndarray]:
    """Each option's total USD over the horizon (broadcast over array inputs)."""
    t = terms(p)
    return {opt: functools.reduce(operator.add, t[opt].values()) for opt in OPTIONS}


def totals_scalar(p: Mapping[str, float]) -> tuple[float, float, float]:
    """The same totals for one scenario of plain floats, written without numpy (the loop baseline)."""
    p = _follow_scalar(p)
    M = p["horizon_months"]
    D = p["dataset.size_gb"]
    W = p["dataset.working_set_fraction"] * D
    R = p["training.runs_per_month"]
    N = p["training.epochs_per_run"] * R
    per_run = _get(p, "_cold_starts_per_run")
    n0 = (p["cache.cold_starts_per_month"] if math.isnan(per_run) else R * per_run) + float(_interruption_starts(p))
    n = min(n0, N)
    nw = min(n0, max(R, N))
    h = p["cache.steady_hit_ratio"]
    cap = _get(p, "_capacity_gb")
    if math.isnan(cap):
        hw = h
    else:
        ratio = cap / W if W > 0 else 1.0
        hw = 1.0 if ratio >= 1.0 else min(h, ratio)
    c = p["dataset.monthly_churn_fraction"]
    px = p["link.transfer_usd_per_gb"]
    G = p["training.cluster_usd_per_hour"]
    T = p["training.run_hours"]
    O = p["dataset.objects"]
    s = p["replica.storage_usd_per_gb_month"]
    V = p["wait.delay_usd_per_hour"]
    X = n * W + (1.0 - hw) * W * (N - n) + c * W * max(0.0, 1.0 - n)
    basis = float(_get(p, "_bytes_basis"))
    if basis:
        X = float(_basis_x(p, X, n * W, h, n, N, W, c, basis, float(physical_bound(p, n, N, W, c))))
    tt = _get(p, "_transfer_tiers")
    gets = M * p["requests.gets_per_object_read"] * X * O / D * p["requests.get_usd_per_1000"] / 1000.0
    az = 2.0 * p["link.inter_az_usd_per_gb"] * M * N * W
    cross = M * (
        px * _tier_scalar(X, tt)
        + nw * p["cache.warmup_lost_s"] / 3600.0 * G
        + p["cache.steady_slowdown_fraction"] * R * T * G
        + p["cache.usd_per_month"]
        + p["link.path_processing_usd_per_gb"] * _tier_scalar(X, _get(p, "_path_tiers"))
    ) + gets + _get(p, "_cache_cross_az") * az
    cap = _get(p, "_capacity_gb")
    life = 1.0 if _flag(p, "_cache_persistent") else min(1.0, R * T / HOURS_PER_MONTH)
    cache_cap = M * (0.0 if math.isnan(cap) else cap) * _get(p, "cache.capacity_usd_per_gb_month") * life
    shared = _flag(p, "_cache_shared")
    s3 = _flag(p, "_s3_replication")
    cross += cache_cap + M * R * float(checkpoint_gb_per_run(p)) * px
    r = p["replica.noncurrent_retention_days"] / DAYS_PER_MONTH
    vm = 0.5 * M * M if r >= M else r * M - 0.5 * r * r
    rep = px * _tier_scalar(D, tt) + M * (
        s * _tier_scalar(D, _get(p, "_storage_tiers"))
        + px * _tier_scalar(c * D, tt) + c * D * p["replica.sync_extra_usd_per_gb"]
        + p["replica.ops_usd_per_month"]
    ) + gets + _flag(p, "_replica_puts") * (O + M * c * O) * p["requests.put_usd_per_1000"] / 1000.0 \
        + s3 * O * p["requests.batch_replication_usd_per_million"] / 1e6 \
        + s3 * (p["requests.batch_job_usd"] if O > 0 else 0.0) \
        + s3 * _get(p, "_versioned_buckets") * s * c * D * vm + float(mechanism_terms(p, M, D, c)) \
        + _get(p, "_replica_cross_az") * az + p["replica.copy_hours"] * V \
        + shared * (M * p["cache.usd_per_month"] + cache_cap) \
        + M * float(filesystem_gb(p, D)) * _get(p, "replica.filesystem_usd_per_gb_month")
    wait = M * R * (p["wait.expected_wait_hours_per_run"] * V + T * p["wait.cluster_premium_usd_per_hour"])
    return cross, rep, wait


def _follow_scalar(p: Mapping[str, float]) -> Mapping[str, float]:
    """:func:`follow` for plain floats, without numpy."""
    fw, fc = _flag(p, "_follow_warmup"), _flag(p, "_follow_copy_hours")
    ft, fe = _flag(p, "_follow_run_hours"), _flag(p, "_follow_epochs")
    if not (fw or fc or ft or fe):
        return p
    q = dict(p)
    D, w = q["dataset.size_gb"], q["dataset.working_set_fraction"]
    S, thr, bw = _flag(q, "_samples"), _flag(q, "_samples_per_s"), _flag(q, "_bw_gbps")
    has_thr = S == S and thr == thr and S > 0 and thr > 0
    has_bw = bw == bw and bw > 0
    ep = w * S / thr if has_thr else (
        (q["training.run_hours"] * 3600.0 / q["training.epochs_per_run"] if q["training.epochs_per_run"] > 0
         else math.inf) if _flag(q, "_epoch_from_run") else None)
    if fw and has_bw and ep is not None:
        bound = max(0.0, w * D * 8.0 / bw - ep)
        L = _stated(q, "_warmup_stated", "cache.warmup_lost_s")
        q["cache.warmup_lost_s"] = bound if fw == 1 or L < bound * (1 - BOUND_TOLERANCE) else L
    if fc and has_bw:
        bound = D * 8.0 / float(_copy_rate(bw, _get(q, "_copy_gbps"))) / 3600.0
        Tc = _stated(q, "_copy_hours_stated", "replica.copy_hours")
        q["replica.copy_hours"] = bound if fc == 1 or Tc < bound * (1 - BOUND_TOLERANCE) else Tc
    R, L = q["training.runs_per_month"], q["cache.warmup_lost_s"]
    per_run = _get(q, "_cold_starts_per_run")
    n0 = (q["cache.cold_starts_per_month"] if math.isnan(per_run) else R * per_run) + float(_interruption_starts(q))
    if ft and has_thr and ep is not None:  # has_thr: ep = w*S/thr is set
        E = q["training.epochs_per_run"]
        q["training.run_hours"] = E * ep / 3600.0 + (min(n0, max(R, E * R)) / R * L / 3600.0 if R > 0 else 0.0)
    elif fe and has_thr and ep is not None:
        warm = n0 / R * L / 3600.0 if R > 0 else 0.0
        q["training.epochs_per_run"] = max(0.0, (q["training.run_hours"] - warm) * 3600.0 / ep)
    return q


def cheapest_index(tot: Mapping[str, np.ndarray], priced: Mapping[str, bool] | None = None) -> npt.NDArray[np.intp]:
    """Index into OPTIONS of the cheapest option per element (ties go to the earlier option); options not
    ``priced`` (``priced[o]`` False) never win."""
    arrays = [np.asarray(tot[o], dtype=float) for o in OPTIONS]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    stacked = np.stack([np.broadcast_to(a, shape) if (priced is None or priced.get(o, True))
                        else np.full(shape, np.inf) for o, a in zip(OPTIONS, arrays, strict=True)])
    return np.argmin(stacked, axis=0)
