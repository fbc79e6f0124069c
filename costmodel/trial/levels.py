"""A window's long-run level as between-stall rate plus stall cost, and the variance of its log.

The level a longer run of the same job gets is work over time *including* its stalls (checkpoints,
epoch boundaries). Over a window of rows with work ``w`` and seconds ``d``:

- stalls are the isolated slow rows (:func:`costmodel.warmup.renewal.find_renewal`: more than 3x the
  median time per unit of work, no other slow row near them);
- ``u_b`` = seconds per unit of work between the stalls; its long-run (autocorrelation-aware) error by
  :func:`costmodel.warmup.longrun_ratio_se`;
- each stall's excess ``e_j`` = its seconds beyond what its work takes at ``u_b``;
- with a stall period ``P`` (steps; the co-located run's schedule) the stall cost per unit of work is
  ``mean(e) / W_P`` (``W_P`` the work of one period), which does not depend on the window's phase; without a
  period it is ``sum(e) / sum(w)``;
- level = ``1 / (u_b + stall cost)``; ``var(log level)`` = (share of time between stalls x relative error of
  the between-stall rate)^2 + (level x sd(e) / W_P)^2 / k, with ``sd(e)`` the larger of the window's own
  spread (from 3 stalls) and ``stall_sd_prior_s`` (the co-located run's: the same job's checkpoints).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MIN_BETWEEN_ROWS = 16


@dataclass(frozen=True)
class WindowLevel:
    """The long-run level of a window (work per second) and the variance of its log."""

    level: float
    log_var: float
    between_level: float
    between_rel_se: float
    between_share: float  # share of the time spent between stalls
    stall_steps: tuple[int, ...]
    stall_excess_s: tuple[float, ...]
    stall_sd_s: float | None
    period_steps: float | None
    rows: int
    steps: float
    seconds: float
    work: float

    @property
    def n_stalls(self) -> int:
        return len(self.stall_steps)

    @property
    def log_se(self) -> float:
        return float(np.sqrt(self.log_var))


def steps_per_row(step: np.ndarray) -> float:
    """The median step increment between rows (1 for a log of every step; at least 1)."""
    if len(step) < 2:
        return 1.0
    g = np.diff(np.asarray(step, dtype=float))
    g = g[g > 0]
    return float(max(np.median(g), 1.0)) if len(g) else 1.0


def stall_rows(w: np.ndarray, d: np.ndarray) -> np.ndarray:
    """The mask of the isolated slow rows (stalls) of a window."""
    from ..warmup.renewal import find_renewal

    return np.asarray(find_renewal(w, d).stall_mask, dtype=bool)


def window_level(w: np.ndarray, d: np.ndarray, step: np.ndarray, period_steps: float | None = None,
                 stall_sd_prior_s: float | None = None, stall_mask: np.ndarray | None = None) -> WindowLevel | None:
    """The window's level and ``var(log level)`` (see the module docstring); None when fewer than
    ``MIN_BETWEEN_ROWS`` rows lie between the stalls or their long-run error cannot be estimated."""
    from ..warmup import longrun_ratio_se

    w = np.asarray(w, dtype=float)
    d = np.asarray(d, dtype=float)
    step = np.asarray(step, dtype=float)
    n = len(d)
    if n < MIN_BETWEEN_ROWS:
        return None
    mask = stall_rows(w, d) if stall_mask is None else np.asarray(stall_mask, dtype=bool)
    keep = ~mask
    wk, dk = w[keep], d[keep]
    if keep.sum() < MIN_BETWEEN_ROWS or np.sum(wk) <= 0 or np.sum(dk) <= 0:
        return None
    u_b = float(np.sum(dk) / np.sum(wk))
    lr = longrun_ratio_se(wk, dk)
    if lr is None or not np.isfinite(lr.se):
        return None
    rel_b = float(lr.se) * u_b  # se(R_b) / R_b with R_b = 1 / u_b
    idx = np.flatnonzero(mask)
    exc = [float(d[i] - w[i] * u_b) for i in idx]
    spr = steps_per_row(step)
    steps = float(step[-1] - step[0] + spr)
    work = float(np.sum(w))
    seconds = float(np.sum(d))
    w_step = work / steps if steps > 0 else 0.0
    own_sd = float(np.std(exc, ddof=1)) if len(exc) >= 3 else None
    sd_e = max([x for x in (own_sd, stall_sd_prior_s) if x is not None], default=None)
    if period_steps and period_steps > 0 and w_step > 0:
        w_p = period_steps * w_step
        cost = (float(np.mean(exc)) / w_p) if exc else 0.0
        level = 1.0 / (u_b + cost)
        v_stall = ((level * (sd_e or 0.0) / w_p) ** 2 / len(exc)) if exc else 0.0
    else:
        cost = float(np.sum(exc)) / work if work > 0 else 0.0
        level = 1.0 / (u_b + cost)
        # random stalls: a compound-Poisson count, sum of e^2 over the window's time
        v_stall = float(np.sum(np.square(exc))) / (seconds ** 2) if exc else 0.0
    f_b = level * u_b
    log_var = (f_b * rel_b) ** 2 + v_stall
    return WindowLevel(level=float(level), log_var=float(log_var), between_level=1.0 / u_b, between_rel_se=rel_b,
                       between_share=float(f_b), stall_steps=tuple(int(step[i]) for i in idx),
                       stall_excess_s=tuple(exc), stall_sd_s=sd_e, period_steps=period_steps, rows=n,
                       steps=steps, seconds=seconds, work=work)
