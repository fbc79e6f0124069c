"""Throughput from step time: ``samples_per_s = batch / step_time_s``, ``tokens_per_s = tokens_per_step / step_time_s``.

Step-time logs (Megatron, NeMo, TensorFlow ``step = 100 (32.790 sec)``, a CSV of ``step_time_ms``) give no
throughput by themselves. The batch comes from, in this order: ``--batch-size N`` (samples per step, the
global batch over all ranks), a per-row ``samples`` column (the log's own ``global batch size`` on each
line), or the run's metadata ``global_batch_size`` (MLLOG, Megatron/NeMo headers). A run that already has
the throughput keeps it (the option is then ignored, with a warning). Pure functions on numpy columns.
"""
from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, TypeGuard

import numpy as np

#: metadata keys a reader may fill with the batch size the log states (samples per step, all ranks)
STATED_BATCH_KEYS = ("global_batch_size", "batch_size")


def _finite_any(a: np.ndarray | None) -> TypeGuard[np.ndarray]:
    return a is not None and bool(np.isfinite(a).any())


def derive_throughput(cols: MutableMapping[str, np.ndarray], metadata: MutableMapping[str, Any], *, source: str,
                      batch_size: float | None = None, tokens_per_step: float | None = None) -> list[str]:
    """Fill ``samples_per_s`` / ``tokens_per_s`` in ``cols`` (Timeline name -> float64 array) from ``step_time_s``.

    Updates ``cols`` and ``metadata`` (``samples_per_s_from`` / ``tokens_per_s_from`` say how) in place and
    returns warnings. Rows without a step time get NaN. Nothing is derived when the run has no step time.
    """
    notes: list[str] = []
    st = cols.get("step_time_s")
    if st is None or not _finite_any(st):
        if batch_size is not None or tokens_per_step is not None:
            notes.append(f"{source}: --batch-size/--tokens-per-step ignored: the run has no step_time_s to divide by")
        return notes
    def inv() -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(st > 0, 1.0 / st, np.nan)

    if batch_size is None and tokens_per_step is None and not any(k in metadata for k in STATED_BATCH_KEYS) \
            and not _finite_any(cols.get("samples")):
        return notes  # nothing to derive from (the common case: no per-row work)
    if not _finite_any(cols.get("samples_per_s")):
        stated = next((v for v in (metadata.get(k) for k in STATED_BATCH_KEYS)
                       if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0), None)
        per_row = cols.get("samples")
        if batch_size is not None:
            cols["samples_per_s"] = batch_size * inv()
            metadata["samples_per_s_from"] = f"--batch-size {batch_size:g} / step_time_s"
            if stated is not None and float(stated) != float(batch_size):
                notes.append(f"{source}: the log states a global batch size of {stated:g}; --batch-size {batch_size:g} is used")
            elif _finite_any(per_row) and not np.allclose(per_row[np.isfinite(per_row)], batch_size):
                notes.append(f"{source}: the log states its batch size per line (samples); --batch-size {batch_size:g} is used")
        elif _finite_any(per_row):
            cols["samples_per_s"] = per_row * inv()
            metadata["samples_per_s_from"] = "the log's global batch size per line (samples) / step_time_s"
        elif stated is not None:
            cols["samples_per_s"] = float(stated) * inv()
            metadata["samples_per_s_from"] = f"the log's global batch size {stated:g} / step_time_s"
    elif batch_size is not None:
        notes.append(f"{source}: --batch-size ignored: the run already has samples_per_s")
    if tokens_per_step is not None:
        if _finite_any(cols.get("tokens_per_s")):
            notes.append(f"{source}: --tokens-per-step ignored: the run already has tokens_per_s")
        else:
            cols["tokens_per_s"] = tokens_per_step * inv()
            metadata["tokens_per_s_from"] = f"--tokens-per-step {tokens_per_step:g} / step_time_s"
    return notes


def apply_to_run(run: Any, batch_size: float | None, tokens_per_step: float | None) -> None:
    """:func:`derive_throughput` on a :class:`~costmodel.foundation.schema.Run` (its table is updated in place)."""
    tab = run.table
    if not len(tab):
        return
    cols = {c: tab[c].to_numpy(dtype="float64") for c in ("step_time_s", "samples_per_s", "tokens_per_s", "samples")}
    before = {c: id(a) for c, a in cols.items()}
    notes = derive_throughput(cols, run.metadata, source=run.source, batch_size=batch_size, tokens_per_step=tokens_per_step)
    changed = [c for c, a in cols.items() if id(a) != before.get(c)]
    if changed:
        tab = tab.copy(deep=False)
        for c in changed:
            tab[c] = cols[c]
        run.table = tab
        if any(c == "samples_per_s" for c in changed):
            run.warnings = [w for w in run.warnings if "needs the batch size" not in w]
    run.warnings += notes
