r"""The three options and their cost terms, vectorised over numpy arrays.

Notation (per month unless stated; every input is a scenario key):

=========  ==========================================  =========================================
symbol     key                                          unit
=========  ==========================================  =========================================
``M``      ``horizon_months``                           months
``D``      ``dataset.size_gb``                          GB (10^9 bytes)
``c``      ``dataset.monthly_churn_fraction``           1/month
``w``      ``dataset.working_set_fraction``             fraction of D one epoch reads
``R``      ``training.runs_per_month``                  runs/month
``E``      ``training.epochs_per_run``                  epochs/run
``T``      ``training.run_hours``                       hours/run
``G``      ``training.cluster_usd_per_hour``            USD/hour (whole cluster)
``p``      ``link.transfer_usd_per_gb``                 USD/GB, data region -> GPU region
``h``      ``cache.steady_hit_ratio``                   0..1
``n``      ``cache.cold_starts_per_month``              cold fills/month
``L``      ``cache.warmup_lost_s``                      cluster-seconds lost per cold start
``d``      ``cache.steady_slowdown_fraction``           0..1
``K``      ``cache.usd_per_month``                      USD/month
``s``      ``replica.storage_usd_per_gb_month``         USD/GB-month
``x``      ``replica.sync_extra_usd_per_gb``            USD/GB (e.g. S3 RTC)
``O``      ``replica.ops_usd_per_month``                USD/month
``Wh``     ``wait.expected_wait_hours_per_run``         hours/run
``V``      ``wait.delay_usd_per_hour``                  USD/hour of delay
``P``      ``wait.cluster_premium_usd_per_hour``        USD/hour
=========  ==========================================  =========================================

Derived: working set ``W = w*D``; epochs per month ``N = E*R``; cold fills that happen ``n' = min(n, N)``
(a cache cannot start cold more often than it is read); warm epochs ``N - n'``.

cross_region (read across regions through the cache)
  - ``transfer_usd   = M * p * (n'*W + (1-h)*W*(N-n') + c*W)``  cold fills of the working set, misses in
    every warm epoch, and re-fetch of the churned part of the working set
  - ``warmup_usd     = M * n' * L/3600 * G``  cluster time lost while the cache warms
  - ``slowdown_usd   = M * d * R*T * G``  steady slowdown times training hours times cluster price
    (first order: a run ``T/(1-d)`` long would cost ``d/(1-d)``; the issue's linear form is kept)
  - ``cache_usd      = M * K``
replicate (copy the dataset to the GPU region and keep it in sync)
  - ``initial_copy_usd = D * p``  once
  - ``storage_usd    = M * D * s``
  - ``sync_usd       = M * c * D * (p + x)``
  - ``ops_usd        = M * O``
wait (train in the data region once GPUs are free there)
  - ``delay_usd      = M * R * Wh * V``
  - ``gpu_premium_usd = M * R * T * P``

``total_usd`` is the sum of an option's terms over the horizon; ``per_month_usd = total_usd / M`` (the
one-off initial copy is spread over the horizon). All functions broadcast: pass arrays for any inputs.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

OPTIONS: tuple[str, ...] = ("cross_region", "replicate", "wait")
TERMS: dict[str, tuple[str, ...]] = {
    "cross_region": ("transfer_usd", "warmup_usd", "slowdown_usd", "cache_usd"),
    "replicate": ("initial_copy_usd", "storage_usd", "sync_usd", "ops_usd"),
    "wait": ("delay_usd", "gpu_premium_usd"),
}

ArrayMap = Mapping[str, "np.ndarray | float"]


def derived(p: ArrayMap) -> dict[str, np.ndarray]:
    """Quantities behind the terms: GB and hours per month (arrays broadcast like the inputs)."""
    D = p["dataset.size_gb"]
    W = p["dataset.working_set_fraction"] * D
    N = p["training.epochs_per_run"] * p["training.runs_per_month"]
    n = np.minimum(p["cache.cold_starts_per_month"], N)
    h = p["cache.steady_hit_ratio"]
    c = p["dataset.monthly_churn_fraction"]
    cold_gb = n * W
    miss_gb = (1.0 - h) * W * (N - n)
    churn_gb = c * W
    return {
        "working_set_gb": W,
        "epochs_per_month": N,
        "cold_fills_per_month": n,
        "warm_epochs_per_month": N - n,
        "cold_fill_gb_per_month": cold_gb,
        "miss_gb_per_month": miss_gb,
        "churn_refetch_gb_per_month": churn_gb,
        "cross_region_gb_per_month": cold_gb + miss_gb + churn_gb,
        "training_hours_per_month": p["training.runs_per_month"] * p["training.run_hours"],
        "replica_sync_gb_per_month": c * D,
    }


def terms(p: ArrayMap) -> dict[str, dict[str, np.ndarray]]:
    """Every option's terms in USD over the horizon (see the module docstring for the formulas)."""
    M = p["horizon_months"]
    G = p["training.cluster_usd_per_hour"]
    px = p["link.transfer_usd_per_gb"]
    D = p["dataset.size_gb"]
    R = p["training.runs_per_month"]
    T = p["training.run_hours"]
    dv = derived(p)
    return {
        "cross_region": {
            "transfer_usd": M * px * dv["cross_region_gb_per_month"],
            "warmup_usd": M * dv["cold_fills_per_month"] * p["cache.warmup_lost_s"] / 3600.0 * G,
            "slowdown_usd": M * p["cache.steady_slowdown_fraction"] * R * T * G,
            "cache_usd": M * p["cache.usd_per_month"],
        },
        "replicate": {
            "initial_copy_usd": D * px + 0.0 * M,
            "storage_usd": M * D * p["replica.storage_usd_per_gb_month"],
            "sync_usd": M * p["dataset.monthly_churn_fraction"] * D * (px + p["replica.sync_extra_usd_per_gb"]),
            "ops_usd": M * p["replica.ops_usd_per_month"],
        },
        "wait": {
            "delay_usd": M * R * p["wait.expected_wait_hours_per_run"] * p["wait.delay_usd_per_hour"],
            "gpu_premium_usd": M * R * T * p["wait.cluster_premium_usd_per_hour"],
        },
    }


def totals(p: ArrayMap) -> dict[str, np.ndarray]:
    """Each option's total USD over the horizon (broadcast over array inputs)."""
    t = terms(p)
    return {opt: sum(t[opt].values()) for opt in OPTIONS}


def totals_scalar(p: Mapping[str, float]) -> tuple[float, float, float]:
    """The same totals for one scenario of plain floats, written without numpy (the loop baseline)."""
    M = p["horizon_months"]
    D = p["dataset.size_gb"]
    W = p["dataset.working_set_fraction"] * D
    R = p["training.runs_per_month"]
    N = p["training.epochs_per_run"] * R
    n = min(p["cache.cold_starts_per_month"], N)
    h = p["cache.steady_hit_ratio"]
    c = p["dataset.monthly_churn_fraction"]
    px = p["link.transfer_usd_per_gb"]
    G = p["training.cluster_usd_per_hour"]
    T = p["training.run_hours"]
    cross = M * (
        px * (n * W + (1.0 - h) * W * (N - n) + c * W)
        + n * p["cache.warmup_lost_s"] / 3600.0 * G
        + p["cache.steady_slowdown_fraction"] * R * T * G
        + p["cache.usd_per_month"]
    )
    rep = D * px + M * (
        D * p["replica.storage_usd_per_gb_month"]
        + c * D * (px + p["replica.sync_extra_usd_per_gb"])
        + p["replica.ops_usd_per_month"]
    )
    wait = M * R * (p["wait.expected_wait_hours_per_run"] * p["wait.delay_usd_per_hour"] + T * p["wait.cluster_premium_usd_per_hour"])
    return cross, rep, wait


def cheapest_index(tot: Mapping[str, np.ndarray]) -> np.ndarray:
    """Index into OPTIONS of the cheapest option per element (ties go to the earlier option)."""
    stacked = np.stack([np.asarray(tot[o], dtype=float) for o in OPTIONS])
    return np.argmin(stacked, axis=0)
