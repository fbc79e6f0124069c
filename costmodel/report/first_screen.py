"""The report's first screen: the answer before the evidence, readable without scrolling at 1,280 x 800.

:func:`first_screen` reads the stages' results (the decision, ``costmodel cost --json``'s object, the
comparison, the fits) and says, in words a manager reads: the option to take (the ADR's chosen option,
:func:`costmodel.checklist.adr.chosen_option`, so the report and the ADR agree), the totals of all options
on one axis, the margin, how sure, what would change the answer, the warm-up and steady state in minutes
and samples/s, and the conditions still open. It computes nothing the verbs do not print: every figure
is a key of the cost, compare, fit or decide JSON (keys that later versions add are used when present).
:func:`first_screen_html` draws it (escaped; the totals as one inline SVG on one scale).
"""
from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..checklist.adr import chosen_option
from ..checklist.cost_line import wait_break_even_line
from ..checklist.items import COST_MATERIALITY_FRACTION
from ..foundation.labels import (
    METRIC_UNIT_WORDS,
    OPTION_ACTIONS,
    duration_words,
    input_label,
    option_label,
)
from ..foundation.util import finite_float, jsonable_dicts

OPTIONS = ("cross_region", "replicate", "wait")
_COLOURS = {"cross_region": "#d62728", "replicate": "#1f77b4", "wait": "#7f7f7f"}
_VERDICT_COLOURS = {"GO": "#2ca02c", "CONDITIONAL": "#b36b00", "NO_GO": "#d62728"}

if TYPE_CHECKING:  # pragma: no cover
    from ..contracts.results import CompareRecord, CostRecord


@dataclass(frozen=True)
class Total:
    """One option's total over the horizon (the headline) with its Monte Carlo P5-P95 when drawn."""

    option: str
    usd: float | None
    p5_usd: float | None = None
    p95_usd: float | None = None


@dataclass(frozen=True)
class FirstScreen:
    """What the first screen says; every string is plain text (escaped when drawn)."""

    option: str
    action: str
    verdict: str
    proviso: str
    totals: tuple[Total, ...]
    horizon_months: float | None
    margin: str
    certainty: str
    basis: str = ""
    would_change: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()
    open_conditions: tuple[tuple[str, str], ...] = ()
    blockers: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: the one answer (decision.json ``recommendation.sentence``) and the warnings that touch the verdict
    recommendation: str = ""
    verdict_warnings: tuple[str, ...] = ()


def _usd(x: float | None) -> str:
    if x is None:
        return "unknown"
    return f"${x:,.0f}" if abs(x) >= 10 else f"${x:,.2f}"


def _pct(x: float | None, digits: int = 0) -> str:
    if x is None:
        return "?"
    return f"{x * 100:.{digits}f} %"


def _dict(obj: Any) -> dict[str, Any]:
    if obj is None:
        return {}
    if hasattr(obj, "to_json_dict"):
        return dict(obj.to_json_dict())
    if hasattr(obj, "to_dict"):
        return dict(obj.to_dict())
    return dict(obj)


def _horizon(months: float | None) -> str:
    return f" over {months:g} months" if months is not None else ""


def _cost_facts(decision: Mapping[str, Any]) -> dict[str, Any]:
    for it in decision.get("items") or []:
        if it.get("id") == "cost_favourable":
            ev = it.get("evidence")
            return dict(ev.get("facts") or {}) if isinstance(ev, Mapping) else {}
    return {}


def _totals(cost: CostRecord | None) -> tuple[Total, ...]:
    out = []
    for o in OPTIONS:
        opt = cost.options.given(o) if cost is not None else None
        if opt is None or not opt.to_json_dict():
            continue
        out.append(Total(o, opt.total_usd, opt.p5_usd, opt.p95_usd))
    return tuple(out)


def _fallback(totals: Sequence[Total]) -> str:
    """The cheaper of replicate and wait: what the record chooses when cross-region is blocked."""
    t = {x.option: x.usd for x in totals}
    r, w = t.get("replicate"), t.get("wait")
    return "wait" if r is not None and w is not None and w < r else "replicate"


def _margin(option: str, cost: CostRecord | None, facts: Mapping[str, Any], totals: Sequence[Total]) -> str:
    cheapest = cost.cheapest if cost is not None else None
    margin = cost.margin_usd if cost is not None else None
    months = cost.horizon_months if cost is not None else None
    spend = finite_float(facts.get("cluster_spend_usd"))
    share = f" ({_pct(margin / spend, 2)} of the {_usd(spend)} cluster spend)" if spend and margin is not None else ""
    if cheapest is None or margin is None:
        return "The options could not all be priced, so there is no cost margin to state."
    if cheapest == option:
        ranking = [x for x in (cost.ranking if cost is not None else []) if x != option]
        runner = option_label(ranking[0]) if ranking else "the next option"
        return f"{option_label(option).capitalize()} is the cheapest, by {_usd(margin)}{_horizon(months)} over {runner}{share}."
    t = {x.option: x.usd for x in totals}
    mine, best = t.get(option), t.get(str(cheapest))
    gap = mine - best if mine is not None and best is not None else None
    text = (f"{option_label(cheapest).capitalize()} is cheaper by {_usd(gap)}{_horizon(months)}"
            f"{share if gap is not None and abs(gap - margin) < 0.5 else ''}")
    materiality = finite_float(facts.get("materiality_usd"))
    if gap is not None and materiality and gap <= materiality:
        text += (f": under the {COST_MATERIALITY_FRACTION * 100:g} % materiality threshold "
                 f"({_usd(materiality)}), so cost does not decide")
    return text + "."


def _speed_phrase(compare: CompareRecord | None) -> str:
    if compare is None:
        return "there is no co-located vs remote comparison"
    verdict = str(compare.verdict or getattr(compare, "equivalence", "") or "")
    margin = compare.margin
    at = f" (within {_pct(margin)})" if margin is not None else ""
    ratio = compare.ratio
    if verdict == "equivalent" or compare.equivalent is True:
        return f"the remote run is as fast as the co-located one once warm{at}"
    if verdict in ("not_equivalent", "different", "slower") and ratio is not None:
        return f"the remote run is {_pct(abs(1 - ratio), 1)} {'slower' if ratio < 1 else 'faster'} once warm"
    return "the runs are too short or too noisy to tell whether the remote run is as fast once warm"


def _certainty(option: str, verdict: str, cost: CostRecord | None, facts: Mapping[str, Any],
               compare: CompareRecord | None, n_open: int, n_blockers: int,
               blockers: Sequence[Mapping[str, Any]] = ()) -> str:
    """One sentence a manager reads: how sure the recommendation is, and why."""
    cheapest = cost.cheapest if cost is not None else None
    p = (cost.p_cheapest if cost is not None else None) or {}
    n = cost.monte_carlo.n if cost is not None and cost.monte_carlo is not None else None
    draws = f" of {n:,} simulated cost outcomes" if isinstance(n, int) and n > 0 else ""
    p_opt = finite_float(p.get(option))
    cv: Mapping[str, Any] = (cost.verdict if cost is not None else None) or {}  # open objects in the contract
    if cv.get("option") == option and finite_float(cv.get("p_beats_runner_up")) is not None and draws:
        p_opt = finite_float(cv.get("p_beats_runner_up"))  # against the runner-up, measured inputs from their
        draws += " (measured inputs drawn from their sampling distributions)" if "sampling" in str(
            cv.get("probability_basis", "")) else ""
    materiality = finite_float(facts.get("materiality_usd"))
    margin = cost.margin_usd if cost is not None else None
    rec: Mapping[str, Any] = (cost.recommendation if cost is not None else None) or {}
    if verdict == "NO_GO":
        lead = "Cross-region is ruled out by the checklist"
        ids = [b.get("id") for b in (blockers or [])]
        why = f"{n_blockers} blocker(s) answered no ({', '.join(str(i) for i in ids)})" if ids else \
            f"{n_blockers} blocker(s) answered no"
        if cheapest == option and p_opt is not None and draws:
            runner = option_label(str(cv.get("runner_up"))) if cv.get("runner_up") else "the others"
            share = "nearly all" if p_opt >= 0.9995 and rec.get("confidence") not in (None, "high") else _pct(p_opt)
            why += f"; {option_label(option)} is cheaper than {runner} in {share}{draws}"
        return f"{lead}: {why}."
    if rec.get("confidence_statement") and cheapest == option:  # one rule for how sure
        cost_part = f"on cost, confidence {rec.get('confidence')}: {rec['confidence_statement']}"
    elif cheapest == option:
        cost_part = (f"it is the cheapest in {_pct(p_opt)}{draws}" if p_opt is not None and draws
                     else "it is the cheapest at the expected value of every input")
    elif margin is not None and materiality and margin <= materiality:
        cost_part = (f"the cost gap to {option_label(str(cheapest))} is too small to matter "
                     f"(under {COST_MATERIALITY_FRACTION * 100:g} % of the cluster spend)")
    else:
        cost_part = f"it costs more than {option_label(str(cheapest))}"
    speed = _speed_phrase(compare)
    if verdict == "GO":
        lead = "Confident" if (cost is None or cost.robust is not False) and rec.get("confidence") in (None, "high") \
            else "Fairly confident"
        return f"{lead}: {cost_part}, {speed}, and every checklist item is answered yes."
    return (f"Likely, not yet certain: {cost_part} and {speed}, but {n_open} checklist condition(s) are still open "
            "(below).")


def _would_change(option: str, verdict: str, cost: CostRecord | None, facts: Mapping[str, Any],
                  decision: Mapping[str, Any], totals: Sequence[Total]) -> list[str]:
    out: list[str] = []
    cv: Mapping[str, Any] = (cost.verdict if cost is not None else None) or {}  # open objects in the contract
    flip = cv.get("flip") if isinstance(cv.get("flip"), Mapping) else None
    flips = bool(flip)
    if flip and cv.get("option") and cv.get("runner_up"):
        cur, val, ch = (finite_float(flip.get(k)) for k in ("current", "value", "change_fraction"))
        if cur is not None and val is not None:
            change = f" ({ch * 100:+.0f} %)" if ch is not None else ""
            out.append(f"{option_label(str(cv['runner_up'])).capitalize()} becomes cheaper than "
                       f"{option_label(str(cv['option']))} if {input_label(str(flip.get('input')))} goes from "
                       f"{cur:,.4g} to {val:,.4g} {flip.get('unit') or ''}{change}: the smallest single change that "
                       "flips the cost.")
    rec: Mapping[str, Any] = (cost.recommendation if cost is not None else None) or {}
    dec_a = rec.get("deciding_assumption") if isinstance(rec.get("deciding_assumption"), Mapping) else None
    if dec_a and dec_a.get("within_range") and dec_a.get("input"):
        also = [str(a) for a in dec_a.get("also") or []]
        out.append(f"Within its plausible range {dec_a['input']} alone flips the cost ({dec_a.get('why')})"
                   + (f"; so do {', '.join(also)}" if also else "") + ": the deciding assumption.")
    by_basis = cv.get("cross_region_total_usd_by_bytes_basis")
    xb: Mapping[str, Any] = (cost.cross_region_bytes if cost is not None else None) or {}
    if isinstance(by_basis, Mapping) and xb.get("basis") and xb.get("agree") is False:
        other = next((k for k in by_basis if k != xb.get("basis")), None)
        alt_usd = finite_float(by_basis.get(other)) if other else None
        if alt_usd is not None and other in (xb.get("refused") or []):
            out.append(f"Cross-region is priced on the {xb.get('basis')} bytes that can cross regions "
                       f"({finite_float(xb.get('gb_per_month')) or 0:,.0f} GB/month); the {other} figure, "
                       f"{_usd(alt_usd)} if priced, is refused: it is more than can physically cross.")
        elif alt_usd is not None:
            out.append(f"Cross-region is priced on the {xb.get('basis')} bytes that cross regions "
                       f"({finite_float(xb.get('gb_per_month')) or 0:,.0f} GB/month); on the {other} bytes it would "
                       f"cost {_usd(alt_usd)}.")
    if option == "cross_region":
        fallback = _fallback(totals)
        open_blockers = [c.get("id") for c in decision.get("conditions") or [] if c.get("severity") == "blocker"]
        if open_blockers:
            out.append(f"Any open blocker answered no ({', '.join(str(b) for b in open_blockers)}): "
                       f"{option_label(fallback)} instead.")
        materiality = finite_float(facts.get("materiality_usd"))
        sens = list(cost.sensitivity) if cost is not None else []
        if materiality and sens and not flips:
            worst = max(sens, key=lambda s: max(finite_float(s.get("delta_low_usd")) or -math.inf,
                                                finite_float(s.get("delta_high_usd")) or -math.inf))
            extra = max(finite_float(worst.get("delta_low_usd")) or -math.inf,
                        finite_float(worst.get("delta_high_usd")) or -math.inf)
            if extra > materiality:
                name = input_label(str(worst.get("input")))
                out.append(f"{name} at the end of its range: cross-region would cost {_usd(extra)} more "
                           f"than a replica, over the {_usd(materiality)} threshold.")
            else:
                out.append(f"Cost only if cross-region came to cost over {_usd(materiality)} more than a replica; "
                           f"no input moved to the end of its range does that (largest: {input_label(str(worst.get('input')))}, "
                           f"{_usd(extra)}).")
    elif not flips:
        for s in (cost.sensitivity if cost is not None else []):
            for end in ("low", "high"):
                other = s.get(f"cheapest_{end}")
                if other and other != option:
                    out.append(f"{input_label(str(s.get('input')))} at its {end} value {finite_float(s.get(end)) or 0:,.4g} "
                               f"({s.get('unit')}): {option_label(str(other))} becomes cheapest.")
                    break
            if len(out) >= 2:
                break
        if verdict == "NO_GO" and any(b.get("id") != "cost_favourable" for b in decision.get("blockers") or []):
            out.append("Every blocker answered yes with evidence: cross-region becomes possible again.")
    wait_line = wait_break_even_line(cost, option)
    if wait_line:
        out.append(wait_line)
    return out[:4]


def _unit_of(metric: str) -> str:
    return METRIC_UNIT_WORDS.get(metric, metric.replace("_", " "))


def _run_findings(compare: Mapping[str, Any], fits: Sequence[Mapping[str, Any]]) -> list[str]:
    out: list[str] = []
    metric = str(compare.get("metric") or (fits[0].get("metric") if fits else "") or "")
    unit = _unit_of(metric)
    if compare:
        extra_s = finite_float(compare.get("remote_extra_warmup_s"))
        steps = finite_float(compare.get("remote_extra_warmup_steps"))
        lost = finite_float(compare.get("remote_lost_s"))
        if extra_s is not None:
            text = f"Warm-up: the remote run needs {duration_words(extra_s)} longer than the co-located one"
            if steps is not None:
                text += f" ({steps:,.0f} steps)"
            if lost is not None:
                text += f"; {duration_words(lost)} of cluster time lost per cold start"
            out.append(text + ".")
        pooled = compare.get("pooled") or {}
        co, re_ = (finite_float((pooled.get(k) or {}).get("mean")) for k in ("colocated", "remote"))
        ratio, lo, hi = (finite_float(compare.get(k)) for k in ("ratio", "ratio_ci_low", "ratio_ci_high"))
        if co is not None and re_ is not None:
            text = f"Steady state: remote {re_:,.1f} vs co-located {co:,.1f} {unit}"
            if ratio is not None and lo is not None and hi is not None:
                text += f" (remote/co-located {ratio:.3f}, 95 % CI {lo:.3f}-{hi:.3f})"
            out.append(text + ".")
        hit = finite_float(compare.get("remote_steady_hit_ratio"))
        tele_words = _telemetry_line((compare.get("telemetry") or {}).get("remote")
                                     if isinstance(compare.get("telemetry"), Mapping) else None)
        if hit is not None and "cache hit ratio" not in tele_words:  # each fact once
            out.append(f"Once warm, the cache serves {_pct(hit, 1)} of the remote run's reads.")
    else:
        for f in fits[:3]:
            w = finite_float(f.get("warmup_end_t_s"))
            m = finite_float(f.get("steady_mean"))
            if w is not None and m is not None:
                out.append(f"{f.get('run_id')}: warm-up {duration_words(w)}, then {m:,.1f} {unit}.")
    tele = (compare.get("telemetry") or {}).get("remote") if isinstance(compare.get("telemetry"), Mapping) else None
    if not isinstance(tele, Mapping):  # no comparison: the first remote fit's own telemetry
        tele = next((f.get("telemetry") for f in fits if f.get("role") == "remote"
                     and isinstance(f.get("telemetry"), Mapping)), None)
    line = _telemetry_line(tele)
    if line:
        out.append(line)
    return out


def _telemetry_line(tele: Any) -> str:
    """Cold vs warm telemetry of the remote run (``compare --json``'s ``telemetry.remote``: ``cold`` and
    ``steady``), in words; empty when there is none."""
    if not isinstance(tele, Mapping):
        return ""
    cold, warm = tele.get("cold"), tele.get("steady")
    if not isinstance(cold, Mapping) or not isinstance(warm, Mapping):
        return ""
    from ..foundation.units_fmt import bytes_per_s

    parts = []
    for key, label in (("gpu_util", "GPU utilisation"), ("cache_hit_ratio", "cache hit ratio")):
        c, w = finite_float(cold.get(key)), finite_float(warm.get(key))
        if c is not None and w is not None:
            parts.append(f"{label} {_pct(c)} cold vs {_pct(w)} warm")
    c, w = finite_float(cold.get("data_wait_s")), finite_float(warm.get("data_wait_s"))
    if c is not None and w is not None:
        parts.append(f"data wait {c * 1000:,.0f} ms vs {w * 1000:,.0f} ms per step")
    c, w = finite_float(cold.get("read_bytes_per_s")), finite_float(warm.get("read_bytes_per_s"))
    if c is not None and w is not None:
        parts.append(f"reads {bytes_per_s(c, 3)} vs {bytes_per_s(w, 3)}")
    return ("Remote run, cold vs warm: " + "; ".join(parts) + ".") if parts else ""


def _basis(cost: CostRecord | None) -> str:
    """Where the totals come from: the measured figures applied to the scenario, and what the scenario alone
    says (what ``costmodel cost`` prints without ``--from-compare``), so the report and ``cost`` tell one story."""
    sf = cost.scenario_figures if cost is not None else None
    if sf is None:
        return "Totals from the scenario's inputs at their expected values."
    replaced = sf.replaced
    words = {"cache.steady_hit_ratio": "cache hit ratio", "cache.warmup_lost_s": "warm-up time lost",
             "cache.steady_slowdown_fraction": "steady slowdown"}
    names = [words.get(k, k) for k in replaced]
    text = f"Totals use the measured {', '.join(names)} in place of the scenario's estimates"
    if "cache.steady_slowdown_fraction" in replaced:
        m, s = replaced["cache.steady_slowdown_fraction"].measured, replaced["cache.steady_slowdown_fraction"].scenario
        if m is not None and s is not None:
            text += f" (slowdown {_pct(m, 2)} measured, {_pct(s, 2)} in the scenario)"
    cheapest, margin = sf.cheapest, sf.margin_usd
    if cheapest and margin is not None:
        text += (f". With the scenario's own figures (what `costmodel cost` prints without --from-compare), "
                 f"{option_label(str(cheapest))} is cheapest by {_usd(margin)}")
    return text + "."


def first_screen(decision: Any, cost: Mapping[str, Any] | Any, compare: Any = None,
                 fits: Sequence[Any] = (), placement: Mapping[str, Any] | None = None) -> FirstScreen:
    """The first screen of the report from the stages' results (see the module docstring)."""
    from ..checklist.adr import cost_result
    from ..checklist.answer import one_answer
    from ..contracts.read import read_lenient
    from ..contracts.results import CompareRecord

    dec = _dict(decision)
    cost_d = _dict(cost)
    cmp = _dict(compare)
    cost_m = cost_result(cost_d)  # the models, read once (leniently: a garbled key is left out); fields below
    cmp_m = read_lenient(CompareRecord, cmp) if cmp else None
    fit_d = jsonable_dicts(fits)
    verdict = str(dec.get("verdict") or "")
    option = chosen_option(decision, cost_m) if hasattr(decision, "verdict") else (
        "cross_region" if verdict != "NO_GO" else _fallback(_totals(cost_m)))
    totals = _totals(cost_m)
    facts = _cost_facts(dec)
    conditions = tuple((str(c.get("id")), f"{c.get('condition')} ({c.get('severity')}, {c.get('answer')})")
                       for c in dec.get("conditions") or [])
    blockers = tuple((str(b.get("id")), str(b.get("reason"))) for b in dec.get("blockers") or [])
    ans = one_answer(decision if hasattr(decision, "verdict") else dec, cost_d, placement) \
        if isinstance(cost_d.get("recommendation"), Mapping) else None
    proviso = {
        "GO": "every checklist item is answered yes",
        "CONDITIONAL": f"provided the {len(conditions)} open condition(s) below are met first",
        "NO_GO": f"cross-region is blocked ({len(blockers)} blocker(s) answered no)",
    }.get(verdict, "")
    return FirstScreen(
        option=option,
        action=OPTION_ACTIONS.get(option, option),
        verdict=verdict,
        proviso=proviso,
        totals=totals,
        horizon_months=cost_m.horizon_months if cost_m is not None else None,
        margin=_margin(option, cost_m, facts, totals),
        certainty=_certainty(option, verdict, cost_m, facts, cmp_m, len(conditions), len(blockers),
                             dec.get("blockers") or []),
        basis=_basis(cost_m),
        would_change=tuple(_would_change(option, verdict, cost_m, facts, dec, totals)),
        runs=tuple(_run_findings(cmp, fit_d)),
        open_conditions=conditions,
        blockers=blockers,
        recommendation=ans["sentence"] if ans is not None else "",
        verdict_warnings=tuple(ans["verdict_warnings"]) if ans is not None else (),
    )


# ------------------------------------------------------------------ drawing
def _nice_step(span: float) -> float:
    raw = span / 5 if span > 0 else 1.0
    mag = 10 ** math.floor(math.log10(raw))
    return next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)


def totals_svg(totals: Sequence[Total], chosen: str, horizon_months: float | None, width: int = 560) -> str:
    """Every option's total as a bar on ONE linear scale from 0 (the Monte Carlo P5-P95 as a whisker), the
    chosen option marked; a self-contained SVG with a title for screen readers."""
    rows = [t for t in totals if t.usd is not None]
    left, right, row_h, top = 150, 120, 30, 8
    plot = width - left - right
    hi = max([t.usd or 0.0 for t in rows] + [t.p95_usd or 0.0 for t in rows] + [1.0])
    step = _nice_step(hi)
    top_tick = step * math.ceil(hi / step)
    x = lambda v: left + plot * (v / top_tick)  # noqa: E731 - a local scale
    height = top + row_h * len(rows) + 34
    e = html.escape
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" data-cm="totals" style="max-width:100%;height:auto">'),
             f"<title>Total cost of each option{e(_horizon(horizon_months))}, USD, one scale</title>"]
    for i in range(int(round(top_tick / step)) + 1):
        v = i * step
        parts.append(f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{top}" y2="{top + row_h * len(rows)}" '
                     'stroke="#ddd"/>')
        parts.append(f'<text x="{x(v):.1f}" y="{top + row_h * len(rows) + 13}" font-size="11" text-anchor="middle" '
                     f'fill="#555">{e(_usd(v))}</text>')
    for i, t in enumerate(rows):
        y = top + i * row_h
        usd = t.usd or 0.0
        bold = ' font-weight="bold"' if t.option == chosen else ""
        parts.append(f'<text x="{left - 8}" y="{y + row_h / 2 + 4:.1f}" font-size="13" text-anchor="end"{bold}>'
                     f'{e(option_label(t.option))}</text>')
        parts.append(f'<rect x="{left}" y="{y + 6}" width="{max(x(usd) - left, 1.5):.1f}" height="{row_h - 12}" '
                     f'fill="{_COLOURS.get(t.option, "#7f7f7f")}" fill-opacity="{1.0 if t.option == chosen else 0.55}"/>')
        if t.p5_usd is not None and t.p95_usd is not None and t.p95_usd > t.p5_usd:
            parts.append(f'<line x1="{x(t.p5_usd):.1f}" x2="{x(t.p95_usd):.1f}" y1="{y + row_h / 2}" '
                         f'y2="{y + row_h / 2}" stroke="#222" stroke-width="1.5"/>')
        label = _usd(usd) + (" (chosen)" if t.option == chosen else "")
        end = max(usd, t.p95_usd or 0.0)  # the label after the bar and its whisker
        parts.append(f'<text x="{min(x(end), left + plot) + 6:.1f}" y="{y + row_h / 2 + 4:.1f}" font-size="12"'
                     f'{bold} data-cm="total-{e(t.option)}">{e(label)}</text>')
    parts.append(f'<text x="{left}" y="{height - 4}" font-size="11" fill="#555">total{e(_horizon(horizon_months))}, '
                 "USD, one scale from 0 (black line: P5-P95)</text>")
    parts.append("</svg>")
    return "".join(parts)


def first_screen_html(fs: FirstScreen) -> str:
    """The first screen as one HTML block: left the recommendation, the totals, the margin and how sure;
    right the findings from the runs, what would change the answer and the open conditions. Columns wrap
    below each other on a narrow screen."""
    e = html.escape
    colour = _VERDICT_COLOURS.get(fs.verdict, "#555")
    col = "flex:1 1 420px;min-width:0;max-width:640px"
    li = lambda items: "".join(f"<li>{e(x)}</li>" for x in items)  # noqa: E731
    left = [
        (f'<div data-cm="recommendation" style="border-left:6px solid {colour};padding:6px 12px;background:#f7f7f7">'
        f'<div style="font-size:13px;color:#555">Recommendation</div>'
        f'<div style="font-size:20px;font-weight:600;line-height:1.25">Take: {e(option_label(fs.option))}</div>'
        f'<div style="font-size:13px">{e(fs.action)}; {e(fs.proviso)}. '
        f'Checklist verdict: <b style="color:{colour}">{e(fs.verdict)}</b>.</div></div>'),
        f'<div style="margin-top:8px">{totals_svg(fs.totals, fs.option, fs.horizon_months)}</div>',
        f'<p style="margin:4px 0;font-size:13px" data-cm="margin"><b>Margin.</b> {e(fs.margin)}</p>',
        f'<p style="margin:4px 0;font-size:13px" data-cm="certainty"><b>How sure.</b> {e(fs.certainty)}</p>',
        f'<p style="margin:4px 0;font-size:12px;color:#444" data-cm="basis">{e(fs.basis)}</p>',
    ]
    if fs.recommendation:
        left.append(f'<p style="margin:4px 0;font-size:12px" data-cm="one-answer"><b>The answer, as decision.json and '
                    f'the ADR state it.</b> {e(fs.recommendation)}</p>')
    if fs.verdict_warnings:
        left.append('<div style="font-size:13px;font-weight:600;color:#b36b00">Warnings that touch the verdict '
                    f'({len(fs.verdict_warnings)})</div><ul data-cm="verdict-warnings" style="margin:2px 0 6px 18px;'
                    f'padding:0;font-size:12px">{li(fs.verdict_warnings)}</ul>')
    right = []
    if fs.blockers:
        right.append('<div style="font-size:13px;font-weight:600">Why not cross-region</div>'
                     f'<ul style="margin:2px 0 6px 18px;padding:0;font-size:12px">'
                     f'{li(f"{i}: {r}" for i, r in fs.blockers)}</ul>')
    if fs.runs:
        right.append('<div style="font-size:13px;font-weight:600">What the runs show</div>'
                     f'<ul data-cm="runs" style="margin:2px 0 6px 18px;padding:0;font-size:12px">{li(fs.runs)}</ul>')
    if fs.would_change:
        right.append('<div style="font-size:13px;font-weight:600">What would change the answer</div>'
                     f'<ul data-cm="would-change" style="margin:2px 0 6px 18px;padding:0;font-size:12px">'
                     f'{li(fs.would_change)}</ul>')
    if fs.open_conditions:
        head = "Still open" if fs.verdict != "NO_GO" else "Also open for cross-region"
        right.append(f'<div style="font-size:13px;font-weight:600">{head} ({len(fs.open_conditions)})</div>'
                     f'<ul data-cm="open" style="margin:2px 0 6px 18px;padding:0;font-size:12px">'
                     f'{li(f"{i}: {c}" for i, c in fs.open_conditions)}</ul>')
    return ('<div data-cm="first-screen" style="display:flex;flex-wrap:wrap;gap:8px 24px;align-items:flex-start;'
            f'line-height:1.35"><div style="{col}">{"".join(left)}</div><div style="{col}">{"".join(right)}</div></div>')


class FirstScreenHTML:
    """A :class:`FirstScreen` for notebooks (displays as HTML)."""

    def __init__(self, fs: FirstScreen) -> None:
        self.screen = fs

    def _repr_html_(self) -> str:
        return first_screen_html(self.screen)

    def __repr__(self) -> str:
        fs = self.screen
        return f"Take: {option_label(fs.option)} ({fs.verdict}). {fs.margin} {fs.certainty}"


def decision_summary(decision: Any, cost: Any, compare: Any = None, fits: Sequence[Any] = (),
                     placement: Mapping[str, Any] | None = None) -> FirstScreenHTML:
    """The first screen, ready to display (``report.show(report.decision_summary(...))``); ``cost`` is the
    cost stage (its result is read) or the ``costmodel cost --json`` object; ``placement`` the placement stage's
    result (its winner is reconciled with the answer in one sentence)."""
    result = getattr(cost, "result", cost)
    return FirstScreenHTML(first_screen(decision, result, compare, fits, placement))
