"""The checklist wizard for JupyterLab: a thin ipywidgets shell over :mod:`costmodel.checklist`.

One page per item in an ``ipywidgets.Stack`` (back / next, progress), the item's evidence, answer
buttons, a note field, a live verdict, and answers loaded from and saved to YAML. All logic lives in
``checklist``; this module only wires widgets to it, so it can be driven headlessly (set widget
values, ``Button.click()``) exactly like a person would::

    from costmodel import checklist, interactive
    ev = checklist.gather_evidence(compare=compare, cost=cost)
    wizard = interactive.ChecklistWizard(ev, answers_path="answers.yaml")
    wizard.widget            # display in a notebook
"""
from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import checklist
from ..checklist import Answer, Decision, Evidence
from ..foundation.errors import ChecklistError, CostmodelError

NOT_ANSWERED = ""
_ANSWER_OPTIONS = [("not answered", NOT_ANSWERED), ("yes", "yes"), ("no", "no"), ("unknown", "unknown")]
_VERDICT_COLOURS = {"GO": "#1a7f37", "CONDITIONAL": "#9a6700", "NO_GO": "#cf222e"}


def _require_widgets() -> Any:
    from ..foundation.util import require

    # batch mode needs no widgets: checklist.load_answers + checklist.evaluate, or `costmodel decide`
    return require("ipywidgets", "lab", "the checklist widgets")


def _e(text: Any) -> str:
    return html.escape("" if text is None else str(text))


def evidence_html(item: checklist.Item, ev: Evidence) -> str:
    """The HTML shown for one item's evidence (every input string escaped)."""
    proposed = {"yes": "proposes <b>yes</b>", "no": "proposes <b>no</b>"}.get(ev.proposed, "proposes nothing")
    src = f" (from {_e(', '.join(ev.sources))})" if ev.sources else ""
    facts = [f"{_e(k)} = {_e(_fmt_fact(v))}" for k, v in ev.facts.items() if v is not None and not isinstance(v, dict)]
    facts_html = f"<br><small>{'; '.join(facts)}</small>" if facts else ""
    return (
        f"<div><b>Evidence</b>{src}: {_e(ev.summary)}{facts_html}<br>"
        f"The data {proposed}; your answer overrides it (with a note when you disagree).</div>"
    )


def default_save_path(folder: str | Path | None = None) -> Path:
    """A new answers file in ``folder`` (default: the current working folder): ``answers.yaml``, else
    the first free ``answers-N.yaml``. Never a file that exists, never the installed example."""
    base = Path(folder) if folder is not None else Path.cwd()
    cand = base / "answers.yaml"
    n = 2
    while cand.exists():
        cand = base / f"answers-{n}.yaml"
        n += 1
    return cand


def _inside_package(path: Path) -> bool:
    from ..foundation.resources import PACKAGE_DIR

    try:
        path.resolve().relative_to(PACKAGE_DIR.resolve())
        return True
    except ValueError:
        return False


def _fmt_fact(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"
    return str(v)


class ChecklistWizard:
    """One page per checklist item, a final summary page, a live verdict and YAML load/save.

    ``evidence`` comes from :func:`checklist.gather_evidence` (None: no data, every proposal unknown).
    ``answers`` pre-fills the pages; else ``answers_path`` is loaded when the file exists. Widgets
    worth driving from code: ``answer_buttons[item_id]``, ``notes[item_id]``, ``back_button``,
    ``next_button``, ``save_button``, ``load_button``, ``path_text``; read ``decision()``,
    ``verdict_html.value`` and ``status_html.value``.
    """

    def __init__(
        self,
        evidence: Mapping[str, Evidence] | None = None,
        answers: Mapping[str, Answer] | None = None,
        answers_path: str | Path | None = None,
        save_to: str | Path | None = None,
    ) -> None:
        w = _require_widgets()
        self.evidence: dict[str, Evidence] = dict(evidence or checklist.gather_evidence())
        self.items = checklist.ITEMS
        self.answer_buttons: dict[str, Any] = {}
        self.notes: dict[str, Any] = {}
        self.problem_html: dict[str, Any] = {}
        self._meta: dict[str, Any] = {}
        pages = []
        for n, item in enumerate(self.items, start=1):
            ev = self.evidence.get(item.id) or checklist.Evidence(item.id)
            buttons = w.ToggleButtons(options=_ANSWER_OPTIONS, value=NOT_ANSWERED, description="Answer")
            note = w.Textarea(value="", placeholder="why, with a link to the evidence", description="Note",
                              continuous_update=False,
                              layout=w.Layout(width="95%"))
            problem = w.HTML(value="")
            buttons.observe(self._on_change, names="value")
            note.observe(self._on_change, names="value")
            self.answer_buttons[item.id] = buttons
            self.notes[item.id] = note
            self.problem_html[item.id] = problem
            header = w.HTML(
                f"<h3>{n}. {_e(item.question)}</h3>"
                f"<p><i>{_e(item.severity)}</i>: {_e(item.why)}</p>"
            )
            pages.append(w.VBox([header, w.HTML(evidence_html(item, ev)), buttons, note, problem]))
        self.summary_html = w.HTML(value="")
        pages.append(w.VBox([w.HTML("<h3>Summary</h3>"), self.summary_html]))
        self.stack = w.Stack(children=pages, selected_index=0)
        self.back_button = w.Button(description="Back", icon="arrow-left")
        self.next_button = w.Button(description="Next", icon="arrow-right")
        self.back_button.on_click(lambda _b: self.go(self.index - 1))
        self.next_button.on_click(lambda _b: self.go(self.index + 1))
        self.progress = w.IntProgress(value=1, min=0, max=len(pages), description="")
        self.progress_label = w.Label(value="")
        self.verdict_html = w.HTML(value="")
        if save_to is not None:
            field = Path(save_to)
        elif answers_path is not None and not Path(answers_path).exists():
            field = Path(answers_path)  # a new file named by the caller
        else:
            field = default_save_path()  # never the loaded file (it may be the installed example)
        self.path_text = w.Text(value=str(field), description="Answers file", layout=w.Layout(width="60%"))
        self.save_button = w.Button(description="Save answers", icon="save")
        self.load_button = w.Button(description="Load answers", icon="folder-open")
        self.save_button.on_click(lambda _b: self._guard(self.request_save))
        self.load_button.on_click(lambda _b: self._guard(self.load))
        self.overwrite_button = w.Button(description="Overwrite", icon="check", button_style="warning",
                                         layout=w.Layout(display="none"))
        self.cancel_button = w.Button(description="Cancel", icon="times", layout=w.Layout(display="none"))
        self.overwrite_button.on_click(lambda _b: self._guard(self._confirm_overwrite))
        self.cancel_button.on_click(lambda _b: self._cancel_overwrite())
        self._pending: Path | None = None
        self.status_html = w.HTML(value="")
        self.widget = w.VBox([
            w.HBox([self.progress, self.progress_label]),
            self.stack,
            w.HBox([self.back_button, self.next_button]),
            self.verdict_html,
            w.HBox([self.path_text, self.load_button, self.save_button]),
            self.status_html,
            w.HBox([self.overwrite_button, self.cancel_button]),
        ])
        self._loading = False
        if answers is not None:
            self.set_answers(answers)
        elif answers_path is not None and Path(answers_path).is_file():
            self._guard(lambda: self.load(answers_path))
        self.refresh()

    # ---------------------------------------------------------------- state

    @property
    def index(self) -> int:
        return int(self.stack.selected_index or 0)

    def go(self, index: int) -> None:
        """Show page ``index`` (clamped to the first and the summary page)."""
        last = len(self.stack.children) - 1
        self.stack.selected_index = max(0, min(last, index))
        self.refresh()

    def answers(self) -> dict[str, Answer]:
        """The answers given on the pages (items left 'not answered' are absent)."""
        out = {}
        for item in self.items:
            value = self.answer_buttons[item.id].value
            if value != NOT_ANSWERED:
                out[item.id] = Answer(item.id, value, self.notes[item.id].value.strip())
        return out

    def set_answers(self, answers: Mapping[str, Answer]) -> None:
        """Put ``answers`` on the pages (items not in it become 'not answered')."""
        self._loading = True
        try:
            for item in self.items:
                a = answers.get(item.id)
                self.answer_buttons[item.id].value = a.answer if a else NOT_ANSWERED
                self.notes[item.id].value = a.note if a else ""
        finally:
            self._loading = False
        self.refresh()

    def decision(self) -> Decision:
        """The decision for the current answers (lenient: answers lacking a required note are not taken)."""
        return checklist.evaluate(self.answers(), self.evidence, strict=False)

    # ---------------------------------------------------------------- files

    def save(self, path: str | Path | None = None, overwrite: bool = False) -> Path:
        """Write the answers to ``path`` (default: the file field) as YAML, atomically.

        Refuses (ChecklistError naming the items) while an answer lacks a required note, so a saved
        file always drives batch mode (`costmodel decide`) to the same verdict; refuses an existing
        file unless ``overwrite`` (the **Save answers** button asks first: :meth:`request_save`).
        """
        target = Path(path) if path is not None else Path(self.path_text.value)
        d = self.decision()
        if d.problems:
            raise ChecklistError("not saved: " + "; ".join(d.problems))
        if target.exists() and not overwrite:
            raise ChecklistError(f"not saved: {target} exists (overwrite=True replaces it)")
        checklist.save_answers(target, self.answers(), meta=self._meta or None)
        self.status_html.value = f"saved {len(self.answers())} answers to {_e(target)}"
        self._hide_confirm()
        return target

    def request_save(self) -> Path | None:
        """What **Save answers** does: save to the file field, or, when that file exists, ask first
        (shows **Overwrite** / **Cancel**; nothing is written until Overwrite is pressed)."""
        target = Path(self.path_text.value)
        d = self.decision()
        if d.problems:
            raise ChecklistError("not saved: " + "; ".join(d.problems))
        if target.exists():
            self._pending = target
            inside = _inside_package(target)
            where = " (inside the installed costmodel package)" if inside else ""
            self.status_html.value = (
                f"<span style='color:#9a6700'>{_e(target)} exists{where}: <b>Overwrite</b> replaces it, "
                "<b>Cancel</b> keeps it (or change the file name)</span>")
            self.overwrite_button.layout.display = ""
            self.cancel_button.layout.display = ""
            return None
        return self.save(target)

    def _confirm_overwrite(self) -> None:
        target = self._pending or Path(self.path_text.value)
        self._pending = None
        self.save(target, overwrite=True)

    def _cancel_overwrite(self) -> None:
        self._pending = None
        self._hide_confirm()
        self.status_html.value = "not saved: the existing file is kept"

    def _hide_confirm(self) -> None:
        self._pending = None
        self.overwrite_button.layout.display = "none"
        self.cancel_button.layout.display = "none"

    def load(self, path: str | Path | None = None) -> dict[str, Answer]:
        """Read answers from ``path`` (default: the file field) onto the pages; ChecklistError if invalid."""
        source = Path(path) if path is not None else Path(self.path_text.value)
        answers, meta = checklist.read_answers_file(source)
        self._meta = meta
        self.set_answers(answers)
        self.status_html.value = f"loaded {len(answers)} answers from {_e(source)}"
        return answers

    def _guard(self, action: Any) -> None:
        try:
            action()
        except CostmodelError as exc:
            self.status_html.value = f"<span style='color:#cf222e'>{_e(exc)}</span>"

    # ---------------------------------------------------------------- display

    def _on_change(self, _change: Any) -> None:
        if not self._loading:
            self.refresh()

    def refresh(self) -> None:
        """Recompute the verdict, progress, per-item problems and the summary page."""
        d = self.decision()
        answered = len(self.answers())
        n_pages = len(self.stack.children)
        i = self.index
        self.progress.value = i + 1
        where = f"item {i + 1} of {len(self.items)}" if i < len(self.items) else "summary"
        self.progress_label.value = f"{where} · {answered} of {len(self.items)} answered"
        self.back_button.disabled = i == 0
        self.next_button.disabled = i >= n_pages - 1
        colour = _VERDICT_COLOURS[d.verdict]
        detail = ""
        if d.blockers:
            detail = " — blockers: " + ", ".join(_e(b["id"]) for b in d.blockers)
        elif d.conditions:
            detail = f" — {len(d.conditions)} condition(s) to meet"
        self.verdict_html.value = f"<b>Verdict: <span style='color:{colour}'>{d.verdict}</span></b>{detail}"
        by_id = {r.item.id: r for r in d.items}
        for item in self.items:
            r = by_id[item.id]
            if r.problem:
                self.problem_html[item.id].value = f"<span style='color:#cf222e'>{_e(r.problem)}</span>"
            elif r.source == "evidence":
                self.problem_html[item.id].value = f"<i>counted as <b>{_e(r.answer)}</b> from the evidence</i>"
            else:
                self.problem_html[item.id].value = ""
        table = d.table()[["id", "severity", "answer", "source", "proposed", "evidence", "note", "status"]]
        self.summary_html.value = (
            f"<p>{self.verdict_html.value}</p>" + table.to_html(index=False, escape=True, border=0)
        )


__all__ = ["ChecklistWizard", "default_save_path", "evidence_html"]
