"""Deprecated: the checklist wizard moved to :mod:`costmodel.interactive` (``interactive.ChecklistWizard``)."""
import warnings

from .interactive.wizard import *  # noqa: F403  re-export of the wizard's public names
from .interactive.wizard import _require_widgets  # noqa: F401

warnings.warn("costmodel.widgets is deprecated: use costmodel.interactive", DeprecationWarning, stacklevel=2)
