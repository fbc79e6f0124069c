"""``-`` for standard input where a file is read: the one reader, its name and its SHA-256.

Standard input is read once, whole (bounded), and named ``<stdin>`` in every record and message, with
the SHA-256 of the bytes read beside it, so a record made from a pipe is as reproducible as one made
from a file. A command takes at most one input from it (:func:`refuse_two`).
"""
from __future__ import annotations

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
