"""The quantities behind the terms: cold starts, the bytes that cross a month and what can physically cross.

Pure functions of :class:`~costmodel.cost.inputs.ModelInputs` (floats or arrays; every function broadcasts).
The formulas are those of :mod:`costmodel.cost.model`'s docstring:
``X = n'*W + (1-hw)*W*(N-n') + c*W*max(0, 1-n')`` (the dataset model), the physical bound, the LRU miss model
and the measured and billed bases (:class:`~costmodel.cost.inputs.BytesBasis`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .inputs import BytesBasis, ModelInputs, is_nan, known

HOURS_PER_MONTH = 365.25 * 24 / 12  # 730.5


def cold_starts(i: ModelInputs) -> Any:
    """Cold starts a month: ``R * per_run`` when they follow runs, else ``cache.cold_starts_per_month``; plus
    one per interruption unless the cache is persistent."""
    extra = interruption_starts(i)
    if is_nan(i.cold_starts_per_run):
        return i.cache_cold_starts_per_month + extra
    return i.training_runs_per_month * i.cold_starts_per_run + extra


def interruption_starts(i: ModelInputs) -> Any:
    """Cold starts a month from interruptions: ``R * I`` unless the cache is persistent."""
    I = i.training_interruptions_per_run
    if isinstance(I, (int, float)) and I == 0:
        return 0.0
    return (1.0 - float(i.cache_persistent)) * i.training_runs_per_month * I


def cache_life_fraction(i: ModelInputs) -> Any:
    """The share of the month the cache tier exists (and is billed): 1 when persistent, else the training hours
    ``min(1, R*T / 730.5)``."""
    if i.cache_persistent:
        return 1.0
    return np.minimum(1.0, i.training_runs_per_month * i.training_run_hours / HOURS_PER_MONTH)


def warm_hit_ratio(h: Any, W: Any, cap: Any) -> Any:
    """The warm-epoch hit ratio: ``h`` (capacity not stated), 1 when the cache holds ``W``, else min(h, C/W)."""
    if is_nan(cap):
        return h
    ratio = cap / W  # W > 0: size_gb > 0 and working_set_fraction > 0
    return np.where(ratio >= 1.0, 1.0, np.minimum(h, ratio))


#: LRU under a fresh shuffle every epoch: the share of a warm epoch's reads that hit a cache holding C of W
#: bytes is about (C/W)^2 / 2 (an item hits only when fewer than C bytes were read since its last read; CoorDL,
#: VLDB 2021, measures LRU far below C/W). ``BytesBasis.LRU`` prices the bytes with this miss model.
def lru_hit_ratio(h: Any, W: Any, cap: Any) -> Any:
    """The warm hit ratio of an LRU cache under per-epoch shuffle, ``min(h, (C/W)^2 / 2)``; 1 when the cache
    holds the working set (warm epochs re-read hits: nothing crosses after the cold fill), ``h`` when its capacity
    is not stated (nan)."""
    if is_nan(cap):
        return h + 0.0 * W
    ratio = cap / W
    return np.where(ratio >= 1.0, 1.0 + 0.0 * ratio + 0.0 * h, np.minimum(h, 0.5 * ratio * ratio))


def checkpoint_gb_per_run(i: ModelInputs) -> Any:
    """GB of checkpoints a run writes back to the data region: the stated ``training.checkpoint_gb_per_run``, else
    ``model_parameters x bytes_per_parameter / 10^9 x run_hours / checkpoint_interval_hours``, else 0."""
    T = i.training_run_hours
    if known(i.checkpoint_gb_per_run):
        return i.checkpoint_gb_per_run + 0.0 * T
    if known(i.checkpoint_gb_per_hour):
        return i.checkpoint_gb_per_hour * T
    return 0.0 * T


def physical_bound(i: ModelInputs, n: Any, N: Any, W: Any, c: Any) -> Any:
    """GB a month that can physically cross the link for training reads: the cold fills of the working set, plus
    every warm epoch's reads when the cache cannot hold the working set (or its capacity is not stated), plus the
    churn a month without a cold fill re-reads: ``n'*W + [C < W] * (N - n')*W + c*W*max(0, 1 - n')``; and never
    more than the link carries over the training hours, ``bw/8 * 3600 * R*T`` (when the bandwidth is known)."""
    cap = i.capacity_gb
    holds = 0.0 if is_nan(cap) else np.where(cap >= W, 1.0, 0.0)
    bound = n * W + (1.0 - holds) * (N - n) * W + c * W * np.maximum(0.0, 1.0 - n)
    bw = i.bw_gbps
    if known(bw):
        link = bw / 8.0 * 3600.0 * i.training_runs_per_month * i.training_run_hours
        bound = np.minimum(bound, link)
    return bound


def basis_x(i: ModelInputs, X_dataset: Any, cold_gb: Any, h: Any, n: Any, N: Any, W: Any, c: Any, basis: Any,
            bound: Any) -> Any:
    """GB/month priced under ``basis`` (a :class:`BytesBasis` or an array of them, one per draw); with
    ``bytes_auto`` a measured figure above ``bound`` x (1 + BYTES_TOLERANCE) is refused and the dataset model
    priced instead, and one above ``bound`` but within the tolerance is priced at ``bound`` (never more than can
    physically cross)."""
    from .crossing import BYTES_TOLERANCE

    basis = np.asarray(basis, dtype=float)
    rate_read = i.read_bytes_per_s * (1.0 - h)
    hours = 3600.0 * i.training_runs_per_month * i.training_run_hours / 1e9
    x_read = cold_gb + rate_read * hours
    x_origin = cold_gb + i.origin_bytes_per_s * hours
    x_billed = i.billed_gb_per_month + 0.0 * cold_gb
    x_lru = cold_gb + (1.0 - lru_hit_ratio(h, W, i.capacity_gb)) * W * (N - n) \
        + c * W * np.maximum(0.0, 1.0 - n)
    X = np.select([basis == BytesBasis.MEASURED_READ, basis == BytesBasis.MEASURED_ORIGIN,
                   basis == BytesBasis.BILLED, basis == BytesBasis.LRU],
                  [x_read + 0.0 * X_dataset, x_origin + 0.0 * X_dataset, x_billed + 0.0 * X_dataset,
                   x_lru + 0.0 * X_dataset], X_dataset)
    if i.bytes_auto:
        measured = (basis == BytesBasis.MEASURED_READ) | (basis == BytesBasis.MEASURED_ORIGIN)
        # far above what can cross: refused (the dataset model priced); a little above: priced at the bound, the
        # excess named (costmodel.cost.crossing.capping): priced bytes never exceed what can physically cross
        X = np.where(measured & (X > bound * (1.0 + BYTES_TOLERANCE)), X_dataset,
                     np.where(measured, np.minimum(X, bound), X))
    return X if X.ndim else float(X)


def derived_of(i: ModelInputs) -> dict[str, Any]:
    """Quantities behind the terms, GB and hours per month, of inputs whose derived values already follow their
    sources (:func:`costmodel.cost.follow.follow_inputs`)."""
    D = i.dataset_size_gb
    W = i.dataset_working_set_fraction * D
    R = i.training_runs_per_month
    N = i.training_epochs_per_run * R
    starts = cold_starts(i)
    n = np.minimum(starts, N)
    nw = np.minimum(starts, np.maximum(R, N))
    h = i.cache_steady_hit_ratio
    hw = warm_hit_ratio(h, W, i.capacity_gb)
    c = i.dataset_monthly_churn_fraction
    cold_gb = n * W
    miss_gb = (1.0 - hw) * W * (N - n)
    churn_gb = c * W * np.maximum(0.0, 1.0 - n)
    X = cold_gb + miss_gb + churn_gb
    X_dataset = X
    bound = physical_bound(i, n, N, W, c)
    basis = i.bytes_basis
    if np.any(np.asarray(basis) != BytesBasis.DATASET):  # a measured or billed figure replaces the model's
        X = basis_x(i, X_dataset, cold_gb, h, n, N, W, c, basis, bound)
        priced_other = np.asarray(X != X_dataset)
        miss_gb = np.where(priced_other, X - cold_gb, miss_gb)
        churn_gb = np.where(priced_other, 0.0, churn_gb)
    O = i.dataset_objects
    return {
        "cross_region_gb_per_month_dataset": X_dataset,
        "physical_bound_gb_per_month": bound,
        "lru_hit_ratio": lru_hit_ratio(h, W, i.capacity_gb),
        "working_set_gb": W,
        "epochs_per_month": N,
        "cold_starts_per_month": starts,
        "cold_fills_per_month": n,
        "warmups_per_month": nw,
        "warm_epochs_per_month": N - n,
        "warm_hit_ratio": hw,
        "cold_fill_gb_per_month": cold_gb,
        "miss_gb_per_month": miss_gb,
        "churn_refetch_gb_per_month": churn_gb,
        "cross_region_gb_per_month": X,
        "cache_fill_objects_per_month": X * O / D,
        "training_hours_per_month": R * i.training_run_hours,
        "training_read_gb_per_month": N * W,
        "checkpoint_gb_per_month": R * checkpoint_gb_per_run(i),
        "replica_sync_gb_per_month": c * D,
        "replica_sync_objects_per_month": c * O,
    }
