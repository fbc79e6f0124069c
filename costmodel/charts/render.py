"""Rendering plumbing shared by every chart family: the theme (sizes, fonts), the lazy Altair import and
its background preload, offline rendering to self-contained SVG (vl-convert: no CDN, no JavaScript) and
:func:`show`, which fails loudly when a chart cannot be drawn (Altair's display hook would swallow it).
"""
from __future__ import annotations

import contextlib
import itertools
import re
import threading
from typing import Any

from ..foundation.errors import ReportError

#: Altair refuses data beyond this many rows; charts pre-aggregate to stay under it.
MAX_ROWS = 5000
#: Points per run drawn in a timeline (bins of equal width on the x axis).
POINTS_PER_RUN = 400
#: Panels drawn by :func:`throughput` (one per run); further runs are only in :func:`overlay`.
MAX_PANELS = 12
WIDTH = 640
HEIGHT = 220
FONT_SIZE = 12


from ..foundation.adapters.jsonschema_adapter import lean_imports as lean_imports  # noqa: E402  the name stays here

_preload_thread: threading.Thread | None = None
_TINY_SPEC = {"mark": "point", "data": {"values": [{"x": 1}]}, "encoding": {"x": {"field": "x", "type": "quantitative"}}}


def preload() -> None:
    """Import Altair and start vl-convert's renderer in a background thread, so a notebook loads and
    fits its data meanwhile (two cores: the first chart no longer waits seconds). Idempotent; errors
    are left for the first real chart to report."""
    global _preload_thread  # noqa: PLW0603  module-level cache
    if _preload_thread is not None:
        return
    import pandas  # noqa: F401 - imported here first: threads must not import the same package at once

    def work() -> None:
        with contextlib.suppress(Exception):
            _alt()
            import vl_convert as vlc

            vlc.vegalite_to_svg(_TINY_SPEC)

    _preload_thread = threading.Thread(target=work, name="costmodel-charts-preload", daemon=True)
    _preload_thread.start()


def _wait_preload() -> None:
    t = _preload_thread
    if t is not None and t is not threading.current_thread():
        t.join()


def _alt():
    _wait_preload()
    from ..foundation.util import require

    with lean_imports():
        alt = require("altair", "report", "drawing charts")

    return alt


def _configure(chart: Any) -> Any:
    return (
        chart.configure_axis(labelFontSize=FONT_SIZE, titleFontSize=FONT_SIZE + 1)
        .configure_legend(labelFontSize=FONT_SIZE, titleFontSize=FONT_SIZE)
        .configure_title(fontSize=FONT_SIZE + 3, subtitleFontSize=FONT_SIZE - 1, anchor="start")
        .configure_view(stroke="#cccccc")
    )


_counter = itertools.count(1)
_ID_RE = re.compile(r'\bid="([^"]+)"')
_REF_RE = re.compile(r'url\(#([^)]+)\)|href="#([^"]+)"')


def to_svg(chart: Any, prefix: str | None = None) -> str:
    """Render ``chart`` to a self-contained SVG string with vl-convert (no network).

    Element ids are prefixed (``prefix`` or a counter) so several charts inlined in one HTML page do
    not share clip-path ids. Every float of the spec is rounded to its published precision first
    (:func:`costmodel.foundation.published.published`). Raises :class:`ReportError` when the chart cannot be rendered.
    """
    _wait_preload()
    from ..foundation.published import published
    from ..foundation.util import require

    vlc = require("vl_convert", "report", "rendering charts to SVG")
    try:
        spec = chart.to_dict() if hasattr(chart, "to_dict") else dict(chart)
        # the figures drawn (data, domains) at their published precision (docs/contracts.md): the SVG's
        # coordinates and labels are then the same bytes on every machine
        svg = vlc.vegalite_to_svg(published(spec))
    except Exception as exc:
        raise ReportError(f"chart could not be rendered: {type(exc).__name__}: {exc}") from exc
    p = prefix or f"cm{next(_counter)}"
    svg = _ID_RE.sub(lambda m: f'id="{p}-{m.group(1)}"', svg)
    svg = _REF_RE.sub(lambda m: f"url(#{p}-{m.group(1)})" if m.group(1) else f'href="#{p}-{m.group(2)}"', svg)
    return svg


class SVGFigure:
    """A rendered chart for notebooks: displays as inline SVG (``image/svg+xml``)."""

    def __init__(self, svg: str, title: str = "chart") -> None:
        self.svg = svg
        self.title = title

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"image/svg+xml": self.svg, "text/plain": f"<{self.title}>"}


def show(*charts: Any) -> None:
    """Render each chart to SVG and display it; raise (failing the cell) when one cannot be drawn."""
    from ..foundation.display_capture import display

    display(*[SVGFigure(to_svg(c)) for c in charts])
