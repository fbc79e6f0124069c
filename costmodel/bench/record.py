"""The JSONL record of a run, written as it goes and completed atomically.

Lines go to ``OUT.partial`` (flushed after every pass, so a killed run leaves what it measured);
the ``end`` record is appended last and the file is renamed onto ``OUT``. ``OUT`` therefore only
ever holds a finished record (``status`` ``complete`` or ``interrupted``). Record types, in order:
``run`` (first line), ``manifest``, then per pass ``file`` ..., ``sample`` ..., ``pass``; ``end`` last.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..foundation.errors import BenchError

#: The first line's ``schema`` value; the ingest reader sniffs it.
SCHEMA = "costmodel.bench/1"


def _clean(obj: Any) -> Any:
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


def json_line(record: dict[str, Any]) -> str:
    """One strict-JSON line (NaN and infinities become null)."""
    return json.dumps(_clean(record), allow_nan=False, separators=(",", ":")) + "\n"


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold SIGINT (Ctrl-C) and SIGTERM until the block ends, so records are never half-written.

    A signal that arrived meanwhile is re-raised once the old handlers are back. Only the main
    thread can install handlers; elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    old: dict[int, Any] = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        prev = signal.getsignal(sig)
        if prev is not None:
            old[sig] = signal.signal(sig, lambda signum, frame: got.append(signum))
    try:
        yield
    finally:
        for signum, handler in old.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(got):
            signal.raise_signal(signum)


def check_out_path(path: str | os.PathLike[str]) -> None:
    """Raise BenchError when ``path`` cannot receive the record (a directory, or a folder we cannot write)."""
    p = Path(path)
    if p.is_dir():
        raise BenchError(f"--out {p}: is a directory; expected a file name such as run.jsonl")
    parent = p.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise BenchError(f"--out {p}: cannot write in {parent}")


class RecordWriter:
    """Append records to ``OUT.partial``; :meth:`finish` renames it onto ``OUT``, :meth:`abort` removes it."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        check_out_path(path)
        self.path = Path(path)
        self.partial = self.path.with_name(self.path.name + ".partial")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.partial, "w", encoding="utf-8")  # noqa: SIM115 - closed by close()/abort()
        except OSError as exc:
            raise BenchError(f"--out {self.path}: cannot write ({exc.strerror or exc})") from None

    def write(self, records: Iterable[dict[str, Any]]) -> None:
        chunk = "".join(json_line(r) for r in records)
        with interrupts_deferred():
            self._fh.write(chunk)
            self._fh.flush()

    def finish(self, end_record: dict[str, Any]) -> Path:
        with interrupts_deferred():
            self._fh.write(json_line(end_record))
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            os.replace(self.partial, self.path)
        return self.path

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            self._fh.close()
        with contextlib.suppress(FileNotFoundError):
            self.partial.unlink()
