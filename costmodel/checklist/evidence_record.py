"""One piece of evidence (:class:`Evidence`) and the rule for evidence built on predicted runs: the items that assert
measured behaviour (:data:`MEASURED_ITEMS`) never propose ``yes`` on a prediction. Gathered by
:mod:`costmodel.checklist.evidence`."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..contracts.results import RunFit
from ..foundation.fields_json import FieldsJson, JsonKeys


@dataclass(frozen=True)
class Evidence(FieldsJson):
    """What the data says about one item: a proposed answer, a one-line summary and the figures used."""

    item_id: str
    proposed: str = "unknown"  # yes / no / unknown
    summary: str = "no automatic evidence"
    facts: dict[str, Any] = field(default_factory=dict)  # the numbers, units in the names
    sources: tuple[str, ...] = ()  # which inputs spoke: "compare", "cost", "fit"
    condition: str = ""  # what to do instead of the item's own condition ('' = the item's)
    predicted: bool = False  # built on predicted (simulated) runs, not measurements
    #: a figure it rests on was measured on the runs (not stated by the scenario): read by the prediction rule
    #: (:func:`as_prediction`), not published (the JSON keys of the evidence are a contract)
    measured: bool = False

    JSON = JsonKeys(exclude=("item_id", "measured"), lists=True)


#: Items whose evidence asserts measured behaviour: built on predicted runs they never propose ``yes``.
MEASURED_ITEMS: tuple[str, ...] = (
    "reread_fits_cache", "states_covered", "throughput_equivalent", "steady_after_warmup", "repetitions",
    "link_headroom", "warmup_share",
)
PREDICTION_CONDITION = "confirm with a measured benchmark (the evidence is a prediction)"


def as_prediction(ev: Evidence, run_ids: Iterable[str]) -> Evidence:
    """``ev`` marked as resting on the predicted runs ``run_ids``: the summary says so, a ``yes`` becomes
    ``unknown`` with :data:`PREDICTION_CONDITION` (a predicted ``no`` stays: the model foresees a problem)."""
    ids = sorted(set(run_ids))
    summary = (f"PREDICTION, not a measurement (predicted run{'s' if len(ids) > 1 else ''} {', '.join(ids)}): "
               + (ev.summary.replace("(measured)", "(predicted)") if ev.measured else ev.summary))
    proposed, condition = ev.proposed, ev.condition
    if ev.proposed == "yes":
        proposed, condition = "unknown", PREDICTION_CONDITION
        summary += "; would propose yes if measured"
    facts = {**ev.facts, "predicted_runs": ids}
    return Evidence(ev.item_id, proposed, summary, facts, ev.sources, condition, True, measured=False)


def predicted_run_ids(fits: Iterable[RunFit]) -> list[str]:
    """Run ids of the fits marked ``predicted: true`` (runs from ``costmodel simulate``)."""
    return [str(f.run_id or "?") for f in fits if f.predicted is True]
