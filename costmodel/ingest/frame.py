"""From a table of source columns (any names, any units) to Timeline columns in SI units.

Used by every reader that meets named columns: CSV/TSV/JSONL/Parquet/key=value logs, GPU
telemetry, DLIO lists. Vectorised (numpy / pandas), no per-row Python on numeric columns.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping as TMapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..foundation.errors import IngestError
from ..foundation.schema import FRACTION_COLUMNS
from .units import EVAL_PREFIXES, Mapping, mapping_from_option, resolve_column, resolve_prefixed

#: cell texts that mean "no value" (kept as NaN, not a bad cell)
NA_TOKENS = frozenset({"", "n/a", "[n/a]", "na", "null", "none", "-", "--", "[not supported]", "not supported"})
_NUM_WITH_UNIT = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(%|[A-Za-z/µ]+)?\s*$")


@dataclass
class Converted:
    """Timeline columns (SI) plus what the conversion found."""

    columns: dict[str, np.ndarray] = field(default_factory=dict)
    invalid: dict[str, np.ndarray] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    mapped: dict[str, str] = field(default_factory=dict)  # source name -> timeline column


def plan_columns(names: list[str], options: Any,
                 resolver: Any = resolve_column) -> tuple[dict[str, Mapping], list[str], list[str]]:
    """Decide which source column feeds which Timeline column.

    Returns (source -> Mapping, ignored source names, notes). ``--map`` wins, then a column whose
    name is already canonical, then the first alias in column order.
    """
    user = dict(getattr(options, "mapping", {}) or {})
    plan: dict[str, Mapping] = {}
    taken: dict[str, str] = {}
    notes: list[str] = []
    stripped = {n: n.strip() for n in names}
    for src, (dst, unit) in user.items():
        match = [n for n in names if stripped[n] == src or n == src]
        if not match:
            raise IngestError(
                f"--map {src}={dst}: no column named {src!r}; columns are: {', '.join(n.strip() for n in names)}", field="--map"
            )
        m = mapping_from_option(src, dst, unit)
        plan[match[0]] = m
        taken[m.column] = match[0]
    candidates: list[tuple[int, str, Mapping]] = []
    prefixes: dict[str, str] = {}
    for n in names:
        if n in plan:
            continue
        m = resolver(n)
        prio = 1
        if m is None:
            pm = resolve_prefixed(n, resolver)
            if pm is None:
                continue
            m, prefix = pm
            m = dataclasses.replace(m, prefix=prefix)
            prefixes[n] = prefix
            prio = 3 if prefix.split("/")[-1].lower() in EVAL_PREFIXES else 2
        elif stripped[n].lower() == m.column:
            prio = 0
        candidates.append((prio, n, m))
    for _prio, n, m in sorted(candidates, key=lambda x: x[0]):
        if m.column in taken:
            notes.append(f"column {n.strip()!r} also maps to {m.column} (already from {taken[m.column].strip()!r}); ignored")
            continue
        plan[n] = m
        taken[m.column] = n
    ignored = [n.strip() for n in names if n not in plan]
    used_prefixes = {n.strip(): p for n, p in prefixes.items() if n in plan}
    if used_prefixes:
        notes.append("prefixed column(s) mapped by their last part (prefix kept in metadata column_prefixes): "
                     + ", ".join(f"{n} -> {plan[next(k for k in plan if k.strip() == n)].column}" for n in used_prefixes))
    return plan, ignored, notes


def numeric_cells(values: Any) -> tuple[np.ndarray, np.ndarray, str]:
    """Parse a column to float64. Returns (values, invalid mask, unit found in the cells).

    Numbers pass through; text cells may carry a unit (``"45 %"``, ``"27.32 W"``, ``"1024 MiB"``);
    NA tokens (``N/A``, empty) are NaN and not invalid; anything else is NaN and invalid.
    A literal NaN/inf in a numeric source is invalid (a missing cell is not).
    """
    if isinstance(values, np.ndarray) and values.dtype.kind in "fiub":
        a = values.astype("float64", copy=False)
        return a, np.isinf(a), ""
    s = pd.Series(values, copy=False)
    if pd.api.types.is_bool_dtype(s.dtype):
        return s.astype("float64").to_numpy(), np.zeros(len(s), bool), ""
    if pd.api.types.is_numeric_dtype(s.dtype):
        isna = s.isna().to_numpy()
        a = s.to_numpy(dtype="float64", na_value=np.nan)
        return a, ~isna & ~np.isfinite(a), ""
    obj = s.astype("object")
    isna = obj.isna().to_numpy()
    txt = obj.where(~isna, "").astype(str).str.strip()
    low = txt.str.lower()
    na = isna | low.isin(NA_TOKENS).to_numpy()
    a = np.array(pd.to_numeric(txt.where(~na, None), errors="coerce").to_numpy(dtype="float64", na_value=np.nan))
    unit = ""
    need = np.isnan(a) & ~na
    if need.any():
        ext = txt[need].str.extract(_NUM_WITH_UNIT)
        parsed = pd.to_numeric(ext[0], errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
        a[need] = parsed
        units = ext[1].dropna().unique()
        if len(units):
            unit = str(units[0])
    invalid = ~na & ~np.isfinite(a)
    return a, invalid, unit


def cell_units(values: Any) -> np.ndarray | None:
    """The unit each text cell states (``'512 MiB/s'`` -> ``'mib/s'``; '' for a bare number; None-like for a
    missing cell), or None when the column's cells agree (one unit in every cell, or none anywhere)."""
    s = pd.Series(values, copy=False)
    if s.dtype.kind != "O":
        return None
    txt = s.astype("object").where(s.notna(), "").astype(str).str.strip()
    na = txt.str.lower().isin(NA_TOKENS).to_numpy()
    ext = txt.str.extract(_NUM_WITH_UNIT)
    units = ext[1].fillna("").str.strip().str.lower().to_numpy(dtype=object)
    units[na] = None
    units[ext[0].isna().to_numpy() & ~na] = None  # not a number at all: a bad cell, handled as before
    present = {u for u in units if u is not None}
    if len(present) <= 1:
        return None
    return units


def _convert_per_cell(a: np.ndarray, units: np.ndarray, name: str, col: str, source: str) -> tuple[np.ndarray, str]:
    """Each cell by the unit it states (``MiB/s`` beside ``GiB/s``, ``250 ms`` beside ``0.25 s``); a column
    where some cells state a unit and others do not (``87%`` beside ``0.87``) cannot be read: IngestError."""
    from .units import UNIT_FACTORS

    bare = np.array([u == "" for u in units])
    stated = sorted({u for u in units if u})
    if bare.any():
        first = int(np.flatnonzero(bare)[0])
        n_unit = int(sum(1 for u in units if u))
        raise IngestError(f"column {name!r} mixes units: {n_unit} cell(s) state one ({', '.join(stated)}) and "
                          f"{int(bare.sum())} do not (first at data row {first + 1}); the bare numbers' unit cannot be "
                          "known: write the unit in every cell or in none (or --map the column with its unit)",
                          path=source)
    unknown = [u for u in stated if u not in UNIT_FACTORS]
    if unknown:
        raise IngestError(f"column {name!r} mixes units {', '.join(stated)}; {', '.join(unknown)} is not a known unit",
                          path=source)
    factors = np.array([(1.0 if (col in FRACTION_COLUMNS and u != "%") else UNIT_FACTORS[u]) if u else np.nan
                        for u in units], dtype=float)
    out = np.where(np.isnan(factors), a, a * np.nan_to_num(factors, nan=1.0))
    counts = ", ".join(f"{sum(1 for u in units if u == x)} in {x}" for x in stated)
    return out, f"{source}: column {name!r} states different units per cell ({counts}): each cell converted by its own unit"


def time_to_seconds(values: Any, kind: str, factor: float = 1.0) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Absolute or elapsed time -> seconds since the first row.

    ``kind``: ``auto`` (ISO 8601 text, epoch s or epoch ms judged by magnitude, else elapsed s),
    ``iso``, ``epoch_s``, ``epoch_ms``, ``epoch_us``, ``epoch_ns``. ``factor``: the unit of numbers under
    ``auto`` (``time_ms`` -> 1e-3): they are scaled first, and are epoch seconds when above 1e8 s.
    Returns (t_s, invalid, metadata) where metadata holds ``start_time`` (ISO, naive local unless the source had a zone) and
    ``start_epoch_s`` when the source time was absolute.
    """
    meta: dict[str, Any] = {}
    s = pd.Series(values, copy=False)
    if pd.api.types.is_datetime64_any_dtype(s.dtype):
        a, _ok = _seconds_since_first(s, meta)
        return a, np.zeros(len(a), bool), meta
    if not pd.api.types.is_numeric_dtype(s.dtype) and kind in ("auto", "epoch_s", "epoch_ms", "epoch_us", "epoch_ns"):
        nums = pd.to_numeric(s, errors="coerce")
        if nums.notna().sum() >= max(1, 0.9 * s.notna().sum()):
            s = nums
    if pd.api.types.is_numeric_dtype(s.dtype):
        a = s.to_numpy(dtype="float64", na_value=np.nan)
        if kind == "auto" and factor != 1.0:
            a = a * factor
        probe = a[:100_000]
        finite = probe[np.isfinite(probe)]
        if not finite.size and np.isfinite(a).any():
            finite = a[np.isfinite(a)][:1]
        scale = {"epoch_s": 1.0, "epoch_ms": 1e-3, "epoch_us": 1e-6, "epoch_ns": 1e-9}.get(kind)
        if kind == "auto" and finite.size:
            med = float(np.median(finite))
            if factor != 1.0:
                scale = 1.0 if med > 1e8 else None  # already in seconds: an epoch, or elapsed time
            else:
                scale = 1e-9 if med > 1e17 else 1e-6 if med > 1e14 else 1e-3 if med > 1e11 else 1.0 if med > 1e8 else None
        if scale is None:  # elapsed seconds already
            return a, ~np.isfinite(a) & ~np.isnan(a), meta
        a = a * scale
        start = float(finite[0] * scale) if finite.size else float("nan")
        meta["start_epoch_s"] = start
        if np.isfinite(start):
            meta["start_time"] = pd.Timestamp(start, unit="s").isoformat()
        return a - start, ~np.isfinite(a) & ~np.isnan(a), meta
    obj = s.astype("object")
    isna = obj.isna().to_numpy()
    txt = obj.where(~isna, "").astype(str).str.strip()
    na = isna | txt.str.lower().isin(NA_TOKENS).to_numpy()
    try:
        dt = pd.to_datetime(txt.where(~na, None), errors="coerce", format="ISO8601")
    except (ValueError, TypeError):
        dt = pd.Series(pd.NaT, index=txt.index)
    if dt.isna().to_numpy()[~na].any():
        try:
            dt2 = pd.to_datetime(txt.where(~na, None), errors="coerce", format="mixed")
            dt = dt.where(dt.notna(), dt2) if len(dt) else dt2
        except (ValueError, TypeError):
            pass
    a, ok = _seconds_since_first(dt, meta)
    return a, ~na & ~ok, meta


def _seconds_since_first(dt: pd.Series, meta: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Datetimes -> (seconds since the first valid one, valid mask); fills ``meta`` with ``timezone`` (a zoned
    series, converted to UTC), ``start_epoch_s``, ``start_time`` and, for naive times, ``naive_clock_jumps``."""
    if getattr(dt.dt, "tz", None) is not None:
        meta["timezone"] = str(dt.dt.tz)
        dt = dt.dt.tz_convert("UTC").dt.tz_localize(None)
    ok = dt.notna().to_numpy()
    ns = dt.astype("datetime64[ns]").to_numpy().astype("int64")
    a = np.full(len(ns), np.nan)
    if ok.any():
        start_ns = int(ns[ok][0])
        meta["start_epoch_s"] = start_ns / 1e9
        meta["start_time"] = pd.Timestamp(start_ns, unit="ns").isoformat()
        a = np.where(ok, (ns - start_ns) / 1e9, np.nan)  # difference in integer ns: no float rounding
        if "timezone" not in meta:
            jumps = naive_clock_jumps(a)
            if jumps:
                meta["naive_clock_jumps"] = jumps
    return a, ok


def naive_clock_jumps(t_s: np.ndarray) -> list[dict[str, float]]:
    """Where local times without a zone jump by one hour (forward or back) between two rows that are otherwise
    seconds apart: a daylight-saving change, which would add or remove an hour that never passed.
    Returns ``{row, jump_s}`` for each (row: 0-based index of the later row), at most 10."""
    idx = np.flatnonzero(np.isfinite(t_s))
    if idx.size < 3:
        return []
    d = np.diff(t_s[idx])
    med = float(np.median(np.abs(d)))
    if not (0 < med < 600):
        return []
    tol = max(3 * med, 5.0)
    hits = np.flatnonzero(np.abs(np.abs(d) - 3600.0) <= tol)
    return [{"row": int(idx[k + 1]), "jump_s": float(d[k])} for k in hits[:10]]


def convert(table: TMapping[str, Any], options: Any, *, source: str = "", resolver: Any = resolve_column) -> Converted:
    """Map and convert the columns of ``table`` (name -> values) to Timeline columns in SI units.

    ``resolver``: name -> Mapping or None (``--pattern`` groups use the strict
    :func:`~costmodel.ingest.units.documented_column`)."""
    names = list(table.keys())
    plan, ignored, notes = plan_columns(names, options, resolver)
    prefixes = {src.strip(): m.prefix for src, m in plan.items() if m.prefix}
    out = Converted(warnings=[f"{source}: {n}" for n in notes])
    for src, m in plan.items():
        col = m.column
        if col == "t_s" and (m.time_kind or "").strip():
            kind = "auto" if m.time_kind == "auto_num" else m.time_kind
            a, bad, meta = time_to_seconds(table[src], kind, factor=m.factor)
            for j in meta.get("naive_clock_jumps", []):
                out.warnings.append(f"{source}: column {src.strip()!r}: local times without a zone jump by "
                                    f"{j['jump_s']:+.0f} s at data row {j['row'] + 1} while rows are seconds apart: a "
                                    "daylight-saving change? t_s keeps the jump; give times with a UTC offset (or epoch "
                                    "seconds) to measure across it")
            out.metadata.update(meta)
        else:
            a, bad, cell_unit = numeric_cells(table[src])
            factor = m.factor
            if cell_unit and not m.unit:
                per_cell = cell_units(table[src])
                if per_cell is not None:  # cells that state different units (or some none): per cell or refused
                    a, note = _convert_per_cell(a, per_cell, src.strip(), col, source)
                    out.warnings.append(note)
                    cell_unit = ""
            if cell_unit and not m.unit:
                from .units import UNIT_FACTORS

                cu = cell_unit.strip().lower()
                if cu in UNIT_FACTORS:
                    factor = UNIT_FACTORS[cu]
                    if col in FRACTION_COLUMNS and cu != "%":
                        factor = 1.0
            if factor != 1.0:
                if isinstance(a, np.ndarray) and a.flags.writeable and a.dtype == np.float64:
                    np.multiply(a, factor, out=a)  # the reader hands over its own buffer: no second copy
                else:
                    a = a * factor
            if col in FRACTION_COLUMNS and m.ambiguous and factor == 1.0:
                with np.errstate(invalid="ignore"):
                    fin = a[np.isfinite(a)]
                    mx = float(fin.max()) if fin.size else 0.0
                    # percent only when most values are above 1: one out-of-range cell in a 0..1 column
                    # is a bad cell (kept as missing by validation), never a reason to rescale the column
                    med = float(np.median(fin)) if fin.size else 0.0
                if 1.0 < mx <= 100.0 and med > 1.0:
                    a = a / 100.0
                    out.warnings.append(f"{source}: column {src.strip()!r} has values up to {mx:g}: "
                                        "read as percent (divided by 100)")
            elif m.ambiguous and col not in FRACTION_COLUMNS:
                name = src.strip()
                if m.unit == "mb/s":
                    out.warnings.append(
                        f"{source}: column {name!r}: 'mbps' read as megabytes per second (10^6 B/s), not megabits; "
                        f"use --map {name}={col}:Mbit/s if it is megabits"
                    )
                else:
                    assumed = m.unit or ("B/s" if col.endswith("per_s") else "s" if col.endswith("_s") else "B")
                    out.warnings.append(
                        f"{source}: column {name!r} has no unit in its name: read as {col} in {assumed}; "
                        f"use --map {name}={col}:UNIT if that is wrong"
                    )
        out.columns[col] = a
        if bad.any():
            out.invalid[col] = bad
        out.mapped[src.strip()] = col
    if ignored:
        shown = ", ".join(ignored[:12]) + (f" and {len(ignored) - 12} more" if len(ignored) > 12 else "")
        out.warnings.append(f"{source}: columns not in the Timeline, not imported: {shown}")
    _elapsed_beside_absolute(table, plan, out, resolver)
    out.metadata["columns_mapped"] = dict(out.mapped)
    if prefixes:
        out.metadata["column_prefixes"] = prefixes
    return out


def elapsed_first_value(values: Any, factor: float = 1.0) -> float | None:
    """The first value of an elapsed clock (seconds since the run started), or None when the column is an
    absolute time (epoch or ISO text), not numeric, negative at its start or not non-decreasing."""
    try:
        a, _bad, meta = time_to_seconds(values, "auto", factor=factor)
    except (ValueError, TypeError):
        return None
    fin = a[np.isfinite(a)] if isinstance(a, np.ndarray) else np.zeros(0)
    if "start_epoch_s" in meta or not fin.size or fin[0] < 0 or not np.all(np.diff(fin) >= 0):
        return None
    return float(fin[0])


def _elapsed_beside_absolute(table: TMapping[str, Any], plan: dict[str, Mapping], out: Converted,
                             resolver: Any) -> None:
    """An absolute clock (``wall_time``) is ``t_s`` (0 at the first row) while an elapsed clock beside it
    (``elapsed_s``: seconds since the run started) is not imported: keep the elapsed clock's value at the first
    row (``elapsed_at_first_row_s``, with ``elapsed_at_first_row_from``), the time the run spent before its first
    logged row, which rows every N steps need to know how long the first row took."""
    if "start_epoch_s" not in out.metadata:
        return
    for src in table:
        if src in plan:
            continue
        m = resolver(src) or (resolve_prefixed(src, resolver) or (None,))[0]
        if m is None or m.column != "t_s" or m.time_kind not in ("auto", "auto_num"):
            continue
        got = elapsed_first_value(table[src], m.factor)
        if got is not None:
            out.metadata["elapsed_at_first_row_s"] = got
            out.metadata["elapsed_at_first_row_from"] = src.strip()
            return
