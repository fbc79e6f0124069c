"""Bounds on the work one hostile input may cause: the longest line, the widest header, the deepest
JSON. Each has a default that no benchmark output comes near and an environment variable to change it; a
breach is one clear line naming the file (and line), never minutes of work or an internal error.

``COSTMODEL_MAX_LINE_BYTES`` (default 1 MiB, the CSV reader's block: a longer line or cell cannot be parsed
anyway), ``COSTMODEL_MAX_COLUMNS`` (default 10,000), ``COSTMODEL_MAX_JSON_DEPTH`` (default 200).

Bounds on streams and work: ``COSTMODEL_MAX_STDIN_BYTES`` (default 4 GiB: standard input copied for
``fit -`` and ``ingest -``), ``COSTMODEL_MAX_OBJECTS`` (default 100,000 objects under one object-storage
URL), ``COSTMODEL_MAX_OBJECT_BYTES`` (default 64 GiB copied from object storage by one command),
``COSTMODEL_MAX_CANDIDATES`` (default 2,000 candidate x offer rows of one placement file, about a minute of work).
"""
from __future__ import annotations

import json
import re
from typing import Any

from .util import env_int


def max_line_bytes() -> int:
    """The longest line (and so cell) a text reader takes, bytes (``COSTMODEL_MAX_LINE_BYTES``, default 1 MiB)."""
    return env_int("COSTMODEL_MAX_LINE_BYTES", 1 << 20)


def max_columns() -> int:
    """The most columns a header may name (``COSTMODEL_MAX_COLUMNS``, default 10,000)."""
    return env_int("COSTMODEL_MAX_COLUMNS", 10_000)


def max_json_depth() -> int:
    """The deepest nesting of arrays and objects a JSON input may have (``COSTMODEL_MAX_JSON_DEPTH``, default 200)."""
    return env_int("COSTMODEL_MAX_JSON_DEPTH", 200)


def max_stdin_bytes() -> int:
    """The most bytes read from standard input (``COSTMODEL_MAX_STDIN_BYTES``, default 4 GiB)."""
    return env_int("COSTMODEL_MAX_STDIN_BYTES", 4 << 30)


def max_objects() -> int:
    """The most objects one object-storage URL may list (``COSTMODEL_MAX_OBJECTS``, default 100,000)."""
    return env_int("COSTMODEL_MAX_OBJECTS", 100_000)


def max_object_bytes() -> int:
    """The most bytes one command copies from object storage (``COSTMODEL_MAX_OBJECT_BYTES``, default 64 GiB)."""
    return env_int("COSTMODEL_MAX_OBJECT_BYTES", 64 << 30)


def max_candidates() -> int:
    """The most candidate x offer rows one placement file may ask for (``COSTMODEL_MAX_CANDIDATES``, default 2,000:
    each is a cost scenario and a Monte Carlo column, about 25 ms)."""
    return env_int("COSTMODEL_MAX_CANDIDATES", 2_000)


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def json_depth_exceeds(text: str | bytes, limit: int) -> int | None:
    """The offset where ``text`` nests deeper than ``limit`` arrays/objects (strings skipped), or None. Linear."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    for m in _TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > limit:
                return m.start()
        elif c in "]}":
            depth -= 1
    return None


class JSONTooDeep(json.JSONDecodeError):
    """A JSON text nested deeper than :func:`max_json_depth` (a ``JSONDecodeError``, so every reader's existing
    handling of bad JSON names the file and line)."""


def loads(text: str | bytes, **kwargs: Any) -> Any:
    """``json.loads`` that refuses, in linear time, a text nested deeper than :func:`max_json_depth` (which would
    otherwise end in a RecursionError or exhaust memory)."""
    limit = max_json_depth()
    at = json_depth_exceeds(text, limit)
    if at is not None:
        doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise JSONTooDeep(f"JSON nested deeper than {limit} levels (COSTMODEL_MAX_JSON_DEPTH)", doc, at)
    return json.loads(text, **kwargs)
