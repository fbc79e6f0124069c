"""Start-up of small answers (issue 28): ``costmodel --help``, ``costmodel cost`` on the bundled example and
``costmodel fit`` of a 10,000-step log, each as a whole process, against the same commands of a baseline
commit (before the lazy imports) in the same run.

Each command runs in a fresh process, baseline and current alternating, ``--repeat`` rounds after one
uncounted warm-up round (file cache); the medians of wall time and of CPU time (user + system of the
child, ``getrusage(RUSAGE_CHILDREN)``: less sensitive than wall time to other load on a shared machine)
are printed with the ratios. Floors in the same run: ``python -c pass`` (the interpreter) and ``python -c
"import pandas"`` (the one heavy library ``fit`` needs to read a log). Targets: ``--help`` < 0.2 s,
``cost`` and ``fit`` < 1 s wall.

The baseline's source is ``git archive``d into a temporary folder and run with ``PYTHONPATH`` (same
virtual environment). Usage::

    .venv/bin/python benchmarks/bench_startup.py [--repeat 7] [--baseline-ref 97f5942]
"""
from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "costmodel" / "data" / "examples" / "scenario.yaml"
#: main before issue 28 (numpy at CLI import, scipy.stats/optimize and pandas in `cost`, scipy in `fit`)
DEFAULT_BASELINE = "97f5942"


def steps_csv(path: Path, n: int = 10_000) -> Path:
    """A per-step log with an exponential warm-up and 2 % noise (what a user fits)."""
    rng = np.random.default_rng(7)
    step = np.arange(n)
    thr = 600.0 * (1 - 0.4 * np.exp(-step / 400.0)) * (1 + 0.02 * rng.standard_normal(n))
    st = 256.0 / thr
    path.write_text("step,t_s,samples_per_s,step_time_s\n" + "\n".join(
        f"{i},{t:.6f},{x:.6f},{s:.6f}" for i, t, x, s in zip(step, np.cumsum(st), thr, st, strict=True)) + "\n")
    return path


def run_once(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def export(ref: str, dest: Path) -> Path:
    data = subprocess.run(["git", "archive", ref, "costmodel"], cwd=REPO, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--baseline-ref", default=DEFAULT_BASELINE, help="git ref of the baseline (default: %(default)s)")
    args = ap.parse_args(argv)
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        tmpd = Path(tmp)
        log = steps_csv(tmpd / "steps_10000.csv")
        base_src = export(args.baseline_ref, tmpd / "baseline")
        env_now = dict(os.environ, PYTHONPATH=str(REPO))
        env_base = dict(os.environ, PYTHONPATH=str(base_src))
        cases = {
            "--help": ["-m", "costmodel", "--help"],
            "cost (bundled example, --json)": ["-m", "costmodel", "cost", str(EXAMPLE), "--json"],
            "fit (10,000 steps, --json)": ["-m", "costmodel", "fit", str(log), "--json"],
        }
        floors = {"python -c pass": ["-c", "pass"], "python -c 'import pandas'": ["-c", "import pandas"]}
        res: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for rnd in range(args.repeat + 1):
            for name, a in floors.items():
                r = run_once([py, *a], env_now, tmpd)
                if rnd:
                    res.setdefault(("floor", name), []).append(r)
            for name, a in cases.items():
                for who, env in (("baseline", env_base), ("now", env_now)):
                    r = run_once([py, *a], env, tmpd)
                    if rnd:  # round 0 warms the file cache
                        res.setdefault((who, name), []).append(r)
            print(f"round {rnd}{' (warm-up, not counted)' if not rnd else ''} done; load {os.getloadavg()[0]:.2f}",
                  flush=True)

    def med(k: tuple[str, str]) -> tuple[float, float]:
        v = res[k]
        return statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)

    print(f"\nmedians of {args.repeat} rounds; baseline = {args.baseline_ref}; load average now "
          f"{os.getloadavg()[0]:.2f}")
    for name in floors:
        w, c = med(("floor", name))
        print(f"  floor {name:<34} {w:6.3f} s wall {c:6.3f} s CPU")
    print(f"  {'command':<40} {'baseline wall/CPU':>20} {'now wall/CPU':>18} {'ratio wall/CPU':>16}  target")
    targets = {"--help": 0.2, "cost (bundled example, --json)": 1.0, "fit (10,000 steps, --json)": 1.0}
    for name in cases:
        bw, bc = med(("baseline", name))
        nw, nc = med(("now", name))
        ok = "met" if nw < targets[name] else "NOT met"
        print(f"  {name:<40} {bw:8.3f} / {bc:6.3f} s {nw:7.3f} / {nc:6.3f} s {nw / bw:7.2f}x / {nc / bc:5.2f}x  "
              f"< {targets[name]:g} s wall: {ok}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
