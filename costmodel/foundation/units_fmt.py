"""One formatter for every figure a person reads (CLI lines, notebook tables): the number with its unit,
one unit family per quantity, so the same data reads the same in ``bench``, ``fit``, ``compare``,
``simulate`` and ``cost``.

Families (docs/contracts.md, "Units in human output"):

- byte rates and bytes read (``*_bytes_per_s``, ``bytes_read``): binary IEC, ``B/s``, ``KiB/s``, ``MiB/s``,
  ``GiB/s``, ``TiB/s`` (2^10 steps), as ``costmodel bench``'s familiar stdout (``GiB`` = 2^30 bytes);
- bytes crossing regions (billed volumes): decimal ``GB`` / ``TB`` (10^9, 10^12), the unit of the price
  tables and the bills;
- per-second rates of things: ``samples/s``, ``tokens/s``, ``IOPS``; times: ``s``; fractions: ``%``;
  money: ``USD``.

JSON output is never formatted: it keeps SI base units in the key names (``bytes_per_s``, ``t_s``).
"""
from __future__ import annotations

import math
from typing import Any

from .units import BINARY_PREFIXES, DECIMAL_PREFIXES
from .util import finite_float

#: Unit of each Timeline metric in human output (byte metrics are scaled, see :func:`metric`).
METRIC_UNITS = {
    "samples_per_s": "samples/s",
    "tokens_per_s": "tokens/s",
    "read_iops": "IOPS",
    "write_iops": "IOPS",
    "step_time_s": "s",
    "data_wait_s": "s",
    "read_latency_s": "s",
    "t_s": "s",
}



def _sig(x: float, digits: int = 4) -> str:
    """``x`` with ``digits`` significant digits, thousands separators, no exponent below 1e15."""
    if x == 0:
        return "0"
    mag = int(math.floor(math.log10(abs(x))))
    decimals = max(0, digits - 1 - mag)
    return f"{x:,.{decimals}f}"


def binary_scale(value: float) -> tuple[float, str]:
    """(divisor, prefix unit) of the binary family for ``value`` bytes: ``(2**30, "GiB")``."""
    v = abs(value)
    i = 0
    while i < len(BINARY_PREFIXES) - 1 and v >= 1024 ** (i + 1):
        i += 1
    return 1024.0 ** i, BINARY_PREFIXES[i]


def decimal_scale(value: float, at_least: str = "B") -> tuple[float, str]:
    """(divisor, unit) of the decimal family for ``value`` bytes, not below ``at_least`` (e.g. ``GB``)."""
    v = abs(value)
    i = DECIMAL_PREFIXES.index(at_least)
    while i < len(DECIMAL_PREFIXES) - 1 and v >= 1000 ** (i + 1):
        i += 1
    return 1000.0 ** i, DECIMAL_PREFIXES[i]


def bytes_per_s(value: Any, digits: int = 4) -> str:
    """A byte rate in the binary family: ``9.024 GiB/s``; ``-`` when unknown."""
    x = finite_float(value)
    if x is None:
        return "-"
    div, unit = binary_scale(x)
    return f"{_sig(x / div, digits)} {unit}/s"


def bytes_read(value: Any, digits: int = 4) -> str:
    """Bytes read in the binary family: ``0.78 GiB``."""
    x = finite_float(value)
    if x is None:
        return "-"
    div, unit = binary_scale(x)
    return f"{_sig(x / div, digits)} {unit}"


def transfer_bytes(value: Any, digits: int = 4) -> str:
    """Bytes crossing regions (billed) in decimal GB or above: ``793.0 GB``, ``1.2 TB``."""
    x = finite_float(value)
    if x is None:
        return "-"
    div, unit = decimal_scale(x, "GB")
    return f"{_sig(x / div, digits)} {unit}"


def seconds(value: Any, decimals: int = 1) -> str:
    x = finite_float(value)
    return "-" if x is None else f"{x:,.{decimals}f} s"


def usd(value: Any) -> str:
    x = finite_float(value)
    return "-" if x is None else f"{x:,.2f} USD"


def percent(value: Any, decimals: int = 1) -> str:
    """A fraction as a percentage: ``0.95`` -> ``95.0 %``."""
    x = finite_float(value)
    return "-" if x is None else f"{x * 100:.{decimals}f} %"


def is_byte_rate(metric: str) -> bool:
    return metric.endswith("bytes_per_s")


def metric(value: Any, name: str, digits: int = 4) -> str:
    """A value of Timeline metric ``name`` with its unit (byte rates scaled in the binary family)."""
    x = finite_float(value)
    if x is None:
        return "-"
    if is_byte_rate(name):
        return bytes_per_s(x, digits)
    if name == "bytes_read":
        return bytes_read(x, digits)
    if name in ("gpu_util", "cache_hit_ratio"):
        return percent(x, 2)
    unit = METRIC_UNITS.get(name)
    return f"{_sig(x, digits)} {unit}" if unit else _sig(x, digits)


def metric_interval(mean: Any, lo: Any, hi: Any, name: str, digits: int = 4) -> str:
    """``mean [lo, hi] unit`` on one scale (the mean's), e.g. ``923.9 MiB/s [185.1, 1,663] MiB/s``."""
    m, a, b = finite_float(mean), finite_float(lo), finite_float(hi)
    if m is None:
        return "-"
    if is_byte_rate(name) or name == "bytes_read":
        div, unit = binary_scale(m)
        unit = unit + ("/s" if is_byte_rate(name) else "")
    elif name in ("gpu_util", "cache_hit_ratio"):
        div, unit = 0.01, "%"
    else:
        div, unit = 1.0, METRIC_UNITS.get(name, "")

    def f(v: float | None) -> str:
        return "-" if v is None else _sig(v / div, digits)

    tail = f" {unit}" if unit else ""
    return f"{f(m)}{tail} [{f(a)}, {f(b)}]{tail}"


__all__ = [
    "METRIC_UNITS",
    "binary_scale",
    "bytes_per_s",
    "bytes_read",
    "decimal_scale",
    "is_byte_rate",
    "metric",
    "metric_interval",
    "percent",
    "seconds",
    "transfer_bytes",
    "usd",
]


def cold_vs_warm(cold: Any, steady: Any) -> str:
    """The cold phase's telemetry against the steady state's in one phrase ('' when neither has any):
    ``GPU busy 34% vs 79%; data wait 173.5 ms vs 0.5 ms per step; hit ratio 0.16 vs 1.00; reads 1.2 GiB/s vs
    2.0 GiB/s`` (``cold`` and ``steady`` map ``gpu_util``, ``data_wait_s``, ``cache_hit_ratio``,
    ``read_bytes_per_s`` to values or None)."""
    c, w = dict(cold or {}), dict(steady or {})

    def both(k: str) -> tuple[float, float] | None:
        a, b = finite_float(c.get(k)), finite_float(w.get(k))
        return None if a is None or b is None else (a, b)

    parts = []
    if (g := both("gpu_util")) is not None:
        parts.append(f"GPU busy {g[0]:.0%} vs {g[1]:.0%}")
    if (d := both("data_wait_s")) is not None:
        parts.append(f"data wait {d[0] * 1000:.1f} ms vs {d[1] * 1000:.1f} ms per step")
    if (h := both("cache_hit_ratio")) is not None:
        parts.append(f"hit ratio {h[0]:.2f} vs {h[1]:.2f}")
    if (r := both("read_bytes_per_s")) is not None:
        parts.append(f"reads {bytes_per_s(r[0])} vs {bytes_per_s(r[1])}")
    return "; ".join(parts)
