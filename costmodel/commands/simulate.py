"""`costmodel simulate`: predict a run's Timeline from a scenario's ``workload:`` section."""
from __future__ import annotations

import argparse

from ._common import seed_type

HELP = "predicted run from a what-if model of link and cache"
DESCRIPTION = """\
Simulate the scenario's workload: section (dataset, access pattern, training step, link, cache) and
print the predicted warm-up end (step), steady samples/s, steady cache hit ratio (0..1) and bytes
crossing regions per epoch and per run. -o writes the predicted Timeline (Parquet) that fit, compare,
cost and report read like a measured run (marked predicted).

JSON keys: warmup_end_step, steady_samples_per_s, steady_hit_ratio, cross_region_bytes_per_epoch,
cross_region_bytes_per_run, warmup_lost_s, steady_slowdown_fraction, colocated_samples_per_s,
assumptions, not_modelled, per_run, runs, workload, ...

example: costmodel simulate data/examples/whatif.yaml --set workload.link.rtt_s=0.1 --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scenario", metavar="SCENARIO.yaml", help="cost scenario with a workload: section")
    parser.add_argument("-o", "--output", metavar="TIMELINE.parquet",
                        help="write the predicted Timeline (Parquet) here")
    parser.add_argument("--seed", type=seed_type, default=0,
                        help="random seed of the trace and the predictor, a whole number >= 0 (default 0)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE",
                        help="override a scenario value, e.g. workload.link.rtt_s=0.1 (repeatable)")
    parser.add_argument("--with-colocated", action="store_true",
                        help="also write the co-located baseline run (role colocated) to -o")
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def _parse_overrides(items: list[str]) -> dict:
    import yaml

    from ..errors import SimulateError
    from ..safeyaml import safe_load

    out = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise SimulateError(f"--set {item!r}: expected KEY.PATH=VALUE, e.g. workload.link.rtt_s=0.1",
                                key=item)
        try:
            out[key.strip()] = safe_load(raw)
        except yaml.YAMLError:
            out[key.strip()] = raw
    return out


def run(args: argparse.Namespace) -> int:
    from ..simulate import simulate
    from ..timeline import write_runs
    from ._common import emit_json

    from pathlib import Path

    from ..errors import SimulateError

    if args.output and Path(args.output).is_dir():
        raise SimulateError(f"-o {args.output}: is a directory; give a file name such as predicted.parquet",
                            key="output")
    overrides = _parse_overrides(args.overrides)
    if args.with_colocated:
        overrides.setdefault("workload.simulation.with_colocated", True)
    result = simulate(args.scenario, seed=args.seed, overrides=overrides)
    if args.output:
        write_runs(result.runs, args.output)
    if args.json:
        out = result.to_dict()
        out["output"] = args.output
        emit_json(out)
        return 0
    s = result.summary
    lines = [
        f"predicted run {s['run_id']} ({s['steps_simulated']:,} of {s['steps_per_run']:,} steps simulated"
        + (", rest extrapolated" if s["extrapolated"] else "") + ")",
        f"  warm-up ends at step   {s['warmup_end_step']} ({s['warmup_end_t_s']:.0f} s; {s['warmup_method']})",
        f"  cold samples/s         {s['cold_samples_per_s']:.1f}",
        f"  steady samples/s       {s['steady_samples_per_s']:.1f} (co-located {s['colocated_samples_per_s']:.1f})",
        f"  steady hit ratio       {s['steady_hit_ratio']:.3f}",
        f"  cross-region per epoch {s['cross_region_bytes_per_epoch'] / 1e9:,.1f} GB",
        f"  cross-region per run   {s['cross_region_bytes_per_run'] / 1e9:,.1f} GB",
        f"  warm-up lost           {s['warmup_lost_s']:.0f} s of cluster time",
    ]
    if args.output:
        lines.append(f"wrote {args.output}")
    print("\n".join(lines))
    return 0
