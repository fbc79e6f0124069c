"""One path for the CLI and the report: the report notebook's cells, run in this process, read the answers
file once, run the Monte Carlo once, report (not drop) runs the warm-up fit cannot analyse, and refuse a
bad ADR people list with the same error as `costmodel decide`."""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from support.results import as_recorded

import costmodel.checklist as checklist_mod
import costmodel.checklist.answers as answers_mod
import costmodel.cost.summary as summary_mod
from costmodel.foundation.errors import ChecklistError
from costmodel.foundation.resources import notebook_path


def _run_notebook_here(params: dict, tmp_path: Path) -> dict:
    """Execute the report notebook's code cells in this process (charts included) with ``params``."""
    nb = nbformat.read(notebook_path("report.ipynb"), as_version=4)
    cells = [c.source for c in nb.cells if c.cell_type == "code"]
    ns: dict = {"__name__": "__report__"}
    exec(compile(cells[0], "parameters", "exec"), ns)  # the defaults
    ns.update(params)
    ns.update(decision_path=str(tmp_path / "decision.json"), adr_path=str(tmp_path / "adr.md"))
    for i, src in enumerate(cells[1:], 1):
        exec(compile(src, f"cell{i}", "exec"), ns)
    return ns


@pytest.fixture
def counted(monkeypatch):
    calls = {"answers": 0, "monte_carlo": 0}
    real_read, real_mc = checklist_mod.read_answers_file, summary_mod.monte_carlo

    def read(*a, **k):
        calls["answers"] += 1
        return real_read(*a, **k)

    def mc(*a, **k):
        calls["monte_carlo"] += 1
        return real_mc(*a, **k)

    monkeypatch.setattr(checklist_mod, "read_answers_file", read)  # the face, and the module that reads the file
    monkeypatch.setattr(answers_mod, "read_answers_file", read)
    monkeypatch.setattr(summary_mod, "monte_carlo", mc)
    return calls


def _params(examples_dir: Path, **kw) -> dict:
    return {"colocated": [str(examples_dir / "colocated_steps.csv")], "remote": [str(examples_dir / "remote_steps.csv")],
            "scenario": str(examples_dir / "scenario.yaml"), "answers": str(examples_dir / "answers.yaml"),
            "monte_carlo_n": 300, "seed": 3, "date": "2026-12-02", **kw}


def test_a_report_reads_the_answers_once_and_draws_the_monte_carlo_once(counted, examples_dir, tmp_path):
    ns = _run_notebook_here(_params(examples_dir), tmp_path)
    assert counted == {"answers": 1, "monte_carlo": 1}
    # the charted draws are the summarised ones: their P5 is the table's
    import numpy as np

    cost = ns["cost"]
    for option, col in cost.mc_samples.items():
        assert np.percentile(col, 5) == pytest.approx(cost.result["monte_carlo"]["p5"][option], rel=1e-12)
    assert cost.mc_samples.shape == (300, 3)
    rec = json.loads((tmp_path / "decision.json").read_text())
    assert rec["title"] == ns["report"].report_title(ns["P"], ns["inputs"].answers) != ""
    assert rec["fit_left_out"] == []


def test_the_in_process_report_equals_the_verbs(cli, examples_dir, tmp_path):
    _run_notebook_here(_params(examples_dir), tmp_path)
    rec = json.loads((tmp_path / "decision.json").read_text())
    verb = cli.json

    cmp = verb("compare", "--colocated", examples_dir / "colocated_steps.csv", "--remote",
               examples_dir / "remote_steps.csv", "--json")
    (tmp_path / "compare.json").write_text(json.dumps(cmp))
    cost = verb("cost", examples_dir / "scenario.yaml", "--from-compare", tmp_path / "compare.json",
                "--monte-carlo", "300", "--seed", "3", "--json")
    assert rec["compare"] == as_recorded(cmp, tmp_path)  # the bundled files named costmodel/data/examples/...
    assert rec["cost"]["monte_carlo"] == cost["monte_carlo"]
    assert rec["cost"]["options"] == cost["options"]


def test_a_run_the_fit_cannot_analyse_is_named_not_dropped(cli, examples_dir, tmp_path):
    from costmodel import report
    from costmodel.foundation.errors import AnalysisError

    odd = tmp_path / "gpu_only.csv"  # a run with no throughput column: the fit cannot analyse it
    odd.write_text("step,t_s,gpu_util\n0,0.0,0.5\n1,1.0,0.6\n2,2.0,0.7\n")
    params = _params(examples_dir, remote=[str(examples_dir / "remote_steps.csv"), str(odd)], monte_carlo_n=0)
    P = report.validate_parameters(**params)
    inputs = report.load_inputs(P)
    fits = report.fit_runs(inputs, P)  # as `costmodel fit`: the run is left out, counted and named
    assert [f.run_id for f in fits] == ["colocated_steps", "remote_steps"]
    assert len(inputs.fit_left_out) == 1 and "'gpu_only'" in inputs.fit_left_out[0]
    assert "none of samples_per_s" in inputs.fit_left_out[0]
    r = cli("fit", odd, examples_dir / "remote_steps.csv", "--json")
    assert r.rc == 0 and inputs.fit_left_out[0] in r.err  # the same words as the verb's warning
    # the comparison needs every run's steady state: the report stops with `costmodel compare`'s error
    with pytest.raises(AnalysisError) as exc:
        report.compare_runs(inputs, P, fits)
    r = cli("compare", "--colocated", examples_dir / "colocated_steps.csv", "--remote",
            examples_dir / "remote_steps.csv", odd)
    assert r.rc == 2 and str(exc.value) in r.err


def test_bad_adr_people_are_the_same_error_in_decide_and_in_the_report(cli, examples_dir, tmp_path):
    bad = tmp_path / "answers.yaml"
    text = (examples_dir / "answers.yaml").read_text()
    assert "decision-makers:" in text
    import re

    bad.write_text(re.sub(r"(?m)^  decision-makers:.*$", "  decision-makers: {lead: 3}", text, count=1))
    r = cli("decide", "--answers", bad, "--json")
    assert r.rc == 2
    decide_err = r.lines[-1]
    assert "meta.decision-makers" in decide_err and "a name or a list of names" in decide_err
    with pytest.raises(ChecklistError) as exc:
        _run_notebook_here(_params(examples_dir, answers=str(bad), monte_carlo_n=0), tmp_path)
    assert str(exc.value) in decide_err
    out = tmp_path / "rep"
    r = cli("report", "--colocated", examples_dir / "colocated_steps.csv", "--remote", examples_dir / "remote_steps.csv",
            "--scenario", examples_dir / "scenario.yaml", "--answers", bad, "-o", out)
    assert r.rc == 2 and len(r.lines) == 1 and str(exc.value) in r.err and not out.exists()
