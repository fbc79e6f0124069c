"""Benchmark: vectorised scenario evaluations per second vs a plain Python loop over the same function.

Issue 4 target, kept by issue 13 with every new term: >= 1,000,000 scenario evaluations per second. A
"scenario evaluation" prices all three options (cross_region, replicate, wait) with all their terms (incl.
path processing, requests, versioning, inter-zone both sides, copy delay, cache capacity bound) for one set
of inputs. The same random inputs (hit ratio, runs per month, epochs, size, cold starts, churn, transfer
price, path and inter-zone prices, object count, retention varied at once) are priced

- vectorised: ``costmodel.cost.model.totals`` on numpy arrays (what sweeps and Monte Carlo use);
- loop A: the same ``totals`` called once per scenario with plain floats;
- loop B: ``totals_scalar``, the same ``totals`` returning a tuple of floats (issue 36: the scalar path and the
  Monte Carlo evaluate one function; until then loop B was a second copy of the formulas in plain Python).

Also times ``sweep_2d`` over a 1000 x 1000 grid and a 1,000,000-draw Monte Carlo on the bundled example.
Usage: ``.venv/bin/python benchmarks/bench_cost.py [--n 2000000] [--loop-n 20000]``
"""
from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from costmodel.cost import load_scenario, monte_carlo, sweep_2d
from costmodel.cost.evaluate import model_inputs
from costmodel.cost.model import totals, totals_scalar


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2_000_000, help="scenarios per vectorised call")
    ap.add_argument("--loop-n", type=int, default=20_000, help="scenarios for each Python loop")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)

    scenario = load_scenario(ROOT / "costmodel/data/examples/scenario.yaml", today=dt.date(2026, 12, 2))
    rng = np.random.default_rng(2026)
    n = args.n
    varied = {
        "cache.steady_hit_ratio": rng.uniform(0.8, 1.0, n),
        "training.runs_per_month": rng.uniform(0.0, 10.0, n),
        "training.epochs_per_run": rng.uniform(1.0, 5.0, n),
        "dataset.size_gb": rng.uniform(100.0, 100_000.0, n),
        "cache.cold_starts_per_month": rng.uniform(0.0, 8.0, n),
        "dataset.monthly_churn_fraction": rng.uniform(0.0, 0.5, n),
        "link.transfer_usd_per_gb": rng.uniform(0.01, 0.09, n),
        "link.path_processing_usd_per_gb": rng.uniform(0.0, 0.045, n),
        "link.inter_az_usd_per_gb": rng.uniform(0.0, 0.01, n),
        "dataset.objects": rng.uniform(1e3, 1e8, n),
        "replica.noncurrent_retention_days": rng.uniform(0.0, 400.0, n),
    }
    # every term switched on: both sides in another zone (the example's cache holds the working set, so the
    # capacity bound is exercised too)
    zones = {"_cache_cross_az": 1.0, "_replica_cross_az": 1.0}
    p_vec = {**model_inputs(scenario, **varied), **zones}

    t_vec = best_of(lambda: totals(p_vec), args.repeat)
    rate_vec = n / t_vec

    m = min(args.loop_n, n)
    singles = [{**model_inputs(scenario, **{k: float(v[i]) for k, v in varied.items()}), **zones} for i in range(m)]

    def loop_a():
        return [totals(p) for p in singles]

    def loop_b():
        return [totals_scalar(p) for p in singles]

    t_a = best_of(loop_a, max(1, args.repeat // 2))
    t_b = best_of(loop_b, args.repeat)
    rate_a, rate_b = m / t_a, m / t_b

    # same numbers?
    vec = totals(p_vec)
    b = np.array(loop_b())
    err = max(
        float(np.max(np.abs(vec["cross_region"][:m] - b[:, 0]) / np.maximum(1.0, np.abs(b[:, 0])))),
        float(np.max(np.abs(vec["replicate"][:m] - b[:, 1]) / np.maximum(1.0, np.abs(b[:, 1])))),
    )

    xs = np.linspace(0.0, 10.0, 1000)
    ys = np.linspace(0.8, 1.0, 1000)
    t_sweep = best_of(lambda: sweep_2d(scenario, "training.runs_per_month", xs, "cache.steady_hit_ratio", ys), 3)
    t_mc = best_of(lambda: monte_carlo(scenario, 1_000_000, seed=1), 3)

    print(f"vectorised totals      : {n:>10,} scenarios in {t_vec * 1e3:8.1f} ms = {rate_vec:>14,.0f} evaluations/s")
    print(f"loop A (totals, floats): {m:>10,} scenarios in {t_a * 1e3:8.1f} ms = {rate_a:>14,.0f} evaluations/s")
    print(f"loop B (plain Python)  : {m:>10,} scenarios in {t_b * 1e3:8.1f} ms = {rate_b:>14,.0f} evaluations/s")
    print(f"ratio vectorised / loop A = {rate_vec / rate_a:,.0f}x ; vectorised / loop B = {rate_vec / rate_b:,.0f}x")
    print(f"max relative difference vectorised vs loop B: {err:.2e}")
    print(f"sweep_2d 1000 x 1000 (tidy DataFrame incl.): {t_sweep * 1e3:.1f} ms = {1e6 / t_sweep:,.0f} evaluations/s")
    print(f"monte_carlo 1,000,000 draws (2 uncertain inputs): {t_mc * 1e3:.1f} ms = {1e6 / t_mc:,.0f} draws/s")
    target = 1_000_000
    ok = rate_vec >= target and err < 1e-9
    print(f"target >= {target:,} evaluations/s: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
