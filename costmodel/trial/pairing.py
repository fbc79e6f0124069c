"""The ratio of a trial window to the reference with their stalls paired by step.

When both sides stall on one schedule (the same job's checkpoints: the stalls fall at the same steps),
a stall's cost on one side is compared with the other side's stall at the same step, as
:func:`costmodel.warmup.stallsplit.split_se` does for whole logs: a checkpoint that grows from one to the
next on both sides is no noise. theta = log(remote level / co-located level) over the paired stalls;
its variance has three parts:

- the remote between-stall rate (share of time between stalls x its relative long-run error)^2;
- the paired stall costs: var_j(g_r e_r,j - g_c e_c,j) / m, ``g`` = 1 / (seconds of one period) (at
  least ``MIN_PAIRS`` pairs: the spread of fewer is no estimate);
- the reference's between-stall rate, a finished run's error (reported apart: it is not monitored).

Without a common schedule the levels are unpaired (:mod:`costmodel.trial.levels`), each side with its
own stall spread, and at least ``MIN_PAIRS`` stalls on the remote side.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .levels import WindowLevel

MIN_PAIRS = 3
PAIR_TOL = 0.02  # as stallsplit: stalls pair when their steps differ by at most 2 % of the period


@dataclass(frozen=True)
class Theta:
    theta: float
    var_monitored: float  # the remote side's part (and the paired stall part): under the mixture boundary
    var_fixed: float  # the reference's own error: fixed while the trial runs
    pairs: int
    stalls: int
    how: str


def _period_s(wl: WindowLevel) -> float:
    assert wl.period_steps
    return float(wl.period_steps * wl.work / wl.steps / wl.level)


def _between_theta(r: WindowLevel, c: WindowLevel, how: str) -> Theta:
    return Theta(theta=math.log(r.level / c.level), var_monitored=r.log_var, var_fixed=c.log_var,
                 pairs=0, stalls=r.n_stalls, how=how)


def theta_of(r: WindowLevel, c: WindowLevel, steps_per_row: float = 1.0, min_pairs: int = MIN_PAIRS) -> Theta | None:
    """theta and its variance parts for a remote window ``r`` against the reference window ``c``; None when
    the stalls needed are not there yet (fewer than ``min_pairs`` on a side that stalls; below 2 the paired
    spread is NaN: an analysis of how early a call could be passes 1 and brings its own variance)."""
    if not (c.period_steps and c.n_stalls >= 2):
        return _between_theta(r, c, "no recurring stalls on the co-located side: levels compared as they are")
    if r.n_stalls < min_pairs:
        return None
    tol = PAIR_TOL * c.period_steps + steps_per_row
    cs = np.asarray(c.stall_steps, dtype=float)
    pairs: list[tuple[float, float]] = []
    for s, e in zip(r.stall_steps, r.stall_excess_s, strict=True):
        j = int(np.argmin(np.abs(cs - s)))
        if abs(cs[j] - s) <= tol:
            pairs.append((e, c.stall_excess_s[j]))
    if len(pairs) < min_pairs or len(pairs) < 0.75 * r.n_stalls:
        return _between_theta(r, c, "unpaired: the stalls do not fall at the same steps on both sides")
    g_r, g_c = 1.0 / _period_s(r), 1.0 / _period_s(c)
    diffs = np.array([g_r * er - g_c * ec for er, ec in pairs])
    # the levels over the paired stalls: between-stall rate plus the mean of the paired stall costs
    w_pr = r.period_steps * r.work / r.steps if r.period_steps else c.period_steps * r.work / r.steps
    w_pc = c.period_steps * c.work / c.steps
    u_r, u_c = 1.0 / r.between_level, 1.0 / c.between_level
    lev_r = 1.0 / (u_r + float(np.mean([e for e, _ in pairs])) / w_pr)
    lev_c = 1.0 / (u_c + float(np.mean([e for _, e in pairs])) / w_pc)
    v_pair = float(np.var(diffs, ddof=1)) / len(diffs) if len(diffs) >= 2 else float("nan")
    v_r = (r.between_share * r.between_rel_se) ** 2
    v_c = (c.between_share * c.between_rel_se) ** 2
    return Theta(theta=math.log(lev_r / lev_c), var_monitored=v_r + v_pair, var_fixed=v_c, pairs=len(pairs),
                 stalls=r.n_stalls, how=f"paired by step ({len(pairs)} stalls at the same steps on both sides)")
