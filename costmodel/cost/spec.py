"""The scenario's keys: units, allowed ranges, defaults, and which ones prices or measurements fill.

Sizes are decimal GB (10^9 bytes); a price key ending ``_usd_per_gb`` is per 10^9 bytes and may be written
``..._usd_per_gib`` (per 2^30 bytes) instead, which is converted exactly (x 10^9 / 2^30). Money USD, time in the unit
its key names (``_s``, ``_hours``,
``_months``). Only the keys listed here are accepted (plus ``name``, ``notes`` and the ``workload:``
section, which belongs to the simulator and is passed through untouched).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

INF = math.inf


@dataclass(frozen=True)
class Param:
    """One numeric scenario key: ``lo <= value <= hi`` (``lo_open``: strictly above ``lo``)."""

    key: str
    unit: str
    lo: float = 0.0
    hi: float = INF
    lo_open: bool = False
    hi_open: bool = False
    required: bool = False
    default: float | None = None
    fill: str | None = None  # "transfer", "storage", "instance", "sync" (price tables) or "measure"
    model: bool = True  # an input of the vectorised cost model
    integer: bool = False
    help: str = ""

    def expected(self) -> str:
        """Human words for the allowed range, e.g. ``a number in 0..1``."""
        if self.integer:
            return f"a whole number >= {self.lo:g}"
        if self.lo == -INF and self.hi == INF:
            return "a number"
        lo = f"> {self.lo:g}" if self.lo_open else f">= {self.lo:g}"
        if self.hi == INF:
            return f"a number {lo} ({self.unit})"
        left = "(" if self.lo_open else "["
        right = ")" if self.hi_open else "]"
        return f"a number in {left}{self.lo:g}, {self.hi:g}{right} ({self.unit})"

    def ok(self, v: float) -> bool:
        if not math.isfinite(v):
            return False
        if v < self.lo or (self.lo_open and v == self.lo):
            return False
        return not (v > self.hi or (self.hi_open and v == self.hi))


PARAMS: tuple[Param, ...] = (
    Param("horizon_months", "months", lo_open=True, required=True, help="months the decision covers"),
    Param("dataset.size_gb", "GB = 10^9 bytes", lo_open=True, required=True,
          help="the whole dataset's bytes on disk (or dataset.tokens x dataset.bytes_per_token)"),
    Param("dataset.monthly_churn_fraction", "fraction of the dataset changed per month", required=True,
          help="rarely measured: one corpus refresh (a new crawl snapshot, re-running dedup or filters, "
               "re-tokenizing) rewrites most of the data, so one stated number is known to a factor of about 3 at "
               "best; the tornado swings it over x/3 to 3x (CHURN_PLAUSIBLE_FACTOR) and the Monte Carlo "
               "over 0 to 2x"),
    Param("dataset.working_set_fraction", "fraction of the dataset one epoch reads", hi=1.0, lo_open=True, default=1.0),
    Param("dataset.objects", "objects (files) in the dataset", default=0.0, fill="objects",
          help="object count; or dataset.mean_object_size_mb; 0: requests not counted"),
    Param("training.runs_per_month", "runs/month", required=True),
    Param("training.epochs_per_run", "epochs/run", required=True, fill="derive",
          help="derived from run_hours x throughput / samples when omitted"),
    Param("training.run_hours", "hours/run", required=True, fill="derive",
          help="wall-clock training hours of one run; derived from epochs x samples / throughput when omitted"),
    Param("training.cluster_usd_per_hour", "USD/hour for the whole cluster", required=True, fill="instance"),
    Param("training.interruptions_per_run", "instance replacements per run (spot interruptions, failures)",
          default=0.0, help="each empties a cache that is not persistent: one more cold start per interruption"),
    Param("link.transfer_usd_per_gb", "USD/GB from the data region to the GPU region", required=True, fill="transfer"),
    Param("link.path_processing_usd_per_gb", "USD/GB processed by the network path (NAT, Transit Gateway, PrivateLink)",
          default=0.0, fill="path"),
    Param("link.inter_az_usd_per_gb", "USD/GB between zones, charged in each direction", default=0.0, fill="inter_az"),
    Param("cache.steady_hit_ratio", "fraction of reads served by the cache once warm", hi=1.0, required=True, fill="measure"),
    Param("cache.cold_starts_per_month", "cold cache fills/month", required=True, fill="derive",
          help="derived from cache.persistence when omitted"),
    Param("cache.warmup_lost_s", "cluster-seconds lost per cold start", required=True, fill="measure"),
    Param("cache.steady_slowdown_fraction", "fraction of training time lost in steady state", hi=1.0, hi_open=True,
          required=True, fill="measure"),
    Param("cache.usd_per_month", "USD/month for cache infrastructure", default=0.0),
    Param("cache.capacity_usd_per_gb_month", "USD per GB-month of the cache tier's capacity (0: instance NVMe, "
          "included in the instance price)", default=0.0,
          help="billed for cache.capacity_gb while the cache exists: the whole month when persistent, else the "
               "training hours"),
    Param("replica.storage_usd_per_gb_month", "USD per GB-month in the GPU region", required=True, fill="storage"),
    Param("replica.sync_extra_usd_per_gb", "USD/GB on top of transfer for syncing (e.g. S3 RTC)", default=0.0, fill="sync"),
    Param("replica.ops_usd_per_month", "USD/month for replication tooling and people", default=0.0),
    Param("replica.mechanism_usd_per_gb", "USD per GB the replication mechanism itself charges for copying "
          "(DataSync, a file system's replication); the transfer is charged on top", default=0.0),
    Param("replica.copy_instance_usd_per_hour", "USD/hour of the instances that copy (replica.mechanism: "
          "instance_copy)", default=0.0),
    Param("replica.filesystem_usd_per_gb_month", "USD per GB-month of a file-system tier holding the replica "
          "(e.g. FSx for Lustre) so training reads POSIX", default=0.0),
    Param("replica.noncurrent_retention_days", "days a non-current (overwritten) object version stays billed",
          fill="derive", help="lifecycle rule NoncurrentVersionExpiration; omitted: kept for the whole horizon. "
                              "A stated number is swung by the tornado up to the horizon (what a missing or "
                              "misconfigured lifecycle rule means), so it is named when that flips the verdict"),
    Param("replica.copy_hours", "hours until the initial copy is usable", fill="derive",
          help="derived from dataset.size_gb / link.bandwidth_gbps when omitted"),
    Param("requests.get_usd_per_1000", "USD per 1000 GET (read) requests", default=0.0, fill="get"),
    Param("requests.put_usd_per_1000", "USD per 1000 PUT/COPY (write) requests", default=0.0, fill="put"),
    Param("requests.batch_replication_usd_per_million", "USD per 1M objects replicated by a batch job (existing objects)",
          default=0.0, fill="batch_objects"),
    Param("requests.batch_job_usd", "USD per batch replication job", default=0.0, fill="batch_job"),
    Param("requests.gets_per_object_read", "GET requests per object read (ranged reads: more than 1)", lo_open=True,
          default=1.0),
    Param("wait.expected_wait_hours_per_run", "hours of waiting per run for GPUs in the data region", default=0.0),
    Param("wait.delay_usd_per_hour", "USD value of one hour of delay", default=0.0),
    Param(
        "wait.cluster_premium_usd_per_hour",
        "USD/hour the cluster costs more in the data region (negative: less)",
        lo=-INF,
        default=0.0,
    ),
    # optional numbers that do not enter the cost formulas directly (validated; consistency checks, checklist)
    Param("transfer_budget_usd_per_month", "USD/month", model=False),
    Param("link.bandwidth_gbps", "Gbit/s = 10^9 bit/s", lo_open=True, model=False),
    Param("replica.mechanism_gbps", "Gbit/s the replication mechanism sustains (copy time = size x 8 / "
          "min(link, this))", lo_open=True, model=False),
    Param("link.rtt_ms", "ms", model=False),
    Param("cache.capacity_gb", "GB = 10^9 bytes", lo_open=True, model=False),
    Param("training.instance_count", "instances", lo=1.0, integer=True, model=False),
    Param("training.samples_per_s", "samples/s of the whole cluster in steady state", lo_open=True, model=False),
    Param("training.batch_samples", "samples per step of the whole cluster (global batch)", lo_open=True, model=False),
    Param("training.cluster_launches_per_month", "new clusters (empty instance stores) per month", model=False),
    Param("dataset.samples", "samples (or sequences) in the dataset", lo_open=True, model=False),
    # GPU purchase options, each the whole cluster's USD/hour on that basis (priced side by side)
    Param("purchase.sagemaker_usd_per_hour", "USD/hour of the cluster as SageMaker / HyperPod ml.* instances",
          model=False),
    Param("purchase.capacity_block_usd_per_hour", "USD/hour of the cluster as an EC2 Capacity Block", model=False),
    Param("purchase.savings_plan_usd_per_hour", "USD/hour of the cluster under a savings plan", model=False),
    Param("purchase.reserved_usd_per_hour", "USD/hour of the cluster as reserved instances", model=False),
    Param("purchase.spot_usd_per_hour", "USD/hour of the cluster on spot", model=False),
    Param("purchase.spot_interruptions_per_run", "spot interruptions per run (each empties a non-persistent cache)",
          model=False),
    Param("training.checkpoint_gb_per_run", "GB of checkpoints a run writes back to the data region", model=False,
          help="priced as cross_region's checkpoint_writeback_usd; else derived from "
               "training.model_parameters x checkpoint_bytes_per_parameter x run_hours / checkpoint_interval_hours"),
    # checkpoint write-back from the model's size, the checkpoint interval and the run length
    Param("training.model_parameters", "parameters of the model (count)", lo_open=True, model=False),
    Param("training.checkpoint_bytes_per_parameter", "bytes a checkpoint stores per parameter (16: mixed-precision "
          "Adam with its full optimizer state; 2: bf16 weights only)", lo_open=True, model=False),
    Param("training.checkpoint_interval_hours", "hours between checkpoints", lo_open=True, model=False),
    # a file system is provisioned in steps, not per byte (FSx for Lustre: 1,200 GiB, then 2,400 GiB steps)
    Param("replica.filesystem_min_gib", "GiB = 2^30 bytes: the smallest file system that can be provisioned",
          lo_open=True, model=False),
    Param("replica.filesystem_step_gib", "GiB = 2^30 bytes: the provisioning step above the minimum", lo_open=True,
          model=False),
    Param("dataset.mean_object_size_mb", "MB = 10^6 bytes per object", lo_open=True, model=False),
    # the dataset's bytes on disk may rest on a token count and an assumed width of a token
    Param("dataset.tokens", "tokens in the dataset", lo_open=True, model=False,
          help="with dataset.bytes_per_token: dataset.size_gb = tokens x bytes_per_token / 10^9 when size_gb is omitted"),
    Param("dataset.bytes_per_token", "bytes per stored token (an assumption unless measured)", lo_open=True,
          model=False, help="2 for a uint16 vocabulary, 4 for int32; the verdict's break-even is printed in it. "
                            "Stated as one number its plausible range is 2-4 (BYTES_PER_TOKEN_PLAUSIBLE: token ids "
                            "are stored as uint16 or int32) widened to include the value; it DECIDES only when the "
                            "flip lies inside that range"),
    # one byte model; measured and billed figures of the bytes that cross (costmodel.cost.crossing)
    Param("cache.read_bytes_per_s", "bytes/s the training reads through the cache in steady state (measured)",
          lo_open=True, model=False, help="from compare remote_steady_read_bytes_per_s; x (1 - hit ratio) crosses"),
    Param("cache.origin_fetch_bytes_per_s", "bytes/s the cache fetches from the origin in steady state (a counter)",
          model=False, help="an origin-fetch counter over a steady window, divided by its seconds"),
    Param("link.billed_gb_per_month", "GB = 10^9 bytes of inter-region transfer a month on the provider's bill",
          model=False, help="the user's billed figure for this workload's traffic (e.g. Cost Explorer, usage type "
                            "DataTransfer-Regional-Bytes / InterRegion)"),
)

#: Optional numbers that are not cost inputs themselves but the sources of derived ones (run_hours from the
#: throughput, copy and cold-fill times from the bandwidth): they may be uncertain (a range or distribution,
#: point value = its mean) and are varied by the Monte Carlo, tornado and break-even; value -> the model's
#: internal input (costmodel.cost.model.follow).
SOURCE_KEYS: dict[str, str] = {"training.samples_per_s": "_samples_per_s", "link.bandwidth_gbps": "_bw_gbps"}

#: Optional numbers that may be a range although no model input follows them while drawing: their spread passes to
#: the model input derived from them once, when the scenario is read (``dataset.bytes_per_token: [2, 4]``
#: makes ``dataset.size_gb = tokens x bytes_per_token / 10^9`` a range of the same kind).
RANGE_SOURCE_KEYS: tuple[str, ...] = ("dataset.bytes_per_token",)

#: The plausible bytes per stored token when ``dataset.bytes_per_token`` is one number: packed token
#: files store ids as uint16 (vocabularies up to 65,536) or int32/uint32 (larger ones, e.g. LLaMA 3's 128,256).
BYTES_PER_TOKEN_PLAUSIBLE: tuple[float, float] = (2.0, 4.0)

#: The tornado's plausible range of ``dataset.monthly_churn_fraction`` stated as one number: x / factor to
#: x * factor (at most 1), see the key's help (the example's 0.10 flips at about 0.25).
CHURN_PLAUSIBLE_FACTOR = 3.0

#: The tornado's plausible range of ``training.epochs_per_run`` stated as one number: x / factor to x * factor
#: (large-model pretraining reads a corpus about once; fine-tuning several times).
EPOCHS_PLAUSIBLE_FACTOR = 3.0

#: The tornado's low end of a stated ``link.bandwidth_gbps`` (an assumption unless measured): x / factor (one
#: TCP stream across a 60 ms link gets about 1 Gbit/s; parallel streams reach the per-instance cap).
BANDWIDTH_PLAUSIBLE_FACTOR = 5.0

#: The lowest plausible cluster price as a share of an on-demand one (``training.purchase_option: on_demand``,
#: no ``purchase.*`` prices given): spot, capacity blocks and 3-year commitments bill GPUs at about 0.4x on demand.
CLUSTER_PRICE_PLAUSIBLE_LOW = 0.4

#: Default ranges of the assumptions: a key stated in the scenario (or with --set) as a single number,
#: not measured and not from a price table, is drawn uniformly over ``value x (1 -/+ half_width)`` (clipped to
#: its allowed range; symmetric, so the draws' mean is the headline's point value). Keys at 0 are swung by the
#: tornado instead (sensitivity.ZERO_HIGH), where a one-sided range cannot move the headline off its mean.
DEFAULT_RANGES: dict[str, float] = {
    "dataset.monthly_churn_fraction": 1.0,  # 0 to 2x: the widest symmetric range (see the key's help)
    "training.runs_per_month": 0.5,
    "training.epochs_per_run": 0.25,
    "training.interruptions_per_run": 0.5,
    "cache.warmup_lost_s": 0.5,
    "cache.steady_slowdown_fraction": 0.5,
    "cache.steady_hit_ratio": 0.25,  # of the miss ratio 1 - h
    "cache.usd_per_month": 0.25,
    "replica.ops_usd_per_month": 0.5,
    # a stated lifecycle rule's spread; no rule at all (versions kept for the horizon) is a case, not a spread: the
    # tornado swings it up to the horizon and names it when it flips the answer (robust is then false), the draws
    # stay symmetric about the stated days so their mean is the headline
    "replica.noncurrent_retention_days": 0.5,
    "replica.copy_hours": 0.5,
    "wait.expected_wait_hours_per_run": 0.5,
    "wait.delay_usd_per_hour": 0.5,
    "link.bandwidth_gbps": 0.5,
}

#: Alternative spellings accepted for a key (alias -> key); the resolved inputs carry both.
ALIASES: dict[str, str] = {"link.bandwidth_gbit_s": "link.bandwidth_gbps"}

PARAM_BY_KEY: dict[str, Param] = {p.key: p for p in PARAMS}
MODEL_KEYS: tuple[str, ...] = tuple(p.key for p in PARAMS if p.model)

# text keys: key -> default (None: optional, no default)
STRINGS: dict[str, str | None] = {
    "name": None,
    "notes": None,
    "training.instance_type": None,
    "prices.provider": None,
    "prices.src_region": None,
    "prices.dst_region": None,
    "prices.storage_item": "s3_standard",
    "prices.dir": None,  # a price folder (e.g. from `costmodel prices import`), relative to the scenario file
    "prices.sync_extra_item": None,  # e.g. s3_rtc_transfer: fills replica.sync_extra_usd_per_gb
    "link.path": None,  # vpc_peering | transit_gateway | nat_gateway | privatelink | internet
    "cache.persistence": None,  # persistent | per_cluster | per_run
    "link.bytes_basis": "auto",
    # how the replica is made and kept in sync: s3_replication (CRR with versioning and batch operations) |
    # datasync | filesystem_replication | instance_copy
    "replica.mechanism": "s3_replication",
    # what training.cluster_usd_per_hour is: on_demand | sagemaker | capacity_block | savings_plan | reserved | spot
    "training.purchase_option": "on_demand",  # which cross-region byte figure is priced: auto | dataset | measured | billed
    # a savings plan <plan>:<term>:<payment> (compute:1yr:no_upfront): fills purchase.savings_plan_usd_per_hour from
    # the price table row <training.instance_type>:savings_plan:<plan>:<term>:<payment>
    "purchase.savings_plan": None,
    # the file system the replica is loaded into; fsx_lustre provisions 1,200 GiB, then steps of 2,400 GiB
    "replica.filesystem": None,
}
#: Text keys whose value must be one of a list.
CHOICES: dict[str, tuple[str, ...]] = {
    "link.path": ("vpc_peering", "transit_gateway", "nat_gateway", "privatelink", "internet"),
    "cache.persistence": ("persistent", "per_cluster", "per_run"),
    "link.bytes_basis": ("auto", "dataset", "measured", "billed", "lru"),
    "replica.mechanism": ("s3_replication", "datasync", "filesystem_replication", "instance_copy"),
    "replica.filesystem": ("fsx_lustre", "other"),
    "training.purchase_option": ("on_demand", "sagemaker", "capacity_block", "savings_plan", "reserved", "spot"),
    "purchase.savings_plan": tuple(f"{plan}:{term}:{pay}" for plan in ("compute", "ec2_instance", "sagemaker")
                                   for term in ("1yr", "3yr") for pay in ("no_upfront", "partial_upfront", "all_upfront")),
}
#: Yes/no keys: key -> default.
BOOLS: dict[str, bool] = {
    "cache.cross_az": False,  # the cache (or file system) is in another zone than the GPUs
    "replica.cross_az": False,  # the replica is in another zone than the GPUs
    "cache.shared": False,  # replicate reads through the same cache: its cache_usd and capacity are charged to both
    "replica.source_versioned": False,  # the source bucket keeps versions anyway (replication adds only the replica's)
    # cross_region writes its checkpoints back to the data region (false: kept in the GPU region)
    "training.checkpoints_to_data_region": True,
}
PASSTHROUGH = ("workload",)
SECTIONS = ("dataset", "training", "link", "cache", "replica", "requests", "wait", "prices", "purchase")


def known_keys() -> list[str]:
    return [p.key for p in PARAMS] + list(STRINGS) + list(BOOLS) + list(ALIASES)


def section_keys(section: str) -> list[str]:
    """Leaf names allowed in ``section`` ('' for the top level)."""
    out = []
    for k in known_keys():
        head, _, leaf = k.rpartition(".")
        if head == section:
            out.append(leaf)
    if section == "":
        out += list(SECTIONS) + list(PASSTHROUGH)
    return out


# units people write instead of ours (size in GB, time in s, link speed in Gbit/s): the package's one unit table
from ..foundation.units import unit_dimension as unit_dimension  # noqa: E402
