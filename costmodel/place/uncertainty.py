"""Monte Carlo over every placement at once: how often the winner stays the winner.

Each draw samples every uncertain input once and prices **all** ranked placements with it (common random numbers):
an input shared by the candidates (the base scenario's ranges: runs per month, churn, hit ratio, ...) takes the
same value in every candidate of a draw; a candidate's own uncertainty (a measured slowdown's confidence
interval, an offer's price or wait written as a range) is drawn for it alone; a GPU's speed from the table's
range is drawn once per GPU type. Per draw, the placement with the lowest score among those that meet the
deadline in that draw wins; placements within ``monte_carlo.tie_fraction`` of it share the draw. Seeded: the same
file, ``draws`` and ``seed`` give the same numbers.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..cost.dists import Distribution
from .model import Offer, Placement
from .rank import Row, details_all, time_total

ROBUST_P = 0.9


class _Draws:
    """One array per distinct (input, distribution), drawn on first use from one seeded generator."""

    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        self.rng = np.random.default_rng(seed)
        self.arrays: dict[tuple[str, str], np.ndarray] = {}

    def get(self, key: str, dist: Distribution) -> np.ndarray:
        sig = (key, json.dumps(dist.to_dict(), sort_keys=True))
        if sig not in self.arrays:
            self.arrays[sig] = np.asarray(dist.sample(self.rng, self.n), dtype=float)
        return self.arrays[sig]

    def inputs(self) -> list[str]:
        return sorted({k for k, _ in self.arrays})


def _offer_arrays(dr: _Draws, o: Offer | None, n: int) -> tuple[Any, Any]:
    """(price per instance-hour, wait hours) of an offer: draws where uncertain, else the point values."""
    if o is None:
        return None, None
    price = dr.get(f"{o.key}.usd_per_hour", o.price_distribution) if o.price_distribution else o.usd_per_hour
    wait = dr.get(f"{o.key}.expected_wait_hours", o.wait_distribution) if o.wait_distribution else o.wait_hours
    return price, wait


def _speed_arrays(dr: _Draws, cs: Any, n: int) -> dict[str, Any]:
    """The offer's speed drawn from its table row's range (one draw per GPU type: offers with the same GPU move
    together), applied to the scenario key its speed scaled."""
    sp = cs.offer.speed
    if sp is None or sp.kind != "table" or cs.speed_key is None or not (sp.high > sp.low):
        return {}
    row, ref = sp.extra["row"], sp.extra["ref_row"]

    def drawn(r: Any) -> Any:
        if not r.high > r.low:
            return r.relative_speed
        return dr.get(f"speed.{r.gpu}.{r.precision}",
                      Distribution("triangular", {"low": r.low, "mode": r.relative_speed, "high": r.high}))

    factor = (np.asarray(drawn(row)) / np.asarray(drawn(ref))) / (row.relative_speed / ref.relative_speed)
    point = cs.scenario.values.get(cs.speed_key)
    if point is None:
        point = cs.scenario.internal.get("_samples_per_s") if cs.speed_key.endswith("samples_per_s") else None
    if point is None or not np.isfinite(point):
        return {}
    point = float(point)
    return {cs.speed_key: point * factor if cs.speed_key.endswith("samples_per_s") else point / factor}


def monte_carlo(pl: Placement, rows: list[Row], winner: str | None, n: int | None = None,
                seed: int | None = None) -> dict[str, Any]:
    """P(best) of every ranked placement (priced, allowed, in time at the point values) over ``n`` joint draws
    (default: the file's ``monte_carlo``), the winner's, the runner-up's, and each placement's cost P5/P95.
    In a draw the placements within ``tie_fraction`` of the best score share the win equally (near-ties the
    model cannot tell apart); a wait ranked by time wins a draw only when no placement is cheaper or sooner."""
    n = int(n if n is not None else pl.draws)
    seed = int(seed if seed is not None else pl.seed)
    dr = _Draws(n, seed)
    pool = sorted((r for r in rows if r.eligible), key=lambda r: r.id)
    pool_by_cs: dict[int, list[Row]] = {}
    for r in pool:
        pool_by_cs.setdefault(id(r.cs), []).append(r)
    scores = np.full((len(pool), n), np.inf)
    costs = np.full((len(pool), n), np.inf)
    times = np.full((len(pool), n), np.inf)
    raw = np.empty((len(pool), n))  # every draw's cost, feasible or not: its P5/P95, all rows in one call
    by_cs: dict[int, dict[str, Any]] = {}
    for i, r in enumerate(pool):
        cs = r.cs
        if id(cs) not in by_cs:
            arrays: dict[str, Any] = {k: dr.get(k, d) for k, d in sorted(cs.scenario.distributions.items())}
            price, wait = _offer_arrays(dr, cs.offer, n)
            if cs.offer.price_distribution is not None:
                arrays["training.cluster_usd_per_hour"] = np.asarray(price, dtype=float) * cs.offer.count * np.ones(n)
            arrays.update(_speed_arrays(dr, cs, n))
            by_cs[id(cs)] = {"arrays": arrays, "wait": wait}
        got = by_cs[id(cs)]
        if "figures" not in got:
            strategies = tuple(o.strategy for o in pool_by_cs[id(cs)])
            got["figures"] = details_all(cs, strategies, got["arrays"], wait_hours=got["wait"])
        f = got["figures"][r.strategy]
        cost, parts = f["cost"], f["parts"]
        cost = np.broadcast_to(np.asarray(cost, dtype=float), (n,))
        t = np.broadcast_to(np.asarray(time_total(parts), dtype=float), (n,))
        s = cost + pl.usd_per_hour * t
        if pl.deadline_hours is not None:
            s = np.where(t <= pl.deadline_hours, s, np.inf)
        scores[i], costs[i], times[i] = s, np.where(np.isfinite(s), cost, np.inf), np.where(np.isfinite(s), t, np.inf)
        raw[i] = cost
    q = np.percentile(raw, [5, 95], axis=1) if len(pool) else np.zeros((2, 0))
    p5 = {r.id: float(q[0, i]) for i, r in enumerate(pool)}
    p95 = {r.id: float(q[1, i]) for i, r in enumerate(pool)}
    del raw
    by_time = np.array([r.ranked_by_time for r in pool], dtype=bool)
    if by_time.any() and (~by_time).any():  # a wait ranked by time wins a draw only when it is cheapest and soonest
        rest_cost, rest_time = costs[~by_time].min(axis=0), times[~by_time].min(axis=0)
        dominated = (costs[by_time] > rest_cost) | (times[by_time] > rest_time)
        sub = scores[by_time]
        sub[dominated] = np.inf
        scores[by_time] = sub
    any_ok = np.isfinite(scores).any(axis=0) if len(pool) else np.zeros(n, dtype=bool)
    if len(pool):
        best = scores.min(axis=0)
        tol = pl.tie_fraction * np.abs(np.where(np.isfinite(best), best, 0.0))
        tied = np.isfinite(scores) & (scores <= best + tol)
        share = np.where(any_ok, 1.0 / np.maximum(tied.sum(axis=0), 1), 0.0)
        wins = (tied * share).sum(axis=1)
    else:
        wins = np.zeros(0)
    p_best = {r.id: float(wins[i] / n) for i, r in enumerate(pool)}
    p_none = float(1.0 - any_ok.mean()) if n else 0.0
    p_win = p_best.get(winner) if winner else None
    others = sorted(((p, k) for k, p in p_best.items() if k != winner), reverse=True)
    runner = others[0][1] if others and others[0][0] > 0 else None
    inputs = dr.inputs()
    if p_win is None:
        sentence = "no placement wins"
    elif not inputs:
        sentence = "no input is uncertain (no ranges or distributions): every draw is the point value"
    elif p_win >= ROBUST_P:
        sentence = f"{winner} wins in {p_win:.1%} of {n} joint draws (at least {ROBUST_P:.0%}): robust"
    else:
        sentence = (f"{winner} wins in only {p_win:.1%} of {n} joint draws (below {ROBUST_P:.0%}): not robust"
                    + (f"; {runner} wins in {p_best[runner]:.1%}" if runner else ""))
    if pl.tie_fraction > 0 and inputs:
        sentence += f" (placements within {pl.tie_fraction:.1%} of the best score of a draw share it)"
    return {"n": n, "seed": seed, "uncertain_inputs": inputs, "winner": winner, "p_winner": p_win,
            "runner_up": runner, "p_runner_up": p_best.get(runner) if runner else None,
            "robust": bool(p_win is not None and p_win >= ROBUST_P and bool(inputs)), "sentence": sentence,
            "p_none_feasible": p_none, "tie_fraction": pl.tie_fraction, "p_best": p_best, "cost_p5_usd": p5,
            "cost_p95_usd": p95}
