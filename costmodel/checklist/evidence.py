"""Automatic evidence: what the ``compare``, ``cost`` and ``fit`` results (their models,
:mod:`costmodel.contracts.results`) say about each checklist item. Evidence *proposes* an answer where
the data can speak; a person's answer overrides the proposal (see :mod:`costmodel.checklist.verdict`).
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..contracts.read import read_lenient
from ..contracts.results import (
    CompareRecord,
    CostRecord,
    DerivedFigures,
    RunFit,
    ScenarioValues,
)
from ..cost.crossing import bytes_phrase, steady_crossing_bytes_per_s
from ..foundation import equivalence
from ..foundation.units_fmt import cold_vs_warm
from ..foundation.util import finite_number as _num  # None for missing, null, NaN, text and a yes/no bool
from .evidence_record import MEASURED_ITEMS as MEASURED_ITEMS
from .evidence_record import PREDICTION_CONDITION as PREDICTION_CONDITION
from .evidence_record import Evidence as Evidence
from .evidence_record import as_prediction, predicted_run_ids
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
from .shapes import todays_cost_shape


@dataclass(frozen=True)
class _Inputs:
    """What the evidence reads, each result read once into its model (see :func:`gather_evidence`)."""

    compare: CompareRecord | None
    cost: CostRecord | None
    fits: list[RunFit]  # the fits given besides the comparison's

    @property
    def scenario(self) -> ScenarioValues:
        """The resolved scenario of the cost result (``inputs.values``; empty without one)."""
        return self.cost.inputs.values if self.cost else ScenarioValues()

    @property
    def derived(self) -> DerivedFigures:
        """The cost result's derived figures (``derived``; empty without one)."""
        return self.cost.derived if self.cost else DerivedFigures()

    def runs(self, with_fits: bool = True) -> list[tuple[str, RunFit]]:
        """(role, fit) of every run: the comparison's sides, then the fits given (their own ``role``); a run
        given twice (in the comparison and as a fit) counts once."""
        sides = (("colocated", self.compare.colocated), ("remote", self.compare.remote)) if self.compare else ()
        tagged = [(side, f) for side, fits in sides for f in fits]
        tagged += [(f.role, f) for f in (self.fits if with_fits else [])]
        out: list[tuple[str, RunFit]] = []
        seen: set[str] = set()
        for role, f in tagged:
            if f.run_id:
                if f.run_id in seen:
                    continue
                seen.add(f.run_id)
            out.append((role, f))
        return out


def _fmt_pct(x: float) -> str:
    """A share as a percentage: one decimal, two where it would otherwise round to 0.0 or 0.1."""
    if 0 < abs(x) < 0.0015:
        return f"{x * 100:.2f} %"
    return f"{x * 100:.1f} %"


def _usd(x: float) -> str:
    return f"${x:,.0f}"


def _hit_ratio(d: _Inputs) -> tuple[float | None, str | None]:
    h = _num(d.compare.remote_steady_hit_ratio) if d.compare else None
    if h is not None:
        return h, "compare"
    h = _num(d.scenario.cache.steady_hit_ratio)
    if h is not None:
        return h, "cost"
    return None, None


def _working_set_gb(d: _Inputs) -> float | None:
    derived = _num(d.derived.working_set_gb)
    if derived is not None:
        return derived
    size = _num(d.scenario.dataset.size_gb)
    if size is None:
        return None
    frac = _num(d.scenario.dataset.working_set_fraction)
    return size * (frac if frac is not None else 1.0)


def _ev_reread(d: _Inputs) -> Evidence:
    facts: dict[str, Any] = {}
    sources: set[str] = set()
    reasons_no: list[str] = []
    parts: list[str] = []
    training, cache = d.scenario.training, d.scenario.cache
    epochs = _num(training.epochs_per_run)
    runs = _num(training.runs_per_month)
    reads_per_month = None
    if epochs is not None and runs is not None:
        reads_per_month = epochs * runs
        facts.update(epochs_per_run=epochs, runs_per_month=runs, reads_per_month=reads_per_month)
        sources.add("cost")
        parts.append(f"{epochs:g} epochs x {runs:g} runs/month = {reads_per_month:g} reads/month")
        cold = _num(cache.cold_starts_per_month)
        warm = _num(d.derived.warm_epochs_per_month)
        if warm is None and cold is not None:
            warm = max(reads_per_month - cold, 0.0)
        if warm is not None:
            facts["warm_reads_per_month"] = warm
        if reads_per_month <= 1:
            reasons_no.append("the data is read at most once a month")
        elif warm is not None and warm <= 0:
            reasons_no.append(f"every read starts with a cold cache ({cold:g} cold starts/month)" if cold is not None
                              else "no read finds a warm cache")
    h, h_src = _hit_ratio(d)
    measured = False
    if h is not None:
        facts["steady_hit_ratio"] = h
        facts["steady_hit_ratio_source"] = h_src
        sources.add(h_src or "")
        measured = h_src == "compare"  # the comparison measured it; else the scenario states it
        parts.append(f"steady hit ratio {_fmt_pct(h)} ({'measured' if measured else 'scenario'})")
        if h < MIN_HIT_RATIO:
            reasons_no.append(f"hit ratio {_fmt_pct(h)} is below {_fmt_pct(MIN_HIT_RATIO)}")
    ws = _working_set_gb(d)
    cap = _num(cache.capacity_gb)
    if ws is not None:
        facts["working_set_gb"] = ws
    if cap is not None:
        facts["cache_capacity_gb"] = cap
    if ws is not None and cap is not None:
        parts.append(f"working set {ws:,.0f} GB vs cache {cap:,.0f} GB")
        if cap < ws:
            reasons_no.append("the working set does not fit the cache")
    if reasons_no:
        return Evidence("reread_fits_cache", "no", "; ".join(parts) + ": " + "; ".join(reasons_no), facts,
                        tuple(sorted(sources)), measured=measured)
    if reads_per_month is not None and h is not None:
        # reads > 1 and the hit ratio is high (else a reason above); the fit is checked when capacity is stated
        unchecked = "" if cap is not None and ws is not None else " (cache capacity not stated: fit not checked)"
        return Evidence("reread_fits_cache", "yes", "; ".join(parts) + unchecked, facts, tuple(sorted(sources)),
                        measured=measured)
    summary = "; ".join(parts) if parts else "no scenario or measured hit ratio given"
    return Evidence("reread_fits_cache", "unknown", summary + " (not enough to propose an answer)", facts,
                    tuple(sorted(sources)), measured=measured)


def _cluster_spend_usd(d: _Inputs) -> float | None:
    """GPU cluster spend over the horizon: training hours per month x cluster price x months."""
    training = d.scenario.training
    months = _num(d.cost.horizon_months) if d.cost else None
    hours = _num(d.derived.training_hours_per_month)
    if hours is None:
        runs = _num(training.runs_per_month)
        run_h = _num(training.run_hours)
        hours = runs * run_h if runs is not None and run_h is not None else None
    price = _num(training.cluster_usd_per_hour)
    if months is None or hours is None or price is None:
        return None
    return months * hours * price


def _ev_cost(d: _Inputs) -> Evidence:
    cost = d.cost
    if cost is None:
        return Evidence("cost_favourable", summary="no cost result given")
    opts = cost.options
    x = _num(opts.cross_region.total_usd)
    r = _num(opts.replicate.total_usd)
    w = _num(opts.wait.total_usd)
    months = _num(cost.horizon_months)
    facts: dict[str, Any] = {"cross_region_total_usd": x, "replicate_total_usd": r, "wait_total_usd": w,
                             "horizon_months": months, "cheapest": cost.cheapest}
    if x is None or r is None:
        return Evidence("cost_favourable", summary="cost result lacks option totals", facts=facts, sources=("cost",))
    unpriced = [(o, opt) for o, opt in (("cross_region", opts.cross_region), ("replicate", opts.replicate))
                if opt.priced is False]
    if unpriced:
        why = "; ".join(f"{o}: {opt.not_priced_reason}" for o, opt in unpriced)
        return Evidence("cost_favourable", "unknown", f"not priced ({why}); the totals leave terms out",
                        facts, ("cost",))
    horizon = f" over {months:g} months" if months is not None else ""
    extra = x - r  # what cross-region costs more than a replica (negative: it saves)
    spend = _cluster_spend_usd(d)
    materiality = COST_MATERIALITY_FRACTION * spend if spend is not None else 0.0
    facts.update(cross_region_extra_usd=extra, cluster_spend_usd=spend, materiality_usd=materiality)
    facts.update({k: getattr(cost, k) for k in ("margin_usd", "robust", "robust_reason", "headline_basis")
                  if k in cost.model_fields_set})
    p = cost.monte_carlo.p_cheapest if cost.monte_carlo else {}
    p_x = _num(p.get("cross_region"))
    p_r = _num(p.get("replicate"))
    if p_x is not None:
        facts["p_cross_region_cheapest"] = p_x
    if p_r is not None:
        facts["p_replicate_cheapest"] = p_r
    base = f"cross-region {_usd(x)} vs replicate {_usd(r)}{horizon}"
    share = f" ({_fmt_pct(abs(extra) / spend)} of the {_usd(spend)} cluster spend)" if spend else ""
    rec = cost.recommendation or {}
    sure = cost.robust is True and rec.get("confidence", "high") == "high"

    def share_of(x: float) -> str:  # never "100 %" the evidence does not carry (not robust, a warning touches it)
        return "over 99.9 %" if x >= 0.9995 and not sure else _fmt_pct(x)
    mc = (f"; Monte Carlo: cross-region cheapest in {share_of(p_x)} of draws, replicate in {share_of(p_r)}"
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


def _sources(d: _Inputs) -> tuple[str, ...]:
    """Which inputs the run-based evidence rests on: the comparison and/or the fits given."""
    return tuple(sorted({"compare" if d.compare else "", "fit" if d.fits else ""} - {""}))


def _ev_states(d: _Inputs) -> Evidence:
    all_fits = d.runs()
    if not all_fits:
        return Evidence("states_covered", summary="no fit results given")
    classes = [str(f.classification or "unclassified") for _, f in all_fits]
    remote = [f for role, f in all_fits if role == "remote"] or [f for _, f in all_fits]
    cold = any(str(f.classification) in _COLD_CLASSES for f in remote) or any(
        (_num(f.warmup_end_step) or 0) > 0 for f in remote
    )
    steady = any(c in _STEADY_CLASSES for c in classes)
    invalidation = any(c == "invalidation" for c in classes)
    covered = {"cold_start": cold, "steady_state": steady, "invalidation": invalidation}
    counts = dict(Counter(classes))  # in the order the classes first appear
    facts = {"covered": covered, "classifications": counts, "runs": len(all_fits)}
    have = [k.replace("_", " ") for k, v in covered.items() if v]
    missing = [k.replace("_", " ") for k, v in covered.items() if not v]
    cls = ", ".join(f"{n} {c}" for c, n in sorted(counts.items()))
    if not missing:
        return Evidence("states_covered", "yes",
                        f"{len(all_fits)} runs ({cls}) cover cold start, steady state and invalidation", facts,
                        _sources(d))
    return Evidence(
        "states_covered", "no",
        f"{len(all_fits)} runs ({cls}) cover {', '.join(have) or 'nothing usable'}; missing: {', '.join(missing)}",
        facts, _sources(d),
    )


def _straggler_share(compare: CompareRecord | None) -> tuple[float | None, str]:
    """(mean share of the remote jobs' time lost to straggler ranks, a sentence naming them), from
    ``compare.jobs`` (costmodel.jobs); (None, '') when no remote job has stragglers."""
    jobs = [j for j in (compare.jobs if compare else []) if j.role == "remote"]
    hit = [j for j in jobs if j.stragglers]
    if not hit:
        return None, ""
    fr = [_num(j.straggler_lost_fraction) or 0.0 for j in jobs]
    share = float(sum(fr) / len(fr))
    names = "; ".join(f"job {j.job_id}: rank(s) {', '.join(str(s.rank) for s in j.stragglers[:4])}"
                      f"{' ...' if len(j.stragglers) > 4 else ''}" for j in hit[:3])
    return share, (f"straggler ranks cost the remote jobs {_fmt_pct(share)} of their step time ({names}): "
                   "a slowdown from slow nodes is not a link or cache problem")


def _ev_throughput(compare: CompareRecord | None) -> Evidence:
    ev = _ev_throughput_base(compare)
    share, sentence = _straggler_share(compare)
    if share is None:
        return ev
    facts = dict(ev.facts, remote_straggler_lost_fraction=share)
    ratio = _num(ev.facts["ratio"])
    proposed, condition = ev.proposed, ev.condition
    if ev.proposed == "no" and ratio is not None and share >= 0.5 * (1.0 - ratio):
        # most of the gap is the slow node(s): the measurement does not show the cross-region path is slower
        proposed = "unknown"
        condition = "re-run the remote benchmark without the straggler node(s) before judging the link"
    return dataclasses.replace(ev, proposed=proposed, summary=f"{ev.summary}; {sentence}", facts=facts,
                               condition=condition)


def _ev_throughput_base(compare: CompareRecord | None) -> Evidence:
    if compare is None:
        return Evidence("throughput_equivalent", summary="no comparison given")
    ratio = _num(compare.ratio)
    lo = _num(compare.ratio_ci_low)
    hi = _num(compare.ratio_ci_high)
    margin = _num(compare.margin)
    eq = compare.given("equivalent")
    facts = {"ratio": ratio, "ratio_ci_low": lo, "ratio_ci_high": hi, "margin": margin, "equivalent": eq}
    verdict = compare.given("verdict")
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


def _cold_warm(f: Any) -> dict[str, Any]:
    """Cold-phase vs steady telemetry of one fit (GPU utilisation, data wait, hit ratio, read bytes) and
    which evidence decided its warm-up end (``fit``'s ``telemetry`` and ``warmup_end_decided_by``)."""
    tel = getattr(f, "telemetry", None) or {}
    pick = {ph: {k: v for k, v in (tel.get(ph) or {}).items() if _num(v) is not None} for ph in ("cold", "steady")}
    return {"warmup_end_step": f.warmup_end_step, "decided_by": getattr(f, "warmup_end_decided_by", None),
            "throughput_end_step": getattr(f, "warmup_end_step_throughput", None), **pick}


def _cold_warm_line(rid: str, v: dict[str, Any]) -> str:
    cw = cold_vs_warm(v["cold"], v["steady"])
    if not cw:
        return ""
    by = f", warm-up end decided by {v['decided_by']}" if v.get("decided_by") else ""
    return f"{rid}: cold vs warm: {cw}{by}"


def _ev_steady(d: _Inputs) -> Evidence:
    remote = [f for role, f in d.runs() if role == "remote"]
    if not remote:
        return Evidence("steady_after_warmup", summary="no remote fit given")
    problems: list[str] = []
    fine: list[str] = []
    losses: dict[str, float | None] = {}
    coloc_periods = [p for role, f in d.runs() if role == "colocated" and (p := _num(f.period_steps)) is not None]
    for f in remote:
        rid = str(f.run_id or "?")
        c = str(f.classification or "")
        loss = _num(f.dip_loss_fraction)
        per = _num(f.period_steps)
        both = per is not None and any(abs(p - per) <= 0.02 * per for p in coloc_periods)
        if c == "dips" and both:
            losses[rid] = loss
            fine.append(f"{rid}: stalls every {per:g} steps on both sides (the job's own, e.g. checkpoints), "
                        "not the remote data path's")
        elif c == "dips":
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
    cold_warm = {str(f.run_id or "?"): _cold_warm(f) for f in remote}
    if any(v["cold"] or v["steady"] for v in cold_warm.values()):
        facts["cold_vs_warm"] = cold_warm
    tel = [x for x in (_cold_warm_line(k, v) for k, v in cold_warm.items()) if x]
    src = _sources(d)
    if problems:
        return Evidence("steady_after_warmup", "no", "; ".join(problems + fine + tel), facts, src)
    if fine:
        return Evidence("steady_after_warmup", "yes", "; ".join(fine + tel), facts, src)
    return Evidence("steady_after_warmup", summary="no remote run with a usable steady state", facts=facts,
                    sources=src)


def _ev_repetitions(compare: CompareRecord | None) -> Evidence:
    if compare is None:
        return Evidence("repetitions", summary="no comparison given")
    n_col = len(compare.colocated)
    n_rem = len(compare.remote)
    facts = {"colocated_runs": n_col, "remote_runs": n_rem, "min_repetitions": MIN_REPETITIONS}
    base = f"{n_col} co-located and {n_rem} remote runs"
    if n_col >= MIN_REPETITIONS and n_rem >= MIN_REPETITIONS:
        return Evidence("repetitions", "yes", base, facts, ("compare",))
    if n_col == 0 and n_rem == 0:
        return Evidence("repetitions", "unknown", "comparison lists no runs", facts, ("compare",))
    return Evidence("repetitions", "no", base + f" (fewer than {MIN_REPETITIONS} each)", facts, ("compare",))


def _measured_read_rate(d: _Inputs) -> float | None:
    """The remote side's measured steady read rate (bytes/s), from the comparison."""
    return _num(d.compare.remote_steady_read_bytes_per_s) if d.compare else None


def _ev_link(d: _Inputs) -> Evidence:
    read = _measured_read_rate(d)
    gbps = _num(d.scenario.link.bandwidth_gbps)
    h, _h_src = _hit_ratio(d)
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
    cross, _how = steady_crossing_bytes_per_s(read, h)  # the cost model's byte model (costmodel.cost.crossing)
    assert cross is not None  # read is given
    util = cross / link_bytes_per_s
    cold_util = read / link_bytes_per_s
    facts.update(link_bytes_per_s=link_bytes_per_s, cross_region_bytes_per_s=cross,
                 steady_link_utilisation=util, cold_link_utilisation=cold_util)
    assumed = "" if h is not None else " (no hit ratio: every read assumed to cross)"
    base = (f"steady cross-region demand {cross / 1e6:,.1f} MB/s = {_fmt_pct(util)} of a {gbps:g} Gbit/s link"
            f"{assumed}; a cold cache asks for {_fmt_pct(cold_util)}")
    record = d.cost.cross_region_bytes if d.cost is not None else None
    if record:  # the same bytes the cost model prices, in the same words
        base += "; " + bytes_phrase(record)
        if "measured" in (record.get("refused") or []):  # the read counter is not what crosses
            base += (" (the measured read rate x miss ratio is refused as cross-region bytes, more than can "
                     "physically cross: the demand above is an upper bound)")
        facts.update(cross_region_gb_per_month=record.get("gb_per_month"),
                     cross_region_gb_per_run=record.get("gb_per_run"), cross_region_bytes_basis=record.get("basis"))
    proposed = "yes" if util <= LINK_HEADROOM_MAX_UTILISATION else "no"
    return Evidence("link_headroom", proposed, base, facts, tuple(sorted({"compare", "cost"})))


def _measured_warmup_s(d: _Inputs) -> float | None:
    """The remote side's measured extra warm-up (s), from the comparison."""
    return _num(d.compare.remote_extra_warmup_s) if d.compare else None


def _ev_warmup(d: _Inputs) -> Evidence:
    training, cache = d.scenario.training, d.scenario.cache
    warm = _measured_warmup_s(d)
    src = "compare"
    if warm is None:
        warm = _num(cache.warmup_lost_s)
        src = "cost"
    run_h = _num(training.run_hours)
    facts: dict[str, Any] = {"warmup_s": warm, "warmup_source": src if warm is not None else None, "run_hours": run_h}
    if warm is None or run_h is None or run_h <= 0:
        need = []
        if warm is None:
            need.append("a measured warm-up")
        if run_h is None or run_h <= 0:
            need.append("training.run_hours")
        return Evidence("warmup_share", summary="needs " + " and ".join(need), facts=facts)
    cold = _num(cache.cold_starts_per_month)
    runs = _num(training.runs_per_month)
    cold_per_run = cold / runs if cold is not None and runs is not None and runs > 0 else 1.0
    share = warm * cold_per_run / (run_h * 3600.0)
    facts.update(cold_starts_per_run=cold_per_run, warmup_share=share)
    base = (f"warm-up {warm / 60:.1f} min x {cold_per_run:g} cold start(s) per {run_h:g} h run = "
            f"{_fmt_pct(share)} of training time")
    sources = tuple(sorted({src, "cost"}))
    return Evidence("warmup_share", "yes" if share <= WARMUP_MAX_SHARE else "no", base, facts, sources)


def _ev_cache_headroom(d: _Inputs) -> Evidence:
    ws = _working_set_gb(d)
    cap = _num(d.scenario.cache.capacity_gb)
    facts = {"working_set_gb": ws, "cache_capacity_gb": cap}
    if ws is None or cap is None:
        need = "cache.capacity_gb" if cap is None else "dataset.size_gb"
        return Evidence("cache_headroom", summary=f"needs {need} in the scenario", facts=facts,
                        sources=("cost",) if d.cost else ())
    if ws <= 0:
        return Evidence("cache_headroom", "yes", "working set is empty", facts, ("cost",))
    ratio = cap / ws
    facts["capacity_to_working_set"] = ratio
    base = f"cache {cap:,.0f} GB holds {ratio:.2f}x the {ws:,.0f} GB working set"
    return Evidence("cache_headroom", "yes" if ratio >= CACHE_MIN_HEADROOM else "no", base, facts, ("cost",))


def _transfer_per_month(cost: CostRecord | None) -> float | None:
    """The cross-region option's monthly transfer bill in USD: its monthly term, else ``derived``, else its
    horizon term over the months."""
    if cost is None:
        return None
    option = cost.options.cross_region
    for v in (option.terms_per_month_usd.get("transfer_usd"), cost.derived.cross_region_transfer_usd_per_month):
        if _num(v) is not None:
            return _num(v)
    t, months = _num(option.terms.given("transfer_usd")), _num(cost.horizon_months)
    return t / months if t is not None and months else None


def _ev_budget(d: _Inputs) -> Evidence:
    budget = _num(d.scenario.transfer_budget_usd_per_month)
    monthly = _transfer_per_month(d.cost)
    facts = {"transfer_usd_per_month": monthly, "budget_usd_per_month": budget}
    if monthly is None or budget is None:
        need = []
        if monthly is None:
            need.append("a cost result with the transfer term")
        if budget is None:
            need.append("transfer_budget_usd_per_month in the scenario")
        return Evidence("transfer_budget", summary="needs " + " and ".join(need), facts=facts,
                        sources=("cost",) if d.cost else ())
    base = f"transfer {_usd(monthly)}/month vs budget {_usd(budget)}/month"
    return Evidence("transfer_budget", "yes" if monthly <= budget else "no", base, facts, ("cost",))


# ------------------------------------------------------------------------------------------ entry
def _cost_in(cost: Any) -> CostRecord | None:
    """The cost result as its model, read once: a model as it is; a dict (as read from a file) moved to
    today's shape (:func:`.shapes.todays_cost_shape`) and validated leniently (:func:`read_lenient`)."""
    return read_lenient(CostRecord, cost, prepare=todays_cost_shape)


def gather_evidence(
    compare: CompareRecord | Mapping[str, Any] | Any | None = None,
    cost: CostRecord | Mapping[str, Any] | Any | None = None,
    fits: Iterable[RunFit | Mapping[str, Any] | Any] | None = None,
) -> dict[str, Evidence]:
    """Evidence for every item from the ``compare``, ``cost`` and ``fit`` results: their models
    (:mod:`costmodel.contracts.results`), or the JSON dicts the verbs print (or objects with ``to_dict()``),
    each read once into its model here.

    Tolerant by design: any missing key, null or non-numeric value means that piece of evidence is
    unknown (:func:`~costmodel.contracts.read.read_lenient`); nothing here raises on partial inputs.
    Items with no automatic evidence get an ``unknown`` proposal and say so. Evidence of a
    :data:`MEASURED_ITEMS` item that rests on a run marked ``predicted: true`` (``costmodel simulate``)
    says so in its summary and proposes ``unknown`` instead of ``yes``, with the condition
    :data:`PREDICTION_CONDITION`.
    """
    fit_models = [read_lenient(RunFit, f) for f in (fits or [])]
    d = _Inputs(read_lenient(CompareRecord, compare or None), _cost_in(cost or None),
                [f for f in fit_models if f is not None])
    ev = {
        "reread_fits_cache": _ev_reread(d),
        "cost_favourable": _ev_cost(d),
        "states_covered": _ev_states(d),
        "throughput_equivalent": _ev_throughput(d.compare),
        "steady_after_warmup": _ev_steady(d),
        "repetitions": _ev_repetitions(d.compare),
        "link_headroom": _ev_link(d),
        "warmup_share": _ev_warmup(d),
        "cache_headroom": _ev_cache_headroom(d),
        "transfer_budget": _ev_budget(d),
    }
    # The runs each measured item's evidence rests on; any predicted one makes it a prediction.
    all_fits = [f for _, f in d.runs()]
    cmp_fits = [f for _, f in d.runs(with_fits=False)]
    cmp_remote = [f for role, f in d.runs(with_fits=False) if role == "remote"]
    behind: dict[str, list[RunFit]] = {
        "states_covered": all_fits,
        "steady_after_warmup": [f for role, f in d.runs() if role == "remote"],
        "throughput_equivalent": cmp_fits,
        "repetitions": cmp_fits,
        "reread_fits_cache": cmp_remote if _hit_ratio(d)[1] == "compare" else [],
        "link_headroom": cmp_remote if _measured_read_rate(d) is not None else [],
        "warmup_share": cmp_fits if _measured_warmup_s(d) is not None else [],
    }
    for iid in MEASURED_ITEMS:
        ids = predicted_run_ids(behind[iid])
        if ids and ev[iid].sources and (ev[iid].proposed in ("yes", "no") or ev[iid].measured):
            ev[iid] = as_prediction(ev[iid], ids)
    out: dict[str, Evidence] = {}
    for item in ITEMS:
        if item.id in ev:
            out[item.id] = ev[item.id]
        else:
            out[item.id] = Evidence(item.id, summary="a question for people: the benchmarks cannot answer it")
    return out
