"""The one table of units: how many bytes, bytes/s, bits/s or seconds one unit is.

Every other place that turns a unit name into a factor reads these tables (``ingest.units`` for column
headers and ``--map``, ``cost.spec`` for scenario keys written in another unit, ``cost.pricing`` and
``prices`` for the byte unit a price is billed in, ``bench`` and ``units_fmt`` for GiB); each picks the
spellings it accepts, so what a reader accepts is unchanged, but a factor is written once.

Names are lower case. Decimal units are powers of 10 (``kb`` = 10^3 bytes, ``gb`` = 10^9), binary ones
powers of 2 (``kib`` = 2^10, ``gib`` = 2^30, ``tib`` = 2^40).

One spelling means two things, so byte rates and link speeds are two tables: in a column header
``read_MBps`` is megaBYTES per second (:data:`BYTES_PER_S`: ``mbps`` = 10^6 bytes/s), in a scenario key
``link.bandwidth_gbps`` is gigaBITS per second (:data:`BITS_PER_S`: ``gbps`` = 10^9 bits/s).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

KIB = float(2**10)
MIB = float(2**20)
GIB = float(2**30)
TIB = float(2**40)
PIB = float(2**50)

#: bytes in one unit
BYTES: dict[str, float] = {
    "b": 1.0, "bytes": 1.0,
    "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "pb": 1e15,
    "kib": KIB, "mib": MIB, "gib": GIB, "tib": TIB, "pib": PIB,
}

#: bytes per second in one byte-rate unit (``mbps`` = MB/s, as benchmark headers write ``read_MBps``)
BYTES_PER_S: dict[str, float] = {
    "b/s": 1.0, "bps": 1.0,
    "kb/s": 1e3, "kbps": 1e3, "mb/s": 1e6, "mbps": 1e6, "gb/s": 1e9, "gbps": 1e9,
    "kib/s": KIB, "kibps": KIB, "mib/s": MIB, "mibps": MIB, "gib/s": GIB, "gibps": GIB,
    "mbit/s": 1e6 / 8, "gbit/s": 1e9 / 8,
}

#: bits per second in one link-speed unit (``gbps`` = Gbit/s, as scenario keys write ``bandwidth_gbps``)
BITS_PER_S: dict[str, float] = {"mbps": 1e6, "gbps": 1e9, "tbps": 1e12}

#: seconds in one unit
SECONDS: dict[str, float] = {
    "ns": 1e-9, "us": 1e-6, "usec": 1e-6, "µs": 1e-6, "ms": 1e-3, "msec": 1e-3,
    "s": 1.0, "sec": 1.0, "secs": 1.0, "seconds": 1.0,
    "min": 60.0, "minutes": 60.0, "h": 3600.0, "hour": 3600.0, "hours": 3600.0, "day": 86400.0, "days": 86400.0,
}

#: a fraction 0..1 in one unit (percentages are hundredths)
FRACTION: dict[str, float] = {"%": 0.01, "pct": 0.01, "percent": 0.01, "fraction": 1.0, "ratio": 1.0}

#: the binary (IEC) and decimal (SI) prefixes of a byte count, smallest first, as people read them
BINARY_PREFIXES = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
DECIMAL_PREFIXES = ("B", "kB", "MB", "GB", "TB", "PB")


def pick(table: Mapping[str, float], names: Iterable[str], per: float = 1.0) -> dict[str, float]:
    """The factors of ``names`` (in that order) from ``table``, each divided by ``per``:
    ``pick(BYTES, ("gb", "tib"), per=1e9)`` is ``{"gb": 1.0, "tib": 1099.511627776}`` (in GB)."""
    return {n: table[n] / per for n in names}


#: scenario keys' dimensions, in the unit their keys use (``_gb``: decimal GB, ``_hours``/``_s``: seconds
#: base, ``_gbps``: Gbit/s): a key written in another unit of the same dimension gets the converted value
SIZE_UNITS_GB = pick(BYTES, ("bytes", "b", "kb", "mb", "gb", "tb", "pb", "kib", "mib", "gib", "tib", "pib"), per=1e9)
TIME_UNITS_S = pick(SECONDS, ("ms", "s", "sec", "seconds", "min", "minutes", "h", "hours", "hour", "days", "day"))
RATE_UNITS_GBPS = pick(BITS_PER_S, ("gbps", "mbps", "tbps"), per=1e9)
DIMENSIONS = (SIZE_UNITS_GB, TIME_UNITS_S, RATE_UNITS_GBPS)


def unit_dimension(token: str) -> dict[str, float] | None:
    """The scenario dimension table (size in GB, time in s, link speed in Gbit/s) that ``token``
    (``tb``, ``hours``, ``mbps``; any case) belongs to, or None when it is no unit of a scenario key."""
    t = token.lower()
    for dim in DIMENSIONS:
        if t in dim:
            return dim
    return None


__all__ = [
    "BINARY_PREFIXES",
    "BITS_PER_S",
    "BYTES",
    "BYTES_PER_S",
    "DECIMAL_PREFIXES",
    "DIMENSIONS",
    "FRACTION",
    "GIB",
    "KIB",
    "MIB",
    "PIB",
    "RATE_UNITS_GBPS",
    "SECONDS",
    "SIZE_UNITS_GB",
    "TIB",
    "TIME_UNITS_S",
    "pick",
    "unit_dimension",
]
