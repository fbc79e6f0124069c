"""A steady state with periodic stalls as between-stall rate plus stall cost (a renewal-reward level).

Over the steady region [lo, hi) of a run whose stalls recur every P steps (checkpoints): the
between-stall time per unit of work ``u_b`` (rows outside the stalls) and each stall's excess time
``e_j`` (its time beyond what its work takes at ``u_b``). The long-run level is
``1 / (u_b + mean(e) / W_P)``, ``W_P`` the work of one period: it uses every steady row and every
stall, whatever phase the region starts in. Its uncertainty has two parts that :func:`split_se` adds:
the between-stall rate's long-run error (many rows, small) and the stall cost's (few stalls, each
with its own duration: the error of their mean, t with k - 1 df).

:func:`split_se` compares two runs: when their stalls fall at the same steps (one job's checkpoint
schedule on both sides) the stall costs are paired by step, so a cost that grows from one checkpoint
to the next on both sides (file system, page cache) is not counted as noise; otherwise unpaired.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .period import Period
from .series import Series
from .stats import longrun_ratio_se, ratio_ci

PAIR_TOL = 0.02  # stalls pair when their steps differ by at most 2 % of the period


def stall_split(s: Series, per: Period, extra_stalls: np.ndarray | None, lo: int, hi: int) -> dict[str, Any] | None:
    """The between-stall rate and the stall costs over [lo, hi) (None: fewer than 2 stalls there)."""
    ev = [(a, b) for a, b in per.events if lo <= a < hi and a > 0]  # the first row's start-up is no stall
    if len(ev) < 2 or per.mask is None:
        return None
    mask = per.mask.copy()
    if extra_stalls is not None:
        mask |= extra_stalls
    keep = ~mask[lo:hi]
    w, d = s.w[lo:hi], s.d[lo:hi]
    wk, dk = w[keep], d[keep]
    if keep.sum() < 16 or np.sum(wk) <= 0:
        return None
    u_b = float(np.sum(dk) / np.sum(wk))
    lr = longrun_ratio_se(wk, dk)
    if lr is not None:
        se_b, df_b = float(lr.se), float(lr.df)
    else:
        ci = ratio_ci(wk, dk)
        if ci is None:
            return None
        se_b, df_b = float(ci.se), float(ci.df)
    exc = [float(np.sum(s.d[a:b]) - np.sum(s.w[a:b]) * u_b) for a, b in ev]
    steps = float(s.step[hi - 1] - s.step[lo] + 1)
    w_p = per.period_steps * float(np.sum(w)) / steps if steps > 0 else 0.0
    if w_p <= 0:
        return None
    e_mean = float(np.mean(exc))
    level = 1.0 / (u_b + e_mean / w_p)
    # the level's own error: the between-stall part plus the mean stall cost's (k - 1 df), unpaired
    v_b = (level * u_b * se_b * u_b) ** 2  # (share of time between stalls x relative error of the rate)^2
    v_s = (level / w_p * float(np.std(exc, ddof=1))) ** 2 / len(exc)
    den = v_b * v_b / max(df_b, 1.0) + v_s * v_s / (len(exc) - 1)
    return {
        "level": level,
        "between_mean": 1.0 / u_b,
        "between_se": se_b,
        "between_df": df_b,
        "period_steps": per.period_steps,
        "period_time_s": w_p / level,
        "work_per_period": w_p,
        "stall_steps": [int(s.step[a]) for a, _ in ev],
        "stall_excess_s": exc,
        "stall_mean_s": e_mean,
        "stall_sd_s": float(np.std(exc, ddof=1)),
        "level_se": float(level * np.sqrt(v_b + v_s)),
        "level_df": float((v_b + v_s) ** 2 / den) if den > 0 else float("inf"),
        "from_step": int(s.step[lo]),
        "to_step": int(s.step[hi - 1]),
        "method": "1 / (between-stall time per unit of work + mean stall excess / work per period), every steady "
                  "row and every stall of the region",
    }


def signature_period(step: np.ndarray, starts: list[int], max_cv: float = 0.05) -> Period | None:
    """A :class:`Period` from one-row stalls found by their signature (``starts``: their indices), for the
    stall split only (the fit's class and window keep ``find_period``'s verdict): at least 3 stalls
    whose gaps in steps are as regular as a schedule (CV <= ``max_cv``); None otherwise."""
    if len(starts) < 3:
        return None
    st = step.astype(float)
    gaps = np.diff(st[starts])
    if np.mean(gaps) <= 0 or float(np.std(gaps) / np.mean(gaps)) > max_cv:
        return None
    mask = np.zeros(len(step), dtype=bool)
    mask[starts] = True
    return Period(period_steps=float(np.median(gaps)), period_obs=float(np.median(np.diff(starts))),
                  cv=float(np.std(gaps) / np.mean(gaps)), anchors=list(starts),
                  events=[(a, a + 1) for a in starts], mask=mask)


def _welch(parts: list[tuple[float, float]]) -> float:
    v = sum(x for x, _ in parts)
    den = sum(x * x / max(df, 1.0) for x, df in parts if x > 0)
    return float(v * v / den) if den > 0 else float("inf")


def split_se(c: dict[str, Any], r: dict[str, Any]) -> dict[str, Any]:
    """log(remote level / co-located level) from two stall splits, its standard error and df.

    Parts: each side's between-stall rate (relative error times the share of time between stalls) and
    the stall costs (paired by step when at least 3 stalls line up, else each side's own spread).
    """
    theta = float(np.log(r["level"] / c["level"]))
    parts: list[tuple[float, float]] = []
    for x in (c, r):
        f_b = x["level"] / x["between_mean"]  # share of the time spent between stalls
        rel = x["between_se"] / x["between_mean"]
        parts.append(((f_b * rel) ** 2, x["between_df"]))
    g_c, g_r = 1.0 / c["period_time_s"], 1.0 / r["period_time_s"]
    tol = PAIR_TOL * max(c["period_steps"], r["period_steps"])
    pairs = []
    for sc, ec in zip(c["stall_steps"], c["stall_excess_s"], strict=False):
        for sr, er in zip(r["stall_steps"], r["stall_excess_s"], strict=False):
            if abs(sc - sr) <= tol:
                pairs.append(g_r * er - g_c * ec)
                break
    if len(pairs) >= 3:
        m = len(pairs)
        v_st = float(np.var(pairs, ddof=1)) / m
        parts.append((v_st, float(m - 1)))
        how = f"paired by step ({m} stalls at the same steps on both sides)"
    else:
        for g, x in ((g_c, c), (g_r, r)):
            k = len(x["stall_excess_s"])
            parts.append(((g * x["stall_sd_s"]) ** 2 / k, float(k - 1)))
        how = "unpaired (the stalls do not fall at the same steps)"
    se = float(np.sqrt(sum(v for v, _ in parts)))
    return {"theta": theta, "se": se, "df": _welch(parts),
            "se_between_log": float(np.sqrt(parts[0][0] + parts[1][0])),
            "se_stall_log": float(np.sqrt(sum(v for v, _ in parts[2:]))),
            "stall_pairing": how,
            "colocated_level": c["level"], "remote_level": r["level"]}
