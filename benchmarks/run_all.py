"""Run every benchmark script in this folder (``bench_*.py`` and ``validate_*.py``), one after another.

Usage: ``.venv/bin/python benchmarks/run_all.py [NAME_SUBSTRING ...]`` (``make bench`` runs them all).
Each script prints its own ratios against its baseline; results are recorded by hand in BENCHMARKS.md.
Exit status is non-zero when any script fails.
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    scripts = sorted(p for p in HERE.glob("*.py") if p.name.startswith(("bench_", "validate_")))
    if argv:
        scripts = [p for p in scripts if any(s in p.name for s in argv)]
    failed = []
    for script in scripts:
        print(f"\n=== {script.name} ===", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call([sys.executable, str(script)], cwd=HERE.parent)
        print(f"=== {script.name}: exit {rc} in {time.perf_counter() - t0:.1f} s ===", flush=True)
        if rc != 0:
            failed.append(script.name)
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
