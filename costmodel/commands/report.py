"""`costmodel report`: the rendered report, decision.json and the ADR, in one folder."""
from __future__ import annotations

import argparse
from typing import Any

from ._common import add_ingest_arguments, seed_type

HELP = "render the report notebook to DIR: report.ipynb, report.html (offline), decision.json, adr.md"
DESCRIPTION = HELP + """

Executes costmodel/notebooks/report.ipynb with papermill (ingest -> fit -> compare -> cost -> checklist),
exports it to one self-contained HTML page (code hidden, charts as inline SVG, no network needed to
read it), and writes decision.json (fit, compare, cost, checklist and verdict, inputs with SHA-256)
and the ADR (MADR Markdown); with --placement FILE also the placement section and decision.json's placement
(what `costmodel place FILE --json` prints). The folder appears whole or not at all: it is built beside DIR and
renamed into place. An existing non-empty DIR is refused unless --force, which replaces a previous
report only (never a folder of other files, the current folder or one holding an input). One progress line per stage
on stderr; with --json the list of files written is printed on stdout.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--colocated", nargs="+", default=[], metavar="FILE",
                        help="co-located (hub) run files: any ingestible benchmark output or Timeline Parquet")
    parser.add_argument("--remote", nargs="+", default=[], metavar="FILE",
                        help="remote (cross-region spoke) run files")
    parser.add_argument("--scenario", required=True, metavar="S.yaml", help="cost scenario YAML")
    parser.add_argument("--answers", required=True, metavar="A.yaml", help="checklist answers YAML")
    parser.add_argument("-o", "--output", required=True, metavar="DIR", help="output folder (created; see --force)")
    parser.add_argument("--force", action="store_true",
                        help="replace a previous report in DIR (a folder holding other files is still refused)")
    parser.add_argument("--metric", default="",
                        help="throughput column to analyse (default: the analysis default, e.g. samples_per_s)")
    add_ingest_arguments(parser)
    parser.add_argument("--margin", type=float, default=0.02, help="equivalence margin as a fraction (default 0.02 = 2 %%)")
    parser.add_argument("--monte-carlo", dest="monte_carlo_n", type=int, default=2000, metavar="N",
                        help="Monte Carlo draws for the uncertainty section (default 2000; 0 skips it)")
    parser.add_argument("--seed", type=seed_type, default=0, help="Monte Carlo seed (default 0)")
    parser.add_argument("--title", default="", help="report and ADR title (default: the answers file's meta.title)")
    parser.add_argument("--date", default="", metavar="YYYY-MM-DD", help="ADR date (default: today, UTC)")
    parser.add_argument("--json", action="store_true", help="print the files written and the verdict as JSON")
    parser.add_argument("--job", action="append", default=[], metavar="ROLE:NAME=GLOB",
                        help="the files matching GLOB are the rank logs of job NAME on side ROLE (repeatable)")
    parser.add_argument("--rank-throughput", choices=["auto", "local", "global"], default="auto",
                        help="ranks log their own share (local, summed) or the job's global figure; default: detected")
    parser.add_argument("--placement", default="", metavar="PLACEMENT.yaml",
                        help="a placement file (docs/place.md): adds the placement section (ranked candidate GPU regions x "
                             "data strategies, the cost-vs-time front, why the winner wins) and decision.json's placement")
    parser.add_argument("--engine", choices=["auto", "pandas", "duckdb", "dask"], default="auto",
                        help="engine that reduces rank logs to the job series (dask: the cluster at "
                             "COSTMODEL_DASK_SCHEDULER, its workers reading the files or objects themselves)")


def run(args: argparse.Namespace) -> int:
    from ..foundation.util import require_extra

    require_extra("report", "rendering a report")  # before any work: one line naming xregion-costmodel[report]
    from ..foundation.errors import ReportError
    from ..report import render_report
    from ._common import emit_json, progress

    if not args.colocated and not args.remote and not args.job:
        raise ReportError("give run files with --colocated and/or --remote")
    import os

    engine = getattr(args, "engine", "auto") or "auto"
    before = os.environ.get("COSTMODEL_ENGINE")
    if engine != "auto":  # read by costmodel.jobs.load_side in the notebook's kernel (run mechanics, not a parameter)
        os.environ["COSTMODEL_ENGINE"] = engine
    try:
        result = _render(args, render_report, (lambda _m: None) if getattr(args, "quiet", False) else progress)
    finally:
        if engine != "auto":
            if before is None:
                os.environ.pop("COSTMODEL_ENGINE", None)
            else:
                os.environ["COSTMODEL_ENGINE"] = before
    if args.json:
        emit_json(result.to_json_dict())
    else:
        print(f"verdict: {result.verdict}")
        for name, path in result.files.items():
            print(f"{name}\t{path}")
    return 0


def _render(args: argparse.Namespace, render_report: Any, progress: Any) -> Any:
    return render_report(
        args.colocated,
        args.remote,
        args.scenario,
        args.answers,
        args.output,
        force=args.force,
        progress=progress,
        metric=args.metric,
        format=args.fmt or "",
        map=list(args.map),
        pattern=args.pattern or "",
        batch_size=args.batch_size or 0.0,
        tokens_per_step=args.tokens_per_step or 0.0,
        margin=args.margin,
        monte_carlo_n=args.monte_carlo_n,
        seed=args.seed,
        title=args.title,
        date=args.date,
        jobs=list(args.job),
        rank_throughput=args.rank_throughput,
        placement=getattr(args, "placement", "") or "",
    )
