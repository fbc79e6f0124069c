"""Every chart function of the report on the bundled example's stages (the ``report_stages`` fixture), by name:
each value makes the chart when called (inside or outside ``charts.render.lite_charts()``)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


def report_charts(report_stages: tuple) -> dict[str, Callable[[], Any]]:
    from costmodel import charts, report

    _p, inputs, fits, _cmp, cost, decision, _rec = report_stages
    return {
        "throughput t_s": lambda: charts.throughput(inputs.runs, fits, axis="t_s"),
        "throughput step": lambda: charts.throughput(inputs.runs, fits),
        "cost_terms": lambda: charts.cost_terms(cost.result),
        "break_even": lambda: charts.break_even(cost.break_even_curve, cost.break_even_input,
                                                *report.break_even_point(cost)),
        "break_even never": lambda: charts.break_even(cost.break_even_curve, cost.break_even_input, None),
        "tornado": lambda: charts.tornado(cost.tornado),
        "monte_carlo": lambda: charts.monte_carlo(cost.mc_samples),
        "overlay": lambda: charts.overlay(inputs.runs, fits=fits),
        "overlay t_s": lambda: charts.overlay(inputs.runs, axis="t_s"),
        "checklist": lambda: charts.checklist(decision.to_dict()),
    }
