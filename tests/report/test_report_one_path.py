"""One path for the CLI and the report: the report notebook's cells, run in this process, read the answers
file once, run the Monte Carlo once, report (not drop) runs the warm-up fit cannot analyse, and refuse a
bad ADR people list with the same error as `costmodel decide`."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest

import costmodel.checklist as checklist_mod
import costmodel.cost.summary as summary_mod
from costmodel.cli import main
from costmodel.errors import ChecklistError
from costmodel.resources import notebook_path


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

    monkeypatch.setattr(checklist_mod, "read_answers_file", read)
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


def test_the_in_process_report_equals_the_verbs(examples_dir, tmp_path, capsys):
    _run_notebook_here(_params(examples_dir), tmp_path)
    rec = json.loads((tmp_path / "decision.json").read_text())
    capsys.readouterr()  # what the cells displayed

    def verb(*args):
        assert main([str(a) for a in args]) == 0
        return json.loads(capsys.readouterr().out)

    cmp = verb("compare", "--colocated", examples_dir / "colocated_steps.csv", "--remote",
               examples_dir / "remote_steps.csv", "--json")
    (tmp_path / "compare.json").write_text(json.dumps(cmp))
    cost = verb("cost", examples_dir / "scenario.yaml", "--from-compare", tmp_path / "compare.json",
                "--monte-carlo", "300", "--seed", "3", "--json")
    assert rec["compare"] == cmp
    assert rec["cost"]["monte_carlo"] == cost["monte_carlo"]
    assert rec["cost"]["options"] == cost["options"]


def test_a_run_the_fit_cannot_analyse_is_named_not_dropped(examples_dir, tmp_path, capsys):
    from costmodel import report
    from costmodel.errors import AnalysisError

    odd = tmp_path / "gpu_only.csv"  # a run with no throughput column: the fit cannot analyse it
    odd.write_text("step,t_s,gpu_util\n0,0.0,0.5\n1,1.0,0.6\n2,2.0,0.7\n")
    params = _params(examples_dir, remote=[str(examples_dir / "remote_steps.csv"), str(odd)], monte_carlo_n=0)
    P = report.validate_parameters(**params)
    inputs = report.load_inputs(P)
    fits = report.fit_runs(inputs, P)  # as `costmodel fit`: the run is left out, counted and named
    assert [f.run_id for f in fits] == ["colocated_steps", "remote_steps"]
    assert len(inputs.fit_left_out) == 1 and "'gpu_only'" in inputs.fit_left_out[0]
    assert "none of samples_per_s" in inputs.fit_left_out[0]
    assert main(["fit", str(odd), str(examples_dir / "remote_steps.csv"), "--json"]) == 0
    assert inputs.fit_left_out[0] in capsys.readouterr().err  # the same words as the verb's warning
    # the comparison needs every run's steady state: the report stops with `costmodel compare`'s error
    with pytest.raises(AnalysisError) as exc:
        report.compare_runs(inputs, P, fits)
    assert main(["compare", "--colocated", str(examples_dir / "colocated_steps.csv"), "--remote",
                 str(examples_dir / "remote_steps.csv"), str(odd)]) == 2
    assert str(exc.value) in capsys.readouterr().err


def test_bad_adr_people_are_the_same_error_in_decide_and_in_the_report(examples_dir, tmp_path, capsys):
    bad = tmp_path / "answers.yaml"
    text = (examples_dir / "answers.yaml").read_text()
    assert "decision-makers:" in text
    import re

    bad.write_text(re.sub(r"(?m)^  decision-makers:.*$", "  decision-makers: {lead: 3}", text, count=1))
    capsys.readouterr()
    assert main(["decide", "--answers", str(bad), "--json"]) == 2
    decide_err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "meta.decision-makers" in decide_err and "a name or a list of names" in decide_err
    with pytest.raises(ChecklistError) as exc:
        _run_notebook_here(_params(examples_dir, answers=str(bad), monte_carlo_n=0), tmp_path)
    assert str(exc.value) in decide_err
    out = tmp_path / "rep"
    assert main(["report", "--colocated", str(examples_dir / "colocated_steps.csv"), "--remote",
                 str(examples_dir / "remote_steps.csv"), "--scenario", str(examples_dir / "scenario.yaml"),
                 "--answers", str(bad), "-o", str(out)]) == 2
    report_err = capsys.readouterr().err
    assert str(exc.value) in report_err and not out.exists()
    shutil.rmtree(tmp_path / "rep", ignore_errors=True)
