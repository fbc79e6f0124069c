"""The notebook view: the watch notebook runs (papermill) on the bundled example and draws the chart; the chart
function draws the band and the warm-up call from the watcher's state."""
from __future__ import annotations

import pytest
from support.paths import EXAMPLES, REPO

NB = REPO / "costmodel" / "notebooks" / "watch.ipynb"


def test_the_watch_notebook_runs_and_calls_the_example(tmp_path):
    pm = pytest.importorskip("papermill")
    out = tmp_path / "out.ipynb"
    pm.execute_notebook(str(NB), str(out), cwd=str(REPO / "costmodel"), progress_bar=False, kernel_name="python3",
                        parameters={"replay_rows": 25})
    text = out.read_text(encoding="utf-8")
    assert "<svg" in text and "'call': 'equivalent'" in text and "confidence sequence" in text


def test_the_chart_has_the_band_and_the_warmup_call():
    pytest.importorskip("altair")
    from costmodel import trial
    from costmodel.ingest import load
    from costmodel.interactive.trial import trial_figure

    ref = trial.reference_from_run(load(EXAMPLES / "colocated_steps.csv")[0])
    run = load(EXAMPLES / "remote_steps.csv")[0]
    rp = trial.replay(ref, run, trial.Settings(margin=0.05), rows_per_look=50, until_decided=True,
                      final_analysis=False)
    spec = trial_figure(rp.watcher, run).to_dict()
    upper, lower = spec["vconcat"]
    assert {"x": rp.watcher.warmup_end_step} in [d for layer in upper["layer"] for d in layer["data"].get("values", [])]
    band = lower["layer"][1]["data"]["values"]
    assert len(band) >= 1 and all(b["low"] <= b["ratio"] <= b["high"] for b in band)
    assert band[-1]["low"] > 1 / 1.05 and band[-1]["high"] < 1.05  # the call: inside the band
