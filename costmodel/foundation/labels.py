"""Human labels for the names a person reads in charts and tables: the options, the cost terms and the
throughput metrics, with their units. JSON keeps the code names (``copy_delay_usd``); a page shows
"copy delay (USD)". One table, so every chart and table says the same words."""
from __future__ import annotations

#: Short name of each option, as a chart axis or a table header shows it.
OPTION_LABELS: dict[str, str] = {
    "cross_region": "cross-region",
    "replicate": "replicate",
    "wait": "wait for GPUs",
}

#: One line per option, as the first screen says what to do.
OPTION_ACTIONS: dict[str, str] = {
    "cross_region": "Train in the remote region and read the dataset across regions through the prefetching cache",
    "replicate": "Copy the dataset to the GPU region and keep the replica in sync",
    "wait": "Wait for GPUs in the region that holds the data",
}

#: Cost terms whose code name does not read as words once ``_usd`` is removed.
_TERM_LABELS: dict[str, str] = {
    "transfer_usd": "cross-region transfer",
    "warmup_usd": "warm-up (cluster time)",
    "slowdown_usd": "steady slowdown (cluster time)",
    "cache_usd": "cache",
    "path_processing_usd": "NAT / path processing",
    "requests_usd": "requests",
    "inter_az_usd": "inter-AZ transfer",
    "initial_copy_usd": "initial copy",
    "storage_usd": "replica storage",
    "sync_usd": "replica sync transfer",
    "ops_usd": "operations",
    "versioning_usd": "versioning",
    "copy_delay_usd": "copy delay (cluster time)",
    "delay_usd": "delay (cluster time)",
    "gpu_premium_usd": "GPU price premium",
}

#: Throughput metrics as words with their unit.
_METRIC_LABELS: dict[str, str] = {
    "samples_per_s": "throughput (samples/s)",
    "tokens_per_s": "throughput (tokens/s)",
    "step_time_s": "step time (s)",
    "read_bytes_per_s": "read rate (B/s)",
    "write_bytes_per_s": "write rate (B/s)",
    "read_iops": "read operations (IOPS)",
    "write_iops": "write operations (IOPS)",
    "read_latency_s": "read latency (s)",
    "gpu_util": "GPU utilisation (fraction)",
    "data_wait_s": "data wait (s)",
    "cache_hit_ratio": "cache hit ratio (fraction)",
    "bytes_read": "bytes read (B)",
}

#: The unit alone of each metric (for sentences: "116.0 samples/s").
METRIC_UNIT_WORDS: dict[str, str] = {
    "samples_per_s": "samples/s",
    "tokens_per_s": "tokens/s",
    "step_time_s": "s per step",
    "read_bytes_per_s": "B/s",
    "read_iops": "IOPS",
}


def option_label(option: str) -> str:
    """``cross_region`` -> ``cross-region (cache)``; an unknown option with its underscores as spaces."""
    return OPTION_LABELS.get(option, str(option).replace("_", " "))


def term_label(term: str) -> str:
    """A cost term as words (``copy_delay_usd`` -> ``copy delay (cluster time)``)."""
    return _TERM_LABELS.get(term, str(term).removesuffix("_usd").replace("_", " "))


def metric_label(metric: str) -> str:
    """A Timeline metric as words with its unit (``samples_per_s`` -> ``throughput (samples/s)``)."""
    return _METRIC_LABELS.get(metric, str(metric).replace("_", " "))


def input_label(key: str) -> str:
    """A scenario input key as words (``cache.steady_slowdown_fraction`` -> ``cache steady slowdown fraction``)."""
    return str(key).replace(".", " ").replace("_", " ")


def duration_words(seconds: float) -> str:
    """A duration a person reads: ``45 s``, ``7.5 min``, ``3.2 h``."""
    s = abs(float(seconds))
    if s < 90:
        return f"{seconds:,.0f} s"
    if s < 90 * 60:
        return f"{seconds / 60:,.1f} min"
    return f"{seconds / 3600:,.1f} h"
