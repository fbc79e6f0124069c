"""`costmodel watch`: follow a remote trial's log as it is written; call the warm-up end and equivalence early."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from ._common import add_ingest_arguments

HELP = "watch a trial's log as it grows: warm-up over at step N, an anytime-valid interval, equivalent/different"
DESCRIPTION = """follow the remote trial's log LOG (a file being written, a rotated or truncated file, or - for
standard input; any format ingest reads) against a finished co-located run, and print one line per state
change: the cold phase (with its evidence), the warm-up over at step N (once the evidence holds; the
latency stated), the steady ratio with its confidence sequence, and the call: equivalent within --margin,
different, or not yet (with the steps still needed). The confidence sequence is anytime-valid (a one-sided
normal-mixture boundary on each bound, see docs/trial.md): the false "equivalent" rate stays <= 5 %
however often it is looked at, unlike a TOST repeated at every look.

At the end of input (standard input closed, --no-follow, or --idle-timeout seconds without a new line)
an undecided trial gets the planned final analysis: `compare` on the whole log. Exit status: 0
equivalent, 3 different, 4 undecided at the end of input, 2 bad input (the co-located run, options).
Bad or truncated lines of LOG are counted and named, never fatal. With --json every event is one JSON
line (keys: event, step, t_s, rows, ...; the last line is the "end" event with call and exit_code).

Example: costmodel example e && costmodel watch e/remote_steps.csv --colocated e/colocated_steps.csv --replay 25 --until decided
"""

EVENT_WORDS = {"cold_phase": "cold phase", "warmup_over": "warm-up over", "steady": "steady", "call": "call",
               "rejected": "rejected lines", "waiting": "waiting", "rotated": "rotated", "idle": "idle", "end": "end"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", metavar="LOG", help="the remote trial's log (- for standard input)")
    parser.add_argument("--colocated", required=True, metavar="FILE", help="the finished co-located run (the reference)")
    parser.add_argument("--margin", type=float, default=0.05, help="equivalence margin as a fraction (default 0.05)")
    parser.add_argument("--metric", default=None, help="Timeline column (default samples_per_s, ...)")
    parser.add_argument("--until", choices=["decided", "end"], default="end",
                        help="stop following once called (decided) or at the end of input (default)")
    parser.add_argument("--idle-timeout", type=float, default=60.0, metavar="S",
                        help="the log has stopped growing after S seconds without a new line (default 60)")
    parser.add_argument("--poll", type=float, default=0.5, metavar="S", help="seconds between checks of the file")
    parser.add_argument("--no-follow", action="store_true", help="read LOG as it is now and end (a finished log)")
    parser.add_argument("--replay", type=int, default=None, metavar="ROWS",
                        help="read LOG once and replay it as if written ROWS rows at a time (a finished log)")
    parser.add_argument("--no-final-analysis", action="store_true",
                        help="at the end of input, do not run compare on the whole log when undecided")
    parser.add_argument("--plan-steps", type=float, default=None, metavar="N",
                        help="the planned steady steps (costmodel plan): the interval is tightest there "
                             "(default: the co-located run's steady length)")
    parser.add_argument("--plug-in-pairs", action="store_true",
                        help="research only, NOT valid under few checkpoints: take the paired checkpoint costs' "
                             "spread as known (default: widened by t_(k-1)(0.95)/z(0.95) for k pairs, which keeps "
                             "the false 'equivalent' rate within 5 percent)")
    add_ingest_arguments(parser)
    parser.add_argument("--json", action="store_true", help="one JSON object per event on stdout (JSON lines)")


def _f(v: Any, spec: str = ".4f") -> str:
    return "-" if v is None else format(v, spec)


def human(ev: dict[str, Any]) -> str:
    """One line for an event."""
    at = f"step {_f(ev.get('step'), '.0f')} ({_f(ev.get('t_s'), '.1f')} s)"
    k = ev["event"]
    if k == "cold_phase":
        extra = "".join(f", cold {c.removeprefix('cold_')} {_f(ev[c], '.3g')}" for c in ev if c.startswith("cold_"))
        return (f"{at}: cold phase: {_f(ev.get('level_so_far'), '.1f')} vs co-located {_f(ev.get('reference_level'), '.1f')} "
                f"(ratio {_f(ev.get('ratio_so_far'), '.3f')}; evidence: {ev.get('evidence')}{extra})")
    if k == "warmup_over":
        return (f"{at}: warm-up over at step {ev['warmup_end_step']} ({_f(ev.get('warmup_end_t_s'), '.1f')} s; "
                f"called {_f(ev.get('latency_steps'), '.0f')} steps / {_f(ev.get('latency_s'), '.1f')} s later; "
                f"by {ev.get('decided_by')})")
    if k in ("steady", "call"):
        need = ev.get("steps_needed")
        head = f"CALL {ev['call']}" if k == "call" else (
            "not yet" + (f" (about {need:,.0f} more steps would decide)" if need else ""))
        return (f"{at}: {head}: ratio {_f(ev.get('ratio'))} [{_f(ev.get('ratio_cs_low'))}, {_f(ev.get('ratio_cs_high'))}] "
                f"(90 % confidence sequence, margin {ev.get('margin', 0):.1%}; {ev.get('stalls')} stalls, "
                f"{ev.get('stall_pairing')})")
    if k == "rejected":
        first = "; ".join(f"line {x.get('line')}: {x.get('reason')}" for x in ev.get("new", [])[:3])
        return f"{at}: {ev['count']} bad or truncated line(s) so far in {ev.get('path')} ({first})"
    if k == "waiting":
        return f"waiting: {ev.get('reason')}"
    if k == "rotated":
        return f"{at}: the log was rotated or truncated: part {ev.get('part')} begins"
    if k == "idle":
        return f"{at}: the log stopped growing ({_f(ev.get('idle_s'), '.0f')} s without a new line)"
    if k == "end":
        wl = ev.get("compare") or {}
        need = ev.get("steps_needed")
        more = f"; about {need:,.0f} more steps would decide" if need else ""
        return (f"end at {at}: {ev['call']} (by {ev.get('decided_by') or 'nothing yet'}"
                f"{'' if ev.get('called_at_step') is None else ', at step ' + _f(ev['called_at_step'], '.0f')}){more}; "
                f"compare on the rows read (fixed-sample): {wl.get('equivalence', '-')} ratio {_f(wl.get('ratio'))} "
                f"[{_f(wl.get('ratio_ci90_low'))}, {_f(wl.get('ratio_ci90_high'))}] (90 % CI)")
    return f"{at}: {k}"


def status_line(st: dict[str, Any]) -> str:
    """The terminal's status line."""
    s = f"step {_f(st.get('step'), '.0f')} | {st['phase']}"
    if st.get("ratio") is not None:
        s += f" | ratio {st['ratio']:.4f} [{st['ratio_cs_low']:.4f}, {st['ratio_cs_high']:.4f}]"
    if st.get("steps_needed"):
        s += f" | ~{st['steps_needed']:,.0f} steps to a call"
    return s


def run(args: argparse.Namespace) -> int:
    from ..foundation.errors import AnalysisError
    from ..foundation.progress import progress_on
    from ..foundation.util import dumps
    from ..ingest import load
    from ..trial import Settings, Watcher, final_call, reference_from_run
    from ..trial.follow import Follower, parse_parts
    from ._common import ingest_options

    if not (0 < args.margin < 1):
        raise AnalysisError(f"--margin must be a fraction in (0, 1), e.g. 0.05 for 5 %; got {args.margin}")
    for opt in ("idle_timeout", "poll"):
        if not getattr(args, opt) > 0:
            raise AnalysisError(f"--{opt.replace('_', '-')} must be > 0 seconds; got {getattr(args, opt)}")
    ref_runs = load(args.colocated, ingest_options(args, "colocated"))
    ref = reference_from_run(ref_runs[0], args.metric)
    plan_rows = int(args.plan_steps / ref.steps_per_row) if args.plan_steps else None
    watcher = Watcher(ref, Settings(margin=args.margin, plan_rows=plan_rows, studentize_pairs=not args.plug_in_pairs))
    follower = Follower(args.log, poll_s=args.poll, idle_timeout_s=args.idle_timeout, follow=not args.no_follow)
    if args.log != "-":
        from pathlib import Path

        from ..foundation.safeio import refusal

        why = refusal(Path(args.log))
        if why:
            from ..foundation.errors import IngestError

            raise IngestError(why, path=args.log)
    options = ingest_options(args, "remote")
    tty = (not args.json) and progress_on(sys.stderr)

    def emit(ev: dict[str, Any]) -> None:
        if tty:
            sys.stderr.write("\r\033[K")
        if args.json:
            sys.stdout.write(dumps(ev, indent=None) + "\n")
            sys.stdout.flush()
        else:
            from ..foundation.names import shown

            print(shown(human(ev), 4000), flush=True)

    parsed = None
    n_rej = 0
    waiting = None
    if args.replay is not None:
        if args.replay < 1:
            raise AnalysisError(f"--replay must be a whole number of rows >= 1; got {args.replay}")
        follower.follow = False
    for up in follower.updates():
        if up.kind == "rotated":
            emit(watcher.event("rotated", part=len(follower.parts)))
        if up.kind == "idle":
            emit(watcher.event("idle", idle_s=up.idle_s))
        parsed = parse_parts(follower.parts, follower.name, options, ended=follower.ended)
        if len(parsed.rejected) > n_rej:
            new = parsed.rejected[n_rej:]
            n_rej = len(parsed.rejected)
            emit(watcher.event("rejected", count=n_rej, path=follower.name, new=new[:5]))
        if parsed.run is None:
            if parsed.error != waiting:
                waiting = parsed.error
                emit({"event": "waiting", "reason": parsed.error})
            continue
        if args.replay is not None and up.kind == "eof":
            from ..trial.watcher import prefix

            n = len(parsed.run.table)
            for k in [*range(args.replay, n, args.replay), n]:
                for ev in watcher.look(prefix(parsed.run, k)):
                    emit(ev)
                if args.until == "decided" and watcher.call is not None:
                    parsed.run = prefix(parsed.run, k)
                    break
            break
        if args.replay is not None:
            continue
        for ev in watcher.look(parsed.run):
            emit(ev)
        if tty:
            sys.stderr.write("\r\033[K" + status_line(watcher.status()))
            sys.stderr.flush()
        if args.until == "decided" and watcher.call is not None:
            break
    if tty:
        sys.stderr.write("\r\033[K")
    if parsed is None or parsed.run is None:
        end: dict[str, Any] = {"event": "end", "rows": 0, "call": "undecided", "decided_by": None,
                               "reason": (parsed.error if parsed else "no input"), "exit_code": 4,
                               "margin": args.margin, "compare": None, "steps_needed": None, "step": None,
                               "t_s": None, "called_at_step": None}
    else:
        end = final_call(watcher, parsed.run, final_analysis=not args.no_final_analysis)
    end["rejected_lines"] = n_rej
    end["rejected"] = (parsed.rejected[:20] if parsed else [])
    end["truncated_last_line"] = bool(parsed and parsed.truncated_tail)
    end["rotations"] = follower.rotations
    end["reference"] = ref.to_dict()
    emit(end)
    return int(end["exit_code"])
