"""The what-if simulator: predict a run's Timeline from a ``workload:`` description.

``simulate(scenario_or_dict, seed=0) -> SimulationResult`` (:mod:`.simulator`): generate the block-access
trace (:mod:`.trace`), run the cache policy over it (:mod:`.cache`), time each step (:mod:`.model`) and read
the result (:mod:`.summary`). The workload is validated by :mod:`.workload`; :mod:`.whatif` evaluates a
scenario under overrides (the sliders that drive it are in :mod:`costmodel.interactive`). The runs are
ordinary Timeline :class:`~costmodel.foundation.schema.Run` objects with ``metadata["predicted"] = True``, so ``fit``,
``compare``, ``cost`` and ``report`` take them like measured runs. Deterministic: the same workload and
seed give the same numbers.
"""
from .simulator import FORMAT as FORMAT
from .simulator import NOT_MODELLED as NOT_MODELLED
from .simulator import SimulationResult as SimulationResult
from .simulator import simulate as simulate
from .workload import PATTERNS as PATTERNS
from .workload import POLICIES as POLICIES
from .workload import Workload as Workload
from .workload import parse_workload as parse_workload
