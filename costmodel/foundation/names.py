"""Names the tool did not choose (object keys, listed paths, archive members, file names) made safe to
write under a folder and to echo on a terminal.

:func:`contained` turns a remote relative name into a path inside ``root`` or raises an
:class:`~costmodel.foundation.errors.IngestError` (one line, exit 2) naming the key: ``..`` parts,
absolute names (``/x``, ``C:x``), backslashes, NUL and other control characters, and names longer than
the file system takes are refused, and the joined path must still resolve inside ``root``.
:func:`shown` escapes terminal control sequences (``ESC [ ...``, BEL, CR) in a name that is echoed.
"""
from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from .errors import IngestError

#: the longest part of a name (bytes, UTF-8) and the longest relative name the tool writes
MAX_PART_BYTES = 255
MAX_NAME_BYTES = 1024

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_DRIVE = re.compile(r"^[A-Za-z]:")


def shown(name: object, limit: int = 300) -> str:
    """``name`` safe to print: control characters (ESC, BEL, CR, NUL...) as ``\\xNN`` escapes, cut at ``limit``."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(name))
    return text if len(text) <= limit else text[:limit] + f"...({len(text)} characters)"


def name_problem(rel: str) -> str | None:
    """Why the relative name ``rel`` may not be written under a folder, or None when it may."""
    if rel == "":
        return "an empty name"
    if "\x00" in rel:
        return "a NUL character in the name"
    if _CONTROL.search(rel):
        return "a control character in the name"
    if "\\" in rel:
        return "a backslash in the name (a Windows path separator)"
    if rel.startswith("/") or _DRIVE.match(rel):
        return "an absolute name"
    parts = rel.split("/")
    if any(p == ".." for p in parts):
        return "a '..' part (it would leave the target folder)"
    if len(rel.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        return f"a name longer than {MAX_NAME_BYTES} bytes"
    if any(len(p.encode("utf-8", "surrogatepass")) > MAX_PART_BYTES for p in parts):
        return f"a name part longer than {MAX_PART_BYTES} bytes"
    if all(p in ("", ".") for p in parts):
        return "a name with no file in it"
    return None


def contained(root: str | os.PathLike[str], rel: str, key: str | None = None) -> Path:
    """``root / rel`` when ``rel`` is a safe relative name that stays inside ``root``; else IngestError naming ``key``.

    Empty and ``.`` parts are dropped (``a//b`` and ``a/./b`` are ``a/b``)."""
    why = name_problem(rel)
    if why is None:
        clean = PurePosixPath(*[p for p in rel.split("/") if p not in ("", ".")])
        dst = Path(root) / clean
        base = Path(root).resolve()
        if not dst.resolve().is_relative_to(base) or dst.resolve() == base:
            why = "it resolves outside the target folder"
        else:
            return dst
    raise IngestError(f"refused: {why}; a listed object name must stay inside its folder",
                      path=shown(key if key is not None else rel))
