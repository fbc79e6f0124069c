"""Charts: data in, chart out; every chart converts to SVG offline; inputs are escaped."""
from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from costmodel import charts
from costmodel.foundation.errors import ReportError
from costmodel.foundation.schema import Run, to_timeline


def _run(run_id: str, role: str, y: np.ndarray, predicted: bool = False) -> Run:
    n = len(y)
    df = pd.DataFrame({"step": np.arange(n), "t_s": np.arange(1, n + 1) * 2.0, "samples_per_s": y})
    meta = {"predicted": True} if predicted else {}
    return Run(run_id, to_timeline(df, run_id, role), "tabular", f"{run_id}.csv", role, metadata=meta)


@pytest.fixture
def pair(rng):
    n = 12_000
    x = np.arange(n)
    remote = 116 - 16 * np.exp(-x / 40) + rng.normal(0, 1, n)
    colo = 116 + rng.normal(0, 1, n)
    runs = [_run("hub", "colocated", colo), _run("spoke<script>alert(1)</script>", "remote", remote, predicted=True)]
    fits = [
        {"run_id": "hub", "metric": "samples_per_s", "classification": "flat", "warmup_end_step": 0,
         "warmup_end_t_s": 2.0, "steady_mean": 116.0, "steady_ci_low": 115.9, "steady_ci_high": 116.1,
         "curve": {"model": "constant", "plateau": 116.0, "initial": 116.0}},
        {"run_id": runs[1].run_id, "metric": "samples_per_s", "classification": "warmup", "warmup_end_step": 130,
         "warmup_end_t_s": 262.0, "steady_mean": 116.0, "steady_ci_low": 115.8, "steady_ci_high": 116.2,
         "curve": {"model": "exp", "plateau": 116.0, "initial": 100.0, "tau_steps": 40.0, "tau_s": 80.0}},
    ]
    return runs, fits


def _datasets(spec: dict) -> dict:
    return spec.get("datasets", {})


def test_downsample_bins_means_and_caps_rows():
    df = pd.DataFrame({"step": np.arange(10_000), "y": np.arange(10_000, dtype=float)})
    out = charts.downsample(df, "step", ["y"], max_points=100)
    assert len(out) == 100
    # bin 0 holds steps 0..99: mean 49.5; last bin 9900..9999: mean 9949.5
    assert out["y"].iloc[0] == pytest.approx(49.5)
    assert out["y"].iloc[-1] == pytest.approx(9949.5)
    small = charts.downsample(df.head(50), "step", ["y"], max_points=100)
    assert len(small) == 50


def test_curve_values_exponential_hand_computed():
    curve = {"model": "exp", "plateau": 116.0, "initial": 100.0, "tau_steps": 40.0, "tau_s": 80.0}
    y = charts.curve_values(curve, np.array([0.0, 40.0, 400.0]), "step", 130)
    assert y[0] == pytest.approx(100.0)
    assert y[1] == pytest.approx(116 - 16 * math.exp(-1))  # 110.114
    assert y[2] == pytest.approx(116.0, abs=1e-3)
    ramp = charts.curve_values({"model": "ramp", "plateau": 10.0, "initial": 0.0, "params": {"t0": 50.0}},
                               np.array([0.0, 25.0, 100.0]), "step", None)
    assert list(ramp) == pytest.approx([0.0, 5.0, 10.0])
    step = charts.curve_values({"model": "step", "plateau": 10.0, "initial": 2.0}, np.array([0.0, 9.0, 11.0]), "step", 10.0)
    assert list(step) == [2.0, 2.0, 10.0]
    assert charts.curve_values(None, np.array([1.0]), "step", None) is None


def test_throughput_chart_shades_warmup_and_stays_under_row_limit(pair):
    runs, fits = pair
    chart = charts.throughput(runs, fits, axis="step")
    spec = chart.to_dict()
    assert len(spec["vconcat"]) == 2
    rows = sum(len(v) for v in _datasets(spec).values())
    assert rows <= charts.MAX_ROWS
    # the warm-up shading of the remote run ends at the fitted warm-up end (step 130)
    shades = [v for v in _datasets(spec).values() if v and "region" in v[0]]
    assert any(v[0]["x1"] == 130 for v in shades)
    titles = [p["title"]["text"] for p in spec["vconcat"]]
    assert titles[1].startswith("spoke<script>alert(1)</script> (predicted)")
    assert "samples/s" in str(spec)  # axis title carries the unit


def test_every_chart_renders_to_svg_with_marks_and_escapes_text(pair):
    runs, fits = pair
    cost = {"horizon_months": 12, "options": {
        "cross_region": {"total_usd": 1000.0, "terms": {"transfer_usd": 600.0, "warmup_usd": 400.0}},
        "replicate": {"total_usd": 2000.0, "terms": {"initial_copy_usd": 1500.0, "storage_usd": 500.0}},
        "wait": {"total_usd": 0.0, "terms": {"delay_usd": 0.0}}}}
    curve = pd.DataFrame([{"value": v, "option": o, "total_usd": v * k}
                          for v in (1, 2, 4, 8) for o, k in (("cross_region", 100.0), ("replicate", 300.0))])
    torn = [{"input": "runs_per_month", "low_usd": -100.0, "high_usd": 300.0, "base_usd": 50.0}]
    mc = pd.DataFrame({"cross_region": np.linspace(900, 1100, 500), "replicate": np.linspace(1800, 2200, 500)})
    dec = {"verdict": "CONDITIONAL", "items": [
        {"id": "reread", "question": "<script>alert(2)</script>?", "severity": "blocker", "answer": "yes",
         "proposed": "yes", "status": "ok"}]}
    made = [
        charts.throughput(runs, fits, axis="step"), charts.throughput(runs, fits, axis="t_s"),
        charts.overlay(runs, fits=fits), charts.cost_terms(cost), charts.break_even(curve, "runs_per_month", 3.0, "replicate"),
        charts.tornado(torn), charts.monte_carlo(mc), charts.checklist(dec),
    ]
    svgs = [charts.to_svg(c) for c in made]
    ids = []
    for svg in svgs:
        assert svg.lstrip().startswith("<svg")
        assert re.search(r'class="mark-(line|rect|text|rule)', svg), "no marks drawn"
        assert "<script" not in svg
        ids += re.findall(r'\bid="([^"]+)"', svg)
    assert len(ids) == len(set(ids)), "element ids must be unique across charts inlined in one page"
    assert "&lt;script&gt;alert(1)" in svgs[0]


def test_cost_terms_frame_and_tornado_order():
    cost = {"options": {"replicate": {"terms": {"storage_usd": 5.0, "ops_usd": {"total_usd": 1.0}}},
                        "cross_region": {"terms": {"transfer_usd": 7.5}}}}
    df = charts.cost_terms_frame(cost)
    assert list(df["option"]) == ["cross_region", "replicate", "replicate"]
    assert df["usd"].sum() == pytest.approx(13.5)
    t = charts.tornado_frame([
        {"input": "a", "low_usd": 0.0, "high_usd": 1.0},
        {"input": "b", "low_usd": -5.0, "high_usd": 5.0},
    ])
    assert list(t["input"]) == ["b", "a"] and list(t["swing_usd"]) == [10.0, 1.0]
    # rows as costmodel.cost.tornado writes them: bars start at the base difference
    t = charts.tornado_frame([{"input": "x", "base": 4.0, "low": 2.0, "high": 6.0, "base_delta_usd": 235.0,
                               "delta_low_usd": 180.0, "delta_high_usd": 290.0, "swing_usd": 110.0}])
    assert t.iloc[0][["low_usd", "high_usd", "base_usd"]].tolist() == [180.0, 290.0, 235.0]


def test_break_even_draws_only_the_two_options_that_cross():
    curve = pd.DataFrame([{"value": v, "option": o, "total_usd": v * k}
                          for v in (1, 2) for o, k in (("cross_region", 1.0), ("replicate", 2.0), ("wait", 1e6))])
    spec = charts.break_even(curve, "training.runs_per_month", None).to_dict()
    rows = [r for v in spec["datasets"].values() for r in v if "option" in r]
    assert {r["option"] for r in rows} == {"cross_region", "replicate"}
    assert "never in this range" in str(spec["title"])


def test_monte_carlo_histograms_share_one_axis_and_bins():
    mc = pd.DataFrame({"replicate": np.arange(1001.0) * 60, "cross_region": np.arange(1001.0) * 100})
    spec = charts.monte_carlo(mc, bins=20).to_dict()
    frames = [pd.DataFrame(v) for v in _datasets(spec).values()]
    (hist,) = [f for f in frames if "share" in f]  # one histogram layer, both options on the same bins
    assert sorted(hist["option"].unique()) == ["cross-region", "replicate"]  # words, not code names
    for _opt, h in hist.groupby("option"):
        assert h["share"].sum() == pytest.approx(1.0)
        assert len(h) == 20
        assert h["x0"].tolist() == sorted(hist["x0"].unique().tolist())  # the same edges for both
    (quants,) = [f for f in frames if "q" in f]
    # P5/P50/P95 of 0..1000 are 50, 500, 950 (linear interpolation), times 60 and 100
    assert sorted(quants["x0"].tolist()) == pytest.approx([3000.0, 5000.0, 30000.0, 50000.0, 57000.0, 95000.0])


def test_monte_carlo_draws_a_fixed_total_as_a_rule_and_names_one_off_the_scale(rng):
    """Issue 26: no single-bar histograms; an option far off the others' range is named, not squashed."""
    mc = pd.DataFrame({"cross_region": rng.normal(400, 60, 500), "replicate": np.full(500, 295.0),
                       "wait": np.full(500, 43200.0)})
    spec = charts.monte_carlo(mc).to_dict()
    frames = [pd.DataFrame(v) for v in _datasets(spec).values()]
    (hist,) = [f for f in frames if "share" in f]
    assert set(hist["option"]) == {"cross-region"}  # the varying option only
    texts = [t for f in frames if "text" in f for t in f["text"]]
    assert texts == ["replicate: USD 295 in every draw"]
    narrow = pd.DataFrame({"cross_region": rng.normal(17000, 3000, 500), "replicate": rng.normal(299, 20, 500)})
    frames = [pd.DataFrame(v) for v in _datasets(charts.monte_carlo(narrow).to_dict()).values()]
    (hist,) = [f for f in frames if "share" in f]
    assert set(hist["option"]) == {"cross-region"}  # replicate would fill one bin of the shared axis: a line
    assert re.fullmatch(r"replicate: USD \d{3} \(P5-P95 \d{3}-\d{3}\)", next(t for f in frames if "text" in f for t in f["text"]))
    assert "not drawn (off this scale): wait for GPUs USD 43,200" in str(spec["title"])
    assert "<svg" in charts.to_svg(charts.monte_carlo(mc))


def test_bad_chart_input_is_a_report_error(pair):
    runs, fits = pair
    with pytest.raises(ReportError, match="axis"):
        charts.throughput(runs, fits, axis="epoch")
    with pytest.raises(ReportError, match="no runs"):
        charts.throughput([], [])
    with pytest.raises(ReportError, match="tokens_per_s"):
        charts.throughput(runs, fits, metric="tokens_per_s")
    with pytest.raises(ReportError, match="columns"):
        charts.break_even(pd.DataFrame({"x": [1]}), "runs")
    with pytest.raises(ReportError, match="rendered"):
        charts.to_svg({"mark": "no-such-mark", "data": {"values": []}})


def test_time_panel_draws_a_curve_fitted_on_steps(pair):
    runs, fits = pair
    fits = [dict(f) for f in fits]
    fits[1] = {**fits[1], "axis": "step",
               "curve": {"model": "ramp", "plateau": 116.0, "initial": 100.0, "params": {"t0": 130.0}}}
    spec = charts.throughput(runs, fits, axis="t_s").to_dict()
    curves = [pd.DataFrame(v) for v in spec["datasets"].values() if v and "fit" in v[0]]
    assert len(curves) == 2  # the hub's constant curve and the spoke's ramp
    c = next(x for x in curves if x["fit"].min() < 110).sort_values("x")
    # time axis (drawn in minutes), step-space ramp: the first of 400 bins holds steps 0..29 (mean 14.5), so
    # the ramp is at 100 + 16 * 14.5 / 130 there; the plateau from step 130 (t = 262 s = 4.37 min) on
    assert c["fit"].iloc[0] == pytest.approx(100 + 16 * 14.5 / 130)
    assert (c.loc[c["x"] > 300 / 60, "fit"] == 116.0).all()


def test_lean_imports_skip_the_slow_optional_module_only_while_loading():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from costmodel import charts\n"
        "charts.preload(); charts.render._alt()\n"
        "assert 'altair' in sys.modules and 'jsonschema' in sys.modules\n"
        "assert 'rfc3987_syntax' not in sys.modules\n"  # skipped while altair loaded, block lifted
        "import importlib.util\n"
        "print(importlib.util.find_spec('rfc3987_syntax') is not None)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() in ("True", "False")


def test_many_runs_stay_within_altair_row_limit_and_panel_cap(rng):
    runs = [_run(f"rank{i}", "remote", 100 + rng.normal(0, 1, 300)) for i in range(40)]
    spec = charts.overlay(runs).to_dict()  # Altair raises MaxRowsError beyond 5,000 rows
    assert sum(len(v) for v in spec["datasets"].values()) <= charts.MAX_ROWS
    assert len({r["run"] for v in spec["datasets"].values() for r in v}) == 40
    panels = charts.throughput(runs, []).to_dict()
    assert len(panels["vconcat"]) == charts.MAX_PANELS
    assert "the first 12 of 40 runs" in str(panels["title"])
