"""Helpers shared by the verb modules: JSON output, reading inputs as Runs, parsing --set/--map."""
from __future__ import annotations

import sys
from typing import Any

from ..util import dumps


def emit_json(obj: Any) -> None:
    """Print ``obj`` as strict JSON on stdout."""
    sys.stdout.write(dumps(obj) + "\n")
    sys.stdout.flush()


def progress(msg: str) -> None:
    """One progress line on stderr."""
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()
