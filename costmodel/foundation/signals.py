"""One way to stop: SIGINT (Ctrl-C), SIGTERM (CI time-outs, ``docker stop``, ``kill``) and SIGHUP (the
terminal went away) all raise :class:`Interrupted` in the main thread, a ``KeyboardInterrupt``
subclass, so every ``finally`` / ``except BaseException`` cleanup that already handles Ctrl-C
(temporary files and folders, the report's kernel, the output folder's claim) runs for all three.

The CLI exits ``128 + signal number``: 130 (SIGINT), 143 (SIGTERM), 129 (SIGHUP), with one line on
stderr (``costmodel VERB: interrupted`` for Ctrl-C, ``costmodel VERB: interrupted by SIGTERM``).

A :class:`SignalScope` installs the handlers (main thread only; a signal that is ignored, e.g. SIGHUP
under ``nohup``, or has a custom handler stays as it is) and records what arrived: while it is
:meth:`~SignalScope.cleaning`, further signals are only noted (a second Ctrl-C cannot abort the
cleanup half-way), and :meth:`~SignalScope.check` raises when a signal was swallowed on the way
(Python ignores exceptions raised in weakref callbacks and ``__del__``).
"""
from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # typing.Self is 3.11+; the annotation is never evaluated at run time
    from typing_extensions import Self

#: the signals handled like Ctrl-C
HANDLED: tuple[int, ...] = tuple(
    s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None))
    if s is not None
)


class Interrupted(KeyboardInterrupt):
    """A handled signal arrived; ``signum`` says which. ``exit_code`` is ``128 + signum``."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signum)
        self.signum = int(signum)

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        try:
            return signal.Signals(self.signum).name
        except ValueError:  # pragma: no cover
            return f"signal {self.signum}"


def exit_code_of(exc: BaseException) -> int:
    """128 + the signal number for an :class:`Interrupted`, 130 for a plain KeyboardInterrupt."""
    return exc.exit_code if isinstance(exc, Interrupted) else 128 + int(signal.SIGINT)


def describe(exc: BaseException) -> str:
    """``interrupted`` for Ctrl-C, ``interrupted by SIGTERM`` / ``by SIGHUP`` for the others."""
    if isinstance(exc, Interrupted) and exc.signum != signal.SIGINT:
        return f"interrupted by {exc.name}"
    return "interrupted"


_scopes: list[SignalScope] = []


def _handler(signum: int, frame: Any) -> None:
    for scope in _scopes:
        scope._note(signum)
    if any(s.cleaning for s in _scopes):
        return
    raise Interrupted(signum)


class SignalScope:
    """Handle SIGINT, SIGTERM and SIGHUP as :class:`Interrupted` while the ``with`` block runs.

    ``on_signal`` callables run (in the main thread) when the first signal arrives, before the
    exception is raised (the report silences the kernel client's shutdown noise there). Scopes nest:
    an inner scope sees the signals too and restores only what it installed.
    """

    def __init__(self, on_signal: Callable[[], None] | None = None) -> None:
        self.seen: int | None = None
        self._cleaning = 0
        self._installed: dict[int, Any] = {}
        self._on_signal = on_signal

    @property
    def cleaning(self) -> bool:
        return self._cleaning > 0

    def _note(self, signum: int) -> None:
        if self.seen is None:
            self.seen = signum
            if self._on_signal is not None:
                self._on_signal()

    def __enter__(self) -> Self:
        if threading.current_thread() is threading.main_thread():
            for sig in HANDLED:
                prev = signal.getsignal(sig)
                if prev is _handler:
                    continue
                if prev in (signal.SIG_DFL, signal.default_int_handler):
                    self._installed[sig] = prev
                    signal.signal(sig, _handler)
        _scopes.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(ValueError):
            _scopes.remove(self)
        for sig, prev in self._installed.items():
            signal.signal(sig, prev)
        self._installed.clear()

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        """Signals are only noted inside the block (cleanup, the final rename); :meth:`check` after it."""
        self._cleaning += 1
        try:
            yield
        finally:
            self._cleaning -= 1

    def check(self) -> None:
        """Raise :class:`Interrupted` when a signal arrived (and was swallowed or deferred)."""
        if self.seen is not None:
            raise Interrupted(self.seen)

    def wait(self, thread: threading.Thread, poll_s: float = 0.2, tick: Callable[[], None] | None = None) -> None:
        """Join ``thread`` while staying interruptible (signals are handled in the main thread only);
        ``tick`` runs every ``poll_s`` meanwhile."""
        while thread.is_alive():
            thread.join(poll_s)
            if tick is not None:
                tick()
            if not self.cleaning:
                self.check()


__all__ = ["HANDLED", "Interrupted", "SignalScope", "describe", "exit_code_of"]
