"""The rendered report: notebook parameters, the report's stages, and ``costmodel report``.

One module per job:

* :mod:`.params`: :data:`PARAMETERS` and :func:`validate_parameters` (the report notebook's
  ``parameters`` cell mirrors them; the cell after papermill's injection validates).
* :mod:`.stages`: :func:`load_inputs`, :func:`fit_runs`, :func:`compare_runs`, :func:`cost_stage`,
  :func:`checklist_stage`, :func:`decision_record`, :func:`write_outputs`: what the notebook calls,
  one per section, calling the package's functions exactly as the CLI verbs do.
* :mod:`.display`: escaped HTML tables (columns aligned, wrapped and formatted by kind) and text
  for the notebook's sections.
* :mod:`.walkthrough`: the checklist notebook's parameters (:func:`validate_checklist_parameters`),
  :func:`evidence_sources` and :func:`batch_decision` (the wizard itself is
  :func:`costmodel.interactive.checklist_wizard`).
* :mod:`.render`: :func:`render_report` (papermill, in-process offline HTML export, atomic output
  folder) behind ``costmodel report``.

The notebook uses ``from costmodel import report`` and the names re-exported here.
"""
from __future__ import annotations

from .display import (
    prices_table,
    COLUMN_KINDS,
    break_even_table,
    checklist_table,
    compare_table,
    cost_table,
    fit_table,
    fmt_pct,
    fmt_s,
    fmt_sig,
    fmt_usd,
    fmt_value,
    html_table,
    html_text,
    monte_carlo_table,
    show,
    verdict_html,
    with_kinds,
)
from .params import (
    DEFAULT_TITLE,
    NOTEBOOK_NAMES,
    PACKAGE_ROOT,
    PARAMETERS,
    Param,
    ReportParams,
    resolve_path,
    validate_parameters,
)
from .render import (
    OUTPUT_FILES,
    REPORT_NOTEBOOK,
    ReportResult,
    check_output_dir,
    execute_notebook,
    export_html,
    external_references,
    html_exporter,
    render_report,
)
from .walkthrough import (
    CHECKLIST_NOTEBOOK_NAMES,
    CHECKLIST_PARAMETERS,
    ChecklistParams,
    EvidenceSources,
    batch_decision,
    evidence_sources,
    validate_checklist_parameters,
)
from .stages import (
    BREAK_EVEN_CHART_INPUTS,
    DECISION_SCHEMA,
    CostStage,
    InputFile,
    Inputs,
    answers_meta,
    break_even_point,
    checklist_stage,
    compare_runs,
    cost_stage,
    decision_record,
    fit_dicts,
    fit_runs,
    load_inputs,
    ADR_PRODUCER,
    render_adr_text,
    report_title,
    write_outputs,
)

__all__ = [
    "PARAMETERS",
    "prices_table",
    "Param",
    "ReportParams",
    "DEFAULT_TITLE",
    "NOTEBOOK_NAMES",
    "PACKAGE_ROOT",
    "validate_parameters",
    "resolve_path",
    "Inputs",
    "InputFile",
    "CostStage",
    "BREAK_EVEN_CHART_INPUTS",
    "DECISION_SCHEMA",
    "load_inputs",
    "fit_runs",
    "fit_dicts",
    "compare_runs",
    "cost_stage",
    "break_even_point",
    "checklist_stage",
    "answers_meta",
    "report_title",
    "decision_record",
    "ADR_PRODUCER",
    "render_adr_text",
    "write_outputs",
    "COLUMN_KINDS",
    "with_kinds",
    "fmt_sig",
    "fmt_usd",
    "fmt_pct",
    "fmt_s",
    "fmt_value",
    "html_table",
    "html_text",
    "show",
    "fit_table",
    "compare_table",
    "cost_table",
    "break_even_table",
    "monte_carlo_table",
    "checklist_table",
    "verdict_html",
    "OUTPUT_FILES",
    "REPORT_NOTEBOOK",
    "ReportResult",
    "check_output_dir",
    "execute_notebook",
    "export_html",
    "external_references",
    "html_exporter",
    "render_report",
    "CHECKLIST_PARAMETERS",
    "CHECKLIST_NOTEBOOK_NAMES",
    "ChecklistParams",
    "EvidenceSources",
    "validate_checklist_parameters",
    "evidence_sources",
    "batch_decision",
]
