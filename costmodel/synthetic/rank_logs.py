"""A realistic generator of one synchronous job's rank logs, with the truth known.

Model, per rank ``r`` and step ``s`` (seeded, deterministic):

* the rank's own work time (data loading + compute before the collective)
  ``w[r, s] = base_step_s * warm(s) * node_factor(r) * stall(s) * lognormal(0, noise_cv)``;
  ``warm(s) = 1 + warmup_excess * exp(-s / warmup_tau_steps)`` (a cold cache warming, all ranks);
  ``node_factor`` = ``1 + straggler_excess`` for every rank of the straggler node from step
  ``straggler_from * n_steps`` on (0: the whole run), else 1;
  ``stall(s)`` = ``stall_factor`` every ``stall_every`` steps (checkpoints: every rank at once);
* the job steps at its slowest rank's pace: ``T[s] = max_r w[r, s]``; ``t_s`` = cumulative ``T``;
* each rank logs ``step_time_s = w[r, s]`` and ``samples_per_s``: its share ``batch / T[s]`` of the job's
  step (``rank_clock="job"``, relative jitter ``clock_jitter``) or ``batch / w[r, s]`` of its own
  (``rank_clock="own"``) in ``local`` mode, or the job's figure ``n_ranks * batch / T[s]`` (identical on
  every rank) in ``global`` mode;
* ``early_rank`` stops logging after ``early_stop_step`` (its log ends early; the job goes on).

Truth returned: job throughput and step time per step, the straggler ranks and their excess, the
job time lost to them (``sum_s T[s] - max over the other ranks``), the early rank.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def _work(seed: int, r: int, n_steps: int, p: dict[str, Any]) -> np.ndarray:
    rng = np.random.default_rng([seed, r])
    s = np.arange(n_steps, dtype="float64")
    warm = 1.0 + p["warmup_excess"] * np.exp(-s / max(p["warmup_tau_steps"], 1e-9))
    w = p["base_step_s"] * warm * rng.lognormal(0.0, p["noise_cv"], n_steps)
    if r // p["ranks_per_node"] == p["straggler_node"]:
        w[int(p["straggler_from"] * n_steps):] *= 1.0 + p["straggler_excess"]
    if p["stall_every"]:
        idx = np.arange(p["stall_every"] - 1, n_steps, p["stall_every"])
        w[idx] *= p["stall_factor"]
    return w


def generate_job(out_dir: str | Path, n_ranks: int = 16, n_steps: int = 2000, seed: int = 0, *,
                 ranks_per_node: int = 8, straggler_node: int | None = 1, straggler_excess: float = 0.12,
                 noise_cv: float = 0.03, base_step_s: float = 0.2, batch: int = 24,
                 warmup_excess: float = 0.3, warmup_tau_steps: float = 100.0, stall_every: int = 500,
                 stall_factor: float = 8.0, early_rank: int | None = 3, early_stop_step: int | None = None,
                 mode: str = "local", clock_jitter: float = 0.002, name_fmt: str = "node{node:03d}_rank{rank:04d}.csv",
                 write: bool = True, rank_clock: str = "job", straggler_from: float = 0.0,
                 rank_column: bool = False) -> dict[str, Any]:
    """Write one CSV per rank (``step,t_s,samples_per_s,step_time_s``; ``rank_column``: a ``rank`` column
    first) under ``out_dir``; return the truth."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    p = {"ranks_per_node": ranks_per_node, "straggler_node": -1 if straggler_node is None else straggler_node,
             "straggler_excess": straggler_excess, "noise_cv": noise_cv, "base_step_s": base_step_s,
             "warmup_excess": warmup_excess, "warmup_tau_steps": warmup_tau_steps, "stall_every": stall_every,
             "stall_factor": stall_factor, "straggler_from": straggler_from}
    strag = [r for r in range(n_ranks) if r // ranks_per_node == p["straggler_node"]]
    T = np.zeros(n_steps)
    T_others = np.zeros(n_steps)
    for r in range(n_ranks):
        w = _work(seed, r, n_steps, p)
        np.maximum(T, w, out=T)
        if r not in strag:
            np.maximum(T_others, w, out=T_others)
    t = np.cumsum(T)
    stop = early_stop_step if early_stop_step is not None else int(n_steps * 0.6)
    out = Path(out_dir)
    files = []
    if write:
        out.mkdir(parents=True, exist_ok=True)
        for r in range(n_ranks):
            w = _work(seed, r, n_steps, p)
            rng = np.random.default_rng([seed, r, 1])
            clock = w if rank_clock == "own" else T
            thr = n_ranks * batch / T if mode == "global" else batch / (clock * (1.0 + rng.normal(0.0, clock_jitter, n_steps)))
            n = stop + 1 if early_rank is not None and r == early_rank else n_steps
            cols = {"rank": np.full(n, r, dtype="int64")} if rank_column else {}
            cols.update({"step": np.arange(n, dtype="int64"), "t_s": np.round(t[:n], 6),
                         "samples_per_s": np.round(thr[:n], 6), "step_time_s": np.round(w[:n], 6)})
            tab = pa.table(cols)
            f = out / name_fmt.format(rank=r, node=r // ranks_per_node)
            pcsv.write_csv(tab, f, pcsv.WriteOptions(quoting_style="none"))
            files.append(str(f))
    return {
        "files": files,
        "n_ranks": n_ranks,
        "n_steps": n_steps,
        "job_step_time_s": T,
        "job_samples_per_s": n_ranks * batch / T,
        "stragglers": strag,
        "straggler_excess": straggler_excess,
        "straggler_lost_s": float(np.sum(T - T_others)) if strag else 0.0,
        "early_rank": early_rank,
        "early_last_step": stop if early_rank is not None else None,
        "mode": mode,
        "batch": batch,
    }
