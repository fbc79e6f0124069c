"""What each of the estimator's rules found, compactly, and which rule decided: the ``rules`` key of
``costmodel fit --json``.

Each finder reads :class:`~costmodel.warmup.rulestate.Fit` right after its rule ran and returns a small dict of
that rule's finding (steps, not observation indices; a few numbers and names); :func:`rules_record` puts them
together with the trace (the rules that changed the classification or ended the analysis, in order) and names the
rule that decided the classification and the one that decided the warm-up end. Reading only: no finder changes
the fit. Cost: O(1) per rule.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .rulestate import Fit


def _step(f: Fit, i: int | None) -> int | None:
    if i is None or f.s.n == 0:
        return None
    return int(f.s.step[min(max(int(i), 0), f.s.n - 1)])


def _too_short(f: Fit) -> dict[str, Any]:
    return {"n_points": int(f.s.n), "stopped": f.done}


def _stalls(f: Fit) -> dict[str, Any]:
    per = f.per
    return {"period_steps": per.period_steps if per is not None else None,
            "stalls": len(per.events) if per is not None else 0, "coarse_rows": f.coarse,
            "bursty_cold_phase": f.bursty, "outliers": int(f.an.mask.sum()) if f.an is not None else 0}


def _segmentation(f: Fit) -> dict[str, Any]:
    return {"segments": len(f.segs), "classification": f.verdict.classification if f.verdict is not None else None,
            "block_size": f.m}


def _tail(f: Fit) -> dict[str, Any]:
    t = f.tail_info
    return {"tail_start_step": t["start_step"], "rel_change": t["rel_change"], "kept_in_steady": t["kept_in_steady"]} \
        if t is not None else {"tail_start_step": None}


def _result(f: Fit) -> dict[str, Any]:
    return {"classification": f.cls}


def _cold_phase(f: Fit) -> dict[str, Any]:
    cp = f.cp
    return {"end_step": _step(f, f.decided) if f.decided else (0 if f.decided == 0 else None),
            "decided_by": cp.decided_by if cp is not None else None, "classification": f.cls}


def _tail_drift(f: Fit) -> dict[str, Any]:
    td = f.td
    out = {"rel": td[0] if td is not None else None, "z": td[1] if td is not None else None,
           "no_steady_state": f.done}
    if f.td_batches is not None:  # the batch-means test ran (the other conditions held)
        out["batches_p"] = f.td_batches[2]
    return out


def _overshoot(f: Fit) -> dict[str, Any]:
    return {"end_step": _step(f, f.overshoot_end) if f.overshoot_end is not None else None}


def _warmup_end(f: Fit) -> dict[str, Any]:
    return {"end_step": _step(f, f.i_end) if f.i_end > 0 else 0,
            "estimator": f.evidence.get("warmup_end_estimator"), "too_late": f.done}


def _rows_lost_time(f: Fit) -> dict[str, Any] | None:
    if not f.coarse:
        return None  # per step: the rule does not look (no entry, so per-step records are as before)
    found = f.evidence.get("rows_lost_time")
    return {"kept": found["kept"], "throughput_end_step": found["throughput_end_step"],
            "lost_between_s": found["lost_between_s"]} if found else {"kept": None}


def _not_a_warmup(f: Fit) -> dict[str, Any]:
    noise = f.evidence.get("not_a_warmup")
    if not isinstance(noise, dict):
        return {"noise": None}
    return {"noise": "late_small_rise" if "rise" in noise else "startup_stall"}


def _bias_window(f: Fit) -> dict[str, Any]:
    return {"steady_start_step": _step(f, f.i_s), "resid_bias_rel": f.resid_bias_rel}


def _steady_drift(f: Fit) -> dict[str, Any]:
    return {"drift_rel": f.evidence.get("drift_rel"), "z": f.evidence.get("drift_z"), "no_steady_state": f.done}


def _steady_window(f: Fit) -> dict[str, Any]:
    return {"whole_periods": f.win is not None, "start_step": _step(f, f.i_s),
            "end_step": _step(f, f.i_b - 1) if f.i_b else None, "too_short": f.done}


def _stall_split(f: Fit) -> dict[str, Any]:
    return {"split": bool(f.res is not None and f.res.stall_split)}


def _levels(f: Fit) -> dict[str, Any]:
    res = f.res
    return {"steady_mean": res.steady_mean if res is not None else None,
            "warmup_end_step": res.warmup_end_step if res is not None else None}


def _lost(f: Fit) -> dict[str, Any]:
    return {"lost_s": f.res.lost_s if f.res is not None else None, "classification": f.cls}


def _curve(f: Fit) -> dict[str, Any]:
    c = f.res.curve if f.res is not None else None
    return {"model": c.get("model") if c else None}


def _startup_stall(f: Fit) -> dict[str, Any]:
    found = f.evidence.get("startup_stall") or {}
    return {"stall": bool(found), "rows": found.get("rows"), "lost_s": found.get("lost_s")}


def _dips(f: Fit) -> dict[str, Any]:
    return {"classification": f.res.classification if f.res is not None else None}


#: rule name -> its finder (every rule of :data:`costmodel.warmup.analyze.RULES` has one)
FINDERS: dict[str, Callable[[Fit], dict[str, Any] | None]] = {
    "too_short": _too_short, "stalls": _stalls, "segmentation": _segmentation, "tail": _tail, "result": _result,
    "cold_phase": _cold_phase, "tail_drift": _tail_drift, "overshoot": _overshoot, "warmup_end": _warmup_end,
    "rows_lost_time": _rows_lost_time,
    "not_a_warmup": _not_a_warmup, "bias_window": _bias_window, "startup_stall": _startup_stall,
    "steady_drift": _steady_drift,
    "steady_window": _steady_window, "stall_split": _stall_split, "levels": _levels, "lost": _lost,
    "curve": _curve, "dips": _dips,
}


def warmup_end_rule(f: Fit) -> str:
    """The rule that set the warm-up end: ``not_a_warmup`` (reset to none), ``cold_phase`` (evidence),
    ``overshoot``, ``curve`` (curve fit or isotonic), else ``segmentation`` (no warm-up)."""
    est = str(f.evidence.get("warmup_end_estimator") or "")
    if "startup_stall" in f.trace:
        return "startup_stall"
    if "not_a_warmup" in f.trace:
        return "not_a_warmup"
    if f.decided is not None:
        return "cold_phase"
    if est == "isotonic_from_peak":
        return "overshoot"
    if est.startswith("rows_lost_time"):
        return "rows_lost_time"
    if est.startswith(("curve:", "isotonic")):
        return "warmup_end"
    return "segmentation"


def rules_record(f: Fit, ran: list[str]) -> dict[str, Any]:
    """The ``rules`` record: ``decided_by`` (the rule that set the final classification), ``warmup_end_by``,
    ``trace`` (rules that changed the class or stopped the list, with the class they set) and ``found`` (each
    applied rule's finding, in the order the rules ran: a list that stopped early has fewer)."""
    last = f.trace[-1] if f.trace else "segmentation"
    return {"decided_by": last.split(":", 1)[0], "warmup_end_by": warmup_end_rule(f), "trace": list(f.trace),
            "found": {k: f.found[k] for k in ran if k in f.found}}
