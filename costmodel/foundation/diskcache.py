"""A content-keyed cache on disk for results that are slow to compute and fixed by their inputs and the code: the
what-if simulator's predictions and the measured compares of ``costmodel place`` (as numba caches its compiled
kernels). An entry's key is the SHA-256 of everything the result depends on: the inputs as given (a mapping, the
bytes of input files), the source of every ``costmodel`` module, the numpy and Python versions and the machine, so an
edited input or a new version of the code is a miss, never a stale answer. An entry holds JSON only (what the caller
would compute, floats written as ``repr`` and read back to the bit).

Where: ``COSTMODEL_CACHE_DIR``, else ``$XDG_CACHE_HOME/costmodel``, else ``~/.cache/costmodel``. ``COSTMODEL_CACHE=0``
turns it off (nothing read or written). A cache that cannot be read or written (a read-only home, a corrupt or
half-written entry, a full disk) is a miss: the result is computed as without a cache, never an error.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

#: bump to invalidate every entry written by an earlier layout
LAYOUT = 1


def cache_dir() -> Path | None:
    """The cache folder, or None when ``COSTMODEL_CACHE`` is 0/off/no/false."""
    if os.environ.get("COSTMODEL_CACHE", "").strip().lower() in ("0", "off", "no", "false"):
        return None
    explicit = os.environ.get("COSTMODEL_CACHE_DIR", "").strip()
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg) if xdg else Path.home() / ".cache") / "costmodel"


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 of the source of every module of the installed ``costmodel`` package (paths and bytes, sorted), with
    the numpy and Python versions and the machine: any change of the code that computes a cached result is a miss.
    About 40 ms for the 230 modules, once per process."""
    import platform

    import numpy as np

    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256(f"{LAYOUT}|{np.__version__}|{sys.version}|{platform.machine()}".encode())
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                p = Path(folder) / name
                h.update(str(p.relative_to(root)).encode() + b"\0")
                try:
                    h.update(p.read_bytes())
                except OSError:
                    h.update(b"<unreadable>")
    return h.hexdigest()


def file_digest(path: str | os.PathLike[str]) -> str | None:
    """SHA-256 of a regular local file's bytes, None for anything else (a folder, a URL, a missing file): a
    result read from such an input is not cached."""
    from .util import sha256_file

    p = Path(path)
    try:
        return sha256_file(p) if p.is_file() else None
    except OSError:
        return None


def key(kind: str, inputs: Any) -> str:
    """The entry's key: SHA-256 of ``kind``, the code fingerprint and ``inputs`` as canonical JSON (keys sorted;
    anything JSON cannot hold, such as a date, written as its ``repr``)."""
    text = json.dumps([kind, code_fingerprint(), inputs], sort_keys=True, default=repr, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _entry(kind: str, k: str) -> Path | None:
    d = cache_dir()
    return None if d is None else d / kind / k[:2] / f"{k}.json"


def get(kind: str, k: str) -> Any | None:
    """The JSON value stored under ``k``, None on a miss (no entry, the cache off, an entry that cannot be read)."""
    p = _entry(kind, k)
    if p is None:
        return None
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("key") != k or "value" not in doc:
        return None
    return doc["value"]


def put(kind: str, k: str, value: Any) -> None:
    """Store ``value`` (JSON) under ``k`` atomically; nothing happens when the cache is off or cannot be written."""
    p = _entry(kind, k)
    if p is None:
        return
    from .errors import CostmodelError
    from .util import write_text_atomic

    try:
        write_text_atomic(p, json.dumps({"key": k, "value": value}, separators=(",", ":")))
    except (CostmodelError, OSError, ValueError, TypeError):
        return
