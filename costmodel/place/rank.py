"""Rank every candidate x offer x strategy: cost over the horizon, time to a finished training, feasibility.

For a candidate's scenario (:mod:`.build`) with horizon ``M``, runs ``R`` per month of ``T`` hours on a
cluster of ``G`` USD/hour, the figures of one placement are

- ``strategy_usd``: the cost model's total of the strategy (``costmodel cost``'s ``options[s].total_usd``);
- ``compute_usd = M * R * T * G`` (``horizon_months x derived.training_hours_per_month x
  training.cluster_usd_per_hour`` of the same output): the GPU hours themselves, which the cost model leaves
  out because they are the same for its three options, but which differ between candidates;
- ``cost_usd = compute_usd + strategy_usd`` (for ``wait`` this is ``M*R*T*G_data``: the premium term of the
  cost model turns the candidate's GPU price into the data region's);
- ``time_to_finish_hours`` of the first run: the wait for the GPUs + the copy (``replicate``: the cost model's
  ``replica.copy_hours``) + the warm-up (``cross_region``: ``cache.warmup_lost_s``/3600) + the run
  (``T`` without the warm-up the cost model folds into a derived ``T``) + the steady slowdown
  (``cross_region``: ``d x`` that run);
- ``score_usd = cost_usd + objective.usd_per_hour x time_to_finish_hours``; feasible when the time is within
  ``constraints.deadline_hours``; governance removes the strategies it forbids.

The ranking is by ``score_usd`` among the priced, allowed and feasible placements (ties by name); the Pareto
front of cost vs time among the priced and allowed ones. Everything is vectorised over arrays, so the same
functions give the point figures, the break-even lines and the Monte Carlo draws.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..cost.evaluate import model_inputs
from ..cost.model import OPTIONS, _cold_starts, follow, totals
from .build import CandidateScenario
from .model import Placement

STRATEGIES = OPTIONS  # cross_region, replicate, wait
STRATEGY_WORDS = {"cross_region": "read across regions through the cache",
                  "replicate": "replicate the dataset to the GPU region",
                  "wait": "wait for GPUs near the data"}
#: governance word that forbids each strategy in the region it trains in
FORBIDS = {"cross_region": "cache", "replicate": "replica", "wait": "gpu"}


@dataclass
class Row:
    """One placement (candidate x offer x strategy)."""

    id: str
    cs: CandidateScenario
    strategy: str
    trained_in: str
    priced: bool = True
    not_priced_reason: str | None = None
    allowed: bool = True
    forbidden_reason: str | None = None
    feasible: bool = True
    infeasible_reason: str | None = None
    cost_usd: float = float("nan")
    compute_usd: float = float("nan")
    strategy_usd: float = float("nan")
    time_h: float = float("nan")
    time_parts: dict[str, float] = field(default_factory=dict)
    score_usd: float = float("nan")
    rank: int | None = None
    on_front: bool = False

    @property
    def eligible(self) -> bool:
        return self.priced and self.allowed and self.feasible


def figures(cs: CandidateScenario, strategy: str, arrays: dict[str, Any] | None = None,
            wait_hours: Any = None) -> tuple[Any, Any, Any, dict[str, Any]]:
    """(cost_usd, compute_usd, strategy_usd, time parts) of ``cs`` under ``strategy``, at the point values or
    with ``arrays`` substituted (draws, a price line). ``wait_hours``: the GPU wait in the candidate (default:
    the offer's point value)."""
    p = follow(model_inputs(cs.scenario, **(arrays or {})))
    M, R, T = p["horizon_months"], p["training.runs_per_month"], p["training.run_hours"]
    G = p["training.cluster_usd_per_hour"]
    strat = totals(p)[strategy]
    compute = M * R * T * G
    L = p["cache.warmup_lost_s"]
    d = p["cache.steady_slowdown_fraction"]
    E = p["training.epochs_per_run"]
    # the warm-up a derived run_hours holds (cost.model.follow): min(n, max(R, E*R)) / R * L / 3600
    fills = np.minimum(_cold_starts(p), np.maximum(R, E * R))
    folded = np.where(R > 0, fills / np.where(R > 0, R, 1.0) * L / 3600.0, 0.0) \
        if p.get("_follow_run_hours") else 0.0
    run = T - folded
    cand_wait = cs.offer.wait_hours if wait_hours is None else wait_hours
    if strategy == "cross_region":
        parts = {"gpu_wait_hours": cand_wait, "copy_hours": 0.0, "warmup_hours": L / 3600.0, "run_hours": run,
                 "slowdown_hours": d * run}
    elif strategy == "replicate":
        parts = {"gpu_wait_hours": cand_wait, "copy_hours": p["replica.copy_hours"], "warmup_hours": 0.0,
                 "run_hours": run, "slowdown_hours": 0.0}
    else:
        parts = {"gpu_wait_hours": p["wait.expected_wait_hours_per_run"], "copy_hours": 0.0, "warmup_hours": 0.0,
                 "run_hours": run, "slowdown_hours": 0.0}
    return compute + strat, compute, strat, parts


def time_total(parts: dict[str, Any]) -> Any:
    return sum(parts[k] for k in ("gpu_wait_hours", "copy_hours", "warmup_hours", "run_hours", "slowdown_hours"))


def row_id(cs: CandidateScenario, strategy: str) -> str:
    return f"{cs.candidate.name} | {cs.offer.label()} | {strategy}"


def build_rows(pl: Placement, scenarios: list[CandidateScenario]) -> list[Row]:
    """Every candidate x offer x strategy with its point figures and flags (see the module docstring)."""
    rows: list[Row] = []
    for cs in scenarios:
        for s in STRATEGIES:
            trained = pl.data_region if s == "wait" else cs.candidate.region
            r = Row(row_id(cs, s), cs, s, trained)
            why = pl.forbidden(trained, FORBIDS[s]) or (pl.forbidden(trained, "gpu") if s != "wait" else None)
            if why:
                r.allowed, r.forbidden_reason = False, why
            if cs.scenario is None:
                r.priced, r.not_priced_reason = False, cs.not_priced_reason
            elif s == "replicate" and cs.storage_not_priced:
                r.priced, r.not_priced_reason = False, cs.storage_not_priced
            elif s == "wait" and cs.data_offer is None:
                r.priced, r.not_priced_reason = False, "no GPU offer near the data (data.offers)"
            elif s == "wait" and cs.data_offer.usd_per_hour is None:  # type: ignore[union-attr]
                r.priced, r.not_priced_reason = False, f"the offer near the data: {cs.data_offer.not_priced_reason}"  # type: ignore[union-attr]
            elif s in cs.scenario.not_priced:
                r.priced, r.not_priced_reason = False, f"the cost model: {cs.scenario.not_priced[s]}"
            if r.priced:
                cost, compute, strat, parts = figures(cs, s)
                r.cost_usd, r.compute_usd, r.strategy_usd = float(cost), float(compute), float(strat)
                r.time_parts = {k: float(v) for k, v in parts.items()}
                r.time_h = float(time_total(parts))
                r.score_usd = r.cost_usd + pl.usd_per_hour * r.time_h
                if pl.deadline_hours is not None and r.time_h > pl.deadline_hours:
                    r.feasible = False
                    r.infeasible_reason = (f"finishes in {r.time_h:,.1f} h, after the deadline of "
                                           f"{pl.deadline_hours:g} h")
            rows.append(r)
    return rows


def rank(rows: list[Row]) -> list[Row]:
    """The eligible rows by score (ties by id), numbered from 1; marks the Pareto front (cost vs time) among
    the priced and allowed rows. Returns the ranked rows."""
    ranked = sorted((r for r in rows if r.eligible), key=lambda r: (r.score_usd, r.id))
    for i, r in enumerate(ranked, start=1):
        r.rank = i
    pool = [r for r in rows if r.priced and r.allowed]
    for r in pool:
        r.on_front = not any((o.cost_usd <= r.cost_usd and o.time_h <= r.time_h)
                             and (o.cost_usd < r.cost_usd or o.time_h < r.time_h) for o in pool)
    return ranked


def winner_at(scores: dict[str, float]) -> str | None:
    """The id with the lowest score (ties by id)."""
    return min(scores, key=lambda k: (scores[k], k)) if scores else None


def price_lines(pl: Placement, rows: list[Row], cs: CandidateScenario) -> dict[str, tuple[float, float]]:
    """For each eligible row of ``cs``: (a, b) with score = a + b * x, x the offer's USD per instance-hour
    (exact: every figure is affine in the cluster price; the wait premium moves with it)."""
    x0 = float(cs.offer.usd_per_hour)  # type: ignore[arg-type]
    n = cs.offer.count
    G0 = float(cs.scenario.values["training.cluster_usd_per_hour"])
    P0 = float(cs.scenario.values["wait.cluster_premium_usd_per_hour"])
    xs = np.array([x0, x0 + 1.0])
    arrays = {"training.cluster_usd_per_hour": G0 + (xs - x0) * n, "wait.cluster_premium_usd_per_hour": P0 - (xs - x0) * n}
    out = {}
    for r in rows:
        if r.cs is not cs or not r.eligible:
            continue
        cost, _c, _s, parts = figures(cs, r.strategy, arrays)
        score = np.asarray(cost, dtype=float) + pl.usd_per_hour * np.asarray(time_total(parts), dtype=float)
        score = np.broadcast_to(score, xs.shape)
        b = float(score[1] - score[0])
        if r.strategy == "wait":
            b = 0.0  # the premium turns the candidate's price into the data region's: exactly independent of x
        out[r.id] = (float(score[0]) - b * x0, b)
    return out


def break_even(pl: Placement, rows: list[Row], ranked: list[Row]) -> list[dict[str, Any]]:
    """Per priced offer: the instance-hour price nearest to its current one, below and above, at which the winner
    of the ranking changes, and the winner beyond it (None: no such price >= 0)."""
    if not ranked:
        return []
    fixed = {r.id: r.score_usd for r in rows if r.eligible}
    out = []
    seen: set[int] = set()
    for r in rows:
        cs = r.cs
        if id(cs) in seen or cs.scenario is None:
            continue
        seen.add(id(cs))
        lines = price_lines(pl, rows, cs)
        x0 = float(cs.offer.usd_per_hour)  # type: ignore[arg-type]
        entry: dict[str, Any] = {"candidate": cs.candidate.name, "offer": cs.offer.label(), "key": cs.offer.key,
                                 "usd_per_hour": x0, "below": None, "above": None, "note": None}
        if not lines:
            entry["note"] = "no placement of this offer is ranked (not priced, forbidden or late): its price moves nothing"
        if lines:
            others = {k: v for k, v in fixed.items() if k not in lines}

            def win(x: float, lines=lines, others=others) -> str | None:
                return winner_at({**others, **{k: a + b * x for k, (a, b) in lines.items()}})

            now = win(x0)
            points = set()
            for k, (a, b) in lines.items():
                for s in others.values():
                    if b != 0:
                        points.add((s - a) / b)
                for k2, (a2, b2) in lines.items():
                    if k2 != k and b != b2:
                        points.add((a2 - a) / (b - b2))
            pts = sorted(p for p in points if np.isfinite(p) and p >= 0)
            for side, seq in (("below", [p for p in reversed(pts) if p < x0]), ("above", [p for p in pts if p > x0])):
                for p in seq:
                    eps = max(abs(p), 1.0) * 1e-9
                    beyond = win(p - eps if side == "below" else p + eps)
                    if beyond != now:
                        entry[side] = {"usd_per_hour": float(p), "winner": beyond}
                        break
        out.append(entry)
    return out
