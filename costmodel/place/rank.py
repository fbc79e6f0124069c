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

The GPU hours are billed as the offer's purchase option bills them: on demand and spot per hour
used (spot adds ``interruptions_per_run x hours_lost_per_interruption`` redone hours, and each restart re-warms
the cache: the cost model's cold starts); a savings plan or reserved instances for **every committed hour of
the term** (``term_months x 730`` hours, renewed over the horizon), less what other work pays for the hours
this job leaves (``commitment.other_use_fraction``); a capacity block for the hours booked per run. Under a
commitment the warm-up and slowdown hours the cost model prices at the cluster rate are inside the committed
hours (``absorbed_usd``), so ``cost_usd = compute_usd + strategy_usd - absorbed_usd``.

``wait`` is one placement per GPU offer near the data (not one per candidate). The ranking is by ``score_usd``
among the priced, allowed and feasible placements (ties by name); with no value of delay stated
(``objective.usd_per_hour`` 0) a wait is ranked by time: behind every placement that is cheaper or sooner (it
wins only when it is both). The Pareto front of cost vs time among the priced and allowed ones. Everything is
vectorised over arrays, so the same functions give the point figures, the break-even lines and the Monte Carlo
draws.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..cost.evaluate import model_inputs
from ..cost.model import OPTIONS, _cold_starts, follow, terms
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
    """One placement (candidate x offer x strategy; a wait: data-region offer x wait)."""

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
    absorbed_usd: float = 0.0
    billing: dict[str, Any] = field(default_factory=dict)
    ranked_by_time: bool = False

    @property
    def eligible(self) -> bool:
        return self.priced and self.allowed and self.feasible


HOURS_PER_TERM_MONTH = 730.0  # AWS bills a 1-year term as 8,760 hours
TIME_KEYS = ("gpu_wait_hours", "copy_hours", "warmup_hours", "run_hours", "slowdown_hours", "interruption_hours")


def details(cs: CandidateScenario, strategy: str, arrays: dict[str, Any] | None = None,
            wait_hours: Any = None) -> dict[str, Any]:
    """Every figure of ``cs`` under ``strategy`` (arrays broadcast): cost, compute, strategy, absorbed USD, the
    time parts, the GPU hours used and the billing of the purchase option (see the module docstring)."""
    return details_all(cs, (strategy,), arrays, wait_hours)[strategy]


def details_all(cs: CandidateScenario, strategies: tuple[str, ...], arrays: dict[str, Any] | None = None,
                wait_hours: Any = None) -> dict[str, dict[str, Any]]:
    """:func:`details` of several strategies from one evaluation of the cost model."""
    p = follow(model_inputs(cs.scenario, **(arrays or {})))
    t = terms(p)
    return {s: _strategy_figures(cs, s, p, t, wait_hours) for s in strategies}


def _strategy_figures(cs: CandidateScenario, strategy: str, p: Any, t: dict[str, Any],
                      wait_hours: Any) -> dict[str, Any]:
    M, R, T = p["horizon_months"], p["training.runs_per_month"], p["training.run_hours"]
    G = p["training.cluster_usd_per_hour"]
    strat = sum(t[strategy].values())
    L = p["cache.warmup_lost_s"]
    d = p["cache.steady_slowdown_fraction"]
    E = p["training.epochs_per_run"]
    I = p["training.interruptions_per_run"]  # noqa: E741  the model's symbol
    lost = cs.offer.hours_lost_per_interruption
    # the warm-up a derived run_hours holds (cost.model.follow): min(n, max(R, E*R)) / R * L / 3600
    fills = np.minimum(_cold_starts(p), np.maximum(R, E * R))
    folded = np.where(R > 0, fills / np.where(R > 0, R, 1.0) * L / 3600.0, 0.0) \
        if p.get("_follow_run_hours") else 0.0
    run = T - folded
    cand_wait = cs.offer.wait_hours if wait_hours is None else wait_hours
    if strategy == "cross_region":
        parts = {"gpu_wait_hours": cand_wait, "copy_hours": 0.0, "warmup_hours": L / 3600.0, "run_hours": run,
                 "slowdown_hours": d * run, "interruption_hours": I * (lost + L / 3600.0)}
        gpu_terms = t[strategy]["warmup_usd"] + t[strategy]["slowdown_usd"]
    elif strategy == "replicate":
        parts = {"gpu_wait_hours": cand_wait, "copy_hours": p["replica.copy_hours"], "warmup_hours": 0.0,
                 "run_hours": run, "slowdown_hours": 0.0, "interruption_hours": I * lost}
        gpu_terms = 0.0 * G
    else:
        parts = {"gpu_wait_hours": p["wait.expected_wait_hours_per_run"], "copy_hours": 0.0, "warmup_hours": 0.0,
                 "run_hours": run, "slowdown_hours": 0.0, "interruption_hours": I * lost}
        gpu_terms = 0.0 * G
    safe_G = np.where(G > 0, G, 1.0)
    used_h = M * R * (T + I * lost) + np.where(G > 0, gpu_terms / safe_G, 0.0)  # cluster-hours the job keeps busy
    purchase = cs.offer.purchase
    c = cs.offer.commitment
    billing: dict[str, Any] = {"purchase": purchase, "used_hours": used_h}
    absorbed = 0.0 * G
    if purchase in ("savings_plan", "reserved") and c is not None and c.term_months:
        renewals = np.ceil(np.maximum(M, 1e-9) / c.term_months)
        committed = renewals * c.term_months * HOURS_PER_TERM_MONTH
        unused = np.maximum(committed - used_h, 0.0)
        compute = G * (committed - unused * c.other_use_fraction)
        absorbed = gpu_terms
        billing.update(term_months=c.term_months, committed_hours=committed, used_share=used_h / committed,
                       billed_usd=G * committed, unused_usd=G * unused * (1.0 - c.other_use_fraction),
                       other_use_fraction=c.other_use_fraction, fits=used_h <= committed)
    elif purchase == "capacity_block":
        per_run = T + I * lost + np.where(G > 0, gpu_terms / safe_G, 0.0) / np.maximum(M * R, 1e-9)
        block = (c.block_hours if c is not None and c.block_hours else None)
        block_h = np.ceil(per_run / 24.0 - 1e-9) * 24.0 if block is None else block + 0.0 * per_run
        committed = M * R * block_h
        compute = G * committed
        absorbed = gpu_terms
        billing.update(block_hours=block_h, committed_hours=committed, used_share=used_h / np.maximum(committed, 1e-9),
                       billed_usd=compute, unused_usd=G * np.maximum(committed - used_h, 0.0),
                       fits=per_run <= block_h + 1e-9)
    else:
        compute = M * R * (T + I * lost) * G
    return {"cost": compute + strat - absorbed, "compute": compute, "strategy": strat, "absorbed": absorbed,
            "parts": parts, "billing": billing}


def figures(cs: CandidateScenario, strategy: str, arrays: dict[str, Any] | None = None,
            wait_hours: Any = None) -> tuple[Any, Any, Any, dict[str, Any]]:
    """(cost_usd, compute_usd, strategy_usd, time parts) of ``cs`` under ``strategy``, at the point values or
    with ``arrays`` substituted (draws, a price line). ``wait_hours``: the GPU wait in the candidate (default:
    the offer's point value)."""
    f = details(cs, strategy, arrays, wait_hours)
    return f["cost"], f["compute"], f["strategy"], f["parts"]


def time_total(parts: dict[str, Any]) -> Any:
    return sum(parts.get(k, 0.0) for k in TIME_KEYS)


def row_id(cs: CandidateScenario, strategy: str) -> str:
    return f"{cs.candidate.name} | {cs.offer.label()} | {strategy}"


def _strategies(cs: CandidateScenario) -> tuple[str, ...]:
    return ("wait",) if cs.kind == "wait" else ("cross_region", "replicate")


def build_rows(pl: Placement, scenarios: list[CandidateScenario]) -> list[Row]:
    """Every candidate x offer x strategy with its point figures and flags (see the module docstring); the wait
    placements once per GPU offer near the data."""
    rows: list[Row] = []
    for cs in scenarios:
        point = details_all(cs, _strategies(cs)) if cs.scenario is not None else {}
        for s in _strategies(cs):
            trained = pl.data_region if s == "wait" else cs.candidate.region
            r = Row(row_id(cs, s), cs, s, trained)
            prov = cs.candidate.provider
            why = pl.forbidden(trained, FORBIDS[s], prov) or (pl.forbidden(trained, "gpu", prov) if s != "wait" else None)
            if why:
                r.allowed, r.forbidden_reason = False, why
            if cs.scenario is None:
                r.priced, r.not_priced_reason = False, cs.not_priced_reason
            elif s == "replicate" and cs.storage_not_priced:
                r.priced, r.not_priced_reason = False, cs.storage_not_priced
            elif s in cs.scenario.not_priced:
                r.priced, r.not_priced_reason = False, f"the cost model: {cs.scenario.not_priced[s]}"
            if r.priced:
                f = point[s]
                r.cost_usd, r.compute_usd, r.strategy_usd = float(f["cost"]), float(f["compute"]), float(f["strategy"])
                r.absorbed_usd = float(f["absorbed"])
                r.billing = {k: (bool(v) if k == "fits" else v if isinstance(v, str) else float(v))
                             for k, v in f["billing"].items()}
                r.time_parts = {k: float(v) for k, v in f["parts"].items()}
                r.time_h = float(time_total(f["parts"]))
                r.score_usd = r.cost_usd + pl.usd_per_hour * r.time_h
                if pl.deadline_hours is not None and r.time_h > pl.deadline_hours:
                    r.feasible = False
                    r.infeasible_reason = (f"finishes in {r.time_h:,.1f} h, after the deadline of "
                                           f"{pl.deadline_hours:g} h")
                elif r.billing.get("fits") is False:
                    r.feasible = False
                    r.infeasible_reason = (f"needs {r.billing['used_hours']:,.0f} cluster-hours, more than the "
                                           f"{r.billing['committed_hours']:,.0f} committed")
            rows.append(r)
    return rows


def rank(rows: list[Row], usd_per_hour: float | None = None) -> list[Row]:
    """The eligible rows by score (ties by id), numbered from 1; marks the Pareto front (cost vs time) among
    the priced and allowed rows. With ``usd_per_hour`` 0 (no value of delay stated) a wait is placed behind every
    placement that is cheaper or sooner (``ranked_by_time``). Returns the ranked rows."""
    ranked = sorted((r for r in rows if r.eligible and not (usd_per_hour == 0 and r.strategy == "wait")),
                    key=lambda r: (r.score_usd, r.id))
    waits = sorted((r for r in rows if r.eligible and usd_per_hour == 0 and r.strategy == "wait"),
                   key=lambda r: (r.time_h, r.cost_usd, r.id))
    for w in waits:
        w.ranked_by_time = True
        after = [i for i, o in enumerate(ranked) if o.cost_usd <= w.cost_usd or o.time_h <= w.time_h]
        ranked.insert(max(after) + 1 if after else 0, w)
    for i, r in enumerate(ranked, start=1):
        r.rank = i
    pool = [r for r in rows if r.priced and r.allowed]
    by_time = sorted(pool, key=lambda r: (r.time_h, r.cost_usd))
    best_cost = float("inf")  # one pass: a row is on the front when no row as fast or faster is as cheap
    for i, r in enumerate(by_time):
        r.on_front = r.cost_usd < best_cost or (r.cost_usd == best_cost and i > 0
                                                 and by_time[i - 1].time_h == r.time_h and by_time[i - 1].on_front)
        best_cost = min(best_cost, r.cost_usd)
    return ranked


def winner_at(scores: dict[str, float]) -> str | None:
    """The id with the lowest score (ties by id)."""
    return min(scores, key=lambda k: (scores[k], k)) if scores else None


def price_lines(pl: Placement, rows: list[Row], cs: CandidateScenario) -> dict[str, tuple[float, float]]:
    """For each eligible row of ``cs``: (a, b) with score = a + b * x, x the offer's USD per instance-hour
    (exact: every figure is affine in the cluster price)."""
    x0 = float(cs.offer.usd_per_hour)  # type: ignore[arg-type]
    n = cs.offer.count
    G0 = float(cs.scenario.values["training.cluster_usd_per_hour"])
    P0 = float(cs.scenario.values["wait.cluster_premium_usd_per_hour"])
    xs = np.array([x0, x0 + 1.0])
    arrays = {"training.cluster_usd_per_hour": G0 + (xs - x0) * n, "wait.cluster_premium_usd_per_hour": P0 - (xs - x0) * n}
    out = {}
    mine = [r for r in rows if r.cs is cs and r.eligible]
    got = details_all(cs, tuple(r.strategy for r in mine), arrays) if mine else {}
    for r in mine:
        f = got[r.strategy]
        score = np.asarray(f["cost"], dtype=float) + pl.usd_per_hour * np.asarray(time_total(f["parts"]), dtype=float)
        score = np.broadcast_to(score, xs.shape)
        b = float(score[1] - score[0])
        out[r.id] = (float(score[0]) - b * x0, b)
    return out


def break_even(pl: Placement, rows: list[Row], ranked: list[Row]) -> list[dict[str, Any]]:
    """Per priced offer: the instance-hour price nearest to its current one, below and above, at which the winner
    of the ranking changes, and the winner beyond it (None: no such price >= 0).

    O(N) per offer: while one offer's price moves, every other placement keeps its score, so they enter as one
    constant, their best (the ranked order without this offer's rows); the offer's own two or three lines cross
    it and each other at no more than a handful of prices. A wait ranked by time (no value of delay stated)
    competes only while it is the winner."""
    if not ranked:
        return []
    winner = ranked[0]
    fixed = sorted((r.score_usd, r.id, id(r.cs)) for r in rows
                    if r.eligible and not (r.ranked_by_time and r is not winner))
    out = []
    seen: set[int] = set()
    by_cs: dict[int, list[Row]] = {}
    for r in rows:
        by_cs.setdefault(id(r.cs), []).append(r)
    for r in rows:
        cs = r.cs
        if id(cs) in seen or cs.scenario is None or cs.kind == "wait":
            continue
        seen.add(id(cs))
        lines = price_lines(pl, by_cs[id(cs)], cs)
        x0 = float(cs.offer.usd_per_hour)  # type: ignore[arg-type]
        entry: dict[str, Any] = {"candidate": cs.candidate.name, "offer": cs.offer.label(), "key": cs.offer.key,
                                 "usd_per_hour": x0, "below": None, "above": None, "note": None}
        if not lines:
            entry["note"] = "no placement of this offer is ranked (not priced, forbidden or late): its price moves nothing"
        else:
            other = next(((s, k) for s, k, c in fixed if c != id(cs)), None)

            def win(x: float, lines=lines, other=other) -> str | None:
                best = other
                for k, (a, b) in lines.items():
                    cand = (a + b * x, k)
                    if best is None or cand < best:
                        best = cand
                return best[1] if best else None

            now = win(x0)
            points = set()
            for k, (a, b) in lines.items():
                if other is not None and b != 0:
                    points.add((other[0] - a) / b)
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
