"""Seeded synthetic throughput series with known truth (for tests, benchmarks and docs).

The generator works like a training job: every step processes ``batch`` samples and takes
``d_t = batch / (mu(t) * f(t)) * (1 + x_t)`` seconds, where ``mu`` is the noiseless level curve
(warm-up shape), ``f`` the multiplicative events (periodic dips, 1 % slow-step outliers) and ``x`` an
AR(1) noise with stationary standard deviation ``cv``. The observed throughput is ``batch / d_t``.

The truth it returns:

- ``plateau``: the asymptotic level ``S`` (samples/s) of the final steady state;
- ``plateau_effective``: what a ratio of sums (samples over seconds) converges to over the steady
  window when dips and outliers are counted as real slow steps: ``S`` times the harmonic mean of the
  realised factors ``f`` over the steady window (noise excluded);
- ``warmup_end_step``: the first step from which ``|mu(t) - S| <= 0.01 * S`` holds to the end (the
  project's warm-up-end convention); ``None`` when the series never settles;
- ``classification``: the label by construction.

Example::

    from costmodel.synthetic.shapes import generate
    s = generate(n=5000, shape="exp", warmup_frac=0.2, cv=0.02, ar=0.5, seed=1)
    s.table        # Timeline columns step, t_s, samples_per_s, step_time_s, samples
    s.truth        # SynthTruth(plateau=..., warmup_end_step=..., classification="warmup", ...)
    run = s.to_run("synthetic-1", role="remote")
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..foundation.errors import AnalysisError
from ..foundation.fields_json import FieldsJson

#: Warm-up shapes the generator knows.
SHAPES = ("flat", "exp", "power", "logistic", "ramp", "step")
#: Scenario kinds (the class label by construction is derived from them).
KINDS = ("plain", "slowdown", "invalidation", "no_steady_state", "dips")

EPS = 0.01  # the warm-up-end convention: within 1 % of the plateau


@dataclass
class SynthTruth(FieldsJson):
    """The ground truth of a generated series (levels in samples/s, positions in steps)."""

    shape: str
    kind: str
    classification: str
    plateau: float
    plateau_effective: float | None
    initial: float
    warmup_end_step: int | None
    warmup_end_t_s: float | None
    steady_start_step: int | None
    n: int
    cv: float
    ar: float
    outlier_frac: float
    dip_period: int | None = None
    dip_width: int | None = None
    dip_depth: float | None = None
    dip_starts: list[int] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class SynthSeries:
    """A generated series: a Timeline-shaped table plus its truth."""

    table: pd.DataFrame
    truth: SynthTruth
    level: np.ndarray  # the noiseless level mu(t) * f(t), samples/s

    def to_run(self, run_id: str = "synthetic", role: str = "") -> Any:
        """This series as a :class:`costmodel.foundation.schema.Run` (format ``synthetic``)."""
        from ..foundation.schema import Run, to_timeline

        meta = {"synthetic": True, "truth": self.truth.to_dict()}
        return Run(
            run_id=run_id,
            table=to_timeline(self.table, run_id, role),
            format="synthetic",
            source="costmodel.synth",
            role=role,
            metadata=meta,
        )


def _shape_curve(shape: str, t: np.ndarray, S: float, C: float, t_end: float, alpha: float) -> np.ndarray:
    """Level curve rising from C to S whose 1 % point is at ``t_end`` (steps)."""
    A = S - C
    if shape == "flat" or t_end <= 0 or abs(A) <= EPS * S:
        return np.full(t.shape, S, dtype=float)
    r = abs(A) / (EPS * S)  # gap ratio at start vs at the end
    if shape == "exp":
        tau = t_end / np.log(r)
        return S - A * np.exp(-t / tau)
    if shape == "power":
        tau = t_end / (r ** (1.0 / alpha) - 1.0)
        return S - A * (1.0 + t / tau) ** (-alpha)
    if shape == "logistic":
        eps_p = EPS * S / abs(A)
        # choose the midpoint at 55 % of t_end and the scale so that the 1 % point is t_end
        t0 = 0.55 * t_end
        s = (t_end - t0) / np.log((1 - eps_p) / eps_p)
        return C + A / (1.0 + np.exp(-(t - t0) / s))
    if shape == "ramp":
        t0 = t_end / (1.0 - EPS * S / abs(A))
        return C + A * np.minimum(t / t0, 1.0)
    if shape == "step":
        return np.where(t < t_end, C, S)
    raise AnalysisError(f"unknown shape {shape!r}; expected one of {', '.join(SHAPES)}")


def _ar1(rng: np.random.Generator, n: int, phi: float, sd: float) -> np.ndarray:
    """AR(1) series with stationary standard deviation ``sd`` (vectorised via lfilter)."""
    from scipy.signal import lfilter

    e = rng.standard_normal(n) * sd * np.sqrt(max(1.0 - phi * phi, 1e-12))
    e[0] = rng.standard_normal() * sd  # start from the stationary distribution
    return lfilter([1.0], [1.0, -phi], e)


def _settle_index(mu: np.ndarray, S: float, eps: float = EPS) -> int | None:
    """First index from which |mu - S| <= eps*S holds to the end; None if never."""
    bad = np.abs(mu - S) > eps * S * (1 + 1e-9)
    if not bad.any():
        return 0
    last_bad = int(np.flatnonzero(bad)[-1])
    if last_bad >= len(mu) - 1:
        return None
    return last_bad + 1


def generate(
    n: int = 5000,
    shape: str = "exp",
    plateau: float = 1000.0,
    initial: float | None = None,
    warmup_frac: float = 0.1,
    cv: float = 0.02,
    ar: float = 0.0,
    outlier_frac: float = 0.0,
    dips: tuple[int, int, float] | None = None,
    kind: str = "plain",
    drift: float = 0.0,
    alpha: float = 1.0,
    batch: int = 256,
    seed: int = 0,
) -> SynthSeries:
    """Generate one series with known truth.

    ``n`` steps; ``shape`` one of :data:`SHAPES`; ``plateau`` S and ``initial`` C in samples/s
    (C defaults to 0.2..0.8 S drawn from the seed); ``warmup_frac`` the true warm-up end as a share of
    ``n``; ``cv`` the noise (stationary sd relative to the level, on step times); ``ar`` the AR(1)
    coefficient; ``outlier_frac`` the share of slow steps (factor U(0.3, 0.7)); ``dips`` a
    (period, width, depth) tuple of periodic drops; ``kind``: ``plain``, ``slowdown`` (an earlier,
    faster phase 8 % above the final level that ends at 0.35 n), ``invalidation`` (the cache falls back
    to the cold level at 0.4 n and warms again with the same shape), ``no_steady_state`` (the warm-up
    does not end before the series does), ``dips`` (same as plain with default dips when none given);
    ``drift``: relative linear change of the level over the run (a slow drift, e.g. -0.005).
    Raises AnalysisError on invalid arguments.
    """
    if n < 2:
        raise AnalysisError(f"n must be >= 2, got {n}")
    if kind not in KINDS:
        raise AnalysisError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    if not (0 <= ar < 1):
        raise AnalysisError(f"ar must be in [0, 1), got {ar}")
    rng = np.random.default_rng(seed)
    S = float(plateau)
    C = float(initial) if initial is not None else float(S * rng.uniform(0.2, 0.8))
    t = np.arange(n, dtype=float)
    t_end = float(warmup_frac) * n
    if kind == "no_steady_state":
        shape = shape if shape in ("exp", "ramp", "power", "logistic") else "ramp"
        t_end = max(t_end, 1.6 * n)  # still far from the plateau when the series ends
    mu = _shape_curve(shape, t, S, C, t_end, alpha)
    params: dict[str, Any] = {"t_end_design": t_end, "alpha": alpha}
    if kind == "slowdown":
        # an early fast phase (e.g. burst credits, a warm page cache) then the real, lower level
        hi = S * 1.08
        cut = int(0.35 * n)
        mu = np.where(t < cut, hi, S)
        C = hi
        params["cut"] = cut
    elif kind == "invalidation":
        t_inv = int(0.4 * n)
        base = _shape_curve(shape if shape != "flat" else "exp", t, S, C, max(t_end, 0.05 * n), alpha)
        mu = base.copy()
        mu[t_inv:] = base[: n - t_inv]
        params["invalidation_step"] = t_inv
    if drift:
        mu = mu * (1.0 + drift * t / n)
    S_final = S * (1.0 + drift)  # the plateau at the end of the run (no warm-up residual)
    f = np.ones(n)
    dip_starts: list[int] = []
    dip_period = dip_width = None
    dip_depth = None
    if kind == "dips" and dips is None:
        dips = (max(n // 10, 50), 5, 0.4)
    if dips is not None:
        dip_period, dip_width, dip_depth = int(dips[0]), int(dips[1]), float(dips[2])
        phase = int(rng.integers(dip_period // 4, dip_period // 2 + 1))
        for s0 in range(phase, n, dip_period):
            f[s0 : s0 + dip_width] *= 1.0 - dip_depth
            dip_starts.append(s0)
    if outlier_frac > 0:
        k = int(round(outlier_frac * n))
        idx = rng.choice(n, size=k, replace=False)
        f[idx] *= rng.uniform(0.3, 0.7, size=k)
    x = _ar1(rng, n, ar, cv)
    scale = np.clip(1.0 + x, 0.2, None)
    level = mu * f
    d = batch / level * scale
    y = batch / d
    t_s = np.cumsum(d)
    # truth
    if kind == "no_steady_state":
        w_end = None
    elif kind == "slowdown":
        w_end = int(params["cut"])
    elif drift:
        w_end = _settle_index(mu, S_final, EPS)
    else:
        w_end = _settle_index(mu, S, EPS)
    if kind == "invalidation":
        # the steady state is the one after the re-warm
        t_inv = int(params["invalidation_step"])
        rel = _settle_index(mu[t_inv:], S, EPS)
        w_end = None if rel is None else t_inv + rel
    if w_end is None:
        eff = None
        wt = None
    else:
        ff = f[w_end:]
        eff = float(S_final * len(ff) / np.sum(1.0 / ff)) if len(ff) else None
        wt = float(t_s[w_end - 1]) if w_end > 0 else 0.0
    label = {
        "plain": "flat" if (w_end == 0) else "warmup",
        "slowdown": "slowdown",
        "invalidation": "invalidation",
        "no_steady_state": "no_steady_state",
        "dips": "dips",
    }[kind]
    if dips is not None and kind == "plain":
        label = "dips"
    truth = SynthTruth(
        shape=shape,
        kind=kind,
        classification=label,
        plateau=S_final,
        plateau_effective=eff,
        initial=float(mu[0]),
        warmup_end_step=w_end,
        warmup_end_t_s=wt,
        steady_start_step=w_end,
        n=n,
        cv=cv,
        ar=ar,
        outlier_frac=outlier_frac,
        dip_period=dip_period,
        dip_width=dip_width,
        dip_depth=dip_depth,
        dip_starts=dip_starts,
        params=params,
    )
    table = pd.DataFrame(
        {
            "step": np.arange(n, dtype="int64"),
            "t_s": t_s,
            "samples_per_s": y,
            "step_time_s": d,
            "samples": np.full(n, float(batch)),
        }
    )
    return SynthSeries(table=table, truth=truth, level=level)


__all__ = ["KINDS", "REFERENCE_BATCH", "SHAPES", "SynthSeries", "SynthTruth", "generate", "reference_case"]


# ---------------------------------------------------------------------------------------------
# The bundled reference example (a synthetic reconstruction of the published validation ranges)
# ---------------------------------------------------------------------------------------------
#: Global batch of the reference case: 24 sequences per GPU x 16 GPUs.
REFERENCE_BATCH = 384
#: Bytes one sample of the reference case reads: 4,096 tokens x 4 bytes (int32 ids: the LLaMA 3 vocabulary has
#: 128,256 ids). The same figure as the example's scenario (dataset.size_gb / dataset.samples = 792.9856 GB /
#: 48.4 M) and its what-if workload (workload.dataset.sample_bytes).
REFERENCE_SAMPLE_BYTES = 4096 * 4


def reference_case(role: str, n: int = 2000, seed: int = 20260925) -> pd.DataFrame:
    """A step log reconstructing the reference case of ``validation.md`` for ``role``.

    ``colocated``: 115-117 samples/s from the start, GPU 98-100 %, 2-3 ms.
    ``remote``: cold at 95-105 samples/s for batches 0-99 (GPU 80-90 %), warming to
    about 115 by batches 100-150 (latency 5-10 ms), then 115-117 with 94-96 % cache hits and reads
    under 5 ms. Values the publication does not give (cold latency 10-14 ms, cold hit ratio ~30 %) are
    labelled assumptions in ``data/examples/README.md``. Columns: step, t_s, samples_per_s,
    gpu_util (0..1), read_bytes_per_s, read_latency_s, cache_hit_ratio.

    ``read_bytes_per_s`` is what training reads, ``samples_per_s x REFERENCE_SAMPLE_BYTES`` (about 1.9 MB/s),
    physically consistent with the samples read; the published 1.0-1.3 GB/s (500-800 MB/s cold)
    measure the storage path, not the bytes training consumes, and are not reproduced.
    """
    if role not in ("colocated", "remote"):
        raise AnalysisError(f"role must be colocated or remote, got {role!r}")
    rng = np.random.default_rng(seed + (0 if role == "colocated" else 1))
    t = np.arange(n, dtype=float)
    S = 116.0
    if role == "colocated":
        mu = np.full(n, S)
        frac = np.ones(n)
    else:
        C = 100.0
        mu = np.where(t < 100, C, S - (S - C) * np.exp(-(t - 100) / 12.0))
        frac = (mu - C) / (S - C)
    cv = np.where(frac < 0.5, 0.022, 0.0075)
    x = _ar1(rng, n, 0.5, 1.0) * cv
    y = mu * (1.0 + x)
    y = np.where(frac < 0.5, np.clip(y, 95.2, 104.8), np.clip(y, 114.0, 118.0))
    y = np.round(y, 2)
    d = REFERENCE_BATCH / y
    t_s = np.round(np.cumsum(d), 3)
    u = rng.standard_normal((4, n))
    if role == "colocated":
        gpu = np.clip(0.99 + 0.005 * u[0], 0.98, 1.0)
        rbytes = y * REFERENCE_SAMPLE_BYTES
        lat = np.clip(2.5e-3 + 0.25e-3 * u[2], 2.0e-3, 3.0e-3)
        hit = np.full(n, np.nan)
    else:
        gpu = np.where(frac < 0.5, np.clip(0.85 + 0.025 * u[0], 0.80, 0.90), np.clip(0.99 + 0.005 * u[0], 0.98, 1.0))
        rbytes = y * REFERENCE_SAMPLE_BYTES  # u[1] is still drawn: every other column keeps its numbers
        lat_cold = np.clip(12e-3 + 1e-3 * u[2], 10e-3, 14e-3)
        lat_warm = np.clip(3.5e-3 + 0.4e-3 * u[2], 2.5e-3, 4.8e-3)
        lat = np.where((t >= 100) & (frac < 0.95), np.clip(7.5e-3 + 1e-3 * u[2], 5e-3, 10e-3),
                       np.where(frac < 0.5, lat_cold, lat_warm))
        hit = np.clip(0.30 + 0.65 * frac + 0.004 * u[3], 0.0, 0.96)
        hit = np.where(frac >= 0.95, np.clip(hit, 0.94, 0.96), hit)
    return pd.DataFrame({
        "step": np.arange(n, dtype="int64"),
        "t_s": t_s,
        "samples_per_s": y,
        "gpu_util": np.round(gpu, 4),
        "read_bytes_per_s": np.round(rbytes, 0),
        "read_latency_s": np.round(lat, 5),
        "cache_hit_ratio": np.round(hit, 4),
    })
