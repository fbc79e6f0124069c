"""Everything ``costmodel cost --json`` prints, as one plain dict (the report uses the same function).

Headline: each option's ``total_usd`` is the cost at the **expected value** of every input as stated (the
mean of its distribution, ``headline_basis: expected_value``), with the Monte Carlo P5-P95 range beside it
(``p5_usd``, ``p95_usd``; from ``--monte-carlo N`` when asked, else from ``HEADLINE_DRAWS`` seeded draws).

Robustness: ``margin_usd`` is the second-cheapest priced total minus the cheapest; ``robust`` is false when
the Monte Carlo's ``p_cheapest`` of the cheapest option is below ``ROBUST_P`` (0.9), or when a single tornado
input, moved within its stated range (P5/P95 of its distribution, or the default swing), changes which
priced option is cheapest. ``robust_reason`` says which.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .breakeven import break_even, wait_break_even
from .evaluate import evaluate
from .montecarlo import MonteCarloResult, default_distributions, monte_carlo
from .recommend import assumption_register, recommendation
from .scenario import Scenario
from .sensitivity import tornado_rows
from .spec import BYTES_PER_TOKEN_PLAUSIBLE
from .verdict import can_flip_warnings, checkpoint_warning, not_modelled, purchase_options, verdict

HEADLINE_DRAWS = 20_000
ROBUST_P = 0.9


def robustness(cheapest: str | None, margin_usd: float | None, p_cheapest: dict[str, float] | None,
               tornado_rows: Sequence[Mapping[Any, Any]], mc_basis: str,
               zero_wait: bool = False) -> tuple[bool, str]:
    """(robust, reason) for ``cheapest`` given the Monte Carlo ``p_cheapest`` and the tornado rows.
    ``zero_wait``: the scenario states ``wait.expected_wait_hours_per_run = 0`` (no queue at all), so a
    ``wait`` that wins rests on that statement alone and is never robust."""
    if cheapest is None:
        return False, "no option is priced"
    if margin_usd is None:
        return False, f"{cheapest} is the only priced option: there is nothing to compare it with"
    reasons = []
    if cheapest == "wait" and zero_wait:
        reasons.append("wait wins only because wait.expected_wait_hours_per_run is 0 (GPUs free in the data region "
                       "at once): state the expected wait")
    p = (p_cheapest or {}).get(cheapest)
    if p is not None and p < ROBUST_P:
        reasons.append(f"{cheapest} is cheapest in only {p:.1%} of the Monte Carlo draws ({mc_basis}), below {ROBUST_P:.0%}")
    for row in tornado_rows:
        for end in ("low", "high"):
            other = row.get(f"cheapest_{end}")
            if other is not None and other != cheapest:
                reasons.append(
                    f"{row['input']} at its {end} value {row[end]:.6g} ({row.get('range', '')}) makes {other} cheaper: "
                    f"it moves the totals across the {margin_usd:,.2f} USD margin")
                break
    if reasons:
        return False, "; ".join(reasons)
    if p is None:  # no draw ran: say nothing about draws
        return True, (f"{cheapest} stays cheapest by {margin_usd:,.2f} USD at both ends of every tornado input "
                      f"(no Monte Carlo draws: {mc_basis})")
    return True, (f"{cheapest} stays cheapest by {margin_usd:,.2f} USD in {p:.1%} of the draws, at least {ROBUST_P:.0%} "
                  f"(P(cheapest) {p:.1%}, {mc_basis}), and at both ends of every tornado input")


def _probability_basis(mc: MonteCarloResult, basis: str) -> str:
    """How the Monte Carlo probabilities were drawn, in words."""
    how = []
    if mc.measured_inputs:
        how.append("measured " + ", ".join(mc.measured_inputs) + " from their sampling distributions")
    stated = [k for k in mc.uncertain_inputs if k not in mc.measured_inputs and k not in mc.default_ranges]
    if stated:
        how.append("stated ranges of " + ", ".join(stated))
    if mc.default_ranges:
        how.append("default ranges of the assumptions " + ", ".join(mc.default_ranges))
    if mc.byte_cases:
        how.append("the cross-region bytes drawn uniformly over the cases " + ", ".join(mc.byte_cases))
    return basis + ("; " + "; ".join(how) if how else "")


def bytes_per_token_note(scenario: Scenario, size_be: Mapping[str, Any] | None) -> str | None:
    """A warning when the dataset's size rests on an assumed ``dataset.bytes_per_token``: the bytes per token
    at which the verdict flips (from the size break-even), and whether that lies within the input's plausible range
    (it DECIDES): its stated range, else :data:`~costmodel.cost.spec.BYTES_PER_TOKEN_PLAUSIBLE` widened to include
    the stated value (not a factor of 2)."""
    tokens, bpt = scenario.get("dataset.tokens"), scenario.get("dataset.bytes_per_token")
    src = str(scenario.provenance.get("dataset.size_gb", {}).get("source", ""))
    if tokens is None or bpt is None or "bytes_per_token" not in src:
        return None
    v = (size_be or {}).get("value")
    if v is None:
        return (f"dataset.size_gb rests on an assumed {bpt:g} bytes per token; no size flips the verdict, "
                "but state dataset.size_gb (the bytes on disk)")
    flip = v * 1e9 / tokens
    d = scenario.distributions.get("dataset.bytes_per_token")
    if d is not None:  # a stated range: it decides when the flip lies inside it
        lo, hi = (float(x) for x in d.quantile(np.array([0.0, 1.0]))) if d.kind in ("uniform", "triangular") else \
            (float(x) for x in d.quantile(np.array([0.05, 0.95])))
        decides = lo <= flip <= hi
        what = f"an assumed {lo:g}-{hi:g} bytes per token (mean {bpt:g})"
    else:
        lo, hi = min(BYTES_PER_TOKEN_PLAUSIBLE[0], bpt), max(BYTES_PER_TOKEN_PLAUSIBLE[1], bpt)
        decides = lo <= flip <= hi
        what = (f"an assumed {bpt:g} bytes per token (plausible {lo:g}-{hi:g}: token ids stored as uint16 or "
                "int32)")
    return (f"dataset.size_gb rests on {what}: the verdict flips at {flip:.3g} bytes per "
            f"token ({v:,.6g} GB)" + ("; this assumption DECIDES the verdict" if decides else "")
            + ": state dataset.size_gb, the bytes on disk")


def analyze(scenario: Scenario, monte_carlo_n: int = 0, seed: int = 0, default_ranges: bool = True) -> dict[str, Any]:
    """What ``costmodel cost --json`` prints (see :func:`analyze_with_draws`, which also returns the draws)."""
    return analyze_with_draws(scenario, monte_carlo_n, seed, default_ranges=default_ranges)[0]


def analyze_with_draws(scenario: Scenario, monte_carlo_n: int = 0, seed: int = 0,
                       default_ranges: bool = True) -> tuple[dict[str, Any], Any]:
    """Evaluate, break-even per input, tornado rows, the headline range, robustness and (when
    ``monte_carlo_n`` > 0) a seeded Monte Carlo.

    Keys: horizon_months, headline_basis, cheapest, margin_usd, robust, robust_reason, ranking, options
    (each with priced, not_priced_reason, p5_usd, p95_usd), consistency, break_even, wait_break_even,
    monte_carlo (when asked), sensitivity, derived, prices_used, warnings, inputs. Raises ScenarioError for
    an incomplete scenario. Returns (that dict, the MonteCarloResult of ``--monte-carlo`` draws or None):
    the report charts the same draws the verb summarises, with no second run.
    """
    result = evaluate(scenario)
    out = result.to_dict()
    out["break_even"] = break_even(scenario)
    out["wait_break_even"] = wait_break_even(scenario)
    rows = tornado_rows(scenario)
    out["sensitivity"] = rows
    mc: MonteCarloResult | None
    if monte_carlo_n:
        mc = monte_carlo(scenario, monte_carlo_n, seed, default_ranges=default_ranges)
        out["monte_carlo"] = mc.to_dict()
        out["warnings"] = out["warnings"] + mc.warnings
        basis = f"--monte-carlo {mc.n} draws, seed {mc.seed}"
    else:
        mc = monte_carlo(scenario, HEADLINE_DRAWS, seed, default_ranges=default_ranges) \
            if scenario.distributions or (default_ranges and default_distributions(scenario)) else None
        basis = f"{HEADLINE_DRAWS} draws, seed {seed}" if mc is not None else "no uncertain inputs"
    for o, opt in out["options"].items():
        opt["p5_usd"] = mc.p5[o] if mc is not None else opt["total_usd"]
        opt["p95_usd"] = mc.p95[o] if mc is not None else opt["total_usd"]
    out["headline_basis"] = "expected_value"
    out["headline_range"] = {"quantiles": [5, 95], "basis": "monte_carlo" if mc is not None else "point",
                             "n": mc.n if mc is not None else 0, "seed": seed,
                             "note": "total_usd is the cost at the expected value (mean) of every input; p5_usd and "
                                     "p95_usd are the Monte Carlo P5 and P95 of the total"}
    p_cheapest = mc.p_cheapest if mc is not None and mc.any_priced else None  # null when nothing is priced
    zero_wait = scenario.values.get("wait.expected_wait_hours_per_run") == 0 and \
        "wait.expected_wait_hours_per_run" not in scenario.distributions and "wait" not in scenario.not_priced
    robust, reason = robustness(result.cheapest, result.margin_usd, p_cheapest, rows, basis, zero_wait=zero_wait)
    out["robust"] = robust
    out["robust_reason"] = reason
    out["p_cheapest"] = p_cheapest
    note = bytes_per_token_note(scenario, out["break_even"].get("dataset.size_gb"))
    if note:
        out["warnings"] = out["warnings"] + [note]
    priced = scenario.priced()
    out["verdict"] = verdict(out, mc.totals if mc is not None else None,
                             _probability_basis(mc, basis) if mc is not None else None, priced,
                             certain_ok=robust and all(priced.values()))
    out["verdict"]["break_even_gpu_usd_per_hour"] = out["break_even"].get("training.cluster_usd_per_hour", {}).get("value")
    out["verdict"]["break_even_dataset_gb"] = out["break_even"].get("dataset.size_gb", {}).get("value")
    po_rows, po_sentence = purchase_options(scenario, result.cheapest)
    out["purchase_options"] = po_rows
    out["verdict"]["purchase_options_sentence"] = po_sentence
    rows_nm, sentence = not_modelled(scenario, result.derived, result.margin_usd, result.cheapest)
    ck_note = checkpoint_warning(rows_nm, result.margin_usd, scenario.get("training.checkpoint_gb_per_run") is not None)
    if ck_note:
        out["warnings"] = out["warnings"] + [ck_note]
    out["warnings"] = out["warnings"] + can_flip_warnings(rows_nm, result.margin_usd)
    out["not_modelled"] = rows_nm
    out["verdict"]["not_modelled_sentence"] = sentence
    out["recommendation"] = recommendation(out, priced, note)
    if robust and all(priced.values()) and out["recommendation"].get("confidence") != "high":
        # a warning touches the verdict (a term not modelled that can flip it, the byte basis...): its sentence
        # says no "100 %" either (one rule for the verdict and the recommendation)
        out["verdict"]["sentence"] = verdict(out, mc.totals if mc is not None else None,
                                             _probability_basis(mc, basis) if mc is not None else None, priced,
                                             certain_ok=False)["sentence"]
    out["assumptions"] = assumption_register(out.get("inputs") or {})
    order = ["horizon_months", "headline_basis", "cheapest", "margin_usd", "robust", "robust_reason", "p_cheapest",
             "recommendation", "verdict", "not_modelled", "purchase_options", "ranking", "options", "headline_range",
             "cross_region_bytes", "consistency", "break_even", "wait_break_even", "monte_carlo",
             "sensitivity", "derived", "prices_used", "warnings", "assumptions", "inputs"]
    return {k: out[k] for k in order if k in out}, (mc if monte_carlo_n else None)
