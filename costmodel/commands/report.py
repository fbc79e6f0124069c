"""`costmodel report`: the rendered report, decision.json and the ADR, in one folder."""
from __future__ import annotations

import argparse

HELP = "render the report to DIR: report.ipynb, report.html (offline), decision.json, adr.md"
DESCRIPTION = HELP + """

Runs the report's pipeline in this process (ingest -> fit -> compare -> cost -> placement -> checklist),
renders the report notebook's display cells from its results (costmodel/notebooks/report.ipynb; no kernel;
--via-kernel executes the notebook with papermill instead), exports one self-contained HTML page (code hidden,
charts as inline SVG, no network needed to read it), and writes decision.json (fit, compare, cost, checklist and
verdict, inputs with SHA-256) and the ADR (MADR Markdown); with --placement FILE also the placement section and
decision.json's placement (what `costmodel place FILE --json` prints). The folder appears whole or not at all: it
is built beside DIR and renamed into place. An existing non-empty DIR is refused unless --force, which replaces a
previous report only (never a folder of other files, the current folder or one holding an input). One progress
line per stage on stderr; with --json the list of files written is printed on stdout. Every flag but -o, --force,
--json and --via-kernel is a report parameter (docs/cli.md, "Report parameters").
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..report.param_views import add_arguments as add_parameters

    add_parameters(parser)  # one flag per report parameter, generated from costmodel.report.params.ReportParams
    parser.add_argument("-o", "--output", required=True, metavar="DIR", help="output folder (created; see --force)")
    parser.add_argument("--force", action="store_true",
                        help="replace a previous report in DIR (a folder holding other files is still refused)")
    parser.add_argument("--json", action="store_true", help="print the files written and the verdict as JSON")
    parser.add_argument("--via-kernel", action="store_true",
                        help="execute the report notebook in a Jupyter kernel with papermill (slower; the same files)")


def run(args: argparse.Namespace) -> int:
    from ..foundation.blas import quiet_blas_threads

    quiet_blas_threads()  # before numpy loads: OpenBLAS's idle workers sleep instead of spinning (the same numbers)
    from ..foundation.util import require_extra

    require_extra("report", "rendering a report")  # before any work: one line naming xregion-costmodel[report]
    from ..foundation.errors import ReportError
    from ..report.param_views import values_from
    from ..report.params import validate_parameters
    from ..report.render import render_params
    from ._common import emit_json, progress

    values = values_from(args)
    if not values.get("colocated") and not values.get("remote") and not values.get("jobs"):
        raise ReportError("give run files with --colocated and/or --remote")
    params = validate_parameters(**values)  # the one validation
    from ..foundation.heap import roomy_heap

    roomy_heap()  # freed temporaries stay in the heap (fewer page faults; the same numbers)
    result = render_params(params, args.output, force=args.force, progress=None if params.quiet else progress,
                           via_kernel=args.via_kernel)
    if args.json:
        emit_json(result.to_json_dict())
    else:
        print(f"verdict: {result.verdict}")
        for name, path in result.files.items():
            print(f"{name}\t{path}")
    return 0
