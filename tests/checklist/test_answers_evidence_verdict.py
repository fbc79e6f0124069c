"""The go/no-go checklist: answers files, automatic evidence with hand-computed figures, verdict rules."""
from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.results import reference_compare, reference_cost

from costmodel import checklist as cl
from costmodel.checklist import ITEM_IDS, ITEMS, Answer
from costmodel.foundation.errors import ChecklistError


def all_yes() -> dict[str, Answer]:
    return {i.id: Answer(i.id, "yes", "confirmed by the owner") for i in ITEMS}


# ------------------------------------------------------------------ catalogue


def test_catalogue_covers_the_seven_questions_and_expert_items():
    assert len(ITEM_IDS) == len(set(ITEM_IDS)) == 14
    for core in ("reread_fits_cache", "network_ready", "governance_allows", "cost_favourable",
                 "failure_recovery", "states_covered", "checkpoints_independent"):
        assert core in ITEM_IDS
    for expert in ("link_headroom", "warmup_share", "cache_headroom", "transfer_budget", "throughput_equivalent",
                   "steady_after_warmup", "repetitions"):
        assert expert in ITEM_IDS
    for item in ITEMS:
        assert item.severity in ("blocker", "warning")
        assert item.question.endswith("?") and item.why and item.condition
        assert set(item.to_dict()) >= {"id", "question", "why", "severity"}


# ------------------------------------------------------------------ answers files


def test_bare_yes_no_on_off_stay_words(tmp_path):
    p = tmp_path / "a.yaml"
    p.write_text(
        "answers:\n"
        "  network_ready: yes\n"
        "  governance_allows: {answer: No, note: no}\n"
        "  failure_recovery: {answer: unknown}\n"
        "  checkpoints_independent: {answer: true, note: 'true'}\n"
    )
    a = cl.load_answers(p)
    assert a["network_ready"] == Answer("network_ready", "yes", "")
    assert a["governance_allows"].answer == "no" and a["governance_allows"].note == "no"
    assert a["failure_recovery"].answer == "unknown"
    # explicit YAML booleans true/false mean yes/no; the note stays text
    assert a["checkpoints_independent"].answer == "yes" and a["checkpoints_independent"].note == "true"


def test_on_is_not_an_answer(tmp_path):
    p = tmp_path / "a.yaml"
    p.write_text("answers:\n  network_ready: on\n")
    with pytest.raises(ChecklistError, match=r"network_ready.*'on'.*yes, no, unknown"):
        cl.load_answers(p)


def test_duplicate_item_is_an_error(tmp_path):
    p = tmp_path / "a.yaml"
    p.write_text("answers:\n  network_ready: yes\n  repetitions: no\n  network_ready: no\n")
    with pytest.raises(ChecklistError, match=r"a.yaml: line 4: 'network_ready' is given twice \(first on line 2\)"):
        cl.load_answers(p)


def test_unknown_item_suggests_closest(tmp_path):
    p = tmp_path / "a.yaml"
    p.write_text("answers:\n  governance_allow: {answer: yes, note: x}\n")
    with pytest.raises(ChecklistError, match=r"governance_allow'.*did you mean 'governance_allows'"):
        cl.load_answers(p)


def test_bad_answer_value_names_item():
    with pytest.raises(ChecklistError, match=r"item 'repetitions': answer 'maybe'"):
        cl.parse_answers({"answers": {"repetitions": {"answer": "maybe"}}})


def test_no_on_blocker_needs_note():
    with pytest.raises(ChecklistError, match=r"governance_allows.*needs a note"):
        cl.parse_answers({"answers": {"governance_allows": {"answer": "no"}}})
    # on a warning a bare no is fine
    assert cl.parse_answers({"answers": {"repetitions": "no"}})["repetitions"].answer == "no"


@pytest.mark.parametrize(
    "data, match",
    [
        ([1, 2], "expected a mapping"),
        ({"answers": ["network_ready"]}, "'answers' must be a mapping"),
        ({"answers": {}, "extra": 1}, "unexpected top-level"),
        ({"answers": {"network_ready": {"answer": "yes", "nite": "x"}}}, "network_ready.*unexpected key"),
        ({"answers": {"network_ready": {"note": "x"}}}, "network_ready.*missing 'answer'"),
        ({"answers": {"network_ready": {"answer": "yes", "note": ["a"]}}}, "network_ready.*note must be text"),
    ],
)
def test_malformed_answers(data, match):
    with pytest.raises(ChecklistError, match=match):
        cl.parse_answers(data, source="f.yaml")


def test_file_errors(tmp_path):
    with pytest.raises(ChecklistError, match="not found"):
        cl.load_answers(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("answers:\n  network_ready: [yes\n")
    with pytest.raises(ChecklistError, match=r"bad.yaml:\d+: not valid YAML"):
        cl.load_answers(bad)
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    assert cl.load_answers(empty) == {}


def test_save_and_load_round_trip(tmp_path):
    answers = {
        "network_ready": Answer("network_ready", "yes", "10 Gbit/s, two routes: NET-12"),
        "governance_allows": Answer("governance_allows", "no", "residency: EU only"),
        "repetitions": Answer("repetitions", "unknown", ""),
    }
    p = cl.save_answers(tmp_path / "out.yaml", answers, meta={"title": "T"})
    text = p.read_text()
    # any YAML reader (even one that turns bare yes into True) reads the saved answers as words
    import yaml

    raw = yaml.safe_load(text)
    assert raw["answers"]["network_ready"]["answer"] == "yes"
    assert cl.load_answers(p) == answers
    assert cl.read_answers_file(p)[1] == {"title": "T"}


def test_answers_template_loads_and_lists_every_item(tmp_path):
    ev = cl.gather_evidence(compare=reference_compare(), cost=reference_cost())
    text = cl.answers_template(ev)
    p = tmp_path / "t.yaml"
    p.write_text(text)
    answers, meta = cl.read_answers_file(p)
    assert answers == {}  # every answer is empty: the evidence's proposals count as they are
    for iid in ITEM_IDS:
        assert f'  {iid}: {{answer: null, note: ""}}' in text
    assert cl.evaluate(answers, ev).to_dict() == cl.evaluate({}, ev).to_dict()
    assert meta["title"]
    assert "# evidence proposes yes: cross-region $30,000 vs replicate $48,000" in text
    assert "# evidence proposes no: 1 co-located and 1 remote runs" in text
    assert text.count("no automatic evidence") == 4


def test_example_answers_file_is_valid(examples_dir):
    answers, meta = cl.read_answers_file(examples_dir / "answers.yaml")
    assert meta["title"]
    assert answers["states_covered"].answer == "no"  # invalidation was not measured
    assert answers["governance_allows"].answer == "unknown"
    assert all(a.note for a in answers.values()), "every reference answer carries its reason"


# ------------------------------------------------------------------ evidence


def test_reference_evidence_numbers():
    ev = cl.gather_evidence(compare=reference_compare(), cost=reference_cost())
    assert set(ev) == set(ITEM_IDS)
    r = ev["reread_fits_cache"]
    assert r.proposed == "yes"
    assert r.facts["reads_per_month"] == 12 and r.facts["steady_hit_ratio"] == 0.95
    assert r.facts["steady_hit_ratio_source"] == "compare"
    c = ev["cost_favourable"]
    assert c.proposed == "yes" and c.facts["cross_region_extra_usd"] == -18000.0
    assert "saves $18,000" in c.summary
    assert ev["throughput_equivalent"].proposed == "yes"
    assert ev["repetitions"].proposed == "no" and ev["repetitions"].facts["remote_runs"] == 1
    assert ev["steady_after_warmup"].proposed == "yes"
    s = ev["states_covered"]
    assert s.proposed == "no"
    assert s.facts["covered"] == {"cold_start": True, "steady_state": True, "invalidation": False}
    assert "missing: invalidation" in s.summary
    # link: 1.2e9 B/s read, 5 % misses = 6e7 B/s over a 10 Gbit/s = 1.25e9 B/s link = 4.8 %
    link = ev["link_headroom"]
    assert link.proposed == "yes"
    assert link.facts["cross_region_bytes_per_s"] == pytest.approx(6.0e7)
    assert link.facts["steady_link_utilisation"] == pytest.approx(0.048)
    assert link.facts["cold_link_utilisation"] == pytest.approx(0.96)
    # warm-up: 600 s x (1 cold start / 4 runs) / (48 h x 3600) = 0.000868
    w = ev["warmup_share"]
    assert w.proposed == "yes"
    assert w.facts["warmup_share"] == pytest.approx(600 * 0.25 / 172800)
    ch = ev["cache_headroom"]
    assert ch.proposed == "yes" and ch.facts["capacity_to_working_set"] == pytest.approx(153.5)
    # transfer: 24,000 over 12 months = 2,000/month against 2,500
    b = ev["transfer_budget"]
    assert b.proposed == "yes" and b.facts["transfer_usd_per_month"] == pytest.approx(2000.0)
    for manual in ("network_ready", "governance_allows", "failure_recovery", "checkpoints_independent"):
        assert ev[manual].proposed == "unknown"


def test_evidence_proposes_no():
    compare = reference_compare()
    compare.update(ratio=0.90, ratio_ci_low=0.88, ratio_ci_high=0.92, equivalent=False,
                   remote_steady_hit_ratio=0.5, remote_extra_warmup_s=7200.0)
    cost = reference_cost()
    cost["options"]["cross_region"]["total_usd"] = 60000.0
    cost["options"]["cross_region"]["terms"]["transfer_usd"] = {"per_month_usd": 3000.0, "total_usd": 36000.0}
    cost["inputs"]["cache"]["capacity_gb"] = 450.0
    cost["inputs"]["training"]["run_hours"] = 2
    cost["inputs"]["cache"]["cold_starts_per_month"] = 4
    ev = cl.gather_evidence(compare=compare, cost=cost)
    assert ev["reread_fits_cache"].proposed == "no" and "below 80.0 %" in ev["reread_fits_cache"].summary
    assert ev["cost_favourable"].proposed == "no" and "cheaper by $12,000" in ev["cost_favourable"].summary
    assert ev["throughput_equivalent"].proposed == "no"
    # 450 / 400 = 1.125 < 1.2
    assert ev["cache_headroom"].proposed == "no"
    assert ev["cache_headroom"].facts["capacity_to_working_set"] == pytest.approx(1.125)
    # 7200 s x 1 cold start per run / 7200 s run = 100 %
    assert ev["warmup_share"].proposed == "no" and ev["warmup_share"].facts["warmup_share"] == pytest.approx(1.0)
    # 1.2e9 x 0.5 = 6e8 B/s = 48 % of 1.25e9 -> still within half the link
    assert ev["link_headroom"].facts["steady_link_utilisation"] == pytest.approx(0.48)
    assert ev["link_headroom"].proposed == "yes"
    assert ev["transfer_budget"].proposed == "no" and ev["transfer_budget"].facts["transfer_usd_per_month"] == 3000.0


def test_working_set_larger_than_cache_is_no():
    cost = reference_cost()
    cost["inputs"]["dataset"]["size_gb"] = 100000.0
    ev = cl.gather_evidence(cost=cost)
    assert ev["reread_fits_cache"].proposed == "no"
    assert "does not fit the cache" in ev["reread_fits_cache"].summary


def test_read_once_is_no():
    cost = reference_cost()
    cost["inputs"]["training"].update(epochs_per_run=1, runs_per_month=1)
    assert cl.gather_evidence(cost=cost)["reread_fits_cache"].proposed == "no"


@pytest.mark.parametrize(
    "remote, proposed, text",
    [
        ([{"run_id": "s1", "classification": "warmup"}], "yes", "s1: warmup"),
        ([{"run_id": "s1", "classification": "dips", "dip_loss_fraction": 0.004}], "yes", "cost only 0.4 %"),
        ([{"run_id": "s1", "classification": "dips", "dip_loss_fraction": 0.03}], "no", "cost 3.0 % of throughput"),
        ([{"run_id": "s1", "classification": "dips"}], "no", "an unmeasured share"),
        ([{"run_id": "s1", "classification": "flat"}, {"run_id": "s2", "classification": "slowdown"}], "no",
         "s2: slowdown"),
        ([{"run_id": "s1", "classification": "too_short"}], "unknown", "no remote run with a usable steady state"),
        ([], "unknown", "no remote fit given"),
    ],
)
def test_steady_after_warmup(remote, proposed, text):
    compare = reference_compare()
    compare["remote"] = remote
    ev = cl.gather_evidence(compare=compare)["steady_after_warmup"]
    assert ev.proposed == proposed and text in ev.summary


def test_every_read_cold_is_no():
    cost = reference_cost()
    cost["inputs"]["training"].update(epochs_per_run=1, runs_per_month=4)
    cost["inputs"]["cache"]["cold_starts_per_month"] = 4  # cache flushed before every run
    ev = cl.gather_evidence(cost=cost)["reread_fits_cache"]
    assert ev.proposed == "no" and ev.facts["warm_reads_per_month"] == 0
    assert "every read starts with a cold cache" in ev.summary


def test_capacity_unknown_still_proposes_from_hit_ratio():
    cost = reference_cost()
    del cost["inputs"]["cache"]["capacity_gb"]
    ev = cl.gather_evidence(cost=cost)["reread_fits_cache"]
    assert ev.proposed == "yes" and "fit not checked" in ev.summary


def test_inconclusive_equivalence_and_uncertain_cost():
    compare = reference_compare()
    compare.update(ratio=0.99, ratio_ci_low=0.95, ratio_ci_high=1.03, equivalent=False)
    cost = reference_cost()
    cost["monte_carlo"] = {"p_cheapest": {"cross_region": 0.4, "replicate": 0.6, "wait": 0.0}}
    ev = cl.gather_evidence(compare=compare, cost=cost)
    assert ev["throughput_equivalent"].proposed == "unknown"
    assert "inconclusive" in ev["throughput_equivalent"].summary
    assert ev["cost_favourable"].proposed == "unknown"
    assert "cross-region cheapest in 40.0 % of draws" in ev["cost_favourable"].summary


def test_cost_materiality():
    """A replica cheaper by less than 1 % of the cluster spend does not decide; by more, it does."""
    cost = reference_cost()
    cost["inputs"]["training"]["cluster_usd_per_hour"] = 100.0
    # spend = 12 months x 4 runs x 48 h x 100 USD/h = 230,400; 1 % = 2,304
    cost["options"]["cross_region"]["total_usd"] = 50000.0  # 2,000 more than the replica
    ev = cl.gather_evidence(cost=cost)["cost_favourable"]
    assert ev.facts["cluster_spend_usd"] == pytest.approx(230400.0)
    assert ev.facts["materiality_usd"] == pytest.approx(2304.0)
    assert ev.proposed == "yes" and "cheaper by only $2,000 (0.9 % of the $230,400" in ev.summary
    cost["options"]["cross_region"]["total_usd"] = 50400.0  # 2,400 more: material
    ev = cl.gather_evidence(cost=cost)["cost_favourable"]
    assert ev.proposed == "no" and "cheaper by $2,400 (1.0 %" in ev.summary


def test_cost_command_shape():
    """The shape `costmodel cost --json` prints: resolved scenario under inputs.values, derived figures,
    monthly terms beside the horizon totals."""
    cost = {
        "horizon_months": 12,
        "cheapest": "replicate",
        "options": {
            "cross_region": {"total_usd": 497.86, "per_month_usd": 41.49,
                             "terms": {"transfer_usd": 315.97},
                             "terms_per_month_usd": {"transfer_usd": 26.33}},
            "replicate": {"total_usd": 253.76, "per_month_usd": 21.15, "terms": {}},
            "wait": {"total_usd": 172800.0, "per_month_usd": 14400.0, "terms": {}},
        },
        "derived": {"working_set_gb": 792.9856, "training_hours_per_month": 192.0},
        "inputs": {"source": "scenario.yaml", "values": {
            "training": {"runs_per_month": 4.0, "epochs_per_run": 3.0, "run_hours": 48.0,
                         "cluster_usd_per_hour": 196.64},
            "cache": {"capacity_gb": 61440.0, "steady_hit_ratio": 0.949, "cold_starts_per_month": 1.0,
                      "warmup_lost_s": 57.7},
            "dataset": {"size_gb": 792.9856, "working_set_fraction": 1.0},
            "transfer_budget_usd_per_month": 20.0,
        }},
    }
    ev = cl.gather_evidence(cost=cost)
    # 12 x 192 h x 196.64 = 453,058.56 USD of cluster time; the replica saves 244.10 = 0.05 %
    c = ev["cost_favourable"]
    assert c.facts["cluster_spend_usd"] == pytest.approx(453058.56)
    assert c.facts["cross_region_extra_usd"] == pytest.approx(244.10)
    assert c.proposed == "yes" and "0.05 % of the $453,059 cluster spend" in c.summary
    assert ev["cache_headroom"].facts["capacity_to_working_set"] == pytest.approx(61440.0 / 792.9856)
    assert ev["reread_fits_cache"].proposed == "yes"
    assert ev["transfer_budget"].facts["transfer_usd_per_month"] == 26.33
    assert ev["transfer_budget"].proposed == "no"
    # warm-up from the scenario: 57.7 s x 1/4 cold start per run / 48 h
    assert ev["warmup_share"].facts["warmup_share"] == pytest.approx(57.7 * 0.25 / 172800)


def test_states_covered_with_invalidation_run_and_separate_fits():
    fits = [{"run_id": "spoke-inv", "role": "remote", "classification": "invalidation", "warmup_end_step": 90}]
    ev = cl.gather_evidence(compare=reference_compare(), fits=fits)
    assert ev["states_covered"].proposed == "yes"
    assert ev["states_covered"].facts["runs"] == 3
    # the same run given twice counts once
    dup = cl.gather_evidence(compare=reference_compare(), fits=reference_compare()["remote"])
    assert dup["states_covered"].facts["runs"] == 2


def test_missing_keys_and_garbage_never_crash():
    garbage_compare = {"ratio": "fast", "ratio_ci_low": None, "equivalent": "maybe", "margin": float("nan"),
                       "colocated": "x", "remote": [1, None, {"classification": None}],
                       "remote_steady_read_bytes_per_s": [1], "remote_steady_hit_ratio": {}}
    garbage_cost = {"options": {"cross_region": None, "replicate": {"total_usd": "a lot"}},
                    "inputs": {"dataset": 5, "cache": {"capacity_gb": None}}, "horizon_months": 0}
    for compare, cost, fits in [
        (None, None, None),
        ({}, {}, []),
        (garbage_compare, garbage_cost, [None, 3, {"run_id": None}]),
        ("not a dict", ["nor", "this"], None),
    ]:
        ev = cl.gather_evidence(compare=compare, cost=cost, fits=fits)
        assert set(ev) == set(ITEM_IDS)
        for e in ev.values():
            assert e.proposed in ("yes", "no", "unknown")
        d = cl.evaluate({}, ev)
        assert d.verdict in ("CONDITIONAL", "NO_GO")
    ev = cl.gather_evidence(compare=garbage_compare, cost=garbage_cost)
    assert ev["cost_favourable"].proposed == "unknown"
    assert ev["throughput_equivalent"].proposed == "unknown"


def test_result_objects_with_to_dict_are_accepted():
    class Result:
        def __init__(self, d):
            self.d = d

        def to_dict(self):
            return self.d

    a = cl.gather_evidence(compare=Result(reference_compare()), cost=Result(reference_cost()),
                           fits=[Result({"run_id": "x", "classification": "invalidation"})])
    b = cl.gather_evidence(compare=reference_compare(), cost=reference_cost(),
                           fits=[{"run_id": "x", "classification": "invalidation"}])
    assert a == b and a["states_covered"].proposed == "yes"


def test_null_hit_ratio_falls_back_to_scenario():
    compare = reference_compare()
    compare["remote_steady_hit_ratio"] = None
    ev = cl.gather_evidence(compare=compare, cost=reference_cost())
    assert ev["reread_fits_cache"].facts["steady_hit_ratio_source"] == "cost"


# ------------------------------------------------------------------ verdict


def test_all_yes_is_go():
    # yes to repetitions and states_covered overrides the evidence; every answer carries a note
    d = cl.evaluate(all_yes(), cl.gather_evidence(compare=reference_compare(), cost=reference_cost()))
    assert d.verdict == "GO" and d.blockers == () and d.conditions == ()
    assert d.reasons == ["every item is answered yes"]


def test_blocker_no_is_no_go():
    answers = all_yes()
    answers["governance_allows"] = Answer("governance_allows", "no", "EU residency rule R-7")
    d = cl.evaluate(answers, cl.gather_evidence())
    assert d.verdict == "NO_GO"
    assert [b["id"] for b in d.blockers] == ["governance_allows"]
    assert d.blockers[0]["reason"] == "EU residency rule R-7"


def test_unknown_blocker_is_never_go():
    answers = all_yes()
    answers["network_ready"] = Answer("network_ready", "unknown", "")
    d = cl.evaluate(answers, cl.gather_evidence())
    assert d.verdict == "CONDITIONAL"
    assert [c["id"] for c in d.conditions] == ["network_ready"]
    assert d.conditions[0]["condition"].startswith("Confirm link bandwidth")


def test_warning_no_is_conditional():
    answers = all_yes()
    answers["repetitions"] = Answer("repetitions", "no", "")
    d = cl.evaluate(answers, cl.gather_evidence())
    assert d.verdict == "CONDITIONAL" and [c["id"] for c in d.conditions] == ["repetitions"]


def test_unanswered_items_take_the_evidence():
    ev = cl.gather_evidence(compare=reference_compare(), cost=reference_cost())
    d = cl.evaluate({}, ev)
    by = {r.item.id: r for r in d.items}
    assert by["cost_favourable"].answer == "yes" and by["cost_favourable"].source == "evidence"
    assert by["network_ready"].answer == "unknown" and by["network_ready"].source == "none"
    assert d.verdict == "CONDITIONAL"


def test_override_needs_note_and_is_shown():
    ev = cl.gather_evidence(compare=reference_compare(), cost=reference_cost())
    bare = {"repetitions": Answer("repetitions", "yes", "")}
    with pytest.raises(ChecklistError, match=r"item 'repetitions': answering 'yes' against the evidence"):
        cl.evaluate(bare, ev)
    # the widgets' lenient mode: the answer is not accepted, the problem is listed
    d = cl.evaluate(bare, ev, strict=False)
    rep = next(r for r in d.items if r.item.id == "repetitions")
    assert rep.answer == "no" and rep.source == "evidence" and rep.problem
    assert d.problems and d.problems[0].startswith("repetitions:")
    noted = {"repetitions": Answer("repetitions", "yes", "3 more runs each in RUN-88, not yet ingested")}
    d = cl.evaluate(noted, ev)
    rep = next(r for r in d.items if r.item.id == "repetitions")
    assert rep.answer == "yes" and rep.proposed == "no" and rep.overrides_evidence
    item = next(i for i in d.to_dict()["items"] if i["id"] == "repetitions")
    assert item["answer"] == "yes" and item["proposed"] == "no" and item["person_answer"] == "yes"


def test_yes_on_blocker_without_evidence_needs_note():
    with pytest.raises(ChecklistError, match=r"governance_allows.*who or what confirms it"):
        cl.evaluate({"governance_allows": Answer("governance_allows", "yes", "")}, cl.gather_evidence())
    # where evidence agrees, a bare yes is fine
    ev = cl.gather_evidence(cost=reference_cost())
    d = cl.evaluate({"cost_favourable": Answer("cost_favourable", "yes", "")}, ev)
    assert next(r for r in d.items if r.item.id == "cost_favourable").source == "person"


def test_to_dict_and_table_contract():
    ev = cl.gather_evidence(compare=reference_compare(), cost=reference_cost())
    d = cl.evaluate({"repetitions": Answer("repetitions", "no", "")}, ev)
    out = d.to_dict()
    assert {"verdict", "blockers", "conditions", "items"} <= set(out)
    assert len(out["items"]) == len(ITEMS)
    for item in out["items"]:
        assert {"id", "answer", "proposed", "evidence", "status"} <= set(item)
        assert item["status"] in ("ok", "blocker", "condition")
    import json

    from costmodel.foundation.util import dumps

    json.loads(dumps(out))  # strict JSON
    t = d.table()
    assert list(t["id"]) == list(ITEM_IDS)
    assert {"answer", "proposed", "evidence", "status", "note", "source"} <= set(t.columns)
    assert t.set_index("id").loc["cost_favourable", "proposed"] == "yes"


_answer = st.sampled_from(["yes", "no", "unknown", None])


@settings(max_examples=150, deadline=None)
@given(st.lists(_answer, min_size=len(ITEMS), max_size=len(ITEMS)))
def test_verdict_rules_property(choices):
    answers = {i.id: Answer(i.id, a, "because") for i, a in zip(ITEMS, choices, strict=True) if a is not None}
    d = cl.evaluate(answers, cl.gather_evidence())
    effective = {i.id: (a or "unknown") for i, a in zip(ITEMS, choices, strict=True)}
    blocker_no = any(effective[i.id] == "no" and i.severity == "blocker" for i in ITEMS)
    if blocker_no:
        assert d.verdict == "NO_GO"
    elif all(v == "yes" for v in effective.values()):
        assert d.verdict == "GO"
    else:
        assert d.verdict == "CONDITIONAL"
    if any(effective[i.id] == "unknown" and i.severity == "blocker" for i in ITEMS):
        assert d.verdict != "GO"


def test_deterministic():
    ev1 = cl.gather_evidence(compare=reference_compare(), cost=reference_cost())
    ev2 = cl.gather_evidence(compare=copy.deepcopy(reference_compare()), cost=copy.deepcopy(reference_cost()))
    assert cl.evaluate({}, ev1).to_dict() == cl.evaluate({}, ev2).to_dict()


def test_reference_example_is_conditional(examples_dir):
    answers = cl.load_answers(examples_dir / "answers.yaml")
    d = cl.evaluate(answers, cl.gather_evidence(compare=reference_compare(), cost=reference_cost()))
    assert d.verdict == "CONDITIONAL"
    ids = {c["id"] for c in d.conditions}
    assert {"governance_allows", "network_ready", "states_covered", "repetitions"} <= ids
