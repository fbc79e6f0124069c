"""The verdict: answers and evidence combined into a GO / CONDITIONAL / NO_GO :class:`Decision` (pure logic).

Every item is phrased so that ``yes`` is the favourable answer. Evidence gathered from the
``compare``, ``cost`` and ``fit`` results (their JSON dicts) *proposes* an answer where the data can
speak; a person's answer overrides the proposal, and both are kept and shown.

Verdict rules (also in the README):

1. ``NO_GO`` when any *blocker* item's answer is ``no``; ``blockers`` lists them.
2. Otherwise ``CONDITIONAL`` when any item is ``unknown`` (blocker or warning) or any *warning*
   item is ``no``; ``conditions`` lists what must be done for each.
3. Otherwise ``GO`` (every item answered ``yes``).

The answer that counts for an item is the person's answer when one is given, else the evidence's
proposal, else ``unknown``. So ``unknown`` on a blocker is never a GO.

A note is required (``ChecklistError`` naming the item otherwise) when a person answers

* ``no`` on a blocker (it decides a NO_GO: say why);
* against the evidence (``yes`` where evidence proposes ``no`` or the reverse: say why the data is wrong);
* ``yes`` on a blocker for which no evidence proposes ``yes`` (say who or what confirms it).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..foundation.errors import ChecklistError
from ..foundation.fields_json import FieldsJson, JsonKeys
from .answers import Answer
from .evidence import Evidence, gather_evidence
from .items import _BY_ID, ANSWERS, ITEMS, Item, _suggest

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd



@dataclass(frozen=True)
class ItemResult(FieldsJson):
    """One item as decided: the person's answer, the evidence's proposal, the answer that counts."""

    item: Item
    answer: str  # the answer that counts
    source: str  # "person", "evidence" or "none"
    person_answer: str | None
    note: str
    evidence: Evidence
    status: str  # "ok", "blocker" or "condition"
    overrides_evidence: bool
    problem: str = ""  # non-empty when a person's answer was not accepted (missing note)

    @property
    def proposed(self) -> str:
        return self.evidence.proposed

    #: the item's question, why and severity flattened in, then the decision, the evidence and the condition
    JSON = JsonKeys(keys=("id=item.id", "question=item.question", "why=item.why", "severity=item.severity", "answer",
                          "source", "person_answer", "note", "proposed", "evidence", "overrides_evidence", "status",
                          "condition", "problem"))

    @property
    def condition(self) -> str:
        """What would make the answer yes: the evidence's condition, else the item's."""
        return self.evidence.condition or self.item.condition


@dataclass(frozen=True)
class Decision(FieldsJson):
    """The verdict with its blockers and conditions, and every item as decided."""

    verdict: str
    items: tuple[ItemResult, ...]
    blockers: tuple[dict[str, str], ...]
    conditions: tuple[dict[str, str], ...]
    problems: tuple[str, ...] = ()

    @property
    def reasons(self) -> list[str]:
        """Plain-language reasons for the verdict."""
        if self.verdict == "NO_GO":
            return [f"blocker '{b['id']}' answered no: {b['reason']}" for b in self.blockers]
        if self.verdict == "CONDITIONAL":
            return [f"'{c['id']}' ({c['severity']}, {c['answer']}): {c['condition']}" for c in self.conditions]
        return ["every item is answered yes"]

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(ANSWERS, 0)
        for r in self.items:
            out[r.answer] += 1
        return out

    JSON = JsonKeys(keys=("verdict", "blockers", "conditions", "reasons", "counts", "problems", "items"), lists=True)

    def table(self) -> pd.DataFrame:
        """A static table (one row per item) for the report: answers, evidence and status."""
        import pandas as pd

        rows = [
            {
                "id": r.item.id,
                "question": r.item.question,
                "severity": r.item.severity,
                "answer": r.answer,
                "source": r.source,
                "proposed": r.evidence.proposed,
                "evidence": r.evidence.summary,
                "note": r.note,
                "status": r.status,
            }
            for r in self.items
        ]
        return pd.DataFrame(rows, columns=["id", "question", "severity", "answer", "source", "proposed",
                                           "evidence", "note", "status"])


def note_problem(item: Item, answer: Answer, evidence: Evidence) -> str:
    """Why ``answer`` needs a note it lacks ('' when it is acceptable). See the module docstring."""
    if answer.note:
        return ""
    if answer.answer == "no" and item.severity == "blocker":
        return "a 'no' on a blocker needs a note saying why (it decides a NO_GO)"
    if answer.answer in ("yes", "no") and evidence.proposed in ("yes", "no") and answer.answer != evidence.proposed:
        return (f"answering {answer.answer!r} against the evidence (which proposes {evidence.proposed!r}: "
                f"{evidence.summary}) needs a note saying why")
    if answer.answer == "yes" and item.severity == "blocker" and evidence.proposed != "yes":
        return "a 'yes' on a blocker without supporting evidence needs a note saying who or what confirms it"
    return ""


def evaluate(
    answers: Mapping[str, Answer] | None,
    evidence: Mapping[str, Evidence] | None,
    *,
    strict: bool = True,
    source: str | None = None,
) -> Decision:
    """Combine answers and evidence into a :class:`Decision` by the rules in the module docstring.

    ``source`` (the answers file) prefixes every error message, like :func:`read_answers_file`'s.

    ``strict`` (batch mode) raises ChecklistError naming the first item whose answer lacks a
    required note; with ``strict=False`` (the widgets) such an answer is not accepted: the item
    counts as the evidence's proposal would, and the problem is listed in ``Decision.problems``.
    Also raises ChecklistError for an answer to an item that is not in the catalogue.
    """
    answers = dict(answers or {})
    evidence = dict(evidence or {})
    where = f"{source}: " if source else ""
    for iid in answers:
        if iid not in _BY_ID:
            raise ChecklistError(f"{where}unknown checklist item {iid!r}{_suggest(iid)}")
    results: list[ItemResult] = []
    blockers: list[dict[str, str]] = []
    conditions: list[dict[str, str]] = []
    problems: list[str] = []
    for item in ITEMS:
        ev = evidence.get(item.id) or Evidence(item.id, summary="no evidence gathered")
        a = answers.get(item.id)
        problem = ""
        if a is not None:
            if a.answer not in ANSWERS:
                raise ChecklistError(f"{where}item {item.id!r}: answer {a.answer!r} is not one of yes, no, unknown")
            problem = note_problem(item, a, ev)
            if problem and strict:
                raise ChecklistError(f"{where}item {item.id!r}: {problem}")
        if a is not None and not problem:
            answer, source, note = a.answer, "person", a.note
        elif ev.proposed in ("yes", "no"):
            answer, source, note = ev.proposed, "evidence", (a.note if a else "")
        else:
            answer, source, note = "unknown", ("person" if a is not None and not problem else "none"), (a.note if a else "")
        if problem:
            problems.append(f"{item.id}: {problem}")
        # the person's answer counts and differs from what the evidence proposed (unknown over yes included)
        overrides = source == "person" and ev.proposed in ("yes", "no") and answer != ev.proposed
        if answer == "no" and item.severity == "blocker":
            status = "blocker"
            reason = note or ev.summary
            blockers.append({"id": item.id, "question": item.question, "answer": answer, "reason": reason,
                             "source": source})
        elif answer == "yes":
            status = "ok"
        else:
            status = "condition"
            conditions.append({
                "id": item.id,
                "question": item.question,
                "severity": item.severity,
                "answer": answer,
                "condition": ev.condition or item.condition,
                "evidence": ev.summary,
                "note": note,
            })
        results.append(ItemResult(item, answer, source, a.answer if a else None, note, ev, status, overrides, problem))
    if blockers:
        verdict = "NO_GO"
    elif conditions:
        verdict = "CONDITIONAL"
    else:
        verdict = "GO"
    return Decision(verdict, tuple(results), tuple(blockers), tuple(conditions), tuple(problems))


def decide(
    answers: Mapping[str, Answer] | None = None,
    *,
    compare: Mapping[str, Any] | None = None,
    cost: Mapping[str, Any] | None = None,
    fits: Iterable[Mapping[str, Any]] | None = None,
    strict: bool = True,
) -> Decision:
    """Convenience: :func:`gather_evidence` then :func:`evaluate`."""
    return evaluate(answers, gather_evidence(compare=compare, cost=cost, fits=fits), strict=strict)
