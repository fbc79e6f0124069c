"""How a candidate curve fit is published: a degenerate fit's shape parameters null, its plateau to fewer digits
(moved out of :mod:`costmodel.warmup.curve`, which fits them)."""
from __future__ import annotations

from typing import Any

from ..foundation.published import DEGENERATE_DIGITS, round_sig


def published_plateau(f: Any) -> float:
    """The plateau as published: to :data:`DEGENERATE_DIGITS` digits when a shape parameter is unidentified."""
    return round_sig(float(f.plateau), DEGENERATE_DIGITS) if f.unidentified else f.plateau


def published_params(f: Any) -> dict[str, Any]:
    """``f.params()`` as published: every shape parameter null when one is unidentified (the fit is degenerate:
    where its polish stopped on the flat optimum moves the others too, by up to the optimizer's tolerance),
    as they are otherwise. Keys are kept (``space`` too)."""
    params = f.params()
    if not f.unidentified:
        return params
    return {k: (None if isinstance(v, float) else v) for k, v in params.items()}
