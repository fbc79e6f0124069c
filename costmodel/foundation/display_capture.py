"""Display without a kernel: :func:`display` shows objects in a notebook (IPython's ``display``), or, inside
:func:`capturing`, records each object's MIME bundle as a notebook ``display_data`` output would hold it. The
report renders its page in process this way (``costmodel.report.page``): the notebook's display cells run in
this process and their outputs are what the kernel would have sent."""
from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

_SINK: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar("costmodel_display_sink",
                                                                                    default=None)


def mime_bundle(obj: Any) -> dict[str, Any]:
    """``obj`` as a MIME bundle, the way IPython's formatter makes one for the objects the package displays: its
    ``_repr_mimebundle_``, else its ``_repr_html_`` beside ``text/plain`` (its ``repr``, or its class's name where
    the class has no repr of its own)."""
    bundle = getattr(obj, "_repr_mimebundle_", None)
    if callable(bundle):
        data = bundle()
        data = data[0] if isinstance(data, tuple) else data
        return dict(data)
    out: dict[str, Any] = {}
    html = getattr(obj, "_repr_html_", None)
    if callable(html):
        text = html()
        if text is not None:
            out["text/html"] = text
    kind: Any = type(obj)
    # an object without a repr of its own: no memory address, so the same inputs give the same notebook
    own_repr = getattr(kind, "__repr__", None) is not object.__repr__
    out["text/plain"] = repr(obj) if own_repr else f"<{kind.__module__}.{kind.__qualname__}>"
    return out


def display(*objs: Any) -> None:
    """Show ``objs``: recorded as outputs inside :func:`capturing`, else IPython's ``display`` (nothing without
    IPython installed). Inside :func:`capturing`, an object whose ``pending_bundle()`` gives a Future (a chart
    still being drawn elsewhere, e.g. in the report's chart process) is recorded with that Future as its ``data``,
    for :func:`settled` to wait for."""
    sink = _SINK.get()
    if sink is not None:
        sink.extend({"output_type": "display_data", "data": _pending(o) or mime_bundle(o), "metadata": {}}
                    for o in objs)
        return
    with contextlib.suppress(ImportError):
        from IPython.display import display as ipython_display

        for o in objs:
            ipython_display(o)


def _pending(obj: Any) -> Future[dict[str, Any]] | None:
    pending = getattr(obj, "pending_bundle", None)
    return pending() if callable(pending) else None


def settled(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``outputs`` recorded by :func:`capturing` with every pending MIME bundle waited for, in order (raises what
    the pending work raised)."""
    return [dict(o, data=o["data"].result()) if isinstance(o["data"], Future) else o for o in outputs]


@contextlib.contextmanager
def capturing() -> Iterator[list[dict[str, Any]]]:
    """Record what :func:`display` shows in this context (this thread or task) as a list of ``display_data``
    outputs (dicts with ``output_type``, ``data``, ``metadata``)."""
    sink: list[dict[str, Any]] = []
    token = _SINK.set(sink)
    try:
        yield sink
    finally:
        _SINK.reset(token)
