"""The checklist notebook's walk-through: the wizard loaded from the notebook's answers file (the
notebook's parameters and evidence are pure logic in :mod:`costmodel.report.walkthrough`)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..report.walkthrough import ChecklistParams
from .wizard import ChecklistWizard


def checklist_wizard(params: ChecklistParams, evidence: Mapping[str, Any]) -> ChecklistWizard:
    """The widget walk-through, loaded from the answers file and saving to ``save_to`` (default: a new
    ``answers.yaml``, or ``answers-N.yaml``, in the working folder; never the loaded file, which may be
    the installed package's example). An existing file is only replaced after **Overwrite**."""
    return ChecklistWizard(evidence, answers_path=params.answers, save_to=params.save_to or None)
