"""Altair charts for the report: plain data in (Runs, fit/compare/cost/decision dicts), chart out.

Every chart function returns an ``altair`` chart and computes nothing but what it draws. The rendering
plumbing (theme, lazy Altair import, offline SVG, :func:`show`) is in :mod:`.render`; each chart family
has its own module: throughput curves (:mod:`.curves`), cost terms and break-even (:mod:`.costs`), the
tornado (:mod:`.sensitivity`), the Monte Carlo distribution (:mod:`.montecarlo`), the checklist table
(:mod:`.decision`) and the fleet's rank x step heatmaps (:mod:`.fleet`). Inside :func:`lite_charts` (what the
report uses) the same functions build the same Vega-Lite specs with :mod:`.vl`, plain dicts without Altair.
"""
from .costs import break_even as break_even
from .costs import cost_terms as cost_terms
from .costs import cost_terms_frame as cost_terms_frame
from .curves import curve_values as curve_values
from .curves import downsample as downsample
from .curves import metric_title as metric_title
from .curves import overlay as overlay
from .curves import run_label as run_label
from .curves import throughput as throughput
from .decision import checklist as checklist
from .decision import checklist_frame as checklist_frame
from .fleet import job_heatmaps as job_heatmaps
from .fleet import rank_heatmap as rank_heatmap
from .montecarlo import monte_carlo as monte_carlo
from .render import FONT_SIZE as FONT_SIZE
from .render import HEIGHT as HEIGHT
from .render import MAX_PANELS as MAX_PANELS
from .render import MAX_ROWS as MAX_ROWS
from .render import POINTS_PER_RUN as POINTS_PER_RUN
from .render import WIDTH as WIDTH
from .render import SVGFigure as SVGFigure
from .render import lean_imports as lean_imports
from .render import lite_charts as lite_charts
from .render import preload as preload
from .render import reusing as reusing
from .render import show as show
from .render import to_svg as to_svg
from .sensitivity import tornado as tornado
from .sensitivity import tornado_frame as tornado_frame
