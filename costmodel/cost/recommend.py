"""One answer a person can sign: the recommendation, what it rests on, and how sure it is.

:func:`assumption_register` tags every input of the scenario by where it comes from (``measured``, ``catalog``
with its date and source, ``stated``, ``default``, ``derived``) and whether it has a spread with evidence.
:func:`recommendation` reads the cost JSON (``costmodel cost --json``'s object before this key) and says:

- ``option`` / ``runner_up`` / ``margin_usd``: the cheapest *priced* option and its margin (no margin to an
  option that is not priced);
- ``deciding_assumption``: the input whose plausible range flips the answer (the byte basis when the physically
  possible estimates of the cross-region bytes disagree on the winner, an assumed width of a token that decides,
  else the tornado input with the largest swing that flips), or, when none does, the nearest break-even
  (``within_range: false``);
- ``materiality``: the margin against the GPU spend (``MATERIALITY_FRACTION``) and the assumptions' swing; when
  the margin is immaterial the answer says that cost does not decide it and names what would;
- ``confidence`` and ``confidence_statement``: one rule, never "100 %" or "sure" when ``robust`` is false, an
  option is not priced, or a warning touches the verdict;
- ``verdict_warnings``: the warnings that touch the verdict (shown on the report's first screen and in the ADR);
- ``sentence``: the line the CLI prints last and the report and the ADR state.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: cost differences under 1 % of the GPU (cluster) spend do not decide (the checklist's threshold too)
MATERIALITY_FRACTION = 0.01
#: what decides when cost does not
NON_COST_DECIDERS = ("governance (where the data may live and who may read it)",
                     "the worth of a second copy (recovery, other teams reading it)",
                     "restart behaviour (every interruption or new cluster refills a cache that is not persistent)")

_TAGS = (("measured", ("compare", "timeline", "measured")), ("catalog", ("price table",)),
         ("derived", ("derived",)), ("default", ("default",)), ("stated", ("scenario", "--set")))


def _tag(source: str) -> str:
    s = source.lower()
    for tag, marks in _TAGS:
        if any(s.startswith(m) or (m in ("compare", "timeline") and m in s) for m in marks):
            return tag
    return "stated"


def assumption_register(inputs: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per input with a source (``inputs.provenance`` of the cost JSON): ``key``, ``value``, ``tag``
    (measured | catalog | stated | default | derived), ``source``, ``as_of`` (catalog rows), ``spread`` (the
    distribution drawn, if any: ``stated``, ``sampling`` (a measurement's) or null)."""
    prov = inputs.get("provenance") or {}
    dists = inputs.get("distributions") or {}
    rows = []
    for key in sorted(prov):
        p = prov[key] if isinstance(prov[key], Mapping) else {}
        src = str(p.get("source", ""))
        d = dists.get(key) if isinstance(dists, Mapping) else None
        spread = None
        if isinstance(p.get("distribution"), Mapping):
            spread = "sampling"
        elif d is not None:
            spread = "stated"
        rows.append({"key": key, "value": p.get("value"), "tag": _tag(src), "source": src or None,
                     "as_of": p.get("as_of"), "spread": spread})
    return rows


def _flipping_rows(out: Mapping[str, Any], win: str, priced: Mapping[str, bool]) -> list[dict[str, Any]]:
    rows = []
    for r in out.get("sensitivity") or []:
        for end in ("low", "high"):
            other = r.get(f"cheapest_{end}")
            if other and other != win and priced.get(other, True):
                rows.append({"input": r.get("input"), "end": end, "value": r.get(end), "low": r.get("low"),
                             "high": r.get("high"), "range": r.get("range"), "becomes": other,
                             "swing_usd": abs(float(r.get("swing_usd") or 0.0))})
                break
    return sorted(rows, key=lambda x: -x["swing_usd"])


def deciding_assumption(out: Mapping[str, Any], win: str | None, priced: Mapping[str, bool],
                        bpt_note: str | None = None) -> dict[str, Any] | None:
    """The input whose plausible range flips the answer (see the module docstring); None without a winner."""
    if win is None:
        return None
    xb = out.get("cross_region_bytes") or {}
    # each case as the model prices it (a measured figure capped at what can cross), else the figures as they are
    by = xb.get("cross_region_total_usd_by_case") or xb.get("cross_region_total_usd_by_basis") or {}
    opts = out.get("options") or {}
    rival = min(((opts[o]["total_usd"], o) for o in opts if o != "cross_region" and priced.get(o, True)), default=None)
    cases = [c for c in xb.get("cases") or [] if c in by]
    if rival is not None and len(cases) > 1 and priced.get("cross_region", True):
        winners = {c: ("cross_region" if by[c] < rival[0] else rival[1]) for c in cases}
        if len(set(winners.values())) > 1:
            flips = [c for c, w in winners.items() if w != win]
            return {"input": "link.bytes_basis", "current": xb.get("basis"), "flips_at": flips[0] if flips else None,
                    "within_range": True, "also": [],
                    "why": "the estimates of the cross-region bytes that can physically happen disagree on the "
                           "winner: " + ", ".join(f"{c} {by[c]:,.0f} USD -> {w}" for c, w in winners.items())
                           + "; settle it with the provider's bill (link.billed_gb_per_month)"}
    flipping = _flipping_rows(out, win, priced)
    if bpt_note and "DECIDES" in bpt_note:
        ds = (out.get("inputs") or {}).get("values", {}).get("dataset", {})
        size_be = ((out.get("break_even") or {}).get("dataset.size_gb") or {}).get("value")
        tokens = ds.get("tokens")
        return {"input": "dataset.bytes_per_token", "current": ds.get("bytes_per_token"),
                "flips_at": size_be * 1e9 / tokens if size_be is not None and tokens else None, "within_range": True,
                "also": [r["input"] for r in flipping], "why": bpt_note}
    if flipping:
        top = flipping[0]
        return {"input": top["input"], "current": None, "flips_at": top["value"], "within_range": True,
                "also": [r["input"] for r in flipping[1:]],
                "why": f"{top['input']} at its {top['end']} value {top['value']:,.6g} ({top['range']}) makes "
                       f"{top['becomes']} cheapest"}
    flip = (out.get("verdict") or {}).get("flip")
    if flip:
        return {"input": flip.get("input"), "current": flip.get("current"), "flips_at": flip.get("value"),
                "within_range": False, "also": [],
                "why": f"no input within its plausible range flips the answer; the nearest break-even is "
                       f"{flip.get('input')} {flip.get('current'):,.6g} -> {flip.get('value'):,.6g} "
                       f"({flip.get('change_fraction', 0.0):+.1%})"}
    return None


def _gpu_spend(out: Mapping[str, Any]) -> float | None:
    v = (out.get("inputs") or {}).get("values") or {}
    t = v.get("training") or {}
    try:
        g = float(t["cluster_usd_per_hour"])
        return float(out["horizon_months"]) * float(t["runs_per_month"]) * float(t["run_hours"]) * g
    except (KeyError, TypeError, ValueError):
        return None


def verdict_warnings(out: Mapping[str, Any], keys: Sequence[str]) -> list[str]:
    """The warnings of the cost JSON that touch the verdict: an option or term not priced, the byte estimates
    disagreeing or refused, an assumption that DECIDES, a transfer budget exceeded, or any warning naming an
    input in ``keys`` (the deciding assumption and every input whose range flips the answer)."""
    marks = ("not priced", "priced at 0", "cross-region bytes", "DECIDES", "transfer_budget", "persistent cache",
             "checkpoint", "can flip the verdict")
    return [w for w in out.get("warnings") or []
            if any(m in w for m in marks) or any(k and k in w for k in keys)]


def _share(p: float, certain_ok: bool) -> str:
    if p >= 0.9995 and not certain_ok:
        return "nearly all"
    return f"{p:.1%} of"


def recommendation(out: Mapping[str, Any], priced: Mapping[str, bool], bpt_note: str | None = None) -> dict[str, Any]:
    """The ``recommendation`` record (see the module docstring) from the cost JSON ``out``."""
    win = out.get("cheapest")
    unpriced = [o for o in ("cross_region", "replicate", "wait") if not priced.get(o, True)]
    xb = out.get("cross_region_bytes") or {}
    basis = {"headline": out.get("headline_basis", "expected_value"), "bytes": xb.get("basis"),
             "bytes_gb_per_month": xb.get("gb_per_month"), "byte_cases": list(xb.get("cases") or []),
             "bytes_refused": list(xb.get("refused") or [])}
    if win is None:
        statement = ("No option can be priced, so cost recommends nothing: give the prices named in each option's "
                     "not_priced_reason")
        return {"option": None, "runner_up": None, "margin_usd": None, "basis": basis, "deciding_assumption": None,
                "materiality": None, "confidence": "none", "confidence_statement": statement,
                "unpriced": unpriced, "verdict_warnings": verdict_warnings(out, ()),
                "sentence": f"Recommendation: none. {statement}."}
    v = out.get("verdict") or {}
    runner, margin = v.get("runner_up"), out.get("margin_usd")
    deciding = deciding_assumption(out, win, priced, bpt_note)
    flipping = _flipping_rows(out, win, priced)
    keys = [r["input"] for r in flipping] + ([deciding["input"]] if deciding else [])
    touching = verdict_warnings(out, keys)
    spend = _gpu_spend(out)
    swing = max((abs(float(r.get("swing_usd") or 0.0)) for r in out.get("sensitivity") or []), default=0.0)
    materiality = None
    immaterial = False
    if margin is not None:
        share = margin / spend if spend else None
        small = share is not None and share < MATERIALITY_FRACTION
        inside = bool(flipping)  # an input moved within its plausible range crosses the margin
        immaterial = small or bool(deciding and deciding["within_range"])
        words = f"the margin {margin:,.0f} USD"
        if share is not None:
            words += f" is {share:.2%} of the {spend:,.0f} USD GPU spend"
        if inside:
            words += (f"{' and' if share is not None else ' is'} inside the assumptions' swing (moving "
                      f"{flipping[0]['input']} within its range alone crosses it; largest swing {swing:,.0f} USD)")
        sentence = (f"Cost does not decide this: {words}; decide on " + ", ".join(NON_COST_DECIDERS)
                    if immaterial else f"Cost decides this: {words}")
        materiality = {"material": not immaterial, "gpu_spend_usd": spend, "margin_share_of_gpu_spend": share,
                       "threshold_fraction": MATERIALITY_FRACTION, "assumptions_swing_usd": swing,
                       "inside_swing": inside, "sentence": sentence}
    robust = out.get("robust") is True
    certain_ok = robust and not unpriced and not touching and not (deciding and deciding["within_range"])
    p = v.get("p_beats_runner_up") if runner else None
    n = ((out.get("headline_range") or {}).get("n")) or 0
    if runner is None:
        level = "low"
        statement = (f"{win} is the only priced option ({', '.join(unpriced)} not priced): nothing to compare it "
                     "with, so no margin or probability")
    else:
        cond = " conditional on the inputs held at their values and the ranges drawn"
        prob = f"; cheaper than {runner} in {_share(p, certain_ok)} {n:,} draws{cond}" if p is not None and n else ""
        if certain_ok:
            level = "high"
            statement = f"robust: {win} stays cheapest at both ends of every plausible range{prob}"
        else:
            level = "low" if (not robust or (deciding and deciding["within_range"])) else "moderate"
            why = []
            if not robust:
                pc = (out.get("p_cheapest") or {}).get(win) if isinstance(out.get("p_cheapest"), Mapping) else None
                bits = [f"cheapest in {_share(pc, False)} the draws" if pc is not None else "",
                        f"{len(flipping)} input(s) flip it within their range" if flipping else ""]
                why.append("not robust (" + ", ".join(b for b in bits if b) + ")" if any(bits) else "not robust")
            if deciding and deciding["within_range"]:
                why.append(f"{deciding['input']} decides it within its plausible range")
            if unpriced:
                why.append(f"{', '.join(unpriced)} not priced (compared among the priced options only)")
            if touching:
                why.append(f"{len(touching)} warning(s) touch the verdict")
            statement = "not settled: " + "; ".join(why) + prob
    head = f"Recommendation: {win}"
    if runner and margin is not None:
        head += f", {margin:,.0f} USD cheaper than {runner} over {out.get('horizon_months'):g} months"
    elif unpriced:
        head += f" (the only priced option; {', '.join(unpriced)} not priced)"
    bb = f"{basis['bytes']} bytes" if basis["bytes"] else "no cross-region bytes"
    dec = (f"; deciding assumption: {deciding['input']}" + ("" if deciding["within_range"] else " (outside its range)")
           if deciding else "")
    mat = f" {materiality['sentence']}." if materiality else ""
    sentence = f"{head} (basis: {bb}, expected values){dec}.{mat} Confidence {level}: {statement}."
    return {"option": win, "runner_up": runner, "margin_usd": margin if runner else None, "basis": basis,
            "deciding_assumption": deciding, "materiality": materiality, "confidence": level,
            "confidence_statement": statement, "unpriced": unpriced, "verdict_warnings": touching,
            "sentence": sentence}

