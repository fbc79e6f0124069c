"""`costmodel plan`: how long a remote trial must run for a verdict at a margin, and what it costs."""
from __future__ import annotations

import argparse
from typing import Any

from ._common import add_ingest_arguments

HELP = "plan a remote trial: steps, minutes and USD for a verdict at a margin with stated power"
DESCRIPTION = """plan the remote trial from a finished co-located run (--colocated), a remote pilot (--pilot) or, when
neither exists, the simulator's prediction (--simulate WORKLOAD.yaml with simulation.with_colocated): how many
steps and minutes the trial needs for a verdict at --margin with --power, from the run's own variance,
autocorrelation and stall structure (checkpoint and epoch stalls counted, paired by step); for the watch's
early call (costmodel watch: an anytime-valid confidence sequence; its expected stop too) and for a
fixed-length trial judged at its end (TOST); the trial's cost at --usd-per-hour; and what a shorter trial could
still decide (the smallest margin at 25, 50 and 75 % of the length).

With --json prints one object: margin, power, assumed_ratio, ratio_source, warmup_steps, warmup_s, step_s,
stall_period_steps, min_stalls, watch / watch_expected_stop / fixed_length ({steady_steps, steps, minutes,
usd}), plan_steps (give it to costmodel watch --plan-steps), studentize_pairs, shorter (list), noise,
reference, notes, method.

Example: costmodel example ex && costmodel plan --colocated ex/colocated_steps.csv --margin 0.05 --usd-per-hour 110
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ._common import positive_number

    parser.add_argument("--colocated", metavar="FILE", help="the finished co-located run (the reference)")
    parser.add_argument("--pilot", metavar="FILE", help="a short remote pilot run: its warm-up and ratio")
    parser.add_argument("--simulate", metavar="WORKLOAD.yaml",
                        help="the simulator's prediction when there is no run (co-located baseline and remote run)")
    parser.add_argument("--margin", type=float, default=0.05, help="equivalence margin as a fraction (default 0.05)")
    parser.add_argument("--power", type=float, default=0.8, help="probability of a verdict at the assumed ratio (default 0.8)")
    parser.add_argument("--ratio", type=positive_number, default=None,
                        help="assumed true ratio remote / co-located (default: the pilot's estimate, else 1)")
    parser.add_argument("--usd-per-hour", type=float, default=None, metavar="USD",
                        help="the trial's price per hour (all its GPUs), e.g. 110 for 2 x p5")
    parser.add_argument("--metric", default=None, help="Timeline column (default samples_per_s, ...)")
    parser.add_argument("--plug-in-pairs", action="store_true",
                        help="research only, NOT valid under few checkpoints: the watch takes the paired checkpoint costs' "
                             "spread as known (default: widened by t_(k-1)(0.95)/z(0.95) for k pairs, which keeps "
                             "the false 'equivalent' rate within 5 percent)")
    add_ingest_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON object on stdout")


def _f(v: Any, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def run(args: argparse.Namespace) -> int:
    from ..foundation.errors import AnalysisError
    from ..ingest import load
    from ..trial import Settings, reference_from_run
    from ..trial.plan import pilot_from_run, plan_trial
    from ._common import emit_json, ingest_options

    if not (0 < args.margin < 1):
        raise AnalysisError(f"--margin must be a fraction in (0, 1), e.g. 0.05 for 5 %; got {args.margin}")
    if not (0.5 <= args.power < 1):
        raise AnalysisError(f"--power must be in [0.5, 1), e.g. 0.8; got {args.power}")
    if args.usd_per_hour is not None and not (args.usd_per_hour >= 0):
        raise AnalysisError(f"--usd-per-hour must be >= 0; got {args.usd_per_hour}")
    if not (args.colocated or args.simulate):
        raise AnalysisError("give the co-located run with --colocated FILE, or a prediction with --simulate WORKLOAD.yaml")
    sim = None
    if args.simulate and (not args.colocated or not args.pilot):
        from ..simulate import simulate

        sim = simulate(args.simulate)
    if args.colocated:
        ref_run = load(args.colocated, ingest_options(args, "colocated"))[0]
    else:
        assert sim is not None
        if sim.colocated is None:
            raise AnalysisError(f"{args.simulate}: the prediction has no co-located baseline; set "
                                "simulation.with_colocated: true, or give --colocated FILE")
        ref_run = sim.colocated
    ref = reference_from_run(ref_run, args.metric)
    pilot = None
    if args.pilot:
        pilot = pilot_from_run(ref, load(args.pilot, ingest_options(args, "remote"))[0], "pilot")
    elif sim is not None and sim.runs:
        pilot = pilot_from_run(ref, sim.runs[0], "prediction")
    settings = Settings(margin=args.margin, studentize_pairs=not args.plug_in_pairs)
    plan = plan_trial(ref, args.margin, args.power, args.ratio, pilot, args.usd_per_hour, settings)
    if args.json:
        emit_json(plan)
        return 0
    print(f"trial plan at +-{args.margin:.1%} with {args.power:.0%} power, assumed ratio {plan['assumed_ratio']:.4f} "
          f"({plan['ratio_source']}); stall period {_f(plan['stall_period_steps'], ',.0f')} steps; "
          f"warm-up {_f(plan['warmup_steps'], ',.0f')} steps")
    for key, label in (("watch", "watch (stop at the call)"), ("watch_expected_stop", "  expected stop"),
                       ("fixed_length", "fixed length (TOST at the end)")):
        t = plan[key]
        usd = f", USD {t['usd']:,.2f}" if t["usd"] is not None else ""
        print(f"{label}: {_f(t['steps'], ',')} steps ({_f(t['steady_steps'], ',')} steady), "
              f"{_f(t['minutes'], ',.1f')} min{usd}")
    for s in plan["shorter"]:
        print(f"  a trial of {_f(s['steps'], ',')} steps decides margins down to "
              f"{_f(s['smallest_margin_watch'], '.1%')} (watch) / {_f(s['smallest_margin_fixed'], '.1%')} (fixed)")
    print(f"give the watch: --plan-steps {plan['plan_steps']}")
    for n in plan["notes"]:
        print(f"note: {n}")
    return 0
