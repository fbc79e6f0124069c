"""Following a log as it is written: a growing file, a rotated or truncated one, or standard input.

:class:`Follower` yields :class:`Update` objects: ``data`` (new complete lines), ``rotated`` (the path
now names a new file, or the file was truncated: a new part begins), ``idle`` (nothing new for
``idle_timeout_s``: the writer stopped) and ``eof`` (standard input closed, or a file read once). The
bytes of each part are kept; :func:`parse_parts` reads them with the ingest reader the file's name and
content select (so every format ``costmodel ingest`` reads), each part on its own (a rotated CSV
without its header gets the first part's header), and joins the rows. Rows the reader rejects are
counted and named (path, line, reason), never fatal; a part that cannot be read yet (a header without
rows) is reported and retried at the next update.
"""
from __future__ import annotations

import os
import queue
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO

READ_BYTES = 1 << 20


@dataclass
class Update:
    kind: str  # data | rotated | idle | eof
    idle_s: float = 0.0


@dataclass
class Follower:
    """Follow ``path`` (``-`` for standard input). ``follow=False`` reads what is there and ends."""

    path: str
    poll_s: float = 0.5
    idle_timeout_s: float | None = 60.0
    follow: bool = True
    stdin: BinaryIO | None = None
    parts: list[bytearray] = field(default_factory=lambda: [bytearray()])
    rotations: int = 0
    ended: bool = False
    _fh: BinaryIO | None = None
    _ino: int | None = None
    _q: queue.Queue[bytes | None] | None = None

    @property
    def name(self) -> str:
        return "<stdin>" if self.path == "-" else self.path

    def _open(self) -> None:
        self._fh = open(self.path, "rb")  # noqa: SIM115 - held open across updates, closed in close()
        self._ino = os.fstat(self._fh.fileno()).st_ino

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def _read_file(self) -> bool:
        assert self._fh is not None
        got = False
        while True:
            b = self._fh.read(READ_BYTES)
            if not b:
                return got
            self.parts[-1] += b
            got = True

    def _rotated(self) -> bool:
        """The path names another file now, or the file shrank (copytruncate): drain, reopen, new part."""
        assert self._fh is not None
        try:
            st = os.stat(self.path)
        except OSError:
            return False  # renamed away and not yet recreated: keep reading the old one
        pos = self._fh.tell()
        if st.st_ino != self._ino:
            self._read_file()
            self.close()
            self._open()
        elif st.st_size < pos:
            self._fh.seek(0)
        else:
            return False
        self.rotations += 1
        self.parts.append(bytearray())
        return True

    def _stdin_reader(self) -> None:
        assert self._q is not None
        src = self.stdin
        assert src is not None
        while True:
            b = src.read1(READ_BYTES) if hasattr(src, "read1") else src.read(READ_BYTES)
            if not b:
                self._q.put(None)
                return
            self._q.put(bytes(b))

    def updates(self) -> Iterator[Update]:
        """Yield updates until the input ends (eof, idle); the caller may stop early."""
        last_data = time.monotonic()
        if self.path == "-":
            import sys

            if self.stdin is None:
                self.stdin = sys.stdin.buffer
            self._q = queue.Queue()
            threading.Thread(target=self._stdin_reader, daemon=True).start()
            while True:
                try:
                    b = self._q.get(timeout=self.poll_s)
                except queue.Empty:
                    idle = time.monotonic() - last_data
                    if self.idle_timeout_s is not None and idle >= self.idle_timeout_s:
                        self.ended = True
                        yield Update("idle", idle)
                        return
                    continue
                if b is None:
                    self.ended = True
                    yield Update("eof")
                    return
                self.parts[-1] += b
                while not self._q.empty():  # take what else is there at once
                    more = self._q.get_nowait()
                    if more is None:
                        self.ended = True
                        yield Update("data")
                        yield Update("eof")
                        return
                    self.parts[-1] += more
                last_data = time.monotonic()
                yield Update("data")
        self._open()
        try:
            while True:
                got = self._read_file()
                if not self.follow:
                    self.ended = True
                    if got:
                        yield Update("data")
                    yield Update("eof")
                    return
                if got:
                    last_data = time.monotonic()
                    yield Update("data")
                    continue
                if self._rotated():
                    self._read_file()
                    last_data = time.monotonic()
                    yield Update("rotated")
                    continue
                idle = time.monotonic() - last_data
                if self.idle_timeout_s is not None and idle >= self.idle_timeout_s:
                    self.ended = True
                    yield Update("idle", idle)
                    return
                time.sleep(self.poll_s)
        finally:
            self.close()


@dataclass
class Parsed:
    """The rows read so far, joined over the parts, and what was rejected."""

    run: Any | None
    rejected: list[dict[str, Any]]
    error: str | None = None
    truncated_tail: bool = False


def _complete(buf: bytes, ended: bool) -> tuple[bytes, bool]:
    """The complete lines of ``buf``; at the end of input the unterminated last line too (flagged)."""
    if ended:
        return buf, bool(buf) and not buf.endswith(b"\n")
    k = buf.rfind(b"\n")
    return (buf[: k + 1] if k >= 0 else b""), False


def _first_line(b: bytes) -> bytes:
    k = b.find(b"\n")
    return b[: k + 1] if k >= 0 else b


def _looks_like_header(line: bytes) -> bool:
    s = line.strip()
    return bool(s) and not s[:1].isdigit() and s[:1] not in (b"{", b"[", b"-", b"+", b".")


def parse_parts(parts: list[bytearray], name: str, options: Any = None, ended: bool = False) -> Parsed:
    """Read the parts (complete lines; the unterminated tail too when ``ended``) with ingest and join them."""
    import pandas as pd

    from ..foundation.errors import CostmodelError
    from ..ingest import load

    runs: list[Any] = []
    rejected: list[dict[str, Any]] = []
    header = _first_line(bytes(parts[0]))
    truncated = False
    base = Path(name).name if name != "<stdin>" else "stdin.log"
    base = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in base)[:100] or "log"
    with tempfile.TemporaryDirectory(prefix="costmodel-watch-") as tmp:
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            data, trunc = _complete(bytes(part), ended or not last)
            truncated |= trunc and last
            if not data.strip():
                continue
            shift = 0
            if i > 0 and _looks_like_header(header) and _first_line(data) != header:
                data, shift = header + data, 1
            p = Path(tmp) / base
            p.write_bytes(data)
            shown = name if i == 0 else f"{name} (part {i + 1} after a rotation)"
            try:
                got = load(p, options)
            except CostmodelError as exc:
                msg = str(exc).replace(str(p), shown)
                if last and not runs:
                    return Parsed(run=None, rejected=rejected, error=msg, truncated_tail=truncated)
                rejected.append({"path": shown, "line": None, "reason": f"part not readable: {msg}"})
                continue
            r = got[0]
            rejected.extend({"path": shown, "line": None if rej.line is None else rej.line - shift,
                             "reason": rej.reason, "field": rej.field} for rej in r.rejected)
            runs.append(r)
    if not runs:
        return Parsed(run=None, rejected=rejected, error="no complete rows yet", truncated_tail=truncated)
    if len(runs) == 1:
        return Parsed(run=runs[0], rejected=rejected, truncated_tail=truncated)
    table = pd.concat([r.table for r in runs], ignore_index=True)
    return Parsed(run=replace(runs[0], table=table), rejected=rejected, truncated_tail=truncated)
