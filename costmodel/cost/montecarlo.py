"""Seeded Monte Carlo over the scenario's uncertain inputs (ranges and distributions in the YAML).

Each draw samples every uncertain input independently (in key order, from one
``numpy.random.default_rng(seed)``), holds the others at their point values, and prices all options at
once (vectorised). Same scenario + ``n`` + ``seed`` -> the same numbers.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..foundation.errors import ScenarioError
from ..foundation.fields_json import FieldsJson, JsonKeys
from ..foundation.util import is_seed
from .dists import Distribution
from .evaluate import model_inputs
from .inputs import BytesBasis
from .model import OPTIONS, cheapest_index, totals
from .scenario import Scenario
from .spec import DEFAULT_RANGES, PARAM_BY_KEY

if TYPE_CHECKING:  # pandas is imported where a frame is built: `costmodel cost` needs none
    import pandas as pd

MAX_DRAWS = 50_000_000


def check_seed(seed: Any) -> int:
    """``seed`` as a non-negative int (what ``numpy.random.default_rng`` accepts); ScenarioError otherwise."""
    if not is_seed(seed):
        raise ScenarioError(f"Monte Carlo seed must be a whole number >= 0, got {seed!r}", key="monte_carlo.seed")
    return int(seed)


@dataclass
class MonteCarloResult(FieldsJson):
    """``p_cheapest``: share of draws where each option is cheapest; ``p5/p50/p95/mean``: each option's
    total USD over the horizon."""

    n: int
    seed: int
    uncertain_inputs: list[str]
    p_cheapest: dict[str, float]  # options that are not priced are never cheapest (0)
    p5: dict[str, float]
    p50: dict[str, float]
    p95: dict[str, float]
    mean: dict[str, float]
    totals: dict[str, np.ndarray] = field(repr=False, default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    #: inputs drawn from a measurement's sampling distribution (e.g. the compare's slowdown)
    measured_inputs: list[str] = field(default_factory=list)
    #: assumptions drawn over their default range (spec.DEFAULT_RANGES): key -> {low, high}
    default_ranges: dict[str, dict[str, float]] = field(default_factory=dict)
    #: the byte bases drawn as cases (each draw prices one of them, uniformly): the estimates of the
    #: cross-region bytes that are physically possible (whether or not they agree); empty when one basis is priced
    #: throughout
    byte_cases: list[str] = field(default_factory=list)
    #: False when no option is priced: ``p_cheapest`` is then all 0 and means nothing
    any_priced: bool = True

    JSON = JsonKeys(exclude=("totals",), lists=True)

    def samples_frame(self, max_rows: int = 5000) -> pd.DataFrame:
        """Tidy draws (``draw, option, total_usd``), the first ``max_rows`` draws only (chart-friendly)."""
        import pandas as pd

        k = min(self.n, max_rows)
        rows = {"draw": np.tile(np.arange(k), len(OPTIONS)), "option": np.repeat(OPTIONS, k)}
        rows["total_usd"] = np.concatenate([self.totals[o][:k] for o in OPTIONS])
        return pd.DataFrame(rows)

    def quantiles_frame(self) -> pd.DataFrame:
        """One row per option: option, p5, p50, p95, mean, p_cheapest."""
        import pandas as pd

        return pd.DataFrame(
            [
                {"option": o, "p5": self.p5[o], "p50": self.p50[o], "p95": self.p95[o], "mean": self.mean[o],
                 "p_cheapest": self.p_cheapest[o]}
                for o in OPTIONS
            ]
        )


def default_distributions(scenario: Scenario) -> dict[str, Distribution]:
    """The assumptions varied by default (:data:`costmodel.cost.spec.DEFAULT_RANGES`): keys stated as one
    non-zero number in the scenario or with ``--set`` (not measured, not derived, not from a price table, no
    range of their own), each uniform over ``x (1 -/+ half_width)`` clipped to its allowed range (for a hit
    ratio, its miss ratio is scaled)."""
    out: dict[str, Distribution] = {}
    for key, half in DEFAULT_RANGES.items():
        if key in scenario.distributions:
            continue
        src = str(scenario.provenance.get(key, {}).get("source", ""))
        if not (src.startswith("scenario") or src == "--set") or "raised" in src:
            continue
        x = scenario.get(key)
        if not isinstance(x, (int, float)) or isinstance(x, bool) or x == 0:
            continue
        p = PARAM_BY_KEY[key]
        if key.endswith("hit_ratio"):
            miss = 1.0 - x
            if miss <= 0:
                continue
            lo, hi = 1.0 - miss * (1 + half), 1.0 - miss * (1 - half)
            lo = max(lo, p.lo)
        else:
            lo, hi = x * (1 - half), x * (1 + half)
            lo = max(lo, p.lo + (1e-12 * abs(x) if p.lo_open else 0.0))
            if p.hi != float("inf"):
                hi = min(hi, p.hi - (1e-9 if p.hi_open else 0.0))
        # keep it symmetric about x so the draws' mean stays the headline's point value
        w = min(x - lo, hi - x)
        if w <= 0:
            continue
        out[key] = Distribution("uniform", {"low": x - w, "high": x + w})
    return out


def monte_carlo(scenario: Scenario, n: int, seed: int = 0, default_ranges: bool = True) -> MonteCarloResult:
    """``n`` seeded draws over the uncertain inputs: the stated ranges, the measured inputs' sampling
    distributions and (``default_ranges``) the assumptions over their default ranges
    (:func:`default_distributions`). Raises ScenarioError for ``n`` < 1 or too large, or a ``seed`` that is
    not a whole number >= 0."""
    if isinstance(n, bool) or int(n) != n or n < 1 or n > MAX_DRAWS:
        raise ScenarioError(f"number of draws must be a whole number in 1..{MAX_DRAWS}, got {n!r}", key="monte_carlo.n")
    n = int(n)
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    assumed = default_distributions(scenario) if default_ranges else {}
    dists = {**scenario.distributions, **assumed}
    # stated and measured inputs first, in key order (the draws of earlier versions), then the assumptions
    keys = sorted(scenario.distributions) + sorted(assumed)
    draws = {k: dists[k].sample(rng, n) for k in keys}
    cases = byte_cases(scenario)
    if len(cases) > 1:  # drawn last, so the other inputs' draws stay those of a seed before the byte cases were drawn
        codes = np.array(list(cases.values()), dtype=float)
        draws["_bytes_basis"] = codes[rng.integers(0, len(codes), n)]
    t = totals(model_inputs(scenario, **draws))
    tt = {o: np.asarray(t[o], dtype=float) * np.ones(n) for o in OPTIONS}
    priced = scenario.priced()
    ch = cheapest_index(tt, priced)
    counts = np.bincount(ch, minlength=len(OPTIONS))
    any_priced = any(priced.get(o, True) for o in OPTIONS)
    if not any_priced:  # argmin over all-inf rows picks the first option: no option is cheapest
        counts = np.zeros(len(OPTIONS), dtype=int)
    q = {o: np.percentile(tt[o], [5, 50, 95]) for o in OPTIONS}
    warnings = []
    if not keys:
        warnings.append("the scenario has no uncertain inputs (ranges or distributions): every draw is the point value")
    return MonteCarloResult(
        n=n,
        seed=seed,
        uncertain_inputs=keys,
        p_cheapest={o: float(counts[i] / n) for i, o in enumerate(OPTIONS)},
        p5={o: float(q[o][0]) for o in OPTIONS},
        p50={o: float(q[o][1]) for o in OPTIONS},
        p95={o: float(q[o][2]) for o in OPTIONS},
        mean={o: float(np.mean(tt[o])) for o in OPTIONS},
        totals=tt,
        warnings=warnings,
        measured_inputs=[k for k in sorted(scenario.distributions)
                         if "from" in scenario.provenance.get(k, {}).get("distribution", {})],
        default_ranges={k: dict(assumed[k].params) for k in sorted(assumed)},
        byte_cases=list(cases) if len(cases) > 1 else [],
        any_priced=any_priced,
    )


def byte_cases(scenario: Scenario) -> dict[str, BytesBasis]:
    """The byte bases the Monte Carlo draws as cases (name -> model code): under ``link.bytes_basis: auto``,
    every estimate of the cross-region bytes that is physically possible (a measured figure above what can cross
    is refused, one a little above it is priced at it), also when they agree within the tolerance (the basis is
    a case of the uncertainty whenever there is more than one); a billed figure alone when given (it is what is
    paid). One basis (no case drawn) when only one estimate exists or the basis is forced."""
    from .evaluate import evaluate

    xb = evaluate(scenario).cross_region_bytes
    codes = xb.get("case_codes") or {}
    est = [(xb.get("estimates_gb_per_month") or {}).get(k) for k in codes]
    vals = [float(v) for v in est if v is not None]
    if len(vals) < 2:
        return {}
    return {k: BytesBasis(int(v)) for k, v in codes.items()}
