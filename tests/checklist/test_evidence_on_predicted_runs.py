"""Evidence resting on predicted (simulated) runs says so and never proposes `yes` for measured items;
answers that differ from the proposal override it; empty answers take the proposal."""
from __future__ import annotations

import copy

import pytest
from support.results import reference_compare, reference_cost

import costmodel.checklist as cl
from costmodel.foundation.errors import ChecklistError


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
    item = next(i for i in d.to_dict()["items"] if i["id"] == "steady_after_warmup")
    assert item["evidence"]["predicted"] is True and item["condition"] == cl.PREDICTION_CONDITION


# ------------------------------------------------------------ answers vs proposals (audit findings 5-7)


def test_unknown_over_an_evidence_yes_overrides_it():
    ev = cl.gather_evidence(compare=reference_compare(), cost=reference_cost())
    assert ev["transfer_budget"].proposed == "yes"  # 2,000 USD/month transfer vs a 2,500 budget
    answers = {"transfer_budget": cl.Answer("transfer_budget", "unknown", "budget not agreed by finance"),
               "cache_headroom": cl.Answer("cache_headroom", "yes", ""),
               "network_ready": cl.Answer("network_ready", "yes", "network team, ticket N-1")}
    by = {r.item.id: r for r in cl.evaluate(answers, ev).items}
    assert by["transfer_budget"].answer == "unknown" and by["transfer_budget"].overrides_evidence is True
    assert by["cache_headroom"].overrides_evidence is False  # agrees with the proposal
    assert by["network_ready"].overrides_evidence is False  # no proposal to override


def test_example_answers_override_the_transfer_budget_yes_and_say_why(examples_dir):
    answers, _ = cl.read_answers_file(examples_dir / "answers.yaml")
    note = answers["transfer_budget"].note
    assert "50 USD/month" in note and "not agreed" in note
    cost = reference_cost()
    cost["inputs"]["transfer_budget_usd_per_month"] = 50.0
    cost["options"]["cross_region"]["terms"]["transfer_usd"] = 12 * 26.0
    r = {r.item.id: r for r in cl.decide(answers, cost=cost).items}["transfer_budget"]
    assert r.proposed == "yes" and r.answer == "unknown" and r.overrides_evidence is True


def test_empty_answers_take_the_proposal_and_a_lone_note_is_an_error(tmp_path):
    p = tmp_path / "a.yaml"
    p.write_text("answers:\n  network_ready:\n  governance_allows: {answer: null, note: ''}\n"
                 "  repetitions: {answer: '', note: ''}\n  failure_recovery: {answer: unknown}\n")
    answers, _ = cl.read_answers_file(p)
    assert list(answers) == ["failure_recovery"]
    p.write_text("answers:\n  repetitions: {answer: null, note: 'three runs each'}\n")
    with pytest.raises(ChecklistError, match=r"a.yaml: item 'repetitions': a note without an answer"):
        cl.read_answers_file(p)


def test_measured_is_a_field_not_a_word_in_the_summary():
    # the hit ratio the comparison measured marks the evidence measured; the scenario's does not
    measured = copy.deepcopy(predicted_compare())
    for role in ("colocated", "remote"):
        for f in measured[role]:
            f["predicted"] = False
    e = cl.gather_evidence(compare=measured, cost=reference_cost())["reread_fits_cache"]
    assert e.measured is True and "(measured)" in e.summary
    assert "measured" not in e.to_dict()  # not published: the evidence's JSON keys are a contract
    e_scen = cl.gather_evidence(cost=reference_cost())["reread_fits_cache"]
    assert e_scen.measured is False and "(scenario)" in e_scen.summary
    # the prediction rule reads the field: an unknown proposal whose summary merely says "(measured)" is left alone
    from costmodel.checklist.evidence_record import as_prediction

    worded = cl.Evidence("reread_fits_cache", "unknown", "hit ratio 95 % (measured) by hand", sources=("cost",))
    assert as_prediction(worded, ["sim"]).summary.endswith("hit ratio 95 % (measured) by hand")
    flagged = cl.Evidence("reread_fits_cache", "unknown", "hit ratio 95 % (measured)", sources=("compare",), measured=True)
    out = as_prediction(flagged, ["sim"])
    assert out.summary.endswith("hit ratio 95 % (predicted)") and out.predicted and not out.measured
