"""Progress of a long read on stderr: a bar on a terminal (tqdm, when installed), else one line every few
seconds; nothing for a read that ends sooner.

A fleet of 1,000 rank logs takes tens of seconds; ``fit``, ``compare`` and ``report`` say how far they
are (files, bytes, seconds) instead of running without a word. Quick reads (tests, small jobs) print
nothing, so the CLI's stderr stays as it was for them. Shown only when stderr is a terminal and not
``--quiet`` (the rule is ``foundation.progress.progress_on``: ``COSTMODEL_PROGRESS=1`` forces lines on in
a CI log, ``=0`` silences it).
"""
from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from ..foundation.progress import isatty as _isatty
from ..foundation.progress import progress_on

#: seconds between lines (the first comes after this long)
EVERY_S = 2.0


class Progress:
    """``update(done, nbytes)`` after each file; ``finish()`` at the end (a last line only when an earlier
    one was printed)."""

    def __init__(self, label: str, total: int, stream: TextIO | None = None, every_s: float | None = None) -> None:
        self.label, self.total = label, total
        self.every_s = EVERY_S if every_s is None else every_s
        self.stream = stream if stream is not None else sys.stderr
        self.on = progress_on(self.stream)
        self.t0 = time.perf_counter()
        self.next = self.t0 + self.every_s
        self.printed = False
        self.done = 0
        self.nbytes = 0
        self.bar: Any = None  # a tqdm bar, made when the first update comes after every_s on a terminal
        self.tty = self.on and _isatty(self.stream)

    def _line(self, now: float) -> None:
        rate = self.nbytes / max(now - self.t0, 1e-9) / 1e6
        print(f"costmodel: {self.label}: {self.done:,}/{self.total:,} files, {self.nbytes / 1e9:.2f} GB, "
              f"{now - self.t0:.0f} s ({rate:.0f} MB/s)", file=self.stream, flush=True)
        self.printed = True

    def update(self, done: int, nbytes: int = 0) -> None:
        self.done = done
        self.nbytes += nbytes
        if not self.on:
            return
        if self.bar is not None:
            self.bar.update(done - self.bar.n)
            return
        now = time.perf_counter()
        if now >= self.next:
            if self.tty and self._start_bar():
                return
            self._line(now)
            self.next = now + self.every_s

    def _start_bar(self) -> bool:
        try:
            from tqdm import tqdm  # type: ignore[import-untyped]
        except ImportError:  # tqdm comes with the report extra; without it, lines
            return False
        self.bar = tqdm(total=self.total, initial=self.done, desc=f"costmodel: {self.label}", unit="file",
                        file=self.stream, leave=False, dynamic_ncols=True)
        return True

    def finish(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
            print(f"costmodel: {self.label}: {self.done:,} files, {self.nbytes / 1e9:.2f} GB, "
                  f"{time.perf_counter() - self.t0:.0f} s", file=self.stream, flush=True)  # one summary line
        elif self.on and self.printed:
            self._line(time.perf_counter())


def say(line: str, stream: TextIO | None = None) -> None:
    """One progress line on stderr (only where ``progress_on``: a terminal, or ``COSTMODEL_PROGRESS=1``)."""
    out = stream if stream is not None else sys.stderr
    if progress_on(out):
        print(f"costmodel: {line}", file=out, flush=True)
