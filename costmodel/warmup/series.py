"""Turn a Run (or a Timeline DataFrame) into the arrays the analysis needs.

A :class:`Series` holds, per observation ``i``: the metric ``y[i]`` (a rate such as samples/s), the
observation's duration ``d[i]`` in seconds, the work done ``w[i] = y[i] * d[i]`` (samples, tokens or
bytes) and the elapsed time at its start ``t0[i]``. Levels over a window are then ratios of sums,
``sum(w) / sum(d)``, never means of per-step rates.

Durations come from, in order: ``step_time_s``; the differences of ``t_s`` (end of each
observation); or, when the run has no time information, the assumption that every observation did
the same work (``d = 1 / y``, so the level is the harmonic mean of the rates).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..foundation.errors import AnalysisError

#: Default metric and its fall-backs, in order (chosen per run when no metric is given).
DEFAULT_METRICS = (
    "samples_per_s",
    "tokens_per_s",
    "read_bytes_per_s",
    "write_bytes_per_s",
    "read_iops",
    "write_iops",
)
#: Metrics that are rates (their level is a ratio of sums); any other is averaged per observation.
RATE_METRICS = (
    "samples_per_s",
    "tokens_per_s",
    "read_bytes_per_s",
    "write_bytes_per_s",
    "read_iops",
    "write_iops",
)
AXES = ("step", "t_s")
#: Metrics where lower is better (times, latencies). ``step_time_s`` is analysed as time per step:
#: internally as steps per second (work = steps, duration = step time x steps of the row), so that a
#: falling step time is a warm-up and the level is the mean step time ``sum(d) / n``.
LOWER_IS_BETTER = ("step_time_s", "data_wait_s", "read_latency_s")
#: Name endings of times and latencies (lower is better), besides ``*_s`` that is not ``*_per_s``.
LOWER_SUFFIXES = ("_ms", "_us", "_ns", "_sec", "_secs", "_seconds")
#: Fallback when a run has none of DEFAULT_METRICS (a log that prints a step time only).
FALLBACK_METRICS = ("step_time_s",)


def metric_direction(metric: str) -> str:
    """``lower_is_better`` for times and latencies (``*_s`` metrics that are not rates, ``*_ms``, ``*_us``,
    ``latency*``, ``*_latency``), else ``higher_is_better``."""
    m = metric.lower()
    if metric in LOWER_IS_BETTER or (m.endswith("_s") and not m.endswith("_per_s")) or m.endswith(LOWER_SUFFIXES):
        return "lower_is_better"
    if (m.startswith("latency") or m.endswith("latency")) and "_per_" not in m:
        return "lower_is_better"
    return "higher_is_better"


@dataclass
class Series:
    """The analysed arrays of one run (all the same length, sorted by step)."""

    run_id: str
    role: str
    metric: str
    axis: str
    step: np.ndarray
    y: np.ndarray
    d: np.ndarray
    w: np.ndarray
    t0: np.ndarray
    time_source: str
    is_rate: bool
    table: pd.DataFrame
    fmt: str = ""
    source: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    dropped: int = 0
    warnings: list[str] = field(default_factory=list)
    direction: str = "higher_is_better"
    #: True when the metric is a time per step analysed as its reciprocal (steps per second): levels
    #: are turned back into seconds per step when reported.
    inverted: bool = False

    @property
    def n(self) -> int:
        return int(len(self.y))

    @property
    def x(self) -> np.ndarray:
        """The fitting axis: step numbers, or elapsed seconds at the middle of each observation."""
        if self.axis == "t_s":
            return self.t0 + 0.5 * self.d
        return self.step.astype(float)

    def level(self, lo: int = 0, hi: int | None = None, mask: np.ndarray | None = None) -> float:
        """Ratio of sums over observations ``lo..hi-1`` (optionally only where ``mask`` is True)."""
        sl = slice(lo, self.n if hi is None else hi)
        w, d = self.w[sl], self.d[sl]
        if mask is not None:
            m = mask[sl]
            w, d = w[m], d[m]
        den = float(np.sum(d))
        return float(np.sum(w) / den) if den > 0 else float("nan")


def _table_of(run: Any) -> tuple[pd.DataFrame, str, str, str, str, dict[str, Any]]:
    if isinstance(run, pd.DataFrame):
        df = run
        rid = str(df["run_id"].iloc[0]) if "run_id" in df.columns and len(df) else "run"
        role = str(df["role"].iloc[0]) if "role" in df.columns and len(df) else ""
        return df, rid, role if role != "<NA>" else "", "", "", dict(getattr(df, "attrs", {}) or {})
    if hasattr(run, "table") and hasattr(run, "run_id"):
        return run.table, run.run_id, run.role or "", run.format, run.source, dict(run.metadata or {})
    raise AnalysisError(f"expected a costmodel Run or a Timeline DataFrame, got {type(run).__name__}")


def _col(df: pd.DataFrame, name: str) -> np.ndarray | None:
    if name not in df.columns:
        return None
    v = pd.to_numeric(df[name], errors="coerce").to_numpy(dtype=float)
    return v if np.isfinite(v).any() else None


def choose_metric(df: pd.DataFrame, metric: str | None, run_id: str) -> str:
    """The metric to analyse; raises AnalysisError naming what the run has."""
    have = [c for c in df.columns if c not in ("run_id", "role", "step") and _col(df, c) is not None]
    if metric is None:
        for m in DEFAULT_METRICS + FALLBACK_METRICS:
            if m in have:
                return m
        raise AnalysisError(
            f"run {run_id!r} has none of {', '.join(DEFAULT_METRICS + FALLBACK_METRICS)} to analyse; "
            f"it has: {', '.join(have) or 'no numeric column'} (pick one with --metric)"
        )
    if metric not in df.columns:
        raise AnalysisError(
            f"run {run_id!r} has no column {metric!r}; available: {', '.join(have) or 'none'}"
        )
    if metric not in have:
        raise AnalysisError(f"run {run_id!r}: metric {metric!r} is empty (all values missing)")
    return metric


#: the largest magnitude a series may hold: its squares summed over a run stay finite (values near 1e308
#: made fit and compare fail with numpy overflow warnings and an internal error)
MAX_ABS_VALUE = 1e150


def cadence_steps(step: np.ndarray) -> int:
    """Steps between logged rows: the median step gap (1 for a per-step log)."""
    k = np.diff(step[np.isfinite(step)])
    k = k[k > 0]
    return int(round(float(np.median(k)))) if len(k) else 1


def _rows_of_step_times(y: np.ndarray, d: np.ndarray, sk: np.ndarray, every: int, keep: np.ndarray,
                        time_source: str) -> tuple[np.ndarray, np.ndarray | None, str]:
    """Rows every N steps without a clock but with a step time: a row covering ``k`` steps lasted ``k`` x its step
    time (an averaged row: exactly; a sampled row: as if every step ran at the logged one's pace) and did ``k`` x
    its work per step, so the seconds lost to a warm-up are seconds of the run, not of the logged steps alone."""
    if time_source != "step_time_s":
        return d, None, time_source
    k = np.concatenate([[float(min(sk[0] + 1, every)) if sk[0] >= 0 else float(every)], np.diff(sk).astype(float)])
    d_out = np.full(len(y), np.nan)
    d_out[keep] = k * d[keep]
    return d_out, d_out * y, time_source


#: an elapsed clock's time before the first row is taken as that row's duration up to this many times a typical
#: row's time (a clock that also counts the set-up before training, model load or compilation, is no cold phase)
FIRST_ROW_MAX_TYPICAL = 20.0


def _first_row_seconds(est: float, sk: np.ndarray, every: int, tk: np.ndarray, per_dt: np.ndarray, k0: float,
                       meta: dict[str, Any]) -> float:
    """The first row's duration: the time an elapsed clock shows before it (``elapsed_at_first_row_s`` beside an
    absolute clock, or ``t_s`` itself when the clock is elapsed time) when the row is the run's first interval
    (step < ``every``) and that time is at most :data:`FIRST_ROW_MAX_TYPICAL` typical rows; else ``est``.
    A clock that starts at the first logged row (an absolute one) cannot show the first interval's time: there the
    first row is taken as no faster than the second (``est``), a lower bound on a cold start."""
    elapsed = meta.get("elapsed_at_first_row_s")
    if elapsed is None and "start_epoch_s" not in meta and not str(meta.get("t_s_from", "")).startswith("cumsum"):
        elapsed = float(tk[0])
    if elapsed is None or not sk[0] < every or not 0 < float(elapsed) <= FIRST_ROW_MAX_TYPICAL * k0 * float(
            np.median(per_dt)):
        meta["first_row_s_from"] = "no faster than the next row (the clock does not show the time before it)"
        return est
    meta["first_row_s_from"] = "the elapsed clock at the first row (time since the run started)"
    return float(elapsed)


#: averaged rows use steps x their step time instead of a clock whose tick is this share of the rows' spacing
COARSE_CLOCK = 0.05


def _clock_resolution(tk: np.ndarray) -> float:
    """The clock's tick in seconds: 1 when every value (seconds since the first row) is a whole second, else 0."""
    fr = np.abs(tk - np.round(tk))
    return 1.0 if len(tk) >= 3 and bool(np.all(fr < 1e-6)) else 0.0


def _rows_between_clock(y: np.ndarray, d: np.ndarray, step: np.ndarray, st: np.ndarray | None,
                        ts: np.ndarray | None, keep: np.ndarray, time_source: str, meta: dict[str, Any],
                        warnings: list[str]) -> tuple[np.ndarray, np.ndarray | None, str]:
    """Rows every N steps: the rate from the steps between rows x work per step / the clock's seconds.

    A row that covers ``k`` steps (the step gap) did ``k`` x (its work per step) in the clock's time since the
    previous row, stalls between the rows included. Work per step is the row's rate x its step time (a sampled
    row: that step's batch; an averaged row: the interval's mean batch), else rate x clock seconds / k (an averaged
    row without a step time). Returns (durations, work or None, time source). A per-step log, a log without a
    strictly increasing clock, or sampled rows without a step time keep their durations (the last with a warning).
    """
    sk = step[keep]
    every = cadence_steps(sk)
    if every <= 1 or len(sk) < 3:
        return d, None, time_source
    rows = str(meta.get("rows") or "")
    tk = ts[keep] if ts is not None and not str(meta.get("t_s_from", "")).startswith("cumsum(step_time_s)") else None
    if tk is None or not np.all(np.isfinite(tk)) or not np.all(np.diff(tk) > 0):
        if rows != "averaged":
            warnings.append(f"rows every {every} steps without a usable clock: stalls between the rows (checkpoints, "
                            "epoch ends) are invisible, so the level is that of the logged steps; compare does not "
                            "call such runs equivalent (log a wall clock or elapsed time, or every step)")
            meta["stalls_between_rows_invisible"] = True
        return _rows_of_step_times(y, d, sk, every, keep, time_source)
    k = np.diff(sk).astype(float)
    k0 = float(min(sk[0] + 1, every)) if sk[0] >= 0 else float(every)
    k = np.concatenate([[k0], k])
    stk = st[keep] if st is not None else None
    dt = np.diff(tk)
    res = _clock_resolution(tk)
    if rows == "averaged" and time_source == "step_time_s" and res >= COARSE_CLOCK * float(np.median(dt)):
        # interval means with their step time, and a clock in whole seconds a few seconds apart (Megatron's
        # [YYYY-MM-DD HH:MM:SS]): steps x the mean step time is the interval's duration; the clock only adds noise
        meta["clock_too_coarse"] = (f"the clock ticks in {res:g} s, rows are {float(np.median(dt)):.3g} s apart: "
                                    "durations from steps x the rows' mean step time")
        return _rows_of_step_times(y, d, sk, every, keep, time_source)
    per_dt = dt / k[1:]  # clock seconds per step between rows
    if stk is not None and np.all(np.isfinite(stk) & (stk > 0)):
        per_step = y[keep] * stk
        # the first row has no clock before it: an averaged row's mean step time is its duration; a sampled
        # row is taken no faster than the row after it (a warm-up only gets faster) nor the run's median
        first = k0 * float(stk[0]) if rows == "averaged" else k0 * max(float(np.median(per_dt)), float(per_dt[0]))
    elif rows == "averaged":
        per_step = np.concatenate([[np.nan], y[keep][1:] * dt / k[1:]])
        # interval means: the work per step is the same on every row (the batch), so the first row lasted
        # k0 x that work over its own rate (its mean), cold or not
        per_step[0] = float(np.median(per_step[1:]))
        first = k0 * per_step[0] / float(y[keep][0]) if y[keep][0] > 0 else k0 * float(np.median(per_dt))
    elif rows == "sampled":
        # one step's rate and no step time: the work per step is what the clock implies on a typical row (the
        # median of rate x seconds between rows / steps; rows spanning a stall scatter high and do not move it)
        u = y[keep][1:] * dt / k[1:]
        u = u[np.isfinite(u) & (u > 0)]
        if len(u) < 2:
            return d, None, time_source
        work = float(np.median(u))
        per_step = np.full(len(sk), work)
        meta["work_per_step_from_clock"] = work
        meta["work_per_step_scatter"] = float(np.quantile(np.abs(u / work - 1.0), 0.5))
        warnings.append(f"sampled rows every {every} steps without a step time: the work per step is taken as the "
                        f"median of rate x clock seconds between rows / steps ({work:.4g}); the rate "
                        "between rows is that work over the clock's seconds (stalls included); log the step time or "
                        "every step to remove this estimate")
        first = k0 * max(float(np.median(per_dt)), float(per_dt[0]))
    else:
        return d, None, time_source
    first = _first_row_seconds(first, sk, every, tk, per_dt, k0, meta)
    dd = np.concatenate([[first], dt])
    d_out = np.full(len(y), np.nan)
    d_out[keep] = dd
    w_out = np.full(len(y), np.nan)
    w_out[keep] = k * per_step
    return d_out, w_out, "clock_between_rows"


def _durations(y: np.ndarray, st: np.ndarray | None, ts: np.ndarray | None, keep: np.ndarray, is_rate: bool,
               metric: str, axis: str, rid: str, warnings: list[str]) -> tuple[np.ndarray, str, np.ndarray]:
    """Each observation's seconds: ``step_time_s``, else differences of ``t_s``, else equal work (see the module
    docstring). Returns (durations, time source, kept rows); raises AnalysisError for ``--axis t_s`` without time."""
    n0 = len(y)
    time_source = "constant_work"
    d = None
    if st is not None and np.all(np.isfinite(st[keep]) & (st[keep] > 0)):
        d = st
        time_source = "step_time_s"
    elif ts is not None and np.all(np.isfinite(ts[keep])):
        tk = ts[keep]
        dd = np.diff(tk)
        if len(tk) >= 2 and np.all(dd > 0):
            first = tk[0] if tk[0] > 0 else float(np.median(dd))
            d_k = np.concatenate([[first], dd])
            d = np.full(n0, np.nan)
            d[keep] = d_k
            time_source = "t_s"
    if d is None:
        if ts is not None:
            warnings.append("t_s is not strictly increasing over the kept rows; durations are taken as equal work "
                            "per observation instead")
        if is_rate:
            warnings.append(f"no usable step_time_s or t_s: every observation is assumed to do the same work, so "
                            f"levels are harmonic means of {metric}")
            keep &= y > 0
            d = np.where(keep, 1.0 / np.where(y > 0, y, 1.0), np.nan)
        else:
            d = np.ones(n0)
        if axis == "t_s":
            raise AnalysisError(
                f"run {rid!r}: --axis t_s needs t_s or step_time_s, and the run has neither "
                "(or t_s is not increasing)"
            )
    return d, time_source, keep


def _as_steps_per_second(y: np.ndarray, d: np.ndarray, step: np.ndarray, ts: np.ndarray | None, keep: np.ndarray,
                         metric: str, time_source: str, t0: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, str]:
    """A positive time per step analysed as steps per second. Returns (y, d, w, t0, time source)."""
    # time per step (step_time_s, and any other lower-is-better metric that is a positive time or
    # latency per step), analysed as steps per second: a row covering k steps (the step increments)
    # lasted y * k "seconds of that metric" and did k steps of work, so a falling time is a warm-up
    # and a level is the mean time per step sum(y * k) / sum(k). For step_time_s those are real
    # seconds; for another metric the durations stay those of the log (t0 from t_s) when it has them
    k = np.diff(step).astype(float)
    k0 = float(np.median(k)) if len(k) else 1.0
    if metric == "step_time_s" and step[0] > 0 and ts is not None and np.isfinite(ts[keep][0]) and ts[keep][0] > 0:
        # the first row covers steps 1..step[0] when t_s there matches step[0] step times
        t_first = float(ts[keep][0])
        k0 = float(step[0]) if abs(step[0] * y[0] - t_first) <= 0.05 * t_first else k0
    k = np.concatenate([[k0], k]) if len(k) else np.array([1.0])
    if not np.all(k > 0):
        k = np.ones(len(y))
    d_real = d
    d = y * k
    w = k.copy()
    y = 1.0 / y
    if metric == "step_time_s":
        time_source = "step_time_s"
        t0 = np.concatenate([[0.0], np.cumsum(d)[:-1]])
        if ts is not None and np.all(np.isfinite(ts[keep])):
            t0 = ts[keep] - d
    elif time_source == "constant_work":
        t0 = np.cumsum(np.concatenate([[0.0], d_real[:-1]])) if d_real is not None else np.arange(len(y), dtype=float)
    return y, d, w, t0, time_source


def resume_warnings(meta: dict[str, Any]) -> list[str]:
    """One warning per resume named at ingest (``metadata.resumes``): the clock's gap and what was left out."""
    return [f"the run resumes after step {r['after_step']} (at step {r['resumed_at_step']}): a gap of "
            f"{r['gap_s']:.1f} s on the clock; {r.get('left_out_s', 0.0):.1f} s (downtime, replayed steps) left out "
            "of the elapsed time" for r in meta.get("resumes") or []]


def prepare(run: Any, metric: str | None = None, axis: str = "step") -> Series:
    """Extract the metric and the time base of ``run``. Raises AnalysisError on unusable input."""
    if axis not in AXES:
        raise AnalysisError(f"axis must be one of {', '.join(AXES)}; got {axis!r}")
    df, rid, role, fmt, source, meta = _table_of(run)
    if len(df) == 0:
        raise AnalysisError(f"run {rid!r} has no rows")
    metric = choose_metric(df, metric, rid)
    if "step" in df.columns:
        df = df.sort_values("step", kind="stable")
    y = _col(df, metric)
    assert y is not None  # choose_metric guarantees it
    n0 = len(y)
    step = (
        pd.to_numeric(df["step"], errors="coerce").to_numpy(dtype=float)
        if "step" in df.columns
        else np.arange(n0, dtype=float)
    )
    st = _col(df, "step_time_s")
    ts = _col(df, "t_s")
    is_rate = metric in RATE_METRICS
    keep = np.isfinite(y) & np.isfinite(step)
    if is_rate:
        keep &= y >= 0
    for name, col in ((metric, y), ("step", step), ("step_time_s", st), ("t_s", ts)):
        big = float(np.max(np.abs(col[keep & np.isfinite(col)]), initial=0.0)) if col is not None else 0.0
        if big > MAX_ABS_VALUE:
            raise AnalysisError(f"run {rid!r}: {name} holds values up to {big:.4g}, beyond {MAX_ABS_VALUE:g} where sums "
                                "of squares overflow 64-bit floats; check the column's unit or the file")
    warnings = resume_warnings(meta)
    d, time_source, keep = _durations(y, st, ts, keep, is_rate, metric, axis, rid, warnings)
    if is_rate and d is not None:
        d, w_rows, time_source = _rows_between_clock(y, d, step, st, ts, keep, time_source, meta, warnings)
    else:
        w_rows = None
    dropped = int(n0 - keep.sum())
    if dropped:
        warnings.append(f"{dropped} observation(s) without a usable {metric} value were ignored")
    direction = metric_direction(metric)
    y = y[keep]
    d = d[keep]
    step = step[keep].astype("int64")
    w = y * d  # for rates and non-rates alike; for non-rates w/d is a duration-weighted mean
    if w_rows is not None:
        w = w_rows[keep]
        y = np.where(d > 0, w / np.where(d > 0, d, 1.0), y)  # the rate between rows, stalls included
    t0 = np.concatenate([[0.0], np.cumsum(d)[:-1]]) if len(d) else np.zeros(0)
    if time_source == "t_s" and ts is not None:
        t_end = ts[keep]
        t0 = t_end - d
    inverted = False
    if direction == "lower_is_better" and len(y) and np.all(y > 0):
        y, d, w, t0, time_source = _as_steps_per_second(y, d, step, ts, keep, metric, time_source, t0)
        is_rate = inverted = True
    if not np.all(np.isfinite(y)):
        raise AnalysisError(f"run {rid!r}: metric {metric!r} has non-finite values after cleaning")
    if len(y) == 0:
        raise AnalysisError(f"run {rid!r}: metric {metric!r} has no usable value")
    return Series(
        run_id=rid,
        role=role,
        metric=metric,
        axis=axis,
        step=step,
        y=y,
        d=d,
        w=w,
        t0=t0,
        time_source=time_source,
        is_rate=is_rate,
        table=df.loc[keep],
        fmt=fmt,
        source=source,
        metadata=meta,
        dropped=dropped,
        warnings=warnings,
        direction=direction,
        inverted=inverted,
    )
