"""`costmodel decide`: the go/no-go verdict from an answers file and the analysis results, and the ADR."""
from __future__ import annotations

import argparse
import sys
from typing import Any

HELP = "go/no-go verdict from the checklist answers and the compare/cost/fit results; optional ADR"
DESCRIPTION = """\
Walk the go/no-go checklist in batch mode: the answers YAML plus evidence gathered from
`costmodel compare --json`, `costmodel cost --json` and `costmodel fit --json` outputs.

Verdict: NO_GO when a blocker is answered no; CONDITIONAL when any item is unknown or a
warning is no (the conditions list what to do); GO when every item is yes. A person's
answer overrides the evidence's proposal; both are printed. The exit status is 0 whatever
the verdict (the verdict is data), 2 on bad input (nothing is written); with --fail-on it is 3
when the verdict is as bad as the gate or worse (a CI gate without jq: --fail-on no_go fails on
NO_GO, --fail-on conditional on CONDITIONAL or NO_GO; the record and the ADR are still written).
`-` for --answers, --compare, --cost or --fit (one of them) reads that file from standard input
(named <stdin> in messages; the ADR records its SHA-256).
Example: costmodel example ex && costmodel decide --answers ex/answers.yaml --fail-on no_go


answers file:
  answers:
    governance_allows: {answer: yes, note: "approved by data governance, ticket DG-42"}
    network_ready: unknown
  meta: {title: "...", decision-makers: [...], consulted: [...], informed: [...]}   # optional
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--answers", metavar="ANSWERS.yaml",
                        help="checklist answers (YAML: answers: {item_id: {answer: yes|no|unknown, note: ...}}; "
                             "'-': standard input); required unless --template")
    parser.add_argument("--template", action="store_true",
                        help="print an answers YAML to fill in (every item, its question and what the evidence "
                             "from --compare/--cost/--fit proposes) and exit")
    parser.add_argument("--compare", metavar="compare.json",
                        help="output of `costmodel compare --json` (keys ratio, remote_lost_s) or a report's decision.json")
    parser.add_argument("--cost", metavar="cost.json",
                        help="output of `costmodel cost --json` (keys options, horizon_months) or a report's decision.json")
    parser.add_argument("--fit", metavar="fit.json", action="append", default=[],
                        help="output of `costmodel fit --json` (a list of fits with run_id, classification; "
                             "repeatable) or a report's decision.json")
    parser.add_argument("--adr", metavar="DIR",
                        help="write an architecture decision record (MADR) as DIR/NNNN-title.md (next free number)")
    parser.add_argument("--supersedes", type=int, metavar="N",
                        help="with --adr: the new record supersedes record N (its status becomes 'superseded by ADR-<new>')")
    parser.add_argument("--title", help="ADR title (default: the answers file's meta.title, else a generic title)")
    parser.add_argument("--date", metavar="YYYY-MM-DD", help="ADR date (default: today, UTC)")
    parser.add_argument("--report-link", metavar="URL", help="link to the rendered report, cited in the ADR")
    parser.add_argument("--json", action="store_true", help="print the decision as one JSON object")
    parser.add_argument("--fail-on", choices=FAIL_ON, metavar="no_go|conditional",
                        help=f"exit {GATE_EXIT} when the verdict is this bad or worse (CI gates); default: exit 0 "
                             "whatever the verdict")


#: ``--fail-on`` gates: the verdicts that fail each one.
FAIL_ON = {"no_go": ("NO_GO",), "conditional": ("CONDITIONAL", "NO_GO")}
#: The exit status of a verdict that fails the ``--fail-on`` gate (0 ok, 1 internal error, 2 bad input).
GATE_EXIT = 3


def gate_status(verdict: str, fail_on: str | None) -> int:
    """The exit status for ``verdict`` under ``--fail-on`` (0 without a gate)."""
    return GATE_EXIT if fail_on and verdict in FAIL_ON[fail_on] else 0


def __getattr__(name: str) -> Any:
    """``REQUIRED_KEYS`` (keys each verb's JSON always has) now lives in the contracts; kept for callers."""
    if name == "REQUIRED_KEYS":
        from ..contracts.results import READ_REQUIRED

        return READ_REQUIRED
    raise AttributeError(name)


def run(args: argparse.Namespace) -> int:
    from .. import checklist
    from ..checklist import adr
    from ..checklist.answers import read_answers_document
    from ..contracts.read import load_result
    from ..contracts.results import FitRecord
    from ..foundation import stdin
    from ..foundation.errors import ChecklistError
    from ._common import emit_json

    stdin.refuse_two((("--answers", args.answers), ("--compare", args.compare), ("--cost", args.cost),
                      *(("--fit", f) for f in args.fit)), ChecklistError)
    if not args.template and not args.answers:
        raise ChecklistError("--answers ANSWERS.yaml is required (or --template to print one to fill in)")
    if args.template and (args.answers or args.adr):
        raise ChecklistError("--template prints an answers file; it takes no --answers or --adr")
    compare = load_result(args.compare, "compare", f"--compare {args.compare}", ChecklistError) if args.compare else None
    cost = load_result(args.cost, "cost", f"--cost {args.cost}", ChecklistError) if args.cost else None
    fits: list[FitRecord] = []
    for path in args.fit:
        fits.extend(load_result(path, "fit", f"--fit {path}", ChecklistError))

    evidence = checklist.gather_evidence(compare=compare, cost=cost, fits=fits)  # the models, as read
    if args.template:
        sys.stdout.write(checklist.answers_template(evidence))
        return 0
    doc = read_answers_document(args.answers)  # answers and meta (ADR people) validated once, as the report does
    decision = checklist.evaluate(doc.answers, evidence, strict=True, source=doc.source)

    out = decision.to_dict()
    if args.adr:
        title = args.title or doc.meta.title or "Cross-region training with a cache, replication or waiting"
        inputs: list[tuple[str, str]] = [("answers", args.answers)]
        if args.compare:
            inputs.append(("compare", args.compare))
        if args.cost:
            inputs.append(("cost", args.cost))
        inputs += [("fit", f) for f in args.fit]
        kwargs = {
            "title": str(title),
            "date": args.date,
            "report_link": args.report_link,
            "inputs": inputs,
            "compare": compare,  # the models, as read: the ADR's figures
            "cost": cost,
            "decision_makers": doc.meta.decision_makers,
            "consulted": doc.meta.consulted,
            "informed": doc.meta.informed,
        }
        adr.render_adr(decision, **kwargs)  # validate (date, ...) before touching the folder
        out["adr_path"] = str(adr.write_adr(args.adr, decision, supersedes=args.supersedes, **kwargs))
        if args.supersedes is not None:
            out["superseded_adr_path"] = str(adr.find_adr(args.adr, args.supersedes))
    elif args.supersedes is not None:
        raise ChecklistError("--supersedes needs --adr DIR (the folder of the records)")
    elif args.date:
        adr._as_date(args.date)  # a bad date is bad input even without --adr

    status = gate_status(decision.verdict, getattr(args, "fail_on", None))
    if args.json:
        emit_json(out)
        return status
    print(f"verdict: {decision.verdict}")
    for r in decision.items:
        mark = {"ok": "ok  ", "blocker": "NO  ", "condition": "open"}[r.status]
        src = "" if r.source == "person" else f" [{r.source}]"
        print(f"  {mark} {r.item.id:<24} {r.answer:<8}{src}  {r.evidence.summary}")
    if decision.blockers:
        print("blockers:")
        for b in decision.blockers:
            print(f"  - {b['id']}: {b['reason']}")
    if decision.conditions:
        print("conditions:")
        for c in decision.conditions:
            print(f"  - {c['id']}: {c['condition']}")
    if "adr_path" in out:
        print(f"ADR written: {out['adr_path']}")
    if cost is not None:  # the one answer, last, as the report's first screen and the ADR state it
        from ..checklist.answer import one_answer

        print(one_answer(decision, cost)["sentence"])
    if status:
        sys.stderr.write(f"costmodel decide: verdict {decision.verdict} fails --fail-on {args.fail_on} (exit {status})\n")
    return status
