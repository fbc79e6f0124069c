"""The cost model: cross-region reading through a cache vs replicating the dataset vs waiting for GPUs.

Formulas: :mod:`costmodel.cost.model`. Scenario keys and units: :mod:`costmodel.cost.spec`.
"""
from .breakeven import break_even as break_even
from .breakeven import wait_break_even as wait_break_even
from .evaluate import CostResult as CostResult
from .evaluate import OptionCost as OptionCost
from .evaluate import evaluate as evaluate
from .measurements import apply_measurements as apply_measurements
from .model import OPTIONS as OPTIONS
from .model import TERMS as TERMS
from .montecarlo import MonteCarloResult as MonteCarloResult
from .montecarlo import monte_carlo as monte_carlo
from .scenario import Scenario as Scenario
from .scenario import load_scenario as load_scenario
from .scenario import scenario_from_dict as scenario_from_dict
from .sensitivity import sweep_2d as sweep_2d
from .sensitivity import tornado as tornado
from .summary import analyze as analyze
from .summary import analyze_with_draws as analyze_with_draws
