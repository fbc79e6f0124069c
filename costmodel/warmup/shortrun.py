"""Two small rules that keep segmentation noise from being called a warm-up, each a pure function.

- :func:`startup_stall`: a "warm-up" of the first few steps only (at most ``STARTUP_MAX_STEPS`` steps and
  ``STARTUP_MAX_SHARE`` of the run: CUDA context, compilation, the first batch) is a start-up stall, reported
  as such; the run is flat from there. Cost O(1).
- :func:`late_small_rise`: a rise of less than ``LATE_RISE_MAX`` that the segmentation places in the second half
  of a run (a short run's GPU drift, or noise) is no warm-up: a cold phase is slow from the start and ends early.
  Cost O(1).

Both apply only where no evidence column (data wait, hit ratio, loader bursts) decided the end.
"""
from __future__ import annotations

from typing import Any

STARTUP_MAX_STEPS = 5
STARTUP_MAX_SHARE = 0.01
LATE_RISE_MAX = 0.03


def startup_stall(end_step: int, n_steps: int) -> dict[str, Any] | None:
    """The start-up stall's evidence when a warm-up of ``end_step`` steps is one, else None."""
    if end_step <= 0 or end_step > STARTUP_MAX_STEPS or end_step > STARTUP_MAX_SHARE * n_steps:
        return None
    return {"end_step": end_step,
            "rule": f"a slow start of {end_step} step(s) (at most {STARTUP_MAX_STEPS} steps and "
                    f"{STARTUP_MAX_SHARE:.0%} of the run): a start-up stall (initialisation, compilation, first "
                    "batch), not a warm-up"}


def late_small_rise(end_index: int, n: int, cold_level: float, steady_level: float) -> dict[str, Any] | None:
    """The evidence when a rise is small and late (no warm-up), else None."""
    if n <= 0 or end_index <= n // 2 or not steady_level or cold_level <= 0:
        return None
    rise = steady_level / cold_level - 1.0
    if rise >= LATE_RISE_MAX:
        return None
    return {"rise": rise, "end_index": end_index,
            "rule": f"the level rises by {rise:.1%} (< {LATE_RISE_MAX:.0%}) only in the second half of the run: "
                    "a drift or noise, not a warm-up (a cold phase is slow from the start and ends early)"}
