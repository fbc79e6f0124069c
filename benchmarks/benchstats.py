"""Statistics shared by the benchmarks (one copy: the calibration benchmarks all report rates with it)."""

from __future__ import annotations

import zlib

import numpy as np


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion k / n (95 % at z = 1.96); (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    h = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return float(max(0.0, c - h)), float(min(1.0, c + h))


def seed_of(*parts: object) -> int:
    """A stable seed from the parts' text (crc32, below 10^6): the same task draws the same data on any machine."""
    return zlib.crc32("/".join(map(str, parts)).encode()) % 1_000_000
