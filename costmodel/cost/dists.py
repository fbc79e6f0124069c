"""Uncertain inputs: ranges and distributions written in the scenario YAML.

Forms accepted for any numeric model key:

- ``[low, high]`` or ``{dist: uniform, low: a, high: b}``: uniform; point value the midpoint (its mean).
- ``{dist: triangular, low: a, mode: m, high: b}``: point value the mean ``(a + m + b) / 3``.
- ``{dist: lognormal, median: m, sigma: s}`` (``s`` = standard deviation of ``ln x``): point value the
  mean ``m * exp(s^2 / 2)``; only for keys without an upper bound.
- ``{dist: normal, mean: m, sd: s}``: a measured estimate with its standard error; point value ``m``.
  Draws are not clipped to the key's range (the model is affine in such inputs, so the draws' mean is ``m``).
- ``student_t`` (``mean``, ``sd``, ``df``; from a measurement, not written in YAML): the sampling
  distribution of an estimate on ``df`` degrees of freedom (``costmodel.cost.measurements.slowdown_sampling``).

The point value (the expected value, never the mode: a triangular 0/0/2 % slowdown headlines 0.667 %,
not 0) is what :func:`~costmodel.cost.evaluate` uses; Monte Carlo samples the distribution.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..foundation.errors import ScenarioError
from ..foundation.fields_json import FieldsJson, JsonKeys
from .spec import Param


@dataclass(frozen=True)
class Distribution(FieldsJson):
    """A distribution of one input. ``params`` by kind: uniform (low, high), triangular (low, mode, high),
    lognormal (median, sigma)."""

    kind: str
    params: dict[str, float]

    def point(self) -> float:
        """The value the headline uses: the expected value (mean) of the distribution."""
        return self.mean()

    def mean(self) -> float:
        """Expected value: uniform (low+high)/2, triangular (low+mode+high)/3, lognormal median*exp(sigma^2/2)."""
        p = self.params
        if self.kind == "uniform":
            return 0.5 * (p["low"] + p["high"])
        if self.kind == "triangular":
            return (p["low"] + p["mode"] + p["high"]) / 3.0
        if self.kind in ("normal", "student_t"):
            return p["mean"]
        return p["median"] * math.exp(0.5 * p["sigma"] ** 2)

    def quantile(self, q: float | np.ndarray) -> np.ndarray:
        """Inverse CDF at ``q`` in [0, 1]."""
        p = self.params
        q = np.asarray(q, dtype=float)
        if self.kind == "uniform":
            return p["low"] + q * (p["high"] - p["low"])
        if self.kind == "triangular":
            width = p["high"] - p["low"]
            if width == 0:
                return np.full_like(q, p["low"])
            c = (p["mode"] - p["low"]) / width
            # scipy.stats.triang.ppf's own formula (the same bits), without importing scipy.stats (~1 s of start-up)
            return np.where(q < c, np.sqrt(c * q), 1 - np.sqrt((1 - c) * (1 - q))) * width + p["low"]
        if self.kind in ("normal", "student_t"):
            z = _normal_ppf(q)
            if self.kind == "student_t":
                z = _t_from_z(z, p["df"])
            return p["mean"] + p["sd"] * z
        if p["sigma"] == 0:
            return np.full_like(q, p["median"])
        from scipy.special import ndtri  # = scipy.stats.norm.ppf, without scipy.stats

        return p["median"] * np.exp(p["sigma"] * ndtri(q))

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` draws (uses ``rng``; deterministic for a seeded generator)."""
        p = self.params
        if self.kind == "uniform":
            return rng.uniform(p["low"], p["high"], n)
        if self.kind == "triangular":
            if p["high"] == p["low"]:
                return np.full(n, p["low"])
            return rng.triangular(p["low"], p["mode"], p["high"], n)
        if self.kind == "normal":
            return p["mean"] + p["sd"] * rng.standard_normal(n)
        if self.kind == "student_t":
            return p["mean"] + p["sd"] * rng.standard_t(p["df"], n)
        return p["median"] * np.exp(p["sigma"] * rng.standard_normal(n))

    JSON = JsonKeys(keys=("dist=kind", "**params", "point", "**interval_keys"))

    @property
    def interval_keys(self) -> dict[str, float]:
        """A normal or Student-t distribution's 95 % interval and centre, as a triangle's keys read (``low``,
        ``mode``, ``high``); empty for the other kinds (their parameters are such keys already)."""
        if self.kind not in ("normal", "student_t"):
            return {}
        lo, hi = (float(v) for v in self.quantile(np.array([0.025, 0.975])))
        return {"low": lo, "mode": self.params["mean"], "high": hi}


def _normal_ppf(q: np.ndarray) -> np.ndarray:
    """The standard normal's inverse CDF (the standard library's, without importing SciPy at start-up)."""
    from statistics import NormalDist

    nd = NormalDist()
    flat = [nd.inv_cdf(float(x)) if 0.0 < x < 1.0 else (-math.inf if x <= 0 else math.inf) for x in np.ravel(q)]
    return np.asarray(flat, dtype=float).reshape(np.shape(q))


def _t_from_z(z: np.ndarray, df: float) -> np.ndarray:
    """Student-t quantile from the normal one (Cornish-Fisher expansion to 1/df^3; Abramowitz & Stegun
    26.7.5): at P2.5..P97.5 within 3e-3 of the exact quantile at df = 5, 2e-4 at df = 10, 4e-8 at df = 80
    (only the tornado's P5/P95 and the printed 95 % interval use it; the Monte Carlo draws are exact)."""
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


_FIELDS = {"uniform": ("low", "high"), "triangular": ("low", "mode", "high"), "lognormal": ("median", "sigma"),
           "normal": ("mean", "sd")}


def _finite_number_or_raise(v: Any, key: str, what: str) -> float:
    """``v`` as a float; ScenarioError at ``key`` ('{what} must be a number / finite') when it is not."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ScenarioError(f"{what} must be a number, got {v!r}", key=key)
    f = float(v)
    if not math.isfinite(f):
        raise ScenarioError(f"{what} must be finite, got {v!r}", key=key)
    return f


def parse_distribution(value: Any, param: Param) -> Distribution:
    """Parse a list ``[low, high]`` or a ``{dist: ...}`` mapping for ``param``; raises ScenarioError."""
    key = param.key
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ScenarioError(f"a range is [low, high] (two numbers), got {list(value)!r}", key=key)
        value = {"dist": "uniform", "low": value[0], "high": value[1]}
    kind = value.get("dist")
    if kind not in _FIELDS:
        raise ScenarioError(
            f"dist must be one of {', '.join(_FIELDS)}, got {kind!r} "
            "(write e.g. {dist: triangular, low: 0.94, mode: 0.95, high: 0.96})",
            key=key,
        )
    fields = _FIELDS[kind]
    extra = sorted(set(value) - set(fields) - {"dist"})
    missing = [f for f in fields if f not in value]
    if missing or extra:
        raise ScenarioError(
            f"a {kind} distribution needs exactly {', '.join(fields)}"
            + (f"; missing {', '.join(missing)}" if missing else "")
            + (f"; unknown {', '.join(extra)}" if extra else ""),
            key=key,
        )
    params = {f: _finite_number_or_raise(value[f], key, f"{kind} {f}") for f in fields}
    if kind == "normal":
        if params["sd"] < 0:
            raise ScenarioError("a normal needs sd >= 0", key=key)
        if not param.ok(params["mean"]):
            raise ScenarioError(f"mean = {params['mean']:g} is out of range; expected {param.expected()}", key=key)
        return Distribution(kind, params)
    if kind == "lognormal":
        if params["median"] <= 0 or params["sigma"] < 0:
            raise ScenarioError("a lognormal needs median > 0 and sigma >= 0", key=key)
        if param.hi != math.inf:
            raise ScenarioError(
                f"a lognormal is unbounded above but this key is at most {param.hi:g}; "
                "use uniform or triangular",
                key=key,
            )
        if param.lo_open and params["median"] <= param.lo:
            raise ScenarioError(f"median must be {param.expected()}", key=key)
    else:
        low, high = params["low"], params["high"]
        if low > high or (kind == "triangular" and not low <= params["mode"] <= high):
            raise ScenarioError(f"{kind} needs low <= {'mode <= ' if kind == 'triangular' else ''}high, got {params}", key=key)
        for f in fields:
            if not param.ok(params[f]):
                raise ScenarioError(f"{kind} {f} = {params[f]:g} is out of range; expected {param.expected()}", key=key)
    return Distribution(kind, params)
