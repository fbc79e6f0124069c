"""The anytime-valid confidence sequence of the trial: Robbins' normal-mixture boundary.

For a martingale ``S_t`` with (intrinsic) variance ``V_t`` and a Gaussian mixing distribution of
precision ``rho`` over the exponential supermartingale ``exp(lambda S - lambda^2 V / 2)``, Ville's
inequality gives, for every time at once (Robbins 1970; Howard, Ramdas, McAuliffe & Sekhon 2021,
"Time-uniform, nonparametric, nonasymptotic confidence sequences", the two-sided normal mixture)::

    P( exists t: |S_t| >= sqrt((V_t + rho) * (log((V_t + rho) / rho) + 2 log(1 / alpha))) ) <= alpha

On the scale of a mean with standard error ``se`` (``V = t sigma^2``, ``se^2 = sigma^2 / t``) the
half-width is ``se * B(r, alpha)`` with ``r = V / rho`` and
``B(r, alpha) = sqrt((1 + 1/r) (log(1 + r) + 2 log(1/alpha)))``: it depends on the data only through
``r``, which grows with the rows seen. ``rho`` is chosen so that the boundary is tightest at a planned
length (``r = R_AT_PLAN`` there: ``B`` is within 1 % of its minimum over a wide range around it).
With a plug-in long-run variance this is the asymptotic confidence sequence of Waudby-Smith, Arnold,
Wu, Wang & Ramdas (2021, "Time-uniform central limit theory and asymptotic confidence sequences"):
valid under continuous monitoring, however often one looks, unlike a fixed-sample interval (or TOST)
repeated at every look, whose error rate grows with the number of looks.
"""
from __future__ import annotations

import functools
import math

#: r = V / rho at the planned length: B(r, 0.04) is within 1 % of its minimum for r in about 4-20
R_AT_PLAN = 8.0


def mixture_factor(r: float, alpha: float) -> float:
    """``B(r, alpha)``: the half-width of the normal-mixture confidence sequence in standard errors.

    ``r`` > 0 is the intrinsic time over ``rho``; ``alpha`` in (0, 1) the error over all looks.
    Raises ValueError outside those ranges."""
    if not (r > 0 and 0 < alpha < 1):
        raise ValueError(f"need r > 0 and alpha in (0, 1); got r={r}, alpha={alpha}")
    return math.sqrt((1.0 + 1.0 / r) * (math.log1p(r) + 2.0 * math.log(1.0 / alpha)))


def one_sided_factor(r: float, alpha: float) -> float:
    """The one-sided normal mixture (a half-normal mixing distribution; Howard et al. 2021, Prop. 6):
    ``P(exists t: S_t >= se * B1(r, alpha)) <= alpha`` with
    ``B1 = sqrt((1 + 1/r) * 2 log(sqrt(1 + r) / (2 alpha) + 1))``. Each bound of the trial's interval uses it,
    so a false call on either side has probability at most ``alpha`` (plus the reference's share)."""
    if not (r > 0 and 0 < alpha < 1):
        raise ValueError(f"need r > 0 and alpha in (0, 1); got r={r}, alpha={alpha}")
    return math.sqrt((1.0 + 1.0 / r) * 2.0 * math.log(math.sqrt(1.0 + r) / (2.0 * alpha) + 1.0))


def r_at(rows: float, plan_rows: float) -> float:
    """``r`` after ``rows`` steady rows when the boundary is tuned for ``plan_rows`` (both > 0)."""
    return R_AT_PLAN * max(rows, 1e-9) / max(plan_rows, 1e-9)


def t_cdf(x: float, df: int) -> float:
    """Student's t distribution function for an integer ``df >= 1`` (the closed form by ``atan``; Abramowitz &
    Stegun 26.7.3-4): pure Python, so a look of the watch does not import scipy.stats (about 1.5 s of CPU)."""
    if df < 1 or int(df) != df:
        raise ValueError(f"need an integer df >= 1; got {df}")
    df = int(df)
    th = math.atan(abs(x) / math.sqrt(df))
    c2, total, term = math.cos(th) ** 2, 1.0, 1.0
    if df % 2:
        for k in range(1, (df - 1) // 2):
            term *= 2 * k / (2 * k + 1) * c2
            total += term
        a = 2 / math.pi * (th + (math.sin(th) * math.cos(th) * total if df > 1 else 0.0))
    else:
        for k in range(1, df // 2):
            term *= (2 * k - 1) / (2 * k) * c2
            total += term
        a = math.sin(th) * total
    return 0.5 + math.copysign(a / 2, x)


@functools.lru_cache(maxsize=256)
def studentized_factor(df: float, p: float = 0.95) -> float:
    """``t_df(p) / z(p)`` (>= 1): how much wider a spread estimated with ``df`` degrees of freedom makes a bound
    than a known one. The watch (``Settings.studentize_pairs``, on by default) and the plan multiply the paired
    stall costs' standard error by it; with ``p = 0.95`` the plug-in boundary's false rate falls from about 7 %
    to 2.5-3.9 % (simulated; BENCHMARKS.md). Integer ``df`` (pairs - 1) by bisection on :func:`t_cdf`; other
    ``df`` by :func:`costmodel.numeric.student_t.t_ppf`. Raises ValueError for ``df <= 0`` or ``p`` outside (0.5, 1)."""
    from statistics import NormalDist

    if not df > 0:
        raise ValueError(f"need df > 0; got {df}")
    if not 0.5 < p < 1:
        raise ValueError(f"need 0.5 < p < 1; got {p}")
    if int(df) == df:
        lo, hi = 0.0, 1.0
        while t_cdf(hi, int(df)) < p:
            lo, hi = hi, 2 * hi
        for _ in range(200):
            mid = (lo + hi) / 2
            if t_cdf(mid, int(df)) < p:
                lo = mid
            else:
                hi = mid
            if hi - lo <= 1e-13 * hi:
                break
        q = (lo + hi) / 2
    else:
        from ..numeric.student_t import t_ppf

        q = t_ppf(p, df)
    return float(max(q / NormalDist().inv_cdf(p), 1.0))


def z_two_sided(alpha: float) -> float:
    """The normal quantile ``z_{1 - alpha/2}`` (a fixed-sample two-sided interval at level 1 - alpha)."""
    from statistics import NormalDist

    return float(NormalDist().inv_cdf(1.0 - alpha / 2.0))


def z_one_sided(p: float) -> float:
    """The normal quantile ``z_p``."""
    from statistics import NormalDist

    return float(NormalDist().inv_cdf(p))
