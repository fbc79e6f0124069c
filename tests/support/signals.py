"""Signal dispositions for the tests that send a signal to a child (Ctrl-C, SIGTERM, hang-up).

A suite started under ``nohup`` (SIGHUP ignored) or from a non-interactive shell's background job (SIGINT
ignored), as CI runners and schedulers start it, hands those ignored signals down to every child, and the
CLI keeps them ignored on purpose (:mod:`costmodel.foundation.signals`: a run started under ``nohup``
survives the hang-up, as the user asked). A test of what the CLI does when such a signal *arrives* starts
its child with the default dispositions, as a terminal gives them: :func:`default_dispositions` as the
``preexec_fn``; an in-process test uses :func:`default_handlers` around the signal it raises.
"""
from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

#: What a shell in a terminal hands a program: SIGINT, SIGTERM and SIGHUP handled by default.
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def default_dispositions() -> None:
    """``preexec_fn`` of a child that is sent a signal: SIGINT, SIGTERM and SIGHUP at their defaults (an
    ignored disposition would survive the exec)."""
    for sig in SIGNALS:
        signal.signal(sig, signal.SIG_DFL)


@contextlib.contextmanager
def default_handlers() -> Iterator[None]:
    """In this process, inside the block: SIGTERM and SIGHUP at SIG_DFL and SIGINT at Python's
    ``default_int_handler`` (what a process started from a terminal has), restored after it."""
    before = {sig: signal.getsignal(sig) for sig in SIGNALS}
    try:
        for sig in SIGNALS:
            signal.signal(sig, signal.default_int_handler if sig == signal.SIGINT else signal.SIG_DFL)
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
