"""Placement across regions: rank every (GPU region, offer, data strategy) a team could choose.

The data sits in one region; GPUs are offered in others, each at its price, wait and link to the data. Each
candidate x offer becomes a scenario of the one cost model (:mod:`costmodel.cost`), so every figure equals
what ``costmodel cost`` prints for it; :mod:`.rank` adds the GPU hours and the time to a finished training,
ranks, draws the Pareto front and the break-even prices, :mod:`.uncertainty` the joint Monte Carlo.
"""
from .build import CandidateScenario as CandidateScenario
from .build import build as build
from .model import Placement as Placement
from .model import load_placement as load_placement
from .model import placement_from_dict as placement_from_dict
from .rank import STRATEGIES as STRATEGIES
from .summary import analyze as analyze
from .summary import place as place
