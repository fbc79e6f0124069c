"""One vocabulary for "is the remote cluster as fast as the co-located one?", used by ``costmodel compare``
(JSON key ``equivalence``, the human verdict line), the checklist's ``throughput_equivalent`` evidence
(``facts.equivalence`` and its summary) and the report, so the same evidence reads the same everywhere.

``equivalent``      TOST at the margin: the 90 % CI of the remote/co-located ratio lies inside
                    (1/(1 + margin), 1 + margin).
``different``       the 95 % CI lies entirely outside that band: remote slower (``direction``
                    ``remote_slower``) or faster (``remote_faster``) by more than the margin.
``inconclusive``    neither: the data cannot tell (run longer or repeat).
``no_steady_state`` no ratio (a side never reached a steady state).

``costmodel compare``'s older ``verdict`` key is kept unchanged for scripts (its ``different`` means
"the 95 % CI excludes a ratio of 1", which may still be within the margin: ``inconclusive`` here).
"""
from __future__ import annotations

from typing import Any

from .util import finite_float

OUTCOMES = ("equivalent", "different", "inconclusive", "no_steady_state")


def band(margin: float) -> tuple[float, float]:
    """The equivalence band of the ratio for ``margin`` (fraction): ``(1/(1+m), 1+m)``, as compare's TOST."""
    return 1.0 / (1.0 + margin), 1.0 + margin



def outcome(ratio: Any, ci_low: Any, ci_high: Any, margin: Any, equivalent: Any) -> tuple[str, str | None]:
    """``(outcome, direction)`` for a comparison: ``outcome`` one of :data:`OUTCOMES`, ``direction``
    ``remote_slower`` / ``remote_faster`` for ``different``, else None. ``ci_low``/``ci_high`` are the
    95 % CI of the ratio, ``equivalent`` the TOST result (90 % CI inside the band)."""
    r, lo, hi, m = finite_float(ratio), finite_float(ci_low), finite_float(ci_high), finite_float(margin)
    if r is None:
        return "no_steady_state", None
    if equivalent is True:
        return "equivalent", None
    if m is not None:
        low, high = band(m)
        if hi is not None and hi < low:
            return "different", "remote_slower"
        if lo is not None and lo > high:
            return "different", "remote_faster"
    return "inconclusive", None


def describe(result: str, direction: str | None, margin: Any) -> str:
    """A short phrase: ``different: remote slower beyond the 2 % margin``."""
    m = finite_float(margin)
    at = f" at the {m * 100:g} % margin" if m is not None else ""
    if result == "different":
        side = "slower" if direction == "remote_slower" else "faster"
        return f"different: remote {side} beyond the{at.replace(' at the', '')}"
    if result == "inconclusive":
        return f"inconclusive{at}: neither shown equivalent nor shown different (run longer or repeat)"
    if result == "equivalent":
        return f"equivalent{at}"
    return "no steady state: no ratio"


__all__ = ["OUTCOMES", "band", "describe", "outcome"]
