"""`costmodel place`: rank every (GPU region, offer, data strategy) for data that sits in one region."""
from __future__ import annotations

import argparse

HELP = "rank GPU regions x data strategies (cache, replicate, wait) by cost and time to a finished training"
DESCRIPTION = """\
Read a placement file (YAML: the data region and its base cost scenario, candidate GPU regions with their
offers and links, constraints) and price every candidate x offer x strategy with the cost model:
  cross_region  train in the candidate, read the data across regions through the cache
  replicate     copy the dataset to the candidate and keep it in sync
  wait          wait for GPUs near the data
Each placement gets its cost over the horizon (GPU hours + the strategy's total from `costmodel cost`),
its time to a finished first training (wait + copy + warm-up + run + slowdown) and its feasibility
(deadline, governance). Ranked by cost within the deadline, or by cost + objective.usd_per_hour x time;
with the Pareto front of cost vs time, each offer's break-even GPU price, and a joint Monte Carlo.
Warm-up and slowdown are measured (a compare result of the candidate's runs), predicted by the what-if
simulator with the candidate's link, or assumed (the base scenario's): each placement says which.
A candidate that cannot be priced is listed with the reason. docs/place.md has every key.
Example: costmodel example ex && costmodel place ex/placement.yaml --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("placement", metavar="PLACEMENT.yaml", help="the placement file")
    parser.add_argument("--scenarios", metavar="DIR",
                        help="also write each candidate's cost scenario (and compare result) to DIR, with the "
                             "`costmodel cost` command that reproduces its figures")
    parser.add_argument("--force", action="store_true", help="replace scenario files of the same names in --scenarios DIR")
    parser.add_argument("--monte-carlo", type=int, default=None, metavar="N",
                        help="joint Monte Carlo draws (default: the file's monte_carlo.draws, 2000)")
    parser.add_argument("--adr", metavar="DIR", help="also write the decision as an ADR (MADR 4.0) to DIR/NNNN-*.md, "
                                                     "listing every alternative considered")
    parser.add_argument("--date", metavar="YYYY-MM-DD", help="the ADR's date (default: today, UTC)")
    parser.add_argument("--today", metavar="YYYY-MM-DD", help="date against which price ages are judged (default: today)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    from ..foundation.blas import quiet_blas_threads

    quiet_blas_threads()  # before numpy loads: OpenBLAS's idle workers sleep instead of spinning (the same numbers)
    from ..foundation.errors import PlacementError
    from ..place import place
    from ._common import emit_json

    if args.monte_carlo is not None and not 1 <= args.monte_carlo <= 1_000_000:
        raise PlacementError(f"--monte-carlo {args.monte_carlo}: expected a number of draws in 1..1000000",
                             key="--monte-carlo")
    today = None
    if args.today:
        import datetime as dt

        try:
            today = dt.date.fromisoformat(args.today)
        except ValueError:
            raise PlacementError(f"--today {args.today!r}: expected a date YYYY-MM-DD", key="--today") from None
    from ..foundation.progress import progress_on
    from ._common import progress

    out = place(args.placement, scenarios_dir=args.scenarios, monte_carlo_n=args.monte_carlo, today=today,
                progress=progress if progress_on() else None, force=args.force)
    if args.adr:
        from ..place.adr import write_placement_adr

        out["adr"] = str(write_placement_adr(args.adr, out, date=args.date))
    if args.json:
        emit_json(out)
    else:
        print(summary_text(out))
    return 0


def summary_text(out: dict) -> str:
    """The human summary: the ranking table, what is not ranked and why, the reasons, the break-evens. Names from
    the file are escaped (``foundation.names.shown``) and never cut: the placement column is as wide as its
    longest id."""
    from ..foundation.names import shown

    def esc(x: object) -> str:
        return shown(x, limit=10_000)

    ob = out["objective"]
    lines = [f"{esc(out['placement'])}: data in {out['data']['provider']}:{esc(out['data']['region'])}; "
             f"ranked by {ob['rank_by']}" + (f" within {ob['deadline_hours']:g} h" if ob["deadline_hours"] else "")]
    ids = [esc(r["id"]) for r in out["ranking"]]
    width = max([len("placement")] + [len(i) for i in ids])
    lines.append(f"  {'#':>2}  {'placement':<{width}} {'cost USD':>12} {'time h':>8}  {'speed':>5}  basis      P(best)")
    for r, rid in zip(out["ranking"], ids, strict=True):
        basis = r["basis"] if r["basis"] != "not_needed" else "-"
        front = "*" if r["on_front"] else " "
        sp = (r.get("speed") or {}).get("ratio")
        p = r["p_best"]
        lines.append(f"  {r['rank']:>2}{front} {rid:<{width}} {r['cost_usd']:>12,.0f} {r['time_to_finish_hours']:>8,.1f}"
                     f"  {sp if sp is None else format(sp, '5.2f'):>5}  {basis:<10} "
                     + ("   -" if p is None else f"{p:.3f}") + (" (by time)" if r.get("ranked_by", "") and
                                                                   str(r.get("ranked_by")).startswith("time") else ""))
    lines.append("  (* on the Pareto front of cost vs time; speed: throughput vs the reference cluster; basis: where "
                 "the warm-up and slowdown come from)")
    if out["not_ranked"]:
        lines.append("not ranked:")
        for r in out["not_ranked"]:
            why = r["not_priced_reason"] or r["forbidden_reason"] or r["infeasible_reason"]
            lines.append(f"  {esc(r['id'])}: {esc(why)}")
    lines.append("why:")
    lines.extend(f"  {esc(w)}" for w in out["why"])
    lines.append("break-even GPU prices (USD per instance-hour at which the winner changes):")
    for b in out["break_even"]:
        parts = [f"{side} {b[side]['usd_per_hour']:,.4f} -> {esc(b[side]['winner'])}" for side in ("below", "above")
                 if b[side]]
        lines.append(f"  {esc(b['candidate'])} ({esc(b['offer'])}, now {b['usd_per_hour']:g}): "
                     + ("; ".join(parts) or b.get("note") or "never"))
    lines.extend(f"  check: {esc(o['cost_command'])}" for c in out["candidates"] for o in c["offers"]
                 if o.get("cost_command"))
    lines.extend(f"  check: {esc(o['cost_command'])}" for o in out["data"].get("offers") or [] if o.get("cost_command"))
    lines.extend(f"warning: {esc(w)}" for w in out["warnings"])
    return "\n".join(lines)
