"""The report as a pure pipeline (issue 41 items 1-2, issue 42 item 5): one parameter model generates the flags;
`report.pipeline.run(params)` returns the typed record in process; `costmodel report` validates once, takes the
verdict from the pipeline (never from a file) and renders the page without a kernel, byte for byte what the kernel
renders."""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import pytest

from costmodel.contracts.results import DecisionRecord
from costmodel.report import param_views, params, pipeline
from costmodel.report import render as render_mod


def _params(examples_dir: Path, **kw):
    return params.validate_parameters(colocated=[str(examples_dir / "colocated_steps.csv")],
                                      remote=[str(examples_dir / "remote_steps.csv")],
                                      scenario=str(examples_dir / "scenario.yaml"),
                                      answers=str(examples_dir / "answers.yaml"), date="2026-01-01", **kw)


def test_every_parameter_with_a_flag_is_a_flag_of_the_report_verb():
    from costmodel import cli

    cli.build_parser()
    parser = cli.verb_parsers["report"]
    by_dest = {a.dest: a for a in parser._actions}
    for name, p in params.PARAMETERS.items():
        if p.flag is None:
            assert name not in by_dest
            continue
        action = by_dest[name]
        assert param_views.flag_of(name, p) in action.option_strings
        assert action.help.startswith(p.help.replace("%", "%%")[:40])
    assert by_dest["engine"].choices == ["auto", "pandas", "duckdb", "dask"]
    assert by_dest["monte_carlo_n"].option_strings == ["--monte-carlo"] and by_dest["monte_carlo_n"].default == 2000


def test_a_new_parameter_in_the_model_becomes_a_flag_a_notebook_line_and_a_validated_value(monkeypatch):
    spec = dict(params.PARAMETERS)
    spec["warmup_budget_s"] = params.Param("float", 600.0, "longest warm-up the plan accepts", unit="s",
                                           bounds={"gt": 0})
    monkeypatch.setattr(param_views, "PARAMETERS", spec)
    parser = argparse.ArgumentParser()
    param_views.add_arguments(parser)
    args = parser.parse_args(["--scenario", "s.yaml", "--answers", "a.yaml", "--warmup-budget-s", "90"])
    assert param_views.values_from(args)["warmup_budget_s"] == 90.0
    assert "warmup_budget_s: float = 600.0  # longest warm-up the plan accepts [s]" in param_views.parameters_cell(spec)
    from costmodel.foundation.errors import ReportError

    with pytest.raises(ReportError, match="parameter 'warmup_budget_s'"):
        params.check_parameters({"warmup_budget_s": -1.0}, spec, "report")


def test_engine_reaches_the_fleet_as_a_parameter_not_the_environment(examples_dir, monkeypatch):
    import costmodel.jobs as jobs

    seen = []
    real = jobs.load_side

    def spy(*a, **k):
        seen.append((k.get("engine"), os.environ.get("COSTMODEL_ENGINE")))
        return real(*a, **k)

    monkeypatch.setattr(jobs, "load_side", spy)
    monkeypatch.delenv("COSTMODEL_ENGINE", raising=False)
    from costmodel.report import stages

    stages.load_inputs(_params(examples_dir, engine="pandas"))
    assert seen == [("pandas", None), ("pandas", None)]
    with pytest.raises(Exception, match="engine"):
        _params(examples_dir, engine="spark")


def test_the_pipeline_returns_the_typed_record_in_process(examples_dir):
    run = pipeline.run_stages(_params(examples_dir, monte_carlo_n=200))
    assert isinstance(run.model, DecisionRecord)
    assert run.verdict == run.record["verdict"] == "CONDITIONAL"
    assert run.record["inputs"]["parameters"]["monte_carlo_n"] == 200
    assert "engine" not in run.record["inputs"]["parameters"] and "quiet" not in run.record["inputs"]["parameters"]
    assert [f.run_id for f in run.fits] == [r.run_id for r in run.inputs.runs]
    assert pipeline.run(_params(examples_dir, monte_carlo_n=200)).to_json_dict() == run.record


def test_the_cli_validates_once_and_takes_the_verdict_from_the_pipeline(cli, examples_dir, tmp_path, monkeypatch):
    from costmodel.report import stages

    checks = []
    real_check = params.check_parameters
    monkeypatch.setattr(params, "check_parameters", lambda *a, **k: checks.append(1) or real_check(*a, **k))
    real_write = stages.write_outputs

    def write_then_tamper(record, *a, **k):  # a decision.json that says GO: the CLI must not read it back
        written = real_write(record, *a, **k)
        path = Path(written[0])
        path.write_text(path.read_text().replace('"verdict": "CONDITIONAL"', '"verdict": "GO"', 1))
        return written

    monkeypatch.setattr(render_mod, "write_outputs", write_then_tamper)
    out = cli.json("report", "--colocated", str(examples_dir / "colocated_steps.csv"), "--remote",
                   str(examples_dir / "remote_steps.csv"), "--scenario", str(examples_dir / "scenario.yaml"),
                   "--answers", str(examples_dir / "answers.yaml"), "-o", str(tmp_path / "rep"), "--monte-carlo",
                   "100", "--json", "--quiet")
    assert out["verdict"] == "CONDITIONAL"
    assert json.loads((tmp_path / "rep" / "decision.json").read_text())["verdict"] == "GO"
    assert len(checks) == 1


def test_the_page_without_a_kernel_is_the_kernels_page_byte_for_byte(examples_dir, tmp_path):
    files = {}
    for via_kernel in (False, True):
        out = tmp_path / ("kernel" if via_kernel else "inproc")
        render_mod.render_params(_params(examples_dir, monte_carlo_n=300), out, via_kernel=via_kernel)
        files[via_kernel] = {n: (out / n).read_bytes() for n in ("report.html", "decision.json", "adr.md")}
    for name in ("report.html", "decision.json", "adr.md"):
        assert files[False][name] == files[True][name], name
    assert files[False]["report.html"].count(b"<svg") >= 5


def test_display_is_recorded_as_the_kernel_would_send_it():
    from costmodel.charts.render import SVGFigure
    from costmodel.foundation.display_capture import capturing, display
    from costmodel.jobs.report import RawHTML
    from costmodel.report import html_text

    with capturing() as shown:
        display(html_text("a < b"), SVGFigure("<svg/>", "c"), RawHTML("<b>x</b>"))
    assert shown == [
        {"output_type": "display_data", "data": {"text/html": "<p>a &lt; b</p>", "text/plain": "a &lt; b"},
         "metadata": {}},
        {"output_type": "display_data", "data": {"image/svg+xml": "<svg/>", "text/plain": "<c>"}, "metadata": {}},
        {"output_type": "display_data", "data": {"text/html": "<b>x</b>", "text/plain": "<costmodel.jobs.report.RawHTML>"},
         "metadata": {}},
    ]
    display(html_text("outside"))  # outside the capture: IPython's display, not recorded
    assert len(shown) == 3


def test_the_injected_cell_is_written_as_papermill_writes_it_without_importing_it():
    from papermill.translators import translate_parameters

    from costmodel.report.reproducible import _codify

    values = {"colocated": ["a b.csv", 'q"uote\\d', "naïve\tx"], "margin": 0.02, "monte_carlo_n": 2000, "quiet": True,
              "title": "", "nan": float("nan"), "inf": float("-inf"), "none": None, "m": {"k": [1, 2.5]}, "map": []}
    assert _codify(values) == translate_parameters("python3", "python", values, "Parameters")


def test_rows_is_a_report_parameter_that_reaches_ingest_and_is_recorded_only_when_given(examples_dir):
    from costmodel.foundation.errors import ReportError

    plain = _params(examples_dir)
    assert plain.rows == "" and plain.ingest_options("remote").rows is None
    assert "rows" not in plain.recorded() and "placement" not in plain.recorded()
    averaged = _params(examples_dir, rows="averaged")
    assert averaged.ingest_options("remote").rows == "averaged"
    assert averaged.recorded()["rows"] == "averaged"
    with pytest.raises(ReportError, match="rows"):
        _params(examples_dir, rows="every")
