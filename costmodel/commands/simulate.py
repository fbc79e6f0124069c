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

The link's RTT and bandwidth are the scenario's link.rtt_ms and link.bandwidth_gbps (the keys
costmodel cost reads); workload.link.rtt_s is a deprecated alias (warning). A --set KEY that the
simulator does not read is an error naming the keys it reads.

Example: costmodel example ex && costmodel simulate ex/whatif.yaml --set link.rtt_ms=100 --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scenario", metavar="SCENARIO.yaml", help="cost scenario with a workload: section")
    parser.add_argument("--force", action="store_true", help="replace an existing -o file")
    parser.add_argument("-o", "--output", metavar="TIMELINE.parquet",
                        help="write the predicted Timeline (Parquet) here")
    parser.add_argument("--seed", type=seed_type, default=0,
                        help="random seed of the trace and the predictor, a whole number >= 0 (default 0)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE",
                        help="override a scenario value, e.g. link.rtt_ms=100 (repeatable)")
    parser.add_argument("--with-colocated", action="store_true",
                        help="also write the co-located baseline run (role colocated) to -o")
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def _parse_overrides(items: list[str]) -> dict:
    import yaml

    from ..foundation.errors import SimulateError
    from ..foundation.safeyaml import safe_load

    out = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise SimulateError(f"--set {item!r}: expected KEY.PATH=VALUE, e.g. link.rtt_ms=100",
                                key=item)
        try:
            out[key.strip()] = safe_load(raw)
        except yaml.YAMLError:
            out[key.strip()] = raw
    return out


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..foundation.errors import SimulateError
    from ..foundation.timeline import write_runs
    from ..simulate import simulate
    from ._common import emit_json

    if args.output and Path(args.output).is_dir():
        raise SimulateError(f"-o {args.output}: is a directory; give a file name such as predicted.parquet",
                            key="output")
    if args.output:
        from ..foundation.safeio import refuse_existing

        refuse_existing(args.output, "-o", args.force)
    overrides = _parse_overrides(args.overrides)
    if args.with_colocated:
        overrides.setdefault("workload.simulation.with_colocated", True)
    import sys
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FutureWarning)
        result = simulate(args.scenario, seed=args.seed, overrides=overrides)
    for w in caught:
        if issubclass(w.category, FutureWarning):
            print(f"costmodel simulate: warning: {w.message}", file=sys.stderr)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    if args.output:
        write_runs(result.runs, args.output)
    if args.json:
        out = result.to_dict()
        out["output"] = args.output
        emit_json(out)
        return 0
    from ..foundation import units_fmt as U

    s = result.summary
    by_epoch = [float(b) for b in s.get("cross_region_bytes_by_epoch") or []]
    lines = [
        f"predicted run {s['run_id']} ({s['steps_simulated']:,} of {s['steps_per_run']:,} steps simulated"
        + (", rest extrapolated" if s["extrapolated"] else "") + ")",
        f"  warm-up ends at step   {s['warmup_end_step']} ({U.seconds(s['warmup_end_t_s'], 0)}; {s['warmup_method']})",
        f"  cold                   {U.metric(s['cold_samples_per_s'], 'samples_per_s')}",
        (f"  steady                 {U.metric(s['steady_samples_per_s'], 'samples_per_s')} "
         f"(co-located {U.metric(s['colocated_samples_per_s'], 'samples_per_s')})"),
        f"  steady hit ratio       {U.percent(s['steady_hit_ratio'], 1)} of reads from the local cache",
        f"  cross-region by epoch  {', '.join(U.transfer_bytes(b) for b in by_epoch) or '-'}",
        (f"  cross-region per epoch {U.transfer_bytes(s['cross_region_bytes_per_epoch'])} (mean of "
         f"{len(by_epoch) or '-'} epochs)"),
        f"  cross-region per run   {U.transfer_bytes(s['cross_region_bytes_per_run'])}",
        f"  warm-up lost           {U.seconds(s['warmup_lost_s'], 0)} of cluster time",
    ]
    if args.output:
        lines.append(f"wrote {args.output}")
    print("\n".join(lines))
    return 0
