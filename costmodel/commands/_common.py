"""Helpers shared by the verb modules: JSON output, reading inputs as Runs, parsing --set/--map."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from ..util import dumps, is_seed


def emit_json(obj: Any) -> None:
    """Print ``obj`` as strict JSON on stdout."""
    sys.stdout.write(dumps(obj) + "\n")
    sys.stdout.flush()


def progress(msg: str) -> None:
    """One progress line on stderr."""
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def seed_type(text: str) -> int:
    """argparse type for ``--seed``: a whole number >= 0 (what numpy's generators accept)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not is_seed(value):
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return value
