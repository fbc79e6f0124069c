"""The simulator: predict a run's Timeline from a ``workload:`` description.

``simulate(scenario_or_dict, seed=0) -> SimulationResult``: generate the block-access trace
(:mod:`.trace`), run the cache policy over it (:mod:`.cache`), time each step (:mod:`.model`) and read
the result (:mod:`.summary`). The runs are ordinary Timeline :class:`~costmodel.foundation.schema.Run` objects with
``metadata["predicted"] = True``, so ``fit``, ``compare``, ``cost`` and ``report`` take them like measured
runs. Deterministic: the same workload and seed give the same numbers.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..foundation.fields_json import FieldsJson, JsonKeys
from ..foundation.schema import Run, to_timeline
from .cache import CacheOutcome, PredictiveInputs, predictive_inputs, run_policy
from .model import colocated_io, prefetch_in_time_fraction, step_io, step_timeline
from .summary import summarise_run, warmup_end_step
from .trace import Layout, RunTrace, build_layout, build_run_trace
from .workload import (
    Workload,
    apply_overrides,
    check_override_keys,
    load_workload_doc,
    parse_workload,
)

FORMAT = "simulate"

NOT_MODELLED = [
    "network jitter, packet loss and link outages (the link is a constant RTT and bandwidth)",
    ("contention between demand reads and prefetches for streams (the prefetcher has streams of its own; "
    "they share only the bandwidth)"),
    "the origin's own caches and throughput limits beyond origin_latency_s and the link bandwidth",
    "client page cache on top of the modelled cache, file-open and metadata costs, checkpoint writes",
    "how a real predictor learns: its coverage ramp (learning_steps, ramp_steps) and accuracy are inputs",
    "GPU-side variation beyond compute_cv (no stragglers, no collective-communication stalls)",
]


@dataclass
class SimulationResult(FieldsJson):
    """Predicted runs and their summary.

    ``runs``: one Timeline Run per simulated run (``role`` from the workload, ``metadata["predicted"]``
    True), plus the co-located baseline when ``simulation.with_colocated`` is set.
    ``summary``: keys of the first run (``warmup_end_step``, ``steady_samples_per_s``,
    ``steady_hit_ratio``, ``cross_region_bytes_per_epoch``, ``cross_region_bytes_per_run``, ...);
    ``per_run``: the same for every run; ``assumptions``: the model's stated assumptions.
    """

    workload: Workload
    seed: int
    runs: list[Run]
    summary: dict[str, Any]
    per_run: list[dict[str, Any]]
    assumptions: list[str]
    not_modelled: list[str] = field(default_factory=lambda: list(NOT_MODELLED))
    colocated: Run | None = None
    source: str = "<dict>"

    JSON = JsonKeys(keys=("**summary", "predicted", "seed", "source", "workload", "per_run", "assumptions",
                          "not_modelled", "runs"))

    @property
    def predicted(self) -> bool:
        """Always True: every run of a simulation is a prediction."""
        return True

    def scenario_overrides(self) -> dict[str, Any]:
        """Measured-style inputs for the cost scenario's ``cache:`` section, from this prediction."""
        out = {"cache.steady_hit_ratio": round(float(self.summary["steady_hit_ratio"]), 6)}
        if "warmup_lost_s" in self.summary:
            out["cache.warmup_lost_s"] = round(float(self.summary["warmup_lost_s"]), 3)
            out["cache.steady_slowdown_fraction"] = round(float(self.summary["steady_slowdown_fraction"]), 6)
        return out


def _assumptions(w: Workload, in_time: float) -> list[str]:
    a = [
        f"dataset: {w.dataset.samples:,} samples of {w.dataset.sample_bytes:,.0f} bytes"
        + (f" (lognormal sigma {w.dataset.sample_bytes_sigma})" if w.dataset.sample_bytes_sigma else " each")
        + f" in {w.dataset.files:,} files, {w.dataset.block_bytes}-byte blocks, files block-aligned",
        (f"access: {w.access.pattern}, {w.access.epochs:g} epoch(s) per run; {w.step.samples_per_step} samples "
        f"per step ({w.bytes_per_step:,.0f} bytes), {w.steps_per_run:,} steps per run"),
        (f"compute {w.step.compute_s:g} s per step (cv {w.step.compute_cv:g}); the loader prepares batches one "
        f"after another, {w.step.prefetch_depth} ahead, with min(loader_workers={w.step.loader_workers}, "
        f"parallel_streams={w.link.parallel_streams}) reads in flight"),
        (f"link: RTT {w.link.rtt_s * 1e3:g} ms + origin latency {w.link.origin_latency_s * 1e3:g} ms per request, "
        f"{w.link.bandwidth_bytes_per_s / 1e9:g} GB/s shared by demand misses and prefetches; requests of at "
        f"most {w.link.request_bytes:,} bytes; whole blocks cross the link"),
        (f"local cache reads: {w.local.read_latency_s * 1e3:g} ms per request, "
        f"{w.local.read_bytes_per_s / 1e9:g} GB/s"),
        (f"cache: {w.cache.policy}, {w.cache.capacity_bytes:,.0f} bytes ({w.capacity_blocks:,} blocks), "
        f"{'survives' if w.cache.survives_between_runs else 'is emptied'} between runs; policies are run "
        "access by access over the generated trace"),
    ]
    if w.cache.policy == "predictive":
        p = w.cache.prefetch
        a.append(
            f"predictive prefetcher: accuracy {p.accuracy:g} (wrong predictions fetch a random block), "
            f"{p.lookahead_steps} step(s) ahead, observes {p.learning_steps} steps then ramps coverage over "
            f"{p.ramp_steps} steps; {in_time:.0%} of predictions arrive in time (closed form in "
            "costmodel.simulate.model.prefetch_in_time_fraction), late ones count as not predicted")
    a.append("a co-located run reads every block from the origin storage with no RTT and no cache")
    if w.simulation.invalidate_at_steps:
        a.append(f"the cache is emptied before step(s) {', '.join(map(str, w.simulation.invalidate_at_steps))} "
                 "of each run (invalidation); the predictor keeps what it learned")
    a.append(
        "when only the first steps of a run are simulated (simulation.max_steps / max_block_accesses), the "
        "rest of that epoch crosses the link at the simulated steady per-step rate, and later epochs cross "
        "nothing if the cache holds the whole dataset, else the same rate (flagged extrapolated)")
    return a


@dataclass
class _Traces:
    """The link-independent part of a simulation: the layout, every run's demand trace and the arrays the
    cache policy reads (block ids, step and run starts), plus the predictor's draws over them, computed once."""

    layout: Layout
    traces: list[RunTrace]
    blocks: np.ndarray
    steps_each: list[int]
    step_offset: np.ndarray
    step_start: np.ndarray
    acc_counts: np.ndarray
    run_starts: np.ndarray
    _predictive: PredictiveInputs | None = None
    #: the cache policy's outcome over these traces, by every other input of :func:`run_policy` (the cache, the
    #: prefetcher and the share of its predictions in time): links that differ only in what the policy does not
    #: see (most links, when every prediction arrives in time) share one run of the policy
    outcomes: dict[tuple[Any, ...], CacheOutcome] = field(default_factory=dict)

    def predictive(self, seed: int) -> PredictiveInputs:
        if self._predictive is None:
            self._predictive = predictive_inputs(self.blocks, self.layout.total_blocks, seed)
        return self._predictive


#: The last workload's traces, by everything they depend on (the dataset, access pattern, samples per step,
#: simulation limits and seed; not the link, the cache or the timing): a placement predicts one workload over
#: several links, and each prediction would otherwise regenerate the same traces. One entry, so memory stays
#: that of one simulation.
_TRACE_MEMO: dict[tuple[Any, ...], _Traces] = {}


def _traces(w: Workload, seed: int) -> _Traces:
    key = (w.dataset, w.access, w.step.samples_per_step, w.simulation, seed)
    hit = _TRACE_MEMO.get(key)
    if hit is not None:
        return hit
    layout = build_layout(w, seed)
    traces = [build_run_trace(w, layout, seed, r) for r in range(w.simulation.runs)]
    steps_each = [t.steps_simulated for t in traces]
    step_offset = np.concatenate([[0], np.cumsum(steps_each)[:-1]]).astype(np.int64)
    blocks = np.concatenate([t.blocks for t in traces])
    step_start = np.concatenate([t.step_start[:-1] + a for t, a in zip(traces, np.concatenate(
        [[0], np.cumsum([len(t.blocks) for t in traces])[:-1]]), strict=False)] + [[len(blocks)]]).astype(np.int64)
    acc_counts = np.array([len(t.blocks) for t in traces], dtype=np.int64)
    run_starts = np.concatenate([[0], np.cumsum(acc_counts)[:-1]]).astype(np.int64)
    out = _Traces(layout, traces, blocks, steps_each, step_offset, step_start, acc_counts, run_starts)
    _TRACE_MEMO.clear()
    _TRACE_MEMO[key] = out
    return out


def simulate(scenario_or_dict: str | os.PathLike[str] | Mapping[str, Any], seed: int = 0, *,
             overrides: Mapping[str, Any] | None = None) -> SimulationResult:
    """Simulate the ``workload:`` of a scenario (a YAML path, a scenario mapping, or the workload mapping).

    ``overrides``: dotted key paths applied before validation (``{"workload.link.rtt_s": 0.1}``).
    Raises :class:`~costmodel.foundation.errors.SimulateError` naming the key for invalid input.
    Cost: O(block accesses) with the compiled LRU kernel, plus O(steps) for timing.
    """
    doc, source = load_workload_doc(scenario_or_dict)
    check_override_keys(doc, overrides)
    doc = apply_overrides(doc, overrides)
    w = parse_workload(doc["workload"], scenario=doc)
    seed = int(seed)
    in_time = prefetch_in_time_fraction(w)
    n_runs = w.simulation.runs
    tr_all = _traces(w, seed)
    layout, traces, blocks = tr_all.layout, tr_all.traces, tr_all.blocks
    steps_each, step_offset, step_start = tr_all.steps_each, tr_all.step_offset, tr_all.step_start
    acc_counts, run_starts = tr_all.acc_counts, tr_all.run_starts
    learn_offset = None
    if w.cache.policy == "predictive" and not w.cache.survives_between_runs:
        learn_offset = np.repeat(step_offset, steps_each)
    p = w.cache.prefetch
    invalidate = np.array([off + k for off, n_s in zip(step_offset, steps_each, strict=False)
                           for k in w.simulation.invalidate_at_steps if k < n_s], dtype=np.int64)
    policy_key = (w.cache.policy, w.capacity_blocks, w.cache.survives_between_runs, p.accuracy, in_time,
                  p.lookahead_steps, p.learning_steps, p.ramp_steps, seed, tuple(invalidate.tolist()))
    outcome = tr_all.outcomes.get(policy_key)
    if outcome is None:
        outcome = run_policy(
            w.cache.policy, blocks, None, w.capacity_blocks, total_blocks=layout.total_blocks, step_start=step_start,
            run_starts=run_starts, reset_between_runs=not w.cache.survives_between_runs,
            accuracy=p.accuracy, coverage_scale=in_time, lookahead_steps=p.lookahead_steps,
            learning_steps=p.learning_steps, ramp_steps=p.ramp_steps, learn_step_offset=learn_offset, seed=seed,
            invalidate_steps=invalidate, prepared=tr_all.predictive(seed) if w.cache.policy == "predictive" else None)
        tr_all.outcomes[policy_key] = outcome
    pf_by_step = np.zeros(int(sum(steps_each)), dtype=np.int64)
    pf_by_step[: len(outcome.prefetch_by_step)] = outcome.prefetch_by_step
    runs: list[Run] = []
    per_run: list[dict[str, Any]] = []
    colocated_run: Run | None = None
    for r, tr in enumerate(traces):
        a0, a1 = run_starts[r], run_starts[r] + acc_counts[r]
        s0, s1 = step_offset[r], step_offset[r] + steps_each[r]
        io = step_io(w, outcome.hit[a0:a1], tr.block_counts, tr.sample_bytes, pf_by_step[s0:s1], steps_each[r])
        table = step_timeline(w, io, seed=seed, run=r)
        co_table = step_timeline(w, colocated_io(io), rtt_s=0.0, seed=seed, run=r)
        epoch = (np.arange(steps_each[r]) * w.step.samples_per_step) // w.dataset.samples
        table["epoch"] = epoch.astype(np.float64)
        co_table["epoch"] = epoch.astype(np.float64)
        run_id = f"{w.name}-predicted" + (f"-run{r + 1}" if n_runs > 1 else "")
        meta = {
            "predicted": True, "simulator": "costmodel.simulate", "seed": seed, "run_index": r,
            "workload_name": w.name,
            "source": source, "cache_policy": w.cache.policy, "access_pattern": w.access.pattern,
            "link_rtt_s": w.link.rtt_s, "truncated": tr.truncated, "steps_per_run": w.steps_per_run,
        }
        run = Run(run_id=run_id, table=to_timeline(table, run_id, w.role), format=FORMAT, source=source,
                  role=w.role, metadata=meta)
        wu, method = warmup_end_step(run)
        s = summarise_run(run.table, wu, steps_per_run=w.steps_per_run, epochs=w.access.epochs,
                          truncated=tr.truncated, colocated=co_table,
                          edge_steps=p.lookahead_steps if w.cache.policy == "predictive" else 0,
                          dataset_samples=w.dataset.samples,
                          cache_holds_dataset=w.cache.policy != "none" and w.capacity_blocks >= layout.total_blocks,
                          dataset_bytes=float(layout.total_blocks) * w.dataset.block_bytes)
        s["warmup_method"] = "epoch rule (periodic series)" if s["warmup_by_epoch"] else method
        s["run_id"] = run_id
        if method != "rule":
            from .summary import settle_index
            s["warmup_end_step_rule"] = int(settle_index(run.table["samples_per_s"].to_numpy()))
        else:
            s["warmup_end_step_rule"] = wu
        if r == 0:
            s["prefetch_in_time_fraction"] = in_time
            s["prefetched_blocks"] = outcome.prefetch_fetched
            s["prefetched_blocks_used"] = outcome.prefetch_useful
            s["block_accesses_simulated"] = len(blocks)
        run.metadata["summary"] = {k: v for k, v in s.items() if isinstance(v, (int, float, str, bool))}
        runs.append(run)
        per_run.append(s)
        if r == 0:
            co_id = f"{w.name}-predicted-colocated"
            colocated_run = Run(run_id=co_id, table=to_timeline(co_table, co_id, "colocated"), format=FORMAT,
                                source=source, role="colocated",
                                metadata={"predicted": True, "simulator": "costmodel.simulate", "seed": seed,
                                          "baseline_of": run_id, "source": source})
    if w.simulation.with_colocated and colocated_run is not None:
        runs.append(colocated_run)
    return SimulationResult(workload=w, seed=seed, runs=runs, summary=per_run[0], per_run=per_run,
                            assumptions=_assumptions(w, in_time), colocated=colocated_run, source=source)

