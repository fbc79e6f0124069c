"""Everything ``costmodel cost --json`` prints, as one plain dict (the report uses the same function).

Headline: each option's ``total_usd`` is the cost at the **expected value** of every input as stated (the
mean of its distribution, ``headline_basis: expected_value``), with the Monte Carlo P5-P95 range beside it
(``p5_usd``, ``p95_usd``; from ``--monte-carlo N`` when asked, else from ``HEADLINE_DRAWS`` seeded draws).

Robustness: ``margin_usd`` is the second-cheapest priced total minus the cheapest; ``robust`` is false when
the Monte Carlo's ``p_cheapest`` of the cheapest option is below ``ROBUST_P`` (0.9), or when a single tornado
input, moved within its stated range (P5/P95 of its distribution, or the default swing), changes which
priced option is cheapest. ``robust_reason`` says which.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .breakeven import break_even, wait_break_even
from .evaluate import evaluate
from .montecarlo import MonteCarloResult, monte_carlo
from .scenario import Scenario
from .sensitivity import tornado_rows

HEADLINE_DRAWS = 20_000
ROBUST_P = 0.9


def robustness(cheapest: str | None, margin_usd: float | None, p_cheapest: dict[str, float] | None,
               tornado_rows: Sequence[Mapping[Any, Any]], mc_basis: str) -> tuple[bool, str]:
    """(robust, reason) for ``cheapest`` given the Monte Carlo ``p_cheapest`` and the tornado rows."""
    if cheapest is None:
        return False, "no option is priced"
    if margin_usd is None:
        return False, f"{cheapest} is the only priced option: there is nothing to compare it with"
    reasons = []
    p = (p_cheapest or {}).get(cheapest)
    if p is not None and p < ROBUST_P:
        reasons.append(f"{cheapest} is cheapest in only {p:.1%} of the Monte Carlo draws ({mc_basis}), below {ROBUST_P:.0%}")
    for row in tornado_rows:
        for end in ("low", "high"):
            other = row.get(f"cheapest_{end}")
            if other is not None and other != cheapest:
                reasons.append(
                    f"{row['input']} at its {end} value {row[end]:.6g} ({row.get('range', '')}) makes {other} cheaper: "
                    f"it moves the totals across the {margin_usd:,.2f} USD margin")
                break
    if reasons:
        return False, "; ".join(reasons)
    tail = f" (P(cheapest) {p:.1%}, {mc_basis})" if p is not None else ""
    return True, (f"{cheapest} stays cheapest by {margin_usd:,.2f} USD in at least {ROBUST_P:.0%} of the draws{tail} "
                  "and at both ends of every tornado input")


def analyze(scenario: Scenario, monte_carlo_n: int = 0, seed: int = 0) -> dict[str, Any]:
    """What ``costmodel cost --json`` prints (see :func:`analyze_with_draws`, which also returns the draws)."""
    return analyze_with_draws(scenario, monte_carlo_n, seed)[0]


def analyze_with_draws(scenario: Scenario, monte_carlo_n: int = 0, seed: int = 0) -> tuple[dict[str, Any], Any]:
    """Evaluate, break-even per input, tornado rows, the headline range, robustness and (when
    ``monte_carlo_n`` > 0) a seeded Monte Carlo.

    Keys: horizon_months, headline_basis, cheapest, margin_usd, robust, robust_reason, ranking, options
    (each with priced, not_priced_reason, p5_usd, p95_usd), consistency, break_even, wait_break_even,
    monte_carlo (when asked), sensitivity, derived, prices_used, warnings, inputs. Raises ScenarioError for
    an incomplete scenario. Returns (that dict, the MonteCarloResult of ``--monte-carlo`` draws or None):
    the report charts the same draws the verb summarises, with no second run.
    """
    result = evaluate(scenario)
    out = result.to_dict()
    out["break_even"] = break_even(scenario)
    out["wait_break_even"] = wait_break_even(scenario)
    rows = tornado_rows(scenario)
    out["sensitivity"] = rows
    mc: MonteCarloResult | None
    if monte_carlo_n:
        mc = monte_carlo(scenario, monte_carlo_n, seed)
        out["monte_carlo"] = mc.to_dict()
        out["warnings"] = out["warnings"] + mc.warnings
        basis = f"--monte-carlo {mc.n} draws, seed {mc.seed}"
    else:
        mc = monte_carlo(scenario, HEADLINE_DRAWS, seed) if scenario.distributions else None
        basis = f"{HEADLINE_DRAWS} draws, seed {seed}" if mc is not None else "no uncertain inputs"
    for o, opt in out["options"].items():
        opt["p5_usd"] = mc.p5[o] if mc is not None else opt["total_usd"]
        opt["p95_usd"] = mc.p95[o] if mc is not None else opt["total_usd"]
    out["headline_basis"] = "expected_value"
    out["headline_range"] = {"quantiles": [5, 95], "basis": "monte_carlo" if mc is not None else "point",
                             "n": mc.n if mc is not None else 0, "seed": seed,
                             "note": "total_usd is the cost at the expected value (mean) of every input; p5_usd and "
                                     "p95_usd are the Monte Carlo P5 and P95 of the total"}
    p_cheapest = mc.p_cheapest if mc is not None else None
    robust, reason = robustness(result.cheapest, result.margin_usd, p_cheapest, rows, basis)
    out["robust"] = robust
    out["robust_reason"] = reason
    out["p_cheapest"] = p_cheapest
    order = ["horizon_months", "headline_basis", "cheapest", "margin_usd", "robust", "robust_reason", "p_cheapest",
             "ranking", "options", "headline_range", "consistency", "break_even", "wait_break_even", "monte_carlo",
             "sensitivity", "derived", "prices_used", "warnings", "inputs"]
    return {k: out[k] for k in order if k in out}, (mc if monte_carlo_n else None)
