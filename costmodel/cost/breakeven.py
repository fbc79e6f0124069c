"""Break-even: the value of one input at which ``cross_region`` and ``replicate`` cost the same.

Let ``f(x) = total_cross_region(x) - total_replicate(x)`` with every other input held at its point value.
The model is affine in most inputs (transfer price, size, hit ratio, churn, storage price, ...): then
``f(x) = a + b*x`` exactly, ``a`` and ``b`` come from two model evaluations and the break-even is the
closed form ``x* = -a/b`` (``method: closed_form``). Affinity is checked on a grid over the input's whole
range. Where the model is only piecewise linear (runs or epochs per month and cold starts meet at
``min(n, E*R)``) or nonlinear, sign changes on the grid are refined with Brent's method
(``method: root_finding``). ``above`` names the option that is cheaper just above ``x*``; when ``f`` keeps
one sign over the searched range the answer is ``never`` (``value: null``, ``never: true``) and
``winner`` names the option that is always cheaper.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..foundation.errors import ScenarioError
from ..numeric.roots import brentq
from .evaluate import model_inputs
from .model import totals
from .scenario import Scenario
from .spec import MODEL_KEYS, PARAM_BY_KEY, SOURCE_KEYS

# wait.* do not enter cross_region or replicate
BREAK_EVEN_INPUTS: tuple[str, ...] = tuple(k for k in MODEL_KEYS if not k.startswith("wait."))
GRID_POINTS = 4001


def _diff(scenario: Scenario, key: str, x: np.ndarray) -> np.ndarray:
    t = totals(model_inputs(scenario, **{key: x}))
    return np.asarray(t["cross_region"] - t["replicate"], dtype=float) + np.zeros_like(x)


def _grid(key: str, x0: float) -> np.ndarray:
    p = PARAM_BY_KEY[key]
    lo = p.lo if math.isfinite(p.lo) else -1e6
    if math.isfinite(p.hi):
        hi = p.hi
        g = np.linspace(lo, hi, GRID_POINTS)
    else:
        hi = max(abs(x0), 1.0) * 1e4
        g = np.unique(np.concatenate([[lo], np.geomspace(max(hi * 1e-9, 1e-9), hi, GRID_POINTS - 1)]))
    if p.lo_open:
        g = g[g > lo]
    if p.hi_open:
        g = g[g < hi]
    return g


def _winner(f: float) -> str:
    return "replicate" if f > 0 else "cross_region"


def break_even_one(scenario: Scenario, key: str) -> dict[str, Any]:
    """Break-even of ``key`` (see the module docstring). Raises ScenarioError for an unknown key."""
    if key not in PARAM_BY_KEY or not (PARAM_BY_KEY[key].model or key in SOURCE_KEYS):
        raise ScenarioError(f"not a numeric cost input; choose one of {', '.join(BREAK_EVEN_INPUTS)}", key=key)
    if scenario.get(key) is None:
        raise ScenarioError("not given in the scenario, so it has no break-even", key=key)
    x0 = float(scenario.get(key))
    g = _grid(key, x0)
    f = _diff(scenario, key, g)
    f0 = float(_diff(scenario, key, np.array([x0]))[0])
    scale = float(np.max(np.abs(f))) + 1.0
    out: dict[str, Any] = {
        "current": x0,
        "unit": PARAM_BY_KEY[key].unit,
        "winner_now": _winner(f0) if f0 != 0 else "tie",
        "search_range": [float(g[0]), float(g[-1])],
    }
    # affine?  line through the first and last grid points reproduces every grid point
    slope = (f[-1] - f[0]) / (g[-1] - g[0])
    line = f[0] + slope * (g - g[0])
    affine = bool(np.max(np.abs(f - line)) <= 1e-9 * scale)
    if affine and abs(slope) > 1e-12 * scale:
        # a kink between two grid points (e.g. min(n, R) with a tiny n) escapes the grid test: the root must
        # really be one, else refine by root finding
        xs = -(f[0] - slope * g[0]) / slope
        if g[0] <= xs <= g[-1] and abs(float(_diff(scenario, key, np.array([xs]))[0])) > \
                1e-9 * (abs(slope) * max(1.0, abs(xs)) + abs(f0) + 1.0):
            affine = False
    if affine:
        out["method"] = "closed_form"
        b = slope
        a = f[0] - slope * g[0]
        if abs(b) <= 1e-12 * scale:
            return {**out, "value": None, "never": True, "above": None, "below": None,
                    "winner": _winner(f0) if f0 != 0 else "tie", "crossings": [],
                    "note": "this input does not change which option is cheaper", "slope_usd_per_unit": float(b)}
        xs = -a / b
        p = PARAM_BY_KEY[key]
        inside = p.ok(xs) or (xs == p.lo and not p.lo_open)
        if not inside:
            return {**out, "value": None, "never": True, "above": None, "below": None,
                    "winner": _winner(f0), "crossings": [], "closed_form_root": float(xs), "slope_usd_per_unit": float(b),
                    "note": f"the options would cross at {xs:.6g}, outside the allowed range ({p.expected()})"}
        above = "replicate" if b > 0 else "cross_region"
        below = "cross_region" if above == "replicate" else "replicate"
        return {**out, "value": float(xs), "never": False, "above": above, "below": below, "crossings": [float(xs)],
                "slope_usd_per_unit": float(b)}
    out["method"] = "root_finding"
    roots: list[float] = []
    sign = np.sign(f)
    for i in range(len(g) - 1):
        if sign[i] == 0:
            if not roots or roots[-1] != g[i]:
                roots.append(float(g[i]))
        elif sign[i] * sign[i + 1] < 0:
            r = brentq(lambda x: float(_diff(scenario, key, np.array([x]))[0]), g[i], g[i + 1], xtol=1e-12, rtol=1e-12)
            roots.append(float(r))
    if sign[-1] == 0:
        roots.append(float(g[-1]))
    # drop zero stretches where both options cost the same over an interval (not a crossing)
    roots = [r for r in roots if _side(scenario, key, r, g, +1) != 0 or _side(scenario, key, r, g, -1) != 0]
    if not roots:
        return {**out, "value": None, "never": True, "above": None, "below": None,
                "winner": _winner(f0) if f0 != 0 else "tie", "crossings": []}
    value = min(roots, key=lambda r: abs(r - x0))
    up = _side(scenario, key, value, g, +1)
    down = _side(scenario, key, value, g, -1)
    return {**out, "value": value, "never": False,
            "above": _winner(up) if up != 0 else "tie",
            "below": _winner(down) if down != 0 else "tie",
            "crossings": roots}


def _side(scenario: Scenario, key: str, r: float, g: np.ndarray, direction: int) -> float:
    """Sign of f a little above (+1) or below (-1) ``r`` within the grid; 0 when equal or outside."""
    step = max(abs(r), 1.0) * 1e-6
    x = r + direction * step
    if x < g[0] or x > g[-1]:
        return 0.0
    v = float(_diff(scenario, key, np.array([x]))[0])
    return 0.0 if abs(v) < 1e-9 else float(np.sign(v))


def break_even(scenario: Scenario, inputs: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    """Break-even of each input in ``inputs`` (default: every cost input except ``wait.*``), keyed by key
    path; each has ``value`` (None when never), ``above`` (the option cheaper above it), ``method``."""
    keys = list(inputs) if inputs is not None else \
        list(BREAK_EVEN_INPUTS) + [k for k in SOURCE_KEYS if scenario.get(k) is not None]
    return {k: break_even_one(scenario, k) for k in keys}


def wait_break_even(scenario: Scenario) -> dict[str, Any]:
    """The expected wait per run (hours) at which waiting costs as much as the cheaper of cross_region
    and replicate: ``Wh* = (min(cross, replicate) / (M*R) - T*P) / V`` (closed form; ``wait`` is cheaper
    below it). ``value`` is None (``never``) when ``R`` or ``V`` is 0 or ``Wh*`` < 0."""
    p = model_inputs(scenario)
    t = totals(p)
    other = "cross_region" if float(t["cross_region"]) <= float(t["replicate"]) else "replicate"
    best = float(t[other])
    M, R, T = p["horizon_months"], p["training.runs_per_month"], p["training.run_hours"]
    V, P = p["wait.delay_usd_per_hour"], p["wait.cluster_premium_usd_per_hour"]
    out: dict[str, Any] = {"input": "wait.expected_wait_hours_per_run", "current": p["wait.expected_wait_hours_per_run"],
                           "unit": "hours/run", "compared_with": other, "method": "closed_form"}
    if M * R == 0 or V == 0:
        return {**out, "value": None, "never": True, "above": None, "below": None,
                "note": "waiting costs nothing per hour (no runs or wait.delay_usd_per_hour = 0)"}
    ws = (best / (M * R) - T * P) / V
    if ws < 0:
        return {**out, "value": None, "never": True, "above": None, "below": None, "winner": other,
                "note": "the cluster premium in the data region alone costs more than the other options"}
    return {**out, "value": float(ws), "never": False, "above": other, "below": "wait"}
