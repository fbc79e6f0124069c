"""Edits to a placement file as the notebook's widgets make them: an offer's price or wait, a candidate left out,
the deadline, the exchange rate; then the ranking again (the same :func:`~costmodel.place.summary.analyze`).

An edit is ``key path -> value``: ``candidates[I].offers[J].usd_per_hour``, ``candidates[I].offers[J].
expected_wait_hours``, ``candidates[I].include`` (False leaves the candidate out, and the governance rules that
name only its region), ``constraints.deadline_hours`` (None: no deadline), ``objective.usd_per_hour``.
"""
from __future__ import annotations

import copy
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..foundation.errors import PlacementError
from ..foundation.safeyaml import safe_load_file

_OFFER = re.compile(r"^candidates\[(\d+)\]\.offers\[(\d+)\]\.(usd_per_hour|expected_wait_hours)$")
_INCLUDE = re.compile(r"^candidates\[(\d+)\]\.include$")


def read_doc(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The placement file as a mapping (validated later, by :func:`~costmodel.place.model.placement_from_dict`)."""
    doc = safe_load_file(Path(path))
    if not isinstance(doc, Mapping):
        raise PlacementError("expected a mapping with scenario, data and candidates", path=str(path))
    return dict(doc)


def apply_edits(doc: Mapping[str, Any], edits: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``doc`` with ``edits`` applied (see the module docstring). PlacementError for an unknown edit."""
    out = copy.deepcopy(dict(doc))
    cands = out.get("candidates") or []
    drop: set[int] = set()
    for key, value in edits.items():
        if m := _OFFER.match(key):
            i, j, leaf = int(m.group(1)), int(m.group(2)), m.group(3)
            try:
                cands[i]["offers"][j][leaf] = value
            except (IndexError, KeyError, TypeError):
                raise PlacementError("no such candidate offer", key=key) from None
        elif m := _INCLUDE.match(key):
            if int(m.group(1)) >= len(cands):
                raise PlacementError("no such candidate", key=key)
            if not value:
                drop.add(int(m.group(1)))
        elif key == "constraints.deadline_hours":
            out.setdefault("constraints", {})["deadline_hours"] = value
        elif key == "objective.usd_per_hour":
            out.setdefault("objective", {})["usd_per_hour"] = value
        else:
            raise PlacementError("not an edit the placement widgets make", key=key)
    if drop:
        out["candidates"] = [c for i, c in enumerate(cands) if i not in drop]
        kept = {c.get("region") for c in out["candidates"]} | {(out.get("data") or {}).get("region")}
        cons = out.get("constraints") or {}
        if cons.get("governance"):
            cons["governance"] = [g for g in cons["governance"] if g.get("region") in kept]
    return out


def rerank(path: str | os.PathLike[str], edits: Mapping[str, Any], *, monte_carlo_n: int | None = None,
           predictions: dict | None = None, doc: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The placement result of the file ``path`` with ``edits`` applied (``doc``: the file as already read)."""
    from .model import placement_from_dict
    from .summary import analyze

    p = Path(path)
    base = dict(doc) if doc is not None else read_doc(p)
    pl = placement_from_dict(apply_edits(base, edits), source=str(p), folder=p.parent)
    return analyze(pl, monte_carlo_n=monte_carlo_n, predictions=predictions)
