"""The one number reader for input files: YAML scenarios, placements, workloads and answers, JSON and CSV
price files. What a reading layer hands on is a number that is finite, in range, exact when it is a whole number
(Python ``int``, any size: never rounded through a float), never a boolean, never given twice, and, when it is
refused, named in one line by the field as the user wrote it.

* :func:`number` checks one value (``true`` is not 1; ``1e400`` is not infinity; ``2**53 + 1`` stays exact);
* :func:`parse_decimal` reads the text of a number (``2e-2``, ``8e2``, ``36.42``; the same spelling everywhere);
* :class:`UniqueKeys` is a mapping type that refuses a key given twice (ijson's ``map_type``, a JSON
  ``object_pairs_hook``): a rate given twice is an error, never the last one silently;
* :data:`EXPONENT_FLOAT` is the YAML 1.2 spelling of a float without a dot (``2e-2``), which the YAML loader
  (:mod:`costmodel.foundation.safeyaml`) reads as a float like ``2.0e-2``.

Refusals are :class:`NumberRefused` (a ``ValueError``) whose ``str()`` is ``FIELD: got VALUE; expected ...``.
"""
from __future__ import annotations

import contextlib
import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any

#: the largest whole number a float holds exactly (2**53): beyond it a whole number must stay an ``int``
EXACT_FLOAT_INT = 2 ** 53

#: a float written with an exponent and no dot (YAML 1.2 reads it as a float, PyYAML's YAML 1.1 as text)
EXPONENT_FLOAT = re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")

_DECIMAL_TEXT = re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$")


class NumberRefused(ValueError):
    """A value that is not the number a field expects; ``str()`` is one line naming the field."""

    def __init__(self, field: str, got: Any, expected: str) -> None:
        self.field = field
        self.got = got
        self.expected = expected
        super().__init__(f"{field}: got {shown_value(got)}; expected {expected}")


class DuplicateKey(ValueError):
    """A key given twice in one object (``str()`` names it)."""

    def __init__(self, key: Any) -> None:
        self.key = key
        super().__init__(f"key {key!r} is given twice in one object; keep one")


class UniqueKeys(dict):
    """A ``dict`` that refuses to set a key it already holds (:class:`DuplicateKey`): the map type of a JSON reader,
    so ``{"rate": "36.42", "rate": "0.0001"}`` is an error instead of the last value."""

    def __setitem__(self, key: Any, value: Any) -> None:
        if key in self:
            raise DuplicateKey(key)
        super().__setitem__(key, value)


class NotedKeys(dict):
    """A ``dict`` that notes a key set twice (``duplicates``) instead of raising: the map type for C parsers that
    ignore an error raised while they build an object (ijson's yajl2_c); :func:`first_duplicate` finds the note."""

    duplicates: list[Any]

    def __setitem__(self, key: Any, value: Any) -> None:
        if key in self:
            self.__dict__.setdefault("duplicates", []).append(key)
            return  # the first value is kept, and the note makes the reader refuse the object
        super().__setitem__(key, value)


def first_duplicate(obj: Any) -> Any:
    """The first key noted twice anywhere in ``obj`` (nested :class:`NotedKeys` and lists), or None."""
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, dict):
            dups = o.__dict__.get("duplicates") if isinstance(o, NotedKeys) else None
            if dups:
                return dups[0]
            stack.extend(o.values())
        elif isinstance(o, list):
            stack.extend(o)
    return None


def unique_pairs(pairs: list[tuple[Any, Any]]) -> UniqueKeys:
    """A JSON ``object_pairs_hook``: the object, :class:`DuplicateKey` for a key given twice."""
    out = UniqueKeys()
    for k, v in pairs:
        out[k] = v
    return out


def shown_value(value: Any) -> str:
    """``value`` as the user wrote it, never ``np.float64(...)`` or a 300-digit number in full."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        with contextlib.suppress(TypeError, ValueError):
            value = value.item()  # numpy scalars: their Python value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        text = str(value)
        return text if len(text) <= 24 else f"{text[:6]}...({len(text)} digits)"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else {"inf": "inf", "-inf": "-inf"}.get(repr(value), "nan")
    if isinstance(value, Decimal):
        return str(value) if len(str(value)) <= 24 else f"{value:.6e}"
    text = str(value)
    return repr(text if len(text) <= 40 else text[:40] + "...")


def parse_decimal(text: str) -> Decimal | None:
    """The exact value of a number's text (``36.42``, ``2e-2``, ``8e2``, ``.5``: decimals with an optional exponent,
    no underscores, no ``inf``/``nan``), or None when ``text`` is not one."""
    t = str(text).strip()
    if not _DECIMAL_TEXT.match(t):
        return None
    try:
        return Decimal(t)
    except InvalidOperation:  # pragma: no cover - the pattern admits only valid text
        return None


def number(value: Any, field: str, *, integer: bool = False, minimum: float | None = None,
           maximum: float | None = None, above: float | None = None, text: bool = False) -> int | float:
    """``value`` as the number field ``field`` expects, or :class:`NumberRefused` naming ``field``.

    Booleans are refused (``count: true`` is not 1). ``integer``: a whole number, returned as an exact ``int`` (a
    float beyond 2**53 is refused, it is no longer the number written); otherwise a finite ``float`` (``1e400``,
    infinities and NaN are refused, as are ints too large for a float). ``minimum``/``maximum`` bound it
    inclusively, ``above`` exclusively. ``text``: a string holding a number (``"36.42"``, ``"2e-2"``) is read too.
    """
    got = value
    if hasattr(value, "item") and not isinstance(value, (str, bytes, Decimal)):
        with contextlib.suppress(TypeError, ValueError):
            value = value.item()
    kind = "a whole number" if integer else "a number"
    if isinstance(value, bool):
        raise NumberRefused(field, got, f"{kind}, not true/false")
    if isinstance(value, str) and text:
        dec = parse_decimal(value)
        if dec is None:
            raise NumberRefused(field, got, kind)
        value = dec
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise NumberRefused(field, got, f"a finite {kind[2:]}")
        if integer:
            if value != value.to_integral_value():
                raise NumberRefused(field, got, kind)
            value = int(value)
        else:
            f = float(value)
            if not math.isfinite(f):
                raise NumberRefused(field, got, f"a finite {kind[2:]} (beyond the largest number, about 1.8e308)")
            value = f
    if isinstance(value, int):
        out: int | float = value
        if not integer:
            try:
                out = float(value)
            except OverflowError:
                raise NumberRefused(field, got, "a finite number (beyond the largest number, about 1.8e308)") from None
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise NumberRefused(field, got, f"a finite {kind[2:]}")
        if integer:
            if not value.is_integer():
                raise NumberRefused(field, got, kind)
            if abs(value) >= EXACT_FLOAT_INT:  # 2**53 + 1 written with a dot is read as 2**53: not what was written
                raise NumberRefused(field, got, f"{kind} written without a dot or exponent (beyond 2**53 a "
                                                "decimal number is no longer exact)")
            out = int(value)
        else:
            out = value
    else:
        raise NumberRefused(field, got, kind)
    if minimum is not None and out < minimum:
        raise NumberRefused(field, got, f"{kind} >= {minimum:g}")
    if above is not None and out <= above:
        raise NumberRefused(field, got, f"{kind} > {above:g}")
    if maximum is not None and out > maximum:
        raise NumberRefused(field, got, f"{kind} <= {maximum:g}")
    return out


__all__ = [
    "EXACT_FLOAT_INT",
    "EXPONENT_FLOAT",
    "DuplicateKey",
    "NotedKeys",
    "NumberRefused",
    "UniqueKeys",
    "first_duplicate",
    "number",
    "parse_decimal",
    "shown_value",
    "unique_pairs",
]
