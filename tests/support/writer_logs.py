"""Real per-step logs written again the way each trainer's log writer writes them (an independent probe).

Not built on :mod:`costmodel.synthetic.coarse_logs`: each writer is rebuilt from what its source code logs, in its
own file format, so the probe reads the files through the same readers a user's files go through.

- **Lightning** ``CSVLogger`` with ``log_every_n_steps=N``: the real run's own ``lightning/<run>/version_0/
  metrics.csv`` (one row per step, written by Lightning) keeps the rows where ``(step + 1) % N == 0`` (steps
  N-1, 2N-1, ...: Lightning logs when ``(batches_that_stepped + 1) % N == 0`` and writes the step before the
  increment). Each row is that one step's ``self.log(..., on_step=True)`` values (sampled). ``clock``: the user
  also logs ``time/elapsed_s`` (seconds since the training loop started, the per-step file's ``elapsed_s``);
  ``wall+elapsed``: a ``wall_time`` column (Unix s) before it, as a hand-written callback logs both.
- **HF Trainer** ``trainer_state.json`` with ``logging_steps=N``: ``log_history`` entries at ``global_step % N ==
  0`` (1-based: N, 2N, ...) holding ``loss`` (the mean over the N steps, rounded to 4 digits), ``grad_norm``,
  ``learning_rate``, ``epoch`` (fractional, rounded to 4), ``step``; then one summary entry with ``train_runtime``,
  ``train_samples_per_second``, ``train_steps_per_second``, ``total_flos``, ``train_loss``. No per-row time or
  throughput: the Trainer does not log one.
- **Megatron-LM** ``--log-interval N``: a line at iteration ``i`` (1-based) when ``i % N == 0`` with ``elapsed time
  per iteration (ms)`` = the wall time since the previous line / N (the ``interval-time`` timer; stalls
  included), ``global batch size``, ``lm loss`` (the interval's mean); ``stamp``: Megatron's ``[YYYY-MM-DD
  HH:MM:SS]`` prefix (whole seconds).
- **torchtitan** ``log_freq=N``: a line at step ``i`` (1-based) when ``i == 1`` or ``i % N == 0``, ``tps`` = tokens
  since the previous line / ``time.perf_counter()`` seconds since it (stalls included), ``loss`` of that step;
  ``stamp``: the logger's ``[titan] YYYY-MM-DD HH:MM:SS,mmm`` prefix.
"""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

WRITERS = ("lightning", "lightning+clock", "lightning+wall+elapsed", "hf_trainer", "megatron", "megatron+stamp",
           "torchtitan", "torchtitan+stamp")
SEQ = 1024  # tokens per sample of the real H200 runs (meta.json args.seq)


def lightning_rows(metrics: pd.DataFrame, per_step: pd.DataFrame, every: int, clock: str = "") -> pd.DataFrame:
    """Lightning's own per-step ``metrics.csv`` at ``log_every_n_steps=every`` (see the module doc)."""
    m = metrics[metrics["step"].notna()].copy()
    m = m[(m["step"].astype(int) + 1) % every == 0].reset_index(drop=True)
    clk = per_step.set_index("step")
    if "wall" in clock:
        m.insert(0, "wall_time", clk.loc[m["step"].astype(int), "wall_time"].to_numpy())
    if "elapsed" in clock or clock == "clock":
        m["time/elapsed_s"] = clk.loc[m["step"].astype(int), "elapsed_s"].to_numpy()
    return m


def _interval_ends(step0: np.ndarray, every: int, first: bool) -> np.ndarray:
    """Positions (0-based rows) of the lines a 1-based ``i % every == 0`` writer prints (and ``i == 1`` if first)."""
    it = step0.astype(np.int64) + 1
    return np.flatnonzero((it % every == 0) | (first & (it == 1)))


def _stamp(t: float, ms: bool) -> str:
    d = datetime.fromtimestamp(t, tz=timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S") + (f",{d.microsecond // 1000:03d}" if ms else "")


def megatron_text(per_step: pd.DataFrame, every: int, stamp: bool, batch: int = 16) -> str:
    """Megatron-LM's training log lines at ``--log-interval every`` (see the module doc)."""
    step, el = per_step["step"].to_numpy(), per_step["elapsed_s"].to_numpy(dtype=float)
    wall, loss = per_step["wall_time"].to_numpy(dtype=float), per_step["loss"].to_numpy(dtype=float)
    ends = _interval_ends(step, every, first=False)
    n_it = int(step[-1]) + 1
    out, prev_t, prev = [], float(el[0] - per_step["step_time_s"].iloc[0]), -1
    for e in ends:
        it = int(step[e]) + 1
        ms = (el[e] - prev_t) / (e - prev) * 1e3
        pre = f" [{_stamp(wall[e], ms=False)}]" if stamp else ""
        out.append(f"{pre} iteration {it:8d}/{n_it:8d} | consumed samples: {it * batch:12d} | elapsed time per "
                   f"iteration (ms): {ms:.1f} | learning rate: 3.000000E-04 | global batch size: {batch:5d} | "
                   f"lm loss: {np.mean(loss[prev + 1:e + 1]):.6E} | loss scale: 1.0 | number of skipped iterations: "
                   f"  0 | number of nan iterations:   0 |")
        prev_t, prev = float(el[e]), int(e)
    return "\n".join(out) + "\n"


def torchtitan_text(per_step: pd.DataFrame, every: int, stamp: bool, seq: int = SEQ) -> str:
    """torchtitan's ``log_freq=every`` lines (see the module doc); ``tps`` from the per-step samples x ``seq``."""
    step, el = per_step["step"].to_numpy(), per_step["elapsed_s"].to_numpy(dtype=float)
    wall, loss = per_step["wall_time"].to_numpy(dtype=float), per_step["loss"].to_numpy(dtype=float)
    sps, st = per_step["samples_per_sec"].to_numpy(dtype=float), per_step["step_time_s"].to_numpy(dtype=float)
    tokens = np.cumsum(sps * st * seq)
    ends = _interval_ends(step, every, first=True)
    out, prev_t, prev_tok = [], float(el[0] - st[0]), 0.0
    for e in ends:
        tps = (tokens[e] - prev_tok) / (el[e] - prev_t)
        pre = f"[rank0]:[titan] {_stamp(wall[e], ms=True)} - root - INFO - " if stamp else ""
        out.append(f"{pre}step: {int(step[e]) + 1:2d}  loss: {loss[e]:7.4f}  memory: 30.12GiB(21.56%)  "
                   f"tps: {tps:,.0f}  tflops: 120.55  mfu: 12.19%")
        prev_t, prev_tok = float(el[e]), float(tokens[e])
    return "\n".join(out) + "\n"


def hf_trainer_state(per_step: pd.DataFrame, every: int, steps_per_epoch: int = 1875, batch: int = 16) -> str:
    """The HF Trainer's ``trainer_state.json`` at ``logging_steps=every`` (see the module doc)."""
    step, loss = per_step["step"].to_numpy(), per_step["loss"].to_numpy(dtype=float)
    ends = _interval_ends(step, every, first=False)
    hist, prev = [], -1
    for e in ends:
        gs = int(step[e]) + 1
        hist.append({"epoch": round(gs / steps_per_epoch, 4), "grad_norm": 1.0, "learning_rate": 3e-4,
                     "loss": round(float(np.mean(loss[prev + 1:e + 1])), 4), "step": gs})
        prev = int(e)
    runtime = float(per_step["elapsed_s"].iloc[-1])
    n = len(step)
    hist.append({"epoch": round(n / steps_per_epoch, 4), "step": n, "total_flos": 1.0e15,
                 "train_loss": round(float(np.mean(loss)), 4), "train_runtime": round(runtime, 4),
                 "train_samples_per_second": round(n * batch / runtime, 3),
                 "train_steps_per_second": round(n / runtime, 3)})
    return json.dumps({"best_metric": None, "epoch": hist[-1]["epoch"], "global_step": n, "log_history": hist,
                       "logging_steps": every, "max_steps": n, "train_batch_size": batch}, indent=2)


def write_log(writer: str, run_dir: Path, side: str, every: int, out_dir: Path, cut: int | None = None) -> Path:
    """The file ``writer`` writes for ``side`` (``colocated``/``remote``) of the real run in ``run_dir``, every
    ``every`` steps (the first ``cut`` steps only, when given); returns its path under ``out_dir``."""
    per_step = pd.read_csv(run_dir / f"{side}.csv")
    if cut is not None:
        per_step = per_step[per_step["step"] < cut].reset_index(drop=True)
    base, _, opt = writer.partition("+")
    if base == "lightning":
        metrics = pd.read_csv(run_dir / "lightning" / side / "version_0" / "metrics.csv")
        if cut is not None:
            metrics = metrics[metrics["step"] < cut]
        p = out_dir / "lightning_logs" / side / "version_0" / "metrics.csv"  # where CSVLogger writes it
        p.parent.mkdir(parents=True, exist_ok=True)
        lightning_rows(metrics, per_step, every, opt).to_csv(p, index=False)
        return p
    if base == "hf_trainer":
        p = out_dir / side / "trainer_state.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(hf_trainer_state(per_step, every))
        return p
    text = (megatron_text if base == "megatron" else torchtitan_text)(per_step, every, stamp=opt == "stamp")
    p = out_dir / f"{side}.log"
    p.write_text(text)
    return p
