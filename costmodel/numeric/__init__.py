"""Numerical kernels without SciPy at import: each gives the numbers of the SciPy function it stands for.

``costmodel fit`` of a 10,000-step log computes for about 0.1 s and used to import ``scipy.stats`` and
``scipy.optimize`` for a handful of small calls (0.8-1.5 s of start-up on a 2-core machine); ``costmodel
cost`` imported ``scipy.optimize`` for one root per break-even input. Modules:

* :mod:`.roots`: ``brentq`` (a port of SciPy's ``brentq.c``);
* :mod:`.optimize`: ``minimize`` (Nelder-Mead) and ``minimize_scalar`` (bounded), SciPy 1.17's own
  Python code trimmed to the options used;
* :mod:`.robust`: ``theilslopes`` (median of pairwise slopes) and ``isotonic_regression`` (PAVA);
* :mod:`.stats`: ``t.ppf`` / ``t.sf`` of Student's t from a table of SciPy's values for the quantiles the
  analysis asks at whole degrees of freedom, else :mod:`.student_t` (the incomplete beta function in pure
  Python, within 1e-12 of SciPy: a comparison's Welch df no longer imports ``scipy.special``, 0.2-0.3 s);
* :mod:`.filters`: ``median_filter`` (``mode="reflect"``) with numpy for short series, SciPy's
  ``ndimage`` kernel for long ones;
* that SciPy kernel (the 1-D rank filter) is loaded by
  :mod:`costmodel.foundation.adapters.scipy_adapter` without importing ``scipy.ndimage`` (and with it
  ``scipy.special``, 0.2 CPU-s), checked before use, the public import as the fallback;
* :mod:`.memo`: the last few results of a pure function of one series, found again by the series' bits.

Equality with SciPy (to the bit; Student's t beyond the table to 1e-12) is tested in
``tests/numeric/``. Pure functions; no costmodel imports beyond :mod:`costmodel.errors` and the SciPy adapter.
"""
