"""Evidence resting on predicted (simulated) runs says so and never proposes `yes` for measured items."""
from __future__ import annotations

import copy

import costmodel.checklist as cl

from test_checklist import reference_compare, reference_cost  # noqa: E402


def predicted_compare(colocated_predicted: bool = False) -> dict:
    c = copy.deepcopy(reference_compare())
    for f in c["remote"]:
        f["predicted"] = True
    for f in c["colocated"]:
        f["predicted"] = colocated_predicted
    # three runs each so that repetitions would be yes if measured
    for role in ("colocated", "remote"):
        base = c[role][0]
        c[role] = [{**base, "run_id": f"{base['run_id']}-{i}"} for i in range(3)]
    return c


def test_measured_evidence_proposes_yes_but_predicted_does_not():
    measured = copy.deepcopy(predicted_compare())
    for role in ("colocated", "remote"):
        for f in measured[role]:
            f["predicted"] = False
    ev_m = cl.gather_evidence(compare=measured, cost=reference_cost())
    for iid in ("throughput_equivalent", "steady_after_warmup", "repetitions", "reread_fits_cache", "link_headroom",
                "warmup_share"):
        assert ev_m[iid].proposed == "yes", (iid, ev_m[iid].summary)
        assert not ev_m[iid].predicted and "PREDICTION" not in ev_m[iid].summary

    ev = cl.gather_evidence(compare=predicted_compare(), cost=reference_cost())
    for iid in ("throughput_equivalent", "steady_after_warmup", "repetitions", "reread_fits_cache", "link_headroom",
                "warmup_share"):
        e = ev[iid]
        assert e.proposed == "unknown", (iid, e.summary)
        assert e.predicted and e.condition == cl.PREDICTION_CONDITION
        assert e.summary.startswith("PREDICTION, not a measurement (predicted runs spoke-1-0, spoke-1-1, spoke-1-2): ")
        assert e.summary.endswith("would propose yes if measured")
    assert "steady hit ratio 95.0 % (predicted)" in ev["reread_fits_cache"].summary
    # items the runs do not speak to are untouched
    assert ev["cost_favourable"].proposed == "yes" and not ev["cost_favourable"].predicted
    assert ev["cache_headroom"].proposed == "yes"


def test_predicted_no_stays_no_and_says_prediction():
    c = predicted_compare()
    c["remote"] = c["remote"][:1]
    ev = cl.gather_evidence(compare=c)
    e = ev["repetitions"]
    assert e.proposed == "no" and e.predicted
    assert e.summary == ("PREDICTION, not a measurement (predicted run spoke-1-0): "
                         "3 co-located and 1 remote runs (fewer than 3 each)")


def test_states_covered_from_predicted_fits():
    fits = [{"run_id": "sim-1", "role": "remote", "classification": "warmup", "warmup_end_step": 10, "predicted": True},
            {"run_id": "sim-2", "role": "remote", "classification": "invalidation", "predicted": True}]
    ev = cl.gather_evidence(fits=fits)
    assert ev["states_covered"].proposed == "unknown" and ev["states_covered"].predicted
    assert "cover cold start, steady state and invalidation" in ev["states_covered"].summary
    measured = [{**f, "predicted": False} for f in fits]
    assert cl.gather_evidence(fits=measured)["states_covered"].proposed == "yes"


def test_decision_conditions_ask_for_a_measured_benchmark():
    d = cl.decide({}, compare=predicted_compare(), cost=reference_cost())
    by = {r.item.id: r for r in d.items}
    assert by["throughput_equivalent"].answer == "unknown" and by["throughput_equivalent"].status == "condition"
    cond = {c["id"]: c["condition"] for c in d.conditions}
    assert cond["throughput_equivalent"] == "confirm with a measured benchmark (the evidence is a prediction)"
    assert cond["steady_after_warmup"] == cl.PREDICTION_CONDITION
    assert d.verdict == "CONDITIONAL"
    item = [i for i in d.to_dict()["items"] if i["id"] == "steady_after_warmup"][0]
    assert item["evidence"]["predicted"] is True and item["condition"] == cl.PREDICTION_CONDITION
