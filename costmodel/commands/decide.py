"""`costmodel decide`: the go/no-go verdict from an answers file and the analysis results, and the ADR."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

HELP = "go/no-go verdict from the checklist answers and the compare/cost/fit results; optional ADR"
DESCRIPTION = """\
Walk the go/no-go checklist in batch mode: the answers YAML plus evidence gathered from
`costmodel compare --json`, `costmodel cost --json` and `costmodel fit --json` outputs.

Verdict: NO_GO when a blocker is answered no; CONDITIONAL when any item is unknown or a
warning is no (the conditions list what to do); GO when every item is yes. A person's
answer overrides the evidence's proposal; both are printed. The exit status is 0 whatever
the verdict (the verdict is data), 2 on bad input (nothing is written).

answers file:
  answers:
    governance_allows: {answer: yes, note: "approved by data governance, ticket DG-42"}
    network_ready: unknown
  meta: {title: "...", decision-makers: [...], consulted: [...], informed: [...]}   # optional
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--answers", metavar="ANSWERS.yaml",
                        help="checklist answers (YAML: answers: {item_id: {answer: yes|no|unknown, note: ...}}); "
                             "required unless --template")
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


def _read_json(path: str, what: str) -> Any:
    import json

    from ..errors import ChecklistError

    from ..safeio import read_input_text

    p = Path(path)
    try:
        text = read_input_text(p)
    except FileNotFoundError:
        raise ChecklistError(f"{p}: {what} file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ChecklistError(f"{p}: cannot read {what} file: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ChecklistError(f"{p}:{exc.lineno}: {what} file is not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise ChecklistError(f"{p}: {what} file is nested too deeply to be a costmodel JSON output") from None


#: Keys each verb's JSON always has (values may be null): how `decide` tells its inputs apart.
REQUIRED_KEYS: dict[str, tuple[str, ...]] = {
    "compare": ("ratio", "remote_lost_s"),
    "cost": ("options", "horizon_months"),
    "fit": ("run_id", "classification"),
}


def _looks_like(data: Any) -> str:
    """Which verb's output ``data`` looks like ('' when none), for the error message."""
    items = data if isinstance(data, list) else [data]
    for verb, keys in REQUIRED_KEYS.items():
        if items and all(isinstance(d, dict) and all(k in d for k in keys) for d in items):
            return verb
    return ""


def _shaped(data: Any, path: str, verb: str) -> dict[str, Any]:
    """``data`` as the JSON object `costmodel VERB --json` prints (a report's decision.json gives its
    ``VERB`` key); ChecklistError naming the file, the missing keys and what it looks like otherwise."""
    from ..errors import ChecklistError

    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if isinstance(data, dict) and isinstance(data.get(verb), dict) and "verdict" in data and "checklist" in data:
        data = data[verb]  # a report's decision.json
    keys = REQUIRED_KEYS[verb]
    expected = f"the JSON object printed by `costmodel {verb} --json` (keys {', '.join(keys)})"
    if not isinstance(data, dict):
        like = _looks_like(data)
        got = f"`costmodel {like} --json` output" if like else (
            f"a list of {len(data)} items" if isinstance(data, list) else type(data).__name__)
        raise ChecklistError(f"--{verb} {path}: expected {expected}, got {got}")
    missing = [k for k in keys if k not in data]
    if missing:
        like = _looks_like(data)
        got = f" (this looks like `costmodel {like} --json` output)" if like else ""
        raise ChecklistError(f"--{verb} {path}: expected {expected}; missing key(s) {', '.join(missing)}{got}")
    return data


def _fit_list(data: Any, path: str) -> list[dict[str, Any]]:
    """The fits in ``data`` (the list `costmodel fit --json` prints, one fit object, or a report's
    decision.json); ChecklistError naming the file and the first item without the fit keys."""
    from ..errors import ChecklistError

    if isinstance(data, dict) and isinstance(data.get("fit"), list) and "checklist" in data:
        data = data["fit"]
    items = data if isinstance(data, list) else [data]
    keys = REQUIRED_KEYS["fit"]
    for i, f in enumerate(items):
        missing = [k for k in keys if not isinstance(f, dict) or k not in f]
        if missing:
            like = _looks_like(data)
            got = f" (this looks like `costmodel {like} --json` output)" if like else ""
            raise ChecklistError(f"--fit {path}: item {i}: expected a fit from `costmodel fit --json` "
                                 f"(keys {', '.join(keys)}); missing key(s) {', '.join(missing)}{got}")
    return items


def _people(meta: dict[str, Any], key: str, source: str) -> list[str]:
    from ..errors import ChecklistError

    value = meta.get(key, meta.get(key.replace("-", "_"), []))
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ChecklistError(f"{source}: meta.{key} must be a name or a list of names")


def run(args: argparse.Namespace) -> int:
    from .. import adr, checklist
    from ..errors import ChecklistError
    from ._common import emit_json

    if not args.template and not args.answers:
        raise ChecklistError("--answers ANSWERS.yaml is required (or --template to print one to fill in)")
    if args.template and (args.answers or args.adr):
        raise ChecklistError("--template prints an answers file; it takes no --answers or --adr")
    compare = _shaped(_read_json(args.compare, "compare"), args.compare, "compare") if args.compare else None
    cost = _shaped(_read_json(args.cost, "cost"), args.cost, "cost") if args.cost else None
    fits: list[dict[str, Any]] = []
    for path in args.fit:
        fits.extend(_fit_list(_read_json(path, "fit"), path))

    evidence = checklist.gather_evidence(compare=compare, cost=cost, fits=fits)
    if args.template:
        sys.stdout.write(checklist.answers_template(evidence))
        return 0
    answers, meta = checklist.read_answers_file(args.answers)
    decision = checklist.evaluate(answers, evidence, strict=True, source=args.answers)

    out = decision.to_dict()
    if args.adr:
        title = args.title or meta.get("title") or "Cross-region training with a cache, replication or waiting"
        inputs: list[tuple[str, str]] = [("answers", args.answers)]
        if args.compare:
            inputs.append(("compare", args.compare))
        if args.cost:
            inputs.append(("cost", args.cost))
        inputs += [("fit", f) for f in args.fit]
        kwargs = dict(
            title=str(title),
            date=args.date,
            report_link=args.report_link,
            inputs=inputs,
            compare=compare,
            cost=cost,
            decision_makers=_people(meta, "decision-makers", args.answers),
            consulted=_people(meta, "consulted", args.answers),
            informed=_people(meta, "informed", args.answers),
        )
        adr.render_adr(decision, **kwargs)  # validate (date, ...) before touching the folder
        out["adr_path"] = str(adr.write_adr(args.adr, decision, supersedes=args.supersedes, **kwargs))
        if args.supersedes is not None:
            out["superseded_adr_path"] = str(adr.find_adr(args.adr, args.supersedes))
    elif args.supersedes is not None:
        raise ChecklistError("--supersedes needs --adr DIR (the folder of the records)")
    elif args.date:
        adr._as_date(args.date)  # a bad date is bad input even without --adr

    if args.json:
        emit_json(out)
        return 0
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
    return 0
