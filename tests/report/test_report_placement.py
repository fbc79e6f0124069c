"""Issue 30: ``costmodel report --placement FILE`` adds the placement section (the ranked table, the cost-vs-time
front, why the winner wins) and records ``costmodel place FILE --json`` under ``placement`` in decision.json, with
the paths relative to the record's folder; bad placement input stops the report before a kernel starts."""
from __future__ import annotations

import html
import json
import re
import shutil

import nbformat
import pytest

from costmodel.report.paths import path_map, relocate


@pytest.fixture(scope="module")
def placed(cli, examples_dir, tmp_path_factory):
    """A report of the bundled runs with the bundled placement file copied to a user's folder (``ex/``)."""
    work = tmp_path_factory.mktemp("placed")
    ex = work / "ex"
    shutil.copytree(examples_dir, ex, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    out = work / "rep"
    proc = cli.subprocess("report", "--colocated", str(ex / "colocated_steps.csv"), "--remote", str(ex / "remote_steps.csv"),
                          "--scenario", str(ex / "scenario.yaml"), "--answers", str(ex / "answers.yaml"),
                          "--placement", str(ex / "placement.yaml"), "-o", str(out), "--date", "2026-12-02")
    assert proc.rc == 0, proc.err
    assert "report: ranking placements" in proc.err
    return work, ex / "placement.yaml", out


def test_the_report_shows_the_ranked_table_the_front_chart_and_why(placed, cli):
    _work, pl, out = placed
    page = (out / "report.html").read_text(encoding="utf-8")
    res = cli.json("place", str(pl), "--json")
    assert len(res["ranking"]) == 12 and res["not_ranked"]  # the bundled example: 12 ranked of 16, the rest with reasons
    assert "ranked placements (cost over the horizon" in page
    section = page[page.index("ranked placements (cost over the horizon"):]
    ids = [html.escape(r["id"]) for r in res["ranking"]]
    assert [section.index(i) for i in ids] == sorted(section.index(i) for i in ids)  # in rank order
    for r in res["not_ranked"]:
        assert html.escape(r["id"]) in section
    for why in res["why"]:
        assert html.escape(why) in page
    assert "placements: cost vs time (dashed: Pareto front, deadline)" in section  # the front, drawn as inline SVG
    executed = nbformat.read(out / "report.ipynb", as_version=4)
    cell = next(c for c in executed.cells if c.get("id") == "placement-section")
    assert "<svg" in cell.outputs[0]["data"]["text/html"]


def test_decision_json_records_what_costmodel_place_prints_with_relative_paths(placed, cli):
    work, pl, out = placed
    text = (out / "decision.json").read_text(encoding="utf-8")
    record = json.loads(text)
    res = cli.json("place", str(pl), "--json")
    assert record["placement"] == relocate(res, path_map([str(pl), str(pl.parent)], out))
    assert record["placement"]["source"] == "../ex/placement.yaml"
    assert record["placement"]["data"]["scenario"] == "../ex/whatif.yaml"
    assert record["placement"]["winner"]["cost_usd"] == res["winner"]["cost_usd"] > 0
    assert record["inputs"]["parameters"]["placement"] == "../ex/placement.yaml"
    for name in ("decision.json", "report.html", "report.ipynb", "adr.md"):
        assert str(work) not in (out / name).read_text(encoding="utf-8"), name


def test_a_second_render_is_byte_identical(placed, cli):
    work, pl, out = placed
    ex = pl.parent
    again = work / "sub" / "rep"  # another folder laid out alike relative to the inputs
    shutil.copytree(ex, work / "sub" / "ex")
    ex2 = work / "sub" / "ex"
    proc = cli.subprocess("report", "--colocated", str(ex2 / "colocated_steps.csv"), "--remote", str(ex2 / "remote_steps.csv"),
                          "--scenario", str(ex2 / "scenario.yaml"), "--answers", str(ex2 / "answers.yaml"),
                          "--placement", str(ex2 / "placement.yaml"), "-o", str(again), "--date", "2026-12-02")
    assert proc.rc == 0, proc.err
    for name in ("decision.json", "report.html", "report.ipynb", "adr.md"):
        assert (again / name).read_bytes() == (out / name).read_bytes(), name


def test_without_placement_the_record_has_no_placement_key_and_the_page_says_so(examples_dir):
    from costmodel.report import validate_parameters
    from costmodel.report.stages import placement_stage

    P = validate_parameters(colocated=[str(examples_dir / "colocated_steps.csv")],
                            remote=[str(examples_dir / "remote_steps.csv")],
                            scenario=str(examples_dir / "scenario.yaml"), answers=str(examples_dir / "answers.yaml"))
    assert P.placement == "" and placement_stage(P) is None
    # the bundled file is accepted under the name decision.json gives it, from any folder
    named = validate_parameters(**{**P.to_dict(), "placement": "costmodel/data/examples/placement.yaml"})
    assert named.placement == str((examples_dir / "placement.yaml").resolve())


def test_a_bad_placement_file_is_one_line_exit_2_and_nothing_written(cli, examples_dir, tmp_path):
    bad = tmp_path / "placement.yaml"
    text = (examples_dir / "placement.yaml").read_text(encoding="utf-8")
    bad.write_text(text.replace("candidates:", "candidatez:", 1), encoding="utf-8")
    out = tmp_path / "rep"
    r = cli("report", "--colocated", str(examples_dir / "colocated_steps.csv"),
            "--remote", str(examples_dir / "remote_steps.csv"), "--scenario", str(examples_dir / "scenario.yaml"),
            "--answers", str(examples_dir / "answers.yaml"), "--placement", str(bad), "-o", str(out))
    assert r.rc == 2, r.err
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    assert len(lines) == 1 and re.search(r"placement\.yaml: candidates: missing", lines[0]), r.err
    assert "Traceback" not in r.err and not out.exists()
    missing = cli("report", "--colocated", str(examples_dir / "colocated_steps.csv"),
                  "--scenario", str(examples_dir / "scenario.yaml"), "--answers", str(examples_dir / "answers.yaml"),
                  "--placement", str(tmp_path / "nope.yaml"), "-o", str(out))
    assert missing.rc == 2 and "parameter 'placement'" in missing.err and not out.exists()
