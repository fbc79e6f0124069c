"""Fast path of the fleet engine: one rank per CSV file, each read with pyarrow's CSV reader and folded
into dense per-step arrays with numpy (no hashing, no row kept).

A job of N rank logs with S steps each costs one parse of the text (pyarrow, multi-threaded C++,
releases the GIL: files are read on a pool of 2 threads while the main thread folds the previous
ones in) plus O(S) elementwise numpy work per file: O(N * S) time, O(S + N * bins + C * S) memory
(C = straggler candidates, <= 64). Per step: count, throughput sum/min/max and count, step time
sum/count/max, the slowest rank (ties to the lowest rank), the second largest step time, the largest
step time over the ranks that are not straggler candidates, the latest ``t_s``; per rank and step
bin: sums, counts, first and last step. Throughput and step time are rounded to float32 first and
summed in float64, exactly as the DuckDB query does, so both give the same numbers.

Only files that are plain and clean take this path: strictly increasing non-negative steps, every
cell a number or empty, no negative or non-finite value, same field count on every line. Anything
else (a cell that is not a number, a short line, a repeated or decreasing step, ``-1``, ``inf``)
raises :class:`Fallback`, and the whole job goes through the DuckDB query instead, which counts and
names the bad rows (:func:`costmodel.jobs.fleet.tables_from_csv`). The same per-file reader
(:func:`read_columns`) feeds the Dask engine.
"""
from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from .aggregate import samples_per_step

#: dense per-step arrays are used up to this step number (larger step numbers: the DuckDB query)
MAX_STEP = 1 << 26
THREADS = 2
#: pyarrow parses a file in blocks of this many bytes
BLOCK_BYTES = 4 << 20
#: files up to this size are parsed on one thread each (several files at once); bigger ones on pyarrow's
SOLO_BYTES = 32 << 20
#: files up to this size are read into memory once, hashed and parsed from there (``want_hash``)
PREREAD_BYTES = 256 << 20


class Fallback(Exception):
    """This file (hence the job) is not for the fast path; the message says why."""


def read_columns(path: str, plan: dict[str, Any], strict: bool = True, want_hash: bool = False) -> dict[str, Any]:
    """One rank log's columns as numpy: ``step`` (int64), ``thr``/``st``/``t`` (float64, SI units via
    the plan's factors; NaN where the cell is empty or the column absent), ``rank`` (int64, when the plan
    has a rank column) and ``n``; ``nbytes`` (the file's size) and, with ``want_hash``, ``sha256`` (hex)
    computed in the same pass: the bytes are read once, hashed and parsed from memory (a file over
    PREREAD_BYTES is hashed after the parse instead, from the page cache). ``strict``: only
    empty cells are missing (as DuckDB's reader), and any cell pyarrow cannot convert raises
    :class:`Fallback`; otherwise pyarrow's default missing-value strings apply and its errors propagate.

    A small file is parsed on the calling thread (the callers read several files at once, one per
    thread); a big one (or ``THREADS`` = 1) uses pyarrow's own threads."""
    import hashlib

    import pyarrow as pa
    import pyarrow.csv as pcsv

    names = {plan["step"][0]: "step"}
    types: dict[str, Any] = {plan["step"][0]: pa.int64()}
    if "rank" in plan:
        names[plan["rank"]] = "rank"
        types[plan["rank"]] = pa.int64()
    for c in ("samples_per_s", "tokens_per_s", "step_time_s", "t_s"):
        if c in plan:
            names[plan[c][0]] = c
            types[plan[c][0]] = pa.float64()
    conv = pcsv.ConvertOptions(include_columns=list(names), column_types=types,
                               **({"null_values": [""], "strings_can_be_null": False} if strict else {}))
    from .storage import is_url, read_bytes

    url = is_url(path)
    size = -1 if url else os.path.getsize(path)
    src: Any = path
    digest = None
    if url or (want_hash and size <= PREREAD_BYTES):  # an object is always read whole, with one GET
        data = read_bytes(path)
        size = len(data)
        if want_hash:
            digest = hashlib.sha256(data).hexdigest()  # releases the GIL: the pool's threads hash side by side
        src = pa.BufferReader(data)
    big = size > SOLO_BYTES or THREADS <= 1
    try:
        tab = pcsv.read_csv(src, read_options=pcsv.ReadOptions(use_threads=big, block_size=BLOCK_BYTES),
                            parse_options=pcsv.ParseOptions(delimiter=plan["delim"]), convert_options=conv)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowKeyError, UnicodeDecodeError) as exc:
        if not strict:
            raise
        raise Fallback(f"{path}: {str(exc).splitlines()[0][:200]}") from None
    if want_hash and digest is None:
        from ..foundation.util import sha256_file

        digest = sha256_file(path)
    out: dict[str, Any] = {"n": tab.num_rows, "nbytes": size, "sha256": digest}
    for src_name, dst in names.items():
        col = tab.column(src_name)
        if dst in ("step", "rank"):
            if col.null_count and strict:
                raise Fallback(f"{path}: empty {dst} cell")
            out[dst] = col.to_numpy(zero_copy_only=False).astype("int64", copy=False)
            continue
        a = col.to_numpy(zero_copy_only=False).astype("float64", copy=False)
        if col.null_count != a.size and int(np.isnan(a).sum()) > col.null_count:
            out["nan_text"] = True  # a NaN that is not an empty cell: the text 'nan'
        f = plan[dst][1]
        out[dst] = a * f if f != 1.0 else a
    return out


def _f32(a: np.ndarray) -> np.ndarray:
    return a.astype("float32").astype("float64")


def clean_file(path: str, plan: dict[str, Any], thr_col: str | None, rank: int | None = None,
               want_hash: bool = False) -> dict[str, Any]:
    """The fast path's view of one file (values as the DuckDB query sees them: float32 throughput and
    step time, float64 time) or :class:`Fallback`. With a rank column in the plan, every row's rank must
    be ``rank`` (one rank per file; a file that holds several ranks goes through the query)."""
    d = read_columns(path, plan, strict=True, want_hash=want_hash)
    step = d["step"]
    n = len(step)
    if "rank" in d and n and (int(d["rank"].min()) != rank or int(d["rank"].max()) != rank):
        raise Fallback(f"{path}: the rank column holds other ranks than {rank}")
    if n and (step[0] < 0 or step[-1] >= MAX_STEP or (n > 1 and not (step[1:] > step[:-1]).all())):
        raise Fallback(f"{path}: steps not strictly increasing in [0, {MAX_STEP})")
    nan = np.full(n, np.nan)
    thr = d[thr_col] if thr_col else nan
    st = d.get("step_time_s", nan)
    t = d.get("t_s", nan)
    holes = {}
    for name, a, nonneg in (("thr", thr, True), ("st", st, True), ("t", t, False)):
        if not n:
            holes[name] = False
            continue
        lo, hi = a.min(), a.max()  # NaN when a cell is empty: then again without them
        holes[name] = bool(np.isnan(lo))
        if holes[name]:
            ok = a[~np.isnan(a)]
            if not len(ok):
                continue
            lo, hi = ok.min(), ok.max()
        if (nonneg and lo < 0) or np.isinf(lo) or np.isinf(hi):
            raise Fallback(f"{path}: a negative or infinite value")
        if name == "st":  # a time that is (or rounds to) 0 in float32: ties at 0 are decided exactly
            holes["st_zero"] = bool(lo < 2.0 ** -126)
    if d.get("nan_text"):
        raise Fallback(f"{path}: a 'nan' cell")
    thr32, st32 = thr.astype("float32"), st.astype("float32")
    with np.errstate(invalid="ignore", over="ignore"):
        ts = (thr32 * st32).astype("float64")  # as aggregate.samples_per_step
    return {"step": step, "thr": thr32.astype("float64") if thr_col else thr, "st": st32.astype("float64"), "t": t,
            "ts": ts, "holes": holes, "nbytes": d["nbytes"], "sha256": d["sha256"]}


def iter_files(files: Sequence[str], fn: Callable[[str], Any], threads: int = THREADS) -> Iterator[tuple[str, Any]]:
    """``(file, fn(file))`` in file order, computed on a pool of ``threads`` with at most 2 * threads
    results waiting (memory stays a few files' worth)."""
    if threads <= 1 or len(files) <= 1:
        for f in files:
            yield f, fn(f)
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        pending: deque = deque()
        it = iter(files)
        try:
            for f in it:
                pending.append((f, pool.submit(fn, f)))
                if len(pending) >= 2 * threads:
                    g, fut = pending.popleft()
                    yield g, fut.result()
            while pending:
                g, fut = pending.popleft()
                yield g, fut.result()
        finally:
            for _g, fut in pending:
                fut.cancel()


#: slowest-rank key ``st * (1 + (KEY_RANKS - rank) * 2**-45)``: for ranks in [0, KEY_RANKS) and float32 step
#: times the nudge (< 2**-25 relative) orders only equal times, the lower rank first (as the DuckDB query)
KEY_RANKS = 1 << 20
_KEY_EPS = 2.0 ** -45


class Acc:
    """Per-step accumulators (dense, index = step), grown as steps appear.

    Per step: ranks ``n`` and, per column, the ranks whose cell is empty (``*_miss``; the counts are ``n``
    minus them, so a file without empty cells costs one increment, not four); sums, minimum and maximum
    throughput, the top two step times as a multiset, the slowest rank with its key (see KEY_RANKS), the
    largest step time of the non-candidates and the latest time."""

    SPEC = (("n", 0, "int64"), ("thr_miss", 0, "int64"), ("st_miss", 0, "int64"), ("t_miss", 0, "int64"),
            ("ts_miss", 0, "int64"), ("thr_sum", 0.0, "float64"), ("thr_min", np.nan, "float64"),
            ("thr_max", np.nan, "float64"), ("st_sum", 0.0, "float64"), ("st_max", -np.inf, "float64"),
            ("st_second", -np.inf, "float64"), ("slowest", -1, "int64"), ("skey", -np.inf, "float64"),
            ("others", -np.inf, "float64"), ("t_max", -np.inf, "float64"), ("ts_sum", 0.0, "float64"))

    def __init__(self, cap: int = 1024) -> None:
        self.cap = 0
        self.a: dict[str, np.ndarray] = {}
        self._grow(cap)

    def _grow(self, need: int) -> None:
        if need <= self.cap:
            return
        cap = max(need, 2 * self.cap)
        for name, fill, dt in self.SPEC:
            new = np.full(cap, fill, dtype=dt)
            if self.cap:
                new[:self.cap] = self.a[name]
            self.a[name] = new
        self.cap = cap

    def add(self, rank: int, step: np.ndarray, thr: np.ndarray, st: np.ndarray, t: np.ndarray, other: bool,
            holes: dict[str, bool], ts: np.ndarray | None = None) -> None:
        """Fold in one rank's rows (``step`` strictly increasing, so each index appears once; ``rank`` in
        [0, KEY_RANKS); ``st`` float32 values, non-negative). ``holes``: which of thr/st/t have a missing
        value (NaN); where none, the masks are skipped. ``ts``: the rows' samples per step
        (:func:`costmodel.jobs.aggregate.samples_per_step`), computed here when not given."""
        if not len(step):
            return
        if ts is None:
            ts = samples_per_step(thr, st)
        self._grow(int(step[-1]) + 1)
        s0 = int(step[0])
        if int(step[-1]) - s0 + 1 == len(step):  # contiguous steps: fold into views, in place
            sl = slice(s0, s0 + len(step))
            self._fold({k: arr[sl] for k, arr in self.a.items()}, rank, thr, st, t, ts, other, holes)
        else:
            v = {k: arr[step] for k, arr in self.a.items()}
            self._fold(v, rank, thr, st, t, ts, other, holes)
            for k, arr in self.a.items():
                arr[step] = v[k]

    @staticmethod
    def _fold(v: dict[str, np.ndarray], rank: int, thr: np.ndarray, st: np.ndarray, t: np.ndarray, ts: np.ndarray,
              other: bool, holes: dict[str, bool]) -> None:
        v["n"] += 1
        for name, x, h in (("thr", thr, holes["thr"]), ("st", st, holes["st"]), ("ts", ts, holes["thr"] or holes["st"])):
            if h:
                miss = np.isnan(x)
                v[f"{name}_miss"] += miss
                v[f"{name}_sum"] += np.where(miss, 0.0, x)
            else:
                v[f"{name}_sum"] += x
        np.fmin(v["thr_min"], thr, out=v["thr_min"])
        np.fmax(v["thr_max"], thr, out=v["thr_max"])
        m1, m2 = v["st_max"], v["st_second"]
        # the top two step times as a multiset: second = max(second, min(max, st)) (an empty cell changes neither)
        np.fmax(m2, np.minimum(m1, st), out=m2)
        np.fmax(m1, st, out=m1)
        # the slowest rank: larger time, or equal time and lower rank (one float key, see KEY_RANKS); step
        # times of 0 all have key 0: ties among them are decided exactly
        key = st * (1.0 + (KEY_RANKS - rank) * _KEY_EPS)
        sk, sr = v["skey"], v["slowest"]
        wins = key > sk
        if holes.get("st_zero"):
            wins |= (key == sk) & (rank < sr)
        np.copyto(sr, rank, where=wins)
        np.fmax(sk, key, out=sk)
        if other:
            np.fmax(v["others"], st, out=v["others"])
        if holes["t"]:
            v["t_miss"] += np.isnan(t)
        np.fmax(v["t_max"], t, out=v["t_max"])

    def counts(self) -> dict[str, np.ndarray]:
        """The accumulators as :func:`scan` returns them (``thr_n``, ``st_n``, ``t_n``, ``ts_n``: counts of
        non-empty cells), over the whole capacity."""
        a = dict(self.a)
        for name in ("thr", "st", "t", "ts"):
            a[f"{name}_n"] = a["n"] - a.pop(f"{name}_miss")
        a.pop("skey")
        return a


def bin_rows(rank: int, step: np.ndarray, thr: np.ndarray, st: np.ndarray, bw: int,
             holes: dict[str, bool] | None = None) -> np.ndarray:
    """Per step bin of one rank (steps increasing): rows of (rank, bin, n, st_sum, st_n, thr_sum, thr_n,
    first_step, last_step) as float64 (exact for these integers). ``holes`` (from :func:`clean_file`): which
    of thr/st have an empty cell (None: looked for here)."""
    n = len(step)
    s0, s1 = int(step[0]), int(step[-1])
    if s1 - s0 + 1 == n:  # contiguous steps: the bins' edges by arithmetic, no division per row
        b0, b1 = s0 // bw, s1 // bw
        bins = np.arange(b0, b1 + 1)
        starts = np.maximum(bins * bw - s0, 0)
    else:
        b = step // bw
        starts = np.concatenate([[0], np.flatnonzero(np.diff(b)) + 1])
        bins = b[starts]
    ends = np.concatenate([starts[1:], [n]])
    out = np.empty((len(starts), 9))
    out[:, 0] = rank
    out[:, 1] = bins
    out[:, 2] = ends - starts
    for col, v, name in ((3, st, "st"), (5, thr, "thr")):
        if holes is not None and not holes.get(name, True):
            out[:, col] = np.add.reduceat(v, starts)
            out[:, col + 1] = out[:, 2]
            continue
        ok = ~np.isnan(v)
        if ok.all():
            out[:, col] = np.add.reduceat(v, starts)
            out[:, col + 1] = out[:, 2]
        else:
            out[:, col] = np.add.reduceat(np.where(ok, v, 0.0), starts)
            out[:, col + 1] = np.add.reduceat(ok.astype("int64"), starts)
    out[:, 7] = step[starts]
    out[:, 8] = step[ends - 1]
    return out


class _Part:
    """What one thread of :func:`scan` folded: per-step accumulators, bin rows, candidates' step times."""

    def __init__(self) -> None:
        self.acc = Acc()
        self.bins: list[np.ndarray] = []
        self.cand_raw: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.digests: dict[str, str] = {}
        self.sizes: dict[str, int] = {}

    def fold(self, f: str, r: int, d: dict[str, Any], bw: int, cset: set[int]) -> None:
        step = d["step"]
        if d["sha256"]:
            self.digests[f] = d["sha256"]
        self.sizes[f] = int(d["nbytes"])
        if not 0 <= r < KEY_RANKS:
            raise Fallback(f"{f}: rank {r} outside [0, {KEY_RANKS})")
        self.acc.add(r, step, d["thr"], d["st"], d["t"], r not in cset, d["holes"], d["ts"])
        if len(step):
            self.bins.append(bin_rows(r, step, d["thr"], d["st"], bw, d["holes"]))
        if r in cset:
            self.cand_raw[r] = (step, d["st"])


def merge_acc(x: Acc, y: Acc) -> Acc:
    """``x`` with ``y`` folded in (per step: counts and sums added, minima and maxima taken, the slowest
    rank the one with the larger key or, tied (step times of 0), the lower rank, the second largest of the
    four top values): the same arrays as folding all of ``y``'s ranks into ``x`` one by one."""
    x._grow(y.cap)
    a, b, n = x.a, y.a, y.cap
    for k in ("n", "thr_miss", "st_miss", "t_miss", "ts_miss", "thr_sum", "st_sum", "ts_sum"):
        a[k][:n] += b[k]
    for k, op in (("thr_min", np.fmin), ("thr_max", np.fmax), ("others", np.fmax), ("t_max", np.fmax)):
        a[k][:n] = op(a[k][:n], b[k])
    m1, m2, r1, k1 = a["st_max"][:n], a["st_second"][:n], a["slowest"][:n], a["skey"][:n]
    q1, q2, r2, k2 = b["st_max"], b["st_second"], b["slowest"], b["skey"]
    tie = np.where((r1 >= 0) & (r2 >= 0), np.minimum(r1, r2), np.maximum(r1, r2))
    a["slowest"][:n] = np.where(k1 > k2, r1, np.where(k2 > k1, r2, tie))
    a["skey"][:n] = np.fmax(k1, k2)
    a["st_second"][:n] = np.fmax(np.fmax(m2, q2), np.fmin(m1, q1))
    a["st_max"][:n] = np.fmax(m1, q1)
    return x


def scan(files: Sequence[str], plan: dict[str, Any], ranks: dict[str, int], cands: Sequence[int],
         n_bins: int, thr_col: str | None, hash_files: bool = False, label: str = "") -> dict[str, Any]:
    """The per-step and per-(rank, bin) aggregates of a job, or :class:`Fallback`. Returns ``steps``
    (dict of arrays over the steps present), ``bins`` (rows as :func:`bin_rows`), ``bw``, ``cand_st``
    (candidate rank -> float32 step times over the steps present) and ``sha256`` (file -> hex digest,
    computed while reading, when ``hash_files``). Progress goes to stderr for a long scan.

    ``THREADS`` threads each take the next file, read (and hash) it and fold it into accumulators of
    their own (pyarrow, hashlib and numpy on 10^5-long arrays release the GIL, so the threads run side by
    side); the threads' accumulators are merged at the end (:func:`merge_acc`). The bin width comes from
    the first file, read first."""
    import threading

    from .aggregate import bin_width
    from .progress import Progress

    cset = {int(c) for c in cands}
    ranked = "rank" in plan
    prog = Progress(f"job {label}" if label else "job", len(files))
    lock = threading.Lock()

    def read(f: str) -> dict[str, Any]:
        return clean_file(f, plan, thr_col, int(ranks[f]) if ranked else None, hash_files)

    if not files:
        return {"steps": {k: np.empty(0, dtype=dt) for k, _f, dt in Acc.SPEC} | {"step": np.empty(0, dtype="int64")},
                "bins": np.empty((0, 9)), "bw": 1, "cand_st": {}, "sha256": {}}
    head = _Part()
    d0 = read(files[0])
    step0, nbytes0 = d0["step"], d0["nbytes"]
    bw = bin_width(int(step0[-1] - step0[0] + 1) if len(step0) else 1, n_bins)  # as the DuckDB query
    head.fold(files[0], int(ranks[files[0]]), d0, bw, cset)
    del d0, step0
    prog.update(1, nbytes0)
    nxt = [1]
    stop = threading.Event()

    def work(part: _Part) -> _Part:
        while not stop.is_set():
            with lock:
                i = nxt[0]
                nxt[0] += 1
            if i >= len(files):
                break
            f = files[i]
            try:
                d = read(f)
                part.fold(f, int(ranks[f]), d, bw, cset)
            except BaseException:
                stop.set()
                raise
            with lock:
                prog.update(prog.done + 1, d["nbytes"])
        return part

    parts = [head]
    if len(files) > 1:
        if THREADS <= 1:
            parts.append(work(_Part()))
        else:
            with ThreadPoolExecutor(max_workers=THREADS) as pool:
                futs = [pool.submit(work, _Part()) for _ in range(THREADS)]
                errs = []
                for fu in futs:
                    try:
                        parts.append(fu.result())
                    except BaseException as exc:  # noqa: BLE001  re-raised below, a Fallback first
                        errs.append(exc)
                if errs:
                    raise next((e for e in errs if isinstance(e, Fallback)), errs[0])
    acc = parts[0].acc
    for p in parts[1:]:
        merge_acc(acc, p.acc)
    a = acc.counts()
    present = np.flatnonzero(a["n"][:acc.cap] > 0)
    steps = {k: v[present] for k, v in a.items()}
    steps["step"] = present.astype("int64")
    cand_st = {}
    for p in parts:
        for r, (s_, v) in p.cand_raw.items():
            full = np.full(len(present), np.nan)
            full[np.searchsorted(present, s_)] = v
            cand_st[r] = full
    bins = [b for p in parts for b in p.bins]
    prog.finish()
    return {"steps": steps, "bins": np.vstack(bins) if bins else np.empty((0, 9)), "bw": bw, "cand_st": cand_st,
            "sha256": {f: h for p in parts for f, h in p.digests.items()},
            "sizes": {f: n for p in parts for f, n in p.sizes.items()}}


def others_max(files: Sequence[str], plan: dict[str, Any], ranks: dict[str, int], bad: set[int],
               step_index: np.ndarray) -> np.ndarray:
    """Per step (aligned with ``step_index``) the largest step time over the ranks not in ``bad``
    (float32 values as the DuckDB query; NaN where none): one more pass over their files."""
    out = np.full(len(step_index), -np.inf)
    keep = [f for f in files if int(ranks[f]) not in bad]

    def read(f: str) -> tuple[np.ndarray, np.ndarray]:
        d = read_columns(f, plan, strict=True)
        st = d.get("step_time_s", np.full(d["n"], np.nan))
        return d["step"], _f32(st)
    for _f, (s, v) in iter_files(keep, read):
        i = np.searchsorted(step_index, s)
        out[i] = np.fmax(out[i], v)
    return np.where(np.isfinite(out), out, np.nan)
