"""The answers file: parse and validate a person's yes / no / unknown answers (YAML or a mapping),
write them back, and the template to fill in.

A note is required (``ChecklistError`` naming the item otherwise) for a ``no`` on a blocker; the other
note rules depend on the evidence and are checked by :func:`costmodel.checklist.verdict.evaluate`.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..foundation.errors import ChecklistError
from .items import ITEM_IDS, ITEMS, Answer

if TYPE_CHECKING:  # pragma: no cover
    from .answers_model import AnswersDocument
    from .evidence import Evidence


def parse_answers(mapping: Any, source: str = "answers") -> dict[str, Answer]:
    """Validate ``{"answers": {item_id: {"answer": ..., "note": ...}}}`` (or the inner mapping) with the
    answers model (:func:`costmodel.checklist.answers_model.validate_answers`).

    An item may also be given as a bare word (``item_id: yes``). An empty answer (``answer:`` or
    ``answer: null``, as in :func:`answers_template`, or ``item_id:`` alone) is no answer: the item is left
    out and the evidence's proposal counts. Raises ChecklistError naming the
    item for an unknown id (with the closest known id), a bad answer value, a note that is not text,
    unknown keys, or a ``no`` on a blocker without a note.
    """
    from .answers_model import validate_answers

    return validate_answers(mapping, source)


def _yaml_loader() -> type:
    """A SafeLoader on which only true/false are booleans (YAML 1.2 style): yes/no/on/off stay words."""
    import re

    import yaml

    from ..foundation.safeyaml import BoundedSafeLoader

    class _WordsLoader(BoundedSafeLoader):
        def construct_mapping(self, node, deep=False):
            seen: dict[Any, int] = {}
            for key_node, _value in node.value:
                key = self.construct_object(key_node, deep=True)
                if isinstance(key, (str, int, float, bool)) and key in seen:
                    raise ChecklistError(
                        f"line {key_node.start_mark.line + 1}: {key!r} is given twice "
                        f"(first on line {seen[key]}); keep one"
                    )
                if isinstance(key, (str, int, float, bool)):
                    seen[key] = key_node.start_mark.line + 1
            return super().construct_mapping(node, deep=deep)

    resolvers = {}
    for first, entries in yaml.SafeLoader.yaml_implicit_resolvers.items():
        kept = [(tag, rx) for tag, rx in entries if tag != "tag:yaml.org,2002:bool"]
        resolvers[first] = kept
    _WordsLoader.yaml_implicit_resolvers = resolvers
    _WordsLoader.add_implicit_resolver(
        "tag:yaml.org,2002:bool",
        re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
        list("tTfF"),
    )
    return _WordsLoader


def load_yaml_words(text: str, source: str) -> Any:
    """Parse YAML text keeping bare yes/no/on/off as strings; ChecklistError on a syntax error."""
    import yaml

    from ..foundation import safeyaml

    try:
        return safeyaml.load(text, Loader=_yaml_loader())  # a bounded SafeLoader subclass
    except ChecklistError as exc:
        raise ChecklistError(f"{source}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ChecklistError(f"{source}{at}: not valid YAML: {problem}") from None


def read_answers_file(path: str | Path) -> tuple[dict[str, Answer], dict[str, Any]]:
    """Read an answers YAML file: the answers and the optional ``meta`` mapping (ADR people, title)."""
    from ..foundation import stdin
    from ..foundation.safeio import read_input_text

    if stdin.is_stdin(path):  # ``-``: named <stdin> in every message (the ADR records its SHA-256)
        p = Path(stdin.NAME)
        from ..foundation.safeyaml import MAX_BYTES

        raw = stdin.read_bytes(MAX_BYTES)
        if not raw.strip():
            raise ChecklistError(f"{p}: standard input is empty (pipe an answers YAML into it)")
        if len(raw) > MAX_BYTES:
            raise ChecklistError(f"{p}: larger than {MAX_BYTES:,} bytes; refused (expected a small YAML file)")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ChecklistError(f"{p}: cannot read answers file: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    else:
        p = Path(path)
        try:
            text = read_input_text(p)
        except FileNotFoundError:
            raise ChecklistError(f"{p}: answers file not found") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ChecklistError(f"{p}: cannot read answers file: {exc}") from None
    data = load_yaml_words(text, str(p))
    answers = parse_answers(data, source=str(p))
    meta: dict[str, Any] = {}
    if isinstance(data, Mapping) and isinstance(data.get("meta"), Mapping):
        meta = dict(data["meta"])
    elif isinstance(data, Mapping) and data.get("meta") is not None:
        raise ChecklistError(f"{p}: 'meta' must be a mapping")
    return answers, meta


def read_answers_document(path: str | os.PathLike[str]) -> AnswersDocument:
    """Read an answers YAML once: answers validated by :func:`parse_answers`, ``meta`` by
    :class:`~costmodel.checklist.answers_model.AnswersMeta`. Raises ChecklistError naming the file (and item
    or meta key)."""
    from ..foundation import stdin
    from .answers_model import AnswersDocument, validate_meta

    answers, meta = read_answers_file(os.fspath(path))
    name = stdin.NAME if stdin.is_stdin(path) else os.fspath(path)
    return AnswersDocument(answers=dict(answers), meta=validate_meta(meta, name), source=name)


def load_answers(path: str | Path) -> dict[str, Answer]:
    """Read and validate an answers YAML file (see :func:`parse_answers`)."""
    return read_answers_file(path)[0]


def answers_to_mapping(answers: Mapping[str, Answer], meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The YAML-ready mapping of ``answers`` in catalogue order (inverse of :func:`parse_answers`)."""
    out: dict[str, Any] = {}
    if meta:
        out["meta"] = dict(meta)
    out["answers"] = {
        iid: {"answer": answers[iid].answer, "note": answers[iid].note} for iid in ITEM_IDS if iid in answers
    }
    return out


def dump_answers(answers: Mapping[str, Answer], meta: Mapping[str, Any] | None = None) -> str:
    """YAML text for ``answers``; answers are quoted so any YAML reader reads them as words."""
    import yaml

    return yaml.safe_dump(answers_to_mapping(answers, meta), sort_keys=False, allow_unicode=True, width=100)


def save_answers(path: str | Path, answers: Mapping[str, Answer], meta: Mapping[str, Any] | None = None) -> Path:
    """Write ``answers`` as YAML to ``path`` atomically; returns the path."""
    from ..foundation.util import write_text_atomic

    try:
        write_text_atomic(path, dump_answers(answers, meta))
    except OSError as exc:
        raise ChecklistError(f"{path}: cannot write the answers file: {exc.strerror or exc}") from None
    return Path(path)


def answers_template(evidence: Mapping[str, Evidence] | None = None) -> str:
    """An answers YAML to fill in: every item with its question, severity and (given evidence) what the
    data proposes, as comments; every answer empty (null: the evidence's proposal counts until a person
    writes yes, no or unknown). It loads as is (see :func:`parse_answers`)."""
    import json

    lines = [
        "# Go/no-go answers: yes / no / unknown, each with a note saying why (and linking the evidence).",
        "# An empty answer (as written here) lets the evidence's proposal count; `unknown` replaces it.",
        "# A note is required for `no` on a blocker, for an answer against the evidence, and for `yes` on",
        "# a blocker the data does not support.",
        "meta:",
        '  title: "Cross-region training with a cache, replication or waiting"',
        "  decision-makers: []",
        "  consulted: []",
        "  informed: []",
        "answers:",
    ]
    for item in ITEMS:
        lines.append(f"  # [{item.severity}] {item.question}")
        ev = (evidence or {}).get(item.id)
        if ev is not None and ev.proposed in ("yes", "no"):
            lines.append(f"  # evidence proposes {ev.proposed}: {' '.join(ev.summary.split())}")
        elif not item.automatic:
            lines.append("  # no automatic evidence: a question for people")
        lines.append(f'  {item.id}: {{answer: null, note: {json.dumps("")}}}')
    return "\n".join(lines) + "\n"
