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
* :mod:`.render`: :func:`render_report` (papermill runs the notebook, then the export and the folder swap)
  behind ``costmodel report``; :mod:`.html_export` (the offline HTML page), :mod:`.output_folder` (refusing,
  claiming and swapping the output folder), :mod:`.kernels` (stopping the kernels of an interrupted run).

The notebooks use ``from costmodel import report`` and the names re-exported here: the public API, one
import per line. Constants and helpers the notebooks do not call stay in their modules
(``report.params.DEFAULT_TITLE``, ``report.stages.DECISION_SCHEMA``, ...).
"""
from .display import break_even_table as break_even_table
from .display import checklist_table as checklist_table
from .display import compare_table as compare_table
from .display import cost_table as cost_table
from .display import fit_table as fit_table
from .display import fmt_pct as fmt_pct
from .display import fmt_s as fmt_s
from .display import fmt_sig as fmt_sig
from .display import fmt_usd as fmt_usd
from .display import fmt_value as fmt_value
from .display import html_table as html_table
from .display import html_text as html_text
from .display import monte_carlo_table as monte_carlo_table
from .display import prices_table as prices_table
from .display import show as show
from .display import verdict_html as verdict_html
from .display import with_kinds as with_kinds
from .first_screen import decision_summary as decision_summary
from .html_export import export_html as export_html
from .html_export import external_references as external_references
from .output_folder import OUTPUT_FILES as OUTPUT_FILES
from .output_folder import check_output_dir as check_output_dir
from .params import NOTEBOOK_NAMES as NOTEBOOK_NAMES
from .params import PARAMETERS as PARAMETERS
from .params import ReportParams as ReportParams
from .params import validate_parameters as validate_parameters
from .render import ReportResult as ReportResult
from .render import render_report as render_report
from .stages import CostStage as CostStage
from .stages import InputFile as InputFile
from .stages import Inputs as Inputs
from .stages import break_even_point as break_even_point
from .stages import checklist_stage as checklist_stage
from .stages import compare_runs as compare_runs
from .stages import cost_stage as cost_stage
from .stages import decision_record as decision_record
from .stages import fit_runs as fit_runs
from .stages import load_inputs as load_inputs
from .stages import render_adr_text as render_adr_text
from .stages import report_title as report_title
from .stages import write_outputs as write_outputs
from .walkthrough import CHECKLIST_NOTEBOOK_NAMES as CHECKLIST_NOTEBOOK_NAMES
from .walkthrough import CHECKLIST_PARAMETERS as CHECKLIST_PARAMETERS
from .walkthrough import ChecklistParams as ChecklistParams
from .walkthrough import EvidenceSources as EvidenceSources
from .walkthrough import batch_decision as batch_decision
from .walkthrough import evidence_sources as evidence_sources
from .walkthrough import validate_checklist_parameters as validate_checklist_parameters
