"""`costmodel compare`: remote vs co-located steady states, TOST equivalence, extra warm-up."""
from __future__ import annotations

import argparse

from ._common import add_ingest_arguments

HELP = "compare remote and co-located runs: ratio of steady states, TOST equivalence, extra warm-up"
DESCRIPTION = """compare co-located and remote runs (each side one or more files; repetitions are pooled).

With --json prints one object: ratio (remote / co-located steady level), ratio_ci_low, ratio_ci_high
(95 %), equivalent (TOST at --margin), verdict (equivalent, equivalent_but_different, different,
inconclusive, no_steady_state), margin, remote_extra_warmup_s (seconds), remote_lost_s (cluster
seconds), steady_slowdown_fraction, remote_steady_hit_ratio, remote_steady_read_bytes_per_s, pooled
(per side: mean, run-to-run spread) and colocated / remote: always LISTS of fit objects.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--colocated", nargs="+", required=True, metavar="FILE", help="co-located (hub) runs")
    parser.add_argument("--remote", nargs="+", required=True, metavar="FILE", help="remote (spoke) runs")
    parser.add_argument("--margin", type=float, default=0.02,
                        help="equivalence margin as a fraction (default 0.02 = 2 %%)")
    parser.add_argument("--metric", default=None, help="Timeline column to compare (default samples_per_s, ...)")
    parser.add_argument("--axis", choices=["step", "t_s"], default="step", help="axis of the curve fits")
    add_ingest_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON object on stdout")


def run(args: argparse.Namespace) -> int:
    from ..errors import AnalysisError
    from ..warmup import compare
    from ._common import emit_json, ingest_options
    from .fit import load_runs

    if not (0 < args.margin < 1):
        raise AnalysisError(f"--margin must be a fraction in (0, 1), e.g. 0.02 for 2 %; got {args.margin}")
    opts = ingest_options(args)
    col = load_runs(args.colocated, role="colocated", options=opts)
    rem = load_runs(args.remote, role="remote", options=opts)
    res = compare(col, rem, metric=args.metric, margin=args.margin, axis=args.axis)
    if args.json:
        emit_json(res.to_dict())
        return 0

    def f(v: float | None, spec: str = ".4f") -> str:
        return "-" if v is None else format(v, spec)

    print(f"ratio remote/co-located: {f(res.ratio)} [{f(res.ratio_ci_low)}, {f(res.ratio_ci_high)}] (95 % CI)")
    print(f"verdict at +-{res.margin:.1%}: {res.verdict} (equivalent={res.equivalent}, p_TOST {f(res.p_tost, '.3g')})")
    print(f"remote extra warm-up: {f(res.remote_extra_warmup_s, '.1f')} s; remote lost {f(res.remote_lost_s, '.1f')} s")
    for note in res.notes:
        print(f"note: {note}")
    return 0
