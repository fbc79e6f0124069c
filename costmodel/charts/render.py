"""Rendering plumbing shared by every chart family: the theme (sizes, fonts), the lazy Altair import and
its background preload, offline rendering to self-contained SVG (vl-convert: no CDN, no JavaScript) and
:func:`show`, which fails loudly when a chart cannot be drawn (Altair's display hook would swallow it).
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import itertools
import re
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar

from ..foundation.errors import ReportError

if TYPE_CHECKING:
    from .drawer import Drawer

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


def preload(renderer: bool = True, altair: bool = True) -> None:
    """Import Altair in a background thread (``altair``), so a notebook loads and fits its data meanwhile.
    ``renderer`` is kept for callers of earlier versions and starts nothing: the report's charts are drawn in Python
    (:mod:`costmodel.charts.svg`), and vl-convert's JavaScript engine starts only for a chart outside that subset.
    Idempotent; errors are left for the first real chart to report."""
    global _preload_thread  # noqa: PLW0603  module-level cache
    if _preload_thread is not None:
        return
    import pandas  # noqa: F401 - imported here first: threads must not import the same package at once

    if not altair:
        return

    def work() -> None:
        with contextlib.suppress(Exception):
            _alt()

    _preload_thread = threading.Thread(target=work, name="costmodel-charts-preload", daemon=True)
    _preload_thread.start()


def _wait_preload() -> None:
    t = _preload_thread
    if t is not None and t is not threading.current_thread():
        t.join()


#: charts made in this context are built by :mod:`.vl` (plain dicts, no Altair import): :func:`lite_charts`
_LITE: contextvars.ContextVar[bool] = contextvars.ContextVar("costmodel_lite_charts", default=False)


@contextlib.contextmanager
def lite_charts() -> Iterator[None]:
    """Chart functions called in this context build their specs with :mod:`costmodel.charts.vl` (the same
    Vega-Lite dicts as Altair's ``to_dict``, without importing Altair): what the report uses. Outside it they
    return Altair charts."""
    token = _LITE.set(True)
    try:
        yield
    finally:
        _LITE.reset(token)


def _alt() -> Any:
    """The module the chart functions build with: :mod:`.vl` inside :func:`lite_charts`, Altair otherwise."""
    if _LITE.get():
        from . import vl

        return vl
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


#: charts made in this context by a :func:`reusable` chart function, by its arguments (:func:`reusing`)
_REUSE: contextvars.ContextVar[dict[Any, Any] | None] = contextvars.ContextVar("costmodel_chart_reuse", default=None)
_T = TypeVar("_T")


@contextlib.contextmanager
def reusing() -> Iterator[None]:
    """Within this context a :func:`reusable` chart function called again with the same arguments (the same objects,
    or equal plain values) returns the chart it made the first time, and :func:`spec_of` of that chart its spec made
    the first time: ``costmodel report`` makes its charts as soon as their data exist (:mod:`costmodel.report.
    early_charts`) and its page then asks for the same charts with the same calls. The results the arguments come
    from are not changed after their stage (tests/report/test_early_charts.py compares the page with one whose
    charts were each made once, when shown)."""
    token = _REUSE.set({})
    try:
        yield
    finally:
        _REUSE.reset(token)


def _argument_key(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return (type(value), value)
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_argument_key(v) for v in value))
    return ("object", id(value))  # the object itself is kept with the chart (below): its id is not reused meanwhile


def reusable(make: Callable[..., _T]) -> Callable[..., _T]:
    """``make`` (a chart function) with its charts reused within :func:`reusing`."""

    @functools.wraps(make)
    def wrapper(*args: Any, **kwargs: Any) -> _T:
        memo = _REUSE.get()
        if memo is None:
            return make(*args, **kwargs)
        key = (make.__module__, make.__qualname__, _argument_key(args), _argument_key(tuple(sorted(kwargs.items()))))
        if key not in memo:
            memo[key] = (make(*args, **kwargs), args, kwargs)
        return memo[key][0]

    return wrapper


_counter = itertools.count(1)
#: the id numbering of the page being drawn (:func:`drawing_in`: each page from cm1, so a second report in the same
#: process writes the same bytes); None: the process's numbering
_PAGE_COUNTER: contextvars.ContextVar[itertools.count[int] | None] = contextvars.ContextVar(
    "costmodel_chart_ids", default=None)


def _next_prefix() -> str:
    return f"cm{next(_PAGE_COUNTER.get() or _counter)}"


_ID_RE = re.compile(r'\bid="([^"]+)"')
_REF_RE = re.compile(r'url\(#([^)]+)\)|href="#([^"]+)"')
#: the process that draws the charts :func:`show` shows in this context (:func:`drawing_in`); None: drawn here at once
_DRAWER: contextvars.ContextVar[Drawer | None] = contextvars.ContextVar("costmodel_chart_drawer", default=None)


def to_svg(chart: Any, prefix: str | None = None) -> str:
    """Render ``chart`` to a self-contained SVG string with vl-convert (no network).

    Element ids are prefixed (``prefix`` or a counter) so several charts inlined in one HTML page do
    not share clip-path ids. Every float of the spec is rounded to its published precision first
    (:func:`costmodel.foundation.published.published`). Raises :class:`ReportError` when the chart cannot be rendered.
    """
    spec = spec_of(chart)
    return _draw(spec, prefix or _next_prefix())


def spec_of(chart: Any) -> dict[str, Any]:
    """``chart``'s Vega-Lite spec as :func:`show` draws it, every float at its published precision: a
    :mod:`.vl` chart's ``vega_lite()``, or Altair's ``to_dict`` without its JSON-schema validation (the same dict;
    the validation took ~0.35 s of a report's 5 charts, and vl-convert refuses a spec it cannot draw anyway).
    Within :func:`reusing`, the spec made the first time for the same chart. Raises :class:`ReportError` when the
    chart cannot be made."""
    memo = _REUSE.get()
    if memo is not None and ("spec", id(chart)) in memo:
        return memo[("spec", id(chart))][0]
    spec = _spec_of(chart)
    if memo is not None:
        memo[("spec", id(chart))] = (spec, chart)
    return spec


def _spec_of(chart: Any) -> dict[str, Any]:
    _wait_preload()
    from ..foundation.published import published

    try:
        if hasattr(chart, "vega_lite"):  # built by charts.vl
            spec = chart.vega_lite()
        else:
            spec = chart.to_dict(validate=False) if hasattr(chart, "to_dict") else dict(chart)
        # the figures drawn (data, domains) at their published precision (docs/contracts.md): the SVG's
        # coordinates and labels are then the same bytes on every machine
        return published(spec)
    except Exception as exc:
        raise ReportError(f"chart could not be rendered: {type(exc).__name__}: {exc}") from exc


def _draw(spec: dict[str, Any], prefix: str) -> str:
    """``spec`` drawn in this process, its element ids prefixed: by :mod:`costmodel.charts.svg` (Python, the subset of
    Vega-Lite the report uses) or, for a spec outside it, by vl-convert."""
    from .svg.draw import draw_native

    svg = draw_native(spec)
    if svg is None:
        from ..foundation.util import require

        vlc = require("vl_convert", "report", "rendering charts to SVG")
        try:
            svg = vlc.vegalite_to_svg(spec)
        except Exception as exc:
            raise ReportError(f"chart could not be rendered: {type(exc).__name__}: {exc}") from exc
    return _prefixed(svg, prefix)


def _prefixed(svg: str, prefix: str) -> str:
    svg = _ID_RE.sub(lambda m: f'id="{prefix}-{m.group(1)}"', svg)
    return _REF_RE.sub(lambda m: f"url(#{prefix}-{m.group(1)})" if m.group(1) else f'href="#{prefix}-{m.group(2)}"',
                       svg)


@contextlib.contextmanager
def drawing_in(drawer: Drawer) -> Iterator[None]:
    """Charts :func:`show` shows in this context are drawn by ``drawer`` (:class:`~costmodel.charts.drawer.Drawer`:
    vl-convert in a process of its own) while the caller goes on; their specs are made, and their id prefixes
    numbered, here and in order (the same SVGs as drawn one by one here). Each :class:`SVGFigure` shown holds the
    pending drawing (:meth:`SVGFigure.pending_bundle`) until it is read. Element ids are numbered from ``cm1`` in
    each such context: the same page is the same bytes however many were drawn before in the process."""
    token = _DRAWER.set(drawer)
    numbering = _PAGE_COUNTER.set(itertools.count(1))
    try:
        yield
    finally:
        _PAGE_COUNTER.reset(numbering)
        _DRAWER.reset(token)


class SVGFigure:
    """A rendered chart for notebooks: displays as inline SVG (``image/svg+xml``); ``svg`` may be a pending
    drawing (a Future of the SVG string, from :func:`show` inside :func:`drawing_in`), waited for when read."""

    def __init__(self, svg: str | Future[str], title: str = "chart") -> None:
        self._svg = svg
        self.title = title

    @property
    def svg(self) -> str:
        """The SVG string (waits for a pending drawing; raises its ReportError)."""
        return self._svg if isinstance(self._svg, str) else self._svg.result()

    def pending_bundle(self) -> Future[dict[str, str]] | None:
        """The MIME bundle once the pending drawing is done (None when the SVG is already drawn): what
        :func:`costmodel.foundation.display_capture.display` records without waiting for it."""
        if isinstance(self._svg, str):
            return None
        from .drawer import chained

        return chained(self._svg, self._bundle)

    def _bundle(self, svg: str) -> dict[str, str]:
        return {"image/svg+xml": svg, "text/plain": f"<{self.title}>"}

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return self._bundle(self.svg)


def show(*charts: Any) -> None:
    """Render each chart to SVG and display it; raise (failing the cell) when one cannot be drawn (inside
    :func:`drawing_in`: a spec that cannot be made raises here, a drawing that fails where it is read)."""
    from ..foundation.display_capture import display

    drawer = _DRAWER.get()
    if drawer is None:
        display(*[SVGFigure(to_svg(c)) for c in charts])
        return
    specs = [spec_of(c) for c in charts]
    figures = []
    for spec in specs:
        prefix = _next_prefix()
        figures.append(SVGFigure(drawer.draw(spec, then=lambda svg, p=prefix: _prefixed(svg, p))))
    display(*figures)
