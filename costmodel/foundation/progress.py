"""The one rule for progress on stderr: shown only on a terminal, never with ``--quiet``.

``COSTMODEL_PROGRESS=1`` forces it on (a CI log that wants it), ``=0`` off (``--quiet`` sets it for its
run); unset, progress is shown only when the stream is a terminal, so a redirected stderr stays clean.
"""
from __future__ import annotations

import os
import sys
from typing import TextIO


def isatty(stream: TextIO | None) -> bool:
    """Whether ``stream`` is a terminal (False for anything that cannot say)."""
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):
        return False


def progress_on(stream: TextIO | None = None) -> bool:
    """Whether progress may be written to ``stream`` (stderr by default)."""
    forced = os.environ.get("COSTMODEL_PROGRESS", "").strip()
    if forced == "0":
        return False
    if forced == "1":
        return True
    return isatty(stream if stream is not None else sys.stderr)
