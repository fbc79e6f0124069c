"""Running median with ``scipy.ndimage.median_filter(y, size, mode="reflect")``'s numbers: numpy for short
series (no SciPy import: 0.2-0.5 s of ``costmodel fit``'s start-up), SciPy's C filter for long ones (its kernel
loaded without importing ``scipy.ndimage``: :mod:`costmodel.foundation.adapters.scipy_adapter`)."""
from __future__ import annotations

import numpy as np

from .memo import LastResults

#: numpy's sliding-window path up to this many window elements (n x size): 32 MiB of float64 views per chunk
NUMPY_MAX_ELEMENTS = 1 << 22
_CHUNK_ROWS = 1 << 15
#: the last running medians (the dips rule asks again for those the stall rule computed)
_last = LastResults(entries=6)


def median_filter(y: np.ndarray, size: int) -> np.ndarray:
    """The median of each window of ``size`` (odd) points centred on each point, the series reflected at
    its ends (``d c b a | a b c d | d c b a``), as ``scipy.ndimage.median_filter(y, size=size,
    mode="reflect")``. Raises ValueError for an even or non-positive ``size``."""
    if size < 1 or size % 2 == 0:
        raise ValueError(f"size must be an odd number >= 1, got {size}")
    y = np.asarray(y, dtype=float)
    kept = _last.get(y, size)
    if kept is not None:
        return kept
    out = _median_filter(y, size)
    _last.put(y, size, out)
    return out


def _median_filter(y: np.ndarray, size: int) -> np.ndarray:
    n = len(y)
    if n * size > NUMPY_MAX_ELEMENTS or size // 2 >= n or np.isnan(y).any():  # (windows wider than the series: reflected again)
        if 1 < size and size // 2 < n:
            from ..foundation.adapters.scipy_adapter import REFLECT, rank_filter_1d

            kernel = rank_filter_1d()
            if kernel is not None:  # what scipy.ndimage.median_filter calls for a 1-D float64 series
                x = np.ascontiguousarray(y)
                out = np.empty_like(x)
                kernel(x, size // 2, size, out, REFLECT, 0.0, 0)
                return out
        from scipy.ndimage import median_filter as _scipy_median_filter

        return np.asarray(_scipy_median_filter(y, size=size, mode="reflect"), dtype=float)
    h = size // 2
    padded = np.pad(y, h, mode="symmetric")  # numpy's "symmetric" is ndimage's "reflect"
    win = np.lib.stride_tricks.sliding_window_view(padded, size)
    out = np.empty(n)
    for a in range(0, n, _CHUNK_ROWS):
        out[a:a + _CHUNK_ROWS] = np.partition(win[a:a + _CHUNK_ROWS], h, axis=1)[:, h]
    return out
