"""Dated link figures between regions (``data/links/links.csv``): round trip (ms) and bandwidth (Gbit/s).

One row per (source provider, source region) -> (destination provider, destination region), the data flowing
from the data region to the GPU region. An empty cell is "not known": the placement file must state it.
Every row names its source and ``as_of`` date (the measurement's, not the date it was read). Used by
``costmodel place`` for a candidate whose link figures are not written in the placement file; the transfer
*price* of a link comes from the price catalog (:mod:`.catalog`), not from here.
"""
from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..foundation.errors import PriceError
from ..foundation.resources import PACKAGE_DIR

LINKS_FILE = PACKAGE_DIR / "data" / "links" / "links.csv"
COLUMNS = ("src_provider", "src_region", "dst_provider", "dst_region", "rtt_ms", "bandwidth_gbps", "source", "as_of",
           "notes")


@dataclass(frozen=True)
class LinkRow:
    """The figures of one link; ``rtt_ms`` / ``bandwidth_gbps`` None where the table has no dated figure."""

    src_provider: str
    src_region: str
    dst_provider: str
    dst_region: str
    rtt_ms: float | None
    bandwidth_gbps: float | None
    source: str
    as_of: str
    notes: str
    line: int

    def ref(self) -> str:
        return f"links.csv:{self.line}"


def _number(text: str, column: str, where: str) -> float | None:
    text = (text or "").strip()
    if not text:
        return None
    try:
        v = float(text)
    except ValueError:
        raise PriceError(f"{column} {text!r} is not a number", key=column, path=where) from None
    if not (v > 0 and v == v and v != float("inf")):
        raise PriceError(f"{column} {v} must be a finite number > 0", key=column, path=where)
    return v


def read_links(path: str | os.PathLike[str] | None = None) -> tuple[LinkRow, ...]:
    """Every row of the link table (default: the bundled one). PriceError naming the line of a bad cell."""
    p = Path(path) if path is not None else LINKS_FILE
    return _read(str(p))


@lru_cache(maxsize=4)
def _read(path: str) -> tuple[LinkRow, ...]:
    rows: list[LinkRow] = []
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise PriceError(f"link table lacks columns {missing}; expected {list(COLUMNS)}", path=path)
        for line, rec in enumerate(reader, start=2):
            where = f"{Path(path).name}:{line}"
            rows.append(LinkRow(
                src_provider=rec["src_provider"].strip(), src_region=rec["src_region"].strip(),
                dst_provider=rec["dst_provider"].strip(), dst_region=rec["dst_region"].strip(),
                rtt_ms=_number(rec["rtt_ms"], "rtt_ms", where),
                bandwidth_gbps=_number(rec["bandwidth_gbps"], "bandwidth_gbps", where),
                source=(rec["source"] or "").strip(), as_of=(rec["as_of"] or "").strip(),
                notes=(rec["notes"] or "").strip(), line=line))
    return tuple(rows)


def lookup_link(src_provider: str, src_region: str, dst_provider: str, dst_region: str) -> LinkRow | None:
    """The row for this link (data region -> GPU region), None when the table has none."""
    for r in read_links():
        if (r.src_provider, r.src_region, r.dst_provider, r.dst_region) == (src_provider, src_region, dst_provider,
                                                                             dst_region):
            return r
    return None
