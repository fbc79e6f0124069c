"""The ``costmodel`` command: a thin shell over the package's functions.

Each verb lives in ``costmodel/commands/<verb>.py`` and exposes ``HELP`` (one line),
``DESCRIPTION`` (optional, longer), ``add_arguments(parser)`` and ``run(args) -> int``.
Command modules import heavy libraries inside ``run`` so ``--help`` stays fast.

Exit status: 0 success, 2 bad input or usage, an output that cannot be written (disk full,
permission denied, read-only, name too long) or an output folder taken by another run (one line on
stderr, no traceback unless ``--debug``), 128 + signal number when stopped by a signal (130 Ctrl-C,
143 SIGTERM, 129 SIGHUP; temporary files removed, see :mod:`costmodel.foundation.signals`), 1 internal error,
3 a ``decide`` verdict that fails its ``--fail-on`` gate.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from . import __version__
from .foundation.errors import CostmodelError
from .foundation.names import shown
from .foundation.safeio import ENVIRONMENT_ERRNOS, os_error_message
from .foundation.signals import SignalScope, describe, exit_code_of

VERBS: list[str] = ["ingest", "fit", "compare", "cost", "decide", "report", "bench", "simulate", "prices", "example",
                    "notebook", "schema", "place", "plan", "watch", "completion"]


_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<word>[^']*)' \(choose from (?P<choices>.*)\)")


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line on stderr and exit 2 (argparse's own convention), with a
    did-you-mean for a mistyped verb, choice or flag."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message}{_choice_hint(message)} (see {self.prog} --help)\n")
        raise SystemExit(2)


def _choice_hint(message: str) -> str:
    """``"; did you mean 'cost'?"`` for argparse's "invalid choice: 'cots' (choose from ...)", '' otherwise."""
    from .contracts.errors import did_you_mean

    m = _INVALID_CHOICE.search(message)
    if m is None:
        return ""
    choices = [c.strip().strip("'\"") for c in m.group("choices").split(",")]
    return did_you_mean(m.group("word"), choices)


def _flag_hint(parser: argparse.ArgumentParser, extras: Sequence[str]) -> str:
    """``"; did you mean '--monte-carlo'?"`` for the first unknown ``--flag`` among ``extras``, from the flags
    the verb's ``--help`` lists; '' when none is close."""
    from .contracts.errors import did_you_mean

    flags = sorted(set(re.findall(r"(?<![\w-])--[a-z0-9][a-z0-9-]*", parser.format_help())))
    for word in extras:
        if word.startswith("--"):
            hint = did_you_mean(word.split("=", 1)[0], flags)
            if hint:
                return hint
    return ""


#: each verb's parser, filled by :func:`build_parser` (for the did-you-mean of an unknown flag)
verb_parsers: dict[str, argparse.ArgumentParser] = {}


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show a traceback on errors")
    parser = _Parser(
        prog="costmodel",
        description=(
            "Turn benchmark outputs into a defensible decision on cross-region training: "
            "ingest -> fit -> cost -> decide -> report. Every verb prints JSON with --json."
        ),
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"costmodel {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    for verb in VERBS:
        mod = importlib.import_module(f"costmodel.commands.{verb}")
        p = sub.add_parser(
            verb,
            help=mod.HELP,
            description=getattr(mod, "DESCRIPTION", mod.HELP),
            parents=[common],
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        mod.add_arguments(p)
        with contextlib.suppress(argparse.ArgumentError):  # every verb takes --quiet; its own help text wins
            p.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr; warnings and errors still print")
        p.set_defaults(_run=mod.run)
        verb_parsers[verb] = p
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if extras:  # what parse_args says, plus the flag the user probably meant
        verb = getattr(args, "verb", None)
        owner = verb_parsers.get(verb) if verb else None
        if owner is None:
            parser.error(f"unrecognized arguments: {' '.join(extras)}")
        owner.error(f"unrecognized arguments: {' '.join(extras)}{_flag_hint(owner, extras)}")
    if not getattr(args, "verb", None):
        parser.print_help(sys.stderr)
        return 2
    quiet_before = os.environ.get("COSTMODEL_PROGRESS")
    if getattr(args, "quiet", False):
        os.environ["COSTMODEL_PROGRESS"] = "0"  # every progress bar and line of this run (jobs.progress)
    if argv is None:  # the process's own command: its collector tuned for a short run (see the function)
        _fewer_full_collections()
    try:
        with SignalScope():
            code = int(args._run(args) or 0)
        if argv is None:  # the process's own command (console script, ``python -m costmodel``): it exits next
            _skip_exit_collection()
        return code
    except CostmodelError as exc:
        if args.debug:
            traceback.print_exc()
        msg = shown(str(exc).replace("\n", " "), limit=20_000)  # a hostile name's ESC sequences are not echoed raw
        sys.stderr.write(f"costmodel {args.verb}: error: {msg}\n")
        return exc.exit_code
    except KeyboardInterrupt as exc:
        sys.stderr.write(f"costmodel {args.verb}: {describe(exc)}\n")
        return exit_code_of(exc)
    except BrokenPipeError:
        return 0
    except OSError as exc:
        if exc.errno not in ENVIRONMENT_ERRNOS:
            return _internal(args, exc)
        if args.debug:
            traceback.print_exc()
        # the disk, permissions or a name, not a bug: one line naming the file
        sys.stderr.write(f"costmodel {args.verb}: error: {shown(os_error_message(exc, action='read or write'), 20_000)}\n")
        return 2
    except Exception as exc:  # noqa: BLE001 - last line of defence: one line, no traceback
        return _internal(args, exc)
    finally:
        if getattr(args, "quiet", False):  # as it was (the CLI also runs inside tests and notebooks)
            if quiet_before is None:
                os.environ.pop("COSTMODEL_PROGRESS", None)
            else:
                os.environ["COSTMODEL_PROGRESS"] = quiet_before


def _fewer_full_collections() -> None:
    """Full collections (generation 2) a tenth as often in the CLI's process (Python's third threshold 10 -> 100):
    each walks every object of the libraries imported (0.13-0.2 s on a report at 2,000 steps, three per run), while
    young cycles are still collected as often as before. BENCHMARKS.md, "Without a kernel, second pass"."""
    import gc

    first, second, _third = gc.get_threshold()
    gc.set_threshold(first, second, 100)


def _skip_exit_collection() -> None:
    """Leave the objects the run made out of the collections the interpreter runs while it exits
    (:func:`gc.freeze`): they walk every object for nothing, 0.3-0.4 CPU-s after a report (BENCHMARKS.md, "Without a kernel,
    second pass"). Objects are still freed by their reference counts; only cycles are left to the exit."""
    import gc

    gc.freeze()


def _internal(args: argparse.Namespace, exc: BaseException) -> int:
    if args.debug:
        traceback.print_exc()
    sys.stderr.write(
        f"costmodel {args.verb}: internal error: {type(exc).__name__}: {shown(str(exc).replace(chr(10), ' '), 2000)} "
        "(this is a bug; rerun with --debug and report it)\n"
    )
    return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
