"""The report's charts sent to the drawing process as soon as their data exist.

The page (the notebook's display cells, :mod:`.page`) shows its charts after the whole pipeline; drawn only then,
their drawing (one chain of ~1.4 s in vl-convert for the bundled example) was what the page waited for last. So
``costmodel report`` makes the same charts, with the same calls as the notebook's cells, right after the stage
that produces their data (the rank heatmaps after the ingest, the throughput panels after the fits, the cost charts
after the cost stage) and sends their specs to the :class:`~costmodel.charts.drawer.Drawer`, which draws them
while the later stages run; when the page shows the same chart, the drawer finds the same spec and hands out that
drawing. The SVGs are the same bytes (the same spec drawn once; its element ids are numbered where the page shows
it). A chart that cannot be made here is left to the page, which raises the error where the notebook would.
tests/report/test_early_charts.py checks that every chart the page draws was sent early.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..charts.drawer import Drawer


def _charts_after(stage: str, done: Mapping[str, Any]) -> list[Any]:
    """The charts the notebook's cells make from ``stage``'s results, made by the same calls."""
    from .. import charts
    from . import stages

    inputs = done["inputs"]
    if stage == "inputs":
        return list(inputs.job_heatmaps()) if inputs.jobs else []
    if stage == "fits":
        return [charts.throughput(inputs.runs, list(done["fits"]), axis="t_s")]
    if stage == "cost":
        cost = done["cost"]
        made = [charts.cost_terms(cost.result),
                charts.break_even(cost.break_even_curve, cost.break_even_input, *stages.break_even_point(cost)),
                charts.tornado(cost.tornado)]
        if cost.mc_samples is not None:
            made.append(charts.monte_carlo(cost.mc_samples))
        return made
    return []


def sender(drawer: Drawer) -> Callable[[str, Mapping[str, Any]], None]:
    """A :func:`~costmodel.report.pipeline.run_stages` ``on_result`` hook that sends each stage's charts to
    ``drawer`` (:meth:`~costmodel.charts.drawer.Drawer.predraw`). Never raises for a chart: the page makes it
    again and reports what failed."""
    from ..charts.render import lite_charts, spec_of

    def send(stage: str, done: Mapping[str, Any]) -> None:
        with lite_charts():  # built as the page builds them (charts.vl): the same specs
            try:
                made = _charts_after(stage, done)
            except Exception:  # noqa: BLE001 - the page's cell makes the same chart and raises where the notebook would
                return
            for chart in made:
                try:
                    drawer.predraw(spec_of(chart))
                except Exception:  # noqa: BLE001 - as above
                    continue

    return send
