"""The placement decision as an architecture decision record (MADR 4.0), in the checklist's conventions.

The record lists **every alternative considered**: each ranked placement with its cost, time and where its
warm-up comes from, and each one not ranked with the reason (not priced, forbidden, late). The outcome is the
winner, with the reasons (``why``), the break-even prices that would change it and the Monte Carlo robustness.
Like :mod:`costmodel.checklist.adr`: numbered ``NNNN-title.md`` (the next free number), written whole and never
over an existing record, every input string escaped (:func:`~costmodel.checklist.adr.md_escape`).
"""
from __future__ import annotations

import datetime as _dt
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..checklist.adr import md_escape, next_number, slugify
from ..foundation.errors import PlacementError


def _usd(x: Any) -> str:
    return "-" if x is None else f"{x:,.0f} USD"


def _h(x: Any) -> str:
    return "-" if x is None else f"{x:,.1f} h"


def render_placement_adr(out: Mapping[str, Any], *, date: str | _dt.date | None = None,
                         status: str = "proposed") -> str:
    """MADR 4.0 Markdown for the placement result ``out`` (what ``costmodel place --json`` prints)."""
    day = (date if isinstance(date, str) else (date or _dt.datetime.now(_dt.timezone.utc).date()).isoformat())
    try:
        _dt.date.fromisoformat(day)
    except ValueError:
        raise PlacementError(f"--date {day!r}: expected YYYY-MM-DD", key="--date") from None
    w = out["winner"]
    data = out["data"]
    ob = out["objective"]
    lines = [
        "---",
        f'status: "{status}"',
        f"date: {day}",
        'decision-makers: ""',
        "---",
        "",
        (f"# Train {md_escape(w['candidate'])} with {md_escape(w['strategy'])}: data in "
         f"{md_escape(data['provider'])}:{md_escape(data['region'])}"),
        "",
        "## Context and Problem Statement",
        "",
        (f"The dataset ({md_escape(data.get('dataset') or 'see the scenario')}) sits in "
         f"{md_escape(data['provider'])}:{md_escape(data['region'])}. GPUs are offered in "
         f"{out['counts']['candidates']} candidate regions ({out['counts']['offers']} offers). Where should the "
         "training run, and how should it reach the data: read across regions through a cache, replicate the "
         "dataset, or wait for GPUs near the data?"),
        "",
        "## Decision Drivers",
        "",
        f"* cost over {out.get('horizon_months') or '-'} months (GPU hours + the strategy's cost-model total)",
        "* time to a finished first training" + (f", within {ob['deadline_hours']:g} h" if ob.get("deadline_hours")
                                                 else ""),
        f"* ranked by {md_escape(ob['rank_by'])}" + (f" ({ob['usd_per_hour']:g} USD per hour)" if ob.get("usd_per_hour")
                                                      else ""),
        "* governance rules on where the data may be cached or stored",
        "",
        "## Considered Options",
        "",
    ]
    lines.extend(f"* {r['rank']}. {md_escape(r['id'])}: {_usd(r['cost_usd'])}, {_h(r['time_to_finish_hours'])}"
                 + (f", warm-up {md_escape(r['basis'])}" if r["basis"] != "not_needed" else "")
                 + (" (Pareto front)" if r["on_front"] else "") for r in out["ranking"])
    for r in out["not_ranked"]:
        why = r["not_priced_reason"] or r["forbidden_reason"] or r["infeasible_reason"]
        lines.append(f"* not ranked: {md_escape(r['id'])}: {md_escape(why)}")
    lines += [
        "",
        "## Decision Outcome",
        "",
        (f"Chosen option: \"{md_escape(w['id'])}\", because it has the lowest "
         f"{'score' if ob.get('usd_per_hour') else 'cost'} among the placements that are priced, allowed and in time."),
        "",
    ]
    lines += [f"* {md_escape(x)}" for x in out["why"]]
    lines += ["", "### Consequences", ""]
    for b in out["break_even"]:
        for side in ("below", "above"):
            if b.get(side):
                lines.append(f"* If {md_escape(b['candidate'])} ({md_escape(b['offer'])}) costs {side} "
                             f"{b[side]['usd_per_hour']:,.4f} USD per instance-hour (now {b['usd_per_hour']:g}), "
                             f"{md_escape(b[side]['winner'])} wins instead.")
    mc = out["monte_carlo"]
    lines.append(f"* Robustness: {md_escape(mc['sentence'])}.")
    lines += ["", "### Confirmation", "",
              (f"Re-run `costmodel place {md_escape(out['source'])}` with the prices, waits and measured runs as they "
               "change; `--scenarios DIR` writes each candidate's cost scenario for `costmodel cost`."), ""]
    return "\n".join(lines)


def write_placement_adr(directory: str | os.PathLike[str], out: Mapping[str, Any], *,
                        date: str | _dt.date | None = None) -> Path:
    """Write the record to ``directory/NNNN-<slug>.md`` (the next free number; never over an existing file)."""
    text = render_placement_adr(out, date=date)
    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise PlacementError(f"{d}: ADR folder is a file, expected a directory", key="--adr")
    w = out["winner"]
    slug = slugify(f"place {w['candidate']} {w['strategy']}")
    try:
        d.mkdir(parents=True, exist_ok=True)
        from ..foundation.leftovers import sweep

        sweep(d, ".adr.", ".tmp")  # the temporary files of killed runs (named by their process)
        fd, tmp = tempfile.mkstemp(prefix=f".adr.{os.getpid()}-", suffix=".tmp", dir=d)
    except OSError as exc:
        raise PlacementError(f"{d}: cannot write the ADR folder: {exc.strerror or exc}", key="--adr") from None
    tmp_path = Path(tmp)
    try:
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:  # a full disk fails in write() or close(), whose error names no file
            from ..foundation.safeio import os_error_message

            raise PlacementError(os_error_message(exc, d, "write the ADR into"), key="--adr") from None
        for _ in range(1000):
            target = d / f"{next_number(d):04d}-{slug}.md"
            try:
                os.link(tmp_path, target)
            except FileExistsError:
                continue
            return target
        raise PlacementError(f"{d}: could not find a free ADR number", key="--adr")  # pragma: no cover
    finally:
        tmp_path.unlink(missing_ok=True)
