"""Nelder-Mead and bounded scalar minimisation: SciPy 1.17's own Python code
(``scipy/optimize/_optimize.py``: ``_minimize_neldermead``, ``_minimize_scalar_bounded``; BSD-3-Clause,
Copyright (c) 2001-2002 Enthought, Inc. and 2003-2024 SciPy Developers), trimmed to the options the
curve fits use (no bounds, callbacks, adaptive or display options), so that ``costmodel fit`` does not
import ``scipy.optimize`` (0.3-0.9 s). Same iterates, same results to the bit (tested against SciPy).

For a float64 start, Nelder-Mead keeps its simplex in Python floats (:func:`_neldermead_floats`): the same
IEEE operations in the same order as SciPy's array code (the centroid summed row by row, then divided by N;
reflection, expansion, contraction and shrink as SciPy writes them; the vertices ordered as ``np.argsort``
orders them), without the array overhead of each step (about half of a curve fit's polish).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class OptimizeResult:
    x: Any
    fun: Any
    nfev: int
    nit: int
    status: int
    success: bool


class _MaxFuncCallError(RuntimeError):
    pass


def minimize(fun: Callable[[np.ndarray], float], x0: Any, method: str = "Nelder-Mead",
             options: dict[str, Any] | None = None) -> OptimizeResult:
    """``scipy.optimize.minimize(fun, x0, method="Nelder-Mead", options=...)`` with the options
    ``xatol``, ``fatol``, ``maxiter``, ``maxfev``. Raises ValueError for another method or option."""
    if method.lower() != "nelder-mead":
        raise ValueError(f"only Nelder-Mead is available here, not {method!r}")
    opts = dict(options or {})
    unknown = set(opts) - {"xatol", "fatol", "maxiter", "maxfev"}
    if unknown:
        raise ValueError(f"unknown options {sorted(unknown)}")
    x0 = np.atleast_1d(np.asarray(x0))
    if x0.ndim != 1:
        raise ValueError("'x0' must only have one dimension.")
    if x0.dtype.kind in np.typecodes["AllInteger"]:
        x0 = np.asarray(x0, dtype=float)
    solve = _neldermead_floats if x0.dtype == np.float64 else _neldermead
    return solve(fun, x0, maxiter=opts.get("maxiter"), maxfun=opts.get("maxfev"),
                 xatol=opts.get("xatol", 1e-4), fatol=opts.get("fatol", 1e-4))


def _order(fsim: list[float]) -> list[int]:
    """``np.argsort(fsim)`` (as a list): Python's sort where the order is unique (no tie, no NaN), else numpy's own."""
    if len(set(fsim)) == len(fsim) and not any(v != v for v in fsim):
        return sorted(range(len(fsim)), key=fsim.__getitem__)
    return np.argsort(np.array(fsim, dtype=float)).tolist()


def _limits(N: int, maxiter: Any, maxfun: Any) -> tuple[Any, Any]:
    """SciPy's defaults of Nelder-Mead's iteration and evaluation limits: 200 per parameter, or unbounded when the
    other limit is given as ``inf``."""
    if maxiter is None and maxfun is None:
        return N * 200, N * 200
    if maxiter is None:
        return (N * 200 if maxfun == np.inf else np.inf), maxfun
    if maxfun is None:
        return maxiter, (N * 200 if maxiter == np.inf else np.inf)
    return maxiter, maxfun


def _neldermead_floats(func: Callable[[np.ndarray], float], x0: np.ndarray, maxiter: Any, maxfun: Any,
                       xatol: float, fatol: float) -> OptimizeResult:
    """:func:`_neldermead` for a float64 start with the simplex as lists of Python floats: the same iterates and
    the same result to the bit (tested against SciPy), at a fraction of the per-step overhead."""
    x0l = [float(v) for v in np.atleast_1d(x0).flatten()]
    rho, chi, psi, sigma = 1, 2, 0.5, 0.5
    nonzdelt, zdelt = 0.05, 0.00025
    N = len(x0l)
    sim = [list(x0l)]
    for k in range(N):
        y = list(x0l)
        y[k] = (1 + nonzdelt) * y[k] if y[k] != 0 else zdelt
        sim.append(y)
    maxiter, maxfun = _limits(N, maxiter, maxfun)
    fsim = [math.inf] * (N + 1)
    ncalls = 0

    def f(x: list[float]) -> float:
        nonlocal ncalls
        if ncalls >= maxfun:
            raise _MaxFuncCallError("Too many function calls")
        ncalls += 1
        fx = func(np.array(x, dtype=float))
        if type(fx) is not float:
            if not np.isscalar(fx):
                try:
                    fx = np.asarray(fx).item()
                except (TypeError, ValueError) as e:
                    raise ValueError("The objective function must return a scalar value.") from e
            fx = float(fx)  # type: ignore[arg-type]  # as stored in SciPy's float64 ``fsim``
        return fx

    def reorder() -> None:
        nonlocal sim, fsim
        ind = _order(fsim)
        sim = [sim[i] for i in ind]
        fsim = [fsim[i] for i in ind]

    try:
        for k in range(N + 1):
            fsim[k] = f(sim[k])
    except _MaxFuncCallError:
        pass
    finally:
        reorder()
    reorder()
    cols = range(N)
    iterations = 1
    while ncalls < maxfun and iterations < maxiter:
        try:
            s0, f0 = sim[0], fsim[0]
            # np.max(...) <= tol is False when a difference is NaN; so is all(... <= tol)
            if (all(abs(v[j] - s0[j]) <= xatol for v in sim[1:] for j in cols)
                    and all(abs(f0 - fv) <= fatol for fv in fsim[1:])):
                break
            last = sim[-1]
            xbar = []
            for j in cols:
                acc = sim[0][j]
                for i in range(1, N):
                    acc = acc + sim[i][j]
                xbar.append(acc / N)
            xr = [(1 + rho) * xb - rho * xl for xb, xl in zip(xbar, last, strict=True)]
            fxr = f(xr)
            doshrink = 0
            if fxr < fsim[0]:
                xe = [(1 + rho * chi) * xb - rho * chi * xl for xb, xl in zip(xbar, last, strict=True)]
                fxe = f(xe)
                if fxe < fxr:
                    sim[-1], fsim[-1] = xe, fxe
                else:
                    sim[-1], fsim[-1] = xr, fxr
            elif fxr < fsim[-2]:
                sim[-1], fsim[-1] = xr, fxr
            else:
                if fxr < fsim[-1]:  # contraction
                    xc = [(1 + psi * rho) * xb - psi * rho * xl for xb, xl in zip(xbar, last, strict=True)]
                    fxc = f(xc)
                    if fxc <= fxr:
                        sim[-1], fsim[-1] = xc, fxc
                    else:
                        doshrink = 1
                else:  # inside contraction
                    xcc = [(1 - psi) * xb + psi * xl for xb, xl in zip(xbar, last, strict=True)]
                    fxcc = f(xcc)
                    if fxcc < fsim[-1]:
                        sim[-1], fsim[-1] = xcc, fxcc
                    else:
                        doshrink = 1
                if doshrink:
                    for j in range(1, N + 1):
                        sim[j] = [a + sigma * (v - a) for a, v in zip(sim[0], sim[j], strict=True)]
                        fsim[j] = f(sim[j])
            iterations += 1
        except _MaxFuncCallError:
            pass
        reorder()
    warnflag = 1 if ncalls >= maxfun else 2 if iterations >= maxiter else 0
    fs = np.array(fsim, dtype=float)
    return OptimizeResult(x=np.array(sim[0], dtype=float), fun=np.min(fs), nfev=ncalls, nit=iterations,
                          status=warnflag, success=warnflag == 0)


def _neldermead(func: Callable[[np.ndarray], float], x0: np.ndarray, maxiter: Any, maxfun: Any, xatol: float,
                fatol: float) -> OptimizeResult:
    x0 = np.atleast_1d(x0).flatten()
    dtype = x0.dtype if np.issubdtype(x0.dtype, np.inexact) else np.float64
    x0 = np.asarray(x0, dtype=dtype)
    rho, chi, psi, sigma = 1, 2, 0.5, 0.5
    nonzdelt, zdelt = 0.05, 0.00025
    N = len(x0)
    sim = np.empty((N + 1, N), dtype=x0.dtype)
    sim[0] = x0
    for k in range(N):
        y = np.array(x0, copy=True)
        y[k] = (1 + nonzdelt) * y[k] if y[k] != 0 else zdelt
        sim[k + 1] = y
    maxiter, maxfun = _limits(N, maxiter, maxfun)
    one2np1 = list(range(1, N + 1))
    fsim = np.full((N + 1,), np.inf, dtype=float)
    ncalls = [0]

    def f(x: np.ndarray) -> float:
        if ncalls[0] >= maxfun:
            raise _MaxFuncCallError("Too many function calls")
        ncalls[0] += 1
        fx = func(np.copy(x))
        if not np.isscalar(fx):
            try:
                fx = np.asarray(fx).item()
            except (TypeError, ValueError) as e:
                raise ValueError("The objective function must return a scalar value.") from e
        return fx  # type: ignore[return-value]

    try:
        for k in range(N + 1):
            fsim[k] = f(sim[k])
    except _MaxFuncCallError:
        pass
    finally:
        ind = np.argsort(fsim)
        sim = np.take(sim, ind, 0)
        fsim = np.take(fsim, ind, 0)
    ind = np.argsort(fsim)
    fsim = np.take(fsim, ind, 0)
    sim = np.take(sim, ind, 0)
    iterations = 1
    while ncalls[0] < maxfun and iterations < maxiter:
        try:
            if (np.max(np.ravel(np.abs(sim[1:] - sim[0]))) <= xatol and
                    np.max(np.abs(fsim[0] - fsim[1:])) <= fatol):
                break
            xbar = np.add.reduce(sim[:-1], 0) / N
            xr = (1 + rho) * xbar - rho * sim[-1]
            fxr = f(xr)
            doshrink = 0
            if fxr < fsim[0]:
                xe = (1 + rho * chi) * xbar - rho * chi * sim[-1]
                fxe = f(xe)
                if fxe < fxr:
                    sim[-1] = xe
                    fsim[-1] = fxe
                else:
                    sim[-1] = xr
                    fsim[-1] = fxr
            elif fxr < fsim[-2]:
                sim[-1] = xr
                fsim[-1] = fxr
            else:
                if fxr < fsim[-1]:  # contraction
                    xc = (1 + psi * rho) * xbar - psi * rho * sim[-1]
                    fxc = f(xc)
                    if fxc <= fxr:
                        sim[-1] = xc
                        fsim[-1] = fxc
                    else:
                        doshrink = 1
                else:  # inside contraction
                    xcc = (1 - psi) * xbar + psi * sim[-1]
                    fxcc = f(xcc)
                    if fxcc < fsim[-1]:
                        sim[-1] = xcc
                        fsim[-1] = fxcc
                    else:
                        doshrink = 1
                if doshrink:
                    for j in one2np1:
                        sim[j] = sim[0] + sigma * (sim[j] - sim[0])
                        fsim[j] = f(sim[j])
            iterations += 1
        except _MaxFuncCallError:
            pass
        ind = np.argsort(fsim)
        sim = np.take(sim, ind, 0)
        fsim = np.take(fsim, ind, 0)
    warnflag = 1 if ncalls[0] >= maxfun else 2 if iterations >= maxiter else 0
    return OptimizeResult(x=sim[0], fun=np.min(fsim), nfev=ncalls[0], nit=iterations, status=warnflag,
                          success=warnflag == 0)


def _finite_scalar(v: Any) -> bool:
    """SciPy's ``is_finite_scalar``: a scalar (numpy or Python) that is finite."""
    return bool(np.size(v) == 1 and np.isfinite(v))


def minimize_scalar(fun: Callable[[float], float], bounds: tuple[float, float], method: str = "bounded",
                    options: dict[str, Any] | None = None) -> OptimizeResult:
    """``scipy.optimize.minimize_scalar(fun, bounds=..., method="bounded", options=...)`` (Brent's
    bounded minimiser, as ``fminbound``) with the options ``xatol`` and ``maxiter``. Raises ValueError for
    another method or option, or bounds that are not two finite numbers in order."""
    if method.lower() != "bounded":
        raise ValueError(f"only the bounded method is available here, not {method!r}")
    opts = dict(options or {})
    unknown = set(opts) - {"xatol", "maxiter"}
    if unknown:
        raise ValueError(f"unknown options {sorted(unknown)}")
    xatol, maxfun = opts.get("xatol", 1e-5), opts.get("maxiter", 500)
    if len(bounds) != 2:
        raise ValueError("bounds must have two elements.")
    x1: Any = bounds[0]
    x2: Any = bounds[1]
    if not (_finite_scalar(x1) and _finite_scalar(x2)):
        raise ValueError("Optimization bounds must be finite scalars.")
    if x1 > x2:
        raise ValueError("The lower bound exceeds the upper bound.")
    flag = 0
    sqrt_eps = math.sqrt(2.2e-16)
    golden_mean = 0.5 * (3.0 - math.sqrt(5.0))
    a, b = x1, x2
    fulc = a + golden_mean * (b - a)
    nfc, xf = fulc, fulc
    rat: Any = 0.0
    e: Any = 0.0
    x: Any = xf
    fx: Any = fun(x)
    num = 1
    fu: Any = np.inf
    ffulc = fnfc = fx
    xm = 0.5 * (a + b)
    tol1 = sqrt_eps * np.abs(xf) + xatol / 3.0
    tol2 = 2.0 * tol1
    while np.abs(xf - xm) > (tol2 - 0.5 * (b - a)):
        golden = 1
        if np.abs(e) > tol1:  # parabolic fit
            golden = 0
            r = (xf - nfc) * (fx - ffulc)
            q = (xf - fulc) * (fx - fnfc)
            p = (xf - fulc) * q - (xf - nfc) * r
            q = 2.0 * (q - r)
            if q > 0.0:
                p = -p
            q = np.abs(q)
            r = e
            e = rat
            if (np.abs(p) < np.abs(0.5 * q * r)) and (p > q * (a - xf)) and (p < q * (b - xf)):
                rat = (p + 0.0) / q
                x = xf + rat
                if ((x - a) < tol2) or ((b - x) < tol2):
                    si = np.sign(xm - xf) + ((xm - xf) == 0)
                    rat = tol1 * si
            else:
                golden = 1
        if golden:  # golden-section step
            e = a - xf if xf >= xm else b - xf
            rat = golden_mean * e
        si = np.sign(rat) + (rat == 0)
        x = xf + si * np.maximum(np.abs(rat), tol1)
        fu = fun(x)
        num += 1
        if fu <= fx:
            if x >= xf:
                a = xf
            else:
                b = xf
            fulc, ffulc = nfc, fnfc
            nfc, fnfc = xf, fx
            xf, fx = x, fu
        else:
            if x < xf:
                a = x
            else:
                b = x
            if (fu <= fnfc) or (nfc == xf):
                fulc, ffulc = nfc, fnfc
                nfc, fnfc = x, fu
            elif (fu <= ffulc) or (fulc == xf) or (fulc == nfc):  # noqa: SIM109  SciPy's test (`in` would match NaN by identity)
                fulc, ffulc = x, fu
        xm = 0.5 * (a + b)
        tol1 = sqrt_eps * np.abs(xf) + xatol / 3.0
        tol2 = 2.0 * tol1
        if num >= maxfun:
            flag = 1
            break
    if np.isnan(xf) or np.isnan(fx) or np.isnan(fu):
        flag = 2
    fval = np.asarray(fx)[()]
    return OptimizeResult(x=np.reshape(xf, fval.shape)[()], fun=fval, nfev=num, nit=num, status=flag,
                          success=flag == 0)
