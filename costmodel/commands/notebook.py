"""`costmodel notebook NAME DIR`: copy a packaged notebook (report, checklist, whatif, placement) into DIR."""
from __future__ import annotations

import argparse

from .scaffold import NOTEBOOKS

HELP = f"copy a packaged notebook ({', '.join(NOTEBOOKS)}) into DIR to run or edit"
DESCRIPTION = HELP + """

The copy runs with plain papermill from DIR, e.g.
  costmodel notebook report nb && cd nb && papermill report.ipynb out.ipynb -p monte_carlo_n 500
Relative paths in its parameters resolve against the current folder first, then the package's
bundled example (so without -p it reports on the bundled example). Running it needs
pip install "xregion-costmodel[report]" (papermill, nbconvert, Altair); the widgets of checklist/whatif
need "xregion-costmodel[lab]".
An existing DIR/NAME.ipynb is never overwritten without --force (exit 2).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help=f"notebook to copy: {', '.join(NOTEBOOKS)}")
    parser.add_argument("dir", metavar="DIR", help="folder to copy it into (created when missing)")
    parser.add_argument("--force", action="store_true", help="overwrite DIR/NAME.ipynb")
    parser.add_argument("--json", action="store_true", help="print the file written as JSON")


def run(args: argparse.Namespace) -> int:
    from ._common import report_written
    from .scaffold import plan_notebook, write

    report_written(args, write(plan_notebook(args.name, args.dir), force=args.force))
    return 0
