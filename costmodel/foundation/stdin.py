"""``-`` for standard input where a file is read: the one reader, its name and its SHA-256.

Standard input is read once, whole (bounded), and named ``<stdin>`` in every record and message, with
the SHA-256 of the bytes read beside it, so a record made from a pipe is as reproducible as one made
from a file. A command takes at most one input from it (:func:`refuse_two`). Every read is bounded: whole
reads by the caller's limit, copies into a file (:func:`copy_to`, for readers that seek) by
``COSTMODEL_MAX_STDIN_BYTES`` (:func:`~costmodel.foundation.limits.max_stdin_bytes`, default 4 GiB).
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from collections.abc import Iterable
from typing import Any

#: how an input read from standard input is named in records and messages
NAME = "<stdin>"

_read: dict[str, str] = {}  # the SHA-256 of what this process last read from standard input


def is_stdin(path: Any) -> bool:
    """True for ``-`` (the command-line spelling of standard input)."""
    return path is not None and not isinstance(path, (list, tuple)) and os.fspath(path) == "-"


def read_bytes(max_bytes: int | None = None) -> bytes:
    """All of standard input (at most ``max_bytes`` + 1 bytes, so a caller can tell it was larger);
    records its SHA-256 (:func:`sha256`)."""
    stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else None
    if stream is None:  # a replaced sys.stdin (a notebook): text
        data = sys.stdin.read().encode("utf-8") if sys.stdin is not None else b""
    else:
        data = stream.read() if max_bytes is None else stream.read(max_bytes + 1)
    _read["sha256"] = hashlib.sha256(data).hexdigest()
    return data


class StdinTooLarge(OSError):
    """Standard input held more than the bound; ``str()`` is one line naming ``<stdin>`` and the variable."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"{NAME}: more than {limit:,} bytes on standard input; refused (an endless pipe? "
                         "COSTMODEL_MAX_STDIN_BYTES raises the bound)")
        self.limit = limit

    def __str__(self) -> str:
        return str(self.args[0])


def copy_to(path: str | os.PathLike[str], max_bytes: int | None = None, chunk_bytes: int = 1 << 20) -> int:
    """Copy standard input into the new file ``path``, at most ``max_bytes`` (default
    :func:`~costmodel.foundation.limits.max_stdin_bytes`); returns the bytes copied and records their SHA-256.
    Raises :class:`StdinTooLarge` past the bound, with ``path`` removed (nothing is left behind on any error)."""
    from .limits import max_stdin_bytes

    limit = max_stdin_bytes() if max_bytes is None else max_bytes
    stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else None
    h = hashlib.sha256()
    n = 0
    try:
        with open(path, "xb") as out:
            while True:
                chunk = (stream.read(chunk_bytes) if stream is not None
                         else (sys.stdin.read(chunk_bytes).encode("utf-8") if sys.stdin is not None else b""))
                if not chunk:
                    break
                n += len(chunk)
                if n > limit:
                    raise StdinTooLarge(limit)
                h.update(chunk)
                out.write(chunk)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    _read["sha256"] = h.hexdigest()
    return n


def sha256() -> str | None:
    """The SHA-256 of the bytes last read by :func:`read_bytes` (None when nothing was read)."""
    return _read.get("sha256")


def stdin_flags(pairs: Iterable[tuple[str, Any]]) -> list[str]:
    """The flags among ``(flag, value)`` whose value is ``-``."""
    return [flag for flag, value in pairs if is_stdin(value)]


def refuse_two(pairs: Iterable[tuple[str, Any]], error: type[Exception]) -> None:
    """Raise ``error`` (one line) when more than one of ``(flag, value)`` reads standard input."""
    flags = stdin_flags(pairs)
    if len(flags) > 1:
        raise error(f"only one input can come from standard input ('-'); got {', '.join(flags)}")
