"""`costmodel fit`: warm-up end, steady state with a 95 % CI, curve and classification per run."""
from __future__ import annotations

import argparse
from typing import Any

HELP = "fit warm-up and steady state (95 %% CI), curve and classification of each run"
DESCRIPTION = """fit warm-up and steady state of each run in FILE... (any ingestible file or a Timeline Parquet).

Prints one line per run, or with --json a JSON list with one object per run: run_id, metric,
classification (flat, warmup, slowdown, no_steady_state, dips, invalidation, too_short),
warmup_end_step, warmup_end_t_s (seconds), steady_mean (metric unit, samples over seconds),
steady_ci_low / steady_ci_high (95 %, batch means), steady_cv, cold_mean, curve {model, plateau,
initial, tau_steps, tau_s, r2, t95_*, t99_*}, lost_s (cluster seconds lost to the warm-up), segments,
metric_direction (higher_is_better | lower_is_better), period_steps (recurring stalls; null when none),
drift_per_1k_steps (relative change of the level per 1,000 steps).

Without --metric each run gets the first of samples_per_s, tokens_per_s, read_bytes_per_s,
write_bytes_per_s, read_iops, write_iops it has, else step_time_s (analysed as time per step, lower is
better, level = mean step time). A run that cannot be analysed (no such metric, or
the --metric it lacks) is left out with a one-line warning on stderr; exit 2 only when no run can be.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="benchmark outputs or Timeline Parquet files")
    parser.add_argument("--metric", default=None,
                        help="Timeline column to analyse (default, per run: the first of samples_per_s, tokens_per_s, "
                             "read_bytes_per_s, write_bytes_per_s, read_iops, write_iops that the run has)")
    parser.add_argument("--axis", choices=["step", "t_s"], default="step",
                        help="axis of the curve fit: steps or seconds (default step)")
    parser.add_argument("--format", dest="fmt", metavar="NAME", help="skip format sniffing and use this reader")
    parser.add_argument("--role", choices=["colocated", "remote"], help="label the runs with this role")
    parser.add_argument("--json", action="store_true", help="print a JSON list on stdout")


def load_runs(files: list[str], fmt: str | None = None, role: str = "") -> list[Any]:
    """Ingest ``files`` (sniffed formats or Timeline Parquet) into Runs."""
    from ..ingest import IngestOptions, load_many

    return load_many(files, IngestOptions(fmt=fmt, role=role)).runs


def _fmt(v: Any, spec: str = ".2f") -> str:
    return "-" if v is None else format(v, spec)


def run(args: argparse.Namespace) -> int:
    import sys

    from .. import units_fmt as U
    from ..warmup import fit_runs
    from ._common import emit_json

    runs = load_runs(args.files, args.fmt, args.role or "")
    fits, skipped = fit_runs(runs, args.metric, args.axis)
    for w in skipped:
        print(f"costmodel fit: warning: {w}", file=sys.stderr)
    if args.json:
        emit_json([f.to_dict() for f in fits])
        return 0
    for f in fits:
        extra = ", lower is better" if f.metric_direction == "lower_is_better" else ""
        per = f", stalls every {f.period_steps:g} steps" if f.period_steps else ""
        print(f"{f.run_id}: {f.classification} ({f.metric}{extra}, {f.n_points} points{per})")
        print(f"  warm-up end: step {_fmt(f.warmup_end_step, 'd')}, {_fmt(f.warmup_end_t_s, '.1f')} s; "
              f"lost {_fmt(f.lost_s, '.1f')} s")
        print(f"  steady: {U.metric_interval(f.steady_mean, f.steady_ci_low, f.steady_ci_high, f.metric)} (95 % CI), "
              f"CV {_fmt(f.steady_cv, '.2%')}; cold {U.metric(f.cold_mean, f.metric)}")
        if f.curve and f.curve.get("model") not in (None, "none"):
            c = f.curve
            print(f"  curve: {c['model']}, plateau {U.metric(c['plateau'], f.metric)}, tau {_fmt(c['tau_steps'], '.1f')} steps "
                  f"/ {_fmt(c['tau_s'], '.1f')} s, R2 {_fmt(c['r2'], '.3f')}")
        reason = f.evidence.get("rule") or f.evidence.get("reason")
        if reason:
            print(f"  why: {reason}")
        if f.multipass:
            print(f"  multi-pass: {f.multipass['note']}")
    return 0
