"""Sensitivity: a tornado over low/high values of each input, and vectorised 2-D sweeps.

Tornado ranges, per input: the P5/P95 of its distribution when the scenario gives one; for a hit ratio,
the miss ratio ``1 - h`` scaled by ``1 -/+ swing``; for an input at 0, a stated high value from
``ZERO_HIGH`` (e.g. 2 % steady slowdown) or no row; otherwise the point value times ``1 -/+ swing``,
never narrower than the Monte Carlo's default range of an assumption (spec.DEFAULT_RANGES), clipped to the
input's range, widened where a plausible value lies further out: a churn fraction over x/3 to 3x
(spec.CHURN_PLAUSIBLE_FACTOR), epochs per run over x/3 to 3x (spec.EPOCHS_PLAUSIBLE_FACTOR), a link bandwidth
down to x/5 (spec.BANDWIDTH_PLAUSIBLE_FACTOR), an on-demand cluster
price down to 0.4x (spec.CLUSTER_PRICE_PLAUSIBLE_LOW: spot, capacity blocks, commitments), a version retention up
to the horizon (no lifecycle rule).
Rows are sorted by ``swing_usd``, the change of ``cross_region - replicate`` (positive: replicating is cheaper)
between low and high.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..foundation.errors import ScenarioError
from .evaluate import model_inputs
from .model import DAYS_PER_MONTH, OPTIONS, cheapest_index, totals
from .scenario import Scenario
from .spec import (
    BANDWIDTH_PLAUSIBLE_FACTOR,
    CHURN_PLAUSIBLE_FACTOR,
    CLUSTER_PRICE_PLAUSIBLE_LOW,
    DEFAULT_RANGES,
    EPOCHS_PLAUSIBLE_FACTOR,
    MODEL_KEYS,
    PARAM_BY_KEY,
    SOURCE_KEYS,
)

if TYPE_CHECKING:  # pandas is imported where a frame is built: `costmodel cost` needs none
    import pandas as pd

TORNADO_INPUTS: tuple[str, ...] = tuple(k for k in MODEL_KEYS if k != "horizon_months")
ZERO_HIGH: dict[str, float] = {
    "cache.steady_slowdown_fraction": 0.02,
    "cache.warmup_lost_s": 600.0,
    "cache.cold_starts_per_month": 1.0,
    "dataset.monthly_churn_fraction": 0.3,  # a corpus refresh a quarter of the way through
    "wait.expected_wait_hours_per_run": 24.0,
    "replica.ops_usd_per_month": 200.0,  # about two engineer-hours a month of replication upkeep
}


def _purchase_stated(scenario: Scenario) -> bool:
    """Whether the scenario prices GPU purchase options itself (a basis other than on demand, or any
    ``purchase.*_usd_per_hour``): then ``purchase_options`` says which basis flips the verdict."""
    if str(scenario.get("training.purchase_option") or "on_demand") != "on_demand":
        return True
    return any(scenario.get(f"purchase.{b}_usd_per_hour") is not None
               for b in ("sagemaker", "capacity_block", "savings_plan", "reserved", "spot"))


def tornado_range(scenario: Scenario, key: str, swing: float = 0.25) -> tuple[float, float, str] | None:
    """(low, high, how) for ``key``; None when the input is 0 and has no stated high value."""
    p = PARAM_BY_KEY[key]
    x = scenario.get(key)
    d = scenario.distributions.get(key)
    if d is not None:
        lo, hi = (float(v) for v in d.quantile(np.array([0.05, 0.95])))
        return lo, hi, f"{d.kind} P5/P95"
    if key.endswith("hit_ratio"):
        miss = 1.0 - x
        if miss == 0:
            return max(0.0, 1.0 - 0.05), 1.0, "miss ratio 0 -> 5 %"
        return (max(0.0, 1.0 - miss * (1 + swing)), min(1.0, 1.0 - miss * (1 - swing)), f"miss ratio x (1 -/+ {swing:g})")
    if x == 0:
        if key in ZERO_HIGH:
            return 0.0, min(ZERO_HIGH[key], p.hi if not p.hi_open else ZERO_HIGH[key]), "0 to a stated high value"
        return None
    # never narrower than the range the Monte Carlo draws the assumption from (spec.DEFAULT_RANGES)
    half = DEFAULT_RANGES.get(key, 0.0) if key != "dataset.monthly_churn_fraction" else 0.0
    half = max(swing, half)
    lo, hi = x * (1 - half), x * (1 + half)
    if lo > hi:
        lo, hi = hi, lo
    how = f"x (1 -/+ {half:g})" + (", the Monte Carlo's default range" if half > swing else "")
    if key == "training.epochs_per_run" and x > 0:  # one pass for pretraining, several for fine-tuning
        lo, hi = min(lo, x / EPOCHS_PLAUSIBLE_FACTOR), max(hi, x * EPOCHS_PLAUSIBLE_FACTOR)
        how = f"x / {EPOCHS_PLAUSIBLE_FACTOR:g} to {EPOCHS_PLAUSIBLE_FACTOR:g} x (one pass to several)"
    if key == "link.bandwidth_gbps" and x > 0:  # an assumed bandwidth: one stream to the per-instance cap
        lo = min(lo, x / BANDWIDTH_PLAUSIBLE_FACTOR)
        how = f"x / {BANDWIDTH_PLAUSIBLE_FACTOR:g} (one TCP stream) to {1 + half:g} x"
    if key == "training.cluster_usd_per_hour" and x > 0 and not _purchase_stated(scenario):
        lo = min(lo, x * CLUSTER_PRICE_PLAUSIBLE_LOW)
        how = (f"{CLUSTER_PRICE_PLAUSIBLE_LOW:g} x (spot, capacity blocks, 3-year commitments) to "
               f"{1 + half:g} x on demand")
    if key == "dataset.monthly_churn_fraction" and x > 0:  # rarely measured: known to a factor of ~3
        lo, hi = min(lo, x / CHURN_PLAUSIBLE_FACTOR), max(hi, x * CHURN_PLAUSIBLE_FACTOR)
        how = f"x / {CHURN_PLAUSIBLE_FACTOR:g} to {CHURN_PLAUSIBLE_FACTOR:g} x (churn is rarely measured)"
    if key == "replica.noncurrent_retention_days":  # up to no lifecycle rule: versions kept for the horizon
        horizon_days = float(scenario.values["horizon_months"]) * DAYS_PER_MONTH
        if hi < horizon_days:
            hi = horizon_days
            how = f"x (1 - {half:g}) to no lifecycle rule (the horizon, {horizon_days:g} days)"
    lo = max(lo, p.lo) if np.isfinite(p.lo) else lo
    if np.isfinite(p.hi):
        top = p.hi - (1e-9 if p.hi_open else 0.0)
        hi = min(hi, top)
    return lo, hi, how


def tornado(scenario: Scenario, inputs: Sequence[str] | None = None, swing: float = 0.25) -> pd.DataFrame:
    """One row per input: ``input, base, low, high, range, delta_low_usd, delta_high_usd, swing_usd``,
    each option's total at low and high, and the cheapest option at each end; sorted by ``swing_usd``.
    ``delta`` = cross_region total - replicate total (USD over the horizon). The rows of
    :func:`tornado_rows` as a DataFrame."""
    import pandas as pd

    return pd.DataFrame(tornado_rows(scenario, inputs, swing))


def tornado_rows(scenario: Scenario, inputs: Sequence[str] | None = None, swing: float = 0.25) -> list[dict[str, Any]]:
    """The rows of :func:`tornado` as plain dicts, largest ``swing_usd`` first (ties in input order, a NaN
    swing last), without pandas: what ``costmodel cost --json`` prints as ``sensitivity``."""
    keys = list(inputs) if inputs is not None else \
        list(TORNADO_INPUTS) + [k for k in SOURCE_KEYS if scenario.get(k) is not None]
    base = totals(model_inputs(scenario))
    base_delta = float(base["cross_region"] - base["replicate"])
    rows: list[dict[str, Any]] = []
    for key in keys:
        if key not in PARAM_BY_KEY or not (PARAM_BY_KEY[key].model or key in SOURCE_KEYS):
            raise ScenarioError("not a numeric cost input", key=key)
        if scenario.get(key) is None:
            continue
        rng = tornado_range(scenario, key, swing)
        if rng is None:
            continue
        lo, hi, how = rng
        t = totals(model_inputs(scenario, **{key: np.array([lo, hi])}))
        tt = {o: np.asarray(t[o], dtype=float) * np.ones(2) for o in OPTIONS}
        delta = tt["cross_region"] - tt["replicate"]
        ch = cheapest_index(tt, scenario.priced())
        row = {
            "input": key,
            "unit": PARAM_BY_KEY[key].unit,
            "base": float(scenario.get(key)),
            "low": lo,
            "high": hi,
            "range": how,
            "base_delta_usd": base_delta,
            "delta_low_usd": float(delta[0]),
            "delta_high_usd": float(delta[1]),
            "swing_usd": float(abs(delta[1] - delta[0])),
        }
        for o in OPTIONS:
            row[f"{o}_low_usd"] = float(tt[o][0])
            row[f"{o}_high_usd"] = float(tt[o][1])
        row["cheapest_low"] = OPTIONS[int(ch[0])]
        row["cheapest_high"] = OPTIONS[int(ch[1])]
        rows.append(row)
    # as DataFrame.sort_values("swing_usd", ascending=False, kind="stable"): stable, NaN last
    return sorted(rows, key=lambda r: (math.isnan(r["swing_usd"]), -r["swing_usd"] if not math.isnan(r["swing_usd"]) else 0.0))


def _check_values(key: str, values: Any) -> np.ndarray:
    if key not in PARAM_BY_KEY or not (PARAM_BY_KEY[key].model or key in SOURCE_KEYS):
        raise ScenarioError(f"not a numeric cost input; choose one of {', '.join(MODEL_KEYS + tuple(SOURCE_KEYS))}",
                            key=key)
    arr = np.asarray(values, dtype=float).ravel()
    if arr.size == 0:
        raise ScenarioError("no values to sweep", key=key)
    p = PARAM_BY_KEY[key]
    bad = [v for v in arr if not p.ok(float(v))]
    if bad:
        raise ScenarioError(f"sweep value {bad[0]:g} is out of range; expected {p.expected()}", key=key)
    return arr


def sweep_2d(scenario: Scenario, x_key: str, x_values: Any, y_key: str, y_values: Any) -> pd.DataFrame:
    """Evaluate every (x, y) pair at once (vectorised); tidy frame with columns ``x_key``, ``y_key``,
    ``cross_region_usd, replicate_usd, wait_usd, delta_usd`` (cross - replicate) and ``cheapest`` (a
    categorical of the option names)."""
    xs = _check_values(x_key, x_values)
    ys = _check_values(y_key, y_values)
    if x_key == y_key:
        raise ScenarioError("x and y must be different inputs", key=y_key)
    X, Y = np.meshgrid(xs, ys, indexing="xy")
    t = totals(model_inputs(scenario, **{x_key: X.ravel(), y_key: Y.ravel()}))
    n = X.size
    tt = {o: np.asarray(t[o], dtype=float) * np.ones(n) for o in OPTIONS}
    ch = cheapest_index(tt, scenario.priced())
    import pandas as pd

    return pd.DataFrame(
        {
            x_key: X.ravel(),
            y_key: Y.ravel(),
            "cross_region_usd": tt["cross_region"],
            "replicate_usd": tt["replicate"],
            "wait_usd": tt["wait"],
            "delta_usd": tt["cross_region"] - tt["replicate"],
            "cheapest": pd.Categorical.from_codes(ch, categories=pd.Index(list(OPTIONS))),
        }
    )
