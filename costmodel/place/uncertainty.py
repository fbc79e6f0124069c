"""Monte Carlo over every placement at once: how often the winner stays the winner.

Each draw samples every uncertain input once and prices **all** placements with it (common random numbers):
an input shared by the candidates (the base scenario's ranges: runs per month, churn, hit ratio, ...) takes the
same value in every candidate of a draw; a candidate's own uncertainty (a measured slowdown's confidence
interval, an offer's price or wait written as a range) is drawn for it alone. Per draw, the placement with the
lowest score among the priced, allowed placements that meet the deadline in that draw wins. Seeded: the same
file, ``draws`` and ``seed`` give the same numbers.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..cost.dists import Distribution
from .model import Offer, Placement
from .rank import Row, figures, time_total

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


def monte_carlo(pl: Placement, rows: list[Row], winner: str | None, n: int | None = None,
                seed: int | None = None) -> dict[str, Any]:
    """P(best) of every priced and allowed placement over ``n`` joint draws (default: the file's
    ``monte_carlo``), the winner's, the runner-up's, and each placement's cost P5/P95."""
    n = int(n if n is not None else pl.draws)
    seed = int(seed if seed is not None else pl.seed)
    dr = _Draws(n, seed)
    pool = sorted((r for r in rows if r.priced and r.allowed), key=lambda r: r.id)
    scores = np.full((len(pool), n), np.inf)
    p5: dict[str, float] = {}
    p95: dict[str, float] = {}
    by_cs: dict[int, dict[str, Any]] = {}
    for i, r in enumerate(pool):
        cs = r.cs
        if id(cs) not in by_cs:
            arrays: dict[str, Any] = {k: dr.get(k, d) for k, d in sorted(cs.scenario.distributions.items())}
            price, wait = _offer_arrays(dr, cs.offer, n)
            d_price, d_wait = _offer_arrays(dr, cs.data_offer, n)
            if cs.offer.price_distribution is not None or (cs.data_offer is not None
                                                           and cs.data_offer.price_distribution is not None):
                cluster = np.asarray(price, dtype=float) * cs.offer.count
                arrays["training.cluster_usd_per_hour"] = cluster * np.ones(n)
                if cs.data_offer is not None and cs.data_offer.usd_per_hour is not None:
                    arrays["wait.cluster_premium_usd_per_hour"] = np.asarray(d_price) * cs.data_offer.count - cluster
            if cs.data_offer is not None and cs.data_offer.wait_distribution is not None:
                arrays["wait.expected_wait_hours_per_run"] = d_wait
            by_cs[id(cs)] = {"arrays": arrays, "wait": wait}
        got = by_cs[id(cs)]
        cost, _c, _s, parts = figures(cs, r.strategy, got["arrays"], wait_hours=got["wait"])
        cost = np.broadcast_to(np.asarray(cost, dtype=float), (n,))
        t = np.broadcast_to(np.asarray(time_total(parts), dtype=float), (n,))
        s = cost + pl.usd_per_hour * t
        if pl.deadline_hours is not None:
            s = np.where(t <= pl.deadline_hours, s, np.inf)
        scores[i] = s
        p5[r.id], p95[r.id] = (float(v) for v in np.percentile(cost, [5, 95]))
    any_ok = np.isfinite(scores).any(axis=0) if len(pool) else np.zeros(n, dtype=bool)
    best = np.argmin(scores, axis=0) if len(pool) else np.zeros(n, dtype=int)
    counts = np.bincount(best[any_ok], minlength=len(pool)) if len(pool) else np.zeros(0)
    p_best = {r.id: float(counts[i] / n) for i, r in enumerate(pool)}
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
    return {"n": n, "seed": seed, "uncertain_inputs": inputs, "winner": winner, "p_winner": p_win,
            "runner_up": runner, "p_runner_up": p_best.get(runner) if runner else None,
            "robust": bool(p_win is not None and p_win >= ROBUST_P and bool(inputs)), "sentence": sentence,
            "p_none_feasible": p_none, "p_best": p_best, "cost_p5_usd": p5, "cost_p95_usd": p95}
