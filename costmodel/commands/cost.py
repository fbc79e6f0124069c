"""`costmodel cost`: price cross-region reading vs replicating vs waiting, with break-even,
sensitivity and (optionally) Monte Carlo."""
from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

from ..foundation.errors import ScenarioError
from ._common import seed_type

if TYPE_CHECKING:
    from ..contracts.results import CompareRecord

HELP = "cross-region vs replicate vs wait: cost terms, break-even, sensitivity, Monte Carlo"
DESCRIPTION = """\
Price three options for a scenario YAML (units in key names; GB = 10^9 bytes; USD):
  cross_region  read the dataset across regions through a cache
                (transfer_usd, warmup_usd, slowdown_usd, cache_usd, path_processing_usd,
                requests_usd, inter_az_usd)
  replicate     copy the dataset to the GPU region and keep it in sync
                (initial_copy_usd, storage_usd, sync_usd, ops_usd, requests_usd,
                versioning_usd, inter_az_usd, copy_delay_usd)
  wait          train in the data region once GPUs are free there (delay_usd, gpu_premium_usd)
Totals are at the expected value of every input, with the Monte Carlo P5-P95 beside them.
The scenario is checked against the measured throughput and the link (consistency); an
option whose inputs or prices are missing is not priced and never cheapest.
Prices missing from the scenario are filled from data/prices (dated; a price older than
12 months warns). Example: costmodel example ex && costmodel cost ex/scenario.yaml --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scenario", metavar="SCENARIO.yaml",
                        help="the scenario file ('-': standard input, recorded as <stdin> with its SHA-256)")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help="override one scenario value (repeatable), e.g. --set cache.steady_hit_ratio=0.9 "
        "or --set 'training.runs_per_month=[2, 8]' (a uniform range)",
    )
    parser.add_argument(
        "--from-compare",
        metavar="COMPARE.json",
        help="fill cache.warmup_lost_s (remote_lost_s), cache.steady_slowdown_fraction and "
        "cache.steady_hit_ratio from `costmodel compare --json` output (the object with the keys ratio "
        "and remote_lost_s) or a report's decision.json (its compare key); anything else exits 2",
    )
    parser.add_argument(
        "--from-timeline",
        metavar="TIMELINE",
        help="fill cache.steady_hit_ratio from a Timeline Parquet file or any ingestible benchmark "
        "output (remote runs' steady cache_hit_ratio)",
    )
    parser.add_argument("--monte-carlo", type=int, default=0, metavar="N", help="number of Monte Carlo draws (0: none)")
    parser.add_argument("--stated-ranges-only", action="store_true",
                        help="Monte Carlo over the scenario's own ranges and the measurements' sampling distributions "
                             "only (default: the assumptions are also drawn over their default ranges, docs/cost.md)")
    parser.add_argument("--seed", type=seed_type, default=0, help="Monte Carlo seed, a whole number >= 0 (default 0)")
    parser.add_argument(
        "--today",
        metavar="YYYY-MM-DD",
        help="date against which price ages are judged (default: today)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    from ..cost import analyze, apply_measurements, load_scenario
    from ._common import emit_json

    today = None
    if args.today:
        try:
            today = dt.date.fromisoformat(args.today)
        except ValueError:
            raise ScenarioError(f"--today {args.today!r}: expected a date YYYY-MM-DD", key="--today") from None
    if args.monte_carlo < 0:
        raise ScenarioError(f"--monte-carlo {args.monte_carlo}: expected a number of draws >= 0", key="--monte-carlo")
    from ..foundation import stdin

    stdin.refuse_two((("SCENARIO", args.scenario), ("--from-compare", args.from_compare)), ScenarioError)
    scenario = load_scenario(args.scenario, args.overrides, today=today)
    as_written = scenario
    if args.from_compare:
        compare = _read_compare(args.from_compare)
        scenario = apply_measurements(scenario, compare=compare, source=args.from_compare)
    if args.from_timeline:
        runs = _read_runs(args.from_timeline)
        scenario = apply_measurements(scenario, timeline_runs=runs, source=args.from_timeline)
    out = analyze(scenario, monte_carlo_n=args.monte_carlo, seed=args.seed,
                  default_ranges=not args.stated_ranges_only)
    from ..cost.measured import KEY, scenario_figures

    both = scenario_figures(as_written, out) if scenario is not as_written else None
    if both is not None:  # measurements replaced scenario values: the scenario's own totals beside them
        out[KEY] = both
    if args.json:
        emit_json(out)
    else:
        print(_summary(out))
    return 0


def _read_compare(path: str) -> CompareRecord:
    """The compare result in ``path`` (``--from-compare``) as its model, read as ``decide --compare`` reads it."""
    from ..contracts.read import load_result

    return load_result(path, "compare", f"--from-compare {path}", ScenarioError)


def _read_runs(path: str) -> list:
    from ..foundation.safeio import refusal
    from ..foundation.timeline import is_timeline_parquet, read_runs

    p = Path(path)
    why = refusal(p)  # missing, a FIFO, device, folder or link loop: one line, never a hang
    if why:
        raise ScenarioError(f"{p} does not exist" if why == "no such file" else f"{p}: {why}", key="--from-timeline")
    if is_timeline_parquet(p):
        return read_runs(p)
    from ..ingest import load

    return load(p)


def _summary(out: dict) -> str:
    margin = out.get("margin_usd")
    lines = [f"horizon: {out['horizon_months']:g} months; cheapest: {out['cheapest']}"
             + (f" by {margin:,.2f} USD" if margin is not None else "")
             + (f"; robust: {'yes' if out.get('robust') else 'no'} ({out.get('robust_reason')})" if "robust" in out else "")]
    v = out.get("verdict") or {}
    if v.get("sentence"):
        lines.append(f"verdict: {v['sentence']}")
    if v.get("not_modelled_sentence"):
        lines.append(f"not modelled: {v['not_modelled_sentence']}")
    if v.get("purchase_options_sentence"):
        lines.append(f"purchase options: {v['purchase_options_sentence']}")
    lines.append(f"totals at the {str(out.get('headline_basis', 'expected_value')).replace('_', ' ')} of every input; "
                 "P5-P95 from Monte Carlo")
    from ..cost.measured import KEY, summary_lines

    lines.extend(summary_lines(out.get(KEY)))
    if not out.get(KEY):
        slow = ((out.get("inputs") or {}).get("values") or {}).get("cache", {}).get("steady_slowdown_fraction")
        if slow is not None:
            lines.append(f"steady slowdown: the scenario's {slow:.4g} (not measured); --from-compare compare.json applies "
                         "the measured one, as costmodel report does")
    from ..cost.crossing import bytes_phrase

    if out.get("cross_region_bytes"):
        lines.append(bytes_phrase(out["cross_region_bytes"]))
    for name, opt in out["options"].items():
        rng = (f"  P5-P95 {opt['p5_usd']:,.2f}-{opt['p95_usd']:,.2f}" if "p5_usd" in opt else "")
        lines.append(f"  {name:<13} {opt['total_usd']:>14,.2f} USD total  {opt['per_month_usd']:>12,.2f} USD/month{rng}")
        if opt.get("priced") is False:
            lines.append(f"      NOT PRICED: {opt.get('not_priced_reason')}")
        for t, v in opt["terms"].items():
            lines.append(f"      {t:<19} {v:>14,.2f}")
    checks = [c for c in out.get("consistency", []) if c.get("severity") in ("warning", "derived")]
    if checks:
        lines.append("consistency:")
        lines.extend(f"  {c['severity']:<8} {c['check']}: {c.get('message', '')}" for c in checks)
    lines.append("break-even (cross_region = replicate):")
    for k, b in out["break_even"].items():
        if b["never"]:
            lines.append(f"  {k:<38} never ({b.get('winner')} always cheaper)")
        else:
            lines.append(f"  {k:<38} {b['value']:.6g} (now {b['current']:.6g}; {b['above']} cheaper above)")
    wb = out.get("wait_break_even") or {}
    if wb.get("value") is not None:
        lines.append(f"  waiting beats {wb['above']} below {wb['value']:.4g} hours of wait per run (now {wb['current']:g})")
    if "monte_carlo" in out:
        mc = out["monte_carlo"]
        lines.append(f"Monte Carlo ({mc['n']} draws, seed {mc['seed']}):")
        for o, p in mc["p_cheapest"].items():
            lines.append(f"  {o:<13} P(cheapest) {p:.3f}  P5 {mc['p5'][o]:,.2f}  P50 {mc['p50'][o]:,.2f}  "
                         f"P95 {mc['p95'][o]:,.2f}")
    lines.extend(f"warning: {w}" for w in out["warnings"])
    rec = out.get("recommendation") or {}
    if rec.get("sentence"):  # the one answer, last, as the report and the ADR state it
        lines.append(rec["sentence"])
    return "\n".join(lines)
