"""Dated price tables: ``data/prices/*.csv`` looked up by provider, item and region (pair).

Every CSV has the columns ``provider, item, src_region, dst_region, unit, usd, source, as_of, verified,
notes`` and optionally ``tier_start, tier_end`` (monthly volume bounds in the row's own unit; empty start = 0,
empty end = unbounded). Region cells may hold alternatives separated by ``|`` and shell-style globs (``us-*``, ``*``);
a lookup picks the most specific matching row (an exact region beats a glob, a longer literal glob beats
a shorter one, ``*`` comes last). ``as_of`` is ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` (the date of the
stored copy, code commit or price file the figure was read from). The bundled tables always carry one;
an empty cell is still read (imported or user tables) and warned about as undated. ``verified`` is ``yes``,
``no`` or how the figure was verified (e.g. ``two sources agree: ...``, ``dataset <repo> <path> @<commit>``):
:attr:`PriceRow.verified` is the bool, :attr:`PriceRow.verified_how` the text.

The byte unit is part of ``unit``: ``GB``/``GB-month`` = 10^9 bytes, ``GiB``/``GiB-month`` = 2^30 bytes,
as the provider bills it (:attr:`PriceRow.bytes_per_unit`).

Raises :class:`~costmodel.foundation.errors.PriceError` when nothing matches, suggesting the closest known entries.
"""
from __future__ import annotations

import csv
import datetime as dt
import difflib
import fnmatch
import math
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..foundation.errors import PriceError
from ..foundation.fields_json import FieldsJson, JsonKeys
from ..foundation.resources import PRICES_DIR as _BUNDLED_PRICES_DIR
from ..foundation.units import BYTES

PRICES_DIR = Path(os.environ.get("COSTMODEL_PRICES_DIR", _BUNDLED_PRICES_DIR))
COLUMNS = ("provider", "item", "src_region", "dst_region", "unit", "usd", "source", "as_of", "verified", "notes")
TIER_COLUMNS = ("tier_start", "tier_end")
ALL_COLUMNS = COLUMNS + TIER_COLUMNS
MAX_AGE_DAYS = 365
#: item aliases accepted by lookups and ``costmodel prices show`` (alias -> canonical item)
ITEM_ALIASES = {
    "transfer": "inter_region",
    "inter-region": "inter_region",
    "cross_az": "inter_az",
    "inter_zone": "inter_az",
    "egress": "internet_egress",
    "nat": "nat_gateway_processing",
    "tgw": "transit_gateway_processing",
    "privatelink": "privatelink_processing",
    # names of the v1 tables (kept so existing scenarios keep working)
    "s3_rtc_transfer": "replication_rtc",
    "s3_get": "object_get",
    "s3_put_copy_post_list": "object_put",
    "internet_out_tier1": "internet_egress",
}


def bytes_per_unit(unit: str) -> float | None:
    """Bytes in one ``unit``: 1e9 for ``GB``/``GB-month``, 2**30 for ``GiB``/``GiB-month``, None otherwise."""
    head = (unit or "").strip().split("-")[0].split(" ")[0]
    return BYTES[head.lower()] if head in _BILLED_BYTE_UNITS else None


#: byte units of the catalog's ``unit`` column, spelled as the providers bill them (case matters here)
_BILLED_BYTE_UNITS = ("GB", "GiB", "TB", "TiB")


@dataclass(frozen=True)
class PriceRow(FieldsJson):
    """One dated price: ``usd`` per ``unit`` (``GB`` = 10^9 bytes, ``GB-month``, ``instance-hour``)."""

    provider: str
    item: str
    src_region: str
    dst_region: str
    unit: str
    usd: float
    source: str
    as_of: str
    verified: bool
    notes: str
    file: str
    line: int
    tier_start: float = 0.0
    tier_end: float | None = None
    #: the ``verified`` cell as written: ``yes``/``no`` or how the figure was verified (source, file, date)
    verified_how: str = ""

    @property
    def bytes_per_unit(self) -> float | None:
        """1e9 for GB units, 2**30 for GiB units, None for non-byte units (``instance-hour``, requests)."""
        return bytes_per_unit(self.unit)

    def as_of_date(self) -> dt.date | None:
        """``as_of`` as a date (first day of the month/year when only those are given), None when undated."""
        return parse_as_of(self.as_of)

    def age_days(self, today: dt.date) -> int | None:
        d = self.as_of_date()
        return None if d is None else (today - d).days

    def ref(self) -> str:
        """Short provenance string: ``file:line``."""
        return f"{self.file}:{self.line}"

    #: its fields, then the derived ``bytes_per_unit``
    JSON = JsonKeys(extra=("bytes_per_unit",))
def parse_verified(text: str) -> bool | None:
    """The ``verified`` cell: ``yes`` -> True, ``no`` (or ``false``/``unverified``) -> False, a description of
    how the figure was verified (two words or more, e.g. ``aws-offer-file AWSDataTransfer 2026-11-01``) -> True;
    None for an empty cell or a single other word (``maybe``), which the loader rejects."""
    text = (text or "").strip()
    low = text.lower()
    if low in ("yes", "true"):
        return True
    if low in ("no", "false", "unverified"):
        return False
    if len(text.split()) >= 2:
        return True
    return None


def parse_as_of(text: str) -> dt.date | None:
    """Parse ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``; None for an empty cell; ValueError otherwise."""
    text = (text or "").strip()
    if not text:
        return None
    parts = text.split("-")
    if len(parts) == 1:
        return dt.date(int(parts[0]), 1, 1)
    if len(parts) == 2:
        return dt.date(int(parts[0]), int(parts[1]), 1)
    return dt.date.fromisoformat(text)


def age_warning(row: PriceRow, today: dt.date, max_age_days: int = MAX_AGE_DAYS) -> str | None:
    """A warning when ``row`` is older than ``max_age_days`` on ``today`` or undated, else None."""
    regions = _shorten(row.src_region, 30) + (" -> " + _shorten(row.dst_region, 30) if row.dst_region else "")
    what = f"price {row.provider}/{row.item} ({regions}) = {row.usd} USD/{row.unit} [{row.ref()}]"
    age = row.age_days(today)
    if age is None:
        return f"{what} is undated ({row.source}); verify it and override it in the scenario if it changed"
    if age > max_age_days:
        return (
            f"{what} is {age} days old (as_of {row.as_of}, older than {max_age_days} days); "
            "verify it and override it in the scenario if it changed"
        )
    return None


def _match_score(pattern: str, region: str) -> tuple[int, int] | None:
    """How specifically ``pattern`` (``a|b*|*``) matches ``region``: higher is more specific; None: no match."""
    region = (region or "").strip()
    pattern = (pattern or "").strip()
    if not pattern:
        return (3, 0) if not region else None
    best: tuple[int, int] | None = None
    for alt in pattern.split("|"):
        alt = alt.strip()  # noqa: PLW2901  normalises the value in place
        if alt == region:
            score = (3, len(alt))
        elif alt in ("*", "any"):
            score = (1, 0)
        elif fnmatch.fnmatchcase(region, alt):
            score = (2, len(alt.replace("*", "")))
        else:
            continue
        if best is None or score > best:
            best = score
    return best


class PriceTable:
    """All price rows; :meth:`lookup` finds the most specific one."""

    def __init__(self, rows: list[PriceRow]) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def providers(self) -> list[str]:
        return sorted({r.provider for r in self.rows})

    def items(self, provider: str | None = None) -> list[str]:
        return sorted({r.item for r in self.rows if provider is None or r.provider == provider})

    def resolve_item(self, provider: str, item: str) -> str:
        """``item`` or, when the provider has no such item, its canonical name from :data:`ITEM_ALIASES`."""
        if item not in self.items(provider) and item in ITEM_ALIASES:
            return ITEM_ALIASES[item]
        return item

    def _candidates(self, provider: str, item: str, key: str | None) -> tuple[str, list[PriceRow]]:
        if provider not in self.providers():
            raise PriceError(
                f"no prices for provider {provider!r}; known providers: {', '.join(self.providers())}"
                + _did_you_mean(provider, self.providers()),
                key=key or "prices.provider",
            )
        item = self.resolve_item(provider, item)
        same_item = [r for r in self.rows if r.provider == provider and r.item == item]
        if not same_item:
            known = self.items(provider)
            aliases = sorted(a for a, canon in ITEM_ALIASES.items() if canon in known)
            raise PriceError(
                f"no {provider} price item {item!r}" + _did_you_mean(item, known + aliases)
                + f"; known items: {', '.join(known)}",
                key=key,
            )
        return item, same_item

    def _best(self, provider: str, item: str, src_region: str, dst_region: str | None, key: str | None) -> PriceRow:
        dst_region = dst_region or ""
        item, same_item = self._candidates(provider, item, key)
        best: tuple | None = None
        best_row: PriceRow | None = None
        for r in same_item:
            s1 = _match_score(r.src_region, src_region)
            s2 = _match_score(r.dst_region, dst_region) if (r.dst_region or dst_region) else (3, 0)
            if s1 is None or s2 is None:
                continue
            # most specific region match first; among tiers of one match, the first tier (lowest tier_start)
            # then the newer dated row (an undated one last): an imported older row never shadows a newer one
            d = r.as_of_date()
            score = (min(s1[0], s2[0]), s1[0] + s2[0], s1[1] + s2[1], d.toordinal() if d else 0, -r.tier_start)
            if best is None or score > best:
                best, best_row = score, r
        if best_row is None:
            where = f"{src_region} -> {dst_region}" if dst_region else src_region
            known = [f"{r.src_region} -> {r.dst_region}" if r.dst_region else r.src_region for r in same_item]
            known = list(dict.fromkeys(known))
            closest = _closest_known(src_region, dst_region, same_item)
            raise PriceError(
                f"no {provider} {item} price for {where}; closest known: {closest} "
                f"(known: {'; '.join(_shorten(k) for k in known)}); give the price in the scenario instead",
                key=key,
            )
        return best_row

    def lookup(
        self,
        provider: str,
        item: str,
        src_region: str,
        dst_region: str | None = None,
        *,
        key: str | None = None,
    ) -> PriceRow:
        """The most specific row for ``provider``/``item`` at ``src_region`` (-> ``dst_region``).

        For a tiered item this is its first tier (``tier_start`` 0); use :meth:`lookup_tiers` for all of them.
        ``item`` may be an alias (``transfer`` = ``inter_region``). ``key`` is the scenario key path named in
        errors. Raises PriceError naming the closest known.
        """
        return self._best(provider, item, src_region, dst_region, key)

    def lookup_tiers(
        self,
        provider: str,
        item: str,
        src_region: str,
        dst_region: str | None = None,
        *,
        key: str | None = None,
    ) -> list[PriceRow]:
        """All volume tiers of the most specific match, sorted by ``tier_start`` (monthly volume in the row's
        unit). A single untiered row is one tier [0, inf). Raises PriceError like :meth:`lookup`."""
        first = self._best(provider, item, src_region, dst_region, key)
        tiers = [
            r for r in self.rows
            if r.provider == first.provider and r.item == first.item and r.src_region == first.src_region
            and r.dst_region == first.dst_region and r.unit == first.unit and r.file == first.file
        ]
        return sorted(tiers, key=lambda r: r.tier_start)


def _shorten(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


def _closest_known(src: str, dst: str, rows: list[PriceRow]) -> str:
    """The known region (pair) whose names are closest to the asked ones (string similarity per end)."""
    def sim(a: str, pattern: str) -> float:
        alts = [x.strip() for x in pattern.split("|") if x.strip()] or [""]
        return max(difflib.SequenceMatcher(None, a, alt.replace("*", "")).ratio() for alt in alts)

    def best_alt(a: str, pattern: str) -> str:
        alts = [x.strip() for x in pattern.split("|") if x.strip()] or [""]
        return max(alts, key=lambda alt: difflib.SequenceMatcher(None, a, alt.replace("*", "")).ratio())

    scored = sorted(
        rows, key=lambda r: -(sim(src, r.src_region) + (sim(dst, r.dst_region) if dst else 0.0))
    )
    r = scored[0]
    if dst:
        return f"{best_alt(src, r.src_region)} -> {best_alt(dst, r.dst_region)} ({r.usd} USD/{r.unit})"
    return f"{best_alt(src, r.src_region)} ({r.usd} USD/{r.unit})"


def _did_you_mean(word: str, choices: list[str]) -> str:
    from ..contracts.errors import did_you_mean

    return did_you_mean(word, choices, cutoff=0.5, paren=True)


def csv_records(path: Path, columns: Sequence[str],
                missing: Callable[[list[str]], Exception]) -> Iterator[tuple[int, str, dict[str, str]]]:
    """The records of a CSV file with a header row (the catalog's tables, an imported provider file), each as
    ``(line number, "FILE:LINE", record)`` for messages that name the line. Raises ``missing(columns)`` with the
    ``columns`` the header lacks, before any record is read."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        lacking = [c for c in columns if c not in (reader.fieldnames or [])]
        if lacking:
            raise missing(lacking)
        for lineno, rec in enumerate(reader, start=2):
            yield lineno, f"{path.name}:{lineno}", rec


def read_price_csv(path: str | os.PathLike[str]) -> list[PriceRow]:
    """Read one price CSV; raises PriceError naming the file, line and column for a bad cell."""
    p = Path(path)
    rows: list[PriceRow] = []
    for lineno, where, rec in csv_records(p, COLUMNS, lambda missing: PriceError(
            f"price table lacks columns {missing}; expected {list(COLUMNS)}", path=str(p))):
        try:
            usd = float(rec["usd"])
        except (TypeError, ValueError):
            raise PriceError(f"usd {rec['usd']!r} is not a number", key="usd", path=where) from None
        if not math.isfinite(usd):
            raise PriceError(f"usd {rec['usd']!r} is not a finite number; a price is a finite USD amount >= 0",
                             key="usd", path=where)
        currency = (rec.get("currency") or "USD").strip().upper()
        if currency != "USD":
            raise PriceError(f"currency {rec.get('currency')!r}: the catalog is in USD; convert the price (and "
                             "state the rate and its date in notes) or drop the row", key="currency", path=where)
        if usd < 0:
            raise PriceError(f"usd {usd} is negative; prices are >= 0", key="usd", path=where)
        try:
            parse_as_of(rec["as_of"])
        except ValueError:
            raise PriceError(
                f"as_of {rec['as_of']!r} is not YYYY, YYYY-MM or YYYY-MM-DD", key="as_of", path=where
            ) from None
        verified_how = (rec["verified"] or "").strip()
        verified = parse_verified(verified_how)
        if verified is None:
            raise PriceError(
                f"verified {verified_how!r} must be yes, no, or how the figure was verified in a few words "
                "(e.g. 'aws-offer-file AWSDataTransfer 2026-11-01' or 'two sources agree: ...')",
                key="verified", path=where,
            )
        tier_start, tier_end = _tier_bounds(rec.get("tier_start"), rec.get("tier_end"), where)
        rows.append(
            PriceRow(
                provider=rec["provider"].strip(),
                item=rec["item"].strip(),
                src_region=(rec["src_region"] or "").strip(),
                dst_region=(rec["dst_region"] or "").strip(),
                unit=rec["unit"].strip(),
                usd=usd,
                source=rec["source"].strip(),
                as_of=(rec["as_of"] or "").strip(),
                verified=verified,
                notes=(rec["notes"] or "").strip(),
                file=p.name,
                line=lineno,
                tier_start=tier_start,
                tier_end=tier_end,
                verified_how=verified_how,
            )
        )
    return rows


def _tier_bounds(start_text: str | None, end_text: str | None, where: str) -> tuple[float, float | None]:
    """``tier_start`` (empty = 0) and ``tier_end`` (empty = unbounded) as numbers; PriceError naming the cell."""
    out: list[float | None] = []
    for name, text, empty in (("tier_start", start_text, 0.0), ("tier_end", end_text, None)):
        text = (text or "").strip()  # noqa: PLW2901  normalises the value in place
        if not text or text.lower() in ("inf", "infinity"):
            out.append(empty)
            continue
        try:
            v = float(text)
        except ValueError:
            raise PriceError(f"{name} {text!r} is not a number (monthly volume in the row's unit)", key=name,
                             path=where) from None
        if v < 0 or v != v:
            raise PriceError(f"{name} {v} must be >= 0", key=name, path=where)
        out.append(v)
    start, end = out
    if end is not None and end <= start:  # type: ignore[operator]
        raise PriceError(f"tier_end {end} must be above tier_start {start}", key="tier_end", path=where)
    return float(start), end  # type: ignore[arg-type]


@lru_cache(maxsize=8)
def _load_cached(directory: str, stamp: tuple) -> PriceTable:
    rows: list[PriceRow] = []
    for f in sorted(Path(directory).glob("*.csv")):
        rows.extend(read_price_csv(f))
    return PriceTable(rows)


def load_prices(directory: str | os.PathLike[str] | None = None) -> PriceTable:
    """All rows of ``directory/*.csv`` (default: the bundled ``data/prices``).

    Cached per folder and the files' sizes and modification times (a re-imported folder is re-read).
    Raises PriceError when the folder does not exist or holds no ``*.csv``.
    """
    d = Path(directory) if directory is not None else PRICES_DIR
    if not d.is_dir():
        raise PriceError(f"price folder {d} does not exist", path=str(d))
    files = sorted(d.glob("*.csv"))
    if not files:
        raise PriceError(f"price folder {d} holds no *.csv price tables", path=str(d))
    stamp = tuple((f.name, f.stat().st_mtime_ns, f.stat().st_size) for f in files)
    return _load_cached(str(d.resolve()), stamp)


__all__ = [
    "ALL_COLUMNS",
    "ITEM_ALIASES",
    "PRICES_DIR",
    "PriceRow",
    "PriceTable",
    "age_warning",
    "bytes_per_unit",
    "load_prices",
    "parse_as_of",
    "read_price_csv",
]
