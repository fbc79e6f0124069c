"""Helpers shared by the verb modules: JSON output, reading inputs as Runs, parsing --set/--map."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from ..foundation.util import dumps, is_seed


def emit_json(obj: Any) -> None:
    """Print ``obj`` as strict JSON on stdout."""
    sys.stdout.write(dumps(obj) + "\n")
    sys.stdout.flush()


def report_written(args: Any, written: Any) -> None:
    """What ``example`` / ``notebook`` wrote: ``{"dir", "files"}`` with ``--json``, else one path a line."""
    if args.json:
        emit_json({"dir": args.dir, "files": [str(p) for p in written]})
    else:
        for p in written:
            print(p)


#: Runs listed one per line by ``ingest``; beyond this many, a summary and the first few.
LIST_AT_MOST = 20


def summary_lines(lines: list[str], noun: str, shown: int = 5, at_most: int = LIST_AT_MOST) -> list[str]:
    """``lines`` as they are when there are at most ``at_most``; else the first ``shown`` and one line counting
    the rest (``--json`` lists every one): a thousand rank logs are not a thousand lines on a terminal."""
    if len(lines) <= at_most:
        return list(lines)
    return [*lines[:shown], f"... and {len(lines) - shown:,} more {noun} (--json lists every one)"]


def progress(msg: str) -> None:
    """One progress line on stderr (control characters of names in it escaped: no terminal escape reaches the screen)."""
    from ..foundation.names import shown

    sys.stderr.write("\n".join(shown(part, limit=20_000) for part in msg.split("\n")) + "\n")
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


def positive_number(text: str) -> float:
    """argparse type for ``--batch-size`` / ``--tokens-per-step``: a finite number > 0."""
    import math

    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a number > 0 (samples or tokens per step), got {text!r}")
    return value


def report_skipped(verb: str, warnings: list[str]) -> list[str]:
    """Print every input file a verb left out on stderr (a count, then one line each, names escaped) and return the
    notes for its JSON: nothing is dropped without a count and a name."""
    import sys

    from ..foundation.names import shown
    from ..jobs.load import skipped_files

    skipped = skipped_files(warnings)
    notes = [f"{x['path']}: skipped ({x['reason']})" for x in skipped]
    if skipped:
        print(f"costmodel {verb}: warning: {len(skipped)} input file(s) skipped", file=sys.stderr)
        for n in notes:
            print(f"costmodel {verb}: warning: {shown(n, 1000)}", file=sys.stderr)
    return notes


def add_ingest_arguments(parser: argparse.ArgumentParser, *, strict: bool = False) -> None:
    """The ingest options shared by ingest, fit, compare and report: --format, --map, --pattern, --batch-size,
    --tokens-per-step (and --strict where asked), so a log is analysed without an intermediate file."""
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress on stderr (bars on a terminal, a line every few seconds otherwise); "
                             "warnings and errors still print")
    parser.add_argument("--format", dest="fmt", metavar="NAME", help="skip format sniffing and use this reader")
    parser.add_argument(
        "--map", action="append", default=[], metavar="SRC=COL[:UNIT]",
        help="map a source column to a Timeline column, with its unit (e.g. thr=samples_per_s, lat=read_latency_s:ms)",
    )
    parser.add_argument("--pattern", metavar="REGEX",
                        help="read a free-form log with a regex of named groups (step, samples_per_s, step_time_ms, ...)")
    parser.add_argument("--batch-size", type=positive_number, metavar="N",
                        help="samples per step (global batch, all ranks): samples_per_s = N / step_time_s for step-time logs")
    parser.add_argument("--tokens-per-step", type=positive_number, metavar="N",
                        help="tokens per step (global): tokens_per_s = N / step_time_s")
    parser.add_argument("--rows", choices=("sampled", "averaged"), default=None,
                        help="rows every N steps: 'sampled' (each row is that step's own figures) or 'averaged' "
                             "(means over the steps since the last row); default: from the format or the clock")
    if strict:
        parser.add_argument("--strict", action="store_true", help="any rejected row or bad cell is fatal")


def ingest_options(args: argparse.Namespace, role: str = "") -> Any:
    """An :class:`~costmodel.ingest.IngestOptions` from the arguments of :func:`add_ingest_arguments`."""
    from ..ingest import IngestOptions
    from ..ingest.mapping import parse_map

    return IngestOptions(
        fmt=getattr(args, "fmt", None),
        run_id=getattr(args, "run_id", None),
        role=role,
        mapping=parse_map(getattr(args, "map", None) or []),
        pattern=getattr(args, "pattern", None),
        strict=bool(getattr(args, "strict", False)),
        batch_size=getattr(args, "batch_size", None),
        tokens_per_step=getattr(args, "tokens_per_step", None),
        rows=getattr(args, "rows", None),
    )
