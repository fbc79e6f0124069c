"""Warm-up curve models, fitted by variable projection on block means, chosen by BIC.

Every model is ``y = a + b * g(x; theta)``: linear in (a, b) for a fixed shape parameter ``theta``,
so for each ``theta`` the least-squares (a, b) and residual sum of squares are closed-form. A grid
over ``theta`` (vectorised: all grid points at once) is followed by a Nelder-Mead polish of the
profiled RSS. Models (S = plateau, C = initial level):

=============  ===================================================  =================
``constant``   ``y = S``                                            1 parameter
``exp``        ``y = S - (S - C) * exp(-x / tau)``                  3 parameters
``ramp``       ``y = C + (S - C) * min(x / t0, 1)``                 3 parameters
``step``       ``y = C`` before ``t0``, ``S`` after                 3 parameters
``power``      ``y = S - (S - C) * (1 + x / tau) ** -alpha``        4 parameters
``logistic``   ``y = C + (S - C) / (1 + exp(-(x - x0) / s))``       4 parameters
``exp2``       ``y = S - (S - C) ((1-w) e^(-x/tau) + w e^(-x/(k tau)))``  5 parameters (two-tier
               cache: a fast first tier, then a slower second one)
=============  ===================================================  =================

Selection criterion: the lowest BIC = ``n log(RSS / n) + k log(n)`` over block means (block means
make the residuals nearly independent, so BIC does not reward complexity for autocorrelation).
Derived times (on the fitting axis): ``tau`` (63.2 % of the rise covered; equals tau for ``exp``), and
``t95`` / ``t99`` (first x from which the curve stays within 5 % / 1 % of its plateau).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .curve_published import published_params, published_plateau

MODELS = ("constant", "exp", "ramp", "step", "power", "logistic", "exp2")
N_PARAMS = {"constant": 1, "exp": 3, "ramp": 3, "step": 3, "power": 4, "logistic": 4, "exp2": 5}
#: The shape parameters of each model, in the order of ``CurveFit.theta``.
PARAM_NAMES: dict[str, tuple[str, ...]] = {"exp": ("tau",), "ramp": ("t0",), "step": ("t0",), "power": ("tau", "alpha"),
                                           "logistic": ("x0", "s"), "constant": (), "exp2": ("tau", "k", "w")}


@dataclass
class CurveFit:
    """One fitted model. Times are on the fitting axis (steps or seconds)."""

    model: str
    a: float
    b: float
    theta: tuple[float, ...]
    rss: float
    n: int
    k: int
    x_first: float
    tss: float
    #: shape parameters the data do not determine (:func:`unidentified_params`): published as null
    unidentified: tuple[str, ...] = ()

    @property
    def bic(self) -> float:
        return float(self.n * np.log(max(self.rss, 1e-300) / self.n) + self.k * np.log(self.n))

    @property
    def r2(self) -> float:
        return float(1.0 - self.rss / self.tss) if self.tss > 0 else float("nan")

    def g(self, x: np.ndarray) -> np.ndarray:
        return _basis(self.model, np.asarray(x, dtype=float) - self.x_first, self.theta)

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.a + self.b * self.g(x)

    @property
    def plateau(self) -> float:
        if self.model in ("exp", "power", "exp2"):
            return self.a
        return self.a + self.b if self.model != "constant" else self.a

    @property
    def initial(self) -> float:
        return float(self.predict(np.array([self.x_first]))[0])

    def time_within(self, eps: float) -> float | None:
        """First x from which the curve stays within ``eps * |plateau|`` of the plateau (None: never)."""
        S = self.plateau
        tol = eps * abs(S)
        if self.model == "constant":
            return self.x_first
        return _crossing(lambda x: abs(self.predict(np.array([x]))[0] - S) - tol, self.x_first, self._x_hi())

    def tau(self) -> float | None:
        """x (from the start of the axis) at which 63.2 % of the rise is covered."""
        if self.model == "constant":
            return None
        S = self.plateau
        gap0 = abs(self.initial - S)
        if gap0 <= 0:
            return None
        x = _crossing(lambda x: abs(self.predict(np.array([x]))[0] - S) - gap0 * np.exp(-1.0),
                      self.x_first, self._x_hi())
        return None if x is None else x - self.x_first

    def _x_hi(self) -> float:
        span = max((*self.theta, 1.0)) if self.theta else 1.0
        return self.x_first + 1e4 * max(span, 1.0)

    def params(self) -> dict[str, Any]:
        return {k: float(v) for k, v in zip(PARAM_NAMES[self.model], self.theta, strict=False)}


def _crossing(h: Callable[[float], float], lo: float, hi: float) -> float | None:
    """Last x where h goes from > 0 to <= 0 for a monotone gap (h decreasing); lo if h(lo) <= 0."""
    from ..numeric.roots import brentq

    if h(lo) <= 0:
        return lo
    if h(hi) > 0:
        return None
    try:
        return float(brentq(h, lo, hi, xtol=1e-9 * max(1.0, abs(hi)), maxiter=200))
    except ValueError:
        return None


def _basis(model: str, x: np.ndarray, theta: tuple[float, ...]) -> np.ndarray:
    if model == "constant":
        return np.zeros_like(x)
    if model == "exp":
        return -np.exp(-x / theta[0])
    if model == "power":
        return -((1.0 + np.maximum(x, 0) / theta[0]) ** (-theta[1]))
    if model == "exp2":
        k = max(theta[1], 1.5)
        w = min(max(theta[2], 0.0), 0.95)
        return -((1.0 - w) * np.exp(-x / theta[0]) + w * np.exp(-x / (k * theta[0])))
    if model == "logistic":
        z = np.clip((x - theta[0]) / theta[1], -500, 500)
        return 1.0 / (1.0 + np.exp(-z))
    if model == "ramp":
        return np.minimum(np.maximum(x, 0) / theta[0], 1.0)
    if model == "step":
        return (x >= theta[0]).astype(float)
    raise ValueError(model)


def _profile(y: np.ndarray, G: np.ndarray,
             centred: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each row g of G: least squares of y on [1, g]; returns (a, b, rss) arrays. ``centred``:
    :func:`_centre` of ``G`` computed before (it does not depend on ``y``); the same result."""
    yc = y - y.mean()
    gm, gc, sgg = centred if centred is not None else _centre(G)
    sgy = gc @ yc
    safe = np.where(sgg > 1e-300, sgg, 1.0)
    b = np.where(sgg > 1e-300, sgy / safe, 0.0)
    a = y.mean() - b * gm[:, 0]
    rss = float(yc @ yc) - np.where(sgg > 1e-300, sgy * sgy / safe, 0.0)
    return a, b, np.maximum(rss, 0.0)


def _centre(G: np.ndarray, inplace: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows of ``G`` less their means (``inplace``: in ``G`` itself), with those means (a column) and their
    sums of squares."""
    gm = G.mean(axis=1, keepdims=True)
    gc = np.subtract(G, gm, out=G if inplace else None)
    return gm, gc, np.einsum("ij,ij->i", gc, gc)


def _grid(model: str, span: float, dx: float, xs: np.ndarray) -> list[tuple[float, ...]]:
    lo = max(dx * 0.5, span * 1e-4)
    if model == "exp":
        return [(t,) for t in np.geomspace(lo, 3.0 * span, 60)]
    if model == "exp2":
        return [(t, k, w) for k in (3.0, 6.0, 12.0) for w in (0.05, 0.12, 0.25, 0.45)
                for t in np.geomspace(lo, span, 25)]
    if model == "power":
        return [(t, a) for a in (0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0) for t in np.geomspace(lo, 3.0 * span, 30)]
    if model == "logistic":
        return [(x0, s) for x0 in np.linspace(0, span, 40) for s in np.geomspace(lo, span / 2, 20)]
    if model == "ramp":
        return [(t,) for t in np.unique(np.concatenate([xs[1:], [span]]))]
    if model == "step":
        return [(t,) for t in xs[1:]]
    raise ValueError(model)


def _grid_basis(model: str, xs: np.ndarray, grid: list[tuple[float, ...]]) -> np.ndarray:
    """``np.stack([_basis(model, xs, th) for th in grid])`` computed a block of rows at a time: the same
    element-wise operations on the same values (each transcendental call on a C-contiguous block, as on
    a row), so the same bits, without one Python call per grid point. O(len(grid) * len(xs))."""
    th = np.array(grid, dtype=float).reshape(len(grid), -1)
    col = th[:, :1]
    if model == "exp":
        G = -xs[None, :] / col
        np.exp(G, out=G)
        return np.negative(G, out=G)
    if model == "ramp":
        G = np.maximum(xs, 0)[None, :] / col
        return np.minimum(G, 1.0, out=G)
    if model == "step":
        return (xs[None, :] >= col).astype(float)
    if model == "logistic":
        G = xs[None, :] - col
        G /= th[:, 1:2]
        np.minimum(np.maximum(G, -500.0, out=G), 500.0, out=G)  # np.clip(z, -500, 500)
        np.negative(G, out=G)
        np.exp(G, out=G)
        G += 1.0
        return np.divide(1.0, G, out=G)  # 1 / (1 + exp(-z))
    if model == "power":
        # the exponent is one Python float per block of rows, as in _basis (numpy's scalar-power fast paths)
        xp = np.maximum(xs, 0)[None, :]
        G = np.empty((len(grid), len(xs)))
        for alpha in dict.fromkeys(th[:, 1].tolist()):
            rows = th[:, 1] == alpha
            B = xp / th[rows, :1]
            B += 1.0
            B = B ** (-alpha)  # the operator, as _basis: its fast path for -1.0 is a reciprocal
            G[rows] = np.negative(B, out=B)
        return G
    if model == "exp2":
        k = np.maximum(th[:, 1:2], 1.5)
        w = np.minimum(np.maximum(th[:, 2:3], 0.0), 0.95)
        nx = -xs[None, :]
        G = nx / col
        np.exp(G, out=G)
        G *= 1.0 - w
        E = nx / (k * col)
        np.exp(E, out=E)
        E *= w
        G += E
        return np.negative(G, out=G)
    raise ValueError(model)


def _shape(model: str, xs: np.ndarray) -> Callable[[tuple[float, ...]], np.ndarray]:
    """``lambda theta: _basis(model, xs, theta)`` with what does not depend on ``theta`` computed once
    (the same operations on the same values: the same bits). For the polish and the identifiability probe."""
    nx = -xs
    xp = np.maximum(xs, 0)
    if model == "exp":
        return lambda th: -np.exp(nx / th[0])
    if model == "power":
        return lambda th: -((1.0 + xp / th[0]) ** (-th[1]))

    if model == "exp2":
        def exp2(th: tuple[float, ...]) -> np.ndarray:
            k = max(th[1], 1.5)
            w = min(max(th[2], 0.0), 0.95)
            return -((1.0 - w) * np.exp(nx / th[0]) + w * np.exp(nx / (k * th[0])))
        return exp2

    if model == "logistic":
        def logistic(th: tuple[float, ...]) -> np.ndarray:
            # -clip((x - x0) / s, -500, 500) is clip((x0 - x) / s, -500, 500) exactly (IEEE subtraction and
            # division are odd in their sign; the bounds are symmetric; exp(-0.0) = exp(0.0))
            z = np.subtract(th[0], xs)
            z /= th[1]
            np.minimum(np.maximum(z, -500.0, out=z), 500.0, out=z)
            np.exp(z, out=z)
            np.add(z, 1.0, out=z)
            return np.divide(1.0, z, out=z)  # 1 / (1 + exp(-z))
        return logistic

    if model == "ramp":
        return lambda th: np.minimum(xp / th[0], 1.0)
    return lambda th: _basis(model, xs, th)


class _Axis:
    """The fitting axis ``xs`` (from 0) with each model's grid, its basis rows and their centring, computed once
    and shared by the fits of the same axis (the rate and the time-per-step fits of :func:`select`)."""

    def __init__(self, xs: np.ndarray) -> None:
        self.xs = xs
        n = len(xs)
        self.span = float(xs[-1]) if n > 1 and xs[-1] > 0 else 1.0
        self.dx = float(np.median(np.diff(xs))) if n > 1 else 1.0
        self._grids: dict[str, tuple[list[tuple[float, ...]], tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
        self._shapes: dict[str, Callable[[tuple[float, ...]], np.ndarray]] = {}

    def grid(self, model: str) -> tuple[list[tuple[float, ...]], tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(grid, :func:`_centre` of its basis rows) of ``model``."""
        if model not in self._grids:
            grid = _grid(model, self.span, self.dx, self.xs)
            self._grids[model] = (grid, _centre(_grid_basis(model, self.xs, grid), inplace=True))
        return self._grids[model]

    def shape(self, model: str) -> Callable[[tuple[float, ...]], np.ndarray]:
        if model not in self._shapes:
            self._shapes[model] = _shape(model, self.xs)
        return self._shapes[model]


class _Projection:
    """The variable projection of ``y`` on ``[1, g]`` for one basis row ``g``: :func:`_profile` on a one-row
    ``G`` with the parts that depend on ``y`` alone computed once and the rest on scalars: the same floating-point
    operations in the same order, so the same (a, b, rss) to the bit, at a fraction of the array overhead
    (the polish evaluates it 100-400 times per model)."""

    def __init__(self, y: np.ndarray) -> None:
        self.n = len(y)
        self.ymean = float(y.mean())
        self.yc = y - self.ymean
        self.yy = float(self.yc @ self.yc)

    def __call__(self, g: np.ndarray) -> tuple[float, float, float]:
        """(a, b, rss) of the least squares of y on [1, g]."""
        gm = float(np.add.reduce(g) / self.n)  # ndarray.mean's own (pairwise) sum and division
        gc = g.reshape(1, -1) - gm
        sgg = float(np.einsum("ij,ij->i", gc, gc)[0])
        sgy = float((gc @ self.yc)[0])
        if sgg > 1e-300:
            b = sgy / sgg
            rss = self.yy - sgy * sgy / sgg
        else:
            b, rss = 0.0, self.yy - 0.0
        a = self.ymean - b * gm
        return a, b, rss if not rss < 0.0 else 0.0

    def rss(self, g: np.ndarray) -> float:
        return self(g)[2]


def fit_model(model: str, x: np.ndarray, y: np.ndarray) -> CurveFit:
    """Fit one model to (x, y) (block means). Raises ValueError for an unknown model."""
    x = np.asarray(x, dtype=float)
    return _fit_model(model, x, y, _Axis(x - float(x[0])))


def _fit_model(model: str, x: np.ndarray, y: np.ndarray, axis: _Axis) -> CurveFit:
    """:func:`fit_model` on ``axis`` (``x`` less its first value), whose grids other fits may share.

    Cost: one pass over the grid (up to 800 basis rows of ``len(x)`` points, shared through ``axis``), then the
    polish: 17-20 evaluations of the profiled RSS for one shape parameter (bounded Brent), at most 200
    Nelder-Mead iterations (100-420 evaluations) for two or three, each O(len(x))."""
    from ..numeric.optimize import minimize, minimize_scalar

    y = np.asarray(y, dtype=float)
    n = len(y)
    x_first = float(x[0])
    xs = axis.xs
    tss = float(np.sum((y - y.mean()) ** 2))
    k = N_PARAMS[model]
    if model == "constant":
        return CurveFit(model, float(y.mean()), 0.0, (), tss, n, k, x_first, tss)
    span, dx = axis.span, axis.dx
    grid, centred = axis.grid(model)
    a, b, rss = _profile(y, centred[1], centred)
    j = int(np.argmin(rss))
    best = (float(a[j]), float(b[j]), tuple(float(v) for v in grid[j]), float(rss[j]))
    proj = _Projection(y)
    shape = axis.shape(model)
    if model in ("exp", "power", "logistic", "ramp", "exp2"):
        th0 = np.array(best[2])
        pos = [i for i in range(len(th0)) if not (model == "logistic" and i == 0)]

        def to_theta(p: np.ndarray) -> tuple[float, ...]:
            # the positive parameters are searched on the log scale (logistic's x0 is not): the same
            # np.exp on the same contiguous float64 values as exponentiating th[pos] in place
            p = np.asarray(p, dtype=float)
            if model == "logistic":
                return (float(p[0]), *np.exp(p[1:]).tolist())
            return tuple(np.exp(p).tolist())

        def obj(p: np.ndarray) -> float:
            th = to_theta(p)
            if not all(map(math.isfinite, th)):
                return np.inf
            return proj.rss(shape(th))

        p0 = th0.copy()
        p0[pos] = np.log(p0[pos])
        try:
            if len(p0) == 1:
                # one shape parameter: bounded Brent around the grid optimum (log scale)
                step = np.log(3.0 * span / max(dx * 0.5, span * 1e-4)) / 59.0 if model == "exp" else 0.05
                rs = minimize_scalar(lambda v: obj(np.array([v])), bounds=(p0[0] - 2 * step - 1e-9, p0[0] + 2 * step),
                                     method="bounded", options={"xatol": 1e-5})
                r_x, r_fun = np.array([rs.x]), float(rs.fun)
            else:
                r = minimize(obj, p0, method="Nelder-Mead",
                             options={"xatol": 1e-4, "fatol": 1e-9 * max(tss, 1e-300), "maxiter": 200})
                r_x, r_fun = r.x, float(r.fun)
            if np.isfinite(r_fun) and r_fun < best[3]:
                th = to_theta(r_x)
                aa, bb, rr = proj(shape(th))
                best = (aa, bb, th, rr)
        except (ValueError, FloatingPointError):  # pragma: no cover - keep the grid optimum
            pass
    flat = unidentified_params(model, xs, y, best[2], span, proj=proj, shape=shape) if model != "step" else ()
    return CurveFit(model, best[0], best[1], best[2], best[3], n, k, x_first, tss, flat)


#: Step (log scale; a fraction of the span for ``x0``) of the finite-difference Hessian of the profile deviance
#: (small: the local curvature, a ridge included, not the curvature 5 % away; the deviance's noise, about
#: 1e-13, stays 1e6 times below the changes it measures).
_H_STEP = 1e-3
#: A move by a factor 2 (log 2 on the log scale; 0.69 of the span for ``x0``) along a direction of the Hessian
#: that raises the profile deviance by less than 1 (either way) leaves the parameters of that direction
#: unidentified: their profile interval is wider than a factor 2 (a ridge such as ``power``'s ``tau`` and
#: ``alpha`` growing together, a weight near 0, a parameter held at a clamp).
_FACTOR_STEP, _FACTOR_DEVIANCE = float(np.log(2.0)), 1.0
#: Step and deviance change of the local flatness test: a parameter that moves 0.1 % (either way) without
#: changing the deviance by 1e-7 sits on a flat optimum (at a clamp, between block means), wherever the polish stopped.
_FLAT_STEP, _FLAT_DEVIANCE = 1e-3, 1e-7


def unidentified_params(model: str, xs: np.ndarray, y: np.ndarray, theta: tuple[float, ...],
                        span: float, proj: _Projection | None = None,
                        shape: Callable[[tuple[float, ...]], np.ndarray] | None = None) -> tuple[str, ...]:
    """The shape parameters of ``model`` at ``theta`` that the data (``xs`` from 0, ``y``) do not determine.

    The profile deviance ``n log RSS`` ((a, b) fitted for each shape) is examined around ``theta``, on the log
    scale of each positive parameter (``x0`` as a fraction of ``span``). A parameter is unidentified when a
    move by a factor 2 along a principal direction of the finite-difference Hessian that it takes part in
    raises the deviance by less than 1 (its interval is wider than a factor 2), or when moving it by 0.1 %
    changes the deviance by less than 1e-7 (a weight near 0, a parameter held at a clamp of the basis, a step
    sharper than the block spacing).
    Such a parameter's value is wherever the optimizer stopped: it differs between machines and is not
    published (:meth:`Selection.table`). ``proj`` and ``shape`` (:func:`fit_model`'s, for ``y`` and ``xs``) save
    recomputing what does not depend on the parameters; the answer is the same without them."""
    names = PARAM_NAMES[model]
    if not names:
        return ()
    n = len(y)
    linear = [model == "logistic" and i == 0 for i in range(len(theta))]
    if n <= N_PARAMS[model] or any(not np.isfinite(v) or (v <= 0 and not lin) for v, lin in zip(theta, linear, strict=True)):
        return names
    scale = max(span, 1e-300)
    p0 = np.array([v / scale if lin else np.log(v) for v, lin in zip(theta, linear, strict=True)])

    rss_of = (proj or _Projection(y)).rss
    basis = shape or _shape(model, xs)

    def deviance(p: np.ndarray) -> float:
        th = tuple(float(v * scale) if lin else float(np.exp(v)) for v, lin in zip(p, linear, strict=True))
        return float(n * np.log(max(rss_of(basis(th)), 1e-300)))

    d = len(p0)
    eye = np.eye(d)
    f0 = deviance(p0)
    flat = set()
    for i in range(d):
        if min(deviance(p0 + s * _FLAT_STEP * eye[i]) for s in (1.0, -1.0)) - f0 < _FLAT_DEVIANCE:
            flat.add(i)
    h = _H_STEP
    H = np.zeros((d, d))
    for i in range(d):
        H[i, i] = (deviance(p0 + h * eye[i]) - 2 * f0 + deviance(p0 - h * eye[i])) / h**2
        for j in range(i + 1, d):
            H[i, j] = H[j, i] = (deviance(p0 + h * (eye[i] + eye[j])) - deviance(p0 + h * (eye[i] - eye[j]))
                                 - deviance(p0 - h * (eye[i] - eye[j])) + deviance(p0 - h * (eye[i] + eye[j]))) / (4 * h**2)
    _lam, vec = np.linalg.eigh(H)
    for j in range(d):
        v = vec[:, j]
        if min(deviance(p0 + s * _FACTOR_STEP * v) for s in (1.0, -1.0)) - f0 < _FACTOR_DEVIANCE:
            flat.update(i for i in range(d) if v[i] ** 2 > 0.01)
    return tuple(names[i] for i in sorted(flat))


@dataclass
class InverseFit:
    """A model fitted to the reciprocal of the series (time per step when the series is a rate).

    A cache warm-up often decays exponentially in *step time* (compute + data time, the data time
    falling with the miss ratio) rather than in throughput; the two-tier shape is then exactly ``exp2``
    in time per step and only approximately so in throughput. ``predict`` and every level are on the
    series' own (rate) scale; ``bic`` is the BIC of its predictions on the rate scale
    (``n log(RSS_rate / n) + k log n``, the formula of every other fit and of the isotonic fit), so
    it compares with them directly. The 1 % band around the plateau is the same in both scales to
    first order.
    """

    inner: CurveFit
    y: np.ndarray
    x: np.ndarray
    space: str = "time_per_step"

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def k(self) -> int:
        return self.inner.k

    @property
    def x_first(self) -> float:
        return self.inner.x_first

    @property
    def rss(self) -> float:
        """Residual sum of squares of the predictions on the rate scale."""
        p = self.predict(self.x)
        return float(np.sum((self.y - p) ** 2)) if np.all(np.isfinite(p)) else float("inf")

    @property
    def bic(self) -> float:
        n = len(self.y)
        return float(n * np.log(max(self.rss, 1e-300) / n) + self.k * np.log(n))

    @property
    def r2(self) -> float:
        tss = float(np.sum((self.y - np.mean(self.y)) ** 2))
        return float(1.0 - self.rss / tss) if tss > 0 else float("nan")

    def predict(self, x: np.ndarray) -> np.ndarray:
        z = self.inner.predict(x)
        return np.where(z > 0, 1.0 / np.where(z > 0, z, 1.0), np.nan)

    @property
    def plateau(self) -> float:
        S = self.inner.plateau
        return float(1.0 / S) if S > 0 else float("nan")

    @property
    def initial(self) -> float:
        C = self.inner.initial
        return float(1.0 / C) if C > 0 else float("nan")

    @property
    def unidentified(self) -> tuple[str, ...]:
        return self.inner.unidentified

    def time_within(self, eps: float) -> float | None:
        return self.inner.time_within(eps)

    def tau(self) -> float | None:
        return self.inner.tau()

    def params(self) -> dict[str, Any]:
        return {**self.inner.params(), "space": self.space}


@dataclass
class Selection:
    """All fitted models and the BIC choice."""

    fits: dict[str, Any] = field(default_factory=dict)  # CurveFit or InverseFit (key "MODEL/time_per_step")
    best: str = "constant"

    def table(self) -> list[dict[str, Any]]:
        """Every candidate, lowest BIC first, as published: a candidate with an unidentified shape parameter
        (:func:`unidentified_params`) has ``identifiable: false``, those parameters named in ``unidentified``,
        every shape parameter null (:func:`published_params`) and its plateau to
        :data:`~costmodel.foundation.published.DEGENERATE_DIGITS` significant digits."""
        return [
            {"model": m, "bic": f.bic, "rss": f.rss, "r2": f.r2, "plateau": published_plateau(f),
             "params": published_params(f), "identifiable": not f.unidentified, "unidentified": list(f.unidentified)}
            for m, f in sorted(self.fits.items(), key=lambda kv: kv[1].bic)
        ]


#: Models also fitted to the reciprocal series (time per step) by :func:`select` with ``inverse=True``.
INVERSE_MODELS = ("exp", "power", "logistic", "exp2")


def _log_bic(f: Any, x: np.ndarray, y: np.ndarray) -> float:
    """BIC of a fitted curve on the log scale (relative residuals): a common scale for rate and
    time-per-step fits, fair under multiplicative noise."""
    p = f.predict(x)
    if not np.all(np.isfinite(p)) or np.any(p <= 0):
        return float("inf")
    r = np.log(y) - np.log(p)
    n = len(y)
    return float(n * np.log(max(float(np.dot(r, r)), 1e-300) / n) + f.k * np.log(n))


#: How much better (lower) a time-per-step model's log-scale BIC must be than the best rate model's.
INVERSE_BIC_MARGIN = 10.0


def select(x: np.ndarray, y: np.ndarray, models: tuple[str, ...] = MODELS, inverse: bool = False) -> Selection:
    """Fit every model in ``models`` and pick the lowest BIC.

    ``inverse=True`` (a positive rate series) also fits :data:`INVERSE_MODELS` to ``1 / y`` (keys
    ``"MODEL/time_per_step"``, :class:`InverseFit`). One of them replaces the rate-scale choice only
    when its BIC on the log scale (relative residuals, the same for both scales) is lower than the rate
    choice's by more than :data:`INVERSE_BIC_MARGIN`: the time-per-step shape must fit clearly better.
    """
    x = np.asarray(x, dtype=float)
    axis = _Axis(x - float(x[0]))
    fits: dict[str, Any] = {m: _fit_model(m, x, y, axis) for m in models}
    best = min(fits, key=lambda m: fits[m].bic)
    if inverse and len(y) > 8 and np.all(y > 0) and best != "constant":
        inv = {f"{m}/time_per_step": InverseFit(_fit_model(m, x, 1.0 / y, axis), y, x)
               for m in INVERSE_MODELS if m in models}
        fits.update(inv)
        lb_rate = _log_bic(fits[best], x, y)
        lb_inv = {k: _log_bic(f, x, y) for k, f in inv.items()}
        k_inv = min(lb_inv, key=lambda k: lb_inv[k])
        if lb_inv[k_inv] < lb_rate - INVERSE_BIC_MARGIN:
            best = k_inv
    return Selection(fits=fits, best=best)
