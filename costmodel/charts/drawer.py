"""The report's chart drawer: :class:`Drawer` draws each spec in Python (:mod:`costmodel.charts.svg`) when it is in
that renderer's subset, and sends any other spec to vl-convert in a process of its own, started for the first such
spec, which draws them in order while this process goes on.

Why a process: vl-convert keeps the GIL while it draws (measured: a Python thread beside it gets ~4 % of its usual
speed), so a thread draws no sooner than the caller would; a process draws on the other core. The SVGs are the ones
vl-convert draws here: the child gets each spec as JSON (floats written by ``repr``, read back to the same
doubles) and calls the same function on the same dict. The child imports only ``json`` and ``vl_convert``, ignores
Ctrl-C (the parent stops it) and ends when its input closes, so a parent that dies leaves nothing running."""
from __future__ import annotations

import collections
import contextlib
import json
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from ..foundation.errors import ReportError

T = TypeVar("T")

_CHILD = r"""
import json, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
try:
    import vl_convert as vlc
    vlc.vegalite_to_svg({"mark": "point", "data": {"values": [{"x": 1}]},
                         "encoding": {"x": {"field": "x", "type": "quantitative"}}})
    failed = None
except Exception as exc:
    failed = f"{type(exc).__name__}: {exc}"
for line in sys.stdin:
    if failed is None:
        try:
            reply = {"svg": vlc.vegalite_to_svg(json.loads(line))}
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
    else:
        reply = {"error": failed}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
"""


def _line(spec: dict[str, Any]) -> str:
    """``spec`` as the one line of JSON the child reads. Raises :class:`ReportError` when it is not JSON."""
    try:
        return json.dumps(spec) + "\n"
    except (TypeError, ValueError) as exc:
        raise ReportError(f"chart could not be rendered: {type(exc).__name__}: {exc}") from exc


def chained(source: Future[Any], then: Callable[[Any], T]) -> Future[T]:
    """A Future of ``then(value)`` once ``source`` has its value; ``source``'s error, or the one ``then`` raises, is
    its error."""
    out: Future[T] = Future()

    def settle(done: Future[Any]) -> None:
        error = done.exception()
        if error is not None:
            out.set_exception(error)
            return
        try:
            out.set_result(then(done.result()))
        except Exception as exc:  # noqa: BLE001 - handed to whoever waits for the value
            out.set_exception(exc)

    source.add_done_callback(settle)
    return out


class Drawer:
    """A vl-convert process: :meth:`draw` sends a spec and returns a Future of its SVG (replies come back in the
    order sent); :meth:`close` stops the process (also as a context manager). Raises
    :class:`~costmodel.foundation.errors.MissingExtraError` when vl-convert is not installed."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None  # vl-convert's process, started for the first spec it draws
        self._pending: collections.deque[Future[str]] = collections.deque()  # sent, not yet drawn, in order
        self._early: dict[str, list[Future[str]]] = {}  # spec as sent -> drawings sent early, not yet asked for
        self._native: dict[int, tuple[dict[str, Any], str]] = {}  # id(spec) -> (spec, SVG drawn here early)
        self._sent = 0  # specs sent to the child
        self._lock = threading.Lock()
        self._ended_output = False  # the child's output has closed: nothing sent now will be drawn
        self._closed = False
        self._outbox: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        self._reader: threading.Thread | None = None

    def _start(self) -> None:
        """Start vl-convert's process and the threads that feed and read it (under the lock, once). Raises
        :class:`~costmodel.foundation.errors.MissingExtraError` when vl-convert is not installed."""
        from ..foundation.util import require_extra

        require_extra("report", "rendering charts to SVG", modules=("vl_convert",))
        self._proc = subprocess.Popen([sys.executable, "-c", _CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True, encoding="utf-8", close_fds=True)
        self._writer = threading.Thread(target=self._write, name="costmodel-chart-drawer-in", daemon=True)
        self._reader = threading.Thread(target=self._read, name="costmodel-chart-drawer", daemon=True)
        self._writer.start()
        self._reader.start()

    def draw(self, spec: dict[str, Any], then: Any = None) -> Future[str]:
        """``spec`` (a Vega-Lite dict) drawn to SVG in the child; ``then(svg)`` (optional) makes the Future's
        value from the SVG. A spec sent early (:meth:`predraw`) is not drawn again: the first :meth:`draw` of the
        same spec (as JSON text) gets that drawing, so a chart sent as soon as its data exist is ready when the page
        shows it. A spec in :mod:`costmodel.charts.svg`'s subset is drawn here at once, without the child. The Future
        raises :class:`ReportError` when vl-convert refuses the spec or the process has ended."""
        from .svg.draw import draw_native

        with self._lock:
            kept = self._native.pop(id(spec), None)
        svg = kept[1] if kept is not None and kept[0] is spec else draw_native(spec)
        if svg is not None:
            done: Future[str] = Future()
            try:
                done.set_result(then(svg) if then is not None else svg)
            except Exception as exc:  # noqa: BLE001 - the caller's Future carries it, as for a drawing in the child
                done.set_exception(exc)
            return done
        try:
            text = _line(spec)
        except ReportError as exc:
            out: Future[str] = Future()
            out.set_exception(exc)
            return out
        with self._lock:
            early = self._early.get(text)
            raw = early.pop(0) if early else None
        if raw is None:
            raw = self._send(text)
        return chained(raw, then if then is not None else str)  # the caller's own Future: raw stays the reader's

    def predraw(self, spec: dict[str, Any]) -> None:
        """Start drawing ``spec`` now, for the next :meth:`draw` of the same spec (the report sends its charts as
        soon as their data exist, while its later stages run). vl-convert numbers some element ids by the drawings
        it has made, so the page's bytes are the same only when the charts are sent early in the order the page
        shows them (tests/report/test_early_charts.py). A spec :mod:`costmodel.charts.svg` draws is drawn here now
        and kept for the :meth:`draw` of the same dict."""
        from .svg.draw import draw_native

        svg = draw_native(spec)
        if svg is not None:
            with self._lock:
                self._native[id(spec)] = (spec, svg)  # the spec kept with it: its id is not reused meanwhile
            return
        try:
            text = _line(spec)
        except ReportError:
            return  # the page's draw of it reports the error
        raw = self._send(text)
        with self._lock:
            self._early.setdefault(text, []).append(raw)

    def _send(self, text: str) -> Future[str]:
        """A Future of the raw SVG of ``text`` (a spec as JSON, one line): replies come back in the order sent."""
        raw: Future[str] = Future()
        with self._lock:
            if self._ended_output:
                raw.set_exception(ReportError(f"chart could not be rendered: {self._ended()}"))
                return raw
            if self._closed:
                raw.set_exception(ReportError("chart could not be rendered: the drawer is closed"))
                return raw
            if self._proc is None:
                self._start()
            self._pending.append(raw)
            self._sent += 1
        self._outbox.put(text)  # written by the writer thread: the caller never waits for the child to read
        return raw

    def _write(self) -> None:
        assert self._proc is not None
        stdin = self._proc.stdin
        assert stdin is not None
        while (text := self._outbox.get()) is not None:
            try:
                stdin.write(text)
                stdin.flush()
            except (OSError, ValueError):
                return  # the child has ended: the reader sees its output close and fails every pending drawing

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            with self._lock:
                if not self._pending:
                    continue
                out = self._pending.popleft()
            reply = json.loads(line)
            if "error" in reply:
                out.set_exception(ReportError(f"chart could not be rendered: {reply['error']}"))
                continue
            out.set_result(reply["svg"])
        with self._lock:
            left, self._pending = list(self._pending), collections.deque()
            self._ended_output = True
        for out in left:
            out.set_exception(ReportError(f"chart could not be rendered: {self._ended()}"))

    def _ended(self) -> str:
        code = self._proc.poll() if self._proc is not None else None
        return "the drawing process has ended" + (f" (exit {code})" if code is not None else "")

    def close(self) -> None:
        """Stop the child (killed: it holds nothing worth a graceful end) and reap it; pending drawings fail. Once:
        a second call (the report closes it after the page, and again on its way out) does nothing."""
        if self._closed:
            return
        with self._lock:
            self._closed = True
            proc = self._proc
        if proc is None:
            return
        with contextlib.suppress(OSError):
            proc.kill()
        self._outbox.put(None)
        assert self._writer is not None and self._reader is not None
        self._writer.join(5.0)
        with contextlib.suppress(OSError, ValueError):
            assert proc.stdin is not None
            proc.stdin.close()
        proc.wait()
        self._reader.join(5.0)
        with contextlib.suppress(OSError, ValueError):
            assert proc.stdout is not None
            proc.stdout.close()

    def __enter__(self) -> Drawer:  # noqa: PYI034 - the package supports Python 3.10 (no typing.Self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
