"""`costmodel fit`: warm-up end, steady state with a 95 % CI, curve and classification per run."""
from __future__ import annotations

import argparse
from typing import Any

from ._common import add_ingest_arguments

HELP = "fit warm-up and steady state (95 %% CI), curve and classification of each run"
DESCRIPTION = """fit warm-up and steady state of each run in FILE... (any ingestible file or a Timeline Parquet).

Prints one line per run, or with --json a JSON list with one object per run: run_id, metric,
classification (flat, warmup, slowdown, no_steady_state, dips, invalidation, too_short),
warmup_end_step, warmup_end_t_s (seconds), steady_mean (metric unit, samples over seconds),
steady_ci_low / steady_ci_high (95 %, batch means), steady_cv, cold_mean, curve {model, plateau,
initial, tau_steps, tau_s, r2, t95_*, t99_*}, lost_s (cluster seconds lost to the warm-up), segments,
metric_direction (higher_is_better | lower_is_better), period_steps (recurring stalls; null when none),
drift_per_1k_steps (relative change of the level per 1,000 steps), drift_rel_steady (over the steady
window), warmup_end_decided_by (data_wait_s, throughput over loader-cycle windows, or segmentation) and
warmup_end_step_throughput (what the throughput alone says), telemetry {cold, steady} (GPU utilisation,
data wait, cache hit ratio, read bytes), stall_split (between-stall rate and stall cost), tail (a short
tail after a long plateau), fast_start.

Without --metric each run gets the first of samples_per_s, tokens_per_s, read_bytes_per_s,
write_bytes_per_s, read_iops, write_iops it has, else step_time_s (analysed as time per step, lower is
better, level = mean step time). A run that cannot be analysed (no such metric, or
the --metric it lacks) is left out with a one-line warning on stderr; exit 2 only when no run can be.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="benchmark outputs, folders (a folder of rank logs is one job), object-store URLs "
                             "(s3://, gs://, az://) or Timeline Parquet files")
    parser.add_argument("--metric", default=None,
                        help="Timeline column to analyse (default, per run: the first of samples_per_s, tokens_per_s, "
                             "read_bytes_per_s, write_bytes_per_s, read_iops, write_iops that the run has)")
    parser.add_argument("--axis", choices=["step", "t_s"], default="step",
                        help="axis of the curve fit: steps or seconds (default step)")
    add_ingest_arguments(parser)
    parser.add_argument("--role", choices=["colocated", "remote"], help="label the runs with this role")
    parser.add_argument("--json", action="store_true", help="print a JSON list on stdout")
    add_job_arguments(parser)


def add_job_arguments(parser: argparse.ArgumentParser) -> None:
    """``--job``, ``--rank-throughput`` and ``--engine`` (multi-rank jobs, see docs/jobs.md)."""
    parser.add_argument("--job", action="append", default=[], metavar="[ROLE:]NAME=GLOB",
                        help="the files matching GLOB are the rank logs of job NAME (repeatable; ROLE colocated or "
                             "remote for compare/report)")
    parser.add_argument("--rank-throughput", choices=["auto", "local", "global"], default="auto",
                        help="ranks log their own share of the throughput (local: summed over ranks) or the job's "
                             "global figure (global: taken as is); default auto: detected from the data")
    parser.add_argument("--engine", choices=["auto", "pandas", "duckdb", "dask"], default="auto",
                        help="engine that reduces rank logs to the job series (auto: DuckDB for big CSV rank logs "
                             "when installed)")


def load_side(files: list[str], fmt: str | None = None, role: str = "", args: Any = None, spec_role: str | None = None,
              options: Any = None) -> Any:
    """Ingest ``files`` and the ``--job`` specs of ``role`` as jobs and single runs (a jobs.Side); ``options``
    (IngestOptions: --map, --pattern, --batch-size ...) wins over ``fmt`` when given, with its role set to ``role``."""
    import dataclasses

    from ..foundation.errors import IngestError
    from ..ingest import IngestOptions
    from ..jobs import load_side as _load_side
    from ..jobs import parse_job_spec

    specs = [parse_job_spec(x) for x in (getattr(args, "job", None) or [])]
    if spec_role:
        loose = [s.name for s in specs if not s.role]
        if loose:
            raise IngestError(f"--job {loose[0]}: say which side it is, --job colocated:NAME=GLOB or remote:NAME=GLOB",
                              field="--job")
        specs = [s for s in specs if s.role == spec_role]
    if not files and not specs:
        raise IngestError("no input: give files, folders or --job NAME=GLOB", field="FILE")
    mode = getattr(args, "rank_throughput", None)
    opts = IngestOptions(fmt=fmt, role=role) if options is None else dataclasses.replace(options, role=role)
    return _load_side(files, role, opts, specs,
                      rank_throughput=None if mode in (None, "auto") else mode,
                      engine=getattr(args, "engine", None) or "auto")


def load_runs(files: list[str], fmt: str | None = None, role: str = "", options: Any = None) -> list[Any]:
    """Ingest ``files`` (sniffed formats or Timeline Parquet) into Runs (rank logs of a job as one job run);
    ``options`` (IngestOptions) wins over ``fmt``/``role`` when given (its role is set to ``role`` when given)."""
    return load_side(files, fmt, role, options=options).runs


def _job_line(j: dict[str, Any]) -> str:
    """One line per job: ranks, incomplete ranks, stragglers and the time lost to them."""
    strag = ", ".join(f"rank {s['rank']} ({s['excess_step_time_fraction']:+.1%})" for s in j["stragglers"][:5])
    more = f" +{len(j['stragglers']) - 5} more" if len(j["stragglers"]) > 5 else ""
    inc = ", ".join(f"rank {x['rank']} ({x['steps']} steps)" for x in j["ranks_incomplete"][:5])
    return (f"job {j['job_id']}: {j['ranks']} ranks, {j['steps']} steps, throughput {j['rank_throughput']}; "
            f"incomplete: {inc or 'none'}; stragglers: {(strag + more) or 'none'}; "
            f"lost to stragglers {j['straggler_lost_s']:.1f} s")


def _fmt(v: Any, spec: str = ".2f") -> str:
    return "-" if v is None else format(v, spec)


def run(args: argparse.Namespace) -> int:
    import sys

    from ..foundation.blas import quiet_blas_threads

    quiet_blas_threads()  # before numpy loads: OpenBLAS's idle workers sleep instead of spinning (the same numbers)
    from ..foundation import units_fmt as U
    from ..foundation.heap import roomy_heap
    from ..warmup import fit_runs
    from ._common import emit_json, ingest_options

    roomy_heap()  # freed temporaries stay in the heap (fewer page faults; the same numbers)
    side = load_side(args.files, args.fmt, args.role or "", args, spec_role="",
                     options=ingest_options(args, args.role or ""))
    runs = side.runs
    from ..foundation.names import shown
    from ._common import report_skipped

    left_out = report_skipped("fit", side.warnings)
    fits, skipped = fit_runs(runs, args.metric, args.axis)
    for w in skipped:
        print(f"costmodel fit: warning: {shown(w, 10_000)}", file=sys.stderr)
    jobs = {j["job_id"]: j for j in side.jobs}
    if args.json:
        out = [dict(f.to_dict(), jobs=[jobs[f.run_id]] if f.run_id in jobs else []) for f in fits]
        for d in out:
            d["warnings"] = list(d.get("warnings") or []) + [n for n in left_out if n not in (d.get("warnings") or [])]
        emit_json(out)
        return 0
    for j in side.jobs:
        _out(_job_line(j))
    for f in fits:
        extra = ", lower is better" if f.metric_direction == "lower_is_better" else ""
        per = f", stalls every {f.period_steps:g} steps" if f.period_steps else ""
        _out(f"{f.run_id}: {f.classification} ({f.metric}{extra}, {f.n_points} points{per})")
        _out(f"  warm-up end: step {_fmt(f.warmup_end_step, 'd')}, {_fmt(f.warmup_end_t_s, '.1f')} s; "
              f"lost {_fmt(f.lost_s, '.1f')} s")
        _out(f"  steady: {U.metric_interval(f.steady_mean, f.steady_ci_low, f.steady_ci_high, f.metric)} (95 % CI), "
              f"CV {_fmt(f.steady_cv, '.2%')}; cold {U.metric(f.cold_mean, f.metric)}")
        if f.curve and f.curve.get("model") not in (None, "none"):
            c = f.curve
            _out(f"  curve: {c['model']}, plateau {U.metric(c['plateau'], f.metric)}, tau {_fmt(c['tau_steps'], '.1f')} steps "
                  f"/ {_fmt(c['tau_s'], '.1f')} s, R2 {_fmt(c['r2'], '.3f')}")
        for line in _findings(f):
            _out(f"  {line}")
        reason = f.evidence.get("rule") or f.evidence.get("reason")
        if reason:
            _out(f"  why: {reason}")
        if f.multipass:
            _out(f"  multi-pass: {f.multipass['note']}")
    return 0


def _out(text: str) -> None:
    """One line of the human output: names from files and the network are hostile, so control characters (terminal
    escapes) are shown as ``\\xNN``, never sent to the terminal."""
    from ..foundation.names import shown

    print(shown(text, 100_000))


def _findings(f: Any) -> list[str]:
    """The issue-24 findings of one fit as short lines: which evidence decided the warm-up end, the drift,
    a flagged tail or fast start, and cold vs warm telemetry."""
    out = []
    cp = f.evidence.get("cold_phase") or {}
    if f.warmup_end_decided_by and f.warmup_end_decided_by != "segmentation":
        hit = cp.get("cache_hit_high_from_step")
        out.append(f"warm-up end decided by {f.warmup_end_decided_by} (throughput alone: step "
                   f"{_fmt(f.warmup_end_step_throughput, 'd')}" + (f"; hit ratio >= 0.9 from step {hit}" if hit else "") + ")")
    rows = f.evidence.get("log_rows")
    if rows:
        clock = ("stalls between rows invisible (no clock)" if rows.get("stalls_between_rows_invisible")
                 else "rate between rows from the clock" if f.time_source == "clock_between_rows" else "logged rates")
        out.append(f"rows: every {rows['cadence_steps']} steps, {rows['rows']}; {clock}")
    iv = f.evidence.get("warmup_end_interval")
    if iv:
        lb = f.evidence.get("lost_s_bounds") or {}
        bounds = f"; lost {_fmt(lb.get('low'), '.1f')}-{_fmt(lb.get('high'), '.1f')} s" if lb else ""
        out.append(f"warm-up ends between step {iv['low_step']} and {iv['high_step']}{bounds}")
    if f.drift_rel_steady is not None:
        per_1k = _fmt(f.drift_per_1k_steps, "+.2%")
        out.append(f"drift: {f.drift_rel_steady:+.1%} over the steady window ({per_1k} per 1,000 steps)")
    if f.tail:
        t = f.tail
        kept = "kept in the steady state" if t.get("kept_in_steady") else "left out of the steady state"
        out.append(f"tail: steps {t['start_step']}-{t['end_step']} at {t['rel_change']:+.1%} ({kept})")
    if f.fast_start:
        fs = f.fast_start
        out.append(f"fast start: until step {fs['end_step']}, {_fmt(fs.get('rel_excess'), '+.1%')} above the steady level")
    out += [f"resumed after step {r['after_step']} (at step {r['resumed_at_step']}): gap {r['gap_s']:.1f} s on the clock"
            for r in f.evidence.get("resumes") or []]
    st = f.evidence.get("startup_stall")
    if st:
        out.append(f"start-up stall: the first {st['steps']} step(s) took {st['duration_s']:.1f} s, {st['lost_s']:.1f} s "
                   "lost (a stall, not a warm-up)")
    tel = f.telemetry or {}
    from ..foundation.units_fmt import cold_vs_warm

    cw = cold_vs_warm(tel.get("cold"), tel.get("steady"))
    if cw:
        out.append("cold vs warm: " + cw)
    return out
