"""Issue 12's measure of validation and glue, at two git revisions of this repository, side by side.

    python benchmarks/count_glue.py 3cd4797 HEAD

Counts (``git grep`` / ``git show`` on ``costmodel/``, nothing is checked out):

- the lines of the modules that validated input files and results by hand before issue 12, and of
  ``costmodel/contracts/`` (where the validation lives now, with the result models and the schema generator);
- ``def to_dict`` methods (and how many list their keys by hand), ``def _num`` helpers, did-you-mean helpers
  (``difflib.get_close_matches`` call sites), key-digging helpers (``_get`` / ``_scn``) and their call sites in
  the modules that read results;
- modules that write a binary byte factor in code (``2**30``, ``1024**3``; outside comments and
  docstrings): one unit table means one such module.

Prints one Markdown table (before, after, after - before). Needs git; no other dependency.
"""
from __future__ import annotations

import argparse
import ast
import re
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


#: the modules that read results (fit, compare, cost) after the stage that made them, then and now
#: (cost/model.py's `_get` reads the vectorised model's own inputs and price_fetch's is an HTTP GET: not counted)
READERS = ("costmodel/checklist.py", "costmodel/checklist", "costmodel/report", "costmodel/adr.py", "costmodel/commands",
           "costmodel/cost/scenario.py")


def _grep_count(rev: str, pattern: str, paths: tuple[str, ...] = ("costmodel",)) -> int:
    """Matching lines under ``paths`` at ``rev`` (extended regex)."""
    out = _git("grep", "-E", "-c", pattern, rev, "--", *paths)
    return sum(int(line.rsplit(":", 1)[1]) for line in out.splitlines() if line.strip())


def _binary_factor_modules(rev: str) -> int:
    """Python modules under costmodel/ at ``rev`` whose code (not comments or docstrings) computes a binary
    byte factor: ``2 ** 10..50``, ``1024 ** 2..5`` or the literal 1073741824."""
    n = 0
    for path in _files(rev):
        try:
            tree = ast.parse(_git("show", f"{rev}:{path}"))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and isinstance(node.left, ast.Constant) \
                    and isinstance(node.right, ast.Constant) and (node.left.value, node.right.value) in _BINARY:
                n += 1
                break
            if isinstance(node, ast.Constant) and node.value == 1073741824:
                n += 1
                break
    return n


_BINARY = {(2, 10), (2, 20), (2, 30), (2, 40), (2, 50), (1024, 2), (1024, 3), (1024, 4), (1024, 5)}


def _hand_to_dict(rev: str) -> int:
    """``def to_dict`` methods whose first statement is not ``return dataclass_dict(...)`` / ``asdict(...)``."""
    out = _git("grep", "-E", "-n", "-A4", r"def to_dict\(", rev, "--", "costmodel")
    n = 0
    for block in out.split("\n--\n"):
        body = [re.sub(r"^.*?-\d+-", "", row).strip() for row in block.splitlines()[1:]]
        code = [b for b in body if b and not b.startswith(('"""', "#"))]
        if not code or not re.match(r"return (util\.)?(dataclass_dict|asdict|dataclasses\.asdict)\(", code[0]):
            n += 1
    return n


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
        "`def to_dict` methods": _grep_count(rev, r"def to_dict\("),
        "... of which list their keys by hand (not one `dataclass_dict`/`asdict` call)": _hand_to_dict(rev),
        "`def _num` helpers": _grep_count(rev, r"def _num\("),
        "did-you-mean helpers (`get_close_matches` call sites)": _grep_count(rev, r"get_close_matches\("),
        "key-digging helpers in result readers (`def _get(` / `def _scn(`)": _grep_count(rev, r"def (_get|_scn)\(", READERS),
        "key-digging calls in result readers (`_get(` / `_scn(`)":
            _grep_count(rev, r"[^a-z_](_get|_scn)\(", READERS) - _grep_count(rev, r"def (_get|_scn)\(", READERS),
        "modules that write a binary byte factor in code (`2**30`, `1024**3`, ...)": _binary_factor_modules(rev),
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
