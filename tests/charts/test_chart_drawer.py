"""The report's chart drawer: a spec in the Python renderer's subset is drawn without starting vl-convert; any other
is drawn in vl-convert's process, started for it, and its SVG is the one drawn in this process, in the order shown; a
spec vl-convert refuses fails its own drawing with a ReportError; a stopped drawer fails what is still pending and
leaves no process behind."""
from __future__ import annotations

import os

import pytest

from costmodel import charts
from costmodel.charts import render
from costmodel.charts.drawer import Drawer
from costmodel.charts.svg.draw import draw_native
from costmodel.foundation.display_capture import capturing, settled
from costmodel.foundation.errors import ReportError

pytest.importorskip("vl_convert")

_SPEC = {"mark": "bar", "data": {"values": [{"a": "x<&>", "b": 0.1 + 0.2}, {"a": "y", "b": 1e-300},
                                            {"a": "z", "b": 123456789.123456789}]},
         "encoding": {"x": {"field": "a", "type": "nominal"}, "y": {"field": "b", "type": "quantitative"}}}


def test_the_drawers_svgs_are_the_ones_drawn_here_in_the_order_shown():
    alt = render._alt()
    made = [alt.Chart(alt.Data(values=[{"x": i, "y": i * i / 7} for i in range(50)])).mark_line(clip=True)
            .encode(x="x:Q", y="y:Q"), _SPEC]
    next(render._counter)  # the process's numbering has moved on: a page is still numbered from cm1
    with Drawer() as drawer, render.drawing_in(drawer), capturing() as shown:
        charts.show(*made)
        assert len(shown) == 2 and not any(isinstance(o["data"], dict) for o in shown)  # pending when shown
        drawn = [o["data"]["image/svg+xml"] for o in settled(shown)]
    here = [render._draw(render.spec_of(c), f"cm{1 + i}") for i, c in enumerate(made)]
    # vl-convert numbers clip paths and gradients by the drawings its process has made (clip1, clip2, ...): this
    # process may have drawn others before (tests in the same worker); the drawer's child has not
    assert [_unnumbered(s) for s in drawn] == [_unnumbered(s) for s in here]
    assert 'id="cm1-clip1"' in drawn[0]  # its clip path, numbered in the order shown, the child's first drawing


def _unnumbered(svg: str) -> str:
    import re

    return re.sub(r"(clip|gradient_)\d+", r"\1#", svg)


def test_a_spec_sent_early_is_handed_to_the_first_show_of_it():
    alt = render._alt()
    chart = alt.Chart(alt.Data(values=[{"x": i, "y": i % 7} for i in range(30)])).mark_line(clip=True).encode(
        x="x:Q", y="y:Q")
    with Drawer() as drawer:
        drawer.predraw(render.spec_of(chart))
        with render.drawing_in(drawer), capturing() as shown:
            charts.show(chart, chart)
            drawn = [o["data"]["image/svg+xml"] for o in settled(shown)]
        assert drawer._sent == 2 and not any(drawer._early.values())  # the first show took the early drawing
    with Drawer() as fresh, render.drawing_in(fresh), capturing() as shown:  # the same two shows, nothing early
        charts.show(chart, chart)
        one_by_one = [o["data"]["image/svg+xml"] for o in settled(shown)]
    # vl-convert numbers clip paths by its process's drawings (clip1, then clip2): the same bytes both ways
    assert drawn == one_by_one and 'id="cm2-clip2"' in drawn[1]


def test_a_refused_spec_fails_its_own_drawing_and_the_next_one_is_drawn():
    with Drawer() as drawer:
        bad = drawer.draw({"mark": "no-such-mark", "data": {"values": []}})
        good = drawer.draw(_SPEC)
        with pytest.raises(ReportError, match="could not be rendered"):
            bad.result(timeout=60)
        assert "<svg" in good.result(timeout=60)


def _clipped() -> dict:
    """A spec outside the Python renderer's subset (a clipped mark): vl-convert's process draws it."""
    return {**_SPEC, "mark": {"type": "bar", "clip": True}}


def test_a_stopped_drawer_fails_what_is_pending_and_leaves_no_process():
    drawer = Drawer()
    assert drawer._proc is None  # nothing started before a spec needs vl-convert
    assert "<svg" in drawer.draw(_clipped()).result(timeout=60)
    pid = drawer._proc.pid
    drawer.close()
    late = drawer.draw(_clipped())
    with pytest.raises(ReportError, match=r"drawing process has ended|drawer is closed"):
        late.result(timeout=10)
    assert not os.path.exists(f"/proc/{pid}")  # killed and reaped
    drawer.close()  # again (the report closes it after the page and on its way out): nothing to do, no error
    assert drawer._proc.returncode is not None


def test_specs_in_the_python_renderers_subset_start_no_process_and_are_the_svgs_drawn_here():
    across = {**_SPEC, "width": 300, "height": 90, "encoding": {"y": _SPEC["encoding"]["x"], "x": _SPEC["encoding"]["y"]}}
    assert draw_native(_SPEC) is None  # no width and height: outside the subset
    with Drawer() as drawer:
        drawer.predraw(across)
        early = drawer.draw(across).result(timeout=0)  # drawn already: no wait
        assert drawer._proc is None and drawer._sent == 0
        assert early == draw_native(across) == render._draw(across, "cm1")
        assert "x&lt;&amp;&gt;" in early and "<svg" in early
    never_started = Drawer()
    never_started.close()  # closing a drawer that started nothing: no error
    assert never_started._proc is None


def test_reusing_gives_the_chart_made_with_the_same_arguments_and_its_spec():
    import pandas as pd

    from costmodel import charts
    from costmodel.charts import render as chart_render

    samples = pd.DataFrame({"cross_region": [1.0, 2.0, 3.0], "replicate": [2.0, 2.5, 4.0]})
    other = pd.DataFrame({"cross_region": [1.0, 2.0, 3.0], "replicate": [2.0, 2.5, 4.5]})
    with chart_render.lite_charts():
        assert charts.monte_carlo(samples) is not charts.monte_carlo(samples)  # outside: made each time
        with charts.reusing():
            first = charts.monte_carlo(samples)
            assert charts.monte_carlo(samples) is first and charts.monte_carlo(samples, bins=40) is not first
            assert charts.monte_carlo(other) is not first  # another object: another chart
            assert chart_render.spec_of(first) is chart_render.spec_of(first)
            assert chart_render.spec_of(first) == chart_render._spec_of(charts.monte_carlo(samples, bins=40))
        assert charts.monte_carlo(samples) is not first
