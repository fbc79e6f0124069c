"""The checklist's item catalogue: every go/no-go question, its severity and condition, and the
thresholds the automatic evidence applies (documented in docs/checklist.md).

Every item is phrased so that ``yes`` is the favourable answer.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..foundation.errors import ChecklistError
from ..foundation.fields_json import FieldsJson, JsonKeys

ANSWERS: tuple[str, ...] = ("yes", "no", "unknown")


@dataclass(frozen=True)
class Answer(FieldsJson):
    """A person's answer to one item: ``yes`` / ``no`` / ``unknown`` plus a note."""

    item_id: str
    answer: str
    note: str = ""

    JSON = JsonKeys(exclude=("item_id",))
SEVERITIES: tuple[str, ...] = ("blocker", "warning")
VERDICTS: tuple[str, ...] = ("GO", "CONDITIONAL", "NO_GO")

# Thresholds used by the automatic evidence (documented in the README).
MIN_HIT_RATIO = 0.80  # steady hit ratio below which re-reading through the cache does not pay
LINK_HEADROOM_MAX_UTILISATION = 0.5  # steady cross-region demand at most half the link
WARMUP_MAX_SHARE = 0.05  # warm-up at most 5 % of training time
CACHE_MIN_HEADROOM = 1.2  # cache capacity at least 1.2 x the working set
MIN_REPETITIONS = 3  # repetitions of each configuration
DIP_MAX_LOSS = 0.01  # recurring drops costing at most 1 % of steady throughput are tolerated
COST_MATERIALITY_FRACTION = 0.01  # cost differences under 1 % of the cluster spend do not decide


@dataclass(frozen=True)
class Item(FieldsJson):
    """One checklist question. ``yes`` is always the favourable answer."""

    id: str
    question: str
    why: str
    severity: str  # "blocker" or "warning"
    condition: str  # what must be done to turn the answer into ``yes``
    automatic: bool  # whether evidence can propose an answer from the data


ITEMS: tuple[Item, ...] = (
    Item(
        "reread_fits_cache",
        "Is the dataset read repeatedly (several epochs or runs) with a high steady cache hit ratio, "
        "and does the cache hold the working set?",
        "The cache only pays when data is re-read: a job reading each sample once, or a working set "
        "larger than the cache, pulls every byte across regions and gains nothing.",
        "blocker",
        "Show repeated reads (epochs x runs > 1), a steady hit ratio of at least 80 % and a cache "
        "that holds the working set.",
        True,
    ),
    Item(
        "network_ready",
        "Does the inter-region network have enough bandwidth, redundant routes and access control?",
        "A single, saturated or open link turns a cache miss into a stalled job or a security finding.",
        "blocker",
        "Confirm link bandwidth, route redundancy and access control with the network team.",
        False,
    ),
    Item(
        "governance_allows",
        "Do data-governance rules allow reading the data from the other region?",
        "Residency or contractual rules can forbid the data (or cached copies of it) leaving its region.",
        "blocker",
        "Get written confirmation from data governance that cross-region reads and caching are allowed.",
        False,
    ),
    Item(
        "cost_favourable",
        "Does cross-region (transfer, warm-up and slowdown) cost no more than copying, syncing and "
        f"maintaining a replica, or more by under {COST_MATERIALITY_FRACTION * 100:g} % of the GPU cluster spend?",
        "If a replica is materially cheaper over the horizon, the cache architecture has no cost case; a "
        "difference that is noise against the cluster bill does not decide.",
        "blocker",
        "Rerun the cost model with measured inputs; cross-region must cost less than replicating.",
        True,
    ),
    Item(
        "failure_recovery",
        "When storage or the network is unavailable, does training retry, pause and resume cleanly?",
        "A cross-region path adds failure modes; a job that crashes instead of pausing wastes cluster hours.",
        "blocker",
        "Test an outage of the link and the storage: training must retry, pause and resume from state.",
        False,
    ),
    Item(
        "states_covered",
        "Did the benchmarks cover cold start, steady state and cache invalidation?",
        "The published validation shows warm-up and steady state only; invalidation (dataset change, "
        "eviction, node replacement) is when the cross-region path is hit hardest.",
        "warning",
        "Benchmark the missing states (for invalidation: change or evict the cache mid-run and measure).",
        True,
    ),
    Item(
        "checkpoints_independent",
        "Are checkpoints persisted independently and reliably, not through the cross-region path?",
        "Checkpoints written through the cache or across regions are slow and can be lost with it.",
        "blocker",
        "Write checkpoints to storage local to the training region (or replicated), not via the cache.",
        False,
    ),
    Item(
        "throughput_equivalent",
        "Does the remote cluster reach the co-located cluster's steady throughput (equivalent at the margin)?",
        "A steady slowdown is paid for every training hour, not only at warm-up.",
        "warning",
        "Show steady-state equivalence (TOST) at the margin, or price the slowdown in the cost model.",
        True,
    ),
    Item(
        "steady_after_warmup",
        "After warm-up, does the remote run stay steady (no recurring drops from origin re-fetches, "
        f"eviction or a slowdown costing over {DIP_MAX_LOSS * 100:g} % of throughput)?",
        "Periodic fetches from the origin after the cache settled mean the working set does not stay cached: "
        "the cross-region path is on the critical path for the whole run.",
        "warning",
        "Find the cause of the drops (cache size, eviction policy, prefetch depth) and measure again.",
        True,
    ),
    Item(
        "repetitions",
        f"Was each configuration repeated at least {MIN_REPETITIONS} times?",
        "One run per side cannot separate the architecture from run-to-run variance.",
        "warning",
        f"Repeat each configuration at least {MIN_REPETITIONS} times with the same files, instances and concurrency.",
        True,
    ),
    Item(
        "link_headroom",
        f"Does the steady cross-region read rate use at most {LINK_HEADROOM_MAX_UTILISATION * 100:g} % of the "
        "link's bandwidth?",
        "Without headroom, a burst of misses, a second job or a cold start saturates the link and stalls GPUs.",
        "warning",
        "Measure the steady read rate and hit ratio, and get a link with at least 2x the cross-region demand.",
        True,
    ),
    Item(
        "warmup_share",
        f"Is the cache warm-up at most {WARMUP_MAX_SHARE * 100:g} % of training time?",
        "A warm-up of minutes is noise for a multi-day run but a real cost for short, frequent runs.",
        "warning",
        "Keep the cache warm between runs, or run longer jobs, so warm-up stays a small share.",
        True,
    ),
    Item(
        "cache_headroom",
        f"Is the cache capacity at least {CACHE_MIN_HEADROOM:g}x the working set?",
        "A cache that only just holds the working set evicts under churn or growth and refetches across regions.",
        "warning",
        "Size the cache with room for growth and churn (state `cache.capacity_gb` in the scenario).",
        True,
    ),
    Item(
        "transfer_budget",
        "Does the monthly cross-region transfer bill stay within the transfer budget?",
        "An unbudgeted transfer bill is the finding that stops a working architecture in review.",
        "warning",
        "Agree a monthly transfer budget (`transfer_budget_usd_per_month` in the scenario) that covers the bill.",
        True,
    ),
)

ITEM_IDS: tuple[str, ...] = tuple(i.id for i in ITEMS)
_BY_ID: dict[str, Item] = {i.id: i for i in ITEMS}


def get_item(item_id: str) -> Item:
    """The catalogue item ``item_id``; ChecklistError (with the closest id) when unknown."""
    try:
        return _BY_ID[item_id]
    except KeyError:
        raise ChecklistError(f"unknown checklist item {item_id!r}{_suggest(item_id)}") from None


def _suggest(item_id: str) -> str:
    from ..contracts.errors import did_you_mean

    hint = did_you_mean(str(item_id), ITEM_IDS, cutoff=0.5, paren=True)
    if hint:
        return hint
    return f" (known items: {', '.join(ITEM_IDS)})"
