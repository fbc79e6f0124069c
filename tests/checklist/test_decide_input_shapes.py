"""Round-3 audit fixes in `costmodel decide`: the shape of --compare/--cost/--fit is checked."""
from __future__ import annotations

import json

import pytest
from support.results import COMPARE, COST

FIT = [{"run_id": "spoke-2", "classification": "invalidation"}]


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, data in {"compare": COMPARE, "cost": COST, "fit": FIT, "empty": {}}.items():
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(data))
        out[name] = p
    return out


@pytest.mark.parametrize(
    "flag, given, words",
    [
        ("--compare", "cost", "missing key(s) ratio, remote_lost_s (this looks like `costmodel cost --json` output)"),
        ("--cost", "compare", "missing key(s) options, horizon_months (this looks like `costmodel compare --json` output)"),
        ("--compare", "fit", "missing key(s) ratio, remote_lost_s (this looks like `costmodel fit --json` output)"),
        ("--cost", "empty", "missing key(s) options, horizon_months"),
        ("--fit", "cost", "item 0: expected a fit from `costmodel fit --json` (keys run_id, classification)"),
        ("--fit", "empty", "missing key(s) run_id, classification"),
    ],
)
def test_swapped_or_wrong_inputs_exit_2_naming_the_file(cli, examples_dir, files, tmp_path, flag, given, words):
    adr_dir = tmp_path / "adr"
    rc, out, err = cli("decide", "--answers", examples_dir / "answers.yaml", flag, files[given],
                       "--adr", adr_dir, "--json")
    assert rc == 2 and out == "" and not adr_dir.exists()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"{flag} {files[given]}" in lines[0] and words in lines[0], lines


def test_right_inputs_and_a_reports_decision_json_are_accepted(cli, examples_dir, files, tmp_path):
    argv = ["decide", "--answers", examples_dir / "answers.yaml", "--json"]
    rc, out, err = cli(*argv, "--compare", files["compare"], "--cost", files["cost"], "--fit", files["fit"])
    assert rc == 0, err
    direct = json.loads(out)
    d = tmp_path / "decision.json"
    d.write_text(json.dumps({"verdict": "GO", "checklist": {}, "compare": COMPARE, "cost": COST, "fit": FIT}))
    rc, out, err = cli(*argv, "--compare", d, "--cost", d, "--fit", d)
    assert rc == 0, err
    assert json.loads(out)["items"] == direct["items"]
    by = {i["id"]: i for i in direct["items"]}
    assert by["cost_favourable"]["proposed"] == "yes"  # 30,000 vs 48,000 USD: the cost file was read
    assert by["states_covered"]["evidence"]["facts"]["covered"]["invalidation"] is True  # the fit file was read


def test_template_used_as_is_takes_every_proposal(cli, files, tmp_path):
    rc, tmpl, err = cli("decide", "--template", "--compare", files["compare"], "--cost", files["cost"])
    assert rc == 0, err
    assert "answer: unknown" not in tmpl and tmpl.count("{answer: null, note: \"\"}") == 14
    t = tmp_path / "t.yaml"
    t.write_text(tmpl)
    rc, out, err = cli("decide", "--answers", t, "--compare", files["compare"], "--cost", files["cost"], "--json")
    assert rc == 0, err
    items = {i["id"]: i for i in json.loads(out)["items"]}
    assert items["throughput_equivalent"]["answer"] == "yes" and items["throughput_equivalent"]["source"] == "evidence"
    assert items["cost_favourable"]["answer"] == "yes" and items["cost_favourable"]["source"] == "evidence"
    assert not any(i["overrides_evidence"] for i in items.values())
    assert all(i["person_answer"] is None for i in items.values())


def test_note_errors_name_the_answers_file(cli, tmp_path):
    a = tmp_path / "a.yaml"
    a.write_text("answers:\n  governance_allows: yes\n")
    rc, out, err = cli("decide", "--answers", a, "--json")
    assert rc == 2 and out == ""
    assert err.strip() == (f"costmodel decide: error: {a}: item 'governance_allows': a 'yes' on a blocker without "
                           "supporting evidence needs a note saying who or what confirms it")
