"""Start-up stalls: a long first step or first few rows before a flat run are a stall, not a warm-up.

Compilation (``torch.compile``, XLA), the CUDA context, cuDNN autotuning or a data loader spinning up its
workers make the first step(s) of a run much slower than the rest; from the next step on the run is at its
level. That is a *start-up stall*: a fixed cost paid once, reported with the seconds it lost, never a warm-up
end (a cold cache phase is slow from the start and comes back to the level gradually, over many steps).

:func:`find_startup_stall` (pure, O(n)) calls the first ``j`` rows a start-up stall when

* they lie within the first ``max(STARTUP_SPAN_STEPS, STARTUP_SPAN_SHARE x run)`` steps (on a log with a row
  every N steps: the first row whose span is within that),
* the last of them runs below ``1 - STALL_DROP`` of the level after them (on rows every N steps, the larger of
  that level and the rows' median: rows holding a checkpoint stall lower the first, not the second) (and below
  that level by more than ``STALL_NOISE_SD`` robust standard deviations of the rows after them), and
* the rows right after them are already at the level: work over time of rows ``[j, max(end, j + W))``
  (``W = max(10 rows, 5 % of the run)``; ``end`` = the segmentation's warm-up end) is within
  ``max(1 %, 3 standard errors)`` of the level of the rest of the run (on rows every N steps, or the rows'
  medians within 1 % and each of the next 3 rows at that level: a row holding a checkpoint stall lowers the rest's
  work over time, not its median; a cold phase keeps the next rows slow).

The stall's lost seconds are ``sum(d[:j]) - sum(w[:j]) / level``: its time less the time its work would take
at the level after it. :func:`rule_startup_stall` applies it to a flat run or a warm-up that no evidence column
(data wait, hit ratio, loader bursts) decided: the run is ``flat``, its steady window starts after the stall,
and ``evidence["startup_stall"]`` holds the stall. Registered in :data:`costmodel.warmup.analyze.RULES`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .series import Series

STARTUP_SPAN_STEPS = 10  # a start-up stall lies within the first 10 steps ...
STARTUP_SPAN_SHARE = 0.01  # ... or the first 1 % of the run, whichever is longer
STALL_DROP = 0.2  # a stall row runs at least 20 % below the level after it ...
STALL_NOISE_SD = 6.0  # ... and more than 6 robust standard deviations of the rows after it below it
AFTER_ROWS = 10  # the rows right after the stall (at least 10, or 5 % of the run) are already at the level
AFTER_SHARE = 0.05
COARSE_NEXT = 3  # rows every N steps: the 3 rows after the stall are each at the level
FLAT_TOL = 0.01  # ... within 1 % (or 3 standard errors, whichever is wider) of the rest of the run


def _robust_sd(y: np.ndarray) -> float:
    med = float(np.median(y))
    return 1.4826 * float(np.median(np.abs(y - med)))


def _coarse(s: Series, n: int) -> bool:
    """Rows every N > 1 steps (the median step gap)."""
    k_gap = np.diff(s.step[:n])
    return len(k_gap) >= 2 and float(np.median(k_gap)) > 1


def _coarse_medians_agree(s: Series, j: int, k: int, n: int) -> bool:
    """On rows every N steps, a row that holds a checkpoint or epoch stall lowers the work-over-time level of the
    rows after ``k`` while the rows right after the stall hold none: there the rows' medians (stall rows are
    outliers) are compared instead, within ``FLAT_TOL``. Per-step logs: False (their levels decide alone)."""
    if not _coarse(s, n):
        return False
    head, tail = float(np.median(s.y[j:k])), float(np.median(s.y[k:n]))
    if not (tail > 0 and abs(head / tail - 1.0) <= FLAT_TOL):
        return False
    # a cold phase after the first row is still slow on the next rows: each of the next COARSE_NEXT rows is at
    # the level (within 1 % or 3 robust standard deviations of the rows after them)
    tol = max(FLAT_TOL * tail, 3.0 * _robust_sd(s.y[k:n]))
    return bool(np.all(s.y[j:min(j + COARSE_NEXT, k)] >= tail - tol))


def find_startup_stall(s: Series, end: int = 0, hi: int | None = None) -> dict[str, Any] | None:
    """The start-up stall of ``s`` (a higher-is-better series: rates, or steps per second for step times), or
    None. ``end``: the warm-up end the segmentation found (0 for a flat run); ``hi``: the end of the analysed
    part (a flagged tail left out). Keys: ``rows``, ``end_step`` (the first step after the stall), ``duration_s``,
    ``lost_s``, ``level_after`` (in the metric's unit: seconds per step for a step time), ``rule``."""
    n = s.n if hi is None else hi
    if n < 2 * AFTER_ROWS or not s.is_rate:
        return None
    step0 = float(s.step[0])
    total = float(s.step[n - 1]) - step0 + 1.0
    span = max(STARTUP_SPAN_STEPS, STARTUP_SPAN_SHARE * total)
    # the first row covers as many steps as the next (the log's cadence: 1 on a per-step log), at most its step
    first = max(min(float(s.step[1] - s.step[0]), float(s.step[0])), 1.0)
    reach = int(np.searchsorted(s.step[:n] - step0 + first, span, side="right"))  # rows within the span
    reach = min(reach, n // 4)
    if reach == 0:
        return None
    rest = s.y[reach:n]
    level_rest = s.level(reach, n)
    if _coarse(s, n):  # rows every N steps: rows holding a checkpoint stall are outliers of the rows' median
        level_rest = max(level_rest, float(np.median(rest)))
    sd = _robust_sd(rest)
    if not np.isfinite(level_rest) or level_rest <= 0:
        return None
    slow = s.y[:reach] < level_rest * (1.0 - STALL_DROP)
    slow &= s.y[:reach] < level_rest - STALL_NOISE_SD * sd
    if not slow.any():
        return None
    j = int(np.nonzero(slow)[0][-1]) + 1
    w_after = max(AFTER_ROWS, int(AFTER_SHARE * n))
    k = min(max(end, j + w_after), n - AFTER_ROWS)
    if k <= j:
        return None
    head, tail = s.level(j, k), s.level(k, n)
    se = _robust_sd(s.y[j:n]) / np.sqrt(max(k - j, 1))
    tol = max(FLAT_TOL * tail, 3.0 * se)
    level_differs = not (np.isfinite(head) and np.isfinite(tail)) or abs(head - tail) > tol
    if level_differs and not _coarse_medians_agree(s, j, k, n):
        return None
    level = s.level(j, n)
    dur = float(np.sum(s.d[:j]))
    lost = dur - float(np.sum(s.w[:j])) / level
    if lost <= 0:
        return None
    end_step = int(s.step[j]) if j < s.n else int(s.step[-1]) + 1
    steps = int(round(float(s.step[j - 1]) - step0 + first))
    return {"rows": j, "steps": steps, "end_step": end_step, "duration_s": dur, "lost_s": float(lost),
            "level_after": 1.0 / level if s.inverted else level,
            "rule": (f"the first {steps} step(s) ({j} row(s)) took {dur:.3g} s, {lost:.3g} s more than at the level "
                     "of the run after them, and the run is at that level from the next row on: a start-up stall "
                     "(compilation, initialisation, data loader start), not a warm-up")}


def rule_startup_stall(f: Any) -> None:
    """The estimator's rule (runs after ``bias_window``): a start-up stall before a flat run makes the run ``flat``
    with ``evidence["startup_stall"]`` and its steady window after the stall. O(n)."""
    s = f.s
    if f.cls not in ("flat", "warmup") or f.decided is not None or f.mirrored or f.res is None:
        return
    if s.inverted and s.metric != "step_time_s":
        return
    found = find_startup_stall(s, f.i_end if f.cls == "warmup" else 0, f.hi)
    if found is None:
        return
    f.evidence["startup_stall"] = found
    if f.cls == "warmup" or "end_step" in (f.evidence.get("not_a_warmup") or {}):
        f.evidence["rule"] = found["rule"]
    if f.cls == "warmup":
        f.res.classification = f.cls = "flat"
        f.chosen = None
    f.i_end = 0
    f.i_s = max(found["rows"], 0)
    f.resid_bias_rel = 0.0
    f.trace.append("startup_stall")
