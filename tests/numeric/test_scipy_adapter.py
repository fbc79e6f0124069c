"""SciPy's running-median kernel loaded without its package imports (costmodel.foundation.adapters.scipy_adapter): the
same numbers as scipy.ndimage, no ``scipy.special`` or ``scipy.ndimage`` in ``sys.modules`` (Student's t is pure
Python, within 1e-12 of SciPy), and SciPy's own import working afterwards. Each case runs in a fresh interpreter (the direct path needs SciPy unimported)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PROBE = r"""
import json, sys
import numpy as np
from costmodel.numeric import stats
from costmodel.numeric.filters import median_filter
from costmodel.foundation.adapters.scipy_adapter import rank_filter_1d

rng = np.random.default_rng(11)
series = []
for t in range(60):  # every series takes SciPy's kernel: NaN in it (any length) or over NUMPY_MAX_ELEMENTS
    n = int(rng.integers(300, 60_000)) if t % 2 else int(rng.integers(45_000, 120_000))
    size = int(rng.integers(1, 120)) * 2 + 1 if t % 2 else int(rng.integers(50, 120)) * 2 + 1
    y = rng.normal(0, 1, n)
    if t % 3 == 0:
        y = np.round(y * 3)  # ties, and -0.0 beside 0.0
    if t % 2:
        y[rng.integers(0, n, n // 40 + 1)] = np.nan
    if t % 5 == 0:
        y[rng.integers(0, n, n // 10)] = -0.0
    series.append((y, size))
ours = [median_filter(y, size) for y, size in series]
qs = [(float(q), float(df)) for q, df in zip(rng.uniform(0.5, 0.999, 200), rng.uniform(0.5, 300, 200))]
t_ours = [stats.t.ppf(q, df) for q, df in qs] + [stats.t.sf(2.0 * q, df) for q, df in qs]
direct = {"rank_filter": rank_filter_1d() is not None,
          "left": sorted(k for k in sys.modules if k.startswith(("scipy.special", "scipy.ndimage")))}
import scipy.ndimage, scipy.special, scipy.stats  # SciPy's own import still works after the direct loads
ref = [scipy.ndimage.median_filter(y, size=size, mode="reflect") for y, size in series]
t_ref = [float(scipy.stats.t.ppf(q, df)) for q, df in qs] + [float(scipy.stats.t.sf(2.0 * q, df)) for q, df in qs]
print(json.dumps({"direct": direct,
                  "median_same": sum(a.tobytes() == b.tobytes() for a, b in zip(ours, ref)), "n": len(series),
                  "t_same": sum(abs(a - b) <= 1e-12 * abs(b) for a, b in zip(t_ours, t_ref)), "n_t": len(t_ref),
                  "gamma": float(scipy.special.gamma(4.5))}))
"""


def test_direct_kernels_give_scipys_numbers_and_leave_scipy_importable():
    r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=REPO, timeout=600, check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    d = json.loads(r.stdout)
    assert d["direct"]["rank_filter"]
    assert d["direct"]["left"] == []  # neither package half-imported
    assert d["median_same"] == d["n"] == 60  # byte for byte, NaN, ties and -0.0 included
    assert d["t_same"] == d["n_t"] == 400  # t.ppf off the table and t.sf: within 1e-12 of stdtrit / stdtr
    assert abs(d["gamma"] - 11.631728396567448) < 1e-12  # scipy.special whole after the direct load


FALLBACK = r"""
import json, sys
import numpy as np
import costmodel.foundation.adapters.scipy_adapter as k
PATCH
from costmodel.numeric import stats
from costmodel.numeric.filters import median_filter
y = np.random.default_rng(2).normal(0, 1, 100_000)
ours, t_ours, kernel = median_filter(y, 101), stats.t.ppf(0.975, 37.4), k.rank_filter_1d()
import scipy.ndimage, scipy.stats
print(json.dumps({"kernel": kernel is None, "special": "scipy.special" in sys.modules,
                  "median": ours.tobytes() == scipy.ndimage.median_filter(y, size=101, mode="reflect").tobytes(),
                  "t": abs(t_ours - float(scipy.stats.t.ppf(0.975, 37.4))) <= 1e-12 * t_ours}))
"""


@pytest.mark.parametrize("patch", [
    "k._scipy_folder = lambda sub: None  # as if SciPy's files were not where they are",
    "k.TESTED = {'scipy': ('0.1', '0.2')}  # an installed SciPy outside the range the adapter was checked on",
])
def test_without_the_direct_kernels_the_public_imports_give_the_same_numbers(patch):
    r = subprocess.run([sys.executable, "-c", FALLBACK.replace("PATCH", patch)], capture_output=True, text=True,
                       cwd=REPO, timeout=300, check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    assert json.loads(r.stdout) == {"kernel": True, "special": True, "median": True, "t": True}  # special: by ndimage
