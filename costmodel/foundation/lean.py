"""Importing heavy libraries without what they import for nothing (a floor-0 helper: no costmodel imports)."""
from __future__ import annotations

import contextlib
import sys
from typing import Any


@contextlib.contextmanager
def lean_imports() -> Any:
    """Import heavy libraries (altair, nbformat, papermill) without jsonschema's optional
    ``rfc3987_syntax``: it builds a parser grammar at import (seconds on a busy machine) only to check
    the ``iri`` string format, which neither Altair nor nbformat uses. The block is lifted on exit, so
    a later explicit ``import rfc3987_syntax`` works as usual."""
    blocked = "rfc3987_syntax" not in sys.modules and "jsonschema._format" not in sys.modules
    if blocked:
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        if blocked and "rfc3987_syntax" in sys.modules and sys.modules["rfc3987_syntax"] is None:
            del sys.modules["rfc3987_syntax"]
