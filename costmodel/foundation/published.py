"""The precision of published figures: what the JSON of every verb, ``decision.json`` and the report's charts
promise (docs/contracts.md, "Published precision").

Floating-point results carry noise in their last bits: another CPU (other SIMD paths of ``exp`` and ``log``,
another BLAS kernel, another summation order) computes the same statistic with a different 16th-17th
significant digit. Rounding every float to :data:`SIGNIFICANT_DIGITS` significant digits at the edge, where a
result becomes JSON, makes the published bytes the same on every machine (a figure moves only when its
noise crosses a rounding boundary: about one figure in 10^8 for last-bit noise) and loses nothing the
measurements carry (a throughput, a time or a price is known to 3-4 digits at best). USD figures keep at least
their cents (``usd`` in the key: 12,345.678 USD is published as 12345.68, not 12345.7).

Integers, strings and booleans are published as they are. The computation itself never sees rounded
figures: only :func:`published` (called by :func:`costmodel.foundation.util.dumps`) rounds.
"""
from __future__ import annotations

import math
from typing import Any

#: Significant digits of every published float (6: far beyond what a measurement carries, far above the
#: last-bit noise of 1e-16 relative and the 1e-8 relative of an optimum's position).
SIGNIFICANT_DIGITS = 6
#: Significant digits of the figures of a candidate curve that has an unidentifiable parameter (its plateau,
#: its own 1 % crossing): they are only known to the optimizer's tolerance there (the flat direction lets the
#: polish stop anywhere along it), so fewer digits are published (:meth:`costmodel.warmup.curve.Selection.table`).
DEGENERATE_DIGITS = 4
#: USD figures are published to at least this many decimals (cents).
USD_DECIMALS = 2


def round_sig(x: float, digits: int = SIGNIFICANT_DIGITS) -> float:
    """``x`` rounded to ``digits`` significant digits (correctly rounded from its binary value, as ``%g``
    writes it); 0.0 for a zero of either sign; NaN and infinities unchanged."""
    if not math.isfinite(x):
        return x
    if x == 0.0:
        return 0.0
    return float(f"{x:.{digits - 1}e}") + 0.0  # + 0.0: no negative zero


def round_usd(x: float, digits: int = SIGNIFICANT_DIGITS) -> float:
    """``x`` (USD) rounded to ``digits`` significant digits, but never coarser than a cent."""
    if not math.isfinite(x) or x == 0.0:
        return round_sig(x, digits)
    exponent = math.floor(math.log10(abs(x)))
    decimals = max(digits - 1 - exponent, USD_DECIMALS)
    return float(f"{x:.{decimals}f}") + 0.0


def is_usd_key(key: str | None) -> bool:
    """True when a JSON key names a USD figure (``total_usd``, ``usd_per_hour``, ``cost_p95_usd``)."""
    return key is not None and "usd" in key.lower()


_PLAIN = (int, str, bool, type(None))


def _published_dict(rec: dict[Any, Any], key: str | None, digits: int) -> dict[Any, Any]:
    """A dict under ``key`` as :func:`published` writes it, its floats and plain values in one loop (a chart's
    dataset is thousands of such rows): a key's USD-ness is its own or its parent's."""
    usd_parent = is_usd_key(key)
    out = {}
    for k, v in rec.items():
        t = type(v)
        if t is float:
            out[k] = round_usd(v, digits) if usd_parent or is_usd_key(str(k)) else round_sig(v, digits)
        elif t in _PLAIN:
            out[k] = v
        else:
            out[k] = published(v, k if is_usd_key(str(k)) or not usd_parent else key, digits)
    return out


def published(obj: Any, key: str | None = None, digits: int = SIGNIFICANT_DIGITS) -> Any:
    """``obj`` (JSON types: dicts, lists, floats, ...) with every float rounded as published: ``digits``
    significant digits, USD figures (their key contains ``usd``, inherited by the lists and objects under it)
    also to the cent. Returns new containers; ints, bools, strings and None unchanged."""
    if isinstance(obj, bool) or obj is None or isinstance(obj, (int, str)):
        return obj
    if isinstance(obj, float):
        return round_usd(obj, digits) if is_usd_key(key) else round_sig(obj, digits)
    if isinstance(obj, dict):
        return _published_dict(obj, key, digits)
    if isinstance(obj, (list, tuple)):
        return [published(v, key, digits) for v in obj]
    return obj


__all__ = ["DEGENERATE_DIGITS", "SIGNIFICANT_DIGITS", "USD_DECIMALS", "is_usd_key", "published", "round_sig",
           "round_usd"]
