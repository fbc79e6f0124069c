"""The what-if sliders for JupyterLab: a thin ipywidgets shell over :mod:`costmodel.simulate.whatif`.

Every number comes from the pure functions there (:func:`~costmodel.simulate.whatif.evaluate_whatif`,
:func:`~costmodel.simulate.whatif.slider_overrides`), so the sliders, the notebook in batch and
``costmodel simulate`` / ``costmodel cost`` agree.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..charts import show
from ..foundation.errors import SimulateError
from ..foundation.util import require
from ..simulate.whatif import (
    cost_frame,
    curve_chart,
    evaluate_whatif,
    scaled_overrides,
    slider_overrides,
    summary_frame,
)
from ..simulate.workload import PATTERNS, load_workload_doc, parse_workload


def whatif_sliders(params: Mapping[str, Any]) -> Any:
    """ipywidgets sliders (latency, bandwidth, cache size, epochs, access pattern) that redraw the
    predicted curve and the cost comparison. The simulation runs at ``widget_scale`` of the dataset."""
    W = require("ipywidgets", "lab", "the what-if widgets")
    from IPython.display import display

    doc, _ = load_workload_doc(params["scenario"])
    scale = float(params["widget_scale"])
    base = dict(params.get("overrides") or {})
    wl = doc["workload"]
    cap_gb = float(wl.get("cache", {}).get("capacity_bytes", 1e12)) / 1e9
    link = parse_workload(wl, scenario=doc).link
    rtt = W.FloatSlider(value=link.rtt_s * 1e3, min=0, max=200, step=5, description="RTT (ms)",
                        continuous_update=False)
    bw = W.FloatSlider(value=link.bandwidth_bytes_per_s * 8 / 1e9, min=0.1, max=100, step=0.1,
                       description="link Gbit/s", continuous_update=False)
    cache = W.FloatLogSlider(value=cap_gb, base=10, min=0, max=4.5, step=0.05, description="cache GB",
                             continuous_update=False)
    epochs = W.IntSlider(value=int(float(wl.get("access", {}).get("epochs", doc.get("training", {}).get("epochs_per_run", 1)))),
                         min=1, max=10, description="epochs", continuous_update=False)
    pattern = W.Dropdown(options=list(PATTERNS), value=wl.get("access", {}).get("pattern", "shuffled"),
                         description="pattern")
    out = W.Output()

    def redraw(_change: Any = None) -> None:
        ov = dict(base)
        ov.update(scaled_overrides(doc, scale))
        sl = slider_overrides(rtt.value, bw.value, cache.value, epochs.value, pattern.value, scale)
        if isinstance(doc.get("link"), Mapping) and doc["link"].get("bandwidth_gbps") is not None:
            # the scenario states the bandwidth at the top: move that key, not the workload's
            sl["link.bandwidth_gbps"] = sl.pop("workload.link.bandwidth_bytes_per_s") * 8 / 1e9
        ov.update(sl)
        with out:
            out.clear_output(wait=True)
            try:
                wi = evaluate_whatif(doc, ov, seed=int(params.get("seed", 0)))
            except SimulateError as exc:
                print(f"not simulated: {exc}")
                return
            display(summary_frame(wi.result))
            show(curve_chart(wi.result))
            if wi.cost is not None:
                display(cost_frame(wi))
            elif wi.cost_error:
                print(f"cost not computed: {wi.cost_error}")

    for w in (rtt, bw, cache, epochs, pattern):
        w.observe(redraw, names="value")
    note = W.HTML(f"<i>Sliders simulate the dataset and cache at scale {scale:g} (whole epochs); "
                  "hit ratios keep their capacity/dataset ratio. Every number here is a prediction.</i>")
    box = W.VBox([note, W.HBox([rtt, bw]), W.HBox([cache, epochs]), pattern, out])
    box.redraw = redraw
    redraw()
    return box
