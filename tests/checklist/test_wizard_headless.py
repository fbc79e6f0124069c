"""The checklist widgets driven headlessly: set values, press buttons, check verdict and saved file."""
from __future__ import annotations

from pathlib import Path

import pytest

from costmodel import checklist as cl
from costmodel.checklist import ITEM_IDS, ITEMS
from costmodel.foundation.errors import ChecklistError
from costmodel.interactive import ChecklistWizard

BLOCKERS = [i.id for i in ITEMS if i.severity == "blocker"]


def _cost_favouring_cross_region() -> dict:
    return {
        "horizon_months": 12,
        "options": {"cross_region": {"total_usd": 100.0}, "replicate": {"total_usd": 200.0},
                    "wait": {"total_usd": 300.0}},
    }


def answer(wiz: ChecklistWizard, item_id: str, value: str, note: str = "") -> None:
    """What a person does on the page: go there, press an answer button, type a note."""
    wiz.go(ITEM_IDS.index(item_id))
    assert wiz.stack.selected_index == ITEM_IDS.index(item_id)
    wiz.answer_buttons[item_id].value = value
    wiz.notes[item_id].value = note


def test_navigation_and_progress():
    wiz = ChecklistWizard(cl.gather_evidence())
    assert wiz.stack.selected_index == 0 and wiz.back_button.disabled
    assert f"item 1 of {len(ITEMS)}" in wiz.progress_label.value
    wiz.next_button.click()
    wiz.next_button.click()
    assert wiz.stack.selected_index == 2 and wiz.progress.value == 3
    wiz.back_button.click()
    assert wiz.stack.selected_index == 1
    for _ in range(30):
        wiz.next_button.click()
    assert wiz.stack.selected_index == len(ITEMS)  # the summary page, no further
    assert wiz.next_button.disabled and "summary" in wiz.progress_label.value
    assert "<table" in wiz.summary_html.value


def test_live_verdict_and_saved_file(tmp_path):
    ev = cl.gather_evidence(cost=_cost_favouring_cross_region())
    wiz = ChecklistWizard(ev, answers_path=tmp_path / "answers.yaml")
    assert "CONDITIONAL" in wiz.verdict_html.value
    # cost evidence proposes yes for cost_favourable: the page says it counts
    assert "from the evidence" in wiz.problem_html["cost_favourable"].value
    for iid in ITEM_IDS:
        if iid != "cost_favourable":
            answer(wiz, iid, "yes", f"checked {iid}")
    assert "GO" in wiz.verdict_html.value and "NO_GO" not in wiz.verdict_html.value
    assert wiz.decision().verdict == "GO"
    answer(wiz, "governance_allows", "no", "residency rule R-7 forbids it")
    assert "NO_GO" in wiz.verdict_html.value and "governance_allows" in wiz.verdict_html.value
    wiz.save_button.click()
    saved = tmp_path / "answers.yaml"
    assert f"saved {len(ITEMS) - 1} answers" in wiz.status_html.value
    loaded = cl.load_answers(saved)
    assert loaded["governance_allows"].answer == "no"
    assert loaded["governance_allows"].note == "residency rule R-7 forbids it"
    assert "cost_favourable" not in loaded
    # batch mode on the saved file reaches the same verdict
    assert cl.evaluate(loaded, ev).verdict == "NO_GO"


def test_missing_note_blocks_save_and_is_shown(tmp_path):
    wiz = ChecklistWizard(cl.gather_evidence(), answers_path=tmp_path / "a.yaml")
    answer(wiz, "network_ready", "no", "")
    assert "needs a note" in wiz.problem_html["network_ready"].value
    assert wiz.decision().problems
    # an unnoted no on a blocker is not taken: the verdict is not NO_GO yet
    assert wiz.decision().verdict == "CONDITIONAL"
    wiz.save_button.click()
    assert not (tmp_path / "a.yaml").exists()
    assert "not saved" in wiz.status_html.value and "network_ready" in wiz.status_html.value
    wiz.notes["network_ready"].value = "single route, no failover (NET-3)"
    assert wiz.decision().verdict == "NO_GO"
    wiz.save_button.click()
    assert cl.load_answers(tmp_path / "a.yaml")["network_ready"].answer == "no"


def test_unwritable_path_is_reported(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    wiz = ChecklistWizard(cl.gather_evidence(), answers_path=blocker / "sub" / "a.yaml")
    answer(wiz, "repetitions", "no")
    wiz.save_button.click()
    assert "cannot write the answers file" in wiz.status_html.value


def test_load_answers_file_on_start_and_button(tmp_path, examples_dir):
    wiz = ChecklistWizard(cl.gather_evidence(), answers_path=examples_dir / "answers.yaml")
    assert wiz.answer_buttons["states_covered"].value == "no"
    assert wiz.answer_buttons["governance_allows"].value == "unknown"
    assert wiz.answer_buttons["cost_favourable"].value == ""  # left to the evidence
    assert "loaded 8 answers" in wiz.status_html.value
    assert wiz.decision().verdict == "CONDITIONAL"
    other = tmp_path / "o.yaml"
    other.write_text("answers:\n  repetitions: {answer: yes, note: three runs each}\n")
    wiz.path_text.value = str(other)
    wiz.load_button.click()
    assert wiz.answer_buttons["repetitions"].value == "yes"
    assert wiz.answer_buttons["states_covered"].value == ""
    bad = tmp_path / "bad.yaml"
    bad.write_text("answers:\n  netwrk_ready: yes\n")
    wiz.path_text.value = str(bad)
    wiz.load_button.click()
    assert "network_ready" in wiz.status_html.value  # the suggestion
    assert wiz.answer_buttons["repetitions"].value == "yes"  # pages untouched by the failed load


def test_preset_answers_and_escaping():
    ev = {"network_ready": cl.Evidence("network_ready", summary="<script>alert(1)</script>")}
    answers = {"governance_allows": cl.Answer("governance_allows", "no", "<b>x</b>")}
    wiz = ChecklistWizard(ev, answers=answers)
    assert wiz.answer_buttons["governance_allows"].value == "no"
    page = wiz.stack.children[ITEM_IDS.index("network_ready")]
    html_text = " ".join(getattr(c, "value", "") for c in page.children if isinstance(getattr(c, "value", None), str))
    assert "<script>" not in html_text and "&lt;script&gt;" in html_text
    wiz.go(len(ITEMS))
    assert "<b>x</b>" not in wiz.summary_html.value and "&lt;b&gt;x&lt;/b&gt;" in wiz.summary_html.value


@pytest.mark.parametrize("clicks", [0, 5])
def test_widget_is_a_box(clicks):
    import ipywidgets

    wiz = ChecklistWizard()
    for _ in range(clicks):
        wiz.next_button.click()
    assert isinstance(wiz.widget, ipywidgets.VBox)
    assert isinstance(wiz.stack, ipywidgets.Stack) and len(wiz.stack.children) == len(ITEMS) + 1


def test_answers_field_defaults_to_a_new_file_in_the_working_folder(tmp_path, examples_dir, monkeypatch):
    """Loading the bundled example must not make Save write into the installed package."""
    monkeypatch.chdir(tmp_path)
    example = examples_dir / "answers.yaml"
    before = example.read_bytes()
    wiz = ChecklistWizard(cl.gather_evidence(), answers_path=example)
    assert "loaded 8 answers" in wiz.status_html.value
    assert Path(wiz.path_text.value) == tmp_path / "answers.yaml"
    wiz.save_button.click()
    assert (tmp_path / "answers.yaml").is_file() and example.read_bytes() == before
    (tmp_path / "answers-2.yaml").write_text("x")
    assert Path(ChecklistWizard(cl.gather_evidence(), answers_path=example).path_text.value) == tmp_path / "answers-3.yaml"


def test_save_never_overwrites_without_asking(tmp_path):
    target = tmp_path / "mine.yaml"
    target.write_text("answers: {}\n")
    wiz = ChecklistWizard(cl.gather_evidence(), save_to=target)
    answer(wiz, "repetitions", "no")
    wiz.save_button.click()
    assert target.read_text() == "answers: {}\n"  # asked, not written
    assert "exists" in wiz.status_html.value and wiz.overwrite_button.layout.display == ""
    wiz.cancel_button.click()
    assert target.read_text() == "answers: {}\n" and wiz.overwrite_button.layout.display == "none"
    wiz.save_button.click()
    wiz.overwrite_button.click()
    assert cl.load_answers(target)["repetitions"].answer == "no"
    with pytest.raises(ChecklistError, match="exists"):
        wiz.save(target)
    # the package's own folder is named in the question
    from costmodel.foundation.resources import EXAMPLES_DIR

    wiz.path_text.value = str(EXAMPLES_DIR / "answers.yaml")
    wiz.save_button.click()
    assert "installed costmodel package" in wiz.status_html.value
    wiz.cancel_button.click()
