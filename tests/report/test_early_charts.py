"""The report draws each chart as soon as its data exist (costmodel/report/early_charts.py): every chart the page
shows was drawn early, once, in Python (no vl-convert process is started for the report's charts), and the page is
the same bytes as when the charts are drawn as the page shows them."""
from __future__ import annotations

import pytest

from costmodel.charts import drawer as drawer_mod
from costmodel.report import early_charts
from costmodel.report import render as render_mod

pytest.importorskip("vl_convert")
pytestmark = pytest.mark.slow


@pytest.fixture
def counted(monkeypatch):
    """(early specs, specs the page asked for, distinct specs the child drew) of the runs in the test."""
    seen = {"early": [], "page": [], "drawn": []}
    draw, predraw, close = drawer_mod.Drawer.draw, drawer_mod.Drawer.predraw, drawer_mod.Drawer.close

    def counting_draw(self, spec, then=None):
        seen["page"].append(spec)
        return draw(self, spec, then)

    def counting_predraw(self, spec):
        seen["early"].append(spec)
        return predraw(self, spec)

    def counting_close(self):
        if not self._closed:
            seen["drawn"].append(self._sent)
        return close(self)

    monkeypatch.setattr(drawer_mod.Drawer, "draw", counting_draw)
    monkeypatch.setattr(drawer_mod.Drawer, "predraw", counting_predraw)
    monkeypatch.setattr(drawer_mod.Drawer, "close", counting_close)
    return seen


def _render(examples_dir, out, colocated, remote):
    from costmodel.report import params

    p = params.validate_parameters(colocated=colocated, remote=remote, scenario=str(examples_dir / "scenario.yaml"),
                                   answers=str(examples_dir / "answers.yaml"), date="2026-01-01", monte_carlo_n=300)
    render_mod.render_params(p, out)
    return (out / "report.html").read_bytes()


def _fleet(tmp_path):
    from costmodel.synthetic.rank_logs import generate_job

    for role, seed in (("colocated", 1), ("remote", 2)):
        generate_job(tmp_path / "fleet" / role / "job1", n_ranks=8, n_steps=1500, seed=seed, straggler_node=None)
    return [str(tmp_path / "fleet" / "colocated")], [str(tmp_path / "fleet" / "remote")]


@pytest.mark.parametrize("inputs", ["example", "fleet"])
def test_every_chart_the_page_shows_was_sent_early_and_the_page_is_the_same_bytes(
        inputs, counted, examples_dir, tmp_path, monkeypatch):
    if inputs == "fleet":
        colocated, remote = _fleet(tmp_path)
    else:
        colocated, remote = [str(examples_dir / "colocated_steps.csv")], [str(examples_dir / "remote_steps.csv")]
    from costmodel.charts import render as chart_render
    from costmodel.charts.svg import draw as svg_draw

    built, native = [], []
    real_spec_of, real_native = chart_render._spec_of, svg_draw.draw_native
    monkeypatch.setattr(chart_render, "_spec_of", lambda chart: built.append(chart) or real_spec_of(chart))
    monkeypatch.setattr(svg_draw, "draw_native", lambda spec: native.append(spec) or real_native(spec))
    early_page = _render(examples_dir, tmp_path / "early", colocated, remote)
    early, page, (drawn,) = counted["early"], counted["page"], counted["drawn"]
    assert len(built) == len(page)  # each spec made once: the page took the charts made early (charts.reusing)
    assert len(page) >= (7 if inputs == "fleet" else 5)  # heatmaps (fleet), throughput, 4 cost charts
    assert len(early) == len(page) == len(native) and drawn == 0  # each drawn once, early, none by vl-convert
    assert early == page == native  # the same specs in the same order

    monkeypatch.setattr(early_charts, "sender", lambda _drawer: None)  # drawn as the page shows them
    counted["drawn"].clear()
    assert _render(examples_dir, tmp_path / "late", colocated, remote) == early_page
