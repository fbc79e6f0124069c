"""notebooks/whatif.ipynb: stored stripped with a mirrored parameters cell, runs under papermill and
shows the prediction inside the published ranges; the slider logic redraws real predictions."""
from __future__ import annotations

import ast
import json

import nbformat
import pytest
from support.paths import REPO

from costmodel import interactive
from costmodel.foundation.errors import SimulateError
from costmodel.simulate import whatif
from costmodel.simulate.workload import load_workload_doc

NB = REPO / "costmodel" / "notebooks" / "whatif.ipynb"


def test_parameters_cell_mirrors_the_package_and_notebook_is_stripped():
    nb = nbformat.read(NB, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].metadata.get("tags") == ["parameters"]
    defaults = {}
    for node in ast.parse(code[0].source).body:
        assert isinstance(node, ast.AnnAssign)
        defaults[node.target.id] = ast.literal_eval(node.value)
    assert defaults == {k: v.default for k, v in whatif.PARAMETERS.items()}
    assert "validate_parameters(globals())" in code[1].source
    assert all(c.outputs == [] and c.execution_count is None for c in code)


def test_notebook_runs_under_papermill_and_matches_the_published_ranges(tmp_path):
    import papermill as pm

    out_json = tmp_path / "summary.json"
    pm.execute_notebook(str(NB), str(tmp_path / "out.ipynb"), cwd=str(REPO), progress_bar=False,
                        parameters={"summary_json": str(out_json), "interactive": False, "seed": 0})
    data = json.loads(out_json.read_text())
    rows = {r["metric"]: r for r in data["comparison"]}
    assert set(rows) == {p[0] for p in whatif.PUBLISHED}
    assert all(r["within"] for r in rows.values()), [r for r in rows.values() if not r["within"]]
    assert data["summary"]["steady_hit_ratio"] == pytest.approx(0.95, abs=0.01)
    assert data["cost_error"] is None and data["cost"]["cheapest"] in ("cross_region", "replicate", "wait")
    executed = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    text = json.dumps([c.get("outputs", []) for c in executed.cells])
    assert "PREDICTED" in text  # the chart is labelled as a prediction


def test_bad_parameters_are_refused():
    with pytest.raises(SimulateError, match="parameter scenario"):
        whatif.validate_parameters({"scenario": "nope.yaml"})
    with pytest.raises(SimulateError, match="parameter widget_scale"):
        whatif.validate_parameters({"widget_scale": 0})
    with pytest.raises(SimulateError, match="parameter seed"):
        whatif.validate_parameters({"seed": "1"})
    with pytest.raises(SimulateError, match="pattern"):
        whatif.slider_overrides(60, 10, 100, 3, "random", 0.01)


def test_sliders_redraw_real_predictions():
    doc, _ = load_workload_doc(REPO / "costmodel" / "data" / "examples" / "whatif.yaml")
    scale = 0.002

    def at(rtt_ms: float, cache_gb: float, pattern: str = "shuffled"):
        ov = whatif.scaled_overrides(doc, scale)
        ov.update(whatif.slider_overrides(rtt_ms, 10, cache_gb, 2, pattern, scale))
        return whatif.evaluate_whatif(doc, ov)

    base = at(60, 2000)
    far = at(120, 2000)
    small = at(60, 100)
    assert base.result.summary["steps_simulated"] == base.result.summary["steps_per_run"]  # whole run
    # a longer round trip slows the cold phase (misses are fetched 24 at a time)
    # (the cold phase lasts until the cache is warm, so it holds warm-speed steps too: the ratio is diluted)
    assert far.result.summary["cold_samples_per_s"] < 0.85 * base.result.summary["cold_samples_per_s"]
    # a cache an eighth of the dataset cannot keep epoch 1 for epoch 2: more bytes cross
    assert small.result.summary["cross_region_bytes_per_run"] > 1.5 * base.result.summary["cross_region_bytes_per_run"]
    assert base.cost is not None and small.cost is not None
    assert small.cost.options["cross_region"].total_usd > base.cost.options["cross_region"].total_usd
    box = interactive.whatif_sliders({"scenario": str(REPO / "costmodel" / "data" / "examples" / "whatif.yaml"), "widget_scale": scale,
                          "seed": 0, "overrides": {}})
    assert len(box.children) == 5
