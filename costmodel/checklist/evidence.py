"""Automatic evidence: what the ``compare``, ``cost`` and ``fit`` results (their JSON dicts) say about
each checklist item. Evidence *proposes* an answer where the data can speak; a person's answer
overrides the proposal (see :mod:`costmodel.checklist.verdict`).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import equivalence
from ..util import finite_float
from .items import (
    CACHE_MIN_HEADROOM,
    COST_MATERIALITY_FRACTION,
    DIP_MAX_LOSS,
    ITEMS,
    LINK_HEADROOM_MAX_UTILISATION,
    MIN_HIT_RATIO,
    MIN_REPETITIONS,
    WARMUP_MAX_SHARE,
)


@dataclass(frozen=True)
class Evidence:
    """What the data says about one item: a proposed answer, a one-line summary and the figures used."""

    item_id: str
    proposed: str = "unknown"  # yes / no / unknown
    summary: str = "no automatic evidence"
    facts: dict[str, Any] = field(default_factory=dict)  # the numbers, units in the names
    sources: tuple[str, ...] = ()  # which inputs spoke: "compare", "cost", "fit"
    condition: str = ""  # what to do instead of the item's own condition ('' = the item's)
    predicted: bool = False  # built on predicted (simulated) runs, not measurements

    def to_dict(self) -> dict[str, Any]:
        return {
            "proposed": self.proposed,
            "summary": self.summary,
            "facts": dict(self.facts),
            "sources": list(self.sources),
            "condition": self.condition,
            "predicted": self.predicted,
        }


#: Items whose evidence asserts measured behaviour: built on predicted runs they never propose ``yes``.
MEASURED_ITEMS: tuple[str, ...] = (
    "reread_fits_cache", "states_covered", "throughput_equivalent", "steady_after_warmup", "repetitions",
    "link_headroom", "warmup_share",
)
PREDICTION_CONDITION = "confirm with a measured benchmark (the evidence is a prediction)"


def _as_prediction(ev: Evidence, run_ids: Iterable[str]) -> Evidence:
    """``ev`` marked as resting on the predicted runs ``run_ids``: the summary says so, a ``yes`` becomes
    ``unknown`` with :data:`PREDICTION_CONDITION` (a predicted ``no`` stays: the model foresees a problem)."""
    ids = sorted(set(run_ids))
    summary = (f"PREDICTION, not a measurement (predicted run{'s' if len(ids) > 1 else ''} {', '.join(ids)}): "
               + ev.summary.replace("(measured)", "(predicted)"))
    proposed, condition = ev.proposed, ev.condition
    if ev.proposed == "yes":
        proposed, condition = "unknown", PREDICTION_CONDITION
        summary += "; would propose yes if measured"
    facts = {**ev.facts, "predicted_runs": ids}
    return Evidence(ev.item_id, proposed, summary, facts, ev.sources, condition, True)


def _predicted(fits: Iterable[Mapping[str, Any]]) -> list[str]:
    """Run ids of the fits marked ``predicted: true`` (runs from ``costmodel simulate``)."""
    return [str(f.get("run_id") or "?") for f in fits if f.get("predicted") is True]


def _num(value: Any) -> float | None:
    """A finite float or None (missing, null, NaN, text, and a yes/no bool, which is no measurement)."""
    return None if isinstance(value, bool) else finite_float(value)


def _get(d: Any, *path: str) -> Any:
    cur = d
    for key in path:
        if not isinstance(cur, Mapping) or key not in cur:
            return None
        cur = cur[key]
    return cur


def _scn(cost: Any, *path: str) -> Any:
    """A scenario value from the cost result: ``inputs.values.<path>`` (resolved scenario), else ``inputs.<path>``."""
    v = _get(cost, "inputs", "values", *path)
    return v if v is not None else _get(cost, "inputs", *path)


def _fits_of(compare: Mapping | None, fits: Iterable[Mapping] | None) -> list[dict[str, Any]]:
    """All fit dicts: the given ones plus the compare result's, each tagged with its role."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    tagged: list[tuple[str | None, Any]] = []
    if compare:
        for side in ("colocated", "remote"):
            tagged += [(side, f) for f in (compare.get(side) or [])]
    tagged += [(None, f) for f in (fits or [])]
    for role, f in tagged:
        if not isinstance(f, Mapping):
            continue
        rid = f.get("run_id")
        if rid is not None:
            if str(rid) in seen:  # the same run given twice (in compare and as a fit)
                continue
            seen.add(str(rid))
        out.append({**f, "_role": role or str(f.get("role") or "")})
    return out


def _fmt_pct(x: float) -> str:
    """A share as a percentage: one decimal, two where it would otherwise round to 0.0 or 0.1."""
    if 0 < abs(x) < 0.0015:
        return f"{x * 100:.2f} %"
    return f"{x * 100:.1f} %"


def _usd(x: float) -> str:
    return f"${x:,.0f}"


def _hit_ratio(compare: Mapping | None, cost: Mapping | None) -> tuple[float | None, str | None]:
    h = _num(_get(compare, "remote_steady_hit_ratio"))
    if h is not None:
        return h, "compare"
    h = _num(_scn(cost, "cache", "steady_hit_ratio"))
    if h is not None:
        return h, "cost"
    return None, None


def _working_set_gb(cost: Mapping | None) -> float | None:
    derived = _num(_get(cost, "derived", "working_set_gb"))
    if derived is not None:
        return derived
    size = _num(_scn(cost, "dataset", "size_gb"))
    if size is None:
        return None
    frac = _num(_scn(cost, "dataset", "working_set_fraction"))
    return size * (frac if frac is not None else 1.0)


def _ev_reread(compare: Mapping | None, cost: Mapping | None) -> Evidence:
    facts: dict[str, Any] = {}
    sources: set[str] = set()
    reasons_no: list[str] = []
    parts: list[str] = []
    epochs = _num(_scn(cost, "training", "epochs_per_run"))
    runs = _num(_scn(cost, "training", "runs_per_month"))
    reads_per_month = None
    if epochs is not None and runs is not None:
        reads_per_month = epochs * runs
        facts.update(epochs_per_run=epochs, runs_per_month=runs, reads_per_month=reads_per_month)
        sources.add("cost")
        parts.append(f"{epochs:g} epochs x {runs:g} runs/month = {reads_per_month:g} reads/month")
        cold = _num(_scn(cost, "cache", "cold_starts_per_month"))
        warm = _num(_get(cost, "derived", "warm_epochs_per_month"))
        if warm is None and cold is not None:
            warm = max(reads_per_month - cold, 0.0)
        if warm is not None:
            facts["warm_reads_per_month"] = warm
        if reads_per_month <= 1:
            reasons_no.append("the data is read at most once a month")
        elif warm is not None and warm <= 0:
            reasons_no.append(f"every read starts with a cold cache ({cold:g} cold starts/month)" if cold is not None
                              else "no read finds a warm cache")
    h, h_src = _hit_ratio(compare, cost)
    if h is not None:
        facts["steady_hit_ratio"] = h
        facts["steady_hit_ratio_source"] = h_src
        sources.add(h_src or "")
        parts.append(f"steady hit ratio {_fmt_pct(h)} ({'measured' if h_src == 'compare' else 'scenario'})")
        if h < MIN_HIT_RATIO:
            reasons_no.append(f"hit ratio {_fmt_pct(h)} is below {_fmt_pct(MIN_HIT_RATIO)}")
    ws = _working_set_gb(cost)
    cap = _num(_scn(cost, "cache", "capacity_gb"))
    if ws is not None:
        facts["working_set_gb"] = ws
    if cap is not None:
        facts["cache_capacity_gb"] = cap
    if ws is not None and cap is not None:
        parts.append(f"working set {ws:,.0f} GB vs cache {cap:,.0f} GB")
        if cap < ws:
            reasons_no.append("the working set does not fit the cache")
    if reasons_no:
        return Evidence("reread_fits_cache", "no", "; ".join(parts) + ": " + "; ".join(reasons_no), facts, tuple(sorted(sources)))
    if reads_per_month is not None and h is not None:
        # reads > 1 and the hit ratio is high (else a reason above); the fit is checked when capacity is stated
        unchecked = "" if cap is not None and ws is not None else " (cache capacity not stated: fit not checked)"
        return Evidence("reread_fits_cache", "yes", "; ".join(parts) + unchecked, facts, tuple(sorted(sources)))
    summary = "; ".join(parts) if parts else "no scenario or measured hit ratio given"
    return Evidence("reread_fits_cache", "unknown", summary + " (not enough to propose an answer)", facts, tuple(sorted(sources)))


def _option_total(cost: Mapping | None, option: str) -> float | None:
    return _num(_get(cost, "options", option, "total_usd"))


def _cluster_spend_usd(cost: Mapping | None) -> float | None:
    """GPU cluster spend over the horizon: training hours per month x cluster price x months."""
    months = _num(_get(cost, "horizon_months"))
    hours = _num(_get(cost, "derived", "training_hours_per_month"))
    if hours is None:
        runs = _num(_scn(cost, "training", "runs_per_month"))
        run_h = _num(_scn(cost, "training", "run_hours"))
        hours = runs * run_h if runs is not None and run_h is not None else None
    price = _num(_scn(cost, "training", "cluster_usd_per_hour"))
    if months is None or hours is None or price is None:
        return None
    return months * hours * price


def _ev_cost(cost: Mapping | None) -> Evidence:
    if not cost:
        return Evidence("cost_favourable", summary="no cost result given")
    x = _option_total(cost, "cross_region")
    r = _option_total(cost, "replicate")
    w = _option_total(cost, "wait")
    months = _num(cost.get("horizon_months"))
    facts: dict[str, Any] = {"cross_region_total_usd": x, "replicate_total_usd": r, "wait_total_usd": w,
                             "horizon_months": months, "cheapest": cost.get("cheapest")}
    if x is None or r is None:
        return Evidence("cost_favourable", summary="cost result lacks option totals", facts=facts, sources=("cost",))
    unpriced = [o for o in ("cross_region", "replicate")
                if _get(cost, "options", o, "priced") is False]
    if unpriced:
        why = "; ".join(f"{o}: {_get(cost, 'options', o, 'not_priced_reason')}" for o in unpriced)
        return Evidence("cost_favourable", "unknown", f"not priced ({why}); the totals leave terms out",
                        facts, ("cost",))
    horizon = f" over {months:g} months" if months is not None else ""
    extra = x - r  # what cross-region costs more than a replica (negative: it saves)
    spend = _cluster_spend_usd(cost)
    materiality = COST_MATERIALITY_FRACTION * spend if spend is not None else 0.0
    facts.update(cross_region_extra_usd=extra, cluster_spend_usd=spend, materiality_usd=materiality)
    for k in ("margin_usd", "robust", "robust_reason", "headline_basis"):
        if k in cost:
            facts[k] = cost.get(k)
    p = _get(cost, "monte_carlo", "p_cheapest")
    p_x = _num(_get(p, "cross_region"))
    p_r = _num(_get(p, "replicate"))
    if p_x is not None:
        facts["p_cross_region_cheapest"] = p_x
    if p_r is not None:
        facts["p_replicate_cheapest"] = p_r
    base = f"cross-region {_usd(x)} vs replicate {_usd(r)}{horizon}"
    share = f" ({_fmt_pct(abs(extra) / spend)} of the {_usd(spend)} cluster spend)" if spend else ""
    mc = (f"; Monte Carlo: cross-region cheapest in {_fmt_pct(p_x)} of draws, replicate in {_fmt_pct(p_r)}"
          if p_x is not None and p_r is not None else "")
    if extra > materiality:
        return Evidence("cost_favourable", "no", base + f": replicating is cheaper by {_usd(extra)}{share}" + mc,
                        facts, ("cost",))
    if extra > 0:
        return Evidence(
            "cost_favourable", "yes",
            base + f": replicating is cheaper by only {_usd(extra)}{share}, under the "
            f"{COST_MATERIALITY_FRACTION * 100:g} % materiality threshold" + mc,
            facts, ("cost",),
        )
    if p_x is not None and p_r is not None and p_r > 0.5 and -extra > materiality:
        return Evidence("cost_favourable", "unknown",
                        base + f": cross-region saves {_usd(-extra)} on the point estimate, but" + mc[1:],
                        facts, ("cost",))
    return Evidence("cost_favourable", "yes", base + f": cross-region saves {_usd(-extra)}{share}" + mc,
                    facts, ("cost",))


_COLD_CLASSES = {"warmup", "invalidation"}
_STEADY_CLASSES = {"flat", "warmup", "dips", "invalidation", "slowdown"}


def _ev_states(compare: Mapping | None, fits: Iterable[Mapping] | None) -> Evidence:
    all_fits = _fits_of(compare, fits)
    if not all_fits:
        return Evidence("states_covered", summary="no fit results given")
    classes = [str(f.get("classification") or "unclassified") for f in all_fits]
    remote = [f for f in all_fits if f["_role"] == "remote"] or all_fits
    cold = any(str(f.get("classification")) in _COLD_CLASSES for f in remote) or any(
        (_num(f.get("warmup_end_step")) or 0) > 0 for f in remote
    )
    steady = any(c in _STEADY_CLASSES for c in classes)
    invalidation = any(c == "invalidation" for c in classes)
    covered = {"cold_start": cold, "steady_state": steady, "invalidation": invalidation}
    counts: dict[str, int] = {}
    for c in classes:
        counts[c] = counts.get(c, 0) + 1
    facts = {"covered": covered, "classifications": counts, "runs": len(all_fits)}
    have = [k.replace("_", " ") for k, v in covered.items() if v]
    missing = [k.replace("_", " ") for k, v in covered.items() if not v]
    cls = ", ".join(f"{n} {c}" for c, n in sorted(counts.items()))
    src = tuple(sorted({"compare" if compare else "", "fit" if fits else ""} - {""}))
    if not missing:
        return Evidence("states_covered", "yes",
                        f"{len(all_fits)} runs ({cls}) cover cold start, steady state and invalidation", facts, src)
    return Evidence(
        "states_covered", "no",
        f"{len(all_fits)} runs ({cls}) cover {', '.join(have) or 'nothing usable'}; missing: {', '.join(missing)}",
        facts, src,
    )


def _straggler_share(compare: Mapping | None) -> tuple[float | None, str]:
    """(mean share of the remote jobs' time lost to straggler ranks, a sentence naming them), from
    ``compare['jobs']`` (costmodel.jobs); (None, '') when no remote job has stragglers."""
    jobs = [j for j in (compare or {}).get("jobs") or [] if isinstance(j, Mapping) and j.get("role") == "remote"]
    hit = [j for j in jobs if j.get("stragglers")]
    if not hit:
        return None, ""
    fr = [_num(j.get("straggler_lost_fraction")) or 0.0 for j in jobs]
    share = float(sum(fr) / len(fr))
    names = "; ".join(f"job {j.get('job_id')}: rank(s) {', '.join(str(s.get('rank')) for s in j['stragglers'][:4])}"
                      f"{' ...' if len(j['stragglers']) > 4 else ''}" for j in hit[:3])
    return share, (f"straggler ranks cost the remote jobs {_fmt_pct(share)} of their step time ({names}): "
                   "a slowdown from slow nodes is not a link or cache problem")


def _ev_throughput(compare: Mapping | None) -> Evidence:
    ev = _ev_throughput_base(compare)
    share, sentence = _straggler_share(compare)
    if share is None:
        return ev
    facts = dict(ev.facts, remote_straggler_lost_fraction=share)
    ratio = _num(ev.facts.get("ratio"))
    proposed, condition = ev.proposed, ev.condition
    if ev.proposed == "no" and ratio is not None and share >= 0.5 * (1.0 - ratio):
        # most of the gap is the slow node(s): the measurement does not show the cross-region path is slower
        proposed = "unknown"
        condition = "re-run the remote benchmark without the straggler node(s) before judging the link"
    return dataclasses.replace(ev, proposed=proposed, summary=f"{ev.summary}; {sentence}", facts=facts,
                               condition=condition)


def _ev_throughput_base(compare: Mapping | None) -> Evidence:
    if not compare:
        return Evidence("throughput_equivalent", summary="no comparison given")
    ratio = _num(compare.get("ratio"))
    lo = _num(compare.get("ratio_ci_low"))
    hi = _num(compare.get("ratio_ci_high"))
    margin = _num(compare.get("margin"))
    eq = compare.get("equivalent")
    facts = {"ratio": ratio, "ratio_ci_low": lo, "ratio_ci_high": hi, "margin": margin, "equivalent": eq}
    verdict = compare.get("verdict")
    if isinstance(verdict, str):
        facts["compare_verdict"] = verdict
    if ratio is None:
        why = f" (compare verdict: {verdict})" if isinstance(verdict, str) else ""
        return Evidence("throughput_equivalent", summary=f"comparison has no steady-state ratio{why}", facts=facts,
                        sources=("compare",))
    ci = f" (95 % CI {lo:.3f}-{hi:.3f})" if lo is not None and hi is not None else ""
    base = f"remote/co-located steady ratio {ratio:.3f}{ci}"
    result, direction = equivalence.outcome(ratio, lo, hi, margin, eq)
    facts["equivalence"] = result
    said = equivalence.describe(result, direction, margin)
    if result == "equivalent" or (result == "different" and direction == "remote_faster"):
        return Evidence("throughput_equivalent", "yes", f"{base}: {said}", facts, ("compare",))
    if result == "different":
        return Evidence("throughput_equivalent", "no", f"{base}: {said}", facts, ("compare",))
    return Evidence("throughput_equivalent", "unknown", f"{base}: {said}", facts, ("compare",))


def _ev_steady(compare: Mapping | None, fits: Iterable[Mapping] | None) -> Evidence:
    all_fits = _fits_of(compare, fits)
    remote = [f for f in all_fits if f["_role"] == "remote"]
    if not remote:
        return Evidence("steady_after_warmup", summary="no remote fit given")
    problems: list[str] = []
    fine: list[str] = []
    losses: dict[str, float | None] = {}
    for f in remote:
        rid = str(f.get("run_id") or "?")
        c = str(f.get("classification") or "")
        loss = _num(f.get("dip_loss_fraction"))
        if c == "dips":
            losses[rid] = loss
            if loss is None or loss > DIP_MAX_LOSS:
                shown = f"{_fmt_pct(loss)} of throughput" if loss is not None else "an unmeasured share"
                problems.append(f"{rid}: recurring drops after settling cost {shown}")
            else:
                fine.append(f"{rid}: recurring drops cost only {_fmt_pct(loss)} of throughput")
        elif c in ("slowdown", "no_steady_state"):
            problems.append(f"{rid}: {c.replace('_', ' ')}")
        elif c in ("flat", "warmup"):
            fine.append(f"{rid}: {c}")
        # invalidation runs are deliberate tests; too_short runs say nothing
    facts = {"remote_runs": len(remote), "dip_loss_fraction": losses, "max_loss": DIP_MAX_LOSS}
    src = tuple(sorted({"compare" if compare else "", "fit" if fits else ""} - {""}))
    if problems:
        return Evidence("steady_after_warmup", "no", "; ".join(problems + fine), facts, src)
    if fine:
        return Evidence("steady_after_warmup", "yes", "; ".join(fine), facts, src)
    return Evidence("steady_after_warmup", summary="no remote run with a usable steady state", facts=facts,
                    sources=src)


def _ev_repetitions(compare: Mapping | None) -> Evidence:
    if not compare:
        return Evidence("repetitions", summary="no comparison given")
    n_col = len(compare.get("colocated") or [])
    n_rem = len(compare.get("remote") or [])
    facts = {"colocated_runs": n_col, "remote_runs": n_rem, "min_repetitions": MIN_REPETITIONS}
    base = f"{n_col} co-located and {n_rem} remote runs"
    if n_col >= MIN_REPETITIONS and n_rem >= MIN_REPETITIONS:
        return Evidence("repetitions", "yes", base, facts, ("compare",))
    if n_col == 0 and n_rem == 0:
        return Evidence("repetitions", "unknown", "comparison lists no runs", facts, ("compare",))
    return Evidence("repetitions", "no", base + f" (fewer than {MIN_REPETITIONS} each)", facts, ("compare",))


def _ev_link(compare: Mapping | None, cost: Mapping | None) -> Evidence:
    read = _num(_get(compare, "remote_steady_read_bytes_per_s"))
    gbps = _num(_scn(cost, "link", "bandwidth_gbps"))
    h, _h_src = _hit_ratio(compare, cost)
    facts: dict[str, Any] = {"steady_read_bytes_per_s": read, "link_bandwidth_gbps": gbps, "steady_hit_ratio": h}
    if read is None or gbps is None or gbps <= 0:
        missing = []
        if read is None:
            missing.append("measured steady read rate")
        if gbps is None or (gbps is not None and gbps <= 0):
            missing.append("link.bandwidth_gbps in the scenario")
        return Evidence("link_headroom", summary="needs " + " and ".join(missing), facts=facts,
                        sources=tuple(s for s, v in (("compare", read), ("cost", gbps)) if v is not None))
    link_bytes_per_s = gbps * 1e9 / 8
    miss = 1.0 - h if h is not None else 1.0
    cross = read * miss
    util = cross / link_bytes_per_s
    cold_util = read / link_bytes_per_s
    facts.update(link_bytes_per_s=link_bytes_per_s, cross_region_bytes_per_s=cross,
                 steady_link_utilisation=util, cold_link_utilisation=cold_util)
    assumed = "" if h is not None else " (no hit ratio: every read assumed to cross)"
    base = (f"steady cross-region demand {cross / 1e6:,.1f} MB/s = {_fmt_pct(util)} of a {gbps:g} Gbit/s link"
            f"{assumed}; a cold cache asks for {_fmt_pct(cold_util)}")
    proposed = "yes" if util <= LINK_HEADROOM_MAX_UTILISATION else "no"
    return Evidence("link_headroom", proposed, base, facts, tuple(sorted({"compare", "cost"})))


def _ev_warmup(compare: Mapping | None, cost: Mapping | None) -> Evidence:
    warm = _num(_get(compare, "remote_extra_warmup_s"))
    src = "compare"
    if warm is None:
        warm = _num(_scn(cost, "cache", "warmup_lost_s"))
        src = "cost"
    run_h = _num(_scn(cost, "training", "run_hours"))
    facts: dict[str, Any] = {"warmup_s": warm, "warmup_source": src if warm is not None else None, "run_hours": run_h}
    if warm is None or run_h is None or run_h <= 0:
        need = []
        if warm is None:
            need.append("a measured warm-up")
        if run_h is None or run_h <= 0:
            need.append("training.run_hours")
        return Evidence("warmup_share", summary="needs " + " and ".join(need), facts=facts)
    cold = _num(_scn(cost, "cache", "cold_starts_per_month"))
    runs = _num(_scn(cost, "training", "runs_per_month"))
    cold_per_run = cold / runs if cold is not None and runs is not None and runs > 0 else 1.0
    share = warm * cold_per_run / (run_h * 3600.0)
    facts.update(cold_starts_per_run=cold_per_run, warmup_share=share)
    base = (f"warm-up {warm / 60:.1f} min x {cold_per_run:g} cold start(s) per {run_h:g} h run = "
            f"{_fmt_pct(share)} of training time")
    sources = tuple(sorted({src, "cost"}))
    return Evidence("warmup_share", "yes" if share <= WARMUP_MAX_SHARE else "no", base, facts, sources)


def _ev_cache_headroom(cost: Mapping | None) -> Evidence:
    ws = _working_set_gb(cost)
    cap = _num(_scn(cost, "cache", "capacity_gb"))
    facts = {"working_set_gb": ws, "cache_capacity_gb": cap}
    if ws is None or cap is None:
        need = "cache.capacity_gb" if cap is None else "dataset.size_gb"
        return Evidence("cache_headroom", summary=f"needs {need} in the scenario", facts=facts,
                        sources=("cost",) if cost else ())
    if ws <= 0:
        return Evidence("cache_headroom", "yes", "working set is empty", facts, ("cost",))
    ratio = cap / ws
    facts["capacity_to_working_set"] = ratio
    base = f"cache {cap:,.0f} GB holds {ratio:.2f}x the {ws:,.0f} GB working set"
    return Evidence("cache_headroom", "yes" if ratio >= CACHE_MIN_HEADROOM else "no", base, facts, ("cost",))


def _transfer_per_month(cost: Mapping | None) -> float | None:
    """The cross-region option's monthly transfer bill in USD, from whichever shape ``terms`` has."""
    for path in (("options", "cross_region", "terms_per_month_usd", "transfer_usd"),
                 ("derived", "cross_region_transfer_usd_per_month")):
        v = _num(_get(cost, *path))
        if v is not None:
            return v
    term = _get(cost, "options", "cross_region", "terms", "transfer_usd")
    months = _num(_get(cost, "horizon_months"))
    if isinstance(term, Mapping):
        v = _num(term.get("per_month_usd"))
        if v is not None:
            return v
        t = _num(term.get("total_usd"))
        return t / months if t is not None and months else None
    for key in ("terms_per_month", "per_month_terms"):
        v = _num(_get(cost, "options", "cross_region", key, "transfer_usd"))
        if v is not None:
            return v
    t = _num(term)
    if t is not None and months:
        return t / months
    return None


def _ev_budget(cost: Mapping | None) -> Evidence:
    budget = None
    for path in (("transfer_budget_usd_per_month",), ("link", "transfer_budget_usd_per_month"),
                 ("budget", "transfer_usd_per_month")):
        budget = _num(_scn(cost, *path))
        if budget is not None:
            break
    monthly = _transfer_per_month(cost)
    facts = {"transfer_usd_per_month": monthly, "budget_usd_per_month": budget}
    if monthly is None or budget is None:
        need = []
        if monthly is None:
            need.append("a cost result with the transfer term")
        if budget is None:
            need.append("transfer_budget_usd_per_month in the scenario")
        return Evidence("transfer_budget", summary="needs " + " and ".join(need), facts=facts,
                        sources=("cost",) if cost else ())
    base = f"transfer {_usd(monthly)}/month vs budget {_usd(budget)}/month"
    return Evidence("transfer_budget", "yes" if monthly <= budget else "no", base, facts, ("cost",))


def _as_mapping(obj: Any) -> Mapping[str, Any] | None:
    """A JSON-like dict from a dict, a contract model (:mod:`costmodel.contracts.results`, ``to_json_dict()``)
    or a result object with ``to_dict()``; None for anything else."""
    if isinstance(obj, Mapping):
        return obj
    to_dict = getattr(obj, "to_json_dict", None) or getattr(obj, "to_dict", None)
    if callable(to_dict) and not isinstance(obj, type):
        try:
            d = to_dict()
        except Exception:  # noqa: BLE001 - evidence is tolerant: an unreadable object is no evidence
            return None
        return d if isinstance(d, Mapping) else None
    return None


def gather_evidence(
    compare: Mapping[str, Any] | Any | None = None,
    cost: Mapping[str, Any] | Any | None = None,
    fits: Iterable[Mapping[str, Any] | Any] | None = None,
) -> dict[str, Evidence]:
    """Evidence for every item from the ``compare``, ``cost`` and ``fit`` JSON dicts (or result
    objects with ``to_dict()``).

    Tolerant by design: any missing key, null or non-numeric value means that piece of evidence is
    unknown; nothing here raises on partial inputs. Items with no automatic evidence get an
    ``unknown`` proposal and say so. Evidence of a :data:`MEASURED_ITEMS` item that rests on a run
    marked ``predicted: true`` (``costmodel simulate``) says so in its summary and proposes ``unknown``
    instead of ``yes``, with the condition :data:`PREDICTION_CONDITION`.
    """
    compare = _as_mapping(compare)
    cost = _as_mapping(cost)
    fits_list = [m for m in (_as_mapping(f) for f in (fits or [])) if m is not None]
    ev = {
        "reread_fits_cache": _ev_reread(compare, cost),
        "cost_favourable": _ev_cost(cost),
        "states_covered": _ev_states(compare, fits_list),
        "throughput_equivalent": _ev_throughput(compare),
        "steady_after_warmup": _ev_steady(compare, fits_list),
        "repetitions": _ev_repetitions(compare),
        "link_headroom": _ev_link(compare, cost),
        "warmup_share": _ev_warmup(compare, cost),
        "cache_headroom": _ev_cache_headroom(cost),
        "transfer_budget": _ev_budget(cost),
    }
    # The runs each measured item's evidence rests on; any predicted one makes it a prediction.
    all_fits = _fits_of(compare, fits_list)
    cmp_fits = _fits_of(compare, None)
    cmp_remote = [f for f in cmp_fits if f["_role"] == "remote"]
    behind: dict[str, list[dict[str, Any]]] = {
        "states_covered": all_fits,
        "steady_after_warmup": [f for f in all_fits if f["_role"] == "remote"],
        "throughput_equivalent": cmp_fits,
        "repetitions": cmp_fits,
        "reread_fits_cache": cmp_remote if ev["reread_fits_cache"].facts.get("steady_hit_ratio_source") == "compare" else [],
        "link_headroom": cmp_remote if ev["link_headroom"].facts.get("steady_read_bytes_per_s") is not None else [],
        "warmup_share": cmp_fits if ev["warmup_share"].facts.get("warmup_source") == "compare" else [],
    }
    for iid in MEASURED_ITEMS:
        ids = _predicted(behind[iid])
        if ids and ev[iid].sources and (ev[iid].proposed in ("yes", "no") or "(measured)" in ev[iid].summary):
            ev[iid] = _as_prediction(ev[iid], ids)
    out: dict[str, Evidence] = {}
    for item in ITEMS:
        if item.id in ev:
            out[item.id] = ev[item.id]
        else:
            out[item.id] = Evidence(item.id, summary="a question for people: the benchmarks cannot answer it")
    return out
