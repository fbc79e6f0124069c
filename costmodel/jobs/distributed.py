"""The fleet reduction on a Dask cluster (extra ``distributed``): beyond one machine.

The workers do the reading: each task takes a batch of rank logs (local paths on a shared file system,
or object-store URLs that the worker reads itself with the credentials of its own environment: no
file is downloaded by the client and no client path is sent), reads each one once (hashing it in the
same pass) with the fleet engine's reader (:func:`costmodel.jobs.arrowscan.clean_file`) and folds it
into dense per-step accumulators (:class:`costmodel.jobs.arrowscan.Acc`). Partials merge
associatively (:func:`costmodel.jobs.arrowscan.merge_acc`, a tree on the cluster): a partial is O(steps)
whatever the number of ranks (plus 64 bin rows per rank and the step times of at most 64 straggler
candidates), so merges do not grow with the rank count. Memory per worker thread: one partial
(16 arrays of 8 bytes per step: 12.8 MB at 100,000 steps) plus one file and its columns at a time.

Everything before the scan runs on the workers too: the CSV plan of every file (its header), the
straggler candidates (a few KiB sampled from each file) and the bin width (the first file's step
range). The answer is the fleet engine's, to the bit (same reader, same fold, same tie rules). Files
the fast reader cannot take exactly (a bad cell, a repeated step) make the job go through the DuckDB
query in this process when the files are local; for objects it is a one-line error.

Cluster: ``COSTMODEL_DASK_SCHEDULER`` (an address, e.g. ``tcp://scheduler:8786``), else the active
``distributed.Client``, else a ``LocalCluster`` of 2 workers in this process (tests, laptops).
``COSTMODEL_DASK_FILES_PER_TASK`` sets the batch (default: about four tasks per worker thread, fewer for a small job
of local files (at least ``TASK_BYTES`` a task, a multiple of the thread count), at most 64 files).
"""
from __future__ import annotations

import contextlib
import math
import os
import re
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .aggregate import JobTables, bin_width

#: most files one task reads
MAX_FILES_PER_TASK = 64


# --- worker side (module functions: pickled by reference) -------------------------------------------

#: glibc ``mallopt`` parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
#: while a task folds files: blocks up to this size come from the heap and stay there between files
ROOMY_BYTES = 64 << 20


@contextlib.contextmanager
def roomy_malloc() -> Iterator[None]:
    """Let glibc keep freed memory in the heap while a task runs, then give it back.

    Dask's nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536`` (``distributed.nanny.pre-spawn-environ``),
    which also turns off glibc's adaptive mmap threshold: then every numpy array over 128 KiB (a column of a
    rank log is 800 KB at 100,000 steps) is a fresh ``mmap`` whose pages fault in again, file after file
    (measured: 29x the page faults, 1.35-1.5x the CPU of the same fold in a plain process). Inside this
    block both thresholds are ROOMY_BYTES; on exit they are set back to the nanny's values (the kernel's
    128 KiB mmap threshold, the 64 KiB trim threshold) and the heap is trimmed, so the worker keeps no more
    memory than Dask intends. Only when the environment variable is set (a nanny-started worker) and the C
    library is glibc; a no-op elsewhere. Allocator settings only: no number changes."""
    lib = None
    if os.environ.get("MALLOC_TRIM_THRESHOLD_") and os.name == "posix":
        import ctypes
        import ctypes.util

        with contextlib.suppress(OSError, AttributeError, TypeError):
            cand = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            if hasattr(cand, "mallopt") and hasattr(cand, "malloc_trim"):
                lib = cand
    if lib is None:
        yield
        return
    try:
        trim = int(os.environ.get("MALLOC_TRIM_THRESHOLD_", ""))
    except ValueError:
        trim = 65536
    lib.mallopt(_M_MMAP_THRESHOLD, ROOMY_BYTES)
    lib.mallopt(_M_TRIM_THRESHOLD, ROOMY_BYTES)
    try:
        yield
    finally:
        lib.mallopt(_M_TRIM_THRESHOLD, trim)
        lib.mallopt(_M_MMAP_THRESHOLD, 128 * 1024)
        lib.malloc_trim(0)

def plan_part(files: Sequence[str]) -> list[dict[str, Any] | None]:
    """The CSV plan of each file (:func:`costmodel.jobs.fleet.plan_csv`)."""
    from .fleet import plan_csv

    return [plan_csv(f) for f in files]


def header_ranks_part(files: Sequence[str], plan: dict[str, Any]) -> list[int | None]:
    """Each file's rank from its first data row (files with a rank column)."""
    from .fleet import ranks_from_column

    out: list[int | None] = []
    for f in files:
        r = ranks_from_column([f], plan)
        out.append(None if r is None else r[f])
    return out


def sample_part(files: Sequence[str], plan: dict[str, Any], ranks: Sequence[int]) -> dict[int, float]:
    """Median sampled step time of each file's rank (:func:`costmodel.jobs.fleet.sample_medians` of a batch)."""
    from .fleet import sample_medians

    return sample_medians(files, plan, dict(zip(files, ranks, strict=True)))


def first_span(path: str, plan: dict[str, Any]) -> int:
    """Steps spanned by the first file (the bin width comes from it, as in the other engines)."""
    from .arrowscan import read_columns

    step = read_columns(path, plan, strict=False)["step"]
    return int(step[-1] - step[0] + 1) if len(step) else 1


def _trim(acc: Any) -> Any:
    """The accumulator cut to its last step (what travels between workers)."""
    from .arrowscan import Acc

    last = np.flatnonzero(acc.a["n"] > 0)
    cap = int(last[-1]) + 1 if len(last) else 1
    out = Acc(cap)
    for k in out.a:
        out.a[k][:] = acc.a[k][:cap]
    return out


def scan_part(files: Sequence[str], ranks: Sequence[int], plan: dict[str, Any], cands: Sequence[int], bw: int,
              thr_col: str | None, hash_files: bool) -> dict[str, Any]:
    """One task: read, hash and fold a batch of rank logs into one partial."""
    from .arrowscan import KEY_RANKS, Fallback, _Part, clean_file

    part = _Part()
    cset = {int(c) for c in cands}
    ranked = "rank" in plan
    with roomy_malloc():
        for f, r in zip(files, ranks, strict=True):
            if not 0 <= int(r) < KEY_RANKS:
                raise Fallback(f"{f}: rank {r} outside [0, {KEY_RANKS})")
            d = clean_file(f, plan, thr_col, int(r) if ranked else None, hash_files)
            part.fold(f, int(r), d, bw, cset)
            del d
    return {"acc": _trim(part.acc), "bins": part.bins, "cand_raw": part.cand_raw, "digests": part.digests,
            "sizes": part.sizes}


def merge_parts(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Two partials as one (associative; the per-step part stays O(steps))."""
    from .arrowscan import merge_acc

    return {"acc": merge_acc(a["acc"], b["acc"]), "bins": a["bins"] + b["bins"],
            "cand_raw": {**a["cand_raw"], **b["cand_raw"]}, "digests": {**a["digests"], **b["digests"]},
            "sizes": {**a["sizes"], **b["sizes"]}}


def max_part(files: Sequence[str], plan: dict[str, Any], step_index: np.ndarray) -> np.ndarray:
    """Per step of ``step_index`` the largest float32 step time over a batch of files (-inf where none)."""
    from .arrowscan import _f32, read_columns

    out = np.full(len(step_index), -np.inf)
    with roomy_malloc():
        for f in files:
            d = read_columns(f, plan, strict=True)
            st = d.get("step_time_s", np.full(d["n"], np.nan))
            i = np.searchsorted(step_index, d["step"])
            out[i] = np.fmax(out[i], _f32(st))
    return out


# --- client side ---------------------------------------------------------------------------------------

@contextlib.contextmanager
def client() -> Iterator[Any]:
    """The Dask client to use (see the module docstring); a LocalCluster made here is closed on exit."""
    from ..foundation.util import require

    distributed = require("distributed", "distributed", "the Dask engine")
    addr = os.environ.get("COSTMODEL_DASK_SCHEDULER")
    if addr:
        c = _connect(distributed, addr)
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
    import shutil

    from ..foundation.leftovers import owned_tempdir

    scratch = owned_tempdir("costmodel-dask-")  # the workers' scratch and locks: removed here, swept if killed
    import dask

    try:
        with dask.config.set({"temporary-directory": str(scratch), **LOCAL_CONFIG}), \
                distributed.LocalCluster(n_workers=2, local_directory=str(scratch), **local_cluster_kwargs()) as lc, \
                distributed.Client(lc) as c:
            yield c
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


#: Dask settings of the cluster started here: no statistical profiler in the workers (it samples every thread's
#: stack 100 times a second: an idle LocalCluster of 2 worker processes cost 0.16 CPU-s (all processes)
#: per second of wall time with it, 0.11 without, on the shared 2-core machine at load 8)
LOCAL_CONFIG: dict[str, Any] = {"distributed.worker.profile.enabled": False}


def local_cluster_kwargs() -> dict[str, Any]:
    """``LocalCluster`` arguments of the cluster started when no scheduler is given: worker threads in this
    process (one thread each: the files' partials are folded without being pickled or copied between
    processes), no dashboard."""
    return {"threads_per_worker": 1, "processes": False, "dashboard_address": None}


_SCHEDULER = re.compile(r"^(tcp|tls|ucx|inproc|ws|wss)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(:(\d{1,5}))?/?$")


def connect_timeout_s() -> float:
    """Seconds to wait for the scheduler of ``COSTMODEL_DASK_SCHEDULER`` (``COSTMODEL_DASK_CONNECT_TIMEOUT_S``,
    default 10): a closed address fails in that time with one line, not after Dask's 30 s as an internal error."""
    try:
        t = float(os.environ.get("COSTMODEL_DASK_CONNECT_TIMEOUT_S", "10"))
    except ValueError:
        return 10.0
    return t if 0 < t < 3600 else 10.0


def _connect(distributed: Any, addr: str) -> Any:
    """``distributed.Client(addr)``, with a malformed, closed or unreachable address as one IngestError naming
    ``COSTMODEL_DASK_SCHEDULER`` (checked first: a plain TCP connect for ``tcp://``, in the time-out)."""
    import socket

    from ..foundation.errors import IngestError
    from ..foundation.names import shown

    field = "COSTMODEL_DASK_SCHEDULER"
    m = _SCHEDULER.match(addr.strip())
    port = int(m.group(4)) if m and m.group(4) else None
    if m is None or (port is not None and not 0 < port < 65536):
        raise IngestError(f"'{shown(addr)}' is not a scheduler address; expected tcp://HOST:PORT "
                          "(e.g. tcp://scheduler:8786)", field=field)
    t = connect_timeout_s()
    if m.group(1) == "tcp":
        host = m.group(2).strip("[]")
        try:
            with socket.create_connection((host, port or 8786), timeout=t):
                pass
        except OSError as exc:
            why = ("nothing listens there (connection refused)" if isinstance(exc, ConnectionRefusedError)
                   else f"cannot connect ({exc.strerror or type(exc).__name__})")
            raise IngestError(f"{shown(addr)}: {why}; is the Dask scheduler running?", field=field) from None
    try:
        return distributed.Client(addr.strip(), timeout=t)
    except Exception as exc:  # noqa: BLE001 - every connection failure is one line
        raise IngestError(f"{shown(addr)}: cannot reach the Dask scheduler in {t:g} s "
                          f"({type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''})",
                          field=field) from None


def _n_threads(c: Any) -> int:
    try:
        return max(1, sum(int(w.get("nthreads", 1)) for w in c.scheduler_info()["workers"].values()))
    except Exception:  # noqa: BLE001 - an old or odd scheduler: assume two
        return 2


#: a task reads about this many bytes at least (local files, whose sizes are known without asking a store):
#: a small job is one task per worker thread, not four (each task costs a round trip and its partial, 13 MB at
#: 100,000 steps, one more transfer and merge: about 0.05-0.1 s on a 2-CPU machine, measured)
TASK_BYTES = 256 << 20


def _batches(items: Sequence[Any], n_threads: int) -> list[list[Any]]:
    """Files per task: ``COSTMODEL_DASK_FILES_PER_TASK``, else about four tasks per worker thread, fewer when
    that would make tasks of local files under TASK_BYTES (a multiple of the thread count, so that no thread
    gets one task more than another: 5 tasks on 2 threads took 1.2x as long as 4), at most 64 files."""
    try:
        k = int(os.environ.get("COSTMODEL_DASK_FILES_PER_TASK", "0"))
    except ValueError:
        k = 0
    if not k:
        k = math.ceil(len(items) / (4 * n_threads))
        from .storage import is_url

        if items and not any(is_url(f) for f in items):
            total = sum(os.path.getsize(f) for f in items)
            tasks = max(n_threads, min(4 * n_threads, total // TASK_BYTES))
            tasks = tasks // n_threads * n_threads
            k = math.ceil(len(items) / tasks)
        k = max(1, min(MAX_FILES_PER_TASK, k))
    return [list(items[i:i + k]) for i in range(0, len(items), k)]


def _tree(c: Any, futures: list[Any], fn: Any) -> Any:
    while len(futures) > 1:
        nxt = [c.submit(fn, futures[i], futures[i + 1], pure=False) for i in range(0, len(futures) - 1, 2)]
        if len(futures) % 2:
            nxt.append(futures[-1])
        futures = nxt
    return futures[0].result()


def _gather_lists(c: Any, fn: Any, batches: list[list[str]], *args: Any) -> list[Any]:
    return [x for fut in c.gather([c.submit(fn, b, *args, pure=False) for b in batches]) for x in fut]


def url_fleet_groups(urls: Sequence[str]) -> tuple[dict[str, tuple[list[str], dict[str, Any]]], list[str]]:
    """Object-store inputs as fleet jobs for the workers: each URL listed here (names only), its objects
    grouped by parent prefix; a group of per-step CSV objects with one common header (read by the workers)
    and several objects (or a rank column) is a job. Returns the jobs (name -> (URLs, plan)) and the URLs
    left for the ordinary readers (downloaded by the client as before)."""
    from .fleet import CSV_SUFFIXES
    from .storage import list_objects

    groups: dict[str, tuple[list[str], dict[str, Any]]] = {}
    rest: list[str] = []
    if not urls:
        return groups, rest
    with client() as c:
        nt = _n_threads(c)
        for url in urls:
            every = list_objects(url)
            objs = [o for o in every if o.lower().endswith(CSV_SUFFIXES)]
            by_prefix: dict[str, list[str]] = {}
            for o in objs:
                by_prefix.setdefault(o.rsplit("/", 1)[0], []).append(o)
            plans = _gather_lists(c, plan_part, _batches(objs, nt)) if objs else []
            plan_of = dict(zip(objs, plans, strict=True))
            taken: set[str] = set()
            for prefix, fs in by_prefix.items():
                ps = [plan_of[f] for f in fs]
                first = ps[0]
                if first is None or any(p is None or p["names"] != first["names"] for p in ps):
                    continue
                if len(fs) < 2 and "rank" not in first:
                    continue
                one = len(fs) == 1 and "rank" in first  # one object holding a rank column: named by its stem
                name = fs[0].rsplit("/", 1)[-1].rsplit(".", 1)[0] if one else prefix.rsplit("/", 1)[-1]
                base, n = name, 2
                while name in groups:
                    name, n = f"{base}#{n}", n + 1
                groups[name] = (fs, first)
                taken.update(fs)
            if not taken:
                rest.append(url)
            else:
                rest += [o for o in every if o not in taken]
    return groups, rest


def tables_from_csv_dask(job_id: str, files: Sequence[str], plan: dict[str, Any] | None = None, role: str = "",
                         n_bins: int | None = None, hash_files: bool = False) -> JobTables:
    """Reduce a job's CSV rank logs to JobTables on a Dask cluster (the fleet engine's tables)."""
    from ..foundation.errors import IngestError
    from . import fleet
    from .aggregate import N_BINS
    from .arrowscan import Fallback
    from .fleet import _tables_from_scan, candidates_from_medians, file_ranks
    from .storage import is_url

    files = [str(f) for f in files]
    remote = any(is_url(f) for f in files)
    if plan is None:
        plan = fleet.usable(files) if not remote else None
    if plan is None:
        raise IngestError("the Dask engine reads per-step CSV rank logs with one common header (step and throughput "
                          "or step time)", path=files[0] if files else None)
    thr_col = "samples_per_s" if "samples_per_s" in plan else "tokens_per_s" if "tokens_per_s" in plan else None
    with client() as c:
        nt = _n_threads(c)
        batches = _batches(files, nt)
        notes: list[str] = []
        if "rank" in plan:
            got = _gather_lists(c, header_ranks_part, batches, plan)
            if any(r is None for r in got) or len(set(got)) != len(got):
                raise IngestError("the Dask engine reads one rank per file: the rank column's first row must name "
                                  "a different rank in each file", path=files[0])
            ranks = {f: int(r) for f, r in zip(files, got, strict=True)}
        else:
            ranks, notes = file_ranks(files)
        span = c.submit(first_span, files[0], plan, pure=False)  # in the same round as the samples
        cands: list[int] = []
        if "step_time_s" in plan:
            med: dict[int, float] = {}
            for part in c.gather([c.submit(sample_part, b, plan, [ranks[f] for f in b], pure=False) for b in batches]):
                med.update(part)
            cands = candidates_from_medians(med)
        bw = bin_width(span.result(), n_bins or N_BINS)
        try:
            tot = _tree(c, [c.submit(scan_part, b, [ranks[f] for f in b], plan, cands, bw, thr_col, hash_files,
                                     pure=False) for b in batches], merge_parts)
        except Fallback as exc:
            if remote:
                raise IngestError(f"{exc}; the Dask engine reads clean per-rank CSV objects only (--engine duckdb "
                                  "reads the rest)", path=files[0]) from None
            tabs = fleet.tables_from_csv(job_id, files, plan, role=role, n_bins=n_bins, hash_files=hash_files)
            tabs.warnings.append(f"job {job_id}: not clean per-rank CSV ({str(exc)[:160]}): read by the DuckDB query "
                                 "in this process")
            return tabs
    acc = tot["acc"]
    a = acc.counts()
    present = np.flatnonzero(a["n"][:acc.cap] > 0)
    steps = {k: v[present] for k, v in a.items()}
    steps["step"] = present.astype("int64")
    cand_st = {}
    for r, (s_, v) in tot["cand_raw"].items():
        full = np.full(len(present), np.nan)
        full[np.searchsorted(present, s_)] = v
        cand_st[r] = full
    sc = {"steps": steps, "bins": np.vstack(tot["bins"]) if tot["bins"] else np.empty((0, 9)), "bw": bw,
          "cand_st": cand_st}
    tabs = _tables_from_scan(job_id, role, files, plan, ranks, notes, thr_col, sc)
    tabs.engine = tabs.reader = "dask"
    tabs.sha256, tabs.file_bytes = tot["digests"], tot["sizes"]
    fast_others = tabs.others_max
    step_index = tabs.steps["step"].to_numpy()

    def others_max(bad: set[int]) -> np.ndarray:
        if set(bad) <= set(cand_st):
            return fast_others(bad)
        keep = [f for f in files if ranks[f] not in bad]  # a straggler outside the candidates: one more pass
        out = np.full(len(step_index), -np.inf)
        if keep:
            with client() as c2:
                for m in c2.gather([c2.submit(max_part, b, plan, step_index, pure=False)
                                    for b in _batches(keep, _n_threads(c2))]):
                    out = np.fmax(out, m)
        return np.where(np.isfinite(out), out, np.nan)

    tabs.others_max = others_max
    return tabs
