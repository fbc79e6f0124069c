"""The cost model: cross-region reading through a cache vs replicating the dataset vs waiting for GPUs.

Formulas: :mod:`costmodel.cost.model`. Scenario keys and units: :mod:`costmodel.cost.spec`.
"""
from .breakeven import break_even, wait_break_even
from .evaluate import CostResult, OptionCost, evaluate
from .model import OPTIONS, TERMS
from .montecarlo import MonteCarloResult, monte_carlo
from .scenario import Scenario, apply_measurements, load_scenario, scenario_from_dict
from .sensitivity import sweep_2d, tornado
from .summary import analyze, analyze_with_draws

__all__ = [
    "OPTIONS",
    "TERMS",
    "Scenario",
    "load_scenario",
    "scenario_from_dict",
    "apply_measurements",
    "evaluate",
    "CostResult",
    "OptionCost",
    "break_even",
    "wait_break_even",
    "tornado",
    "sweep_2d",
    "monte_carlo",
    "MonteCarloResult",
    "analyze",
    "analyze_with_draws",
]
