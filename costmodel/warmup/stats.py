"""Steady-state statistics: integrated autocorrelation time and a batch-means CI of a ratio of sums.

The level of a window is ``R = sum(w) / sum(d)`` (samples over seconds). Its standard error comes
from non-overlapping batch means of the ratio estimator: ``b`` batches (10..30) of at least
``10 * tau_int`` observations each, ``SE^2 = sum_b (W_b - R * D_b)^2 / (b (b - 1) mean(D)^2)``, and
the CI uses Student's t with ``b - 1`` degrees of freedom. The standard error is floored by the one
an AR(1) with the observed lag-1 correlation implies (``sd * sqrt(tau_AR / n)``), because batch means
of finite size under-estimate it slightly under strong autocorrelation. This stays honest under autocorrelation
(AR(1) up to 0.8 in the benchmark), where an iid standard error under-covers badly.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..foundation.fields_json import FieldsJson
from ..numeric.memo import LastResults

CHUNK = 1 << 15  # tau_int of longer series averages the autocovariances of chunks of this length
#: the last autocorrelation times (a window's level and its CI with ten batches ask for the same residuals')
_last_tau = LastResults(entries=4)


def tau_int(x: np.ndarray, c: float = 5.0) -> float:
    """Integrated autocorrelation time ``1 + 2 sum rho_k`` with Sokal's automatic window (FFT, O(n log n))."""
    x = np.asarray(x, dtype=float)
    kept = _last_tau.get(x, c)
    if kept is None:
        kept = _tau_int(x, c)
        _last_tau.put(x, c, kept)
    return float(kept)


def _tau_int(x: np.ndarray, c: float) -> float:
    n = len(x)
    if n < 8:
        return 1.0
    x = x - x.mean()
    var = float(np.dot(x, x) / n)
    if var <= 0:
        return 1.0
    if n > CHUNK:
        # long series: average the autocovariances of chunks (Welch-style), O(n log CHUNK) instead of
        # one FFT of the whole series; lags beyond a chunk are irrelevant for a window of c * tau
        k = n // CHUNK
        xs = x[: k * CHUNK].reshape(k, CHUNK)
        f = np.fft.rfft(xs, 2 * CHUNK, axis=1)
        acov = np.fft.irfft(f * np.conj(f), 2 * CHUNK, axis=1)[:, :CHUNK].sum(axis=0) / (k * CHUNK)
        acf = acov / var
        n = CHUNK
    else:
        size = 1 << int(np.ceil(np.log2(2 * n)))
        f = np.fft.rfft(x, size)
        acf = np.fft.irfft(f * np.conj(f), size)[:n] / (n * var)
    taus = 2.0 * np.cumsum(acf) - 1.0
    m = np.arange(n)
    ok = m >= c * taus
    if not ok.any():
        return float(max(1.0, taus[-1]))
    return float(max(1.0, taus[int(np.argmax(ok))]))


@dataclass
class RatioCI(FieldsJson):
    """A ratio-of-sums level with its batch-means confidence interval."""

    mean: float
    se: float
    ci_low: float
    ci_high: float
    df: int
    n_batches: int
    batch_size: int
    tau_int: float
    n: int
    cv: float
    level: float = 0.95


def ratio_ci(w: np.ndarray, d: np.ndarray, y: np.ndarray | None = None, level: float = 0.95,
             min_batches: int = 10, max_batches: int = 30) -> RatioCI | None:
    """Level ``sum(w)/sum(d)`` and its CI by batch means; None when there are fewer than 8 points.

    ``y`` (per-observation rates, default ``w/d``) is only used for the coefficient of variation.
    """
    from ..numeric import stats

    w = np.asarray(w, dtype=float)
    d = np.asarray(d, dtype=float)
    n = len(w)
    if n < 8 or float(np.sum(d)) <= 0:
        return None
    R = float(np.sum(w) / np.sum(d))
    e = w - R * d
    ec = e - e.mean()
    var_e = float(np.dot(ec, ec) / n)
    phi = float(np.dot(ec[:-1], ec[1:]) / (n * var_e)) if var_e > 0 else 0.0
    phi = float(np.clip(phi, 0.0, 0.99))
    tau_ar = (1.0 + phi) / (1.0 - phi)  # tau_int of an AR(1) with the observed lag-1 correlation
    tau = max(tau_int(e), tau_ar)
    b = int(np.clip(np.floor(n / (10.0 * tau)), min_batches, max_batches))
    b = min(b, n // 2)
    m = n // b
    # drop the oldest remainder so that batches are equal and the newest data are kept
    off = n - b * m
    W = w[off:].reshape(b, m).sum(axis=1)
    D = d[off:].reshape(b, m).sum(axis=1)
    Dm = float(D.mean())
    res = W - R * D
    se = float(np.sqrt(np.sum(res**2) / (b * (b - 1))) / Dm) if b > 1 else float("inf")
    # floor: the AR(1)-implied standard error (batch means of finite size under-estimate slightly)
    se_ar = float(np.sqrt(var_e * tau_ar / n) / float(np.mean(d)))
    se = max(se, se_ar)
    t = float(stats.t.ppf(0.5 + level / 2.0, b - 1))
    yy = y if y is not None else np.where(d > 0, w / np.where(d > 0, d, 1.0), np.nan)
    mu = float(np.nanmean(yy))
    cv = float(np.nanstd(yy, ddof=1) / mu) if mu != 0 and n > 1 else float("nan")
    return RatioCI(
        mean=R,
        se=se,
        ci_low=R - t * se,
        ci_high=R + t * se,
        df=b - 1,
        n_batches=b,
        batch_size=m,
        tau_int=tau,
        n=n,
        cv=cv,
        level=level,
    )


@dataclass
class LongRunSE(FieldsJson):
    """Standard error of a ratio-of-sums level from a long-run variance estimator."""

    se: float
    df: float
    method: str
    batch_size: int
    n_stalls: int = 0
    n_jumps: int = 0
    period_obs: float | None = None
    var_parts: dict[str, float] | None = None


def _obm_var_sum(e: np.ndarray, tau: float) -> tuple[float, float, int]:
    """Variance of ``sum(e)`` by overlapping batch means (see :func:`costmodel.warmup.longrun_var.obm_var_sum`)."""
    from .longrun_var import obm_var_sum

    return obm_var_sum(e, tau)


def longrun_ratio_se(w: np.ndarray, d: np.ndarray, stall_mask: np.ndarray | None = None) -> LongRunSE | None:
    """Standard error of ``R = sum(w) / sum(d)`` fit for autocorrelated series with stalls.

    The residuals ``e = w - R d`` carry the noise; ``Var(sum e)`` is the continuous (autocorrelated)
    part by overlapping batch means plus the jumps (stalls, stragglers) counted apart: periodic stalls
    by their amplitude spread (their number is fixed by the window), random ones as a compound-Poisson
    count; Welch-Satterthwaite degrees of freedom (:mod:`costmodel.warmup.longrun_var`).
    ``stall_mask`` marks the stalls of a window of whole periods. ``SE = sqrt(Var(sum e)) / sum(d)``.
    None with fewer than 8 points.
    """
    from .longrun_var import longrun_var_sum

    w = np.asarray(w, dtype=float)
    d = np.asarray(d, dtype=float)
    n = len(w)
    if n < 8 or float(np.sum(d)) <= 0:
        return None
    R = float(np.sum(w) / np.sum(d))
    e = w - R * d
    # autocorrelation of the noise, measured on the winsorised residuals (a stall is not correlation)
    med = float(np.median(e))
    sig = 1.4826 * float(np.median(np.abs(e - med)))
    ew = np.clip(e, med - 6.0 * sig, med + 6.0 * sig) if sig > 0 else e
    if stall_mask is not None and stall_mask.any():
        ew = np.where(stall_mask, med, ew)
    ec = ew - ew.mean()
    var_e = float(np.dot(ec, ec) / n)
    phi = float(np.dot(ec[:-1], ec[1:]) / (n * var_e)) if var_e > 0 else 0.0
    phi = float(np.clip(phi, 0.0, 0.99))
    tau_ar = (1.0 + phi) / (1.0 - phi)
    tau = max(tau_int(ew), tau_ar)
    lv = longrun_var_sum(e, tau, tau_ar, stall_mask=stall_mask, med_sig=(med, sig))  # the same e: its median and MAD
    se = float(np.sqrt(max(lv.var_sum, 0.0)) / np.sum(d))
    return LongRunSE(se=se, df=float(lv.df), method=lv.method, batch_size=lv.batch_size,
                     n_stalls=lv.n_periodic, n_jumps=lv.n_events - lv.n_periodic,
                     period_obs=lv.period_obs, var_parts=lv.parts)
