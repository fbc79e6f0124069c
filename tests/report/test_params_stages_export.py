"""Report parameters, stages, offline HTML export and the output folder (no kernel started here)."""
from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from support.paths import REPO
from support.results import as_recorded

from costmodel import report
from costmodel.foundation.errors import ReportError


# ------------------------------------------------------------------ parameters
def test_defaults_resolve_to_the_bundled_example_from_any_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # papermill may run the kernel elsewhere
    p = report.validate_parameters()
    assert p.colocated == (str(REPO / "costmodel/data/examples/colocated_steps.csv"),)
    assert p.remote == (str(REPO / "costmodel/data/examples/remote_steps.csv"),)
    assert p.scenario == str(REPO / "costmodel/data/examples/scenario.yaml")
    assert p.margin == 0.02 and p.monte_carlo_n == 2000 and p.seed == 0


def test_unknown_parameter_is_refused_with_a_suggestion():
    with pytest.raises(ReportError, match=r"unknown report parameter 'margni' \(did you mean 'margin'\?\)"):
        report.validate_parameters(margni=0.05)


def test_namespace_ignores_modules_functions_and_notebook_names():
    import math

    ns = {"math": math, "report": report, "f": lambda: 1, "P": object(), "_hidden": 3, "In": [], "margin": 0.05}
    assert report.validate_parameters(ns).margin == 0.05
    ns["monte_carlo"] = 10  # a typo injected by papermill -p monte_carlo 10
    with pytest.raises(ReportError, match=r"monte_carlo.*did you mean 'monte_carlo_n'"):
        report.validate_parameters(ns)


@pytest.mark.parametrize(
    "name, value, match",
    [
        ("margin", "0.02", r"'margin': got '0.02'; expected a finite number"),
        ("margin", 0.6, r"'margin': got 0.6; expected a number < 0.5"),
        ("margin", float("nan"), r"'margin': got nan; expected a finite number"),
        ("monte_carlo_n", 2.5, r"'monte_carlo_n': got 2.5; expected a whole number"),  # the one number reader
        ("monte_carlo_n", True, r"'monte_carlo_n': got true; expected a whole number, not true/false"),
        ("monte_carlo_n", -1, r"'monte_carlo_n': got -1; expected a number >= 0"),
        ("seed", "1", r"'seed': got '1'; expected an integer"),
        ("colocated", [1, 2], r"'colocated': got \[1, 2\]; expected a list of file paths"),
        ("scenario", "", r"'scenario': got ''; expected a file path"),
        ("scenario", "no/such.yaml", r"'scenario': file 'no/such.yaml' not found \(tried .*no/such.yaml"),
        ("date", "12/01/2026", r"'date': got '12/01/2026'; expected YYYY-MM-DD"),
    ],
)
def test_wrongly_typed_parameters_name_the_parameter(name, value, match):
    with pytest.raises(ReportError, match=match):
        report.validate_parameters(**{name: value})


def test_parameter_coercions_papermill_makes_harmless():
    with pytest.raises(ReportError, match=r"'margin': got 1.0; expected a number < 0.5"):
        report.validate_parameters(margin=1)  # papermill -p margin 1 arrives as an int: checked as 1.0
    p = report.validate_parameters(monte_carlo_n=500.0, colocated="data/examples/colocated_steps.csv", remote=[])
    assert p.monte_carlo_n == 500 and isinstance(p.monte_carlo_n, int)
    assert p.colocated == (str(REPO / "costmodel/data/examples/colocated_steps.csv"),) and p.remote == ()


def test_parameter_values_are_data_never_evaluated(tmp_path):
    marker = tmp_path / "pwned"
    code = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    p = report.validate_parameters(title=code, metric=code)
    assert p.title == code and not marker.exists()


# ------------------------------------------------------------------ HTML
def test_external_references_found_and_svg_namespaces_ignored():
    bad = [
        '<script src="https://cdn.jsdelivr.net/npm/vega@5"></script>',
        "<script src='//unpkg.com/x.js'></script>",
        '<link rel="stylesheet" href="http://example.com/a.css">',
        '<img src="https://example.com/a.png">',
        "<style>@import url('https://fonts.googleapis.com/css');</style>",
    ]
    for b in bad:
        assert report.external_references(b), b
    ok = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><g/></svg>'
          '<p>see https://example.com for more</p><script>var x = 1;</script>')
    assert report.external_references(ok) == []


def _nb_with_outputs() -> nbformat.NotebookNode:
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><g class="mark-rect"><path d="M0,0h5v5h-5Z"/></g></svg>'
    code = new_code_cell("SECRET_INPUT_CODE = 1")
    code.outputs = [
        new_output("display_data", data={"image/svg+xml": svg, "text/plain": "<chart>"}),
        new_output("display_data", data={"text/html": report.html_table(
            __import__("pandas").DataFrame({"note": ["<script>alert(1)</script>"]}))._repr_html_()}),
    ]
    nb = new_notebook(cells=[new_markdown_cell("# Title"), code])
    nb.metadata["title"] = "t<script>alert(2)</script>"
    return nb


def test_export_html_hides_inputs_inlines_svg_and_loads_nothing():
    page = report.export_html(_nb_with_outputs())
    assert "SECRET_INPUT_CODE" not in page
    assert '<g class="mark-rect">' in page  # SVG inline, not an <img>
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert" not in page
    assert "<title>t&lt;script&gt;alert(2)&lt;/script&gt;</title>" in page
    assert report.external_references(page) == []
    assert "<script src" not in page


def test_html_helpers_escape_inputs():
    assert report.html_text("<b>x</b>").text == "<p>&lt;b&gt;x&lt;/b&gt;</p>"
    v = report.verdict_html({"verdict": "NO_GO", "blockers": [{"id": "x", "reason": "<img src=x onerror=alert(1)>"}]})
    assert "&lt;img src=x onerror=alert(1)&gt;" in v.text and "<img" not in v.text
    with pytest.raises(ReportError):
        report.html_text("x", tag="script")


# ------------------------------------------------------------------ output folder
def test_output_folder_rules(tmp_path):
    d = tmp_path / "out"
    assert report.check_output_dir(d, force=False) == d  # absent: fine
    d.mkdir()
    report.check_output_dir(d, force=False)  # empty: fine
    (d / "report.html").write_text("x")
    with pytest.raises(ReportError, match=r"exists and is not empty \(a previous report\); pass --force"):
        report.check_output_dir(d, force=False)
    report.check_output_dir(d, force=True)  # a previous report: replaced with --force
    (d / ".ipynb_checkpoints").mkdir()  # the report was opened in JupyterLab: still a previous report
    report.check_output_dir(d, force=True)
    (d / "thesis.tex").write_text("x")
    for force in (False, True):  # the same answer with or without --force: never "pass --force" for a folder it refuses
        with pytest.raises(ReportError, match=r"not part of a report \(thesis.tex\); --force only replaces a previous report"):
            report.check_output_dir(d, force=force)
    with pytest.raises(ReportError, match="current folder or above"):
        report.check_output_dir(".", force=True)
    with pytest.raises(ReportError, match="current folder or above"):
        report.check_output_dir("..", force=True)
    with pytest.raises(ReportError, match="contains the input"):
        report.check_output_dir(tmp_path, force=True, inputs=[str(d / "thesis.tex")])
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(ReportError, match="not a folder"):
        report.check_output_dir(f, force=True)


def test_swap_into_place_replaces_whole_folder(tmp_path):
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "old.txt").write_text("old")
    new = tmp_path / ".out.tmp"
    new.mkdir()
    (new / "report.html").write_text("new")
    report.render._swap_into_place(new, dest)
    assert sorted(p.name for p in dest.iterdir()) == ["report.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # nothing left beside it


def test_render_report_refuses_bad_input_before_starting_a_kernel(tmp_path, examples_dir):
    out = tmp_path / "out"
    with pytest.raises(ReportError, match=r"'remote': file .*nope.csv' not found"):
        report.render_report([examples_dir / "colocated_steps.csv"], [tmp_path / "nope.csv"],
                             examples_dir / "scenario.yaml", examples_dir / "answers.yaml", out)
    assert not out.exists() and os.listdir(tmp_path) == []


# ------------------------------------------------------------------ stages on the bundled example
@pytest.fixture(scope="module")
def stages(report_stages):
    return report_stages


def test_stages_reproduce_the_reference_case(stages):
    _p, inputs, _fits, cmp, _cost, _decision, record = stages
    colo, remote = record["fit"]
    assert colo["classification"] == "flat"
    assert 100 <= remote["warmup_end_step"] <= 150
    assert 115 <= remote["steady_mean"] <= 117
    assert cmp.equivalent is True
    assert [f["role"] for f in inputs.table().to_dict("records")] == ["colocated", "remote", "scenario", "answers"]


def test_decision_record_contract(stages, examples_dir):
    from costmodel.foundation.util import sha256_file

    _p, _inputs, _fits, cmp, cost, decision, record = stages
    for key in ("fit", "compare", "cost", "checklist", "verdict", "inputs"):
        assert key in record
    assert record["verdict"] == decision.verdict == record["checklist"]["verdict"]
    # the bundled example's paths are named costmodel/data/examples/... in the record
    assert record["compare"] == as_recorded(cmp.to_json_dict(), None) and record["cost"] == as_recorded(cost.result, None)
    hashes = {Path(f["path"]).name: f["sha256"] for f in record["inputs"]["files"]}
    assert hashes["remote_steps.csv"] == sha256_file(examples_dir / "remote_steps.csv")
    assert hashes["answers.yaml"] == sha256_file(examples_dir / "answers.yaml")
    assert set(cost.result["monte_carlo"]["p_cheapest"]) == {"cross_region", "replicate", "wait"}
    curve = cost.break_even_curve
    assert set(curve["option"]) == {"cross_region", "replicate", "wait"}
    value, above, unit = report.break_even_point(cost)
    be = cost.result["break_even"][cost.break_even_input]
    assert value == be["value"] and above == be["above"] and unit == be["unit"]


def test_decision_record_is_deterministic(stages):
    from costmodel.foundation.util import dumps

    p, _inputs, _fits, cmp, _cost, decision, record = stages
    again = report.decision_record(report.load_inputs(p), report.fit_runs(report.load_inputs(p), p), cmp,
                                   report.cost_stage(p, cmp), decision, p)
    assert dumps(again) == dumps(record)


def test_write_outputs_atomic_and_adr_escapes(stages, tmp_path):
    import dataclasses
    import json

    p, _inputs, _fits, _cmp, _cost, decision, record = stages
    p2 = dataclasses.replace(p, decision_path=str(tmp_path / "d.json"), adr_path=str(tmp_path / "adr.md"),
                             title="<script>alert(1)</script>", date="2026-12-02")
    written = report.write_outputs(record, decision, p2)
    assert written == [p2.decision_path, p2.adr_path]
    assert json.loads(Path(p2.decision_path).read_text())["verdict"] == decision.verdict
    adr = Path(p2.adr_path).read_text()
    assert "date: 2026-12-02" in adr
    assert "<script>" not in adr and "&lt;script&gt;" in adr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["adr.md", "d.json"]  # no temp files left


def test_predicted_runs_are_marked_in_tables_and_charts(tmp_path, examples_dir):
    from costmodel import charts
    from costmodel.foundation.timeline import write_runs
    from costmodel.ingest import IngestOptions, load

    run = load(examples_dir / "remote_steps.csv", IngestOptions(role="remote"))[0]
    run.run_id = "sim"
    run.table["run_id"] = "sim"
    run.metadata["predicted"] = True
    write_runs([run], tmp_path / "sim.parquet")
    p = report.validate_parameters(remote=[str(tmp_path / "sim.parquet")], monte_carlo_n=0)
    inputs = report.load_inputs(p)
    table = inputs.table().set_index("role")
    assert table.loc["colocated", "kind"] == "measured" and table.loc["remote", "kind"] == "predicted"
    fits = report.fit_runs(inputs, p)
    assert [r[0] for r in report.fit_table(fits, inputs.runs)["run (metric)"]] == ["colocated_steps", "sim (predicted)"]
    spec = charts.overlay(inputs.runs, fits=fits).to_dict()
    rows = [r for v in spec["datasets"].values() for r in v]
    assert {(r["run"], r["kind"]) for r in rows} == {("colocated_steps", "measured"), ("sim (predicted)", "predicted")}
    panels = charts.throughput(inputs.runs, fits).to_dict()["vconcat"]
    assert panels[1]["title"]["text"] == "sim (predicted) [remote]"


def test_stages_with_only_colocated_runs_skip_the_comparison():
    p = report.validate_parameters(remote=[], monte_carlo_n=0)
    inputs = report.load_inputs(p)
    fits = report.fit_runs(inputs, p)
    assert report.compare_runs(inputs, p, fits) is None
    cost = report.cost_stage(p, None)
    assert cost.mc_samples is None and "monte_carlo" not in cost.result
    decision = report.checklist_stage(p, None, cost.result, fits)
    record = report.decision_record(inputs, fits, None, cost, decision, p)
    assert record["compare"] is None and len(record["fit"]) == 1
    assert report.compare_table(None).iloc[0]["value"].startswith("not available")
    assert report.monte_carlo_table(cost.result).columns.tolist() == ["Monte Carlo"]
