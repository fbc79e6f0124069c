"""The charts built by :mod:`costmodel.charts.vl` (the report's builder, no Altair) are Altair's charts: for every
chart function on realistic inputs (the bundled example's report stages, a synthetic fleet, a placement, a watched
trial) the spec is Altair's ``to_dict(validate=False)``, key order included (``json.dumps`` equal), and the SVG the
report draws is the same bytes. What the builder does not implement fails loudly, never as another spec."""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from support.paths import EXAMPLES
from support.report_charts import report_charts

from costmodel import charts
from costmodel.charts import vl
from costmodel.charts.render import lite_charts, spec_of, to_svg

alt = pytest.importorskip("altair")


def _both(make):
    """``make()`` built by Altair and by the lite builder."""
    with lite_charts():
        lite = make()
    return make(), lite


def _same(make) -> dict:
    full, lite = _both(make)
    assert type(full).__module__.startswith("altair") and type(lite).__module__ == "costmodel.charts.vl"
    a, b = full.to_dict(validate=False), lite.vega_lite(validate=False)
    assert json.dumps(a) == json.dumps(b)
    return a


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    from costmodel import report
    from costmodel.synthetic.rank_logs import generate_job

    root = tmp_path_factory.mktemp("fleet")
    generate_job(root / "remote" / "job1", n_ranks=32, n_steps=2000, seed=7)
    generate_job(root / "colocated" / "job0", n_ranks=8, n_steps=1500, seed=3, straggler_node=None)
    p = report.validate_parameters(colocated=[str(root / "colocated")], remote=[str(root / "remote")],
                                   monte_carlo_n=50)
    return report.load_inputs(p)


def _report_charts(report_stages):
    return report_charts(report_stages)


@pytest.mark.parametrize("name", ["throughput t_s", "throughput step", "cost_terms", "break_even", "break_even never",
                                  "tornado", "monte_carlo", "overlay", "overlay t_s", "checklist"])
def test_every_chart_of_the_bundled_example_is_altairs_spec(report_stages, name):
    spec = _same(_report_charts(report_stages)[name])
    assert spec["$schema"] == alt.SCHEMA_URL and spec["datasets"]


def test_the_report_charts_draw_the_same_svg(report_stages):
    made = _report_charts(report_stages)
    for name in ("throughput t_s", "cost_terms", "break_even", "tornado", "monte_carlo"):
        full, lite = _both(made[name])
        assert json.dumps(spec_of(full)) == json.dumps(spec_of(lite)), name  # at the published precision
        if name in ("throughput t_s", "monte_carlo"):
            svg = to_svg(lite, prefix="t")
            assert svg == to_svg(full, prefix="t") and svg.count("<path") > 3, name


def test_a_fleets_heatmaps_are_altairs(fleet):
    full, lite = _both(fleet.job_heatmaps)
    assert len(full) == len(lite) == 2
    for a, b in zip(full, lite, strict=True):
        assert json.dumps(a.to_dict(validate=False)) == json.dumps(b.vega_lite(validate=False))
    # vl-convert numbers colour gradients per process (gradient_0, gradient_1, ...): the ids differ, nothing else
    svg_lite, svg_full = (re.sub(r"gradient_\d+", "gradient", to_svg(c[0], prefix="h")) for c in (lite, full))
    assert svg_lite == svg_full and "linearGradient" in svg_lite


def test_the_placement_chart_is_altairs():
    from costmodel.charts.placement import placement_front
    from costmodel.report.placement import placement_result

    out = placement_result(EXAMPLES / "placement.yaml", monte_carlo_n=50)
    spec = _same(lambda: placement_front(out))
    assert [layer["mark"]["type"] for layer in spec["layer"]][:3] == ["line", "point", "text"]


def test_the_trial_chart_is_altairs():
    from costmodel import trial
    from costmodel.ingest import load
    from costmodel.interactive.trial import trial_figure

    ref = trial.reference_from_run(load(EXAMPLES / "colocated_steps.csv")[0])
    run = load(EXAMPLES / "remote_steps.csv")[0]
    rp = trial.replay(ref, run, trial.Settings(margin=0.05), rows_per_look=50, until_decided=True,
                      final_analysis=False)
    spec = _same(lambda: trial_figure(rp.watcher, run))
    assert "values" in spec["vconcat"][1]["layer"][1]["data"]  # alt.Data stays inline, as Altair leaves it


def test_records_are_altairs_sanitised_frame():
    from altair.utils.core import sanitize_pandas_dataframe

    df = pd.DataFrame({"f": [1.5, math.nan, math.inf, -0.0], "i": np.arange(4, dtype=np.int64),
                       "u": np.arange(4, dtype=np.uint8), "b": [True, False, True, True],
                       "s": ["a", None, "c", "d"], "o": pd.Series([1, "x", None, np.float64(2.5)], dtype=object, index=range(10, 14)),
                       "on": pd.Series([1.5, math.nan, 2, 3], dtype=object, index=range(10, 14)),
                       "none": pd.Series([None] * 4, dtype=object, index=range(10, 14)),
                       "f32": np.array([0.1, 2, 3, 4], dtype=np.float32)}, index=[10, 11, 12, 13])
    want = sanitize_pandas_dataframe(df).to_dict(orient="records")
    got = vl.frame_records(df)
    assert json.dumps(got) == json.dumps(want)  # NaN where Altair writes NaN (an object column inferred as float)
    assert got[1]["f"] is None and got[2]["f"] is None and got[1]["s"] is None and type(got[0]["i"]) is int
    assert vl.frame_records(pd.DataFrame({"x": []})) == []


def test_the_builders_constants_are_the_installed_altairs():
    assert vl.SCHEMA_URL == alt.SCHEMA_URL
    assert vl.DEFAULT_THEME == alt.theme.get()()
    assert vl.MAX_ROWS == 5000


def test_shorthands_parse_as_altair_parses_them():
    from altair.utils.core import parse_shorthand

    for sh in ("x0:Q", "sum(usd):Q", "role:N", "rank:O", "count()", "mean(y)", "month(t):T", "a b:nominal",
               "weird(x):Q", "count():Q", "year(date)"):
        assert vl.parse_shorthand(sh) == parse_shorthand(sh), sh
    with pytest.raises(ValueError, match="valid encoding data types"):
        vl.parse_shorthand("x:Z")


def test_what_the_builder_lacks_fails_loudly():
    df = pd.DataFrame({"x": [1.0, 2.0]})
    chart = vl.Chart(df).mark_line()
    with pytest.raises(vl.LiteUnsupported, match="transform_filter"):
        chart.transform_filter("datum.x > 1")
    assert not hasattr(chart, "interactive")  # hasattr answers (an AttributeError as well)
    with pytest.raises(vl.LiteUnsupported, match="without a type"):
        chart.encode(x="x").vega_lite()
    with pytest.raises(vl.LiteUnsupported, match="'size'"):
        chart.encode(size="x:Q")
    with pytest.raises(vl.LiteUnsupported, match="dtype"):
        vl.Chart(pd.DataFrame({"t": pd.to_datetime(["2026-01-01"])})).mark_point().vega_lite()
    with pytest.raises(ValueError, match="maximum allowed"):
        vl.Chart(pd.DataFrame({"x": np.arange(5001.0)})).mark_point().vega_lite()


def test_outside_the_context_a_chart_is_altairs(report_stages):
    _p, _inputs, _fits, _cmp, cost, _d, _r = report_stages
    assert isinstance(charts.tornado(cost.tornado), alt.TopLevelMixin)
    with lite_charts():
        assert isinstance(charts.tornado(cost.tornado), vl.LayerChart)
    assert isinstance(charts.tornado(cost.tornado), alt.TopLevelMixin)


def _api_cases(m):
    """Small charts written once against a module with Altair's API (``altair`` or ``costmodel.charts.vl``)."""
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [3, 1, 2], "c": ["x", "y", None]})
    other = pd.DataFrame({"a": [2.5]})
    line = m.Chart(df).mark_line().encode(x="a:Q", y=m.Y("b:Q", axis=None, title=None, sort=["x"]))
    return {
        "shared data, sizes moved up": m.layer(line.properties(width=100, height=50),
                                               line.mark_point(filled=True, size=20).properties(width=100)),
        "plus": line + m.Chart(other).mark_rule(color="red").encode(x="a:Q"),
        "no data": m.Chart().mark_rule().encode(x=m.value(3), y=m.value(4)),
        "encode twice": line.encode(color=m.Color("c:N", legend=m.Legend(orient="bottom", columns=2)))
                            .encode(tooltip=["a:Q", m.Tooltip("b:Q", format=",.0f", title="B")], detail="c:N"),
        "inline values": m.Chart(m.Data(values=[{"a": 1}, {"a": 2}])).mark_bar(opacity=0.5).encode(
            x=m.X("sum(a):Q", bin=False, stack="zero", scale=m.Scale(domain=[np.int64(0), np.float64(2.5)])),
            order=m.Order("a:O"), text=m.Text("a:N"), shape=m.Shape("a:N"), strokeDash=m.StrokeDash("a:N")),
        "dict values": m.Chart({"values": [{"a": 1}]}).mark_text(align="left").encode(x="a:Q", x2="a:Q", y2="a:Q"),
        "concat": m.vconcat(m.hconcat(line, line, spacing=3), line.properties(title=m.TitleParams(
            "t", subtitle=["s"], anchor="start")), spacing=14).properties(title="top")
            .configure_view(stroke="#ccc").configure_axis(labelFontSize=3).configure_title(fontSize=9)
            .configure_legend(titleFontSize=2),
    }


def test_the_api_the_chart_modules_use_writes_altairs_specs():
    full, lite = _api_cases(alt), _api_cases(vl)
    for name, chart in full.items():
        assert json.dumps(chart.to_dict(validate=False)) == json.dumps(lite[name].vega_lite(validate=False)), name
