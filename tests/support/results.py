"""Hand-written ``compare`` and ``cost`` results shaped like the verbs' ``--json`` output, for the checklist
and ``costmodel decide`` tests."""
from __future__ import annotations

#: A minimal compare result (what ``costmodel decide`` needs).
COMPARE = {
    "ratio": 0.998, "ratio_ci_low": 0.991, "ratio_ci_high": 1.005, "equivalent": True, "margin": 0.02,
    "remote_extra_warmup_s": 600.0, "remote_lost_s": 45.0, "remote_steady_hit_ratio": 0.95,
    "remote_steady_read_bytes_per_s": None,
    "colocated": [{"run_id": "hub-1", "classification": "flat"}],
    "remote": [{"run_id": "spoke-1", "classification": "warmup", "warmup_end_step": 120}],
}
#: A minimal cost result.
COST = {
    "horizon_months": 12,
    "options": {"cross_region": {"total_usd": 30000.0}, "replicate": {"total_usd": 48000.0},
                "wait": {"total_usd": 90000.0}},
    "inputs": {"training": {"runs_per_month": 4, "epochs_per_run": 3, "run_hours": 48},
               "dataset": {"size_gb": 400.0}, "cache": {"steady_hit_ratio": 0.95}},
}


def reference_compare() -> dict:
    """A compare result shaped like `costmodel compare --json` for the reference case (one run each)."""
    return {
        "ratio": 0.998,
        "ratio_ci_low": 0.991,
        "ratio_ci_high": 1.005,
        "equivalent": True,
        "margin": 0.02,
        "remote_extra_warmup_s": 600.0,
        "remote_lost_s": 45.0,
        "steady_slowdown_fraction": 0.0,
        "remote_steady_hit_ratio": 0.95,
        "remote_steady_read_bytes_per_s": 1.2e9,
        "colocated": [{"run_id": "hub-1", "classification": "flat", "warmup_end_step": 0, "steady_mean": 116.0}],
        "remote": [{"run_id": "spoke-1", "classification": "warmup", "warmup_end_step": 120, "steady_mean": 115.8}],
    }


def reference_cost() -> dict:
    """A cost result shaped like `costmodel cost --json`."""
    return {
        "horizon_months": 12,
        "options": {
            "cross_region": {"total_usd": 30000.0, "per_month_usd": 2500.0,
                             "terms": {"transfer_usd": 24000.0, "warmup_usd": 6000.0, "slowdown_usd": 0.0}},
            "replicate": {"total_usd": 48000.0, "per_month_usd": 4000.0, "terms": {}},
            "wait": {"total_usd": 90000.0, "per_month_usd": 7500.0, "terms": {}},
        },
        "cheapest": "cross_region",
        "break_even": {},
        "prices_used": [],
        "warnings": [],
        "inputs": {
            "dataset": {"size_gb": 400.0, "working_set_fraction": 1.0},
            "training": {"runs_per_month": 4, "epochs_per_run": 3, "run_hours": 48},
            "cache": {"steady_hit_ratio": 0.95, "cold_starts_per_month": 1, "capacity_gb": 61400.0},
            "link": {"bandwidth_gbps": 10.0},
            "transfer_budget_usd_per_month": 2500.0,
        },
    }


def as_recorded(obj, record_dir, *paths):
    """``obj`` (a verb's JSON) with its input paths written as a report's record writes them: relative to
    ``record_dir`` (the folder of decision.json), or ``costmodel/...`` inside the package
    (:mod:`costmodel.report.paths`). ``paths`` are the inputs the verb was given."""
    from costmodel.report.paths import path_map, relocate

    return relocate(obj, path_map([str(p) for p in paths], record_dir))
