"""The rendered report: notebook parameters, the report's stages, and ``costmodel report``.

One module per job:

* :mod:`.params`: :class:`ReportParams`, the one parameter model, its :data:`PARAMETERS` view and
  :func:`validate_parameters`; :mod:`.param_views` generates the CLI flags and the notebook's ``parameters`` cell.
* :mod:`.pipeline`: ``run(params) -> DecisionRecord`` and ``run_stages(params) -> ReportRun``, in process.
* :mod:`.stages`: :func:`load_inputs`, :func:`fit_runs`, :func:`compare_runs`, :func:`cost_stage`,
  :func:`checklist_stage`, :func:`decision_record`, :func:`write_outputs`: what the notebook calls,
  one per section, calling the package's functions exactly as the CLI verbs do.
* :mod:`.display`: escaped HTML tables (columns aligned, wrapped and formatted by kind) and text
  for the notebook's sections.
* :mod:`.walkthrough`: the checklist notebook's parameters (:func:`validate_checklist_parameters`),
  :func:`evidence_sources` and :func:`batch_decision` (the wizard itself is
  :func:`costmodel.interactive.checklist_wizard`).
* :mod:`.render`: :func:`render_report` / :func:`render_params` behind ``costmodel report`` (the pipeline, the
  page without a kernel from :mod:`.page`, or papermill in a kernel from :mod:`.kernel_run`, then the export and
  the folder swap); :mod:`.html_export` (the offline HTML page), :mod:`.output_folder` (refusing,
  claiming and swapping the output folder), :mod:`.kernels` (stopping the kernels of an interrupted run).

The notebooks use ``from costmodel import report`` and the names re-exported here: the public API, one
import per line. Constants and helpers the notebooks do not call stay in their modules
(``report.params.DEFAULT_TITLE``, ``report.stages.DECISION_SCHEMA``, ...).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from .pipeline import ReportRun as ReportRun
    from .pipeline import run_stages as run_stages
    from .placement import placement_html as placement_html
    from .placement import placement_section as placement_section
    from .render import ReportResult as ReportResult
    from .render import render_params as render_params
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
    from .stages import placement_stage as placement_stage
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

#: the face's names and the modules that hold them, imported on first use (``costmodel --help`` and a check of a
#: parameter import no pandas); ``from costmodel import report; report.fit_table(...)`` works as before
_FACE: dict[str, str] = {
    "break_even_table": "display",
    "checklist_table": "display",
    "compare_table": "display",
    "cost_table": "display",
    "fit_table": "display",
    "fmt_pct": "display",
    "fmt_s": "display",
    "fmt_sig": "display",
    "fmt_usd": "display",
    "fmt_value": "display",
    "html_table": "display",
    "html_text": "display",
    "monte_carlo_table": "display",
    "prices_table": "display",
    "show": "display",
    "verdict_html": "display",
    "with_kinds": "display",
    "decision_summary": "first_screen",
    "export_html": "html_export",
    "external_references": "html_export",
    "OUTPUT_FILES": "output_folder",
    "check_output_dir": "output_folder",
    "NOTEBOOK_NAMES": "params",
    "PARAMETERS": "params",
    "ReportParams": "params",
    "validate_parameters": "params",
    "ReportRun": "pipeline",
    "run_stages": "pipeline",
    "placement_html": "placement",
    "placement_section": "placement",
    "ReportResult": "render",
    "render_params": "render",
    "render_report": "render",
    "CostStage": "stages",
    "InputFile": "stages",
    "Inputs": "stages",
    "break_even_point": "stages",
    "checklist_stage": "stages",
    "compare_runs": "stages",
    "cost_stage": "stages",
    "decision_record": "stages",
    "fit_runs": "stages",
    "load_inputs": "stages",
    "placement_stage": "stages",
    "render_adr_text": "stages",
    "report_title": "stages",
    "write_outputs": "stages",
    "CHECKLIST_NOTEBOOK_NAMES": "walkthrough",
    "CHECKLIST_PARAMETERS": "walkthrough",
    "ChecklistParams": "walkthrough",
    "EvidenceSources": "walkthrough",
    "batch_decision": "walkthrough",
    "evidence_sources": "walkthrough",
    "validate_checklist_parameters": "walkthrough",
}


def __getattr__(name: str) -> Any:
    if name in _FACE:
        import importlib

        value = getattr(importlib.import_module(f".{_FACE[name]}", __name__), name)
        globals()[name] = value
        return value
    import importlib.util

    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f".{name}", __name__)  # a module of the room, as when the face imported it
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FACE))
