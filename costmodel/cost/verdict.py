"""The verdict in one record: which option to take, by how much, how likely, and what would flip it.

``verdict`` (a key of ``costmodel cost --json`` and of the report's ``decision.json`` cost section):

- ``option`` / ``runner_up``: the cheapest and second-cheapest priced options; ``margin_usd`` between them
  and ``margin_fraction`` (margin / runner-up total);
- ``p_cheapest`` (the winner's share of the Monte Carlo draws), ``p_runner_up`` and ``p_beats_runner_up``
  (the share of draws where the winner costs less than the runner-up: the robustness of the pair), with
  ``probability_basis`` (draws, seed, which inputs were sampled and how) or null when no draw ran;
- ``flip``: the single input whose smallest relative change makes the runner-up cheaper (from the
  break-evens: ``input``, ``current``, ``value``, ``change_fraction``), or null when none can;
- ``sentence``: all of it in words, the line the report shows first.

``not_modelled`` weighs the margin against the terms the model leaves out, each with an order-of-magnitude
upper bound for the scenario (``bound_usd`` over the horizon) and how it was bounded; ``not_modelled_sentence``
says whether the margin exceeds their sum.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

#: order-of-magnitude assumptions behind the bounds of the terms not modelled (docs/cost.md)
CHECKPOINT_GB_PER_RUN = 1000.0  # the checkpoints per run assumed before the model-size bound; kept for importers
#: when no checkpoint size is stated, the bound is a plausible large model's: 8 B parameters x 16 bytes (weights,
#: gradients' master copy and Adam's two moments in mixed precision) = 128 GB, checkpointed hourly over the run
CHECKPOINT_BOUND_PARAMETERS = 8e9
CHECKPOINT_BOUND_BYTES_PER_PARAMETER = 16.0
CHECKPOINT_BOUND_INTERVAL_HOURS = 1.0
TGW_ATTACHMENT_USD_PER_HOUR = 0.05  # per attachment-hour (processing.csv notes); two attachments
INTER_AZ_USD_PER_GB = 0.01  # each direction
FSX_LUSTRE_USD_PER_GB_MONTH = 0.145  # FSx for Lustre persistent SSD 125 MB/s/TiB (costmodel.md section 2.2)
HOURS_PER_MONTH = 730.5


def smallest_flip(break_even: Mapping[str, Mapping[str, Any]], wait_be: Mapping[str, Any] | None,
                  pair: tuple[str, str]) -> dict[str, Any] | None:
    """The break-even nearest to its current value in relative terms, for the winner/runner-up ``pair``
    (cross_region vs replicate: every input's break-even; with wait: the wait per run)."""
    best: dict[str, Any] | None = None
    if set(pair) == {"cross_region", "replicate"}:
        for key, b in break_even.items():
            v, x = b.get("value"), b.get("current")
            if b.get("never") or v is None or x is None or x == 0 or not math.isfinite(v):
                continue
            frac = (v - x) / abs(x)
            if best is None or abs(frac) < abs(best["change_fraction"]):
                best = {"input": key, "current": x, "value": v, "change_fraction": frac, "unit": b.get("unit", "")}
    elif "wait" in pair and wait_be and wait_be.get("value") is not None:
        x, v = wait_be.get("current"), wait_be["value"]
        if x:
            best = {"input": wait_be.get("input"), "current": x, "value": v, "change_fraction": (v - x) / abs(x),
                    "unit": wait_be.get("unit", "")}
    return best


def _pct(p: float, certain_ok: bool) -> str:
    """A share of draws; never "100.0%" unless ``certain_ok`` (robust and every option priced)."""
    if p >= 0.9995 and not certain_ok:
        return "nearly all of"
    return f"{p:.1%} of"


def verdict(out: Mapping[str, Any], mc_totals: Mapping[str, np.ndarray] | None, basis: str | None,
            priced: Mapping[str, bool], certain_ok: bool = True) -> dict[str, Any]:
    """The ``verdict`` record from the cost JSON ``out`` (options, cheapest, margin, break-evens) and the
    Monte Carlo totals per option (None: no draw ran). No probability is printed for a winner with no priced
    rival, and no "100 %" unless ``certain_ok`` (robust, every option priced)."""
    ranking = [o for o in out.get("ranking", []) if priced.get(o, True)]
    win = out.get("cheapest")
    if win is None:
        return {"option": None, "runner_up": None, "margin_usd": None, "sentence": "no option can be priced"}
    runner = ranking[1] if len(ranking) > 1 else None
    margin = out.get("margin_usd")
    opts = out["options"]
    rec: dict[str, Any] = {"option": win, "runner_up": runner, "margin_usd": margin,
                           "total_usd": opts[win]["total_usd"],
                           "runner_up_total_usd": opts[runner]["total_usd"] if runner else None,
                           "margin_fraction": (margin / opts[runner]["total_usd"]
                                               if runner and margin is not None and opts[runner]["total_usd"] else None),
                           "p_cheapest": None, "p_runner_up": None, "p_beats_runner_up": None,
                           "probability_basis": basis}
    if mc_totals is not None:
        p = out.get("p_cheapest") or {}
        rec["p_cheapest"] = p.get(win)
        rec["p_runner_up"] = p.get(runner) if runner else None
        if runner:
            rec["p_beats_runner_up"] = float(np.mean(np.asarray(mc_totals[win]) < np.asarray(mc_totals[runner])))
    flip = smallest_flip(out.get("break_even", {}), out.get("wait_break_even"), (win, runner)) if runner else None
    rec["flip"] = flip
    words = [f"Take {win}"]
    if runner and margin is not None:
        words[0] += f": {margin:,.2f} USD cheaper than {runner} over {out['horizon_months']:g} months"
        if rec["margin_fraction"] is not None:
            words[0] += f" ({rec['margin_fraction']:.1%} of {runner}'s {opts[runner]['total_usd']:,.2f} USD)"
    unpriced = [o for o in out.get("options", {}) if not priced.get(o, True)]
    if runner is None:
        rec["p_cheapest"] = rec["p_runner_up"] = None
        words.append(f"the only priced option ({', '.join(unpriced)} not priced): no margin and no probability"
                     if unpriced else "the only option: no margin and no probability")
    elif rec["p_cheapest"] is not None:
        among = f" among the priced options ({', '.join(unpriced)} not priced)" if unpriced else ""
        words.append(f"cheapest{among} in {_pct(rec['p_cheapest'], certain_ok)} the draws and cheaper than {runner} "
                     f"in {_pct(rec['p_beats_runner_up'], certain_ok)} them ({basis})")
    else:
        words.append("no uncertain input: no probability (every input is a point value)")
    if flip is not None:
        words.append(f"it flips to {runner} if {flip['input']} goes from {flip['current']:,.6g} to "
                     f"{flip['value']:,.6g} ({flip['change_fraction']:+.1%}), the smallest single change that does")
    elif runner:
        words.append(f"no single input within its allowed range makes {runner} cheaper")
    xb = out.get("cross_region_bytes") or {}
    others = {k: v for k, v in (xb.get("cross_region_total_usd_by_basis") or {}).items() if k != xb.get("basis")}
    rec["cross_region_total_usd_by_bytes_basis"] = xb.get("cross_region_total_usd_by_basis")
    refused = set(xb.get("refused") or [])
    adj = xb.get("adjustment") or {}
    if adj and xb.get("basis") in (xb.get("cross_region_total_usd_by_basis") or {}):
        # the figure priced at the physical bound: what it would cost as measured
        others = {**others, xb["basis"]: xb["cross_region_total_usd_by_basis"][xb["basis"]]}
    for name, total in others.items():
        rival = min((opts[o]["total_usd"], o) for o in ranking if o != "cross_region") if len(ranking) > 1 else None
        if rival is None or not priced.get("cross_region", True):
            continue
        best = "cross_region" if total < rival[0] else rival[1]
        if name == xb.get("basis"):
            head = (f"with the {name} bytes as measured ({adj['measured_gb_per_month']:,.6g} GB/month, more than can "
                    f"physically cross: priced at {adj['priced_gb_per_month']:,.6g})")
        else:
            head = (f"with the {name} bytes" + (" (refused: more than can physically cross)" if name in refused else "")
                    + f" instead of the {xb.get('basis')} ones")
        words.append(head + f" cross_region would cost {total:,.2f} USD "
                     + ("and the verdict would not change" if best == win else f"and {best} would be cheapest"))
    rec["sentence"] = "; ".join(words)
    return rec


def _fsx_gb(D: float) -> float:
    """GB of FSx for Lustre a ``D`` GB dataset needs (1,200 GiB, then steps of 2,400 GiB)."""
    gib = 2**30 / 1e9
    return 1200 * gib if D <= 1200 * gib else math.ceil(D / (2400 * gib)) * 2400 * gib


def checkpoint_bound_gb_per_run(run_hours: float) -> float:
    """GB of checkpoints per run of a plausible large model (see :data:`CHECKPOINT_BOUND_PARAMETERS`) over a run
    of ``run_hours``: the bound of ``checkpoint_writeback_usd`` when no checkpoint size is stated."""
    per = CHECKPOINT_BOUND_PARAMETERS * CHECKPOINT_BOUND_BYTES_PER_PARAMETER / 1e9
    return per * max(run_hours, 0.0) / CHECKPOINT_BOUND_INTERVAL_HOURS


def _stated(scenario: Any, key: str) -> bool:
    src = str((scenario.provenance.get(key) or {}).get("source", "default"))
    return src != "default"


def zone_exposure(scenario: Any) -> list[str]:
    """The options whose training reads could cross zones without the scenario pricing it: cross_region unless
    ``cache.cross_az`` is stated (true: priced as ``inter_az_usd``; false: the cache is in the GPUs' zone, e.g.
    instance NVMe); replicate unless ``replica.cross_az`` is stated, and only when it reads a zonal tier (a file
    system, ``replica.filesystem`` or ``replica.filesystem_usd_per_gb_month``, or the shared cache): an S3 replica
    read from the same region bills no zone crossing."""
    on = []
    if not _stated(scenario, "cache.cross_az"):
        on.append("cross_region")
    zonal = (bool(scenario.get("replica.filesystem"))
             or float(scenario.values.get("replica.filesystem_usd_per_gb_month", 0.0) or 0.0) > 0
             or (bool(scenario.get("cache.shared")) and "cross_region" in on))
    if zonal and not _stated(scenario, "replica.cross_az"):
        on.append("replicate")
    return on


def cross_az_row(scenario: Any, bound_usd: float, read_gb: float) -> dict[str, Any]:
    """The ``cross_az_usd`` row of ``not_modelled``: the zone crossing of every epoch's reads on the options
    :func:`zone_exposure` names (``option``: one of them, ``either``, or ``none`` with bound 0)."""
    on = zone_exposure(scenario)
    option = "either" if len(on) == 2 else on[0] if on else "none"
    if not on:
        how = ("none: " + "; ".join(
            [("cache.cross_az is stated (" + ("priced as inter_az_usd" if scenario.get("cache.cross_az")
                                              else "the cache is in the GPUs' zone") + ")"),
             ("replica.cross_az is stated" if _stated(scenario, "replica.cross_az")
              else "replicate reads an S3 replica in the GPUs' region (no zone charge)")]))
        return {"term": "cross_az_usd", "option": option, "bound_usd": 0.0, "how": how}
    return {"term": "cross_az_usd", "option": option, "bound_usd": bound_usd,
            "how": f"if {' or '.join(on)} read the data from another zone than the GPUs: every epoch's "
                   f"{read_gb:,.6g} GB/month x 2 x 0.01 USD/GB (state cache.cross_az / replica.cross_az)"}


def not_modelled(scenario: Any, dv: Mapping[str, float], margin_usd: float | None,
                 cheapest: str | None = None) -> tuple[list[dict[str, Any]], str]:
    """Terms the model leaves out, each with an order-of-magnitude bound (USD over the horizon) and
    ``can_flip`` (it falls on ``cheapest``, or on either option, and alone exceeds the margin), and the sentence
    weighing the margin against the terms that fall on ``cheapest`` (all of them when it is not given)."""
    M = scenario.values["horizon_months"]
    p = scenario.values.get("link.transfer_usd_per_gb", 0.0)
    R = scenario.values.get("training.runs_per_month", 0.0)
    D = scenario.values["dataset.size_gb"]
    ck = scenario.get("training.checkpoint_gb_per_run")
    T = float(scenario.values.get("training.run_hours", 0.0) or 0.0)
    ck_gb = float(ck) if ck is not None else checkpoint_bound_gb_per_run(T)
    ck_priced = dv.get("checkpoint_gb_per_month", 0.0) > 0 or scenario.get("training.checkpoints_to_data_region") is False
    path = scenario.get("link.path") or "vpc_peering"
    read_gb = dv.get("training_read_gb_per_month", 0.0)
    # stated, even as 0 (training reads the object store): no file-system tier to bound
    fs_stated = _stated(scenario, "replica.filesystem_usd_per_gb_month") or bool(scenario.get("replica.filesystem"))
    rows = [
        {"term": "checkpoint_writeback_usd", "option": "cross_region",
         "bound_usd": 0.0 if ck_priced else M * R * ck_gb * p,
         "how": ("modelled (checkpoint_writeback_usd)" if ck_priced else
                 f"{ck_gb:,.6g} GB of checkpoints per run written back to the data region x {p:.4g} USD/GB"
                 + ("" if ck is not None else
                    f" (not stated: bounded by an 8 B-parameter model with its Adam state, 128 GB checkpointed "
                    f"hourly over the {T:,.4g} h run; state training.checkpoint_gb_per_run, or "
                    "training.model_parameters and training.checkpoint_interval_hours: a 1.2 B-parameter model "
                    "writes about 19 GB x the run's hours)"))},
        {"term": "transit_gateway_hours_usd", "option": "cross_region",
         "bound_usd": M * 2 * TGW_ATTACHMENT_USD_PER_HOUR * HOURS_PER_MONTH if path == "transit_gateway" else 0.0,
         "how": ("2 attachments x 0.05 USD/attachment-hour x 730.5 h a month" if path == "transit_gateway"
                 else f"none on {path} (2 x 0.05 USD/h x 730.5 h = 73 USD/month on a Transit Gateway)")},
        cross_az_row(scenario, M * 2 * INTER_AZ_USD_PER_GB * read_gb, read_gb),
        {"term": "filesystem_tier_usd", "option": "replicate",
         "bound_usd": 0.0 if fs_stated else M * _fsx_gb(D) * FSX_LUSTRE_USD_PER_GB_MONTH,
         "how": "modelled (replica.filesystem_usd_per_gb_month or replica.filesystem stated)" if fs_stated
         else "a POSIX file system in front of the replica (FSx for Lustre persistent SSD, 0.145 USD/GB-month x the "
              "dataset rounded up to what can be provisioned: 1,200 GiB, then steps of 2,400 GiB; state "
              "replica.filesystem_usd_per_gb_month, 0 when training reads the object store)"},
    ]
    total = float(sum(float(r["bound_usd"]) for r in rows))

    def falls_on_winner(r: Mapping[str, Any]) -> bool:
        return cheapest is None or r["option"] in (cheapest, "either")

    for r in rows:
        r["can_flip"] = bool(margin_usd is not None and falls_on_winner(r) and float(r["bound_usd"]) > margin_usd)
    if margin_usd is None:
        return rows, f"terms not modelled: up to {total:,.2f} USD over the horizon"
    against = float(sum(float(r["bound_usd"]) for r in rows if falls_on_winner(r)))
    names = ", ".join(f"{r['term']} <= {r['bound_usd']:,.0f}" for r in rows)
    holds = margin_usd > against
    on = "" if cheapest is None else f"; {against:,.2f} USD of them fall on {cheapest}"
    flip = [str(r["term"]) for r in rows if r["can_flip"]]
    sentence = (f"margin {margin_usd:,.2f} USD vs up to {total:,.2f} USD of terms not modelled ({names}){on}: "
                + ("the margin exceeds them all together" if holds else
                   "they could overturn the verdict: price the ones that apply"
                   + (f" ({', '.join(flip)} alone could)" if flip else "")))
    return rows, sentence


def can_flip_warnings(rows: list[dict[str, Any]], margin_usd: float | None) -> list[str]:
    """A warning for each term not modelled (but the checkpoints, :func:`checkpoint_warning`) whose bound alone
    exceeds the margin on the winner: it touches the verdict, so the page and the ADR show it."""
    if margin_usd is None:
        return []
    return [f"{r['term']}: not modelled; up to {float(r['bound_usd']):,.2f} USD over the horizon on {r['option']} "
            f"({r['how']}), more than the {margin_usd:,.2f} USD margin: this term can flip the verdict; price it or "
            "state that it does not apply"
            for r in rows if r.get("can_flip") and r["term"] != "checkpoint_writeback_usd"]


def checkpoint_warning(rows: list[dict[str, Any]], margin_usd: float | None, stated: bool) -> str | None:
    """A warning when checkpoint write-back, not stated, alone could flip the verdict."""
    r = next((x for x in rows if x["term"] == "checkpoint_writeback_usd"), None)
    if r is None or stated or not r.get("can_flip") or margin_usd is None:
        return None
    return (f"checkpoint_writeback_usd: no checkpoint size is stated; written back to the data region, the checkpoints "
            f"of a large model can cost up to {float(r['bound_usd']):,.2f} USD over the horizon ({r['how']}), more "
            f"than the {margin_usd:,.2f} USD margin: this term can flip the verdict. State "
            "training.checkpoint_gb_per_run (or training.model_parameters and training.checkpoint_interval_hours), "
            "or training.checkpoints_to_data_region: false")


#: purchase option -> its scenario key (whole-cluster USD/hour)
PURCHASE_KEYS = {
    "sagemaker": "purchase.sagemaker_usd_per_hour",
    "capacity_block": "purchase.capacity_block_usd_per_hour",
    "savings_plan": "purchase.savings_plan_usd_per_hour",
    "reserved": "purchase.reserved_usd_per_hour",
    "spot": "purchase.spot_usd_per_hour",
}


def purchase_options(scenario: Any, cheapest: str | None) -> tuple[list[dict[str, Any]], str | None]:
    """Every GPU purchase option the scenario prices side by side: the scenario's own cluster price
    (``training.purchase_option``, default on_demand) and each ``purchase.*_usd_per_hour`` given; spot adds
    ``purchase.spot_interruptions_per_run`` to ``training.interruptions_per_run`` (more cold starts of a cache
    that is not persistent). Each row: ``purchase_option``, ``cluster_usd_per_hour``, ``totals_usd``,
    ``cheapest``, ``margin_usd``. The sentence names the options under which another option is cheapest."""
    from .evaluate import evaluate

    base_name = str(scenario.get("training.purchase_option") or "on_demand")
    rows = []

    def row(name: str, sc: Any) -> dict[str, Any]:
        from .commitment import commitment_billing

        r = evaluate(sc)
        out = {"purchase_option": name, "cluster_usd_per_hour": sc.values["training.cluster_usd_per_hour"],
               "interruptions_per_run": sc.values.get("training.interruptions_per_run", 0.0),
               "totals_usd": {o: v.total_usd for o, v in r.options.items()},
               "cheapest": r.cheapest, "margin_usd": r.margin_usd}
        commitment = commitment_billing(sc, name, sc.values["training.cluster_usd_per_hour"], r.derived)
        if commitment is not None:  # billed per committed hour over the term, used or not
            out["commitment"] = commitment
        return out

    rows.append(row(base_name, scenario))
    for name, key in PURCHASE_KEYS.items():
        v = scenario.get(key)
        if v is None or name == base_name:
            continue
        changes: dict[str, float] = {"training__cluster_usd_per_hour": float(v)}
        if name == "spot" and scenario.get("purchase.spot_interruptions_per_run") is not None:
            changes["training__interruptions_per_run"] = float(scenario.values.get("training.interruptions_per_run", 0.0)
                                                              + scenario.get("purchase.spot_interruptions_per_run"))
        rows.append(row(name, scenario.with_values(**changes)))
    if len(rows) == 1:
        return rows, None
    other = [r for r in rows if r["cheapest"] != cheapest]
    if not other:
        return rows, (f"{cheapest} is cheapest under every purchase option priced ("
                      + ", ".join(f"{r['purchase_option']} {r['cluster_usd_per_hour']:,.2f} USD/h" for r in rows) + ")")
    return rows, "; ".join(f"under {r['purchase_option']} ({r['cluster_usd_per_hour']:,.2f} USD/h) {r['cheapest']} is "
                           f"cheapest by {r['margin_usd']:,.2f} USD" for r in other)
