"""The placement widgets for JupyterLab: edit each candidate's offers (price, wait, left in or out), the deadline
and the value of an hour, and see the ranking change. A thin ipywidgets shell: every figure comes from
:func:`costmodel.place.edit.rerank` (the same :func:`~costmodel.place.summary.analyze` as ``costmodel place``)
and is shown by :func:`costmodel.report.placement.placement_html`.
"""
from __future__ import annotations

import os
from typing import Any

from ..foundation.errors import CostmodelError
from ..foundation.util import require
from ..place.edit import read_doc, rerank
from ..report.placement import placement_html, placement_section


def placement_editor(path: str | os.PathLike[str], monte_carlo_n: int = 300) -> Any:
    """A box of widgets over the placement file ``path``: per candidate a checkbox (in or out), per offer its
    USD per instance-hour (0: the catalog's) and wait (hours); the deadline (0: none) and the USD per hour of
    time; below them the ranking, the front chart and the reasons, redrawn on every change."""
    W = require("ipywidgets", "lab", "the placement widgets")
    doc = read_doc(path)
    predictions: dict = {}
    first = rerank(path, {}, monte_carlo_n=monte_carlo_n, predictions=predictions, doc=doc)
    prices = {(c["name"], o["instance_type"], o["purchase"]): o["usd_per_hour"]
              for c in first["candidates"] for o in c["offers"]}
    controls: dict[str, Any] = {}
    rows = []
    for i, c in enumerate(doc.get("candidates") or []):
        name = c.get("name") or f"{c['provider']}:{c['region']}"
        inc = W.Checkbox(value=True, description=name, indent=False)
        controls[f"candidates[{i}].include"] = inc
        row = [inc]
        for j, o in enumerate(c.get("offers") or []):
            now = prices.get((name, o["instance_type"], o.get("purchase", "on_demand")))
            price = W.BoundedFloatText(value=float(now or 0.0), min=0.0, max=10_000.0, step=0.01,
                                       description=f"{o['instance_type']} USD/h", style={"description_width": "initial"})
            wait = o.get("expected_wait_hours", 0)
            wbox = W.BoundedFloatText(value=float(wait) if isinstance(wait, (int, float)) else 0.0, min=0.0,
                                      max=10_000.0, description="wait h", style={"description_width": "initial"},
                                      disabled=not isinstance(wait, (int, float)))
            controls[f"candidates[{i}].offers[{j}].usd_per_hour"] = price
            controls[f"candidates[{i}].offers[{j}].expected_wait_hours"] = wbox
            row += [price, wbox]
        rows.append(W.HBox(row))
    cons = doc.get("constraints") or {}
    deadline = W.BoundedFloatText(value=float(cons.get("deadline_hours") or 0.0), min=0.0, max=1e6,
                                  description="deadline h (0: none)", style={"description_width": "initial"})
    rate = W.BoundedFloatText(value=float((doc.get("objective") or {}).get("usd_per_hour") or 0.0), min=0.0, max=1e9,
                              description="USD per hour sooner", style={"description_width": "initial"})
    out = W.Output()

    def edits() -> dict[str, Any]:
        e: dict[str, Any] = {}
        for key, w in controls.items():
            if key.endswith(".include"):
                e[key] = w.value
            elif key.endswith(".usd_per_hour"):
                if w.value > 0:
                    e[key] = w.value
            elif not w.disabled:
                e[key] = w.value
        e["constraints.deadline_hours"] = deadline.value or None
        e["objective.usd_per_hour"] = rate.value
        return e

    def redraw(_change: Any = None) -> None:
        from IPython.display import HTML, display

        out.clear_output(wait=True)
        with out:
            try:
                res = rerank(path, edits(), monte_carlo_n=monte_carlo_n, predictions=predictions, doc=doc)
            except CostmodelError as exc:
                print(f"cannot rank: {exc}")
                return
            display(HTML(placement_html(placement_section(res)).text))

    for w in [*controls.values(), deadline, rate]:
        w.observe(redraw, names="value")
    redraw()
    return W.VBox([*rows, W.HBox([deadline, rate]), out])
