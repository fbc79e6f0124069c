"""Speed of the what-if simulator: block accesses per second for LRU and the predictive policy.

Target (issue 8): at least 10 million block accesses per 10 s of simulation on the 2-core machine,
for LRU and for the predictive prefetcher. Baseline: a plain Python ``OrderedDict`` LRU over the same
trace (run on a prefix, and checked to give exactly the same hits there).

Usage: .venv/bin/python benchmarks/bench_simulate.py [--accesses 12000000] [--baseline-accesses 2000000]
"""
from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np


def workload(samples: int, epochs: int, policy: str) -> dict:
    w: dict[str, Any] = {
        "name": f"bench-{policy}",
        "dataset": {"samples": samples, "sample_bytes": 16384, "files": 1000, "block_bytes": 4096},
        "access": {"pattern": "shuffled", "epochs": epochs},
        "step": {"samples_per_step": 512, "compute_s": 0.5, "loader_workers": 16, "prefetch_depth": 2},
        "link": {"rtt_s": 0.06, "bandwidth_bytes_per_s": 1.25e9, "parallel_streams": 64},
        "cache": {"policy": policy, "capacity_bytes": samples * 16384 * 0.5},
        "simulation": {"max_block_accesses": 10**9},
    }
    if policy == "predictive":
        w["cache"]["prefetch"] = {"accuracy": 0.9, "lookahead_steps": 2, "learning_steps": 10, "ramp_steps": 10}
    return {"workload": w}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--accesses", type=int, default=12_000_000, help="demand block accesses per simulation")
    ap.add_argument("--baseline-accesses", type=int, default=2_000_000, help="prefix run through OrderedDict")
    args = ap.parse_args()
    from costmodel.simulate import simulate
    from costmodel.simulate.cache import lru_present, lru_present_reference

    samples = 500_000
    epochs = max(1, round(args.accesses / (samples * 4)))
    n_acc = samples * 4 * epochs
    simulate(workload(2000, 1, "lru"))  # load the compiled kernel once (numba cache)
    simulate(workload(2000, 1, "predictive"))
    rows = []
    for policy in ("lru", "predictive"):
        t0 = time.perf_counter()
        res = simulate(workload(samples, epochs, policy), seed=1)
        dt = time.perf_counter() - t0
        events = res.summary["block_accesses_simulated"] + (res.summary["prefetched_blocks"] if policy == "predictive" else 0)
        rate = n_acc / dt
        rows.append((policy, n_acc, dt, rate, res.summary["steady_hit_ratio"]))
        print(f"simulate() end to end, {policy:10s}: {n_acc:,} demand accesses ({events:,}+ cache events) in "
              f"{dt:.2f} s = {rate / 1e6:.2f} M accesses/s = {1e9 / rate:.0f} ns/access; "
              f"per 10 s: {rate * 10 / 1e6:.0f} M (target 10 M: {'PASS' if rate * 10 >= 10e6 else 'FAIL'}); "
              f"steady hit ratio {res.summary['steady_hit_ratio']:.3f}")
    # kernel against the OrderedDict baseline on the same trace
    rng = np.random.default_rng(5)
    trace = np.concatenate([rng.permutation(samples * 4) for _ in range(epochs)]).astype(np.int64)
    cap = samples * 2
    t0 = time.perf_counter()
    fast = lru_present(trace, cap)
    t_fast = time.perf_counter() - t0
    k = min(args.baseline_accesses, len(trace))
    t0 = time.perf_counter()
    ref = lru_present_reference(trace[:k], cap)
    t_ref = time.perf_counter() - t0
    same = bool(np.array_equal(fast[:k], ref))
    r_fast = len(trace) / t_fast
    r_ref = k / t_ref
    print(f"LRU kernel (numba):        {len(trace):,} accesses in {t_fast:.2f} s = {r_fast / 1e6:.1f} M/s "
          f"({1e9 / r_fast:.0f} ns/access)")
    print(f"OrderedDict LRU baseline:  {k:,} accesses in {t_ref:.2f} s = {r_ref / 1e6:.2f} M/s "
          f"({1e9 / r_ref:.0f} ns/access); identical hits on the prefix: {same}")
    print(f"ratio kernel / OrderedDict: {r_fast / r_ref:.1f}x; "
          f"simulate(lru) / OrderedDict: {rows[0][3] / r_ref:.1f}x; "
          f"simulate(predictive) / OrderedDict: {rows[1][3] / r_ref:.1f}x")
    return 0 if same and all(r[3] * 10 >= 10e6 for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
