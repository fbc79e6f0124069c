"""The checklist answers file as a contract: ``answers:`` (item id -> yes/no/unknown with a note; validated
item by item by :func:`costmodel.checklist.parse_answers`) and the optional ``meta:`` section (the
ADR's title and people), read once per command and once per report.

``meta`` keys: ``title`` (text), ``decision-makers``, ``consulted``, ``informed`` (a name or a list
of names; ``decision_makers`` is accepted too). Other ``meta`` keys are kept as they are (notes for
people). A bad people list is a ChecklistError naming the file and key, in ``decide`` and in the
report alike.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import ChecklistError
from .errors import raise_validation_error

__all__ = ["AnswersDocument", "AnswersFileModel", "AnswersMeta", "read_answers_document", "validate_meta"]


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
        """``decision_makers``, ``consulted``, ``informed`` as :func:`costmodel.adr.render_adr` takes them."""
        return {"decision_makers": list(self.decision_makers), "consulted": list(self.consulted),
                "informed": list(self.informed)}


class AnswersFileModel(BaseModel):
    """The whole answers file (for the published schema; items are checked by ``parse_answers``)."""

    model_config = ConfigDict(extra="forbid")

    answers: dict[str, Any] | None = Field(
        None, description="item id -> yes | no | unknown, or {answer: yes|no|unknown, note: text}")
    meta: AnswersMeta | None = None


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


def read_answers_document(path: str | os.PathLike[str]) -> AnswersDocument:
    """Read an answers YAML once: answers validated by :func:`costmodel.checklist.parse_answers`, ``meta``
    by :class:`AnswersMeta`. Raises ChecklistError naming the file (and item or meta key)."""
    from .. import checklist

    answers, meta = checklist.read_answers_file(os.fspath(path))
    return AnswersDocument(answers=dict(answers), meta=validate_meta(meta, os.fspath(path)), source=os.fspath(path))
