"""Run ``costmodel`` verbs from tests: in this process (fast, stdout/stderr captured) or as a child
process (signals, the installed entry point, another working folder). Use the ``cli`` fixture."""
from __future__ import annotations

import contextlib
import io
import json as _json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .paths import REPO


@dataclass
class Result:
    """What a verb did: exit status, stdout, stderr, wall time, and whether it hung on a FIFO.

    Unpacks as ``rc, out, err = cli(...)``; ``.json`` parses stdout."""

    rc: int
    out: str
    err: str
    seconds: float = 0.0
    hung: bool = False

    def __iter__(self) -> Iterator[Any]:
        return iter((self.rc, self.out, self.err))

    @property
    def json(self) -> Any:
        """stdout parsed as JSON (fails the test with stderr shown when it is not JSON)."""
        try:
            return _json.loads(self.out)
        except _json.JSONDecodeError as exc:
            raise AssertionError(f"stdout is not JSON ({exc}); rc={self.rc}; stderr:\n{self.err}") from None

    @property
    def lines(self) -> list[str]:
        """The non-blank stderr lines."""
        return [ln for ln in self.err.splitlines() if ln.strip()]


class Cli:
    """``cli(*args)`` runs ``costmodel ARGS`` in this process; ``cli.json(*args)`` also asserts exit 0 and
    returns the parsed stdout; ``cli.subprocess(*args)`` runs ``python -m costmodel ARGS`` as a child."""

    def __call__(self, *args: Any, fifos: tuple[Path, ...] = (), watchdog_s: float = 20.0) -> Result:
        """In this process, stdout/stderr captured; an argparse usage error gives its exit status.
        When ``fifos`` are given, a watchdog opens them for writing after ``watchdog_s`` (unblocking a
        reader that hung on one) and the result says ``hung``: a hang fails the test, not the suite."""
        from costmodel.cli import main

        hung, done = threading.Event(), threading.Event()

        def watchdog() -> None:
            if done.wait(watchdog_s):
                return
            hung.set()
            for f in fifos:
                with contextlib.suppress(OSError):
                    os.close(os.open(f, os.O_WRONLY | os.O_NONBLOCK))

        if fifos:
            threading.Thread(target=watchdog, daemon=True).start()
        out, err = io.StringIO(), io.StringIO()
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main([str(a) for a in args])
            except SystemExit as exc:  # argparse usage errors
                rc = exc.code if isinstance(exc.code, int) else 2
        done.set()
        return Result(int(rc), out.getvalue(), err.getvalue(), time.perf_counter() - t0, hung.is_set())

    def json(self, *args: Any) -> Any:
        """Run in this process, assert exit 0 (stderr shown otherwise) and return stdout as JSON."""
        r = self(*args)
        assert r.rc == 0, f"costmodel {' '.join(map(str, args))} exited {r.rc}:\n{r.err}"
        return r.json

    def subprocess(self, *args: Any, cwd: Path | str | None = None, timeout_s: float = 180,
                   env: dict[str, str] | None = None) -> Result:
        """``python -m costmodel ARGS`` as a child process, this tree first on its PYTHONPATH."""
        path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "costmodel", *map(str, args)], check=False, capture_output=True, text=True,
                           cwd=cwd or REPO, timeout=timeout_s, env={**os.environ, "PYTHONPATH": path, **(env or {})})
        return Result(p.returncode, p.stdout, p.stderr, time.perf_counter() - t0)
