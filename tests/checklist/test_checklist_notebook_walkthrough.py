"""The checklist walk-through notebook: its parameters mirror the package, papermill runs it with
defaults to the bundled example's verdict (NO_GO since issue 25: the measured cross-region bytes), evidence can come from the CLI verbs' JSON,
and the widget it shows saves answers that batch mode reads back to the same verdict."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import nbformat
import pytest
from support.paths import REPO

from costmodel import checklist, interactive, report
from costmodel.cli import main
from costmodel.foundation.errors import ReportError
from costmodel.foundation.util import dumps

CHECKLIST_NB = REPO / "costmodel" / "notebooks" / "checklist.ipynb"


def test_parameters_cell_mirrors_the_package_and_the_notebook_holds_no_logic():
    nb = nbformat.read(CHECKLIST_NB, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].metadata.get("tags") == ["parameters"]
    defaults = {}
    for node in ast.parse(code[0].source).body:
        assert isinstance(node, ast.AnnAssign), "parameters are literal annotated assignments"
        defaults[node.target.id] = ast.literal_eval(node.value)
    assert defaults == {k: v.default for k, v in report.CHECKLIST_PARAMETERS.items()}
    assert "validate_checklist_parameters(globals())" in code[1].source
    bound = set()
    for cell in code[1:]:
        tree = ast.parse(cell.source)
        assert not any(isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.For, ast.If, ast.While)) for n in ast.walk(tree))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound.add(node.id)
    assert bound <= report.CHECKLIST_NOTEBOOK_NAMES
    source = "\n".join(c.source for c in code)
    assert "checklist.gather_evidence(" in source and "interactive.checklist_wizard(" in source
    assert "wizard.widget" in source and "report.checklist_table(" in source
    import papermill as pm

    seen = pm.inspect_notebook(str(CHECKLIST_NB))
    assert set(seen) == set(report.CHECKLIST_PARAMETERS) and all(seen[k]["help"] for k in seen)


def _html_outputs(nb) -> str:
    return "\n".join(o.get("data", {}).get("text/html", "") for c in nb.cells if c.cell_type == "code"
                     for o in c.outputs)


def _run(tmp_path: Path, **parameters):
    import papermill as pm

    out = tmp_path / "out.ipynb"
    nb = pm.execute_notebook(str(CHECKLIST_NB), str(out), parameters=parameters, kernel_name="python3",
                             progress_bar=False, cwd=str(tmp_path))
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    return nb


def test_papermill_with_defaults_gives_the_bundled_examples_verdict(tmp_path):
    nb = _run(tmp_path)
    page = _html_outputs(nb)
    # issue 36: the measured 913.8 GB/month is priced at the 793 GB that can cross a cache that holds the working set
    # 77x; replicate is cheaper by only USD 54 (0.01 % of the cluster spend): cost does not block
    assert ">CONDITIONAL</span>" in page
    # the static table is the one batch mode gives for the same inputs
    p = report.validate_checklist_parameters()
    src = report.evidence_sources(p)
    d = report.batch_decision(p, checklist.gather_evidence(compare=src.compare, cost=src.cost, fits=src.fits))
    assert d.verdict == "CONDITIONAL" and d.blockers == ()
    for c in d.conditions:
        assert f">{c['id']}</span>" in page
    widgets = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
               if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(widgets) == 1  # the walk-through is shown (stateless under papermill)
    assert "compared from colocated_steps.csv, remote_steps.csv" in page
    assert sorted(x.name for x in tmp_path.iterdir()) == ["out.ipynb"]  # nothing saved in batch


@pytest.fixture(scope="module")
def verb_outputs(cli, tmp_path_factory, examples_dir):
    """compare / fit / cost JSON from the CLI verbs on the bundled example."""
    d = tmp_path_factory.mktemp("verbs")

    def verb(name: str, *args: str) -> Path:
        r = cli(*args, "--json")
        assert r.rc == 0, r.err
        (d / name).write_text(r.out)
        return d / name

    colo, remote = str(examples_dir / "colocated_steps.csv"), str(examples_dir / "remote_steps.csv")
    cmp = verb("compare.json", "compare", "--colocated", colo, "--remote", remote)
    fit = verb("fit.json", "fit", "--role", "remote", remote)
    cost = verb("cost.json", "cost", str(examples_dir / "scenario.yaml"), "--from-compare", str(cmp),
                "--monte-carlo", "2000", "--seed", "0")
    return {"compare": cmp, "fit": fit, "cost": cost, "dir": d}


def test_evidence_from_the_verbs_json_gives_what_costmodel_decide_prints(verb_outputs, examples_dir, capsys, tmp_path):
    p = report.validate_checklist_parameters(compare_json=str(verb_outputs["compare"]),
                                             cost_json=str(verb_outputs["cost"]), fit_json=str(verb_outputs["fit"]))
    assert not p.needs_runs
    src = report.evidence_sources(p)
    assert src.origin == {"compare": str(verb_outputs["compare"]), "cost": str(verb_outputs["cost"]),
                          "fit": str(verb_outputs["fit"])}
    d = report.batch_decision(p, checklist.gather_evidence(compare=src.compare, cost=src.cost, fits=src.fits))
    assert main(["decide", "--answers", str(examples_dir / "answers.yaml"), "--compare", str(verb_outputs["compare"]),
                 "--cost", str(verb_outputs["cost"]), "--fit", str(verb_outputs["fit"]), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(dumps(d.to_dict()))  # as published (6 digits)
    nb = _run(tmp_path, compare_json=str(verb_outputs["compare"]), cost_json=str(verb_outputs["cost"]),
              fit_json=str(verb_outputs["fit"]))
    page = _html_outputs(nb)
    assert f">{d.verdict}</span>" in page and "compare.json" in page


def test_bad_parameters_and_json_name_the_parameter(tmp_path, verb_outputs):
    with pytest.raises(ReportError, match=r"unknown checklist parameter 'compare_jsn' \(did you mean 'compare_json'\?\)"):
        report.validate_checklist_parameters(compare_jsn="x.json")
    with pytest.raises(ReportError, match=r"parameter 'cost_json': file 'nope.json' not found"):
        report.validate_checklist_parameters(cost_json="nope.json")
    with pytest.raises(ReportError, match=r"parameter 'margin': got '0.1'; expected a finite number"):
        report.validate_checklist_parameters(margin="0.1")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    p = report.validate_checklist_parameters(compare_json=str(bad), cost_json=str(verb_outputs["cost"]))
    with pytest.raises(ReportError, match=r"parameter 'compare_json': .*bad.json:1: not valid JSON"):
        report.evidence_sources(p)
    p = report.validate_checklist_parameters(compare_json=str(verb_outputs["fit"]), cost_json=str(verb_outputs["cost"]))
    with pytest.raises(ReportError, match=r"expected the JSON object printed by `costmodel compare --json`"):
        report.evidence_sources(p)  # a fit list is not a comparison


def test_wizard_saves_where_asked_and_batch_mode_reads_it_back(tmp_path, verb_outputs):
    saved = tmp_path / "mine.yaml"
    p = report.validate_checklist_parameters(compare_json=str(verb_outputs["compare"]),
                                             cost_json=str(verb_outputs["cost"]), save_to=str(saved))
    src = report.evidence_sources(p)
    evidence = checklist.gather_evidence(compare=src.compare, cost=src.cost, fits=src.fits)
    wizard = interactive.checklist_wizard(p, evidence)
    assert wizard.path_text.value == str(saved)
    # issue 36: the example's cost no longer blocks (the measured bytes are refused): CONDITIONAL
    assert wizard.decision().verdict == report.batch_decision(p, evidence).verdict == "CONDITIONAL"
    for iid in ("network_ready", "governance_allows", "failure_recovery", "checkpoints_independent"):
        wizard.answer_buttons[iid].value = "no"
        wizard.notes[iid].value = ""  # the loaded answers came with notes
    wizard.notes["network_ready"].value = "no redundant route between the regions"
    wizard.save_button.click()  # refused: three 'no' answers on blockers lack a note
    assert not saved.exists() and "needs a note" in wizard.status_html.value
    for iid in ("governance_allows", "failure_recovery", "checkpoints_independent"):
        wizard.answer_buttons[iid].value = "yes"
        wizard.notes[iid].value = "confirmed in the design review"
    wizard.save_button.click()
    assert saved.is_file()
    again = report.batch_decision(report.validate_checklist_parameters(
        answers=str(saved), compare_json=str(verb_outputs["compare"]), cost_json=str(verb_outputs["cost"])), evidence)
    assert again.verdict == "NO_GO" and {b["id"] for b in again.blockers} == {"network_ready"}
