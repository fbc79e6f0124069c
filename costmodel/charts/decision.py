"""Checklist chart: the decision's items as a table chart, the status as a coloured cell."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..foundation.errors import ReportError
from .render import FONT_SIZE, _alt, _configure

_STATUS_COLORS = {
    "pass": "#2ca02c", "ok": "#2ca02c", "yes": "#2ca02c", "met": "#2ca02c",
    "warning": "#ff9900", "condition": "#ff9900", "unknown": "#bbbbbb",
    "fail": "#d62728", "blocker": "#d62728", "no": "#d62728",
}


def checklist_frame(decision: Mapping[str, Any]) -> pd.DataFrame:
    """One row per checklist item: id, question, severity, answer, proposed, status (strings)."""
    items = decision.get("items") or []
    rows = []
    for i, it in enumerate(items):
        rows.append(
            {
                "order": i,
                "id": str(it.get("id", "")),
                "question": str(it.get("question", "")),
                "severity": str(it.get("severity", "")),
                "answer": str(it.get("answer", "")),
                "proposed": "" if it.get("proposed") is None else str(it.get("proposed")),
                "status": str(it.get("status", "")),
                "note": str(it.get("note", "") or ""),
            }
        )
    return pd.DataFrame(rows, columns=["order", "id", "question", "severity", "answer", "proposed", "status", "note"])


def checklist(decision: Mapping[str, Any]) -> Any:
    """Checklist as a chart table: one row per item, the status as a coloured cell, answer and question."""
    alt = _alt()
    df = checklist_frame(decision)
    if df.empty:
        raise ReportError("the decision has no checklist items to draw")
    df["question_short"] = [q if len(q) <= 90 else q[:87] + "..." for q in df["question"]]
    statuses = sorted(df["status"].unique())
    colors = [_STATUS_COLORS.get(s.lower(), "#9467bd") for s in statuses]
    y = alt.Y("id:N", sort=list(df["id"]), title=None)
    status = alt.Chart(df).mark_rect().encode(
        y=y, color=alt.Color("status:N", scale=alt.Scale(domain=statuses, range=colors), title="status")
    ).properties(width=24, height=22 * len(df))
    text_cols = []
    for col, width in (("answer", 60), ("proposed", 70), ("severity", 70), ("question_short", 520)):
        text_cols.append(
            alt.Chart(df)
            .mark_text(align="left", fontSize=FONT_SIZE - 1)
            .encode(y=alt.Y("id:N", sort=list(df["id"]), axis=None), x=alt.value(3), text=f"{col}:N")
            .properties(width=width, height=22 * len(df), title=col.replace("_short", ""))
        )
    verdict = decision.get("verdict", "")
    return _configure(alt.hconcat(status, *text_cols, spacing=4).properties(title=f"checklist: verdict {verdict}"))
