"""Soak test of concurrent `cost`, `decide` and `report` (issue 27): W waves of C commands started at once, all
in one shared folder, checking that nothing leaks and nothing collides.

Each wave starts, at the same moment, C/3 `costmodel cost` runs (bundled scenario, Monte Carlo), C/3
`costmodel decide --adr ADR/` runs with different titles (the ADR numbers must come out distinct) and the rest as
`costmodel report -o OUT/report-N` (distinct folders; with --reports 0 none). After every wave: every exit status
is 0, the ADR folder holds one record per decide run so far with no number twice, no temporary file or folder
(``.adr.*.tmp``, ``.NAME.*.tmp``, ``costmodel-objects-*``) is left beside the outputs or in the children's
``TMPDIR``, and no kernel process of ours is alive.

Baseline for the ratio: the first wave's wall time; the last wave's wall time is printed as a ratio of it (a leak
or lock convoy grows it). Exit status 1 when any check fails.

Usage: ``python benchmarks/soak_concurrent.py --waves 10 --concurrency 12 --reports 2`` (the issue's size);
``--waves 3 --concurrency 6 --reports 1`` on a shared machine.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EX = REPO / "costmodel" / "data" / "examples"


def _argv(kind: str, work: Path, k: int) -> list[str]:
    base = [sys.executable, "-m", "costmodel"]
    if kind == "cost":
        return [*base, "cost", str(EX / "scenario.yaml"), "--monte-carlo", "200", "--seed", str(k), "--json"]
    if kind == "decide":
        return [*base, "decide", "--answers", str(EX / "answers.yaml"), "--adr", str(work / "adr"),
                "--title", f"Soak decision {k}", "--json"]
    return [*base, "report", "--colocated", str(EX / "colocated_steps.csv"), "--remote", str(EX / "remote_steps.csv"),
            "--scenario", str(EX / "scenario.yaml"), "--answers", str(EX / "answers.yaml"),
            "-o", str(work / "reports" / f"report-{k}")]


def _kernels(tmpdir: Path) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            argv = Path(f"/proc/{name}/cmdline").read_bytes().decode("utf-8", "replace").split("\0")
        except OSError:
            continue
        if any("ipykernel" in a for a in argv) and any(a.startswith(str(tmpdir)) for a in argv):
            found.append(int(name))
    return found


_TEMP = re.compile(r"(^\..*\.tmp$)|(^costmodel-objects-)|(\.importing-)|(\.partial$)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--waves", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=6)
    ap.add_argument("--reports", type=int, default=1, help="report runs per wave (0: cost and decide only)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    failures: list[str] = []
    walls: list[float] = []
    decided = 0
    with tempfile.TemporaryDirectory(prefix="costmodel-soak-") as d:
        work = Path(d)
        child_tmp = work / "tmp"
        child_tmp.mkdir()
        (work / "reports").mkdir()
        env = dict(os.environ, TMPDIR=str(child_tmp), PYTHONPATH=str(REPO))
        k = 0
        for wave in range(a.waves):
            kinds = ["report"] * a.reports
            rest = max(0, a.concurrency - a.reports)
            kinds += ["cost" if i % 2 == 0 else "decide" for i in range(rest)]
            t0 = time.perf_counter()
            procs = []
            for kind in kinds:
                k += 1
                procs.append((kind, k, subprocess.Popen(_argv(kind, work, k), stdout=subprocess.DEVNULL,
                                                        stderr=subprocess.PIPE, env=env, cwd=work)))
            for kind, n, p in procs:
                err = p.communicate()[1].decode("utf-8", "replace")
                if p.returncode != 0:
                    failures.append(f"wave {wave}: {kind} #{n} exit {p.returncode}: {err.strip()[-300:]}")
            walls.append(time.perf_counter() - t0)
            decided += kinds.count("decide")
            adr = work / "adr"
            numbers = [int(m.group(1)) for f in (adr.iterdir() if adr.is_dir() else [])
                       if (m := re.match(r"^(\d{4})-.*\.md$", f.name))]
            if len(numbers) != decided or len(set(numbers)) != len(numbers):
                failures.append(f"wave {wave}: {len(numbers)} ADRs ({len(set(numbers))} numbers) for {decided} decide runs")
            left = [str(p.relative_to(work)) for p in work.rglob("*") if _TEMP.search(p.name)]
            if left:
                failures.append(f"wave {wave}: left behind: {left[:5]}")
            if _kernels(child_tmp):
                failures.append(f"wave {wave}: kernel processes left: {_kernels(child_tmp)}")
    result = {"waves": a.waves, "concurrency": a.concurrency, "reports_per_wave": a.reports,
              "wall_s_first": round(walls[0], 2), "wall_s_last": round(walls[-1], 2),
              "last_over_first": round(walls[-1] / walls[0], 3) if walls[0] > 0 else None,
              "decide_runs": decided, "failures": failures}
    print(json.dumps(result, indent=2) if a.json else
          f"{a.waves} waves x {a.concurrency}: first {walls[0]:.1f} s, last {walls[-1]:.1f} s "
          f"(ratio {result['last_over_first']}); {decided} ADRs, {len(failures)} failure(s)")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
