"""Independent held-out-style log generator for issue 15 (second engineer; written without reading
``costmodel/synth_realistic.py``).

Each log is a Timeline-like DataFrame with numeric ``step``, ``t_s`` and ``samples_per_s`` (or only
``step_time_s`` for step-time-only logs). Truth, per log:
- ``warmup_end_step``: first step after which the UNDERLYING level (noise-free, stall-free) stays
  within 1 % of its final value (1 % rule); ``None`` for drifting logs.
- ``plateau``: work over time including stalls, over the steady part (sum(samples) / sum(seconds)).
Kinds added later (issue 15 benchmark, ``benchmarks/bench_warmup_heldout.py``; the earlier kinds and
their seeds are unchanged): ``clean`` (an exponential warm-up, no stalls), ``iso_wall_time`` (a
checkpoint log whose time is an ISO-8601 ``wall_time`` column instead of ``t_s``),
``step_time_batch`` (a step-time-only log whose batch size is known: ``truth["batch_size"]``, given to
``fit --batch-size``; the plateau stays in samples/s). ``truth["stalls"]`` says whether periodic stalls
were added.
Noise models: log-normal step times, AR(1) with phi up to 0.9, Student-t(3) heavy tails, rare
straggler steps (x3-x8). Stalls: multi-step ramps (not single spikes), at jittered periods.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

BATCH = 32.0


def _noise(rng: np.random.Generator, n: int, kind: str, phi: float, sd: float) -> np.ndarray:
    e = rng.standard_t(3, n) * sd / np.sqrt(3.0) if kind == "t" else rng.normal(0.0, sd, n)
    x = np.empty(n)
    acc = 0.0
    for i in range(n):  # AR(1) in log space
        acc = phi * acc + np.sqrt(1 - phi * phi) * e[i]
        x[i] = acc
    return np.exp(x)


def _level(n: int, shape: str, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """Underlying step time (s) per step; final level 1/plateau-rate."""
    k = np.arange(n, dtype=float)
    base = BATCH / rng.uniform(90, 140)
    tau = rng.uniform(0.02, 0.08) * n
    if shape == "exp":
        lv = base * (1 + rng.uniform(0.5, 2.0) * np.exp(-k / tau))
    elif shape == "two_tier":
        lv = base * (1 + 2.0 * np.exp(-k / (tau / 4)) + 0.25 * np.exp(-k / (tau * 1.5)))
    elif shape == "overshoot":  # faster than the level during warm-up, then settles
        lv = base * (1 + 0.6 * np.exp(-k / (tau / 3)) - 0.08 * (k / tau) * np.exp(1 - k / tau))
    elif shape == "drift":  # never settles: +x % per 1k steps
        lv = base * (1 + 0.5 * np.exp(-k / (tau / 3)) + rng.uniform(0.01, 0.03) * k / 1000)
    else:
        lv = np.full(n, base)
    return lv, base


def _warmup_end(lv: np.ndarray) -> int | None:
    fin = lv[-1]
    bad = np.nonzero(np.abs(lv / fin - 1) > 0.01)[0]
    return 0 if bad.size == 0 else int(bad[-1] + 1)


def make_log(seed: int, kind: str, n: int = 6000) -> tuple[pd.DataFrame, dict]:
    rng = np.random.default_rng(seed)
    shape = {"checkpoint": "exp", "drift": "drift", "overshoot": "overshoot", "epoch": "exp",
             "step_time_only": "exp", "two_tier": "two_tier", "coarse": "two_tier",
             "long": "exp", "flat": "flat", "clean": "exp", "iso_wall_time": "exp",
             "step_time_batch": "exp"}[kind]
    if kind == "long":
        n = 50_000
    lv, base = _level(n, shape, rng)
    phi = rng.uniform(0.0, 0.9)
    dt = lv * _noise(rng, n, "t" if rng.random() < 0.4 else "n", phi, rng.uniform(0.01, 0.05))
    strag = rng.random(n) < 0.002
    dt[strag] *= rng.uniform(3, 8, strag.sum())
    stalls = kind in ("checkpoint", "long", "epoch", "iso_wall_time")
    if stalls:
        per = int(rng.uniform(800, 1200)) if kind != "epoch" else int(rng.uniform(1500, 2500))
        width = int(rng.integers(2, 6))
        pos = int(rng.integers(per // 2, per))
        grow = kind == "long"
        j = 0
        while pos + width < n:
            amp = rng.uniform(10, 40) * base * (1 + (0.5 * j if grow else 0))
            dt[pos:pos + width] += amp * np.linspace(1, 0.3, width) / width
            pos += per + int(rng.integers(-per // 20, per // 20 + 1))
            j += 1
    t = np.cumsum(dt)
    step = np.arange(1, n + 1)
    w_end = None if shape == "drift" else _warmup_end(lv)
    lo = w_end if w_end is not None else n // 2
    plateau = BATCH * (n - lo) / float(dt[lo:].sum())
    df = pd.DataFrame({"step": step, "t_s": t, "samples_per_s": BATCH / dt, "step_time_s": dt})
    if kind in ("step_time_only", "step_time_batch"):
        df = df[["step", "t_s", "step_time_s"]]
    if kind == "iso_wall_time":
        t0 = pd.Timestamp("2026-03-02T09:00:00")
        wall = (t0 + pd.to_timedelta(t, unit="s")).strftime("%Y-%m-%dT%H:%M:%S.%f")
        df = pd.DataFrame({"step": step, "wall_time": wall, "samples_per_s": BATCH / dt})
    if kind == "coarse":
        every = int(rng.integers(10, 51))
        idx = np.arange(every - 1, n, every)
        # a coarse row reports the mean rate over its block of steps
        csum = np.concatenate([[0.0], t])
        rate = BATCH * every / (csum[idx + 1] - csum[idx + 1 - every])
        df = pd.DataFrame({"step": step[idx], "t_s": t[idx], "samples_per_s": rate})
    truth = {"kind": kind, "n_steps": n, "warmup_end_step": w_end, "plateau": plateau,
             "drift": shape == "drift", "phi": phi, "stalls": stalls}
    if kind == "step_time_batch":
        truth["batch_size"] = BATCH
    return df, truth


KINDS = ("checkpoint", "drift", "overshoot", "epoch", "step_time_only", "two_tier", "coarse", "long",
         "flat", "clean", "iso_wall_time", "step_time_batch")


def suite(seed: int = 15, per_kind: int = 4, long_runs: bool = True):
    for i, kind in enumerate(KINDS):
        if kind == "long" and not long_runs:
            continue
        for j in range(per_kind):
            yield make_log(seed * 1000 + i * 100 + j, kind)


def pair(seed: int, ratio: float, n: int = 6000) -> tuple[pd.DataFrame, pd.DataFrame, float]:
    """Two logs whose true plateaus differ by ``ratio`` (remote/co-located)."""
    a, ta = make_log(seed, "checkpoint", n)
    b, tb = make_log(seed + 1, "checkpoint", n)
    b["samples_per_s"] = b["samples_per_s"] * (ta["plateau"] / tb["plateau"]) * ratio
    return a, b, ratio
