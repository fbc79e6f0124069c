"""Benchmark: `costmodel place` with 100 candidates x 3 strategies and 2,000 joint Monte Carlo draws (issue 30).

Target: under 10 s for the whole placement (validation, the 100 candidate scenarios, the ranking, the Pareto
front, every offer's break-even price and the joint Monte Carlo). Baseline in the same run: what a user would
do without ``place``: ``costmodel.cost.analyze`` (what ``costmodel cost --monte-carlo 2000`` runs) on each of the
same 100 candidate scenarios, one after another.

The candidates are generated: the bundled ``scenario.yaml`` as the base (no workload: the cache figures are the
base's, so no simulation runs), AWS regions in turn, each with its price per instance-hour and GPU wait as
ranges (uncertain: drawn per candidate), its transfer and storage price stated; data in us-east-2 with one offer.
Usage: ``.venv/bin/python benchmarks/bench_place.py [--candidates 100] [--draws 2000] [--repeat 1]``
"""
from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from costmodel.place import build, placement_from_dict
from costmodel.place.regions import REGIONS
from costmodel.place.summary import analyze

TODAY = dt.date(2026, 12, 5)


def placement(n: int, draws: int) -> dict:
    regions = [r for r in REGIONS["aws"] if r != "us-east-2"]
    cands = []
    for i in range(n):
        price = 40.0 + (i * 7 % 50)
        cands.append({
            "name": f"c{i:03d}-{regions[i % len(regions)]}", "provider": "aws", "region": regions[i % len(regions)],
            "offers": [{"instance_type": "p5.48xlarge", "count": 2, "usd_per_hour": [price * 0.95, price * 1.05],
                        "expected_wait_hours": [0, 2 + i % 48]}],
            "link": {"transfer_usd_per_gb": 0.01 + (i % 9) * 0.01, "bandwidth_gbps": 2.0 + i % 5, "rtt_ms": 10 + i},
            "storage_usd_per_gb_month": 0.02 + (i % 5) * 0.001,
        })
    return {"scenario": str(ROOT / "costmodel/data/examples/scenario.yaml"),
            "data": {"provider": "aws", "region": "us-east-2",
                     "offers": [{"instance_type": "p5.48xlarge", "count": 2, "expected_wait_hours": [24, 120]}]},
            "candidates": cands, "constraints": {"deadline_hours": 420},
            "monte_carlo": {"draws": draws, "seed": 0}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--candidates", type=int, default=100)
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    doc = placement(args.candidates, args.draws)

    best = float("inf")
    out = None
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        out = analyze(placement_from_dict(doc, folder=ROOT), today=TODAY)
        best = min(best, time.perf_counter() - t0)
    assert out is not None
    rows = len(out["ranking"]) + len(out["not_ranked"])

    from costmodel.cost import analyze as cost_analyze

    scen = [cs.scenario for cs in build(placement_from_dict(doc, folder=ROOT), TODAY) if cs.scenario is not None]
    t0 = time.perf_counter()
    for s in scen:
        cost_analyze(s, monte_carlo_n=args.draws, seed=0)
    base = time.perf_counter() - t0
    print(f"place: {args.candidates} candidates x 3 strategies = {rows} placements, {args.draws} joint draws: "
          f"{best:.2f} s (target < 10 s); winner {out['winner']['id']}, P(win) {out['monte_carlo']['p_winner']:.3f}")
    print(f"baseline: costmodel.cost.analyze --monte-carlo {args.draws} on each of the {len(scen)} candidate "
          f"scenarios in turn: {base:.2f} s; place / baseline = {best / base:.2f}")
    return 0 if best < 10.0 else 1


if __name__ == "__main__":
    sys.exit(main())
