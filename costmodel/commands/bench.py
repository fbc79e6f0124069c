"""`costmodel bench` (not implemented yet)."""
from __future__ import annotations

import argparse

from ..errors import CostmodelError

HELP = "(not implemented yet)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("args", nargs="*")


def run(args: argparse.Namespace) -> int:
    raise CostmodelError("costmodel bench is not implemented yet")
