"""Seeded training logs shaped like real ones, with known truth (benchmarks and tests of the analysis).

Independent of :mod:`costmodel.synthetic.shapes` (which draws textbook shapes on a per-step throughput): here a job
is simulated step by step in *seconds*, the way a trainer writes its log. Step ``t`` of ``batch``
samples takes::

    d[t] = batch / mu(t) * (1 + x[t]) + stall[t]          seconds

``mu`` is the noiseless compute/data level (samples/s) of the chosen ``kind``, ``x`` an AR(1) noise
(stationary sd ``cv``, coefficient ``ar``; optionally with rare slow steps) and ``stall`` the seconds
of pauses that really happen in training: a checkpoint every ``ckpt_every`` steps (a few steps' worth
of time), or a data-loader stall on the first step of every epoch. The log then has one row every
``log_every`` steps (coarse logs: 10-50) with the step number, the elapsed seconds ``t_s``, the mean
step time ``step_time_s`` over the row's steps and ``samples_per_s`` (samples over seconds of those
steps); ``step_time_only=True`` drops ``samples_per_s`` (a log that prints a step time only).

Kinds (``kind``):

- ``flat``: level S from the first step;
- ``warmup``: a cache warm-up ``S - (S - C) g(t)`` with ``g`` an exponential, power or logistic decay;
- ``two_tier``: a fast first tier (page cache) then a slow second tier: two exponentials, the second
  3-12 % of S with a 5-15x longer time constant;
- ``overshoot``: the level rises above S (by 2-8 %) during the warm-up, then settles down to S;
- ``drift``: after a warm-up the level keeps degrading linearly (thermal throttling, growing
  checkpoint overhead) by 2-10 % over the run: never steady;
- ``slowdown``: settled at a higher level, then drops by 5-15 % at 0.3-0.6 n and stays there;
- any of them can carry checkpoints (``ckpt_every``) and epoch stalls (``epoch_steps``).

The truth (:class:`RealisticTruth`):

- ``warmup_end_step``: the first step from which ``|mu(t) - S| <= 1 % S`` holds to the end (the 1 %
  rule on the *underlying* level, noise and stalls excluded); for ``slowdown`` the step of the drop;
  None for ``drift``;
- ``plateau``: work over time *including the stalls and slow steps* in the long run, in samples/s:
  ``batch / (batch / S * (1 + 1.25 slow_frac) + mean stall seconds per step)`` (a window of whole
  periods converges to it);
  its step-time twin ``plateau_step_time_s = batch / plateau``;
- ``classification``: ``flat`` | ``warmup`` | ``slowdown`` | ``no_steady_state`` (drift) | ``dips``
  (periodic checkpoint or epoch stalls on a run that settles, at least 4 of them after the warm-up);
- ``period_steps``: the stall period in steps (None without stalls); ``drift_per_1k_steps``: the
  relative change of the level per 1,000 steps (``drift`` only, else 0).

Example::

    from costmodel.synthetic.training_logs import generate_realistic
    s = generate_realistic(kind="warmup", n=20_000, ckpt_every=1000, log_every=10, seed=3)
    s.table, s.truth
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..foundation.errors import AnalysisError
from ..foundation.fields_json import FieldsJson

KINDS = ("flat", "warmup", "two_tier", "overshoot", "drift", "slowdown")
EPS = 0.01


@dataclass
class RealisticTruth(FieldsJson):
    kind: str
    classification: str
    plateau: float | None
    plateau_step_time_s: float | None
    warmup_end_step: int | None
    period_steps: int | None
    drift_per_1k_steps: float
    n_steps: int
    log_every: int
    step_time_only: bool
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class RealisticLog:
    table: pd.DataFrame
    truth: RealisticTruth

    def to_run(self, run_id: str = "realistic", role: str = "") -> Any:
        from ..foundation.schema import Run, to_timeline

        return Run(run_id=run_id, table=to_timeline(self.table, run_id, role), format="synthetic",
                   source="costmodel.synth_realistic", role=role,
                   metadata={"synthetic": True, "truth": self.truth.to_dict()})


def _ar1(rng: np.random.Generator, n: int, phi: float, sd: float) -> np.ndarray:
    from scipy.signal import lfilter

    e = rng.standard_normal(n) * sd * np.sqrt(max(1.0 - phi * phi, 1e-12))
    e[0] = rng.standard_normal() * sd
    return lfilter([1.0], [1.0, -phi], e)


def _settle(mu: np.ndarray, S: float) -> int | None:
    bad = np.abs(mu - S) > EPS * S * (1 + 1e-9)
    if not bad.any():
        return 0
    last = int(np.flatnonzero(bad)[-1])
    return None if last >= len(mu) - 1 else last + 1


def generate_realistic(
    kind: str = "warmup",
    n: int = 10_000,
    plateau: float = 1000.0,
    warmup_frac: float = 0.15,
    shape: str = "exp",
    cv: float = 0.02,
    ar: float = 0.5,
    slow_frac: float = 0.0,
    ckpt_every: int | None = None,
    ckpt_steps: float = 20.0,
    epoch_steps: int | None = None,
    epoch_stall_steps: float = 3.0,
    log_every: int = 1,
    step_time_only: bool = False,
    drift_total: float = -0.05,
    overshoot: float = 0.05,
    batch: int = 256,
    seed: int = 0,
) -> RealisticLog:
    """One realistic log (see the module docstring). ``n`` is in steps; ``ckpt_steps`` and
    ``epoch_stall_steps`` are the stall lengths in units of one steady step's time; the checkpoint
    period is jittered by +-2 % like a wall-clock-driven checkpoint. Raises AnalysisError on bad input."""
    if kind not in KINDS:
        raise AnalysisError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    if n < 50 or log_every < 1 or not (0 <= ar < 1):
        raise AnalysisError("need n >= 50, log_every >= 1 and 0 <= ar < 1")
    rng = np.random.default_rng(seed)
    S = float(plateau)
    t = np.arange(n, dtype=float)
    C = S * float(rng.uniform(0.3, 0.8))
    te = max(warmup_frac * n, 1.0)
    r = (S - C) / (EPS * S)
    params: dict[str, Any] = {"C": C}
    if kind == "flat":
        mu = np.full(n, S)
    elif kind in ("warmup", "drift"):
        if shape == "power":
            tau = te / (r ** 0.5 - 1.0)
            mu = S - (S - C) * (1 + t / tau) ** -2.0
        elif shape == "logistic":
            t0 = 0.5 * te
            s = (te - t0) / np.log((1 - 1 / r) * r)
            mu = C + (S - C) / (1 + np.exp(-(t - t0) / s))
        else:
            mu = S - (S - C) * np.exp(-t * np.log(r) / te)
        if kind == "drift":
            t_d = te  # the degradation starts where the warm-up would have ended
            mu = mu * (1.0 + drift_total * np.clip((t - t_d) / max(n - t_d, 1), 0, None))
    elif kind == "two_tier":
        a2 = float(rng.uniform(0.03, 0.12)) * S
        k = float(rng.uniform(5, 15))
        # second tier decides the end: a2 exp(-te/tau2) = 1 % S
        tau2 = te / np.log(a2 / (EPS * S * 0.98))
        tau1 = tau2 / k
        mu = S - (S - C - a2) * np.exp(-t / tau1) - a2 * np.exp(-t / tau2)
        params.update(a2=a2, tau1=tau1, tau2=tau2)
    elif kind == "overshoot":
        tr = te / float(rng.uniform(4, 8))  # rise time constant
        td = float(rng.uniform(0.15, 0.35)) * te
        rise = 1 - np.exp(-t / tr)
        mu = C + (S - C) * rise + overshoot * S * rise * np.exp(-t / td)  # peak then settle
        # rescale so the 1 % point is near te (numerically), keeping the shape
        params.update(tr=tr, td=td, overshoot=overshoot)
    else:  # slowdown
        cut = int(float(rng.uniform(0.3, 0.6)) * n)
        hi = S * (1 + float(rng.uniform(0.05, 0.15)))
        wu = max(int(0.1 * cut), 1)
        rise = S - (S - C) * np.exp(-t * np.log((hi - C) / (EPS * hi)) / wu)
        mu = np.where(t < cut, np.minimum(rise * hi / S, hi), S)
        params.update(cut=cut, high=hi)
    # noise (multiplicative on compute time) and slow steps
    x = _ar1(rng, n, ar, cv)
    fac = np.clip(1.0 + x, 0.3, None)
    if slow_frac > 0:
        k = int(round(slow_frac * n))
        idx = rng.choice(n, size=k, replace=False)
        fac[idx] *= rng.uniform(1.5, 3.0, size=k)
    base = batch / mu
    d = base * fac
    stall = np.zeros(n)
    step_s = batch / S
    period = None
    stall_per_step = 0.0
    if ckpt_every:
        pos = float(rng.uniform(0.3, 1.0)) * ckpt_every
        cks = []
        while pos < n:
            cks.append(int(pos))
            pos += ckpt_every * float(rng.uniform(0.98, 1.02))
        c_s = ckpt_steps * step_s
        stall[cks] += c_s * rng.uniform(0.9, 1.1, size=len(cks))
        stall_per_step += c_s / ckpt_every
        period = int(ckpt_every)
        params["checkpoints"] = len(cks)
    epoch = None
    if epoch_steps:
        epoch = (t // epoch_steps).astype(int) + 1
        first = np.flatnonzero(np.diff(np.concatenate([[0], epoch])) != 0)
        e_s = epoch_stall_steps * step_s
        stall[first] += e_s * rng.uniform(0.9, 1.1, size=len(first))
        stall_per_step += e_s / epoch_steps
        period = int(epoch_steps) if period is None else period
    d = d + stall
    # truth
    if kind == "drift":
        w_end = None
        S_end = S
    elif kind == "slowdown":
        w_end = int(params["cut"])
        S_end = S
    else:
        w_end = _settle(mu, S)
        S_end = S
    # slow steps are real steps: they count, at their expected cost (factor U(1.5, 3) on a slow_frac share)
    slow_cost = 1.0 + slow_frac * 1.25
    plateau_eff = None if w_end is None else float(batch / (batch / S_end * slow_cost + stall_per_step))
    label = {"flat": "flat", "warmup": "warmup", "two_tier": "warmup", "overshoot": "warmup",
             "drift": "no_steady_state", "slowdown": "slowdown"}[kind]
    if label == "warmup" and w_end == 0:
        label = "flat"
    n_stalls_after = int(np.sum(stall[(w_end or 0):] > 0))
    if period is not None and label in ("flat", "warmup") and n_stalls_after >= 4:
        label = "dips"
    # the log: one row per log_every steps
    m = n // log_every
    dd = d[: m * log_every].reshape(m, log_every)
    row_t = dd.sum(axis=1)
    tab: dict[str, Any] = {
        "step": (np.arange(1, m + 1) * log_every).astype("int64"),
        "t_s": np.cumsum(row_t),
        "step_time_s": row_t / log_every,
    }
    if not step_time_only:
        tab["samples_per_s"] = batch * log_every / row_t
        tab["samples"] = np.full(m, float(batch * log_every))
    if epoch is not None:
        tab["epoch"] = epoch[log_every - 1: m * log_every: log_every].astype(float)
    truth = RealisticTruth(
        kind=kind, classification=label, plateau=plateau_eff,
        plateau_step_time_s=None if plateau_eff is None else batch / plateau_eff,
        warmup_end_step=w_end, period_steps=period,
        drift_per_1k_steps=float(drift_total * 1000 / max(n - te, 1)) if kind == "drift" else 0.0,
        n_steps=n, log_every=log_every, step_time_only=step_time_only, params=params)
    return RealisticLog(table=pd.DataFrame(tab), truth=truth)


def realistic_suite(n_logs: int = 160, seed: int = 15_000) -> list[tuple[dict[str, Any], RealisticLog]]:
    """A varied, seeded suite: every kind, with and without checkpoints / epoch stalls, step-time-only
    and coarse logs, long (50 k-step) runs, CV 0.5-4 %, AR 0-0.9. Returns (parameters, log) pairs."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_logs):
        kind = KINDS[i % len(KINDS)]
        p: dict[str, Any] = {
            "kind": kind,
            "n": int(rng.choice([3000, 5000, 10_000, 20_000])),
            "warmup_frac": float(rng.uniform(0.05, 0.3)),
            "shape": str(rng.choice(["exp", "power", "logistic"])),
            "cv": float(rng.choice([0.005, 0.01, 0.02, 0.04])),
            "ar": float(rng.choice([0.0, 0.5, 0.8, 0.9])),
            "slow_frac": float(rng.choice([0.0, 0.0, 0.002])),
            "log_every": int(rng.choice([1, 1, 1, 10, 20, 50])),
            "step_time_only": bool(rng.random() < 0.25),
            "drift_total": float(rng.uniform(-0.10, -0.03)) * (1 if rng.random() < 0.8 else -1),
            "overshoot": float(rng.uniform(0.02, 0.08)),
            "seed": seed + i,
        }
        extra = rng.random()
        if extra < 0.3:
            p["ckpt_every"] = int(rng.choice([500, 1000, 2000]))
            p["ckpt_steps"] = float(rng.uniform(5, 40))
        elif extra < 0.55:
            p["epoch_steps"] = int(rng.choice([250, 500, 1000]))
            p["epoch_stall_steps"] = float(rng.uniform(1, 6))
        if i % 16 == 7:  # long runs with checkpoint dips
            p.update(n=50_000, ckpt_every=1000, ckpt_steps=float(rng.uniform(5, 30)), log_every=int(rng.choice([1, 10])))
        if p["log_every"] > 1 and p["n"] // p["log_every"] < 200:
            p["log_every"] = 10
        out.append((p, generate_realistic(**p)))
    return out
