"""Per-step training logs reduced the way trainers' log writers reduce them.

Most users do not have a row per step: Lightning logs every ``log_every_n_steps`` (50 by default), the HF
Trainer every ``logging_steps`` (500), Megatron and torchtitan print averages over a log interval. These
functions take a real per-step log (a DataFrame with the writer's own column names, e.g. the two-site H200
runs' ``step, epoch, wall_time, elapsed_s, step_time_s, data_wait_s, ..., samples_per_sec``) and return the
rows such a writer would have written, so that the analysis can be tested on the same real runs at the
resolution users have (never copies of the fixtures: derived on the fly).

How each writer reduces a log of steps ``0, 1, 2, ...`` with a row every ``every`` steps:

- **sampled** (:func:`sampled_rows`; Lightning's ``self.log(..., on_step=True)``, the HF Trainer's per-step
  figures, TensorBoard scalars written every N steps): the row of step ``k * every - 1`` (the step at which
  ``(step + 1) % every == 0``) is written as it is: that one step's own rate, step time, data wait and hit
  ratio, and the wall clock at its end. The steps in between (their checkpoint and epoch stalls included)
  are not in the file; only the clock still counts their time.
- **averaged** (:func:`averaged_rows`; Megatron's ``elapsed time per iteration`` and throughput over the log
  interval, torchtitan's and DeepSpeed's interval figures): the same rows, but each carries the mean over
  the steps since the previous row: rates as work over time (``sum(rate x step_time) / sum(step_time)``,
  the interval's samples over its seconds), times and ratios (step time, data wait, hit ratio, loss) as
  plain means, counters (cache misses, files) as sums; the clock, step and epoch columns as at the row's
  last step.
- **cut** (:func:`cut_steps`): the first ``n_steps`` steps only (a short trial run).

Which steps get a row (``at``): ``"end"`` (the default) keeps the step where ``(step + 1) % every == 0``
(Lightning's ``log_every_n_steps``: the 50th, 100th, ... step, 0-based 49, 99, ...); ``"start"`` keeps
``step % every == 0`` (rows at steps 0, N, 2N, ...: a hand-written ``if step % N == 0: log(...)``; the first
row is step 0 alone, and with checkpoints every multiple of N the sampled row is the checkpoint step);
``"hf"`` keeps the same rows as ``"end"`` but writes the step counted from 1 (the HF Trainer's
``global_step`` at ``global_step % logging_steps == 0``: rows labelled N, 2N, ...).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

#: columns read as the clock (kept at the row's last step)
CLOCK_COLUMNS = ("wall_time", "elapsed_s", "t_s", "time", "timestamp", "elapsed", "epoch")
#: name parts of rate columns (averaged as work over time)
RATE_MARKERS = ("per_sec", "per_s", "/s", "_ps", "throughput")
#: name parts of counters (summed over the interval)
COUNT_MARKERS = ("misses", "files", "count")
STEP_TIME = "step_time_s"


def _kind(col: str) -> str:
    c = col.lower()
    if c == "step" or c in CLOCK_COLUMNS:
        return "last"
    if any(m in c for m in RATE_MARKERS):
        return "rate"
    if any(m in c for m in COUNT_MARKERS):
        return "sum"
    return "mean"


#: which steps get a row (see the module doc)
ROW_AT = ("end", "start", "hf")


def _row_ends(step: np.ndarray, every: int, at: str = "end") -> np.ndarray:
    """Positions of the rows a writer keeps: ``(step + 1) % every == 0`` (``end``, ``hf``) or ``step % every == 0``."""
    if every < 1:
        raise ValueError(f"every must be >= 1, got {every}")
    if at not in ROW_AT:
        raise ValueError(f"at must be one of {', '.join(ROW_AT)}, got {at!r}")
    return np.flatnonzero((step.astype(np.int64) + (0 if at == "start" else 1)) % every == 0)


def _label(out: pd.DataFrame, at: str) -> pd.DataFrame:
    if at == "hf":
        out["step"] = out["step"].to_numpy() + 1
    return out


def sampled_rows(df: pd.DataFrame, every: int, at: str = "end") -> pd.DataFrame:
    """The row of every ``every``-th step as it is (that step's own values and clock); see the module doc."""
    step = df["step"].to_numpy()
    return _label(df.iloc[_row_ends(step, every, at)].reset_index(drop=True), at)


def averaged_rows(df: pd.DataFrame, every: int, step_time: str = STEP_TIME, at: str = "end") -> pd.DataFrame:
    """Each kept row with the means over the steps since the previous row; see the module doc.

    Rates are weighted by ``step_time`` (seconds per step); without that column, by one per step.
    """
    step = df["step"].to_numpy()
    ends = _row_ends(step, every, at)
    starts = np.concatenate([[0], ends[:-1] + 1])
    wt = df[step_time].to_numpy(dtype=float) if step_time in df.columns else np.ones(len(df))
    out: dict[str, list[float]] = {c: [] for c in df.columns}
    for a, b in zip(starts, ends + 1, strict=True):
        for c in df.columns:
            v = df[c].to_numpy()[a:b]
            k = _kind(c)
            if k == "last":
                out[c].append(v[-1])
            elif k == "rate":
                out[c].append(float(np.sum(v.astype(float) * wt[a:b]) / np.sum(wt[a:b])))
            elif k == "sum":
                out[c].append(float(np.sum(v.astype(float))))
            else:
                out[c].append(float(np.mean(v.astype(float))))
    return _label(pd.DataFrame(out, columns=df.columns), at)


def cut_steps(df: pd.DataFrame, n_steps: int) -> pd.DataFrame:
    """The first ``n_steps`` steps of a per-step log (a short trial run)."""
    return df[df["step"].to_numpy() < n_steps].reset_index(drop=True)


def reduce_log(df: pd.DataFrame, rows: str, every: int, at: str = "end") -> pd.DataFrame:
    """``rows`` ``sampled`` or ``averaged`` every ``every`` steps, rows ``at`` (see the module doc); ``every == 1``
    returns the log as it is."""
    if every == 1:
        return df.copy()
    if rows == "sampled":
        return sampled_rows(df, every, at)
    if rows == "averaged":
        return averaged_rows(df, every, at=at)
    raise ValueError(f"rows must be 'sampled' or 'averaged', got {rows!r}")


#: the columns a writer keeps, by what it logs besides the rate (the names of the real H200 logs): ``all``;
#: ``clock``: a wall clock and elapsed time but no step time (a Lightning or HF Trainer log with a timestamp);
#: ``step_time``: the step time but no clock (Lightning's ``CSVLogger``); ``rate``: the rate alone
COLUMN_SETS: dict[str, tuple[str, ...]] = {
    "all": (),
    "clock": ("step_time_s", "compute_s", "ckpt_s"),
    "step_time": ("wall_time", "elapsed_s"),
    "rate": ("wall_time", "elapsed_s", "step_time_s", "compute_s", "ckpt_s"),
}


def keep_columns(df: pd.DataFrame, kept: str) -> pd.DataFrame:
    """``df`` less the columns the writer named by ``kept`` (a key of :data:`COLUMN_SETS`) does not log."""
    if kept not in COLUMN_SETS:
        raise ValueError(f"kept must be one of {', '.join(COLUMN_SETS)}, got {kept!r}")
    return df.drop(columns=list(COLUMN_SETS[kept]), errors="ignore")
