"""OpenBLAS's worker threads of an analysis process sleep when their work is done instead of spinning.

numpy's OpenBLAS runs a product on its worker threads (as many as cores), and after each one the workers
busy-wait for the next for up to ``2**28`` CPU cycles (its ``THREAD_TIMEOUT``; about 0.1 s) before they sleep.
The analysis makes thousands of small products between other work, so on a 2-core machine the spinning cost
``costmodel compare`` at 10 ranks 0.7-0.9 CPU-s of its 2.3-2.8 (BENCHMARKS.md, "the small fleet"). With
``OPENBLAS_THREAD_TIMEOUT=4`` (OpenBLAS's smallest: ``2**4`` cycles) they sleep at once. The number of threads and
how a product is split among them are unchanged, so every number is the same to the bit (a single thread would
change the sums of long dot products in the last bit). OpenBLAS reads the variable when numpy loads it: the
variable is set around that import and put back as it was (child processes see the user's environment).
"""
from __future__ import annotations

import os
import sys

#: OpenBLAS's variables for the spin time (``GOTO_`` is its older name); a user's own value is kept
TIMEOUT_VARS = ("OPENBLAS_THREAD_TIMEOUT", "GOTO_THREAD_TIMEOUT")
#: the smallest timeout OpenBLAS accepts (``2**4`` cycles)
QUIET_TIMEOUT = "4"


def quiet_blas_threads() -> bool:
    """Import numpy with OpenBLAS's spin timeout at :data:`QUIET_TIMEOUT` unless numpy is imported already or the
    user set one of :data:`TIMEOUT_VARS`. True when numpy was imported so here."""
    if "numpy" in sys.modules or any(v in os.environ for v in TIMEOUT_VARS):
        return False
    os.environ[TIMEOUT_VARS[0]] = QUIET_TIMEOUT
    try:
        import numpy  # noqa: F401  (loads OpenBLAS, which reads the variable now)
    finally:
        os.environ.pop(TIMEOUT_VARS[0], None)
    return True
