"""Report helpers at fleet size (pure): the inputs table collapsed per job, its expandable file list,
the straggler table, and the binned rank x step matrix behind the heatmap (costmodel.charts.fleet)."""
from __future__ import annotations

import hashlib
import html
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

import numpy as np
import pandas as pd

#: heatmap size: at most this many rank rows and step columns (ranks and steps binned beyond it)
HEAT_RANK_ROWS = 32
HEAT_STEP_COLS = 48


def combined_sha256(files: Sequence[Mapping[str, Any]]) -> str:
    """One SHA-256 for a set of files: the hash of the lines ``<sha256>  <file name>`` sorted by name
    (like ``sha256sum`` output), so any changed, added or removed file changes it."""
    lines = sorted(f"{f['sha256']}  {PurePosixPath(str(f['path'])).name}\n" for f in files)
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def collapse_files(files: Sequence[Mapping[str, Any]], collapse_over: int = 20) -> list[dict[str, Any]]:
    """Input-file rows (``role``, ``path``, ``format``, ``run_ids``, ``predicted``, ``size_bytes``,
    ``sha256``, ``job_id``) with a display ``file`` name; beyond ``collapse_over`` files, every job's
    files become one row: ``<job> (N files)``, bytes summed, :func:`combined_sha256`."""
    rows = [dict(f, file=PurePosixPath(str(f["path"])).name) for f in files]
    if len(rows) <= collapse_over:
        return rows
    out: list[dict[str, Any]] = []
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for f in rows:
        if f.get("job_id"):
            key = (f["role"], f["job_id"])
            if key not in groups:
                groups[key] = []
                out.append({"__group__": key})
            groups[key].append(f)
        else:
            out.append(f)
    final = []
    for f in out:
        if "__group__" not in f:
            final.append(f)
            continue
        fs = groups[f["__group__"]]
        final.append({"role": fs[0]["role"], "path": str(PurePosixPath(str(fs[0]["path"])).parent),
                      "file": f"{f['__group__'][1]} ({len(fs)} files)", "format": fs[0]["format"],
                      "run_ids": [f["__group__"][1]], "predicted": any(x.get("predicted") for x in fs),
                      "size_bytes": int(sum(x["size_bytes"] for x in fs)), "sha256": combined_sha256(fs),
                      "job_id": f["__group__"][1], "files": len(fs)})
    return final


def file_list_html(files: Sequence[Mapping[str, Any]], collapse_over: int = 20) -> str:
    """Expandable ``<details>`` per job listing every file with its size and SHA-256 ('' when not collapsed)."""
    if len(files) <= collapse_over:
        return ""
    by_job: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for f in files:
        if f.get("job_id"):
            by_job.setdefault((f["role"], f["job_id"]), []).append(f)
    parts = []
    for (role, job), fs in by_job.items():
        items = "".join(f"<li><code>{html.escape(str(f['path']))}</code> {int(f['size_bytes'])} B "
                        f"<code>{html.escape(f['sha256'])}</code></li>" for f in fs)
        parts.append(f"<details><summary>{html.escape(role)} job {html.escape(job)}: {len(fs)} files "
                     f"(combined SHA-256 <code>{combined_sha256(fs)[:16]}</code>)</summary><ul>{items}</ul></details>")
    return "".join(parts)


def straggler_table(jobs: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per straggler rank (or one per job without any): role, job, ranks, rank, excess step
    time (fraction), held-back steps, job time lost (s, fraction), incomplete ranks."""
    rows = []
    for j in jobs:
        inc = ", ".join(f"{x['rank']} ({x['steps']} steps)" for x in j.get("ranks_incomplete", [])[:5])
        base = {"role": j.get("role", ""), "job": j["job_id"], "ranks": j["ranks"],
                "lost_s": j["straggler_lost_s"], "lost_fraction": j.get("straggler_lost_fraction"),
                "incomplete_ranks": inc or "none"}
        if not j["stragglers"]:
            rows.append(dict(base, rank="none", excess_step_time_fraction=None, held_back_steps=j.get("held_back_steps", 0)))
        for s in j["stragglers"][:20]:
            rows.append(dict(base, rank=str(s["rank"]), excess_step_time_fraction=s["excess_step_time_fraction"],  # noqa: PERF401  kept as a readable loop
                             held_back_steps=s.get("held_back_steps", 0)))
    cols = ["role", "job", "ranks", "rank", "excess_step_time_fraction", "held_back_steps", "lost_s",
            "lost_fraction", "incomplete_ranks"]
    return pd.DataFrame(rows, columns=cols)


def heat_matrix(bins: pd.DataFrame, bin_steps: int, rank_rows: int = HEAT_RANK_ROWS,
                step_cols: int = HEAT_STEP_COLS) -> pd.DataFrame:
    """Binned rank x step matrix: ``rank_lo``, ``rank_hi``, ``step_lo``, ``step_hi``, ``ratio`` = the
    rank's mean step time over the job median in that bin; where several ranks share a row the
    largest ratio is kept (a straggler stays visible), several step bins share a column by mean."""
    from .aggregate import JobTables
    from .stragglers import rank_ratios

    if bins.empty:
        return pd.DataFrame(columns=["rank_lo", "rank_hi", "step_lo", "step_hi", "ratio"])
    tabs = JobTables(job_id="", role="", ranks_all=[], sources={}, steps=pd.DataFrame(), ranks=pd.DataFrame(),
                     bins=bins, bin_steps=bin_steps, throughput_column=None)
    rr = rank_ratios(tabs)
    if rr.empty:
        return pd.DataFrame(columns=["rank_lo", "rank_hi", "step_lo", "step_hi", "ratio"])
    ranks = np.sort(rr["rank"].unique())
    rpos = {r: i for i, r in enumerate(ranks)}
    per_row = int(np.ceil(len(ranks) / rank_rows))
    b0, b1 = int(rr["bin"].min()), int(rr["bin"].max())
    per_col = int(np.ceil((b1 - b0 + 1) / step_cols))
    rr = rr.assign(row=rr["rank"].map(rpos) // per_row, col=(rr["bin"] - b0) // per_col)
    cell = rr.groupby(["row", "rank", "col"])["ratio"].mean().groupby(["row", "col"]).max().reset_index()
    cell["rank_lo"] = [int(ranks[min(int(r) * per_row, len(ranks) - 1)]) for r in cell["row"]]
    cell["rank_hi"] = [int(ranks[min((int(r) + 1) * per_row, len(ranks)) - 1]) for r in cell["row"]]
    cell["step_lo"] = (b0 + cell["col"] * per_col) * bin_steps
    cell["step_hi"] = (b0 + (cell["col"] + 1) * per_col) * bin_steps - 1
    return cell[["rank_lo", "rank_hi", "step_lo", "step_hi", "ratio"]]


class RawHTML:
    """HTML shown as is in a notebook (our own markup, values escaped by the function that built it)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_html_(self) -> str:
        return self.text
