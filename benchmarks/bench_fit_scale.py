"""`fit` at 10^6 points in process (issue 28: under 5 s), against the baseline commit in the same run.

CPU time (``time.process_time`` of the analysis; it is single-threaded) is printed beside wall time: on
a shared machine it is the steadier figure. The series is benchmarks/bench_warmup.py's speed case: ``costmodel.synthetic.shapes.generate(n=1_000_000,
shape="exp", warmup_frac=0.2, cv=0.02, ar=0.5, outlier_frac=0.01, seed=8)`` (1 % slow steps: about
10,000 jumps for the long-run variance). Each side runs ``costmodel.warmup.analyze`` on it in a fresh
process (the baseline's source ``git archive``d and put first on ``PYTHONPATH``), imports and
generation outside the timing, alternating, ``--repeat`` rounds; the medians and their ratio are
printed, with the warm-up end each found (they must agree). Usage::

    .venv/bin/python benchmarks/bench_fit_scale.py [--repeat 3] [--n 1000000] [--baseline-ref 97f5942]

``--pelt`` (issue 42: ``fit`` at n = 10^4 with >= 150x less CPU than ruptures PELT) also times ruptures PELT
on the same raw series in a fresh process of its own, once, in the first round (it takes 20-50 CPU-s at
n = 10^4): ``rpt.Pelt(model="l2", min_size=2, jump=5)`` with penalty ``15 sigma^2 log n`` (sigma from the MAD
of first differences), bench_warmup's baseline; the ratio PELT CPU / our median CPU is printed for both sides.
``--seed 7 --outliers 0`` is bench_warmup's speed case (the series of the issue's 96x)::

    .venv/bin/python benchmarks/bench_fit_scale.py --n 10000 --seed 7 --outliers 0 --pelt --repeat 5 --baseline-ref d9e3c89
"""
from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_BASELINE = "97f5942"  # main before issue 28 (quadratic periodic subsets)

CHILD = """
import json, sys, time
try:
    from costmodel.synthetic.shapes import generate
except ImportError:  # the baseline commit, before the rooms
    from costmodel.synth import generate
from costmodel.warmup import analyze
s = generate(n=int(sys.argv[1]), shape="exp", warmup_frac=0.2, cv=0.02, ar=0.5, outlier_frac=float(sys.argv[3]),
             seed=int(sys.argv[2]))
run = s.to_run()
import scipy.ndimage  # noqa: F401  imports outside the timing, on both sides
import costmodel
assert costmodel.__file__.startswith(sys.argv[4]), (costmodel.__file__, sys.argv[4])  # the side's own code
t0, c0 = time.perf_counter(), time.process_time(); r = analyze(run)
dt, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"s": dt, "cpu": cpu, "end": r.warmup_end_step, "cls": r.classification, "truth": s.truth.warmup_end_step,
                  "mean": r.steady_mean, "ci": [r.steady_ci_low, r.steady_ci_high]}))
"""

PELT_CHILD = """
import json, sys, time
import numpy as np
import ruptures as rpt
from costmodel.synthetic.shapes import generate
s = generate(n=int(sys.argv[1]), shape="exp", warmup_frac=0.2, cv=0.02, ar=0.5, outlier_frac=float(sys.argv[3]),
             seed=int(sys.argv[2]))
y = s.to_run().table["samples_per_s"].to_numpy(dtype=float)
t0, c0 = time.perf_counter(), time.process_time()
d = np.diff(y)
sig = 1.4826 * np.median(np.abs(d - np.median(d))) / np.sqrt(2)
bk = rpt.Pelt(model="l2", min_size=2, jump=5).fit(y.reshape(-1, 1)).predict(pen=15 * sig**2 * np.log(len(y)))
print(json.dumps({"s": time.perf_counter() - t0, "cpu": time.process_time() - c0, "breaks": len(bk)}))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--baseline-ref", default=DEFAULT_BASELINE)
    ap.add_argument("--seed", type=int, default=8, help="the series' seed (bench_warmup's speed case at n = 10^4: 7)")
    ap.add_argument("--outliers", type=float, default=0.01, help="share of slow steps (bench_warmup's speed case: 0)")
    ap.add_argument("--pelt", action="store_true", help="also time ruptures PELT on the same series (once)")
    args = ap.parse_args(argv)
    pelt: dict | None = None
    with tempfile.TemporaryDirectory(prefix="bench-fit-") as tmp:
        data = subprocess.run(["git", "archive", args.baseline_ref, "costmodel"], cwd=REPO, capture_output=True,
                              check=True).stdout
        # the baseline in a folder of its own: the children run with cwd=tmp, and ``python -c`` puts the cwd
        # first on sys.path (before PYTHONPATH), so a costmodel/ right in tmp would be imported by both sides
        base = os.path.join(tmp, "baseline")
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(base, filter="data")
        sides = {"baseline": base, "now": str(REPO)}
        res: dict[str, list[dict]] = {k: [] for k in sides}
        for rnd in range(args.repeat):
            if args.pelt and rnd == 0:
                p = subprocess.run([sys.executable, "-c", PELT_CHILD, str(args.n), str(args.seed), str(args.outliers)], env=dict(os.environ, PYTHONPATH=str(REPO)),
                                   capture_output=True, text=True, check=False, cwd=tmp)
                if p.returncode:
                    raise SystemExit(p.stderr[-3000:])
                pelt = json.loads(p.stdout.strip().splitlines()[-1])
                print(f"round 1 PELT     {pelt['s']:.2f} s wall {pelt['cpu']:.2f} s CPU  {pelt['breaks']} segments  "
                      f"load {os.getloadavg()[0]:.2f}", flush=True)
            for who, path in sides.items():
                p = subprocess.run([sys.executable, "-c", CHILD, str(args.n), str(args.seed), str(args.outliers), path], env=dict(os.environ, PYTHONPATH=path),
                                   capture_output=True, text=True, check=False, cwd=tmp)
                if p.returncode:
                    raise SystemExit(p.stderr[-3000:])
                d = json.loads(p.stdout.strip().splitlines()[-1])
                res[who].append(d)
                print(f"round {rnd + 1} {who:<8} {d['s']:.2f} s wall {d['cpu']:.2f} s CPU  {d['cls']} end {d['end']} (truth {d['truth']}) "
                      f"level {d['mean']:.4f} [{d['ci'][0]:.4f}, {d['ci'][1]:.4f}]  load {os.getloadavg()[0]:.2f}",
                      flush=True)
    b = statistics.median(d["s"] for d in res["baseline"])
    n = statistics.median(d["s"] for d in res["now"])
    bc = statistics.median(d["cpu"] for d in res["baseline"])
    nc = statistics.median(d["cpu"] for d in res["now"])
    same = all(x["end"] == y["end"] and x["mean"] == y["mean"] and x["ci"] == y["ci"]
               for x, y in zip(res["baseline"], res["now"], strict=True))
    print(f"\nn = {args.n:,}: baseline {b:.2f} s wall / {bc:.2f} s CPU, now {n:.2f} s / {nc:.2f} s: "
          f"{n / b:.2f}x wall / {nc / bc:.2f}x CPU (target < 5 s: "
          f"{'met' if n < 5 else 'NOT met'}); same warm-up end, level and CI: {same}")
    if pelt is not None:
        print(f"ruptures PELT {pelt['cpu']:.2f} CPU-s ({pelt['s']:.2f} s wall): baseline {pelt['cpu'] / bc:.0f}x, "
              f"now {pelt['cpu'] / nc:.0f}x less CPU (target >= 150x: {'met' if pelt['cpu'] / nc >= 150 else 'NOT met'}); "
              f"wall {pelt['s'] / b:.0f}x / {pelt['s'] / n:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
