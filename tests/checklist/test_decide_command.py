"""`costmodel decide`: JSON contract, exit status, ADR writing, bad input exits 2 writing nothing."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.results import COMPARE, COST

from costmodel.checklist import ITEM_IDS


@pytest.fixture
def inputs(tmp_path):
    c = tmp_path / "compare.json"
    c.write_text(json.dumps(COMPARE))
    k = tmp_path / "cost.json"
    k.write_text(json.dumps(COST))
    f = tmp_path / "fit.json"
    f.write_text(json.dumps([{"run_id": "spoke-2", "classification": "invalidation"}]))
    return c, k, f


def test_json_contract_with_example_answers(cli, inputs, examples_dir, tmp_path):
    c, k, f = inputs
    adr_dir = tmp_path / "adr"
    rc, out, err = cli("decide", "--answers", str(examples_dir / "answers.yaml"),
                       "--compare", str(c), "--cost", str(k), "--fit", str(f),
                       "--adr", str(adr_dir), "--date", "2026-10-01", "--json")
    assert rc == 0, err
    data = json.loads(out)
    assert {"verdict", "blockers", "conditions", "items", "adr_path"} <= set(data)
    assert data["verdict"] == "CONDITIONAL"
    assert [i["id"] for i in data["items"]] == list(ITEM_IDS)
    by = {i["id"]: i for i in data["items"]}
    assert by["cost_favourable"]["answer"] == "yes" and by["cost_favourable"]["source"] == "evidence"
    # the person's "no" (invalidation not measured in the reference case) overrides the fit evidence
    assert by["states_covered"]["proposed"] == "yes" and by["states_covered"]["answer"] == "no"
    assert by["states_covered"]["overrides_evidence"] is True
    path = Path(data["adr_path"])
    assert path.parent == adr_dir and path.name.startswith("0001-train-llama-1b")
    text = path.read_text()
    assert "date: 2026-10-01" in text and "## Decision Outcome" in text
    for p in (examples_dir / "answers.yaml", c, k, f):
        from costmodel.foundation.util import sha256_file

        assert sha256_file(p) in text


def test_exit_zero_for_no_go_and_readable_output(cli, tmp_path):
    a = tmp_path / "a.yaml"
    a.write_text("answers:\n  governance_allows: {answer: no, note: EU only}\n")
    rc, out, _ = cli("decide", "--answers", str(a))
    assert rc == 0
    assert out.startswith("verdict: NO_GO") and "governance_allows: EU only" in out
    rc, out, _ = cli("decide", "--answers", str(a), "--json")
    assert json.loads(out)["blockers"][0]["id"] == "governance_allows"


@pytest.mark.parametrize(
    "answers_text, extra, match",
    [
        ("answers:\n  governence_allows: yes\n", [], "did you mean 'governance_allows'"),
        ("answers:\n  network_ready: maybe\n", [], "network_ready"),
        ("answers:\n  network_ready: no\n", [], "network_ready.*needs a note"),
        ("answers:\n  repetitions: yes\n", ["compare"], "repetitions.*against the evidence"),
        ("answers: {}\n", ["badjson"], "not valid JSON"),
        ("answers: {}\n", ["baddate"], "YYYY-MM-DD"),
        ("answers: {}\n", ["listcost"], "expected the JSON object"),
        ("answers: [\n", [], "not valid YAML"),
    ],
)
def test_bad_input_exits_2_one_line_nothing_written(cli, tmp_path, inputs, answers_text, extra, match):
    c, _k, _ = inputs
    a = tmp_path / "a.yaml"
    a.write_text(answers_text)
    adr_dir = tmp_path / "adr"
    argv = ["decide", "--answers", str(a), "--adr", str(adr_dir), "--json"]
    if "compare" in extra:
        argv += ["--compare", str(c)]
    if "badjson" in extra:
        bad = tmp_path / "c.json"
        bad.write_text("{not json")
        argv += ["--compare", str(bad)]
    if "baddate" in extra:
        argv += ["--date", "1 Oct 2026"]
    if "listcost" in extra:
        lc = tmp_path / "k.json"
        lc.write_text("[1, 2]")
        argv += ["--cost", str(lc)]
    rc, out, err = cli(*argv)
    assert rc == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("costmodel decide: error:")
    import re

    assert re.search(match, err), err
    assert not adr_dir.exists()


def test_supersedes(cli, tmp_path, examples_dir):
    adr_dir = tmp_path / "adr"
    answers = str(examples_dir / "answers.yaml")
    rc, out, err = cli("decide", "--answers", answers, "--adr", str(adr_dir), "--json")
    assert rc == 0, err
    first = Path(json.loads(out)["adr_path"])
    rc, out, err = cli("decide", "--answers", answers, "--adr", str(adr_dir), "--supersedes", "1",
                       "--json")
    assert rc == 0, err
    data = json.loads(out)
    assert Path(data["adr_path"]).name.startswith("0002-")
    assert Path(data["superseded_adr_path"]) == first
    assert 'status: "superseded by ADR-0002"' in first.read_text()
    rc, out, err = cli("decide", "--answers", answers, "--supersedes", "1", "--json")
    assert rc == 2 and "needs --adr" in err and out == ""
    rc, out, err = cli("decide", "--answers", answers, "--adr", str(adr_dir), "--supersedes", "7")
    assert rc == 2 and "no ADR numbered 0007" in err
    assert len(list(adr_dir.iterdir())) == 2


def test_template(cli, tmp_path, inputs):
    c, k, _ = inputs
    rc, out, err = cli("decide", "--template", "--compare", str(c), "--cost", str(k))
    assert rc == 0, err
    assert "# evidence proposes yes: remote/co-located steady ratio 0.998" in out
    t = tmp_path / "t.yaml"
    t.write_text(out)
    rc, out, err = cli("decide", "--answers", str(t), "--json")
    assert rc == 0 and json.loads(out)["verdict"] == "CONDITIONAL"
    rc, out, err = cli("decide", "--template", "--answers", str(t))
    assert rc == 2 and out == "" and "takes no --answers" in err
    rc, out, err = cli("decide", "--json")
    assert rc == 2 and out == "" and "--answers ANSWERS.yaml is required" in err


def test_missing_answers_file_exit_2(cli, tmp_path):
    rc, out, err = cli("decide", "--answers", str(tmp_path / "nope.yaml"), "--json")
    assert rc == 2 and out == "" and "answers file not found" in err


def test_console_script_subprocess(tmp_path, examples_dir):
    """The real process: exit 0 and strict JSON on stdout."""
    proc = subprocess.run(
        [sys.executable, "-m", "costmodel", "decide", "--answers", str(examples_dir / "answers.yaml"), "--json"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["verdict"] == "CONDITIONAL"
    assert "NaN" not in proc.stdout
