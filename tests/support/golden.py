"""Golden snapshot of what every verb prints with ``--json`` on the bundled example, and of the files the
report and ``decide`` write (``decision.json``, the ADR), kept under ``tests/golden/``.

``tests/cli/test_golden_outputs.py`` runs the verbs again and compares byte for byte: a refactoring that
changes one byte of a verb's JSON fails it. After an *intentional* change (a new JSON key, a new figure),
regenerate and review the diff before committing::

    make golden          # = PYTHONPATH=tests .venv/bin/python -m support.golden --write

Paths are normalised: the temporary working folder becomes ``<WORK>``. Everything else (numbers, order,
indentation) is compared as written. ``bench`` is left out: it times the machine it runs on.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .paths import TESTS

GOLDEN_DIR = TESTS / "golden"
REGENERATE = "make golden"

_PRICE_FILE = TESTS / "data" / "prices" / "aws-ec2-us-east-2-excerpt.json"

#: The snapshot is taken on a fixed day (``COSTMODEL_TODAY``): price ages and "today" in the records do not
#: change with the calendar.
TODAY = "2026-12-05"


@dataclass(frozen=True)
class Case:
    """One verb run: ``name`` is the golden file of its stdout (also written to the working folder, where
    later cases read it); ``files`` (path in the working folder ->
    golden file name) are files it writes that are compared too."""

    name: str
    args: tuple[str, ...]
    files: tuple[tuple[str, str], ...] = ()


#: In order: later verbs read what earlier ones wrote (compare.json, cost_mc.json, fit.json).
CASES: tuple[Case, ...] = (
    Case("example.json", ("example", "ex", "--json")),
    Case("ingest.json", ("ingest", "ex/colocated_steps.csv", "ex/remote_steps.csv", "--json")),
    Case("fit.json", ("fit", "ex/colocated_steps.csv", "ex/remote_steps.csv", "--json")),
    Case("compare.json", ("compare", "--colocated", "ex/colocated_steps.csv", "--remote", "ex/remote_steps.csv",
                          "--json")),
    Case("plan.json", ("plan", "--colocated", "ex/colocated_steps.csv", "--margin", "0.05", "--usd-per-hour", "110",
                       "--json")),
    Case("watch.json", ("watch", "ex/remote_steps.csv", "--colocated", "ex/colocated_steps.csv", "--margin", "0.05",
                        "--replay", "25", "--until", "decided", "--json")),
    Case("cost.json", ("cost", "ex/scenario.yaml", "--json")),
    Case("cost_mc.json", ("cost", "ex/scenario.yaml", "--from-compare", "compare.json", "--monte-carlo", "500",
                          "--seed", "1", "--json")),
    Case("decide.json", ("decide", "--answers", "ex/answers.yaml", "--compare", "compare.json", "--cost",
                         "cost_mc.json", "--fit", "fit.json", "--adr", "adr", "--date", "2026-01-01", "--json"),
         files=(("adr/0001-train-llama-1b-in-us-west-2-reading-c4-from-us-east-2.md", "decide.adr.md"),)),
    Case("simulate.json", ("simulate", "ex/whatif.yaml", "--json")),
    Case("place.json", ("place", "ex/placement.yaml", "--monte-carlo", "500", "--today", "2026-12-05", "--json")),
    Case("prices_show.json", ("prices", "show", "--provider", "aws", "--item", "inter_region", "--src", "us-east-2",
                              "--dst", "us-west-2", "--today", "2026-01-01", "--json")),
    Case("prices_import.json", ("prices", "import", str(_PRICE_FILE), "-o", "catalog", "--json")),
    Case("schema_list.json", ("schema", "--list", "--json")),
    Case("notebook.json", ("notebook", "report", "nb", "--json")),
    Case("report.json", ("report", "--colocated", "ex/colocated_steps.csv", "--remote", "ex/remote_steps.csv",
                         "--scenario", "ex/scenario.yaml", "--answers", "ex/answers.yaml", "-o", "rep",
                         "--date", "2026-01-01", "--json"),
         files=(("rep/decision.json", "report.decision.json"), ("rep/adr.md", "report.adr.md"))),
)


def normalise(text: str, work: Path) -> str:
    """``text`` with the working folder (as given and resolved) replaced by ``<WORK>`` and the test
    tree by ``<TESTS>``."""
    for folder, token in ((work.resolve(), "<WORK>"), (work, "<WORK>"), (TESTS.resolve(), "<TESTS>")):
        text = text.replace(str(folder), token)
    return text


@contextlib.contextmanager
def _in_folder(folder: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@contextlib.contextmanager
def _today(iso_date: str) -> Iterator[None]:
    before = os.environ.get("COSTMODEL_TODAY")
    os.environ["COSTMODEL_TODAY"] = iso_date
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("COSTMODEL_TODAY", None)
        else:
            os.environ["COSTMODEL_TODAY"] = before


def produce(work: Path) -> dict[str, str]:
    """Run every case in ``work`` (an empty folder) in this process; golden file name -> normalised text.

    Raises AssertionError naming the verb when one exits non-zero."""
    from costmodel.cli import main

    outputs: dict[str, str] = {}
    with _in_folder(work), _today(TODAY):
        for case in CASES:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = main(list(case.args))
            if rc != 0:
                raise AssertionError(f"costmodel {' '.join(case.args)} exited {rc}:\n{err.getvalue()}")
            (work / case.name).write_text(out.getvalue(), encoding="utf-8")  # later verbs read it
            outputs[case.name] = normalise(out.getvalue(), work)
            for written, golden in case.files:
                outputs[golden] = normalise((work / written).read_text(encoding="utf-8"), work)
    return outputs


def read_golden() -> dict[str, str]:
    """The committed snapshot: golden file name -> text."""
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(GOLDEN_DIR.iterdir()) if p.is_file()}


def write_golden(outputs: dict[str, str]) -> list[str]:
    """Replace the snapshot with ``outputs`` (stale files removed); the names that changed."""
    GOLDEN_DIR.mkdir(exist_ok=True)
    old = read_golden()
    for name in set(old) - set(outputs):
        (GOLDEN_DIR / name).unlink()
    for name, text in outputs.items():
        (GOLDEN_DIR / name).write_text(text, encoding="utf-8")
    return sorted(n for n in set(old) | set(outputs) if old.get(n) != outputs.get(n))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m support.golden", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite {GOLDEN_DIR} (review the git diff)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="costmodel-golden-") as tmp:
        outputs = produce(Path(tmp))
    if args.write:
        changed = write_golden(outputs)
        print(f"wrote {len(outputs)} files to {GOLDEN_DIR}; changed: {', '.join(changed) or 'none'}")
        return 0
    old = read_golden()
    differ = sorted(n for n in set(old) | set(outputs) if old.get(n) != outputs.get(n))
    print(f"differ from {GOLDEN_DIR}: {', '.join(differ) or 'none'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
