"""The allocator of an analysis process: freed numpy temporaries stay in the heap for the next ones.

The analysis of a 100,000-step series makes thousands of temporaries of 0.8-1.6 MB (a column, an FFT buffer).
With glibc's defaults the heap's top is given back to the kernel whenever more than twice the largest block
freed so far is free, so the next temporary faults its pages in again: ``costmodel compare`` at 10 ranks took
95,000 minor page faults and 0.3-0.4 s of system time, against 46,000 and 0.2 s with :func:`roomy_heap`'s
settings (:data:`MMAP_BYTES`, :data:`TRIM_BYTES`; BENCHMARKS.md, "the small fleet"). Allocator settings only: no number
changes. glibc only (``mallopt``); a no-op elsewhere.
"""
from __future__ import annotations

import contextlib
import os

#: glibc ``mallopt`` parameters (malloc.h)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
#: blocks up to this size come from the heap (a 100,000-step column or FFT buffer: 0.8-1.6 MB), larger ones
#: are mapped (and unmapped when freed) as before
MMAP_BYTES = 4 << 20
#: free memory at the heap's top kept for the next temporaries (glibc's default is dynamic: twice the largest
#: block freed so far, about 1.6 MB in this analysis)
TRIM_BYTES = 16 << 20

_done: list[bool] = []


def roomy_heap() -> bool:
    """Set the process's allocator to :data:`MMAP_BYTES` / :data:`TRIM_BYTES` (once per process; it stays: at
    most :data:`TRIM_BYTES` more memory is kept). True when set (glibc), False elsewhere or when it failed."""
    if _done:
        return _done[0]
    ok = False
    with contextlib.suppress(AttributeError, OSError, ValueError, TypeError):
        if os.name == "posix" and (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            import ctypes

            libc = ctypes.CDLL(None)
            ok = bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_BYTES)) and bool(libc.mallopt(M_TRIM_THRESHOLD, TRIM_BYTES))
    _done.append(ok)
    return ok
