"""The report's charts drawn in Python (:mod:`costmodel.charts.svg`) against vl-convert's drawings of the same specs:
every mark at the same place (within 0.02 px), in the same colour, the same visible axis labels, legend labels and
titles, and a page within a few px of the same size; for the bundled example, the real H200 pair and a fleet. Specs
outside the subset are left to vl-convert, and the drawings are the same bytes every time."""
from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest
from support.paths import REAL_DIR
from support.report_charts import report_charts

from costmodel import charts
from costmodel.charts.render import lite_charts, spec_of, to_svg
from costmodel.charts.svg.draw import draw, draw_native
from costmodel.charts.svg.markup import NotDrawable

vlc = pytest.importorskip("vl_convert")
NS = "{http://www.w3.org/2000/svg}"
_NUM = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _translate(el: ET.Element) -> tuple[float, float]:
    m = re.match(r"translate\(([^,]+),([^)]+)\)", el.get("transform", ""))
    return (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)


def _is_plot(g: ET.Element) -> bool:
    """A plot's group: it holds the view's frame (the background path with a stroke) directly."""
    return any(c.tag == NS + "path" and c.get("class") == "background" and c.get("stroke") for c in g)


def parts(svg: str) -> dict[str, list]:
    """What a drawing shows: its marks (kind, numbers relative to their plot, colour), its visible texts by role,
    and its size."""
    root = ET.fromstring(svg)
    out: dict[str, list] = {"marks": [], "size": [float(root.get("width")), float(root.get("height"))]}

    def walk(el: ET.Element, dx: float, dy: float, role: str, kind: str = "") -> None:
        cls = el.get("class") or ""
        if el.tag == NS + "g":
            tx, ty = _translate(el)
            dx, dy = (0.0, 0.0) if _is_plot(el) else (dx + tx, dy + ty)
            m = re.search(r"role-([a-z-]+)", cls)
            role = m.group(1) if m else role
            k = re.search(r"mark-([a-z]+) role-mark", cls)
            kind = k.group(1) if k else kind
        if el.tag == NS + "text" and el.get("opacity") != "0":
            text = "".join(el.itertext())
            out.setdefault(role, []).append(text)
        if role == "mark" and el.tag in (NS + "path", NS + "line", NS + "text"):
            tx, ty = _translate(el)
            nums = [float(v) for v in _NUM.findall(el.get("d", ""))]
            if el.tag == NS + "line":
                nums = [float(el.get("x2", 0)), float(el.get("y2", 0))]
            paint = el.get("fill") if el.get("fill") not in (None, "none") else el.get("stroke")
            out["marks"].append((kind, round(dx + tx, 2), round(dy + ty, 2), nums, paint))
        for child in el:
            walk(child, dx, dy, role, kind)

    walk(root, 0.0, 0.0, "")
    return out


def _close(a: list, b: list, tol: float = 0.02) -> bool:
    return len(a) == len(b) and all(math.isclose(x, y, abs_tol=tol) for x, y in zip(a, b, strict=True))


def assert_same_drawing(spec: dict, name: str) -> None:
    ours, theirs = parts(draw(spec)), parts(vlc.vegalite_to_svg(spec))
    mine = sorted(ours["marks"], key=lambda m: (m[0], m[1], m[2], m[3][:4]))
    ref = sorted(theirs["marks"], key=lambda m: (m[0], m[1], m[2], m[3][:4]))
    assert len(mine) == len(ref), f"{name}: {len(mine)} marks drawn, vl-convert {len(ref)}"
    for a, b in zip(mine, ref, strict=True):
        assert a[0] == b[0] and _close([a[1], a[2]], [b[1], b[2]]) and _close(a[3], b[3]), f"{name}: {a} != {b}"
        assert a[4] == b[4], f"{name}: colour {a[4]} != {b[4]}"
    from support.vl_fonts import same_fonts

    if not same_fonts():  # vl-convert lays texts out with this machine's fonts: only the marks can be compared
        return
    for role in ("axis-title", "legend-label", "legend-title", "title-text", "title-subtitle"):
        assert ours.get(role, []) == theirs.get(role, []), f"{name}: {role}"
    assert ours.get("axis-label", []) == theirs.get("axis-label", []), f"{name}: axis labels"
    assert _close(ours["size"], theirs["size"], tol=12), f"{name}: size {ours['size']} vs {theirs['size']}"


_DRAWN = ["throughput t_s", "throughput step", "cost_terms", "break_even", "break_even never", "tornado", "monte_carlo"]


@pytest.mark.parametrize("name", _DRAWN)
def test_the_bundled_reports_charts_are_vl_converts_drawings(report_stages, name):
    with lite_charts():
        spec = spec_of(report_charts(report_stages)[name]())
    assert_same_drawing(spec, name)


def test_the_real_h200_pairs_throughput_panels_are_vl_converts_drawings():
    from costmodel import report

    pair = REAL_DIR / "gpu_h200"
    p = report.validate_parameters(colocated=[str(pair / "colocated.csv")], remote=[str(pair / "remote.csv")],
                                   monte_carlo_n=50)
    inputs = report.load_inputs(p)
    fits = report.fit_runs(inputs, p)
    with lite_charts():
        for axis in ("t_s", "step"):
            assert_same_drawing(spec_of(charts.throughput(inputs.runs, fits, axis=axis)), f"h200 {axis}")


def test_a_fleets_heatmaps_are_vl_converts_drawings(tmp_path):
    from costmodel import report
    from costmodel.synthetic.rank_logs import generate_job

    generate_job(tmp_path / "remote" / "job1", n_ranks=32, n_steps=2000, seed=7)
    generate_job(tmp_path / "colocated" / "job0", n_ranks=8, n_steps=1500, seed=3, straggler_node=None)
    p = report.validate_parameters(colocated=[str(tmp_path / "colocated")], remote=[str(tmp_path / "remote")],
                                   monte_carlo_n=50)
    inputs = report.load_inputs(p)
    with lite_charts():
        maps = charts.job_heatmaps(inputs)
        assert len(maps) == 2
        for i, chart in enumerate(maps):
            assert_same_drawing(spec_of(chart), f"heatmap {i}")


_BARS = {"width": 300, "height": 60, "data": {"values": [{"a": "x<script>alert(1)</script>&", "b": 0.1 + 0.2},
                                                          {"a": "y", "b": float("nan")}, {"a": "z", "b": 2e9}]},
         "mark": "bar", "encoding": {"y": {"field": "a", "type": "nominal"}, "x": {"field": "b", "type": "quantitative"}}}


def test_text_from_the_data_is_escaped_and_a_value_that_is_not_a_number_draws_no_mark():
    svg = draw(_BARS)
    assert "<script" not in svg and "x&lt;script&gt;alert(1)&lt;/script&gt;&amp;" in svg
    assert "NaN" not in svg and svg.count('aria-roledescription="bar"') == 2
    assert draw(_BARS) == svg  # the same spec, the same bytes
    ET.fromstring(svg)  # well-formed XML


@pytest.mark.parametrize("change", [
    {"mark": "tick"}, {"transform": [{"filter": "datum.b > 0"}]}, {"width": "container"},
    {"encoding": {"x": {"field": "b", "type": "temporal"}}}, {"mark": {"type": "bar", "clip": True}},
    {"encoding": {"x": {"field": "b", "type": "quantitative", "bin": True}}},
    {"encoding": {"x": {"field": "b", "type": "quantitative", "scale": {"type": "log"}}}},
    {"config": {"axis": {"grid": False}}},
])
def test_a_spec_outside_the_subset_is_left_to_vl_convert(change):
    spec = {**_BARS, **change}
    with pytest.raises(NotDrawable):
        draw(spec)
    assert draw_native(spec) is None
    if "width" not in change:
        assert "<svg" in to_svg(spec, prefix="t")  # drawn by vl-convert instead


def _odd(spec: dict, rng) -> dict:
    """``spec`` with its data made odd: emptied, one row, values missing, not numbers, negated, equal or huge,
    text with markup and characters outside the tables."""
    import copy

    out = copy.deepcopy(spec)
    kind = rng.randrange(7)
    for name, rows in (out.get("datasets") or {}).items():
        for r in rows:
            for k in list(r):
                v, num = r[k], isinstance(r[k], (int, float)) and not isinstance(r[k], bool)
                if kind == 2 and rng.random() < 0.3:
                    r[k] = rng.choice([None, float("nan"), "x", -1e300, 0, True])
                elif num and kind in (3, 4, 5):
                    r[k] = -v if kind == 3 else 5.0 if kind == 4 else v * 1e12
                elif isinstance(v, str) and kind == 6:
                    r[k] = v + "<&\"'>\u2212\u00e9\U0001F600"
        if kind in (0, 1):
            out["datasets"][name] = rows[:kind]
    return out


def test_odd_data_is_drawn_as_well_formed_svg_or_left_to_vl_convert_never_an_error(report_stages):
    import random

    rng = random.Random(7)
    with lite_charts():
        specs = [spec_of(report_charts(report_stages)[name]()) for name in _DRAWN]
    drawn = 0
    for _ in range(150):
        spec = _odd(rng.choice(specs), rng)
        try:
            svg = draw(spec)
        except NotDrawable:
            continue
        ET.fromstring(svg)
        assert "NaN" not in svg and "Infinity" not in svg
        drawn += 1
    assert drawn > 100  # most odd data is still drawn, not refused


def test_the_watched_trials_chart_is_vl_converts_drawing_and_side_by_side_charts_are_left_to_it(report_stages):
    from support.paths import EXAMPLES

    from costmodel import trial
    from costmodel.charts.placement import placement_front
    from costmodel.ingest import load
    from costmodel.interactive.trial import trial_figure
    from costmodel.report.placement import placement_result

    ref = trial.reference_from_run(load(EXAMPLES / "colocated_steps.csv")[0])
    run = load(EXAMPLES / "remote_steps.csv")[0]
    rp = trial.replay(ref, run, trial.Settings(margin=0.05), rows_per_look=50, until_decided=True,
                      final_analysis=False)
    decision = report_stages[5]
    with lite_charts():
        watched = spec_of(trial_figure(rp.watcher, run))  # its ratio panel has one look: a domain of one value
        checklist = spec_of(charts.checklist(decision.to_dict()))
        front = spec_of(placement_front(placement_result(EXAMPLES / "placement.yaml", monte_carlo_n=50)))
    assert_same_drawing(watched, "trial")
    assert draw_native(checklist) is None and draw_native(front) is None  # side by side; filled points
