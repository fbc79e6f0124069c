"""A finished log replayed as if it were growing: the watcher's looks at every ``rows_per_look`` rows."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .reference import Reference
from .watcher import Settings, Watcher, final_call, prefix


@dataclass
class Replay:
    """What a replay saw: every event, the final call, and the CPU seconds of each look."""

    events: list[dict[str, Any]]
    final: dict[str, Any]
    watcher: Watcher
    cpu_s: list[float] = field(default_factory=list)


def replay(ref: Reference, run: Any, settings: Settings | None = None, rows_per_look: int = 10,
           final_analysis: bool = True, until_decided: bool = False, warmup_end_step: int | None = None) -> Replay:
    """Look at ``run`` every ``rows_per_look`` rows (and at its end), as ``costmodel watch`` would.

    ``warmup_end_step`` given (a known truth) skips the warm-up call: only the confidence sequence is
    exercised (benchmarks of its error rates over many seeds)."""
    w = Watcher(ref, settings or Settings())
    if warmup_end_step is not None:
        w.warmup_end_step, w.warmup_called_at_step, w.phase = int(warmup_end_step), float(warmup_end_step), "warm"
    n = len(run.table) if hasattr(run, "table") else len(run)
    events: list[dict[str, Any]] = []
    cpu: list[float] = []
    ks = [*range(rows_per_look, n, rows_per_look), n]
    for k in ks:
        t0 = time.process_time()
        events += w.look(prefix(run, k))
        cpu.append(time.process_time() - t0)
        if until_decided and w.call is not None:
            break
    final = final_call(w, prefix(run, w.rows), final_analysis and w.call is None)
    return Replay(events=events, final=final, watcher=w, cpu_s=cpu)
