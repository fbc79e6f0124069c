"""costmodel: decide whether to train in a remote region and read the data across regions through a cache.

Pipeline: ``ingest`` (benchmark outputs -> Timeline Runs) -> ``warmup`` (steady state, warm-up
fit, comparison) -> ``cost`` (cross-region vs replicate vs wait) -> ``checklist`` (go/no-go) ->
``report`` (papermill notebook -> offline HTML + ADR). ``bench`` and ``simulate`` produce inputs.
"""
__version__ = "0.3.0"

from .foundation import moved as _moved
from .foundation.errors import (
    AnalysisError,
    BenchError,
    ChecklistError,
    CostmodelError,
    IngestError,
    PriceError,
    ReportError,
    ScenarioError,
    SimulateError,
)

__all__ = [
    "AnalysisError",
    "BenchError",
    "ChecklistError",
    "CostmodelError",
    "IngestError",
    "PriceError",
    "ReportError",
    "ScenarioError",
    "SimulateError",
    "__version__",
]

_moved.install()  # the old import paths the 0.3 docs showed (costmodel.errors, ...), see foundation/moved.py
