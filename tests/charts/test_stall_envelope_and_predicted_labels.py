"""Charts keep one-step stalls visible after binning (min-max envelope per bin) and label predicted
runs once."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from costmodel import charts
from costmodel.foundation.schema import Run, to_timeline

VOLUMEZ = "mlperf_storage/v1.0/Volumez_unet3d_h100_run3/10.0.98.137.log"


def _run(run_id: str, y: np.ndarray, predicted: bool = False, role: str = "remote") -> Run:
    n = len(y)
    df = pd.DataFrame({"step": np.arange(n), "t_s": np.arange(1, n + 1) * 2.0, "samples_per_s": y})
    meta = {"predicted": True} if predicted else {}
    return Run(run_id, to_timeline(df, run_id, role), "tabular", f"{run_id}.csv", role, metadata=meta)


def _layers(spec: dict) -> list[dict]:
    return spec["vconcat"][0]["layer"]


def test_downsample_envelope_keeps_a_one_step_stall():
    y = np.full(12_000, 21.0)
    y[5_000] = 0.5  # one stall in a bin of 30 steps
    d = charts.downsample(pd.DataFrame({"step": np.arange(12_000), "v": y}), "step", ["v"], 400, envelope=True)
    assert len(d) == 400
    assert d["v_min"].min() == 0.5 and d["v_max"].max() == 21.0
    # the mean of the stall's bin is (29 * 21 + 0.5) / 30: the stall alone would be hidden
    assert d["v"].min() == pytest.approx((29 * 21 + 0.5) / 30)
    assert (d["v_min"] <= d["v"]).all() and (d["v"] <= d["v_max"]).all()
    small = charts.downsample(pd.DataFrame({"step": [0, 1, 2], "v": [3.0, 0.5, 4.0]}), "step", ["v"], 400, envelope=True)
    assert list(small["v_min"]) == [3.0, 0.5, 4.0] and list(small["v_max"]) == [3.0, 0.5, 4.0]
    assert "v_min" not in charts.downsample(pd.DataFrame({"step": np.arange(12_000), "v": y}), "step", ["v"], 400).columns


def test_throughput_draws_the_min_max_band_behind_the_mean_and_says_levels_are_ratios_of_sums():
    y = np.full(12_000, 21.5)
    y[[2_000, 4_000, 6_000]] = 0.5
    fit = {"run_id": "r", "metric": "samples_per_s", "classification": "dips", "warmup_end_step": 0,
           "steady_mean": 20.3, "steady_ci_low": 19.2, "steady_ci_high": 21.4,
           "curve": {"model": "constant", "plateau": 20.3, "initial": 20.3}}
    spec = charts.throughput([_run("r", y)], [fit]).to_dict()
    layers = _layers(spec)
    areas = [la for la in layers if (la["mark"]["type"] if isinstance(la["mark"], dict) else la["mark"]) == "area"]
    assert len(areas) == 1
    area = areas[0]
    assert area["encoding"]["y"]["field"] == "samples_per_s_min" and area["encoding"]["y2"]["field"] == "samples_per_s_max"
    rows = spec["datasets"][area["data"]["name"]]
    assert min(r["samples_per_s_min"] for r in rows) == 0.5  # every stall is drawn at its real depth
    assert sum(r["samples_per_s_min"] == 0.5 for r in rows) == 3
    assert layers.index(area) < next(i for i, la in enumerate(layers) if la["mark"]["type"] == "line")  # behind the line
    subtitle = " ".join(spec["vconcat"][0]["title"]["subtitle"])
    assert "work done / time taken (stalls included)" in subtitle and "min-max" in subtitle
    # nothing binned: no band, the subtitle still explains the levels
    small = charts.throughput([_run("s", y[:300])], [{**fit, "run_id": "s"}]).to_dict()
    assert not [la for la in _layers(small) if la["mark"]["type"] == "area"]
    assert "work done / time taken" in " ".join(small["vconcat"][0]["title"]["subtitle"])


def test_volumez_rank_log_steady_mean_lies_inside_the_drawn_band(real_dir, artifacts_dir, tmp_path):
    """The real DLIO log: per-step stalls of ~0.5 samples/s every 500 steps. The steady mean (a ratio
    of sums, ~20.3) must lie inside what is drawn, and the stalls reach their real depth."""
    from costmodel.ingest import IngestOptions, load
    from costmodel.warmup import analyze_runs

    runs = load(real_dir / VOLUMEZ, IngestOptions(role="remote"))[:1]
    table = runs[0].table
    fits = [f.to_dict() for f in analyze_runs(runs)]
    mean = fits[0]["steady_mean"]
    assert 19.5 < mean < 21.0
    chart = charts.throughput(runs, fits)
    spec = chart.to_dict()
    area = next(la for la in _layers(spec) if la["mark"]["type"] == "area")
    rows = spec["datasets"][area["data"]["name"]]
    drawn_min = min(r["samples_per_s_min"] for r in rows)
    drawn_max = max(r["samples_per_s_max"] for r in rows)
    assert drawn_min == pytest.approx(float(table["samples_per_s"].min()))  # ~0.50, as in the log
    assert drawn_min < 1.0
    assert drawn_min < mean < drawn_max
    line_rows = spec["datasets"][next(la for la in _layers(spec) if la["mark"]["type"] == "line")["data"]["name"]]
    assert max(r["samples_per_s"] for r in line_rows) > mean  # the mean line sits between the stalls and the plateau
    svg = charts.to_svg(chart)
    assert 'class="mark-area' in svg
    page = tmp_path / "volumez.html"
    page.write_text(f"<html><body>{svg}</body></html>", encoding="utf-8")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium:  # a screenshot to look at, kept as a test artefact
        shot = artifacts_dir / "volumez_throughput.png"
        shot.unlink(missing_ok=True)
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'u'}",
                        "--window-size=900,420", f"--screenshot={shot}", page.as_uri()],
                       capture_output=True, timeout=120, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
        assert shot.is_file() and shot.stat().st_size > 10_000


@pytest.mark.parametrize(
    ("run_id", "predicted", "label"),
    [
        ("reference-spoke-predicted", True, "reference-spoke-predicted"),
        ("Predicted_spoke", True, "Predicted_spoke"),
        ("sim", True, "sim (predicted)"),
        ("unpredicted", True, "unpredicted (predicted)"),
        ("spoke-predicted", False, "spoke-predicted"),
        ("hub", False, "hub"),
    ],
)
def test_run_label_says_predicted_once(run_id, predicted, label):
    assert charts.run_label(run_id, predicted) == label


def test_a_predicted_run_named_predicted_is_labelled_once_in_charts_and_tables():
    from costmodel import report

    y = np.full(600, 20.0)
    runs = [_run("hub", y, role="colocated"), _run("reference-spoke-predicted", y, predicted=True)]
    fits = [{"run_id": r.run_id, "role": r.role, "metric": "samples_per_s", "steady_mean": 20.0} for r in runs]
    titles = [p["title"]["text"] for p in charts.throughput(runs, fits).to_dict()["vconcat"]]
    assert titles == ["hub [colocated]", "reference-spoke-predicted [remote]"]
    spec = charts.overlay(runs).to_dict()
    rows = {(r["run"], r["kind"]) for v in spec["datasets"].values() for r in v}
    assert rows == {("hub", "measured"), ("reference-spoke-predicted", "predicted")}  # still dashed as predicted
    table = report.fit_table(fits, runs)
    assert [r[0] for r in table["run (metric)"]] == ["hub", "reference-spoke-predicted"]
