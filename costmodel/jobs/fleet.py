"""Out-of-core engine: a job's CSV rank logs reduced to :class:`~costmodel.jobs.aggregate.JobTables`
by DuckDB reading the files directly (extra ``fleet``).

Fast path first: when each file is one rank's clean log, :mod:`costmodel.jobs.arrowscan` (pyarrow's CSV
reader + numpy on dense per-step arrays) computes the same tables ~1.5x faster than the query below;
any file it cannot take exactly (:class:`~costmodel.jobs.arrowscan.Fallback`) sends the whole job to the
DuckDB query, which counts and names the bad rows. ``JobTables.reader`` says which path ran.

The CSV text is parsed once, in one streaming query (nothing of the rows is kept): ``read_csv``
over all files of the job with explicit column types (header names resolved like the ingest readers:
``step``/``iter``..., ``samples_per_s``/``throughput``..., ``step_time_ms``... with their unit
factors), aggregated with ``GROUPING SETS ((step), (rank, bin))``: per step (count, sum/min/max
throughput, slowest rank, the two largest step times, latest time, and the largest step time over
the ranks that are not straggler candidates) and per rank and step bin (sums, counts, first and last
step; the per-rank figures follow from them). Straggler candidates (ranks whose median step time in a
small sample of their file, 8 pieces of 4 KiB, is >= 2.5 % over the median rank's; at most 64) are
chosen before the scan; their own step times are read afterwards from their files only, so the time
lost to whichever of them turn out to be stragglers needs no second scan of the job (a straggler
outside the candidates costs one). Throughput and step time are float32 (7 significant digits): their
sums in float64 are then exact whatever order DuckDB's threads add them in, so the numbers are the
same run after run; ties in step time go to the lowest rank, as in the pandas engine. The rank comes from a ``rank`` column when
the files have one, else from each file's name (:func:`costmodel.jobs.discover.rank_from_name`, or
file order).

Rows DuckDB cannot parse (text in a number column, wrong field count) are skipped by ``read_csv`` and
counted from its rejects table; negative or non-finite values are turned to missing and counted.
Both counts are reported; more than 10 % of the rows rejected makes the job a bad input. The scan
first runs without per-row checks of the values; only when its aggregates show a negative or
non-finite value (a sum that is not finite, a minimum below 0) is it run again with them, so clean
logs (nearly all) pay for one scan and bad ones get exactly the same answer as a checked scan.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..foundation.errors import IngestError
from .aggregate import JobTables, bin_width
from .discover import RANK_COLUMNS, rank_from_name

#: ranks whose mean step time is this much over the median rank's are straggler candidates (<= MAX_CANDIDATES)
CANDIDATE_EXCESS = 0.025
MAX_CANDIDATES = 64
#: CSV inputs of a job at least this large (bytes, all files) go through the fleet engine when DuckDB is installed
#: and the files hold no column only the pandas engine aggregates (data_wait_s, gpu_util...; see ``plan_csv``).
#: 0: every size (one engine for 10 ranks and for 1,000; the pandas path below 32 MiB cost 10 ranks
#: twice the memory and 1.4x the CPU of the fleet scan, for the same answer to the last digits)
FLEET_BYTES = int(os.environ.get("COSTMODEL_FLEET_BYTES", "0"))
#: ... and from this size on whatever other columns they hold (the row-by-row readers are too slow there;
#: the columns DuckDB does not aggregate are named in a note)
FLEET_BYTES_ALWAYS = int(os.environ.get("COSTMODEL_FLEET_BYTES_ALWAYS", str(256 * 1024 * 1024)))
CSV_SUFFIXES = (".csv", ".tsv")
#: one rank per file, plain clean CSV: pyarrow + numpy (jobs.arrowscan), not the DuckDB query, which stays for
#: everything else (``benchmarks/bench_fleet.py --query`` sets this False in its child to time the query alone)
FAST_PATH = True


def duckdb_available() -> bool:
    """Whether DuckDB is installed (found, not imported: importing it takes 0.1-0.2 s of every ``fit``)."""
    import importlib.util

    try:
        return importlib.util.find_spec("duckdb") is not None
    except (ImportError, ValueError):
        return False


def _header(path: str) -> tuple[list[str], str, list[str]]:
    """The header's column names, its delimiter and the first data row's cells, from one bounded read
    (a huge file with no newline, or of NUL bytes, is never read whole)."""
    from .storage import is_url, read_ranges

    if is_url(path):  # an object (a Dask worker planning what it reads): one ranged GET
        text = read_ranges(path, [(0, 131072)])[1][0].decode("utf-8-sig", errors="replace")
        parts = text.split("\n", 2)
        line = parts[0][:65536] + ("\n" if len(parts) > 1 else "")
        first = parts[1][:65536] + "\n" if len(parts) > 2 else ""
    else:
        with open(path, encoding="utf-8-sig", errors="replace") as fh:
            line = fh.readline(65536)
            try:
                first = fh.readline(65536)
            except OSError:
                first = ""
    if "\x00" in line or (len(line) >= 65536 and not line.endswith("\n")):
        return [], ",", []  # not a CSV header: no plan; the ordinary readers say what the file is
    delim = "\t" if line.count("\t") > line.count(",") else ","
    cells = [x.strip().strip('"') for x in first.rstrip("\r\n").split(delim)] if first else []
    return [x.strip().strip('"') for x in line.rstrip("\r\n").split(delim)], delim, cells


def _relative_seconds(first_row: list[str], index: int) -> bool:
    """True when column ``index`` of the first data row is a plain number below 1e8 (seconds since the run
    started, not an epoch timestamp in s/ms/us/ns, which the full readers convert)."""
    try:
        return abs(float(first_row[index])) < 1e8
    except (ValueError, IndexError):
        return False


def plan_csv(path: str) -> dict[str, Any] | None:
    """Which header columns give rank, step, throughput, step time and time, with SI factors; None when
    the file is not a per-step CSV we can read this way (no step column, or no throughput/step time)."""
    from ..ingest.units import resolve_column

    if not str(path).lower().endswith(CSV_SUFFIXES):
        return None
    try:
        names, delim, first_row = _header(path)
    except OSError:
        return None
    plan: dict[str, Any] = {"delim": delim, "names": names}
    for n in names:
        low = n.lower()
        if low in RANK_COLUMNS and "rank" not in plan:
            plan["rank"] = n
            continue
        m = resolve_column(n)
        if m is None:
            continue
        col = m.column if hasattr(m, "column") else m[0]  # type: ignore[index]
        factor = getattr(m, "factor", 1.0)
        if col == "t_s" and getattr(m, "time_kind", None) and not (
                getattr(m, "time_kind", None) == "auto_num" and _relative_seconds(first_row, names.index(n))):
            continue  # absolute timestamps (ISO, epoch s/ms): leave to the full readers
        if col in ("step", "samples_per_s", "tokens_per_s", "step_time_s", "t_s") and col not in plan:
            plan[col] = (n, float(factor))
        elif col not in ("step", "samples_per_s", "tokens_per_s", "step_time_s", "t_s", "epoch"):
            plan.setdefault("unused", []).append(n)  # a Timeline column this engine does not aggregate
    if "step" not in plan or not ({"samples_per_s", "tokens_per_s", "step_time_s"} & plan.keys()):
        return None
    return plan


def usable(files: Sequence[str]) -> dict[str, Any] | None:
    """The common CSV plan when every file is a per-step CSV with the same header, else None."""
    plans = [plan_csv(f) for f in files]
    if not plans or any(p is None for p in plans):
        return None
    first = plans[0]
    assert first is not None
    if any(p is None or p["names"] != first["names"] for p in plans[1:]):
        return None
    return first


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _lit(s: str) -> str:
    return "'" + str(s).replace("'", "''") + "'"


def connect(memory_limit: str | None = None, threads: int | None = None) -> Any:
    from ..foundation.util import require

    duckdb = require("duckdb", "fleet", "the out-of-core fleet engine")
    con = duckdb.connect(":memory:")
    con.execute(f"SET memory_limit={_lit(memory_limit or os.environ.get('COSTMODEL_FLEET_MEMORY', '1GB'))}")
    import tempfile

    con.execute(f"SET temp_directory={_lit(os.path.join(tempfile.gettempdir(), 'costmodel-duckdb'))}")
    if threads:
        con.execute(f"SET threads={int(threads)}")
    con.execute("SET preserve_insertion_order=false")
    con.execute("SET enable_progress_bar=false")
    return con


def _source_sql(files: Sequence[str], plan: dict[str, Any], ranks: dict[str, int] | None) -> tuple[str, str]:
    """(FROM clause, rank expression)."""
    cols = {plan["step"][0]: "BIGINT"}
    for c in ("samples_per_s", "tokens_per_s", "step_time_s", "t_s"):
        if c in plan:
            cols[plan[c][0]] = "DOUBLE"
    if "rank" in plan:
        cols[plan["rank"]] = "BIGINT"
    types = "{" + ", ".join(f"{_lit(k)}: {_lit(v)}" for k, v in cols.items()) + "}"
    flist = "[" + ", ".join(_lit(f) for f in files) + "]"
    src = (f"read_csv({flist}, header=true, delim={_lit(plan['delim'])}, types={types}, "
           f"ignore_errors=true, store_rejects=true, union_by_name=false)")
    if "rank" in plan:
        return src, _q(plan["rank"])
    assert ranks is not None
    # rank per file: the reader's file_index looks up a list literal (no string compare per row)
    lst = "[" + ", ".join(str(int(ranks[f])) for f in files) + "]"
    return src, f"{lst}[CAST(file_index AS BIGINT) + 1]"


def file_ranks(files: Sequence[str]) -> tuple[dict[str, int], list[str]]:
    """Rank of each file from its name (file order where the names do not say), and notes."""
    out: dict[str, int] = {}
    notes: list[str] = []
    named = {f: rank_from_name(f) for f in files}
    if all(r is not None for r in named.values()) and len(set(named.values())) == len(files):
        return {f: int(r) for f, r in named.items()}, notes  # type: ignore[arg-type]
    dup = [r for r in named.values() if r is not None]
    if len(set(dup)) != len(dup):
        seen: dict[int, str] = {}
        for f, r in named.items():
            if r is not None and r in seen:
                raise IngestError(f"rank {r} appears twice in one job ({seen[r]} and {f})", path=f)
            if r is not None:
                seen[r] = f
    out.update({f: i for i, f in enumerate(files)})
    notes.append(f"{sum(r is None for r in named.values())} file(s) name no rank: ranks given in file order")
    return out, notes


#: sample_candidates reads SAMPLE_CHUNKS pieces of SAMPLE_BYTES bytes spread over each file
SAMPLE_CHUNKS = 8
SAMPLE_BYTES = 4096


def _sample_lines(path: str) -> bytes:
    """The whole lines inside SAMPLE_CHUNKS byte ranges of SAMPLE_BYTES spread over the file (the header,
    a partial first line and a partial last line of each range dropped)."""
    from .storage import read_ranges, size_of

    size = size_of(path)
    starts = [int((size - SAMPLE_BYTES) * k / max(1, SAMPLE_CHUNKS - 1)) if size > SAMPLE_BYTES else 0
              for k in range(SAMPLE_CHUNKS if size > SAMPLE_BYTES else 1)]
    pieces: list[bytes] = []
    for buf in read_ranges(path, [(s, SAMPLE_BYTES) for s in starts], size)[1]:
        i, j = buf.find(b"\n"), buf.rfind(b"\n")
        if 0 <= i < j:
            pieces.append(buf[i + 1:j + 1])
    return b"".join(pieces)


def _sample_step_times(path: str, col: int, delim: str, lines: bytes | None = None) -> np.ndarray:
    """Step times (file units) of the whole lines inside a few byte ranges spread over the file
    (:func:`_sample_lines`, or ``lines`` already read from it)."""
    import re

    pieces = [_sample_lines(path) if lines is None else lines]
    d = re.escape(delim.encode())
    pat = re.compile(rb"^(?:[^" + d + rb"\n]*" + d + rb"){" + str(col).encode() + rb"}[ \"]*([^" + d + rb"\n\" \r]*)",
                     re.MULTILINE)
    vals = pat.findall(b"".join(pieces))
    try:
        return np.asarray(vals, dtype="S32").astype("float64")
    except ValueError:  # a cell that is not a number: parse one by one, skipping it
        out = []
        for v in vals:
            with contextlib.suppress(ValueError):
                out.append(float(v))
        return np.asarray(out, dtype="float64")


def _parse_samples(lines: dict[str, bytes], plan: dict[str, Any], col: int) -> dict[str, np.ndarray] | None:
    """The step-time cells of every file's sampled lines in one pyarrow parse (multithreaded, outside the
    GIL: 2.5x faster than the per-file regex on 500 files), split back per file by line counts; None when
    the lines are not plain enough for it (a blank line, a quoted newline, a short row, a cell that is not
    a number): the caller then reads each file's cells with the regex, as before."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    name = plan["names"][col]
    counts = [t.count(b"\n") for t in lines.values()]
    if not lines or not sum(counts):
        return None
    try:
        tab = pacsv.read_csv(pa.py_buffer(b"".join(lines.values())),
                             read_options=pacsv.ReadOptions(column_names=plan["names"]),
                             parse_options=pacsv.ParseOptions(delimiter=plan["delim"]),
                             convert_options=pacsv.ConvertOptions(include_columns=[name],
                                                                  column_types={name: pa.float64()}))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
        return None
    if tab.num_rows != sum(counts):
        return None
    v = tab.column(0).to_numpy(zero_copy_only=False).astype("float64")
    edges = np.cumsum([0, *counts])
    return {f: v[edges[k]:edges[k + 1]] for k, f in enumerate(lines)}


def sample_medians(files: Sequence[str], plan: dict[str, Any], ranks: dict[str, int]) -> dict[int, float]:
    """Median sampled step time (file units) of each file's rank, from a few byte ranges of each file
    (:func:`_sample_lines`; the files' lines parsed together, else file by file); a file that cannot be read
    or has no usable cell is left out. {} when the files have no step time column."""
    if "step_time_s" not in plan:
        return {}
    col = plan["names"].index(plan["step_time_s"][0])
    lines: dict[str, bytes] = {}
    for f in files:
        with contextlib.suppress(OSError):
            lines[f] = _sample_lines(f)
    per_file = _parse_samples(lines, plan, col)
    med: dict[int, float] = {}
    for f, text in lines.items():
        v = per_file[f] if per_file is not None else _sample_step_times(f, col, plan["delim"], text)
        v = v[np.isfinite(v) & (v >= 0)]
        if len(v):
            med[int(ranks[f])] = float(np.median(v))
    return med


def candidates_from_medians(med: dict[int, float]) -> list[int]:
    """Ranks whose median sampled step time is >= CANDIDATE_EXCESS over the median rank's (at most
    MAX_CANDIDATES, slowest first, returned in rank order); [] for fewer than 3 ranks."""
    if len(med) < 3:
        return []
    m = float(np.median(list(med.values())))
    out = sorted((r for r, x in med.items() if x >= m * (1 + CANDIDATE_EXCESS)), key=lambda r: (-med[r], r))
    return sorted(out[:MAX_CANDIDATES])


def sample_candidates(files: Sequence[str], plan: dict[str, Any], ranks: dict[str, int]) -> list[int]:
    """Straggler candidates chosen before the scan from a sample of each file (one rank per file):
    :func:`candidates_from_medians` of :func:`sample_medians`. A miss costs only time: a straggler outside
    the candidates makes ``others_max`` scan the files once more. [] when the files have no step time column."""
    return candidates_from_medians(sample_medians(files, plan, ranks))


def ranks_from_column(files: Sequence[str], plan: dict[str, Any]) -> dict[str, int] | None:
    """Each file's rank from its first data row's rank cell (files with a rank column), or None when a
    file has no data row, the cell is not an integer or two files start with the same rank (then the
    query reads the rank of every row). The fast path checks that every row of a file has this rank."""
    col = plan["names"].index(plan["rank"])
    out: dict[str, int] = {}
    for f in files:
        try:
            _names, _d, first = _header(f)
            out[f] = int(first[col])
        except (OSError, ValueError, IndexError):
            return None
    return out if len(set(out.values())) == len(out) else None


def tables_from_csv(job_id: str, files: Sequence[str], plan: dict[str, Any] | None = None, role: str = "",
                    con: Any = None, n_bins: int | None = None, hash_files: bool = False) -> JobTables:
    """Reduce a job's CSV rank logs to JobTables with one DuckDB scan. Raises IngestError when more than
    10 % of the rows are rejected or nothing is read. ``hash_files``: the fast path computes each file's
    SHA-256 while reading it (``JobTables.sha256``; the query path leaves it to the caller)."""
    from .aggregate import N_BINS

    files = [str(f) for f in files]
    plan = plan or usable(files)
    if plan is None:
        raise IngestError("not per-step CSV logs with one common header (step and throughput or step time)",
                          path=files[0] if files else None)
    notes: list[str] = []
    ranks = None
    if "rank" not in plan:
        ranks, notes = file_ranks(files)
    thr_col = "samples_per_s" if "samples_per_s" in plan else "tokens_per_s" if "tokens_per_s" in plan else None
    n_bins = n_bins or N_BINS
    # one rank per file: from the file names, or from each file's rank column (checked on every row)
    fast_ranks = ranks if ranks is not None else ranks_from_column(files, plan) if FAST_PATH else None
    cands = sample_candidates(files, plan, fast_ranks) if fast_ranks else []
    if fast_ranks is not None and FAST_PATH:
        from . import arrowscan

        try:
            scanned = arrowscan.scan(files, plan, fast_ranks, cands, n_bins, thr_col, hash_files=hash_files,
                                     label=job_id)
        except arrowscan.Fallback:
            cands = cands if ranks is not None else []  # the query takes candidates by file only
        else:
            tabs = _tables_from_scan(job_id, role, files, plan, fast_ranks, notes, thr_col, scanned)
            tabs.sha256, tabs.file_bytes = scanned["sha256"], scanned["sizes"]
            return tabs
        # not plain clean files: the DuckDB query below counts and names what is wrong
    if sum(os.path.getsize(f) for f in files) >= 256 << 20:
        from .progress import say

        say(f"job {job_id}: DuckDB query over {len(files):,} files")
    con = con or connect()
    src, rank_expr = _source_sql(files, plan, ranks)

    def val(c: str) -> str:
        if c not in plan:
            return "CAST(NULL AS DOUBLE)"
        name, f = plan[c]
        x = f"{_q(name)} * {f!r}" if f != 1.0 else _q(name)
        return f"CASE WHEN isfinite({x}) AND {x} >= 0 THEN {x} END" if c != "t_s" else f"CASE WHEN isfinite({x}) THEN {x} END"

    def bad(c: str) -> str:
        if c not in plan or c == "t_s":
            return "FALSE"
        name, _f = plan[c]
        return f"({_q(name)} IS NOT NULL AND NOT (isfinite({_q(name)}) AND {_q(name)} >= 0))"

    # bin width from the first file's step range (one small read), so the scan stays single-pass
    lo, hi = con.execute(f"SELECT min({_q(plan['step'][0])}), max({_q(plan['step'][0])}) FROM "
                         f"read_csv({_lit(files[0])}, header=true, delim={_lit(plan['delim'])}, ignore_errors=true)").fetchone()
    bw = bin_width(int((hi or 0) - (lo or 0) + 1), n_bins)
    def rows_sql(validate: bool) -> str:
        """The rows of the job (rank, step, thr, st, t, bad). ``validate``: negative or non-finite values
        become missing and are flagged ``bad``; without it the values are taken as parsed (the fast path,
        valid when the aggregates show no such value: see ``suspicious`` below)."""
        def raw(c: str) -> str:
            if c not in plan:
                return "CAST(NULL AS DOUBLE)"
            name, f = plan[c]
            return f"{_q(name)} * {f!r}" if f != 1.0 else _q(name)
        if validate:
            thr, st, t = (val(thr_col) if thr_col else "CAST(NULL AS DOUBLE)"), val("step_time_s"), val("t_s")
            flag = f"({bad(thr_col) if thr_col else 'FALSE'} OR {bad('step_time_s')})"
        else:
            thr, st, t, flag = (raw(thr_col) if thr_col else "CAST(NULL AS DOUBLE)"), raw("step_time_s"), raw("t_s"), "FALSE"
        return (f"SELECT CAST({rank_expr} AS INTEGER) AS rank, CAST({_q(plan['step'][0])} AS BIGINT) AS step, "
                f"CAST({thr} AS FLOAT) AS thr, CAST({st} AS FLOAT) AS st, CAST({t} AS DOUBLE) AS t, {flag} AS bad FROM {src}")

    rows = rows_sql(True)
    # One streaming scan of the CSV text (no materialized copy of the rows): GROUPING SETS give the
    # per-step aggregate and the per-(rank, bin) aggregate in the same pass; per rank follows from the
    # bins. The per-step maximum over the ranks that are not straggler candidates comes from the same
    # scan: candidates are chosen before it from a small sample of each file (sample_candidates), and
    # their own step times are read afterwards from their files only.
    not_cand = f"rank NOT IN ({', '.join(str(int(c)) for c in cands)})" if cands else "TRUE"
    # slowest rank, ties to the lowest rank (as the pandas engine): for ranks < 2**20 one float64 key,
    # st * (1 + (2**20 - rank) * 2**-45): the nudge (< 2**-25 relative) is below half the spacing of
    # float32 step times, so it orders only equal ones; a (st, -rank) struct otherwise (slower)
    small_ranks = ranks is not None and bool(ranks) and max(ranks.values()) < 2**20 and min(ranks.values()) >= 0
    slow_key = ("CAST(st AS DOUBLE) * (1.0 + (1048576 - rank_) * 2.842170943040401e-14)" if small_ranks
                else "{'st': st, 'r': -rank_}")
    sql_of = lambda rows, n_bad: f"""
    SELECT CASE WHEN GROUPING(step) = 0 THEN 0 ELSE 1 END AS kind, step, rank, bin, count(*) AS n,
           sum(thr) AS thr_sum, min(thr) AS thr_min, max(thr) AS thr_max, max(st) AS st_max, sum(st) AS st_sum,
           count(st) AS st_n, max(t) AS t_max, count(t) AS t_n, min(step_) AS first_step, max(step_) AS last_step,
           {n_bad} AS n_bad, arg_max(rank_, {slow_key}) AS slowest_rank,
           CAST(max(st, 2)[2] AS DOUBLE) AS st_second, min(st) AS st_min, max(st) FILTER (WHERE {not_cand}) AS others_st,
           count(thr) AS thr_n, sum(CAST(thr * st AS FLOAT)) AS ts_sum, count(thr * st) AS ts_n
      FROM (SELECT rank, rank AS rank_, step, step AS step_, step // {bw} AS bin, thr, st, t, bad FROM ({rows}))
     GROUP BY GROUPING SETS ((step), (rank, bin))
    """  # noqa: E731  SQL template kept as a lambda
    def suspicious(res: pd.DataFrame) -> bool:
        """Whether the unvalidated aggregates show a negative or non-finite value (then the rows are read
        again with per-row validation: bad input is rare, and checking every row costs ~20 % of the scan)."""
        st0 = res[res["kind"] == 0]

        def f(c: str) -> np.ndarray:
            return st0[c].astype("float64").to_numpy()  # NULL and NaN both come back as NaN: counts tell them apart
        for s_, n_, lo in (("thr_sum", "thr_n", "thr_min"), ("st_sum", "st_n", "st_min"), ("t_max", "t_n", None)):
            has = f(n_) > 0
            if not np.isfinite(f(s_)[has]).all() or (lo is not None and (f(lo)[has] < 0).any()):
                return True
        return False

    try:
        res = con.execute(sql_of(rows_sql(False), "0")).fetch_df()
        if suspicious(res):
            for t in ("reject_errors", "reject_scans"):
                con.execute(f"DROP TABLE IF EXISTS {t}")
            res = con.execute(sql_of(rows, "count(*) FILTER (WHERE bad)")).fetch_df()
        rejected = int(con.execute("SELECT count(*) FROM reject_errors").fetchone()[0])
        rej_examples = con.execute("SELECT file_id, line, column_name, error_message FROM reject_errors "
                                   "ORDER BY file_id, line LIMIT 10").fetchall()
        file_names = dict(con.execute("SELECT file_id, file_path FROM reject_scans").fetchall()) if rejected else {}
    except Exception as exc:  # noqa: BLE001 - duckdb raises its own error types
        raise IngestError(f"could not be read as per-step CSV: {str(exc).splitlines()[0][:200]}", path=files[0]) from None
    steps = res[res["kind"] == 0].sort_values("step")
    n_rows = int(steps["n"].sum())
    n_bad = int(steps["n_bad"].sum())
    if n_rows == 0:
        raise IngestError("no data row in the job's CSV files", path=files[0])
    total_rej = rejected + n_bad
    if total_rej > 2 and total_rej > 0.1 * (n_rows + rejected):
        raise IngestError(f"{total_rej} of {n_rows + rejected} rows rejected (> 10 %); expected numeric, "
                          "non-negative step, throughput and step time", path=files[0])
    warnings = list(notes)
    if total_rej:
        warnings.append(f"job {job_id}: rejected {rejected} unparsable row(s) and {n_bad} row(s) with a negative or "
                        "non-finite value (kept as missing)")
        for fid, line, col, msg in rej_examples:
            warnings.append(f"{file_names.get(fid, files[0])}:{line} [{col}]: {str(msg).splitlines()[0][:120]}")
    steps_df = pd.DataFrame({
        "step": steps["step"].astype("int64").to_numpy(),
        "n_ranks": steps["n"].astype("int64").to_numpy(),
        "thr_sum": steps["thr_sum"].astype("float64").to_numpy(),
        "thr_min": steps["thr_min"].astype("float64").to_numpy(),
        "thr_max": steps["thr_max"].astype("float64").to_numpy(),
        "st_max": steps["st_max"].astype("float64").to_numpy(),
        "st_sum": steps["st_sum"].astype("float64").to_numpy(),
        "t_max": steps["t_max"].astype("float64").to_numpy(),
        "slowest_rank": steps["slowest_rank"].fillna(-1).astype("int64").to_numpy(),
        "st_second": steps["st_second"].astype("float64").to_numpy(),
        "ts_sum": np.where(steps["ts_n"].to_numpy() > 0, steps["ts_sum"].astype("float64").to_numpy(), np.nan),
        "ts_n": steps["ts_n"].astype("int64").to_numpy(),
    })
    bn = res[res["kind"] == 1].sort_values(["rank", "bin"])
    st_n = bn["st_n"].astype("float64").to_numpy()
    thr_n = bn["thr_n"].astype("float64").to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        bins_df = pd.DataFrame({"rank": bn["rank"].astype("int64").to_numpy(), "bin": bn["bin"].astype("int64").to_numpy(),
                                "st_mean": np.where(st_n > 0, bn["st_sum"].astype("float64").to_numpy() / st_n, np.nan),
                                "thr_mean": np.where(thr_n > 0, bn["thr_sum"].astype("float64").to_numpy() / thr_n, np.nan),
                                "n": bn["n"].astype("int64").to_numpy()})
    g = bn.assign(st_sum=bn["st_sum"].astype("float64").fillna(0.0)).groupby("rank", sort=True)
    rk_n, rk_stn, rk_sts = g["n"].sum(), g["st_n"].sum(), g["st_sum"].sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        ranks_df = pd.DataFrame({"rank": rk_n.index.astype("int64").to_numpy(), "n_steps": rk_n.astype("int64").to_numpy(),
                                 "first_step": g["first_step"].min().astype("int64").to_numpy(),
                                 "last_step": g["last_step"].max().astype("int64").to_numpy(),
                                 "st_mean": np.where(rk_stn.to_numpy() > 0,
                                                     rk_sts.to_numpy(dtype="float64") / rk_stn.to_numpy(dtype="float64"),
                                                     np.nan)})
    del res, bn, g
    multi = (steps_df["n_ranks"] >= 2) & np.isfinite(steps_df["thr_min"]) & np.isfinite(steps_df["thr_max"])
    identical = int((multi & (steps_df["thr_min"] == steps_df["thr_max"])).sum())
    all_ranks = sorted(set(ranks.values())) if ranks else sorted(int(x) for x in ranks_df["rank"])
    sources = {int(r): f for f, r in ranks.items()} if ranks else {int(r): files[0] for r in ranks_df["rank"]}
    step_index = steps_df["step"].to_numpy()

    base_other = steps["others_st"].astype("float64").to_numpy()
    del steps
    cand_st: dict[int, pd.Series] = {}
    if cands and ranks is not None:
        # the candidates' own step times, from their files only (a few of the job's files)
        cfiles = [f for f in files if ranks[f] in set(cands)]
        csrc, crank = _source_sql(cfiles, plan, {f: ranks[f] for f in cfiles})
        csrc = csrc.replace(", store_rejects=true", "")
        cdf = con.execute(f"SELECT CAST({crank} AS INTEGER) AS rank, CAST({_q(plan['step'][0])} AS BIGINT) AS step, "
                          f"CAST({val('step_time_s')} AS FLOAT) AS st FROM {csrc}").fetch_df()
        cand_st = {int(r): gr.drop_duplicates("step").set_index("step")["st"].astype("float64") for r, gr in cdf.groupby("rank")}
        del cdf

    def others_max(bad: set[int]) -> np.ndarray:
        if set(bad) <= set(cand_st):
            # the other ranks = non-candidates (maximum from the scan) + candidates that are not stragglers
            out = base_other.copy()
            for r, ser in cand_st.items():
                if r not in bad:
                    out = np.fmax(out, ser.reindex(step_index).to_numpy(dtype="float64"))
            return out
        # a straggler outside the candidates (rare): one more scan of the files
        lst = ", ".join(str(int(b)) for b in sorted(bad))
        df = con.execute(f"SELECT step, max(st) AS m FROM ({rows}) WHERE rank NOT IN ({lst}) GROUP BY step").fetch_df()
        return df.set_index("step")["m"].reindex(step_index).to_numpy(dtype="float64")

    close = None

    return JobTables(job_id=job_id, role=role, ranks_all=all_ranks, sources=sources, steps=steps_df, ranks=ranks_df,
                     bins=bins_df, bin_steps=bw, throughput_column=thr_col, identical_steps=identical,
                     multi_rank_steps=int(multi.sum()), rejected_rows=total_rej, warnings=warnings, engine="duckdb",
                     others_max=others_max, close=close, reader="duckdb")


def _tables_from_scan(job_id: str, role: str, files: list[str], plan: dict[str, Any], ranks: dict[str, int],
                      notes: list[str], thr_col: str | None, sc: dict[str, Any]) -> JobTables:
    """JobTables from :func:`costmodel.jobs.arrowscan.scan` (the same tables as the DuckDB query)."""
    from . import arrowscan

    a = sc["steps"]
    if not len(a["step"]):
        raise IngestError("no data row in the job's CSV files", path=files[0])

    def fin(x: np.ndarray, ok: np.ndarray | None = None) -> np.ndarray:
        x = np.where(np.isfinite(x), x, np.nan)
        return x if ok is None else np.where(ok, x, np.nan)
    steps_df = pd.DataFrame({
        "step": a["step"], "n_ranks": a["n"].astype("int64"),
        "thr_sum": fin(a["thr_sum"], a["thr_n"] > 0), "thr_min": a["thr_min"], "thr_max": a["thr_max"],
        "st_max": fin(a["st_max"]), "st_sum": fin(a["st_sum"], a["st_n"] > 0), "t_max": fin(a["t_max"], a["t_n"] > 0),
        "slowest_rank": a["slowest"].astype("int64"), "st_second": fin(a["st_second"], a["st_n"] > 1),
        "ts_sum": fin(a["ts_sum"], a["ts_n"] > 0), "ts_n": a["ts_n"].astype("int64"),
    })
    b = sc["bins"]
    order = np.lexsort((b[:, 1], b[:, 0]))
    b = b[order]
    with np.errstate(invalid="ignore", divide="ignore"):
        bins_df = pd.DataFrame({"rank": b[:, 0].astype("int64"), "bin": b[:, 1].astype("int64"),
                                "st_mean": np.where(b[:, 4] > 0, b[:, 3] / np.where(b[:, 4] > 0, b[:, 4], 1), np.nan),
                                "thr_mean": np.where(b[:, 6] > 0, b[:, 5] / np.where(b[:, 6] > 0, b[:, 6], 1), np.nan),
                                "n": b[:, 2].astype("int64")})
    g = pd.DataFrame({"rank": b[:, 0].astype("int64"), "n": b[:, 2], "st_sum": b[:, 3], "st_n": b[:, 4],
                      "first_step": b[:, 7], "last_step": b[:, 8]}).groupby("rank", sort=True)
    rk_n, rk_stn, rk_sts = g["n"].sum(), g["st_n"].sum().to_numpy(), g["st_sum"].sum().to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        ranks_df = pd.DataFrame({"rank": rk_n.index.astype("int64").to_numpy(), "n_steps": rk_n.astype("int64").to_numpy(),
                                 "first_step": g["first_step"].min().astype("int64").to_numpy(),
                                 "last_step": g["last_step"].max().astype("int64").to_numpy(),
                                 "st_mean": np.where(rk_stn > 0, rk_sts / np.where(rk_stn > 0, rk_stn, 1), np.nan)})
    multi = (steps_df["n_ranks"] >= 2) & np.isfinite(steps_df["thr_min"]) & np.isfinite(steps_df["thr_max"])
    identical = int((multi & (steps_df["thr_min"] == steps_df["thr_max"])).sum())
    step_index = steps_df["step"].to_numpy()
    base_other, cand_st = fin(a["others"]), sc["cand_st"]

    def others_max(bad: set[int]) -> np.ndarray:
        if set(bad) <= set(cand_st):
            out = base_other.copy()
            for r, v in cand_st.items():
                if r not in bad:
                    out = np.fmax(out, v)
            return out
        return arrowscan.others_max(files, plan, ranks, set(bad), step_index)  # a straggler outside the candidates

    return JobTables(job_id=job_id, role=role, ranks_all=sorted(set(ranks.values())),
                     sources={int(r): f for f, r in ranks.items()}, steps=steps_df, ranks=ranks_df, bins=bins_df,
                     bin_steps=int(sc["bw"]), throughput_column=thr_col, identical_steps=identical,
                     multi_rank_steps=int(multi.sum()), rejected_rows=0, warnings=list(notes), engine="duckdb",
                     others_max=others_max, close=None, reader="arrow")
