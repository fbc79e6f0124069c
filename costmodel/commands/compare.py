"""`costmodel compare`: remote vs co-located steady states, TOST equivalence, extra warm-up."""
from __future__ import annotations

import argparse

from ._common import add_ingest_arguments

HELP = "compare remote and co-located runs: ratio of steady states, TOST equivalence, extra warm-up"
DESCRIPTION = """compare co-located and remote runs (each side one or more files; repetitions are pooled).

With --json prints one object: ratio (remote / co-located steady level), ratio_ci_low, ratio_ci_high
(95 %), equivalent (TOST at --margin), equivalence (the vocabulary the checklist and report use:
equivalent, different = 95 % CI beyond the margin, inconclusive, no_steady_state; equivalence_direction
remote_slower / remote_faster), verdict (kept for scripts: equivalent, equivalent_but_different,
different = CI excludes 1, inconclusive, no_steady_state), margin, remote_extra_warmup_s (seconds), remote_lost_s (cluster
seconds), steady_slowdown_fraction, remote_steady_hit_ratio, remote_steady_read_bytes_per_s, pooled
(per side: mean, run-to-run spread) and colocated / remote: always LISTS of fit objects;
min_detectable_margin (smallest margin shown with 80 % power at a true ratio of 1), metric_direction.
For lower-is-better metrics (step_time_s) ratio = co-located / remote time, so it stays throughput-like.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from .fit import add_job_arguments

    parser.add_argument("--colocated", nargs="+", default=[], metavar="FILE",
                        help="co-located (hub) runs: files, folders (a folder of rank logs is one job) or URLs")
    parser.add_argument("--remote", nargs="+", default=[], metavar="FILE", help="remote (spoke) runs")
    add_job_arguments(parser)
    parser.add_argument("--margin", type=float, default=0.02,
                        help="equivalence margin as a fraction (default 0.02 = 2 %%)")
    parser.add_argument("--metric", default=None, help="Timeline column to compare (default samples_per_s, ...)")
    parser.add_argument("--axis", choices=["step", "t_s"], default="step", help="axis of the curve fits")
    add_ingest_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON object on stdout")


def run(args: argparse.Namespace) -> int:
    from ..foundation.blas import quiet_blas_threads

    quiet_blas_threads()  # before numpy loads: OpenBLAS's idle workers sleep instead of spinning (the same numbers)
    from ..foundation import units_fmt as U
    from ..foundation.equivalence import describe
    from ..foundation.errors import AnalysisError
    from ..foundation.heap import roomy_heap
    from ..warmup import compare
    from ._common import emit_json, ingest_options
    from .fit import _job_line, load_side

    if not (0 < args.margin < 1):
        raise AnalysisError(f"--margin must be a fraction in (0, 1), e.g. 0.02 for 2 %; got {args.margin}")
    for role in ("colocated", "remote"):
        if not getattr(args, role) and not any(j.startswith(role + ":") for j in args.job):
            raise AnalysisError(f"give the {role} runs with --{role} FILE... or --job {role}:NAME=GLOB")
    roomy_heap()  # freed temporaries stay in the heap (fewer page faults; the same numbers)
    cside = load_side(args.colocated, args.fmt, "colocated", args, spec_role="colocated",
                      options=ingest_options(args, "colocated"))
    rside = load_side(args.remote, args.fmt, "remote", args, spec_role="remote",
                      options=ingest_options(args, "remote"))
    from ._common import report_skipped

    left_out = report_skipped("compare", cside.warnings + rside.warnings)
    res = compare(cside.runs, rside.runs, metric=args.metric, margin=args.margin, axis=args.axis)
    jobs = cside.jobs + rside.jobs
    if args.json:
        out = dict(res.to_dict(), jobs=jobs)
        if left_out:
            out["notes"] = list(out.get("notes") or []) + left_out
        emit_json(out)
        return 0
    for j in jobs:
        print(_job_line(j))

    def f(v: float | None, spec: str = ".4f") -> str:
        return "-" if v is None else format(v, spec)

    print(f"ratio remote/co-located: {f(res.ratio)} [{f(res.ratio_ci_low)}, {f(res.ratio_ci_high)}] (95 % CI)")
    print(f"equivalence at +-{res.margin:.1%}: {describe(res.equivalence, res.equivalence_direction, res.margin)} "
          f"(TOST p {f(res.p_tost, '.3g')}" + ("; the ratio differs from 1 at 95 %" if res.verdict in
                                                 ("different", "equivalent_but_different") else "") + ")")
    if res.min_detectable_margin is not None:
        print(f"power: the smallest margin this comparison shows (80 % power, true ratio 1): "
              f"{res.min_detectable_margin:.2%}")
    print(f"remote extra warm-up: {U.seconds(res.remote_extra_warmup_s)}; remote lost {U.seconds(res.remote_lost_s)} "
          "of cluster time")
    for side, tel in (res.telemetry or {}).items():
        cw = U.cold_vs_warm((tel or {}).get("cold"), (tel or {}).get("steady"))
        if cw:
            print(f"cold vs warm ({side.replace('colocated', 'co-located')}): {cw}")
    for note in res.notes:
        print(f"note: {note}")
    return 0
