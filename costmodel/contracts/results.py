"""The results the verbs print with ``--json`` and the report writes to ``decision.json``, as models.

One model per result: :class:`FitRecord` (one element of ``costmodel fit --json``), :class:`CompareRecord`,
:class:`CostRecord`, :class:`DecideResult`, :class:`SimulateResult`, :class:`ReportSummary` and
:class:`DecisionRecord` (``decision.json``). Reading a result back (``decide --compare``,
``cost --from-compare``, the report's walk-through) validates it with the same model: the keys in
``READ_REQUIRED`` must be there (null allowed) and every modelled key must have its type; keys a newer
costmodel added are kept (``extra="allow"``). The published JSON Schema (``docs/schema/*.json``) is
stricter: it lists the contract keys (docs/contracts.md) as required and no other key may appear
(``additionalProperties: false``), so a key added to a verb without its model fails the schema test.

The base classes are in :mod:`.base`, the simulate result in :mod:`.simulate_result`, the report's summary in
:mod:`.report_summary` (all named here too).

Units are in the key names (``_s``, ``_usd``, ``_bytes_per_s``, ``_fraction``); ``null`` means not known.
"""
from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from .base import Num as Num
from .base import Obj as Obj
from .base import OpenSection as OpenSection
from .base import Result as Result
from .report_summary import ReportSummary as ReportSummary
from .simulate_result import SimulateResult as SimulateResult


# ------------------------------------------------------------------------------------------------ fit
class RunFit(Result):
    """One run's warm-up and steady-state fit as ``compare`` lists it per side (``colocated[]``, ``remote[]``)."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = (
        "run_id", "role", "metric", "metric_direction", "classification", "evidence", "warmup_end_step",
        "warmup_end_t_s", "warmup_end_index", "steady_mean", "steady_ci_low", "steady_ci_high", "steady_cv",
        "steady_n", "steady_start_step", "curve", "lost_s", "period_steps", "drift_per_1k_steps", "multipass",
        "warnings",
    )
    run_id: str
    classification: str
    role: str = ""
    metric: str = ""
    axis: str = "step"
    n_points: int = Field(0, ge=0)
    metric_direction: Literal["higher_is_better", "lower_is_better"] = "higher_is_better"
    period_steps: Num = None
    drift_per_1k_steps: Num = None
    predicted: bool = False
    warmup_end_step: int | None = None
    warmup_end_t_s: Num = None
    warmup_end_index: int | None = None
    steady_start_step: int | None = None
    steady_start_t_s: Num = None
    warmup_end_decided_by: str | None = None
    warmup_end_step_throughput: int | None = None
    #: which named rule decided (``decided_by``, ``warmup_end_by``), the trace, the rules applied, each one's finding
    rules: Obj = Field(default_factory=dict)
    drift_rel_steady: Num = None
    telemetry: Obj = Field(default_factory=dict)
    stall_split: Obj | None = None
    tail: Obj | None = None
    fast_start: Obj | None = None
    steady_mean: Num = None
    steady_ci_low: Num = None
    steady_ci_high: Num = None
    steady_se: Num = None
    steady_df: int | None = None
    steady_se_10: Num = None
    steady_df_10: int | None = None
    steady_se_lr: Num = None
    steady_df_lr: Num = None
    steady_cv: Num = None
    steady_n: int | None = None
    steady_duration_s: Num = None
    steady_bias_bound: Num = None
    steady_mean_baseline: Num = None
    dip_loss_fraction: Num = None
    cold_mean: Num = None
    warmup_mean: Num = None
    curve: Obj | None = None
    lost_s: Num = None
    lost_work: Num = None
    segments: list[Obj] = Field(default_factory=list)
    steady_aux: dict[str, Num] = Field(default_factory=dict)
    multipass: Obj | None = None
    evidence: Obj = Field(default_factory=dict)
    time_source: str = ""
    format: str = ""
    source: str = ""
    warnings: list[str] = Field(default_factory=list)


class FitRecord(RunFit):
    """One element of ``costmodel fit --json`` (the list): a run's fit plus its job summary (``jobs``)."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = (*RunFit.CONTRACT_KEYS, "jobs")
    jobs: list[JobSummary] = Field(default_factory=list)


# -------------------------------------------------------------------------------------------- compare
class Straggler(OpenSection):
    """One ``stragglers[]`` row of a job summary: a rank slower than the job's median (costmodel.jobs)."""

    rank: int | None = None


class JobSummary(OpenSection):
    """One ``jobs[]`` element (a multi-rank job, costmodel.jobs): the keys the checklist reads are typed."""

    job_id: str = ""
    role: str = ""
    stragglers: list[Straggler] = Field(default_factory=list)
    straggler_lost_fraction: Num = None


class CompareRecord(Result):
    """``costmodel compare --json``: remote / co-located steady throughput, equivalence, warm-up cost."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = (
        "ratio", "ratio_ci_low", "ratio_ci_high", "equivalent", "equivalence", "verdict", "margin",
        "min_detectable_margin", "metric_direction", "remote_extra_warmup_s", "remote_lost_s",
        "steady_slowdown_fraction", "remote_steady_hit_ratio", "pooled", "colocated", "remote", "jobs",
    )
    ratio: Num
    remote_lost_s: Num
    metric: str = ""
    margin: Num = Field(None, gt=0, lt=1)
    metric_direction: Literal["higher_is_better", "lower_is_better"] = "higher_is_better"
    ratio_ci_low: Num = None
    ratio_ci_high: Num = None
    ratio_ci90_low: Num = None
    ratio_ci90_high: Num = None
    equivalent: bool = False
    verdict: str = ""
    p_tost: Num = None
    df: Num = None
    se_log_ratio: Num = None
    steady_slowdown_fraction: Num = None
    remote_extra_warmup_s: Num = None
    remote_extra_warmup_steps: Num = None
    colocated_lost_s: Num = None
    remote_steady_hit_ratio: Num = Field(None, ge=0, le=1)
    remote_steady_read_bytes_per_s: Num = None
    pooled: Obj = Field(default_factory=dict)
    colocated: list[RunFit] = Field(default_factory=list)
    remote: list[RunFit] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    min_detectable_margin: Num = None
    smallest_equivalent_margin: Num = None
    ratio_definition: str = ""
    equivalence: str = ""
    equivalence_direction: str | None = None
    jobs: list[JobSummary] = Field(default_factory=list)
    stall_split: Obj | None = None
    telemetry: Obj | None = None


# ----------------------------------------------------------------------------------------------- cost
class CrossRegionTerms(Result):
    """``options.cross_region.terms`` (USD over the horizon)."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = ("transfer_usd", "warmup_usd", "slowdown_usd", "cache_usd", "path_processing_usd",
                     "requests_usd", "inter_az_usd")
    transfer_usd: float = 0.0
    warmup_usd: float = 0.0
    slowdown_usd: float = 0.0
    cache_usd: float = 0.0
    path_processing_usd: float = 0.0
    requests_usd: float = 0.0
    inter_az_usd: float = 0.0
    cache_capacity_usd: float = 0.0
    checkpoint_writeback_usd: float = 0.0


class ReplicateTerms(Result):
    """``options.replicate.terms`` (USD over the horizon)."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = ("initial_copy_usd", "storage_usd", "sync_usd", "requests_usd", "versioning_usd",
                     "inter_az_usd", "copy_delay_usd")
    initial_copy_usd: float = 0.0
    storage_usd: float = 0.0
    sync_usd: float = 0.0
    ops_usd: float = 0.0
    requests_usd: float = 0.0
    versioning_usd: float = 0.0
    inter_az_usd: float = 0.0
    copy_delay_usd: float = 0.0
    cache_usd: float = 0.0
    cache_capacity_usd: float = 0.0
    filesystem_usd: float = 0.0
    mechanism_usd: float = 0.0


class WaitTerms(Result):
    """``options.wait.terms`` (USD over the horizon)."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = ("delay_usd", "gpu_premium_usd")
    delay_usd: float = 0.0
    gpu_premium_usd: float = 0.0


class CostOption(Result):
    """One option of ``costmodel cost --json``: its total, per month, terms and P5-P95."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = (
        "priced", "not_priced_reason", "total_usd", "per_month_usd", "terms", "p5_usd", "p95_usd")
    total_usd: Num = None
    per_month_usd: Num = None
    terms: dict[str, float] = Field(default_factory=dict)
    terms_per_month_usd: dict[str, float] = Field(default_factory=dict)
    priced: bool = True
    not_priced_reason: str | None = None
    terms_not_priced: dict[str, str] = Field(default_factory=dict)
    p5_usd: Num = None
    p95_usd: Num = None


class CrossRegionOption(CostOption):
    terms: CrossRegionTerms = Field(default_factory=CrossRegionTerms)  # type: ignore[assignment]


class ReplicateOption(CostOption):
    terms: ReplicateTerms = Field(default_factory=ReplicateTerms)  # type: ignore[assignment]


class WaitOption(CostOption):
    terms: WaitTerms = Field(default_factory=WaitTerms)  # type: ignore[assignment]


class CostOptions(Result):
    """``options``: the three options, priced or with why not."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = ("cross_region", "replicate", "wait")
    cross_region: CrossRegionOption = Field(default_factory=CrossRegionOption)
    replicate: ReplicateOption = Field(default_factory=ReplicateOption)
    wait: WaitOption = Field(default_factory=WaitOption)


class ConsistencyCheck(Result):
    """One ``consistency[]`` row: a stated value against what the other inputs imply."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = ("check", "keys", "stated", "implied", "severity")
    check: str
    keys: list[str] = Field(default_factory=list)
    stated: Any = None
    implied: Any = None
    severity: str = ""
    message: str = ""


class PriceUsed(Result):
    """One ``prices_used[]`` row: the price, where it came from, its date and age."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = ("key", "source", "as_of", "unit", "age_days")
    key: str
    source: str = ""
    as_of: str | None = None
    unit: str = ""
    age_days: int | None = None
    usd: Num = None
    usd_used: Num = None
    verified: bool | None = None
    verified_how: str = ""
    provider: str = ""
    item: str = ""
    src_region: str = ""
    dst_region: str = ""
    notes: str = ""
    file: str = ""
    line: int | None = None
    tier_start: Num = None
    tier_end: Num = None
    bytes_per_unit: Num = None
    ref: str = ""
    multiplier: Num = None
    tiers: list[Obj] | None = None


class DatasetValues(OpenSection):
    """``inputs.values.dataset`` (the keys the checklist reads typed; the scenario's others kept)."""

    size_gb: Num = None
    working_set_fraction: Num = None


class TrainingValues(OpenSection):
    """``inputs.values.training``."""

    epochs_per_run: Num = None
    runs_per_month: Num = None
    run_hours: Num = None
    cluster_usd_per_hour: Num = None


class CacheValues(OpenSection):
    """``inputs.values.cache``."""

    steady_hit_ratio: Num = None
    capacity_gb: Num = None
    cold_starts_per_month: Num = None
    warmup_lost_s: Num = None


class LinkValues(OpenSection):
    """``inputs.values.link``."""

    bandwidth_gbps: Num = None


class ScenarioValues(OpenSection):
    """``inputs.values``: the resolved scenario, nested as in the YAML (point values; docs/cost.md lists
    every key). Typed where the checklist's evidence reads it; every other key is kept as written."""

    transfer_budget_usd_per_month: Num = None
    dataset: DatasetValues = Field(default_factory=DatasetValues)
    training: TrainingValues = Field(default_factory=TrainingValues)
    cache: CacheValues = Field(default_factory=CacheValues)
    link: LinkValues = Field(default_factory=LinkValues)


class CostInputs(Result):
    """``inputs``: the resolved scenario (nested values as in the YAML), provenance and distributions."""

    source: str = ""
    name: str = ""
    today: str = ""
    values: ScenarioValues = Field(default_factory=ScenarioValues)
    provenance: dict[str, Obj] = Field(default_factory=dict)
    distributions: dict[str, Obj] = Field(default_factory=dict)
    missing: list[str] = Field(default_factory=list)
    derived_keys: list[str] = Field(default_factory=list)


class MonteCarloSummary(Result):
    """``monte_carlo`` (with ``--monte-carlo N``): draws, seed, the uncertain inputs, each option's chance of
    being cheapest and its P5/P50/P95/mean total (USD over the horizon)."""

    n: int = Field(0, ge=0)
    seed: int | None = None
    uncertain_inputs: list[str] = Field(default_factory=list)
    p_cheapest: dict[str, Num] = Field(default_factory=dict)
    p5: dict[str, Num] = Field(default_factory=dict)
    p50: dict[str, Num] = Field(default_factory=dict)
    p95: dict[str, Num] = Field(default_factory=dict)
    mean: dict[str, Num] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    measured_inputs: list[str] = Field(default_factory=list)
    default_ranges: dict[str, dict[str, Num]] = Field(default_factory=dict)
    byte_cases: list[str] = Field(default_factory=list)
    any_priced: bool = True


class DerivedFigures(OpenSection):
    """``derived``: the figures the cost model derives from the scenario (units in the names; every value a
    number or null). Typed where the checklist's evidence reads it."""

    __pydantic_extra__: dict[str, Num] = Field(init=False)
    working_set_gb: Num = None
    training_hours_per_month: Num = None
    warm_epochs_per_month: Num = None
    cross_region_transfer_usd_per_month: Num = None


class ReplacedValue(Result):
    """One scenario value a measurement replaced (``scenario_figures.replaced``)."""

    scenario: Num = None
    measured: Num = None
    source: str | None = None


class ScenarioFigures(Result):
    """``scenario_figures`` of a cost result whose scenario took measured values (``--from-compare``, the
    report): the values replaced and the totals with the scenario's own values instead (USD over the horizon)."""

    replaced: dict[str, ReplacedValue] = Field(default_factory=dict)
    totals_usd: dict[str, Num] = Field(default_factory=dict)
    cheapest: str | None = None
    margin_usd: Num = None
    note: str = ""


class CostRecord(Result):
    """``costmodel cost --json``: three options priced over ``horizon_months``, break-even, sensitivity,
    Monte Carlo and the inputs with their provenance."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = (
        "horizon_months", "options", "cheapest", "ranking", "margin_usd", "robust", "robust_reason",
        "headline_basis", "consistency", "break_even", "sensitivity", "prices_used", "inputs", "warnings",
    )
    options: CostOptions
    horizon_months: float = Field(gt=0)
    headline_basis: str = "expected_value"
    cheapest: str | None = None
    margin_usd: Num = None
    robust: bool | None = None
    robust_reason: str | None = None
    p_cheapest: dict[str, float] | None = None
    ranking: list[str] = Field(default_factory=list)
    headline_range: Obj = Field(default_factory=dict)
    consistency: list[ConsistencyCheck] = Field(default_factory=list)
    break_even: dict[str, Obj] = Field(default_factory=dict)
    wait_break_even: Obj | None = None
    monte_carlo: MonteCarloSummary | None = None
    sensitivity: list[Obj] = Field(default_factory=list)
    derived: DerivedFigures = Field(default_factory=DerivedFigures)
    prices_used: list[PriceUsed] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    inputs: CostInputs = Field(default_factory=CostInputs)
    #: with measurements applied: what the scenario's own values give (costmodel.cost.measured)
    scenario_figures: ScenarioFigures | None = None
    #: the one byte model (costmodel.cost.crossing): every estimate of the bytes that cross, the one priced
    cross_region_bytes: Obj | None = None
    #: which option to take, by how much, how likely, what flips it (costmodel.cost.verdict)
    verdict: Obj | None = None
    #: terms left out with an order-of-magnitude bound each
    not_modelled: list[Obj] = Field(default_factory=list)
    #: the verdict under each GPU purchase option the scenario prices
    purchase_options: list[Obj] = Field(default_factory=list)
    #: the one answer (option, margin, basis, deciding assumption, confidence statement)
    recommendation: Obj | None = None
    #: every input tagged measured / catalog / stated / default / derived
    assumptions: list[Obj] = Field(default_factory=list)


# --------------------------------------------------------------------------------------------- decide
Answer = Literal["yes", "no", "unknown"]


class ChecklistItemResult(Result):
    """One ``items[]`` row of ``costmodel decide --json``."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = (
        "id", "question", "answer", "proposed", "evidence", "note", "overrides_evidence", "severity")
    id: str
    question: str = ""
    why: str = ""
    severity: Literal["blocker", "warning"] = "blocker"
    answer: Answer = "unknown"
    source: str = ""
    person_answer: str | None = None
    note: str = ""
    proposed: Answer = "unknown"
    evidence: Obj = Field(default_factory=dict)
    overrides_evidence: bool = False
    status: Literal["ok", "blocker", "condition"] = "ok"
    condition: str = ""
    problem: str = ""


class DecideResult(Result):
    """``costmodel decide --json``: the verdict, every item, blockers, conditions and counts."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = ("verdict", "items", "blockers", "conditions", "counts", "reasons")
    verdict: Literal["GO", "CONDITIONAL", "NO_GO"]
    blockers: list[Obj] = Field(default_factory=list)
    conditions: list[Obj] = Field(default_factory=list)
    reasons: list[str] = Field(default_factory=list)
    counts: dict[str, int] = Field(default_factory=dict)
    problems: list[Any] = Field(default_factory=list)
    items: list[ChecklistItemResult] = Field(default_factory=list)
    adr_path: str | None = None
    superseded_adr_path: str | None = None


# --------------------------------------------------------------------------------------------- report
class InputFileRecord(Result):
    """One input file of a report with its SHA-256."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = ("role", "path", "sha256", "size_bytes")
    role: str
    path: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    size_bytes: int = Field(ge=0)
    format: str = ""
    run_ids: list[str] = Field(default_factory=list)
    predicted: bool = False
    job_id: str = ""


class ReportInputs(Result):
    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = ("files", "parameters")
    files: list[InputFileRecord] = Field(default_factory=list)
    parameters: Obj = Field(default_factory=dict)


class RunRecord(Result):
    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = ("run_id", "role", "format", "source", "rows", "predicted")
    run_id: str
    role: str = ""
    format: str = ""
    source: str = ""
    rows: int = Field(0, ge=0)
    predicted: bool = False


DECISION_SCHEMA = "costmodel.decision/1"


class DecisionRecord(Result):
    """``decision.json`` beside a report: the same ``fit``, ``compare``, ``cost`` and ``checklist``
    (``decide``) objects as the verbs print for the same inputs, plus the inputs with their SHA-256."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = (
        "schema", "costmodel_version", "title", "verdict", "inputs", "runs", "fit", "compare",
                     "jobs", "cost", "checklist")
    schema_: str = Field(DECISION_SCHEMA, alias="schema")
    costmodel_version: str = ""
    title: str = ""
    verdict: str | None = None
    inputs: ReportInputs = Field(default_factory=ReportInputs)
    runs: list[RunRecord] = Field(default_factory=list)
    fit: list[FitRecord] = Field(default_factory=list)
    fit_left_out: list[str] = Field(default_factory=list)
    compare: CompareRecord | None = None
    jobs: list[JobSummary] = Field(default_factory=list)
    cost: CostRecord | None = None
    checklist: DecideResult
    #: with ``costmodel report --placement FILE``, what ``costmodel place FILE --json`` prints (schema: place)
    placement: Obj | None = None
    #: the one answer (option, margin, basis, deciding assumption, confidence statement) that the page and
    #: the ADR state (costmodel.checklist.answer.one_answer)
    recommendation: Obj | None = None


#: Keys a result read back must carry (null allowed): how ``decide`` and ``cost --from-compare`` tell the
#: verbs' outputs apart. They are the required fields of the models above.
READ_REQUIRED: dict[str, tuple[str, ...]] = {
    "compare": ("ratio", "remote_lost_s"),
    "cost": ("options", "horizon_months"),
    "fit": ("run_id", "classification"),
}
RESULT_MODELS: dict[str, type[Result]] = {"compare": CompareRecord, "cost": CostRecord, "fit": FitRecord}
