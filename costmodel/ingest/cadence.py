"""What a row is: the logging cadence (steps between rows) and whether a row is an instantaneous
sample or an interval mean.

Writers log every Nth step (Lightning ``log_every_n_steps``, the HF Trainer's ``logging_steps``) or print means
over the log interval (Megatron, NeMo, torchtitan, speedrun logs' ``train_time`` differences). The kind is
taken, in order, from ``--rows sampled|averaged`` (:class:`~costmodel.ingest.api.IngestOptions` ``rows``), from
the format (the interval-mean writers), or from the clock: averaged rows satisfy ``steps x step time = clock
seconds between rows`` row by row, sampled rows do not (the clock counts the stalls the sampled step misses).
Rows with a clock and a rate but no step time (a Lightning or HF Trainer log that keeps its wall clock) are
told apart by the work per step the clock implies, ``rate x clock seconds between rows / steps``: the same on
every row for interval means (the batch), scattered for sampled rows (one step's rate over an interval's
seconds, stalls included).
A log with one row per step gets no metadata (nothing changes for it). A sparse log without a clock gets a
warning: the stalls between its rows are invisible, and compare will not call it equivalent.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..foundation.schema import Run

ROW_KINDS = ("sampled", "averaged")
#: formats whose rows are means over the log interval
AVERAGED_FORMATS = ("trainlog", "megatron", "nemo", "torchtitan", "cumclock", "progress_bar")
#: the rates that tell the row kind from the clock when the log has no step time
RATE_COLUMNS = ("samples_per_s", "tokens_per_s")
AGREE_TOL = 0.02  # averaged rows: steps x step time within 2 % of the clock's seconds, at 98 % of the rows


def _num(tab: pd.DataFrame, col: str) -> np.ndarray | None:
    if col not in tab.columns:
        return None
    v = pd.to_numeric(tab[col], errors="coerce").to_numpy(dtype=float)
    return v if np.isfinite(v).any() else None


def cadence(step: np.ndarray) -> int:
    """Steps between rows: the median positive step gap (1 for a per-step log or fewer than 2 rows)."""
    finite = np.isfinite(step)
    s = step if finite.all() else step[finite]
    k = np.diff(s)
    if not (k >= 0).all():  # a log in step order (nearly all) needs no sort
        k = np.diff(np.sort(s))
    if not (k > 0).all():
        k = k[k > 0]
    # the gaps are ours: the median partitions them in place (no second copy of 10 M rows)
    return int(round(float(np.median(k, overwrite_input=True)))) if len(k) else 1


def implied_work_per_step(step: np.ndarray, rate: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """Per row after the first: ``rate x clock seconds since the previous row / steps since it`` (the batch, for
    interval means; samples or tokens per step, as the rate). Rows without an increasing clock give NaN."""
    k, dt = np.diff(step), np.diff(ts)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = rate[1:] * dt / k
    return np.where((k > 0) & (dt > 0) & np.isfinite(u), u, np.nan)


def _kind_from_rate(step: np.ndarray, rate: np.ndarray, ts: np.ndarray) -> tuple[str, str]:
    ok = np.isfinite(step) & np.isfinite(rate) & np.isfinite(ts)
    u = implied_work_per_step(step[ok], rate[ok], ts[ok])
    u = u[np.isfinite(u) & (u > 0)]
    if len(u) < 2:
        return "unknown", "no increasing clock"
    rel = np.abs(u / float(np.median(u)) - 1.0)
    if float(np.quantile(rel, 0.98)) <= AGREE_TOL:
        return "averaged", ("rate x clock seconds between rows / steps is the same on every row (interval means; "
                            "no step time)")
    return "sampled", ("rate x clock seconds between rows / steps scatters across rows (one step's rate over the "
                       "interval's seconds; no step time)")


def infer_kind(step: np.ndarray, st: np.ndarray | None, ts: np.ndarray | None,
               rate: np.ndarray | None = None) -> tuple[str, str]:
    """(kind, how it is known) from the clock and the step time, else the clock and the rate (``rate``, samples or
    tokens per second); ``unknown`` when neither pair is there."""
    if st is None and ts is not None and rate is not None:
        return _kind_from_rate(step, rate, ts)
    if st is None or ts is None:
        return "unknown", "no clock and step time to tell"
    ok = np.isfinite(step) & np.isfinite(st) & np.isfinite(ts)
    s, d, t = step[ok], st[ok], ts[ok]
    if len(s) < 3:
        return "unknown", "too few rows"
    k, dt = np.diff(s), np.diff(t)
    good = (k > 0) & (dt > 0)
    if good.sum() < 2:
        return "unknown", "no increasing clock"
    rel = np.abs(dt[good] / (k[good] * d[1:][good]) - 1.0)
    if float(np.quantile(rel, 0.98)) <= AGREE_TOL:
        return "averaged", "steps x step time equal the clock's seconds between rows, row by row (interval means)"
    return "sampled", "the clock's seconds between rows differ from steps x the row's step time (one step's own figures)"


def is_lightning_metrics(source: str) -> bool:
    """A Lightning ``CSVLogger`` file: ``.../version_<N>/metrics.csv``."""
    parts = str(source).replace("\\", "/").split("/")
    return len(parts) >= 2 and parts[-1] == "metrics.csv" and parts[-2].startswith("version_")


def describe_rows(run: Run, rows: str | None = None) -> list[str]:
    """Record ``log_cadence_steps``, ``rows``, ``rows_from`` in ``run.metadata``; returns warnings."""
    tab = run.table
    step = _num(tab, "step")
    if step is None or len(step) < 3:
        return []
    every = cadence(step)
    if every <= 1 and not rows:
        return []
    md = run.metadata
    md["log_cadence_steps"] = every
    ts, st = _num(tab, "t_s"), _num(tab, "step_time_s")
    derived = str(md.get("t_s_from", "")).startswith("cumsum(step_time_s)")  # no clock: the step times added up
    if rows:
        md["rows"], md["rows_from"] = rows, "--rows"
    elif run.format.split("/")[0] in AVERAGED_FORMATS or run.format in AVERAGED_FORMATS:
        md["rows"], md["rows_from"] = "averaged", f"the format ({run.format}) prints interval means"
    else:
        rate = next((v for v in (_num(tab, c) for c in RATE_COLUMNS) if v is not None), None)
        md["rows"], md["rows_from"] = infer_kind(step, st, None if derived else ts, rate)
        if md["rows"] == "unknown" and is_lightning_metrics(run.source):
            md["rows"], md["rows_from"] = "sampled", ("Lightning's CSVLogger (version_N/metrics.csv) writes each "
                                                      "logged step's own on_step values")
    if derived:
        md["rows_clock"] = "none (t_s is the logged step times added up)"
    no_clock = derived or ts is None or not np.all(np.diff(ts[np.isfinite(ts)]) > 0)
    if every > 1 and md["rows"] != "averaged" and no_clock:
        md["stalls_between_rows_invisible"] = True
        return [(f"{run.source}: rows every {every} steps ({md['rows']}) without a usable clock: stalls between rows "
                "(checkpoints, epoch ends) are invisible, so the level can be too high and compare will not call "
                "such runs equivalent; log a wall clock or elapsed time, or pass --rows averaged if rows are means")]
    return []
