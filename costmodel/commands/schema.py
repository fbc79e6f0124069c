"""`costmodel schema`: print or write the published JSON Schema of the verbs' outputs and the input files."""
from __future__ import annotations

import argparse

HELP = "print the JSON Schema of a verb's --json output, decision.json or an input file; --write DIR writes all"
DESCRIPTION = """\
The schemas are generated from the models (costmodel.contracts and the input files' models; docs/contracts.md).
Outputs: fit, compare, cost, decide, simulate, report, decision (decision.json).
Inputs: scenario, workload, answers, report-parameters.
Examples: costmodel schema decision > decision.schema.json
          costmodel schema --write docs/schema --force
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", metavar="NAME", help="which schema (omit with --write or --list)")
    parser.add_argument("--write", metavar="DIR", help="write every schema to DIR/NAME.json")
    parser.add_argument("--force", action="store_true", help="with --write: replace existing DIR/NAME.json files")
    parser.add_argument("--list", action="store_true", help="list the schema names")
    parser.add_argument("--json", action="store_true", help="with --write or --list: print what was done as JSON")


def run(args: argparse.Namespace) -> int:
    from ..contracts.errors import did_you_mean
    from ..contracts.schema import dumps
    from ..foundation.errors import CostmodelError
    from ._common import emit_json
    from .published_schemas import SCHEMAS, generate, write_all

    if args.list:
        if args.json:
            emit_json({"schemas": [{"name": n, "kind": k} for n, (k, _b) in SCHEMAS.items()]})
        else:
            for n, (k, _b) in SCHEMAS.items():
                print(f"{n:<18} {k}")
        return 0
    if args.write:
        from pathlib import Path

        from ..foundation.safeio import refuse_existing

        for name in SCHEMAS:
            refuse_existing(Path(args.write) / f"{name}.json", "--write", args.force)
        paths = write_all(args.write)
        if args.json:
            emit_json({"dir": args.write, "files": {p.stem: str(p) for p in paths}})
        else:
            for p in paths:
                print(p)
        return 0
    if not args.name:
        raise CostmodelError("give a schema NAME, --list or --write DIR")
    if args.name not in SCHEMAS:
        raise CostmodelError(f"unknown schema {args.name!r}{did_you_mean(args.name, SCHEMAS)}; "
                             f"known: {', '.join(SCHEMAS)}")
    print(dumps(generate(args.name)), end="")
    return 0
