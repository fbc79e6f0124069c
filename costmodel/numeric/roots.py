"""Brent's root finder without scipy: ``costmodel cost`` needs one root per break-even input, and importing
``scipy.optimize`` for it took most of the verb's start-up (0.3-0.9 s of a sub-second answer).

:func:`brentq` is a line-by-line port of SciPy's ``brentq.c`` (Brent 1973, as in
``scipy.optimize.brentq``): the same iterates, so the same root to the last bit (tested against SciPy).
"""
from __future__ import annotations

import math
from collections.abc import Callable

from ..foundation.errors import AnalysisError


def brentq(f: Callable[[float], float], a: float, b: float, xtol: float = 2e-12, rtol: float = 8.881784197001252e-16,
           maxiter: int = 100) -> float:
    """A root of ``f`` in ``[a, b]`` where ``f(a)`` and ``f(b)`` have opposite signs (as ``scipy.optimize.brentq``).

    Converged when the bracket is below ``xtol + rtol * |x|``. Raises ValueError when ``f(a)`` and ``f(b)``
    have the same sign or ``f`` gives NaN (as SciPy), AnalysisError when ``maxiter`` iterations do not converge.
    """
    if xtol <= 0:
        raise ValueError(f"xtol too small ({xtol:g} <= 0)")
    def f_checked(x: float) -> float:
        fx = float(f(x))
        if math.isnan(fx):  # as SciPy: a NaN is an error, not a value to bracket
            raise ValueError(f"the function value at x={x} is NaN; the solver cannot continue")
        return fx

    xpre, xcur = float(a), float(b)
    xblk = fblk = spre = scur = 0.0
    fpre, fcur = f_checked(xpre), f_checked(xcur)
    if fpre == 0:
        return xpre
    if fcur == 0:
        return xcur
    if math.copysign(1.0, fpre) == math.copysign(1.0, fcur):
        raise ValueError("f(a) and f(b) must have different signs")
    for _ in range(maxiter):
        if fpre != 0 and fcur != 0 and math.copysign(1.0, fpre) != math.copysign(1.0, fcur):
            xblk, fblk = xpre, fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (xtol + rtol * abs(xcur)) / 2
        sbis = (xblk - xcur) / 2
        if fcur == 0 or abs(sbis) < delta:
            return xcur
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:
                stry = -fcur * (xcur - xpre) / (fcur - fpre)  # interpolate
            else:  # extrapolate (inverse quadratic)
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):
                spre, scur = scur, stry  # good short step
            else:
                spre = scur = sbis  # bisect
        else:
            spre = scur = sbis  # bisect
        xpre, fpre = xcur, fcur
        xcur += scur if abs(scur) > delta else (delta if sbis > 0 else -delta)
        fcur = f_checked(xcur)
    raise AnalysisError(f"root finding did not converge in {maxiter} iterations (last estimate {xcur:.17g})")
