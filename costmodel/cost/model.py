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
  - ``checkpoint_writeback_usd = M * R * ckpt * p``: the checkpoints a run writes back to the data region (
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

Typed inputs: :class:`~costmodel.cost.inputs.ModelInputs` (read once from the flat mapping; modes are enums).
Derived values that follow their sources: :mod:`costmodel.cost.follow`; the bytes that cross and the physical
bound: :mod:`costmodel.cost.bytes_model`. The point evaluation, the Monte Carlo, sweeps, break-even and the
placement all price through :func:`terms`.
"""
from __future__ import annotations

import functools
import operator
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from .bytes_model import HOURS_PER_MONTH as HOURS_PER_MONTH
from .bytes_model import cache_life_fraction, checkpoint_gb_per_run, cold_starts, derived_of
from .follow import copy_rate, follow_inputs
from .inputs import INTERNAL_DEFAULTS as INTERNAL_DEFAULTS
from .inputs import ModelInputs, is_nan, known
from .inputs import unfollow as unfollow

OPTIONS: tuple[str, ...] = ("cross_region", "replicate", "wait")
TERMS: dict[str, tuple[str, ...]] = {
    "cross_region": ("transfer_usd", "warmup_usd", "slowdown_usd", "cache_usd", "path_processing_usd", "requests_usd",
                     "inter_az_usd", "cache_capacity_usd", "checkpoint_writeback_usd"),
    "replicate": ("initial_copy_usd", "storage_usd", "sync_usd", "ops_usd", "requests_usd", "versioning_usd",
                  "inter_az_usd", "copy_delay_usd", "cache_usd", "cache_capacity_usd", "filesystem_usd", "mechanism_usd"),
    "wait": ("delay_usd", "gpu_premium_usd"),
}
DAYS_PER_MONTH = 365.25 / 12.0  # 30.4375

Inputs = Mapping[str, Any] | ModelInputs


def tier_volume(v: Any, tiers: Any) -> Any:
    """``sum ratio_i * clip(v - start_i, 0, end_i - start_i)`` (``v`` when ``tiers`` is None)."""
    if not tiers:
        return v
    out = 0.0
    for start, end, ratio in tiers:
        out = out + ratio * np.clip(v - start, 0.0, end - start)
    return out


def follow(p: Mapping[str, Any]) -> Mapping[str, Any]:
    """The flat mapping ``p`` with its derived values recomputed from their sources
    (:func:`costmodel.cost.follow.follow_inputs`); ``p`` itself when nothing follows."""
    i = ModelInputs.of(p)
    f = follow_inputs(i)
    if f is i:
        return p
    q = dict(p)
    q.update({"cache.warmup_lost_s": f.cache_warmup_lost_s, "replica.copy_hours": f.replica_copy_hours,
              "training.run_hours": f.training_run_hours, "training.epochs_per_run": f.training_epochs_per_run})
    return q


def _cold_starts(p: Inputs) -> Any:
    """Cold starts a month of the flat mapping (or typed inputs) ``p`` (:func:`costmodel.cost.bytes_model.cold_starts`)."""
    return cold_starts(ModelInputs.of(p))


def derived(p: Inputs) -> dict[str, Any]:
    """Quantities behind the terms: GB and hours per month (arrays broadcast like the inputs)."""
    return derived_of(follow_inputs(ModelInputs.of(p)))


def filesystem_gb(D: Any, lo: Any, step: Any) -> Any:
    """GB of file system billed for a dataset of ``D`` GB: ``D`` itself, or with a minimum ``lo`` and a ``step``
    (FSx for Lustre: 1,200 GiB, then multiples of 2,400 GiB) the minimum when ``D`` fits it, else
    ``ceil(D/step) * step`` (nan: not stated)."""
    if not known(lo):
        return D
    if not known(step):
        return np.maximum(D, lo)
    return np.where(D <= lo, lo, np.ceil(D / step) * step)


def mechanism_terms(i: ModelInputs, M: Any, D: Any, c: Any) -> Any:
    """The mechanism's own per-GB fee on the initial copy and the month's sync, ``(D + M*c*D) * Pm``; for
    ``instance_copy`` the instance-hours the copy takes, ``(D + M*c*D) * 8 / min(bw, mech) / 3600 * Pi``."""
    copied = D + M * c * D
    fee = copied * i.replica_mechanism_usd_per_gb
    if i.instance_copy:
        bw = i.bw_gbps
        rate = copy_rate(bw, i.copy_gbps)
        hours = np.where(rate > 0, copied * 8.0 / np.where(rate > 0, rate, 1.0) / 3600.0, 0.0) \
            if known(bw) else 0.0 * copied
        fee = fee + hours * i.replica_copy_instance_usd_per_hour
    return fee


def _versioning_months(M: Any, r: Any) -> Any:
    """Integral over the horizon of the non-current stock in units of (c*D): M^2/2 if r >= M else r*M - r^2/2."""
    return np.where(r >= M, 0.5 * M * M, r * M - 0.5 * r * r)


def terms(p: Inputs) -> dict[str, dict[str, Any]]:
    """Every option's terms in USD over the horizon (see the module docstring for the formulas) of the flat
    mapping or typed inputs ``p``; derived values follow their sources first."""
    i = follow_inputs(ModelInputs.of(p))
    M = i.horizon_months
    G = i.training_cluster_usd_per_hour
    px = i.link_transfer_usd_per_gb
    D = i.dataset_size_gb
    R = i.training_runs_per_month
    T = i.training_run_hours
    c = i.dataset_monthly_churn_fraction
    s = i.replica_storage_usd_per_gb_month
    V = i.wait_delay_usd_per_hour
    O = i.dataset_objects
    dv = derived_of(i)
    X = dv["cross_region_gb_per_month"]
    tt = i.transfer_tiers
    gets = M * i.requests_gets_per_object_read * dv["cache_fill_objects_per_month"] * i.requests_get_usd_per_1000 / 1000.0
    az = 2.0 * i.link_inter_az_usd_per_gb * M * dv["training_read_gb_per_month"]
    r_months = i.replica_noncurrent_retention_days / DAYS_PER_MONTH
    cap = i.capacity_gb
    cap_gb = 0.0 if is_nan(cap) else cap
    cache_cap = M * cap_gb * i.cache_capacity_usd_per_gb_month * cache_life_fraction(i)
    shared = float(i.cache_shared)
    s3 = float(i.s3_replication)
    return {
        "cross_region": {
            "transfer_usd": M * px * tier_volume(X, tt),
            "warmup_usd": M * dv["warmups_per_month"] * i.cache_warmup_lost_s / 3600.0 * G,
            "slowdown_usd": M * i.cache_steady_slowdown_fraction * R * T * G,
            "cache_usd": M * i.cache_usd_per_month,
            "path_processing_usd": M * i.link_path_processing_usd_per_gb * tier_volume(X, i.path_tiers),
            "requests_usd": gets,
            "inter_az_usd": float(i.cache_cross_az) * az,
            "cache_capacity_usd": cache_cap + 0.0 * M,
            "checkpoint_writeback_usd": M * R * checkpoint_gb_per_run(i) * px,
        },
        "replicate": {
            "initial_copy_usd": px * tier_volume(D, tt) + 0.0 * M,
            "storage_usd": M * s * tier_volume(D, i.storage_tiers),
            "sync_usd": M * (px * tier_volume(c * D, tt) + c * D * i.replica_sync_extra_usd_per_gb),
            "ops_usd": M * i.replica_ops_usd_per_month,
            "requests_usd": gets + float(i.replica_puts) * (O + M * c * O) * i.requests_put_usd_per_1000 / 1000.0
            + s3 * O * i.requests_batch_replication_usd_per_million / 1e6
            + s3 * np.where(O > 0, 1.0, 0.0) * i.requests_batch_job_usd,
            "versioning_usd": s3 * i.versioned_buckets * s * c * D * _versioning_months(M, r_months),
            "inter_az_usd": float(i.replica_cross_az) * az,
            "copy_delay_usd": i.replica_copy_hours * V + 0.0 * M,
            "cache_usd": shared * M * i.cache_usd_per_month,
            "cache_capacity_usd": shared * cache_cap + 0.0 * M,
            "filesystem_usd": M * filesystem_gb(D, i.fs_min_gb, i.fs_step_gb) * i.replica_filesystem_usd_per_gb_month,
            "mechanism_usd": mechanism_terms(i, M, D, c) + 0.0 * M,
        },
        "wait": {
            "delay_usd": M * R * i.wait_expected_wait_hours_per_run * V,
            "gpu_premium_usd": M * R * T * i.wait_cluster_premium_usd_per_hour,
        },
    }


def totals(p: Inputs) -> dict[str, Any]:
    """Each option's total USD over the horizon (broadcast over array inputs)."""
    t = terms(p)
    return {opt: functools.reduce(operator.add, t[opt].values()) for opt in OPTIONS}


def totals_scalar(p: Inputs) -> tuple[float, float, float]:
    """The totals of one scenario of plain floats as a tuple (cross_region, replicate, wait): the same
    :func:`terms` the Monte Carlo draws through (one function, no second copy of the formulas)."""
    t = totals(p)
    return float(t["cross_region"]), float(t["replicate"]), float(t["wait"])


def cheapest_index(tot: Mapping[str, Any], priced: Mapping[str, bool] | None = None) -> npt.NDArray[np.intp]:
    """Index into OPTIONS of the cheapest option per element (ties go to the earlier option); options not
    ``priced`` (``priced[o]`` False) never win."""
    arrays = [np.asarray(tot[o], dtype=float) for o in OPTIONS]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    stacked = np.stack([np.broadcast_to(a, shape) if (priced is None or priced.get(o, True))
                        else np.full(shape, np.inf) for o, a in zip(OPTIONS, arrays, strict=True)])
    return np.argmin(stacked, axis=0)
