"""`costmodel example DIR`: write the bundled inputs (run logs, scenario, answers, what-if) for a user to edit."""
from __future__ import annotations

import argparse

HELP = "write the bundled example inputs (run logs, scenario.yaml, answers.yaml, whatif.yaml, README.md) to DIR"
DESCRIPTION = HELP + """

The reference case shipped inside the package: two synthetic step logs (co-located hub and
cross-region spoke), a cost scenario, checklist answers and a what-if workload, plus a README with
the commands to run on them. Existing files are never overwritten without --force (exit 2, nothing
written); the folder is created when missing.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", metavar="DIR", help="folder to write into (created when missing)")
    parser.add_argument("--force", action="store_true", help="overwrite files of the same name in DIR")
    parser.add_argument("--json", action="store_true", help="print the files written as JSON")


def run(args: argparse.Namespace) -> int:
    from ._common import report_written
    from .scaffold import plan_example, write

    report_written(args, write(plan_example(args.dir), force=args.force))
    return 0
