"""vl-convert's own text measure on this machine: its sans-serif is whatever font the machine has (a system Arial or
Liberation Sans before the one it bundles), so texts in its drawings are laid out with this machine's widths. The
tables of :mod:`costmodel.charts.svg.font_widths` were measured with Debian's Liberation Sans 1.07."""
from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from costmodel.charts.svg import font_widths

TOOL = Path(__file__).resolve().parents[2] / "tools" / "font_widths.py"


@cache
def tool() -> ModuleType:
    """``tools/font_widths.py`` as a module (it measures through vl-convert, which must be installed)."""
    spec = importlib.util.spec_from_file_location("_font_widths_tool", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@cache
def measured_fingerprint() -> dict[str, float]:
    """The widths vl-convert measures here for the tables' fingerprint strings (2048 px)."""
    module = tool()
    return dict(module.measure(font_widths.FINGERPRINT_2048PX, module.PROBE_PX, False))


def same_fonts() -> bool:
    """Whether vl-convert measures text here as the tables do."""
    return measured_fingerprint() == font_widths.FINGERPRINT_2048PX
