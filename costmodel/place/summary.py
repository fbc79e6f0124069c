"""Everything ``costmodel place --json`` prints, as one plain dict (the report and the notebook use the same).

Keys: placement, source, data, horizon_months, objective, winner, why, ranking, not_ranked, front,
break_even, monte_carlo, candidates, warnings. Every ranked or listed placement carries ``basis``
(``measured``, ``predicted`` or ``assumed``) for the warm-up and slowdown it was priced with.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..foundation.errors import PlacementError
from .build import CandidateScenario, build
from .model import Offer, Placement, load_placement
from .rank import STRATEGY_WORDS, Row, break_even, build_rows, rank
from .uncertainty import monte_carlo


def _offer(o: Offer | None) -> dict[str, Any] | None:
    if o is None:
        return None
    return {"instance_type": o.instance_type, "count": o.count, "purchase": o.purchase,
            "usd_per_hour": o.usd_per_hour, "cluster_usd_per_hour": o.cluster_usd_per_hour,
            "price_source": o.price_source or None, "wait_hours": o.wait_hours,
            "not_priced_reason": o.not_priced_reason, "price_as_of": o.price_as_of,
            "speed": o.speed.to_dict() if o.speed is not None else None,
            "commitment": o.commitment.model_dump() if o.commitment is not None else None,
            "interruptions_per_run": o.interruptions_per_run,
            "hours_lost_per_interruption": o.hours_lost_per_interruption}


def row_dict(r: Row, mc: dict[str, Any] | None = None) -> dict[str, Any]:
    """One placement as JSON (numbers None where not priced)."""
    num = (lambda x: x) if r.priced else (lambda x: None)
    cs = r.cs
    return {
        "id": r.id, "rank": r.rank, "candidate": cs.candidate.name, "provider": cs.candidate.provider,
        "region": cs.candidate.region, "strategy": r.strategy, "strategy_words": STRATEGY_WORDS[r.strategy],
        "trained_in": r.trained_in, "offer": _offer(cs.offer),
        "basis": cs.basis.kind if r.strategy == "cross_region" else "not_needed",
        "priced": r.priced, "not_priced_reason": r.not_priced_reason,
        "allowed": r.allowed, "forbidden_reason": r.forbidden_reason,
        "feasible": r.feasible if r.priced else None, "infeasible_reason": r.infeasible_reason,
        "cost_usd": num(r.cost_usd), "compute_usd": num(r.compute_usd), "strategy_usd": num(r.strategy_usd),
        "time_to_finish_hours": num(r.time_h), "time": dict(r.time_parts) if r.priced else None,
        "score_usd": num(r.score_usd), "on_front": r.on_front,
        "p_best": (mc or {}).get("p_best", {}).get(r.id),
        "cost_p5_usd": (mc or {}).get("cost_p5_usd", {}).get(r.id),
        "cost_p95_usd": (mc or {}).get("cost_p95_usd", {}).get(r.id),
        "speed": cs.offer.speed.to_dict() if cs.offer.speed is not None else None,
        "billing": dict(r.billing) if r.priced else None,
        "absorbed_usd": num(r.absorbed_usd),
        "ranked_by": ("time: no value of delay stated (objective.usd_per_hour); ranked behind every placement "
                      "that is cheaper or sooner") if r.ranked_by_time else ("score_usd" if r.rank else None),
    }


def crossing(cs: CandidateScenario) -> dict[str, Any] | None:
    """Which cross-region byte figure the cost model priced for ``cs`` (``costmodel cost``'s ``cross_region_bytes``:
    basis dataset, measured or billed, and GB per month), None when not priced. Computed once per scenario."""
    if cs.scenario is None:
        return None
    if hasattr(cs, "_crossing"):
        return cs._crossing
    from ..cost import evaluate

    xb = getattr(evaluate(cs.scenario), "cross_region_bytes", None) or {}
    out = {"basis": xb.get("basis"), "gb_per_month": xb.get("gb_per_month"),
           # what can physically cross, and a measured figure refused for exceeding it
           "physical_bound_gb_per_month": xb.get("physical_bound_gb_per_month"),
           "refused": list(xb.get("refused") or []),
           "refused_gb_per_month": {k: (xb.get("estimates_gb_per_month") or {}).get(k)
                                    for k in xb.get("refused") or []},
           # a measured figure a little above the bound, priced at the bound: what was measured, priced and why
           "adjustment": xb.get("adjustment")} if xb else None
    cs._crossing = out  # type: ignore[attr-defined]
    return out


def _candidate(cs_list: list[CandidateScenario], exported: dict[int, dict[str, str]]) -> list[dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for cs in cs_list:
        if cs.kind == "wait":
            continue
        c = cs.candidate
        d = out.setdefault(c.name, {
            "name": c.name, "provider": c.provider, "region": c.region,
            "basis": {"kind": cs.basis.kind, "detail": cs.basis.detail, "figures": dict(cs.basis.figures)},
            "link": {"rtt_ms": c.rtt_ms, "bandwidth_gbps": c.bandwidth_gbps, "path": c.path,
                     "transfer_usd_per_gb": (cs.scenario.values.get("link.transfer_usd_per_gb")
                                             if cs.scenario is not None else c.transfer_usd_per_gb),
                     "sources": dict(c.link_sources)},
            "storage_usd_per_gb_month": (cs.scenario.values.get("replica.storage_usd_per_gb_month")
                                         if cs.scenario is not None and not cs.storage_not_priced else None),
            "cross_region_bytes": crossing(cs),
            "offers": []})
        if d["cross_region_bytes"] is None:
            d["cross_region_bytes"] = crossing(cs)
        d["offers"].append({**(_offer(cs.offer) or {}), "scenario": exported.get(id(cs), {}).get("scenario"),
                            "cost_command": exported.get(id(cs), {}).get("cost_command")})
    return list(out.values())


def why_lines(pl: Placement, ranked: list[Row], be: list[dict[str, Any]], mc: dict[str, Any]) -> list[str]:
    """Plain sentences: why the winner wins, what it beats, what would change it."""
    if not ranked:
        return ["no placement is priced, allowed and within the deadline"]
    w = ranked[0]
    basis = f" ({w.cs.basis.kind} warm-up and slowdown)" if w.strategy == "cross_region" else ""
    rank_by = "score (cost + time value)" if pl.usd_per_hour else "cost"
    lines = [f"{w.id} has the lowest {rank_by}: {w.cost_usd:,.0f} USD over the horizon "
             f"({w.compute_usd:,.0f} USD of GPU hours + {w.strategy_usd:,.0f} USD of {w.strategy}){basis}, "
             f"finishing the first training in {w.time_h:,.1f} h"
             + (f" (deadline {pl.deadline_hours:g} h)" if pl.deadline_hours else "") + "."]
    if len(ranked) > 1:
        r2 = ranked[1]
        lines.append(f"Runner-up {r2.id}: {r2.score_usd - w.score_usd:,.0f} USD more"
                     f"{' (score)' if pl.usd_per_hour else ''}, finishing in {r2.time_h:,.1f} h.")
    if w.ranked_by_time:
        lines.append(f"{w.id} waits {w.time_parts.get('gpu_wait_hours', 0.0):,.1f} h for GPUs near the data; no value "
                     "of delay is stated (objective.usd_per_hour), so it is ranked by time and wins only because "
                     "no placement is cheaper or sooner.")
    faster = [r for r in ranked if r.time_h < w.time_h - 0.05]  # a gap that rounds to 0.0 h is no gap
    if faster:
        f = min(faster, key=lambda r: r.time_h)
        gap = w.time_h - f.time_h
        lines.append(f"Faster: {f.id} finishes {gap:,.1f} h sooner for {f.cost_usd - w.cost_usd:,.0f} "
                     f"USD more ({(f.cost_usd - w.cost_usd) / gap:,.0f} USD per hour saved).")
    commit = w.billing if w.billing.get("committed_hours") else None
    if commit:
        lines.append(f"{w.id} is billed for {commit['committed_hours']:,.0f} committed cluster-hours; the job uses "
                     f"{commit['used_share']:.1%} of them ({commit['unused_usd']:,.0f} USD of the commitment pays for "
                     "hours this job leaves unused).")
    mine = next((b for b in be if b["candidate"] == w.cs.candidate.name and b["offer"] == w.cs.offer.label()), None)
    if mine and mine.get("above"):
        lines.append(f"It stays the winner until its GPU price rises above {mine['above']['usd_per_hour']:,.2f} USD per "
                     f"instance-hour (now {mine['usd_per_hour']:,.2f}); then {mine['above']['winner']} wins.")
    lines.append(f"Robustness: {mc['sentence']}.")
    return lines


def _price_age_warnings(scen: list[CandidateScenario], today: Any) -> list[str]:
    """An age warning for each catalog GPU price an offer uses that is undated or over a year old (the cost model
    does not see them: the candidate's scenario states the cluster price)."""
    from ..foundation import clock
    from ..prices.catalog import age_warning

    day = today or clock.today()
    out = []
    for cs in scen:
        row = cs.offer.price_row
        w = age_warning(row, day) if row is not None and cs.scenario is not None else None
        if w:
            out.append(f"{cs.label}: training.cluster_usd_per_hour: {w}")
    return out


def _where(pl: Placement) -> str | None:
    return pl.source if pl.source != "<dict>" else None


#: progress lines start once a run has taken this long (a quick run prints none)
PROGRESS_AFTER_S = 2.0


class _Progress:
    """Progress lines through ``say`` once the run has taken more than ``after_s`` seconds (a quick run stays quiet).
    A stage that starts before then and is still running at ``after_s`` (a what-if prediction, a measured compare)
    is said then, by a timer, not only when the next stage starts. :meth:`close` ends it (nothing is said after)."""

    def __init__(self, say: Callable[[str], None] | None, after_s: float | None = None) -> None:
        import threading
        import time

        self.say, self.t0, self.clock = say, time.monotonic(), time.monotonic
        self.after_s = PROGRESS_AFTER_S if after_s is None else after_s
        self.pending: str | None = None
        self.lock = threading.Lock()
        self.timer: threading.Timer | None = None
        if say is not None and self.after_s > 0:
            self.timer = threading.Timer(self.after_s, self._late)
            self.timer.daemon = True
            self.timer.start()

    def _late(self) -> None:
        with self.lock:
            msg, self.pending = self.pending, None
            if msg is not None and self.say is not None:
                self.say(f"costmodel place: {msg} ({self.clock() - self.t0:.1f} s)")

    def __call__(self, msg: str) -> None:
        if self.say is None:
            return
        with self.lock:
            if self.clock() - self.t0 > self.after_s:
                self.pending = None
                self.say(f"costmodel place: {msg} ({self.clock() - self.t0:.1f} s)")
            else:
                self.pending = msg  # said by the timer if this stage is still running at after_s

    def close(self) -> None:
        with self.lock:
            self.pending, self.say = None, None
        if self.timer is not None:
            self.timer.cancel()


def analyze(pl: Placement, scenarios_dir: str | os.PathLike[str] | None = None,
            monte_carlo_n: int | None = None, today: Any = None, predictions: dict | None = None,
            progress: Callable[[str], None] | None = None, force: bool = False) -> dict[str, Any]:
    """The placement result (see the module docstring). ``scenarios_dir``: also write each candidate's
    scenario YAML there (and, for a measured one, its compare JSON) so ``costmodel cost`` can be run on it.
    ``progress``: called with a line per stage once the run has taken 2 s. Raises PlacementError for an
    infeasible constraint or when nothing can be priced."""
    say = _Progress(progress)
    try:
        return _analyze(pl, say, scenarios_dir, monte_carlo_n, today, predictions, force)
    finally:
        say.close()


def _analyze(pl: Placement, say: _Progress, scenarios_dir: str | os.PathLike[str] | None, monte_carlo_n: int | None,
             today: Any, predictions: dict | None, force: bool) -> dict[str, Any]:
    scen = build(pl, today, predictions, progress=say)
    say(f"ranking {len(scen)} candidate offers")
    rows = build_rows(pl, scen)
    priced = [r for r in rows if r.priced]
    if not priced:
        raise PlacementError("no placement can be priced: " + "; ".join(
            sorted({f"{r.cs.label}: {r.not_priced_reason}" for r in rows})), key="candidates", path=_where(pl))
    allowed = [r for r in priced if r.allowed]
    if not allowed:
        raise PlacementError("the governance rules forbid every priced placement", key="constraints.governance",
                             path=_where(pl))
    ranked = rank(rows, pl.usd_per_hour)
    if not ranked:
        fastest = min(allowed, key=lambda r: r.time_h)
        raise PlacementError(f"no placement finishes within {pl.deadline_hours:g} h: the fastest allowed one, "
                             f"{fastest.id}, takes {fastest.time_h:,.1f} h", key="constraints.deadline_hours",
                             path=_where(pl))
    exported = export_scenarios(pl, scen, scenarios_dir, force=force) if scenarios_dir is not None else {}
    say("break-even prices")
    be = break_even(pl, rows, ranked)
    say(f"joint Monte Carlo over {len(ranked)} ranked placements")
    mc = monte_carlo(pl, rows, ranked[0].id, n=monte_carlo_n)
    front = sorted((r for r in rows if r.on_front), key=lambda r: (r.time_h, r.cost_usd))
    warnings: list[str] = []
    if not pl.data_offers:
        warnings.append("no GPU offer near the data (data.offers): waiting is not priced")
    warnings.extend(_price_age_warnings(scen, today))
    for cs in scen:
        if cs.scenario is not None:  # a wait reads nothing across regions: only its price warnings matter
            warnings.extend(f"{cs.label}: {w}" for w in cs.scenario.warnings if "not priced" not in w
                            and (cs.kind != "wait" or w.split(":", 1)[0].endswith("usd_per_hour")))
    bases: dict[str, list[str]] = {}
    ranked_cross = {id(r.cs) for r in rows if r.strategy == "cross_region" and r.rank}
    for cs in scen:
        x = crossing(cs) if id(cs) in ranked_cross else None
        if x and x["basis"]:
            bases.setdefault(x["basis"], []).append(f"{cs.candidate.name} ({x['gb_per_month']:,.0f} GB/month)")
    if len(bases) > 1:
        warnings.append("the ranked cross_region placements are priced on different cross-region byte figures ("
                        + "; ".join(f"{b}: {', '.join(sorted(set(v)))}" for b, v in sorted(bases.items()))
                        + "): a measured read rate counts re-reads and read amplification that the dataset model "
                          "and the simulator do not; set link.bytes_basis in the base scenario to compare like for "
                          "like")
    basis_counts = {k: sum(1 for c in pl.candidates if any(cs.candidate is c and cs.basis.kind == k for cs in scen))
                    for k in ("measured", "predicted", "assumed")}
    not_ranked = [r for r in rows if r.rank is None]
    return {
        "placement": pl.name,
        "source": pl.source,
        "data": {"provider": pl.data_provider, "region": pl.data_region, "dataset": pl.dataset,
                 "offers": [{**(_offer(cs.offer) or {}), "scenario": exported.get(id(cs), {}).get("scenario"),
                             "cost_command": exported.get(id(cs), {}).get("cost_command")}
                            for cs in scen if cs.kind == "wait"], "scenario": pl.base_source},
        "horizon_months": next((cs.scenario.horizon_months for cs in scen if cs.scenario is not None), None),
        "objective": {"rank_by": "score_usd = cost_usd + usd_per_hour x time_to_finish_hours" if pl.usd_per_hour
                      else "cost_usd", "usd_per_hour": pl.usd_per_hour, "deadline_hours": pl.deadline_hours,
                      "waits": "valued at usd_per_hour per hour of delay" if pl.usd_per_hour else
                      "ranked by time (no value of delay stated): behind every placement cheaper or sooner"},
        "speed_reference": {"gpu": pl.reference.gpu, "gpus": pl.reference.gpus, "precision": pl.reference.precision,
                            "samples_per_s": pl.reference.samples_per_s, "detail": pl.reference.detail}
        if pl.reference is not None else None,
        "counts": {"candidates": len(pl.candidates), "offers": len(scen), "placements": len(rows),
                   "ranked": len(ranked), "not_priced": sum(1 for r in rows if not r.priced),
                   "forbidden": sum(1 for r in rows if r.priced and not r.allowed),
                   "infeasible": sum(1 for r in rows if r.priced and r.allowed and not r.feasible),
                   "basis": basis_counts},
        "winner": row_dict(ranked[0], mc),
        "why": why_lines(pl, ranked, be, mc),
        "ranking": [row_dict(r, mc) for r in ranked],
        "not_ranked": [row_dict(r, mc) for r in not_ranked],
        "front": [r.id for r in front],
        "break_even": be,
        "monte_carlo": {k: v for k, v in mc.items() if k not in ("p_best", "cost_p5_usd", "cost_p95_usd")},
        "candidates": _candidate(scen, exported),
        "warnings": sorted(set(warnings)),
    }


def place(path: str | os.PathLike[str], scenarios_dir: str | os.PathLike[str] | None = None,
          monte_carlo_n: int | None = None, today: Any = None,
          progress: Callable[[str], None] | None = None, force: bool = False) -> dict[str, Any]:
    """:func:`analyze` of the placement file ``path``."""
    return analyze(load_placement(path), scenarios_dir, monte_carlo_n, today, progress=progress, force=force)


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:80] or "candidate"


def export_scenarios(pl: Placement, scen: list[CandidateScenario], folder: str | os.PathLike[str], *,
                     force: bool = False) -> dict[int, dict[str, str]]:
    """Write each priced candidate x offer's scenario (``NN-name.yaml``) and, for a measured candidate, its compare
    result (``NN-name.compare.json``) into ``folder`` (created). A file of one of those names is never replaced
    without ``force`` (OutputError naming it, before anything is written). Returns id(cs) -> {scenario, cost_command}."""
    import yaml

    from ..foundation.safeio import refuse_existing
    from ..foundation.util import dumps, write_text_atomic

    d = Path(folder)
    stems = {i: f"{i:02d}-{_slug(cs.candidate.name + '-' + cs.offer.instance_type + '-' + cs.offer.purchase)}"
             for i, cs in enumerate(scen, start=1) if cs.doc is not None}
    for i, stem in stems.items():  # the one writer rule, for every file before the first is written
        refuse_existing(d / f"{stem}.yaml", "--scenarios", force)
        if scen[i - 1].basis.compare is not None:
            refuse_existing(d / f"{stem}.compare.json", "--scenarios", force)
    d.mkdir(parents=True, exist_ok=True)
    out: dict[int, dict[str, str]] = {}
    for i, cs in enumerate(scen, start=1):
        if cs.doc is None:
            continue
        stem = stems[i]
        doc = dict(cs.doc)
        doc.get("prices", {}).pop("dir", None)
        if isinstance(pl.base.get("prices"), dict) and pl.base["prices"].get("dir"):
            doc.setdefault("prices", {})["dir"] = str((Path(pl.base_source).parent / pl.base["prices"]["dir"]).resolve())
        text = ("# written by costmodel place: the scenario of one candidate x offer (docs/place.md)\n"
                + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
        sp = d / f"{stem}.yaml"
        write_text_atomic(sp, text)
        cmd = f"costmodel cost {sp}"
        cmp = cs.basis.compare
        if cmp is not None:
            cp = d / f"{stem}.compare.json"
            data = cmp.to_json_dict() if hasattr(cmp, "to_json_dict") else cmp
            write_text_atomic(cp, dumps(data) + "\n")
            cmd += f" --from-compare {cp}"
        out[id(cs)] = {"scenario": str(sp), "cost_command": cmd + " --json"}
    return out
