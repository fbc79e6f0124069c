"""The same reduction on a Dask cluster (extra ``distributed``): beyond one machine.

Each task reduces ONE rank log (read by the fleet engine's per-file reader,
:func:`costmodel.jobs.arrowscan.read_columns`: pyarrow's CSV reader, columns resolved by the same plan,
:func:`costmodel.jobs.fleet.plan_csv`) to a per-step partial: ``n``, throughput
sum/min/max, step time max (with its rank) and second max, sum, latest time. Partials merge
associatively (:func:`merge`), so the cluster reduces them as a tree and only per-step arrays travel,
never rows. Per rank and per bin figures come from the same tasks. When the job has stragglers, a
second pass over the other ranks' files gives the per-step maximum over them (time lost).

Cluster: ``COSTMODEL_DASK_SCHEDULER`` (an address, e.g. ``tcp://scheduler:8786``), else the active
``distributed.Client``, else a ``LocalCluster`` of 2 workers in this process (tests, laptops).
Files must be readable by the workers (a shared file system or object storage URLs).
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .aggregate import JobTables, bin_width


def _read(path: str, plan: dict[str, Any]) -> dict[str, Any]:
    from .arrowscan import (
        read_columns,  # the fleet engine's per-file reader (pyarrow CSV, plan's columns)
    )

    d = read_columns(path, plan, strict=False)
    out: dict[str, np.ndarray] = {k: d[k] for k in ("step", "samples_per_s", "tokens_per_s", "step_time_s", "t_s") if k in d}
    n = len(out["step"])
    thr_col = "samples_per_s" if "samples_per_s" in plan else "tokens_per_s" if "tokens_per_s" in plan else None
    thr = out[thr_col] if thr_col else np.full(n, np.nan)
    st = out.get("step_time_s", np.full(n, np.nan))
    bad = (np.isfinite(thr) & (thr < 0)) | (np.isfinite(st) & (st < 0))
    return {"step": out["step"].astype("int64"), "thr": np.where(bad, np.nan, thr), "st": np.where(bad, np.nan, st),
            "t": out.get("t_s", np.full(n, np.nan)), "n_bad": int(bad.sum())}


def leaf(path: str, rank: int, plan: dict[str, Any], bw: int) -> dict[str, Any]:
    """One rank's partial: per-step columns plus its rank and bin rows."""
    d = _read(path, plan)
    step, thr, st, t = d["step"], d["thr"], d["st"], d["t"]
    b = pd.DataFrame({"bin": step // bw, "st": st, "thr": thr}).groupby("bin")
    bins = pd.DataFrame({"st_mean": b["st"].mean(), "thr_mean": b["thr"].mean(), "n": b.size()}).reset_index()
    bins.insert(0, "rank", rank)
    ranks = pd.DataFrame({"rank": [rank], "n_steps": [len(step)], "first_step": [int(step.min()) if len(step) else 0],
                          "last_step": [int(step.max()) if len(step) else 0],
                          "st_mean": [float(np.nanmean(st)) if len(st) else np.nan]})
    stf = np.where(np.isfinite(st), st, -np.inf)
    return {"step": step, "n": np.ones(len(step), dtype="int64"), "thr_sum": thr, "thr_min": thr, "thr_max": thr,
            "st_max": stf, "slowest_rank": np.full(len(step), rank, dtype="int64"), "st_second": np.full(len(step), -np.inf),
            "st_sum": np.where(np.isfinite(st), st, 0.0), "t_max": np.where(np.isfinite(t), t, -np.inf),
            "bins": [bins], "ranks": [ranks], "n_bad": d["n_bad"]}


def merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Merge two partials (associative and commutative up to ties in the slowest rank)."""
    steps = np.union1d(a["step"], b["step"])
    ia, ib = np.searchsorted(steps, a["step"]), np.searchsorted(steps, b["step"])
    m = len(steps)

    def put(x: dict[str, Any], idx: np.ndarray, col: str, fill: float, dtype: str = "float64") -> np.ndarray:
        out = np.full(m, fill, dtype=dtype)
        out[idx] = x[col]
        return out

    with np.errstate(invalid="ignore"):
        n = put(a, ia, "n", 0, "int64") + put(b, ib, "n", 0, "int64")
        thr_sum = np.nansum(np.vstack([put(a, ia, "thr_sum", np.nan), put(b, ib, "thr_sum", np.nan)]), axis=0)
        both_nan = np.isnan(put(a, ia, "thr_sum", np.nan)) & np.isnan(put(b, ib, "thr_sum", np.nan))
        thr_sum[both_nan] = np.nan
        thr_min = np.fmin(put(a, ia, "thr_min", np.nan), put(b, ib, "thr_min", np.nan))
        thr_max = np.fmax(put(a, ia, "thr_max", np.nan), put(b, ib, "thr_max", np.nan))
        am, bm = put(a, ia, "st_max", -np.inf), put(b, ib, "st_max", -np.inf)
        a2, b2 = put(a, ia, "st_second", -np.inf), put(b, ib, "st_second", -np.inf)
        ar, br = put(a, ia, "slowest_rank", -1, "int64"), put(b, ib, "slowest_rank", -1, "int64")
        a_wins = am >= bm
        st_max = np.where(a_wins, am, bm)
        slowest = np.where(a_wins, ar, br)
        st_second = np.where(a_wins, np.maximum(a2, bm), np.maximum(b2, am))
    return {"step": steps, "n": n, "thr_sum": thr_sum, "thr_min": thr_min, "thr_max": thr_max, "st_max": st_max,
            "slowest_rank": slowest, "st_second": st_second,
            "st_sum": put(a, ia, "st_sum", 0.0) + put(b, ib, "st_sum", 0.0),
            "t_max": np.maximum(put(a, ia, "t_max", -np.inf), put(b, ib, "t_max", -np.inf)),
            "bins": a["bins"] + b["bins"], "ranks": a["ranks"] + b["ranks"], "n_bad": a["n_bad"] + b["n_bad"]}


def max_leaf(path: str, plan: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    d = _read(path, plan)
    return d["step"], np.where(np.isfinite(d["st"]), d["st"], -np.inf)


def max_merge(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    steps = np.union1d(a[0], b[0])
    out = np.full(len(steps), -np.inf)
    np.maximum.at(out, np.searchsorted(steps, a[0]), a[1])
    np.maximum.at(out, np.searchsorted(steps, b[0]), b[1])
    return steps, out


@contextlib.contextmanager
def client() -> Iterator[Any]:
    """The Dask client to use (see the module docstring); a LocalCluster made here is closed on exit."""
    from ..foundation.util import require

    distributed = require("distributed", "distributed", "the Dask engine")
    addr = os.environ.get("COSTMODEL_DASK_SCHEDULER")
    if addr:
        c = distributed.Client(addr)
        try:
            yield c
        finally:
            c.close()
        return
    try:
        yield distributed.get_client()
        return
    except ValueError:
        pass
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as lc, \
            distributed.Client(lc) as c:
        yield c


def _tree(c: Any, futures: list[Any], fn: Any) -> Any:
    while len(futures) > 1:
        nxt = [c.submit(fn, futures[i], futures[i + 1], pure=False) for i in range(0, len(futures) - 1, 2)]
        if len(futures) % 2:
            nxt.append(futures[-1])
        futures = nxt
    return futures[0].result()


def tables_from_csv_dask(job_id: str, files: Sequence[str], plan: dict[str, Any] | None = None, role: str = "",
                         n_bins: int | None = None) -> JobTables:
    """Reduce a job's CSV rank logs to JobTables on a Dask cluster (same result as the DuckDB engine)."""
    from ..foundation.errors import IngestError
    from .aggregate import N_BINS
    from .fleet import file_ranks, usable

    files = [str(f) for f in files]
    plan = plan or usable(files)
    if plan is None or "rank" in plan:
        raise IngestError("the Dask engine reads one rank per CSV file with a common header (step and throughput or "
                          "step time)", path=files[0] if files else None)
    ranks, notes = file_ranks(files)
    first = _read(files[0], plan)["step"]
    bw = bin_width(int(first.max() - first.min() + 1) if len(first) else 1, n_bins or N_BINS)
    with client() as c:
        futs = [c.submit(leaf, f, ranks[f], plan, bw, pure=False) for f in files]
        tot = _tree(c, futs, merge)
        others_cache: dict[Any, np.ndarray] = {}

        def others_max(bad: set[int]) -> np.ndarray:
            keep = [f for f in files if ranks[f] not in bad]
            if not keep:
                return np.full(len(tot["step"]), np.nan)
            with client() as c2:
                steps, m = _tree(c2, [c2.submit(max_leaf, f, plan, pure=False) for f in keep], max_merge)
            out = pd.Series(np.where(np.isfinite(m), m, np.nan), index=steps).reindex(tot["step"]).to_numpy()
            others_cache[tuple(sorted(bad))] = out
            return out

    fin = lambda x: np.where(np.isfinite(x), x, np.nan)  # noqa: E731  short local helper
    steps_df = pd.DataFrame({"step": tot["step"], "n_ranks": tot["n"], "thr_sum": tot["thr_sum"], "thr_min": tot["thr_min"],
                             "thr_max": tot["thr_max"], "st_max": fin(tot["st_max"]), "st_sum": tot["st_sum"],
                             "t_max": fin(tot["t_max"]), "slowest_rank": tot["slowest_rank"],
                             "st_second": fin(tot["st_second"])})
    ranks_df = pd.concat(tot["ranks"], ignore_index=True).sort_values("rank").reset_index(drop=True)
    bins_df = pd.concat(tot["bins"], ignore_index=True).sort_values(["rank", "bin"]).reset_index(drop=True)
    thr_col = "samples_per_s" if "samples_per_s" in plan else "tokens_per_s" if "tokens_per_s" in plan else None
    multi = (steps_df["n_ranks"] >= 2) & np.isfinite(steps_df["thr_min"]) & np.isfinite(steps_df["thr_max"])
    warnings = list(notes)
    if tot["n_bad"]:
        warnings.append(f"job {job_id}: {tot['n_bad']} row(s) with a negative value (kept as missing)")
    return JobTables(job_id=job_id, role=role, ranks_all=sorted(ranks.values()), sources={r: f for f, r in ranks.items()},
                     steps=steps_df, ranks=ranks_df, bins=bins_df, bin_steps=bw, throughput_column=thr_col,
                     identical_steps=int((multi & (steps_df["thr_min"] == steps_df["thr_max"])).sum()),
                     multi_rank_steps=int(multi.sum()), rejected_rows=int(tot["n_bad"]), warnings=warnings,
                     engine="dask", others_max=others_max)
