"""The checklist answers file as a contract: ``answers:`` (item id -> yes/no/unknown with a note; one field
per catalogue item, :func:`answers_model`, read by :func:`costmodel.checklist.parse_answers`) and the
optional ``meta:`` section (the
ADR's title and people), read once per command and once per report.

``meta`` keys: ``title`` (text), ``decision-makers``, ``consulted``, ``informed`` (a name or a list
of names; ``decision_makers`` is accepted too). Other ``meta`` keys are kept as they are (notes for
people). A bad people list is a ChecklistError naming the file and key, in ``decide`` and in the
report alike.
"""
from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationError,
    WithJsonSchema,
    create_model,
    field_validator,
)
from pydantic_core import PydanticCustomError

from ..contracts.errors import raise_validation_error
from ..foundation.errors import ChecklistError

__all__ = ["AnswersDocument", "AnswersFileModel", "AnswersMeta", "answers_model", "validate_answers", "validate_meta"]


class AnswersMeta(BaseModel):
    """The ``meta:`` section of an answers file."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    title: str | None = Field(None, description="report and ADR title")
    decision_makers: list[str] = Field(default_factory=list, alias="decision-makers",
                                       description="who decides (a name or a list of names)")
    consulted: list[str] = Field(default_factory=list, description="who was consulted")
    informed: list[str] = Field(default_factory=list, description="who is informed")

    @field_validator("title", mode="before")
    @classmethod
    def _title_text(cls, v: Any) -> Any:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return str(v)
        return v

    @field_validator("decision_makers", "consulted", "informed", mode="before")
    @classmethod
    def _names(cls, v: Any) -> Any:
        if v is None:
            return []
        if isinstance(v, str):
            return [v]
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            return v
        raise ValueError(f"got {v!r}; expected a name or a list of names")

    def people(self) -> dict[str, list[str]]:
        """``decision_makers``, ``consulted``, ``informed`` as :func:`costmodel.checklist.adr.render_adr` takes them."""
        return {"decision_makers": list(self.decision_makers), "consulted": list(self.consulted),
                "informed": list(self.informed)}


def _fail(item_id: str, message: str) -> PydanticCustomError:
    return PydanticCustomError("answer_value", "{message}", {"message": message, "item": item_id})


def _answer_word(value: Any, item_id: str) -> str:
    """yes / no / unknown from what was written (a bool from another YAML reader: True is yes)."""
    from .items import ANSWERS

    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "unknown"
    if isinstance(value, str) and value.strip().lower() in ANSWERS:
        return value.strip().lower()
    raise _fail(item_id, f"answer {value!r} is not one of yes, no, unknown")


def _entry_check(item_id: str, blocker: bool) -> Any:
    """The validator of one item's entry: ``{answer, note}``, a bare word, or empty (no answer: None)."""
    from .items import Answer

    def check(entry: Any) -> Any:
        if entry is None:
            return None  # `item_id:` with nothing after it: the evidence's proposal counts
        note: Any = ""
        if isinstance(entry, Mapping):
            unknown_keys = set(map(str, entry)) - {"answer", "note"}
            if unknown_keys:
                raise _fail(item_id, f"unexpected key(s) {sorted(unknown_keys)}: expected 'answer' and 'note'")
            if "answer" not in entry:
                raise _fail(item_id, "missing 'answer' (yes, no or unknown)")
            raw = entry["answer"]
            if raw is None or (isinstance(raw, str) and not raw.strip()):  # the template's empty answer
                if isinstance(entry.get("note"), str) and entry["note"].strip():
                    raise _fail(item_id, "a note without an answer; write answer: yes, no or unknown (an empty "
                                         "answer takes the evidence's proposal and has no note)")
                return None
            answer, note = _answer_word(raw, item_id), entry.get("note", "")
        else:
            answer = _answer_word(entry, item_id)
        if note is None:
            note = ""
        if not isinstance(note, str):
            shown = f" {note!r}" if isinstance(note, (int, float, bool)) else ""
            raise _fail(item_id, f"note must be text, got a {type(note).__name__}{shown} (quote it: note: \"{note}\")"
                        if shown else f"note must be text, got {type(note).__name__}")
        if answer == "no" and blocker and not note.strip():
            raise _fail(item_id, "a 'no' on a blocker needs a note saying why (it decides a NO_GO)")
        return Answer(item_id, answer, note.strip())
    return check


#: yes / no / unknown (any case); true / false as YAML 1.1 readers give bare yes / no
_WORD_PATTERN = r"^\s*([Yy][Ee][Ss]|[Nn][Oo]|[Uu][Nn][Kk][Nn][Oo][Ww][Nn])\s*$"  # ECMA-262 has no (?i)
_WORD: dict[str, Any] = {"anyOf": [{"type": "string", "pattern": _WORD_PATTERN}, {"type": "boolean"}]}
_ENTRY_SCHEMA: dict[str, Any] = {"anyOf": [
    _WORD,
    {"type": "object", "additionalProperties": False, "required": ["answer"],
     "properties": {"answer": {"anyOf": [_WORD, {"type": "string", "pattern": "^\\s*$"}, {"type": "null"}]},
                    "note": {"type": ["string", "null"]}}},
    {"type": "null"}]}
@functools.cache
def answers_model() -> type[BaseModel]:
    """The ``answers:`` section as a model: one optional field per checklist item (the catalogue,
    :data:`costmodel.checklist.ITEMS`), ``extra="forbid"``; each field reads the item's entry into an
    :class:`~costmodel.checklist.Answer` (None: no answer, the evidence's proposal counts)."""
    from .items import ITEMS

    fields: dict[str, Any] = {
        item.id: (Annotated[Any, PlainValidator(_entry_check(item.id, item.severity == "blocker")),
                            WithJsonSchema(_ENTRY_SCHEMA)],
                  Field(None, description=f"[{item.severity}] {item.question}"))
        for item in ITEMS}
    return create_model("Answers", __config__=ConfigDict(extra="forbid"), **fields)


def validate_answers(mapping: Any, source: str = "answers") -> dict[str, Any]:
    """``{"answers": {item_id: ...}, "meta": {...}}`` (or the inner mapping) validated by
    :func:`answers_model`: item id -> Answer, in the file's order, empty answers left out. ChecklistError
    ``SOURCE: ...`` naming the item for the first problem in the file's order (an unknown id with the
    closest known one), with ``(N more problems after this one)`` when there are several."""
    from .items import _suggest

    where = f"{source}: "
    if mapping is None:
        return {}
    if not isinstance(mapping, Mapping):
        raise ChecklistError(f"{where}expected a mapping with an 'answers' key, got {type(mapping).__name__}")
    wrapped = "answers" in mapping or "meta" in mapping
    inner = mapping.get("answers") if wrapped else mapping
    extra_top = set(map(str, mapping)) - {"answers", "meta"} if wrapped else set()
    if extra_top:
        raise ChecklistError(
            f"{where}unexpected top-level key(s) {sorted(map(str, extra_top))}: expected 'answers' (and optional 'meta')"
        )
    if inner is None:
        return {}
    if not isinstance(inner, Mapping):
        raise ChecklistError(f"{where}'answers' must be a mapping of item id to answer, got {type(inner).__name__}")
    data = {str(k): v for k, v in inner.items()}
    try:
        checked = answers_model().model_validate(data)
    except ValidationError as exc:
        order = list(data)
        errs = sorted(exc.errors(include_url=False), key=lambda e: order.index(str(e["loc"][0])))
        first, more = errs[0], len(errs) - 1
        tail = f" ({more} more problem{'s' if more > 1 else ''} after this one)" if more else ""
        item_id = str(first["loc"][0])
        if first["type"] == "extra_forbidden":
            raise ChecklistError(f"{where}unknown checklist item {item_id!r}{_suggest(item_id)}{tail}") from None
        message = (first.get("ctx") or {}).get("message", first["msg"])
        raise ChecklistError(f"{where}item {item_id!r}: {message}{tail}") from None
    return {iid: a for iid in data if (a := getattr(checked, iid)) is not None}


class AnswersFileModel(BaseModel):
    """The whole answers file: ``answers`` (:func:`answers_model`) and ``meta`` (:class:`AnswersMeta`)."""

    model_config = ConfigDict(extra="forbid")

    answers: dict[str, Any] | None = Field(
        None, description="item id -> yes | no | unknown, or {answer: yes|no|unknown, note: text}",
        json_schema_extra=lambda s: s.update(_answers_schema()))
    meta: AnswersMeta | None = None


def _answers_schema() -> dict[str, Any]:
    schema = answers_model().model_json_schema()
    return {"anyOf": [{"type": "object", "additionalProperties": False, "properties": schema["properties"]},
                      {"type": "null"}]}


@dataclass(frozen=True)
class AnswersDocument:
    """An answers file read and validated once: the answers (item id -> Answer) and the meta section."""

    answers: dict[str, Any]
    meta: AnswersMeta = field(default_factory=lambda: AnswersMeta.model_validate({}))
    source: str = ""

    @property
    def meta_dict(self) -> dict[str, Any]:
        """``meta`` as written (by alias), for callers that want the mapping."""
        return self.meta.model_dump(by_alias=True, exclude_unset=True)


def validate_meta(meta: Any, source: str) -> AnswersMeta:
    """``meta`` (a mapping or None) as :class:`AnswersMeta`; ChecklistError ``SOURCE: meta.KEY: ...``."""
    if meta is None:
        return AnswersMeta.model_validate({})
    if not isinstance(meta, dict):
        raise ChecklistError(f"{source}: 'meta' must be a mapping")
    try:
        return AnswersMeta.model_validate({str(k): v for k, v in meta.items()})
    except ValidationError as exc:
        raise_validation_error(exc, ChecklistError, source=source, model=AnswersMeta, prefix=("meta",))
        raise  # pragma: no cover

