"""Cost scenarios with every value given (no price lookups), priced to the cent by hand in the cost tests."""
from __future__ import annotations

# the issue's minimum example, every value given (no price lookups)
ISSUE = {
    "horizon_months": 12,
    "dataset": {"size_gb": 50000, "monthly_churn_fraction": 0.10, "working_set_fraction": 1.0},
    "training": {"runs_per_month": 4, "epochs_per_run": 3, "run_hours": 48, "cluster_usd_per_hour": 196.64},
    "link": {"transfer_usd_per_gb": 0.02},
    "cache": {"steady_hit_ratio": 0.95, "cold_starts_per_month": 1, "warmup_lost_s": 300, "steady_slowdown_fraction": 0.0},
    "replica": {"storage_usd_per_gb_month": 0.023, "sync_extra_usd_per_gb": 0.0, "ops_usd_per_month": 0,
                "noncurrent_retention_days": 0},
    "wait": {"expected_wait_hours_per_run": 0, "delay_usd_per_hour": 0},
}

# every term non-zero
RICH = {
    "horizon_months": 12,
    "dataset": {"size_gb": 50000, "monthly_churn_fraction": 0.10, "working_set_fraction": 0.8},
    "training": {"runs_per_month": 4, "epochs_per_run": 3, "run_hours": 48, "cluster_usd_per_hour": 196.64},
    "link": {"transfer_usd_per_gb": 0.02},
    "cache": {
        "steady_hit_ratio": 0.95,
        "cold_starts_per_month": 2,
        "warmup_lost_s": 300,
        "steady_slowdown_fraction": 0.01,
        "usd_per_month": 100,
    },
    "replica": {"storage_usd_per_gb_month": 0.023, "sync_extra_usd_per_gb": 0.015, "ops_usd_per_month": 250,
                "noncurrent_retention_days": 0},
    "wait": {"expected_wait_hours_per_run": 24, "delay_usd_per_hour": 40, "cluster_premium_usd_per_hour": 5},
}


P5_PAIR_USD_PER_HOUR = 110.08  # 2 x p5.48xlarge on demand, USD/hour


def peered_scenario(samples: int = 1_000_000, samples_per_s: float = 100, warmup_lost_s: float = 60) -> dict:
    """A fresh copy of the scenario the verdict tests vary: 1,000 GB over VPC peering, one run a month of 3 epochs
    on 2 x p5, a per-cluster cache holding twice the dataset, a replica in S3 Standard, a 72 h wait."""
    return {
        "horizon_months": 12,
        "dataset": {"size_gb": 1000, "monthly_churn_fraction": 0.0, "samples": samples},
        "training": {"runs_per_month": 1, "epochs_per_run": 3, "samples_per_s": samples_per_s,
                     "cluster_usd_per_hour": P5_PAIR_USD_PER_HOUR},
        "link": {"transfer_usd_per_gb": 0.02, "path": "vpc_peering", "bandwidth_gbps": 10},
        "cache": {"steady_hit_ratio": 0.95, "persistence": "per_cluster", "warmup_lost_s": warmup_lost_s,
                  "steady_slowdown_fraction": 0.0, "capacity_gb": 2000, "usd_per_month": 0},
        "replica": {"storage_usd_per_gb_month": 0.023, "ops_usd_per_month": 0, "noncurrent_retention_days": 30},
        "wait": {"expected_wait_hours_per_run": 72, "delay_usd_per_hour": 50, "cluster_premium_usd_per_hour": 0},
    }
