"""`-` for standard input where a file is read (issue 26, item 5): the scenario of `cost` and the answers of
`decide`, named `<stdin>` in messages and records with the SHA-256 of the bytes read; one `-` per command."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from support.paths import REPO


def _run(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "costmodel", *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=180, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin",
                                                       "COSTMODEL_TODAY": "2026-12-01"})


def _without_names(d: object, name: str) -> object:
    """``d`` with every string naming the scenario's source (``name``) replaced by a placeholder."""
    return json.loads(json.dumps(d).replace(name, "SOURCE"))


def test_cost_reads_the_scenario_from_standard_input(examples_dir, tmp_path):
    text = (examples_dir / "scenario.yaml").read_text(encoding="utf-8")
    piped = _run(tmp_path, "cost", "-", "--json", stdin=text)
    again = _run(tmp_path, "cost", "-", "--json", stdin=text)
    named = _run(tmp_path, "cost", str(examples_dir / "scenario.yaml"), "--json")
    assert piped.returncode == 0 == named.returncode, (piped.stderr, named.stderr)
    assert piped.stdout == again.stdout  # byte-reproducible: no temporary file name in the record
    a, b = json.loads(piped.stdout), json.loads(named.stdout)
    assert a["inputs"]["source"] == "<stdin>" and "source_sha256" not in b["inputs"]
    assert a["inputs"]["source_sha256"] == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert a["inputs"]["provenance"]["horizon_months"] == {"value": 12.0, "source": "scenario <stdin>"}
    a["inputs"].pop("source_sha256")
    assert _without_names(a, "<stdin>") == _without_names(b, str(examples_dir / "scenario.yaml"))
    assert a["options"]["cross_region"]["total_usd"] == b["options"]["cross_region"]["total_usd"] > 0
    longer = _run(tmp_path, "cost", "-", "--json", stdin=text.replace("horizon_months: 12", "horizon_months: 24"))
    assert json.loads(longer.stdout)["horizon_months"] == 24  # what was piped is what was priced


def test_a_bad_scenario_on_standard_input_is_named_with_its_line(tmp_path):
    bad = _run(tmp_path, "cost", "-", stdin="horizon_months: 12\ndataset: [\n")
    assert bad.returncode == 2
    assert bad.stderr.startswith("costmodel cost: error: <stdin>: not valid YAML at line 3: ")
    assert len(bad.stderr.splitlines()) == 1
    key = _run(tmp_path, "cost", "-", stdin="horizon_months: -3\n")
    assert key.returncode == 2 and key.stderr.startswith("costmodel cost: error: <stdin>: horizon_months: "), key.stderr
    empty = _run(tmp_path, "cost", "-", stdin="")
    assert empty.returncode == 2
    assert empty.stderr == "costmodel cost: error: <stdin>: standard input is empty (pipe a scenario YAML into it)\n"
    two = _run(tmp_path, "cost", "-", "--from-compare", "-", stdin="{}")
    assert two.returncode == 2
    assert two.stderr == ("costmodel cost: error: only one input can come from standard input ('-'); "
                          "got SCENARIO, --from-compare\n")


def test_decide_reads_the_answers_from_standard_input(examples_dir, tmp_path):
    text = (examples_dir / "answers.yaml").read_text(encoding="utf-8")
    piped = _run(tmp_path, "decide", "--answers", "-", "--json", "--adr", "adr", "--date", "2026-10-01", stdin=text)
    named = _run(tmp_path, "decide", "--answers", str(examples_dir / "answers.yaml"), "--json")
    assert piped.returncode == 0 == named.returncode, (piped.stderr, named.stderr)
    a, b = json.loads(piped.stdout), json.loads(named.stdout)
    assert a.pop("adr_path") and a == b  # the same verdict, items and reasons
    (record,) = (tmp_path / "adr").glob("*.md")
    rows = [ln for ln in record.read_text(encoding="utf-8").splitlines() if ln.startswith("| answers |")]
    assert rows == [f"| answers | &lt;stdin&gt; | `{hashlib.sha256(text.encode('utf-8')).hexdigest()}` |"]


def test_bad_answers_on_standard_input_are_named_with_their_line(tmp_path):
    bad = _run(tmp_path, "decide", "--answers", "-", stdin="answers:\n  x: [\n")
    assert bad.returncode == 2
    assert bad.stderr.startswith("costmodel decide: error: <stdin>:3: not valid YAML: ")
    item = _run(tmp_path, "decide", "--answers", "-", stdin="answers:\n  governance_allows: {answer: maybe}\n")
    assert item.returncode == 2
    assert item.stderr.startswith("costmodel decide: error: <stdin>: item 'governance_allows': answer 'maybe'")
    two = _run(tmp_path, "decide", "--answers", "-", "--cost", "-", stdin="answers: {}\n")
    assert two.returncode == 2
    assert two.stderr == ("costmodel decide: error: only one input can come from standard input ('-'); "
                          "got --answers, --cost\n")
    assert not list(tmp_path.iterdir())  # nothing written
