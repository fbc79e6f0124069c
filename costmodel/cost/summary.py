"""Everything ``costmodel cost --json`` prints, as one plain dict (the report uses the same function)."""
from __future__ import annotations

from typing import Any

from .breakeven import break_even, wait_break_even
from .evaluate import evaluate
from .montecarlo import monte_carlo
from .scenario import Scenario
from .sensitivity import tornado


def analyze(scenario: Scenario, monte_carlo_n: int = 0, seed: int = 0) -> dict[str, Any]:
    """Evaluate, break-even per input, tornado rows and (when ``monte_carlo_n`` > 0) a seeded Monte Carlo.

    Keys: horizon_months, options, cheapest, ranking, break_even, wait_break_even, sensitivity, prices_used, warnings,
    derived, inputs, and monte_carlo when asked. Raises ScenarioError for an incomplete scenario.
    """
    result = evaluate(scenario)
    out = result.to_dict()
    out["break_even"] = break_even(scenario)
    out["wait_break_even"] = wait_break_even(scenario)
    out["sensitivity"] = tornado(scenario).to_dict(orient="records")
    if monte_carlo_n:
        mc = monte_carlo(scenario, monte_carlo_n, seed)
        out["monte_carlo"] = mc.to_dict()
        out["warnings"] = out["warnings"] + mc.warnings
    order = ["horizon_months", "cheapest", "ranking", "options", "break_even", "wait_break_even", "monte_carlo", "sensitivity",
             "derived", "prices_used", "warnings", "inputs"]
    return {k: out[k] for k in order if k in out}
