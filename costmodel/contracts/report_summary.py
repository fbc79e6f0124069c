"""``costmodel report --json`` as a model (:class:`ReportSummary`; also named by :mod:`.results`): what
``report.render_report`` returns, its JSON generated from the model. A module of its own so that the report's process
imports only this model, not every result's."""
from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from .base import Result


class ReportSummary(Result):
    """``costmodel report --json``: where the report went and its verdict."""

    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = ("out_dir", "files", "verdict", "title")
    out_dir: str
    files: dict[str, str] = Field(default_factory=dict)
    verdict: str | None = None
    title: str = ""
