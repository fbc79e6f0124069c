"""A run that resumes from a checkpoint: its steps go back, its clock jumps on; the run is continued, the gap named."""
from __future__ import annotations

from typing import Any

import numpy as np

MAX_RESUME_NOTES = 20


def name_resumes(replayed: np.ndarray, rejected: np.ndarray, t: np.ndarray, sv: np.ndarray, line_of: Any,
                 metadata: dict[str, Any], source: str) -> tuple[np.ndarray, list[str]]:
    """Continue a run that resumes from a checkpoint (a relaunch replays steps already logged, ``replayed`` rows,
    which the caller rejects) and name each resume in ``metadata.resumes``: the last row before it, the first
    replayed row, ``gap_s`` (the clock from the one to the other: downtime and that row's own interval) and
    ``left_out_s``, the clock's time from the last row before to the last replayed row (downtime and replayed
    work), which is taken out of ``t`` from the next kept row on, so that row lasts what it lasted after the last
    replayed row. Only where the clock goes on across the resume (else it is disorder, left to the caller).
    Returns the clock (a new array when a resume is found) and the warnings."""
    starts = np.flatnonzero(replayed & ~np.concatenate(([False], replayed[:-1])))
    ends = np.flatnonzero(replayed & ~np.concatenate((replayed[1:], [False])))
    kept = np.flatnonzero(~rejected)
    found: list[dict[str, Any]] = []
    t = np.array(t, dtype=float)
    for i, k in zip(starts[:MAX_RESUME_NOTES], ends[:MAX_RESUME_NOTES], strict=True):
        at = int(np.searchsorted(kept, i))
        if at == 0:
            continue
        j = int(kept[at - 1])
        if not (np.isfinite(t[i]) and np.isfinite(t[j]) and np.isfinite(t[k]) and t[i] > t[j] and t[k] >= t[i]):
            continue
        left_out = float(t[k] - t[j])
        found.append({"after_step": int(sv[j]), "resumed_at_step": int(sv[i]), "line": line_of(int(i)),
                      "gap_s": float(t[i] - t[j]), "left_out_s": left_out, "replayed_rows": int(k - i + 1),
                      "note": "a resumed run: the steps go back to a checkpoint and are logged again (rejected); gap_s "
                              "is the clock from the last row before the resume to the first row after it (downtime "
                              "and that row's own interval); left_out_s (downtime and replayed steps) is taken out of "
                              "the later times, so the run continues"})
        t[k + 1:] -= left_out
    if not found:
        return t, []
    metadata["resumes"] = found
    where = "; ".join(f"after step {f['after_step']} (resumed at step {f['resumed_at_step']}"
                      + (f", line {f['line']}" if f["line"] else "") + f"): gap {f['gap_s']:.1f} s" for f in found[:5])
    msg = (f"{source}: the run resumes {len(found)} time(s), {where}; the replayed steps are rejected and the run "
           "is continued: the downtime and the replayed steps' time are left out of the later elapsed times "
           "(metadata resumes)")
    return t, [msg]
