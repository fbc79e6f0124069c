"""The report names the answers file when an answer needs a note (as `costmodel decide` does)."""
from __future__ import annotations

import shutil

import pytest

from costmodel.foundation.errors import ChecklistError
from costmodel.report import stages, validate_parameters


def test_missing_note_error_names_the_answers_file(tmp_path, examples_dir):
    answers = tmp_path / "my_answers.yaml"
    # a 'yes' on a blocker that no data supports needs a note: checked when evaluating, not when reading
    answers.write_text("answers:\n  network_ready: {answer: 'yes'}\n", encoding="utf-8")
    for name in ("colocated_steps.csv", "remote_steps.csv", "scenario.yaml"):
        shutil.copy(examples_dir / name, tmp_path / name)
    params = validate_parameters(
        colocated=[str(tmp_path / "colocated_steps.csv")],
        remote=[str(tmp_path / "remote_steps.csv")],
        scenario=str(tmp_path / "scenario.yaml"),
        answers=str(answers),
    )
    with pytest.raises(ChecklistError, match=r"my_answers.yaml"):
        stages.checklist_stage(params, compare=None, cost=None, fits=[])
