"""Price rows as the cost model uses them: billed byte units, tiers, and the ``prices_used`` entries.

A price row bills bytes in its own unit: ``GB`` (10^9 bytes) or ``GiB`` (2^30 bytes), also ``GB-month`` /
``GiB-month`` for storage (the catalog's ``unit`` column says which; the ``PriceRow.bytes_per_unit``
when present, else parsed here). The model works in decimal GB, so a per-byte price is converted exactly:
``usd_per_gb = usd_per_unit * 10^9 / bytes_per_unit`` (a GiB price x 0.931322574615). Request prices are
per ``1000 requests`` (or ``request``), batch replication per ``1M objects``, jobs per ``job``.

Tiers: where the catalog offers :meth:`PriceTable.lookup_tiers` and it returns more than one
tier, the tiers are turned into ``(start_gb, end_gb, ratio)`` of monthly volume in decimal GB with each
tier's price as a ratio of the first tier's; without it, the single row found by ``lookup`` is one tier.
"""
from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Sequence
from typing import Any

from ..foundation.errors import PriceError
from ..foundation.units import BYTES, pick
from .catalog import PriceRow, age_warning

#: byte units a price row may bill in (the factors: the package's one unit table)
_BYTE_UNITS = pick(BYTES, ("gb", "gib", "tb", "tib", "mb", "mib"))


def bytes_per_unit(row: Any) -> float | None:
    """Bytes in one billed unit of ``row`` (1e9 for GB / GB-month, 2^30 for GiB / GiB-month), None for
    units that are not bytes (requests, instance-hours)."""
    v = getattr(row, "bytes_per_unit", None)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    unit = str(getattr(row, "unit", "") or "").strip().lower()
    head = re.split(r"[-/ ]", unit, maxsplit=1)[0]
    return _BYTE_UNITS.get(head)


def usd_per_decimal_gb(row: Any) -> float:
    """The row's price per 10^9 bytes (per GB-month for storage). Raises PriceError for a non-byte unit."""
    bpu = bytes_per_unit(row)
    if bpu is None:
        raise PriceError(f"price {row.provider}/{row.item} [{_ref(row)}] is per {row.unit!r}, not per GB or GiB")
    return float(row.usd) * 1e9 / bpu


def usd_per_count(row: Any, per: float) -> float:
    """The row's price per ``per`` requests/objects (1000 for requests, 1e6 for objects, 1 for a job),
    reading the count in its unit (``1000 requests``, ``request``, ``1M objects``, ``10,000 requests``)."""
    unit = str(row.unit or "").strip().lower().replace(",", "")
    m = re.match(r"^([0-9.]+)\s*([km]?)\b", unit)
    n = 1.0
    if m:
        n = float(m.group(1)) * {"": 1.0, "k": 1e3, "m": 1e6}[m.group(2)]
    return float(row.usd) * per / n


def _ref(row: Any) -> str:
    return row.ref() if hasattr(row, "ref") else f"{getattr(row, 'file', '?')}:{getattr(row, 'line', '?')}"


def price_entry(key: str, row: PriceRow, usd_used: float, today: dt.date, *, multiplier: float = 1.0,
                tiers: Sequence[Any] | None = None) -> dict[str, Any]:
    """The ``prices_used`` entry of ``row`` filling ``key``: the row's fields (source, as_of, unit, ...),
    ``age_days``, ``bytes_per_unit`` and the value used in the model's units."""
    entry = {"key": key, **row.to_dict(), "ref": _ref(row)}
    entry["usd_used"] = usd_used
    entry["age_days"] = row.age_days(today) if hasattr(row, "age_days") else None
    entry["bytes_per_unit"] = bytes_per_unit(row)
    if multiplier != 1:
        entry["multiplier"] = multiplier
    if tiers:
        entry["tiers"] = [{"start": getattr(t, "tier_start", None), "end": getattr(t, "tier_end", None), "usd": t.usd,
                           "unit": t.unit, "ref": _ref(t)} for t in tiers]
    return entry


def scenario_entry(key: str, usd: float, unit: str, source: str) -> dict[str, Any]:
    """The ``prices_used`` entry of a price the scenario states itself."""
    return {"key": key, "usd": usd, "usd_used": usd, "unit": unit, "source": source, "as_of": None,
            "verified": None, "age_days": None}


def row_warning(key: str, row: PriceRow, today: dt.date) -> str | None:
    """Age / unverified warning for a row used for ``key`` (None when dated, recent and verified)."""
    w = age_warning(row, today)
    if w and not row.verified:
        w += " (marked unverified)"
    elif not row.verified:
        w = f"price {row.provider}/{row.item} [{_ref(row)}] is marked unverified ({row.source})"
    return f"{key}: {w}" if w else None


def tier_bounds(rows: Sequence[Any]) -> tuple[tuple[float, float, float], ...] | None:
    """``(start_gb, end_gb, ratio)`` per tier from rows with ``tier_start``/``tier_end`` in the row's unit
    (None or '' = unbounded); None when there is a single tier."""
    if len(rows) < 2:
        return None
    first = usd_per_decimal_gb(rows[0])
    out = []
    for r in rows:
        bpu = bytes_per_unit(r) or 1e9
        start = _float_or(getattr(r, "tier_start", None), 0.0) * bpu / 1e9
        end = _float_or(getattr(r, "tier_end", None), math.inf)
        end = end * bpu / 1e9 if math.isfinite(end) else math.inf
        ratio = usd_per_decimal_gb(r) / first if first > 0 else 1.0
        out.append((start, end, ratio))
    return tuple(out)


def _float_or(v: Any, default: float) -> float:
    """``v`` as a float (``inf`` included), ``default`` when it is missing, empty or not a number."""
    if v is None or v == "":
        return default
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def lookup_tiers(table: Any, provider: str, item: str, src: str, dst: str = "", *, key: str | None = None) -> list[Any]:
    """The tier rows of an item (``PriceTable.lookup_tiers`` when the catalog has it, else the one row
    ``lookup`` finds). Raises PriceError when there is none."""
    fn = getattr(table, "lookup_tiers", None)
    if fn is not None:
        rows = list(fn(provider, item, src, dst, key=key))
        if rows:
            return rows
    return [table.lookup(provider, item, src, dst, key=key)]


def try_lookup(table: Any, provider: str, items: Sequence[str], regions: Sequence[tuple[str, str]]) -> Any | None:
    """The first row found for any of ``items`` at any of ``regions`` ((src, dst) pairs), else None."""
    for item in items:
        for src, dst in regions:
            try:
                return table.lookup(provider, item, src, dst)
            except PriceError:
                continue
    return None
