"""Ranks of one job -> one job-level series per step (pure functions on small tables).

An engine (pandas here, DuckDB in :mod:`costmodel.jobs.fleet`, Dask in :mod:`costmodel.jobs.distributed`)
reduces the rank x step rows of a job to three small tables, a :class:`JobTables`:

* ``steps``: one row per step: ``n_ranks`` present, ``thr_sum``/``thr_min``/``thr_max`` of the
  throughput column, ``st_max`` (slowest rank's step time, s), ``slowest_rank``, ``st_second`` (the
  next slowest rank's step time), ``st_sum``, ``t_max`` (latest ``t_s``) and ``ts_sum``/``ts_n`` (sum and
  count of ``throughput x step time`` over the ranks that log both: the samples each rank did in the step,
  timed on its own clock; throughput and step time as float32, product rounded to float32);
* ``ranks``: one row per rank: ``n_steps``, ``first_step``, ``last_step``, ``st_mean``;
* ``bins``: one row per rank and step bin (``bin = step // bin_steps``): ``st_mean``, ``thr_mean``, ``n``.

Job-level series (:func:`job_series`), one model for throughput and step time: a synchronous job steps
at the pace of its slowest rank, so per step

* step time = ``st_max``, the slowest rank's;
* throughput (ranks logging their own share, ``local``) = the job's samples in the step over that step
  time. A rank's samples in a step are its throughput times the time it measured it over. Ranks time
  either their own step (``rank_clock: own``: ``thr_r = batch_r / st_r``, so ``thr_r * st_r`` is the same
  every step) or the job's (``rank_clock: job``: ``thr_r = batch_r / T``, every rank waits for the slowest
  at the collective, so ``thr_r * st_max`` is the same every step); whichever of ``ts_sum`` and ``thr_sum
  * st_max`` is steadier over the steps says which (:func:`rank_clock`). Then throughput =
  ``ts_sum * n_ranks_job / ts_n / st_max`` (own) or ``thr_sum * n_ranks_job / n_present`` (job: the sum of
  the ranks' figures already is the job's). The sum of the ranks' own figures is kept as evidence
  (``ranks_throughput_sum``): with a rank 12 % slower it is about 1.5 % below the co-located job where the
  job itself is 12 % slower. A step where a rank's log has no row is scaled up by the ranks present,
  because a synchronous job cannot step without a rank: the gap is in the log, not in the job (counted in
  ``steps_scaled``); ranks logging the job's global figure (``global``) -> the value as is (the mean over
  ranks, which all show the same number);
* ``t_s`` = the latest ``t_s`` over ranks, else the cumulative job step time.

``local`` or ``global`` is detected from the data (:func:`detect_throughput_mode`): at steps with two
or more ranks, identical values across ranks in >= 99 % of them -> ``global``; in <= 50 % -> ``local``;
anything between is ambiguous and needs ``--rank-throughput local|global``.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..foundation.errors import AnalysisError

#: number of step bins per job for the rank x step heatmap and the straggler test
N_BINS = 200
GLOBAL_SHARE = 0.99
LOCAL_SHARE = 0.5
THROUGHPUT_COLUMNS = ("samples_per_s", "tokens_per_s")


@dataclass
class JobTables:
    """The reduced tables of one job (see the module docstring)."""

    job_id: str
    role: str
    ranks_all: list[int]
    sources: dict[int, str]
    steps: pd.DataFrame
    ranks: pd.DataFrame
    bins: pd.DataFrame
    bin_steps: int
    throughput_column: str | None
    identical_steps: int = 0  # steps with >= 2 ranks whose throughputs are all equal
    multi_rank_steps: int = 0
    rejected_rows: int = 0
    warnings: list[str] = field(default_factory=list)
    engine: str = "pandas"
    extra: dict[str, Any] = field(default_factory=dict)  # per-step extra columns (pandas engine only)
    #: ranks -> per-step max step time over the OTHER ranks (aligned with ``steps``); set by the engine,
    #: released (None) once the job is finished
    others_max: Any = None
    close: Any = None
    #: how the fleet engine read the files: ``arrow`` (pyarrow + numpy fast path) or ``duckdb`` (the query)
    reader: str = ""
    #: file -> SHA-256 (hex) computed while the engine read it (fast path with ``hash_files``); others: {}
    sha256: dict[str, str] = field(default_factory=dict)
    #: file -> bytes read (fast path and Dask engine; object sizes without asking the store again)
    file_bytes: dict[str, int] = field(default_factory=dict)


def bin_width(n_steps_span: int, n_bins: int = N_BINS) -> int:
    """Steps per bin so a job spans at most ``n_bins`` bins."""
    return max(1, int(np.ceil(max(1, n_steps_span) / n_bins)))


def _thr_column(runs: Sequence[Any]) -> str | None:
    for c in THROUGHPUT_COLUMNS:
        if any(c in r.table.columns and r.table[c].notna().any() for r in runs):
            return c
    return None


def tables_from_runs(job_id: str, runs: Sequence[Any], role: str = "") -> JobTables:
    """Reduce the Runs of one job's ranks (``run.rank`` set) to :class:`JobTables` with pandas."""
    thr_col = _thr_column(runs)
    parts = []
    for r in runs:
        t = r.table
        n = len(t)
        d = {"rank": np.full(n, r.rank, dtype="int64"), "step": t["step"].to_numpy(dtype="int64")}
        d["thr"] = t[thr_col].to_numpy(dtype="float64") if thr_col and thr_col in t else np.full(n, np.nan)
        d["st"] = t["step_time_s"].to_numpy(dtype="float64") if "step_time_s" in t else np.full(n, np.nan)
        d["t"] = t["t_s"].to_numpy(dtype="float64") if "t_s" in t else np.full(n, np.nan)
        for c in ("data_wait_s", "gpu_util", "read_bytes_per_s", "cache_hit_ratio", "read_latency_s"):
            d[c] = t[c].to_numpy(dtype="float64") if c in t else np.full(n, np.nan)
        parts.append(pd.DataFrame(d))
    long = pd.concat(parts, ignore_index=True)
    if not np.isfinite(long["st"]).any() and thr_col is None:
        raise AnalysisError(f"job {job_id}: its rank logs have neither a throughput nor a step time column")
    tabs = tables_from_long(job_id, long, role=role)
    tabs.throughput_column = thr_col
    tabs.sources = {int(r.rank): r.source for r in runs}
    tabs.rejected_rows = sum(len(r.rejected) for r in runs)
    # extra per-step columns: sum of byte rates, mean of fractions and latencies, max of data wait
    g = long.groupby("step", sort=True)
    with np.errstate(all="ignore"):
        tabs.extra = {
            "data_wait_s": g["data_wait_s"].max(min_count=1) if hasattr(g["data_wait_s"], "max") else None,
            "gpu_util": g["gpu_util"].mean(),
            "read_bytes_per_s": g["read_bytes_per_s"].sum(min_count=1),
            "cache_hit_ratio": g["cache_hit_ratio"].mean(),
            "read_latency_s": g["read_latency_s"].mean(),
        }
    return tabs


def tables_from_long(job_id: str, long: pd.DataFrame, role: str = "", bin_steps: int | None = None) -> JobTables:
    """Reduce a long table (``rank``, ``step``, ``thr``, ``st`` [, ``t``]) to :class:`JobTables` with pandas."""
    long = long.sort_values(["step", "rank"], kind="stable")
    if "t" not in long:
        long = long.assign(t=np.nan)
    g = long.groupby("step", sort=True)
    ts = samples_per_step(long["thr"].to_numpy(dtype="float64"), long["st"].to_numpy(dtype="float64"))
    gts = pd.Series(ts, index=long.index).groupby(long["step"], sort=True)
    steps = pd.DataFrame({
        "n_ranks": g.size(),
        "thr_sum": g["thr"].sum(min_count=1),
        "thr_min": g["thr"].min(),
        "thr_max": g["thr"].max(),
        "st_max": g["st"].max(),
        "st_sum": g["st"].sum(min_count=1),
        "t_max": g["t"].max(),
        "ts_sum": gts.sum(min_count=1),
        "ts_n": gts.count(),
    })
    # slowest rank and the next slowest per step
    ranked = long[np.isfinite(long["st"])].sort_values(["step", "st", "rank"], ascending=[True, False, True], kind="stable")
    gtop = ranked.groupby("step", sort=True)
    first = gtop.nth(0).set_index("step")
    second = gtop.nth(1).set_index("step")
    steps["slowest_rank"] = first["rank"].reindex(steps.index).fillna(-1).astype("int64")
    steps["st_second"] = second["st"].reindex(steps.index)
    steps = steps.reset_index()
    multi = steps["n_ranks"] >= 2
    finite = np.isfinite(steps["thr_min"]) & np.isfinite(steps["thr_max"])
    identical = int((multi & finite & (steps["thr_min"] == steps["thr_max"])).sum())
    gr = long.groupby("rank", sort=True)
    ranks = pd.DataFrame({
        "n_steps": gr.size(),
        "first_step": gr["step"].min(),
        "last_step": gr["step"].max(),
        "st_mean": gr["st"].mean(),
    }).reset_index()
    s0, s1 = int(long["step"].min()), int(long["step"].max())
    bw = bin_steps or bin_width(s1 - s0 + 1)
    lb = long.assign(bin=(long["step"] // bw).astype("int64"))
    gb = lb.groupby(["rank", "bin"], sort=True)
    bins = pd.DataFrame({"st_mean": gb["st"].mean(), "thr_mean": gb["thr"].mean(), "n": gb.size()}).reset_index()
    step_index = steps["step"].to_numpy()

    def others_max(bad: set[int]) -> np.ndarray:
        keep = long[~long["rank"].isin(list(bad))]
        return keep.groupby("step")["st"].max().reindex(step_index).to_numpy(dtype="float64")

    return JobTables(job_id=job_id, role=role, ranks_all=sorted(int(x) for x in ranks["rank"]), sources={},
                     steps=steps, ranks=ranks, bins=bins, bin_steps=bw, throughput_column="samples_per_s",
                     identical_steps=identical, multi_rank_steps=int((multi & finite).sum()), others_max=others_max)


def samples_per_step(thr: np.ndarray, st: np.ndarray) -> np.ndarray:
    """Each row's samples in its step on the rank's own clock, ``thr * st``, as every engine computes it:
    both rounded to float32 and the product rounded to float32 (then sums in float64 do not depend on the
    order the rows are added in); NaN where either is missing."""
    with np.errstate(invalid="ignore", over="ignore"):
        return (thr.astype("float32") * st.astype("float32")).astype("float64")


#: ``rank_clock`` needs the steadier series to be at least this much steadier (ratio of dispersions)
CLOCK_MARGIN = 0.8


def rank_clock(tabs: JobTables) -> tuple[str, str]:
    """Whether ranks time their throughput on their own step (``own``) or on the job's (``job``), with the
    evidence: per step, the job's samples are ``ts_sum`` (own clock) or ``thr_sum * st_max`` (job clock),
    both scaled to all ranks; the steadier of the two over the steps (median absolute deviation relative to
    the median) is the ranks' clock. ``job`` when it cannot be told (no step time, one rank, no ``ts_sum``)."""
    st = tabs.steps
    if tabs.throughput_column is None or "ts_sum" not in st or len(tabs.ranks_all) < 2:
        return "job", "one rank or no throughput and step time on the same rows"
    n_job = float(len(tabs.ranks_all))
    with np.errstate(invalid="ignore", divide="ignore"):
        own = st["ts_sum"].to_numpy(dtype="float64") * n_job / st["ts_n"].to_numpy(dtype="float64")
        job = (st["thr_sum"].to_numpy(dtype="float64") * st["st_max"].to_numpy(dtype="float64") * n_job
               / st["n_ranks"].to_numpy(dtype="float64"))
    ok = np.isfinite(own) & np.isfinite(job) & (own > 0) & (job > 0)
    if ok.sum() < 8:
        return "job", "fewer than 8 steps with throughput and step time on the same rows"

    def spread(x: np.ndarray) -> float:
        m = float(np.median(x))
        return float(np.median(np.abs(x - m)) / m)
    d_own, d_job = spread(own[ok]), spread(job[ok])
    ev = (f"samples per step = throughput x own step time varies {d_own:.2%} (median absolute deviation), "
          f"throughput x the job's step time {d_job:.2%}")
    if d_own < CLOCK_MARGIN * d_job:
        return "own", ev + ": ranks time their own step; the job's throughput is its samples over the slowest rank's step time"
    return "job", ev + ": ranks time the job's step; the sum of their figures is the job's throughput"


def detect_throughput_mode(tabs: JobTables, override: str | None = None) -> tuple[str, str]:
    """``local`` (ranks log their own share: sum them) or ``global`` (every rank logs the job's figure),
    with the evidence. ``override`` (``--rank-throughput``) wins. Raises AnalysisError when the data is
    ambiguous and no override is given."""
    if override in ("local", "global"):
        return override, f"--rank-throughput {override}"
    if override not in (None, "", "auto"):
        raise AnalysisError(f"--rank-throughput must be local, global or auto; got {override!r}")
    n, same = tabs.multi_rank_steps, tabs.identical_steps
    if tabs.throughput_column is None or n == 0:
        return "local", "no throughput logged by two ranks at one step (step time only)"
    share = same / n
    ev = f"identical throughput across ranks at {same} of {n} steps ({share:.1%})"
    if share >= GLOBAL_SHARE:
        return "global", ev + ": each rank logs the job's global figure, taken as is"
    if share <= LOCAL_SHARE:
        return "local", ev + ": each rank logs its own share, summed over ranks"
    raise AnalysisError(f"job {tabs.job_id}: cannot tell whether ranks log their own or the global throughput ({ev}); "
                        "pass --rank-throughput local|global")


def incomplete_ranks(tabs: JobTables) -> list[dict[str, Any]]:
    """Ranks whose log ends before the job's last step or misses steps: rank, steps, last_step,
    missing_steps (steps of the job it has no row for), source."""
    total = len(tabs.steps)
    last = int(tabs.steps["step"].max()) if total else 0
    out = []
    row: Any  # itertuples rows: the stubs type attributes as any scalar
    for row in tabs.ranks.itertuples(index=False):
        missing = total - int(row.n_steps)
        if missing > 0:
            out.append({"rank": int(row.rank), "steps": int(row.n_steps), "last_step": int(row.last_step),
                        "missing_steps": int(missing), "ended_early": bool(int(row.last_step) < last),
                        "source": tabs.sources.get(int(row.rank), "")})
    for rk in tabs.ranks_all:
        if rk not in {int(x) for x in tabs.ranks["rank"]}:
            out.append({"rank": int(rk), "steps": 0, "last_step": None, "missing_steps": total, "ended_early": True,  # noqa: PERF401  kept as a readable loop
                        "source": tabs.sources.get(int(rk), "")})
    return out


def job_series(tabs: JobTables, mode: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The job-level Timeline table (step, t_s, throughput column, step_time_s, extras) and facts
    (``steps_scaled``: steps where ranks were missing and local throughput was scaled)."""
    st = tabs.steps
    n_job = len(tabs.ranks_all)
    present = st["n_ranks"].to_numpy(dtype="float64")
    out = pd.DataFrame({"step": st["step"].to_numpy(dtype="int64")})
    scaled = 0
    stmax = st["st_max"].to_numpy(dtype="float64")
    facts: dict[str, Any] = {"rank_count": n_job}
    if tabs.throughput_column:
        ranks_sum = st["thr_sum"].to_numpy(dtype="float64") * n_job / present
        if mode == "global":
            thr = st["thr_sum"].to_numpy(dtype="float64") / present
            facts["rank_clock"], facts["rank_clock_evidence"] = "job", "each rank logs the job's global figure"
        else:
            scaled = int((present < n_job).sum())
            clock, ev = rank_clock(tabs)
            facts["rank_clock"], facts["rank_clock_evidence"] = clock, ev
            thr = ranks_sum
            if clock == "own":
                with np.errstate(invalid="ignore", divide="ignore"):
                    samples = st["ts_sum"].to_numpy(dtype="float64") * n_job / st["ts_n"].to_numpy(dtype="float64")
                    sync = samples / stmax
                thr = np.where(np.isfinite(sync) & (stmax > 0), sync, ranks_sum)
        out[tabs.throughput_column] = thr
        fin = np.isfinite(thr) & np.isfinite(ranks_sum)
        if mode != "global" and fin.any():
            facts["ranks_throughput_sum"] = float(np.mean(ranks_sum[fin]))
            facts["job_throughput"] = float(np.mean(thr[fin]))
    out["step_time_s"] = stmax
    t = st["t_max"].to_numpy(dtype="float64")
    if np.isfinite(t).all() and len(t):
        out["t_s"] = t
    elif np.isfinite(stmax).all() and len(stmax):
        out["t_s"] = np.cumsum(stmax)
    for c, ser in (tabs.extra or {}).items():
        if ser is None:
            continue
        v = ser.reindex(st["step"]).to_numpy(dtype="float64")
        if np.isfinite(v).any():
            out[c] = v
    facts["steps_scaled"] = scaled
    return out, facts
