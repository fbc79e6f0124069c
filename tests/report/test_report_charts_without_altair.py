"""The report builds its charts without Altair (:mod:`costmodel.charts.vl`) and writes its page without nbconvert
(:mod:`costmodel.report.page_writer`) or Beautiful Soup's parse (:func:`costmodel.report.svg_markup.page_as_soup_writes`):
a report process imports none of them, and its page is byte for byte the page whose charts Altair built (a fleet's
heatmaps and the placement section included)."""
from __future__ import annotations

import contextlib
import itertools
import json
import subprocess
import sys

import pytest
from support.paths import EXAMPLES, REPO

PROBE = """
import json, sys
from costmodel.cli import main
rc = main(sys.argv[1:])
print(json.dumps({"rc": rc, "modules": sorted(m for m in sys.modules if m.split(".")[0] in ("altair", "narwhals", "nbconvert", "jinja2", "bs4"))}))
"""


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    from costmodel.synthetic.rank_logs import generate_job

    root = tmp_path_factory.mktemp("fleet")
    generate_job(root / "remote" / "job1", n_ranks=16, n_steps=1200, seed=7)
    generate_job(root / "colocated" / "job0", n_ranks=8, n_steps=1000, seed=3, straggler_node=None)
    return root


def _args(fleet, out) -> list[str]:
    return ["report", "--colocated", str(fleet / "colocated"), "--remote", str(fleet / "remote"), "--scenario",
            str(EXAMPLES / "scenario.yaml"), "--answers", str(EXAMPLES / "answers.yaml"), "--placement",
            str(EXAMPLES / "placement.yaml"), "--date", "2026-01-01", "--monte-carlo", "200", "-o", str(out),
            "--quiet"]


def test_a_report_process_never_imports_altair_or_nbconvert(fleet, tmp_path):
    r = subprocess.run([sys.executable, "-c", PROBE, *_args(fleet, tmp_path / "rep")], capture_output=True,
                       text=True, cwd=REPO, timeout=600, check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    d = json.loads(r.stdout.strip().splitlines()[-1])
    assert d["rc"] == 0 and d["modules"] == []
    html = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    assert html.count("<svg") >= 7 and "step time per rank vs job median" in html and "placements: cost vs" in html


def test_the_page_is_the_one_altair_builds(fleet, tmp_path, monkeypatch):
    pytest.importorskip("altair")
    from costmodel.charts import render as chart_render
    from costmodel.cli import main

    for kind in ("lite", "altair"):
        if kind == "altair":
            monkeypatch.setattr(chart_render, "lite_charts", contextlib.nullcontext)  # the charts built by Altair
        monkeypatch.setattr(chart_render, "_counter", itertools.count(1))  # ids numbered as in a fresh process
        assert main(_args(fleet, tmp_path / kind)) == 0
    for name in ("report.html", "decision.json", "adr.md"):
        assert (tmp_path / "lite" / name).read_bytes() == (tmp_path / "altair" / name).read_bytes(), name
