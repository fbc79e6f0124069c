"""SciPy (1.17): the running median's compiled kernel loaded without SciPy's package imports, the same C function,
so the same numbers.

``import scipy.ndimage`` costs 0.22 CPU-s here, almost all of it ``scipy.special`` (which ``scipy.ndimage``
imports: its array-API wrappers and docstrings), for one kernel the analysis needs: the 1-D running median
(``scipy.ndimage._rank_filter_1d``, what ``median_filter`` calls for a 1-D float64 series). Loaded directly it
costs 0.001 s. What this leans on (private to SciPy, so checked on :data:`TESTED` and again at run time): the rank
filter's file ``scipy/ndimage/_rank_filter_1d.*`` loads on its own (no package stand-in), its function takes
``(x, rank, size, out, mode, cval, origin)`` and ``mode=2`` is ``"reflect"``.

The kernel must pass a check against a reflected median worked out by hand before it is used; when SciPy is
missing, its version is outside :data:`TESTED`, the file is not there or the check fails, the callers use
``scipy.ndimage.median_filter`` (the same numbers, the old cost). ``sys.modules`` is left as it was. (Student's t,
which needed ``scipy.special``, is computed in pure Python: :mod:`costmodel.numeric.student_t`.)
"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

#: the SciPy releases the private parts above were checked on
TESTED = {"scipy": ("1.17", "1.18")}
#: the module of ``scipy.ndimage``'s 1-D rank filter and the code of ``mode="reflect"`` it takes
#: (``scipy.ndimage._ni_support._extend_mode_to_code("reflect", is_filter=True)``)
RANK_FILTER_MODULE, REFLECT = "scipy.ndimage._rank_filter_1d", 2
_lock = threading.Lock()
_cache: dict[str, Any] = {}


def _scipy_folder(sub: str) -> str | None:
    """SciPy's subfolder ``sub`` when SciPy is installed in a release of :data:`TESTED`, else None."""
    if "in_range" not in _cache:  # (reading the installed version costs a few ms: once)
        from . import in_tested_range

        ok, have = in_tested_range("scipy", TESTED["scipy"])
        _cache["in_range"] = ok and have is not None
    if not _cache["in_range"]:
        return None
    spec = importlib.util.find_spec("scipy")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(next(iter(spec.submodule_search_locations)), sub)


def _rank_filter_direct() -> Callable[..., Any] | None:
    import numpy as np

    folder = _scipy_folder("ndimage")
    if folder is None:
        return None
    path = next((os.path.join(folder, "_rank_filter_1d" + s) for s in importlib.machinery.EXTENSION_SUFFIXES
                 if os.path.isfile(os.path.join(folder, "_rank_filter_1d" + s))), None)
    if path is None:
        return None
    loader = importlib.machinery.ExtensionFileLoader(RANK_FILTER_MODULE, path)
    spec = importlib.util.spec_from_file_location(RANK_FILTER_MODULE, path, loader=loader)
    if spec is None:
        return None
    mod = importlib.util.module_from_spec(spec)  # registers it in sys.modules: taken out again below
    try:
        loader.exec_module(mod)
    finally:
        sys.modules.pop(RANK_FILTER_MODULE, None)
    fn = getattr(mod, "rank_filter", None)
    if fn is None:
        return None
    # the check: the reflected running median of a series with ties, both ends included, worked out by hand
    probe = np.array([5.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0])
    want = {3: [5, 4, 1, 4, 5, 5, 6, 5, 5, 3], 5: [4, 4, 4, 4, 4, 5, 5, 5, 3, 5]}
    for size, expected in want.items():
        got = np.empty_like(probe)
        fn(probe, size // 2, size, got, REFLECT, 0.0, 0)
        if got.tolist() != [float(v) for v in expected]:
            return None
    return fn


def rank_filter_1d() -> Callable[..., Any] | None:
    """``scipy.ndimage``'s 1-D rank filter ``f(x, rank, size, out, mode, cval, origin)`` (``x`` and ``out``
    contiguous float64), what ``scipy.ndimage.median_filter`` calls for a 1-D float64 series with
    ``rank = size // 2`` and ``mode = REFLECT``; None when it cannot be loaded or fails its check (then use
    ``scipy.ndimage.median_filter`` itself)."""
    with _lock:
        if "rank_filter" not in _cache:
            mod = sys.modules.get(RANK_FILTER_MODULE)
            try:
                _cache["rank_filter"] = getattr(mod, "rank_filter", None) if mod is not None else _rank_filter_direct()
            except (ImportError, OSError, TypeError, ValueError, RuntimeError, AttributeError):
                _cache["rank_filter"] = None
        return _cache["rank_filter"]
