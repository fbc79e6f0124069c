"""Issue 12's measure of validation and glue, at two git revisions of this repository, side by side.

    python benchmarks/count_glue.py 3cd4797 HEAD

Counts (``git grep`` / ``git show`` on ``costmodel/``, nothing is checked out):

- the lines of the modules that validated input files and results by hand before issue 12, and of
  ``costmodel/contracts/`` (where the validation lives now, with the result models and the schema generator);
- hand-written ``def to_dict`` methods, ``def _num`` helpers, did-you-mean helpers
  (``difflib.get_close_matches`` call sites), key-digging helpers (``def _get(``) and their call sites;
- unit tables: module-level mappings from unit names to factors (``*_UNITS = {`` and ``_UNIT... = {``).

Prints one Markdown table (before, after, after - before). Needs git; no other dependency.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: modules that held hand validation before issue 12 (the issue names them), by their path then or now
VALIDATION_MODULES = (
    "costmodel/cost/spec.py", "costmodel/cost/scenario.py", "costmodel/simulate/workload.py",
    "costmodel/report/params.py", "costmodel/simulate/whatif.py", "costmodel/commands/decide.py",
    "costmodel/report/walkthrough.py", "costmodel/checklist.py", "costmodel/checklist/answers.py",
    "costmodel/checklist/evidence.py", "costmodel/report/stages.py",
)


def _git(*args: str) -> str:
    out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else ""


def _files(rev: str) -> list[str]:
    return [f for f in _git("ls-tree", "-r", "--name-only", rev, "costmodel").splitlines() if f.endswith(".py")]


def _grep_count(rev: str, pattern: str) -> int:
    """Matching lines under costmodel/ at ``rev`` (extended regex)."""
    out = _git("grep", "-E", "-c", pattern, rev, "--", "costmodel")
    return sum(int(line.rsplit(":", 1)[1]) for line in out.splitlines() if line.strip())


def _lines(rev: str, paths: list[str]) -> int:
    return sum(len(_git("show", f"{rev}:{p}").splitlines()) for p in paths)


def measure(rev: str) -> dict[str, int]:
    files = set(_files(rev))
    validation = [p for p in VALIDATION_MODULES if p in files]
    contracts = sorted(f for f in files if f.startswith("costmodel/contracts/"))
    # checklist.py was split into checklist/ (items, answers, evidence, verdict): count the whole job either way
    checklist = [f for f in files if f == "costmodel/checklist.py" or f.startswith("costmodel/checklist/")]
    return {
        "lines in the hand-validation modules (issue's list)": _lines(rev, validation),
        "lines in costmodel/contracts/": _lines(rev, contracts),
        "lines in the checklist (checklist.py or checklist/)": _lines(rev, checklist),
        "`def to_dict` (hand-written)": _grep_count(rev, r"def to_dict\("),
        "`def _num` helpers": _grep_count(rev, r"def _num\("),
        "did-you-mean helpers (`get_close_matches` call sites)": _grep_count(rev, r"get_close_matches\("),
        "key-digging helpers (`def _get(`)": _grep_count(rev, r"def _get\("),
        "key-digging calls (`_get(` / `_scn(`)": _grep_count(rev, r"[^a-z_](_get|_scn)\(") - _grep_count(rev, r"def (_get|_scn)\("),
        "unit tables (`*_UNITS = {`)": _grep_count(rev, r"^[A-Z_]*UNITS?[A-Z_]* *(: *[^=]+)?= *\{"),
        "JSON result readers (`def _read_json`)": _grep_count(rev, r"def _read_json\("),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", help="git revision before (e.g. 3cd4797, costmodel 0.2.0)")
    ap.add_argument("after", nargs="?", default="HEAD", help="git revision after (default HEAD)")
    args = ap.parse_args(argv)
    for rev in (args.before, args.after):
        if not _git("rev-parse", "--verify", f"{rev}^{{commit}}").strip():
            print(f"count_glue: error: {rev!r} is not a commit of {ROOT}", file=sys.stderr)
            return 2
    a, b = measure(args.before), measure(args.after)
    print(f"| measure | {args.before} | {args.after} | change |")
    print("| --- | ---: | ---: | ---: |")
    for k in a:
        print(f"| {k} | {a[k]:,} | {b[k]:,} | {b[k] - a[k]:+,} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
