"""Interactive shells for JupyterLab (ipywidgets), one floor above the pure logic.

Each shell only wires widgets to pure functions and holds no logic of its own; nothing outside this
package imports from it (the checklist, simulate and report packages stay free of widgets):

* :mod:`.wizard`: :class:`ChecklistWizard`, the go/no-go checklist one page per item over
  :mod:`costmodel.checklist`;
* :mod:`.walkthrough`: :func:`checklist_wizard`, the wizard as the checklist notebook opens it;
* :mod:`.whatif`: :func:`whatif_sliders`, the what-if sliders over :mod:`costmodel.simulate.whatif`;
* :mod:`.placement`: :func:`placement_editor`, the placement's candidates edited over :mod:`costmodel.place.edit`.
* :mod:`.trial`: :func:`watch_view`, the watched trial (costmodel watch) as a chart redrawn from the file.

ipywidgets (extra ``lab``) is imported only when a widget is built.
"""
from .placement import placement_editor as placement_editor
from .trial import trial_figure as trial_figure
from .trial import watch_view as watch_view
from .walkthrough import checklist_wizard as checklist_wizard
from .whatif import whatif_sliders as whatif_sliders
from .wizard import NOT_ANSWERED as NOT_ANSWERED
from .wizard import ChecklistWizard as ChecklistWizard
from .wizard import default_save_path as default_save_path
from .wizard import evidence_html as evidence_html
