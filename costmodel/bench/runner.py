"""``run_bench``: walk, then for each pass make the page cache cold (or not), read, summarise, record."""
from __future__ import annotations

import datetime as _dt
import os
import platform
import socket
import time
from collections.abc import Callable
from typing import Any

from .. import __version__
from ..foundation.errors import BenchError
from . import pagecache
from .engine import INTERRUPTED, PassData, make_buffers, read_pass
from .record import SCHEMA, RecordWriter, interrupts_deferred
from .result import BenchResult, PassResult, latency_summary
from .walk import Manifest, walk_files

MIB = 1 << 20
#: Default passes: 1 cold + 4 warm, the 5 points `costmodel fit` needs for a warm level with a spread.
DEFAULT_PASSES = 5
METHOD_FADVISE = "posix_fadvise_dontneed"
METHOD_DIRECT = "o_direct"
METHOD_NONE = "none"


def _utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _mem_total_bytes() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _filesystem(path: str) -> str | None:
    """The file-system type of the mount holding ``path`` (from /proc/mounts), None when unknown."""
    try:
        with open("/proc/mounts", encoding="utf-8", errors="replace") as fh:
            mounts = [ln.split()[:3] for ln in fh if len(ln.split()) >= 3]
    except OSError:
        return None
    real = os.path.realpath(path)
    best, fstype = -1, None
    for _src, mnt_raw, typ in mounts:
        mnt = mnt_raw.replace("\\040", " ")
        if (real == mnt or real.startswith(mnt.rstrip("/") + "/")) and len(mnt) > best:
            best, fstype = len(mnt), typ
    return fstype


def validate_options(
    *, passes: int, workers: int, max_files: int, block_mib: float, sample_interval_s: float,
    direct: bool, cold_every_pass: bool, evict: bool, role: str = "",
) -> int:
    """Check the options; return the block size in bytes. Raises BenchError naming the option."""
    if passes < 1:
        raise BenchError(f"--passes must be at least 1; got {passes}")
    if workers < 1:
        raise BenchError(f"--workers must be at least 1; got {workers}")
    if max_files < 1:
        raise BenchError(f"--max-files must be at least 1; got {max_files}")
    if not (block_mib > 0):
        raise BenchError(f"--block-mib must be positive (MiB per read); got {block_mib}")
    block_bytes = int(round(block_mib * MIB))
    if block_bytes < 4096 or block_bytes % 4096:
        raise BenchError(f"--block-mib must give a whole number of 4 KiB pages (at least 4 KiB); "
                         f"got {block_mib} MiB = {block_bytes} bytes")
    if block_bytes > 1 << 30:
        raise BenchError(f"--block-mib must be at most 1024 MiB; got {block_mib}")
    if not (sample_interval_s >= 0.01):
        raise BenchError(f"--sample-interval-s must be at least 0.01 s; got {sample_interval_s}")
    if not evict and (direct or cold_every_pass):
        raise BenchError("--no-evict contradicts --direct and --cold-every-pass (they make passes cold)")
    if role not in ("", "colocated", "remote"):
        raise BenchError(f"--role must be colocated or remote; got {role!r}")
    return block_bytes


def run_bench(
    root: str | os.PathLike[str],
    *,
    passes: int = DEFAULT_PASSES,
    workers: int = 16,
    max_files: int = 1000,
    block_mib: float = 8.0,
    out: str | os.PathLike[str] | None = None,
    sample_interval_s: float = 0.5,
    direct: bool = False,
    cold_every_pass: bool = False,
    evict: bool = True,
    run_id: str | None = None,
    role: str = "",
    manifest: Manifest | None = None,
    on_pass: Callable[[PassResult], None] | None = None,
    on_progress: Callable[[str], None] | None = None,
    progress_interval_s: float = 5.0,
) -> BenchResult:
    """Read the sorted, capped file list under ``root`` ``passes`` times with ``workers`` threads.

    Before pass 1 (every pass with ``cold_every_pass``) this client's cached pages of exactly those
    files are evicted with ``posix_fadvise(DONTNEED)`` and the eviction is verified with ``mincore``;
    ``direct`` reads every pass with O_DIRECT instead (falling back to eviction before every pass where
    the file system refuses it); ``evict=False`` reads the page cache as found, like the familiar client.
    Byte counts are bytes, times seconds. ``out`` (JSONL) is written as the run goes and completed
    atomically. Ctrl-C stops the run: the result (and ``out``) keeps what was measured, status
    ``interrupted``. ``manifest`` reuses an earlier :func:`walk_files` (``root`` and ``max_files`` are
    then ignored). Raises :class:`BenchError` for bad options, a missing root, no files, or every file
    unreadable in the first pass (nothing is written then).
    """
    block_bytes = validate_options(
        passes=passes, workers=workers, max_files=max_files, block_mib=block_mib,
        sample_interval_s=sample_interval_s, direct=direct, cold_every_pass=cold_every_pass, evict=evict, role=role,
    )
    if manifest is None:
        manifest = walk_files(root, max_files)
    paths = manifest.paths()
    notes: list[str] = []
    truncated = manifest.truncation_note()
    if truncated:
        notes.append(truncated)
    use_direct = False
    if direct:
        ok, why = False, "no file could be opened to test O_DIRECT"
        for candidate in paths[:16]:  # the first file that opens at all answers for the file system
            try:
                ok, why = pagecache.direct_support(candidate)
                break
            except OSError:
                continue
        if ok:
            use_direct, method = True, METHOD_DIRECT
        else:
            method, cold_every_pass = METHOD_FADVISE, True
            notes.append(f"--direct: {why}; fell back to posix_fadvise(DONTNEED) before every pass")
    else:
        method = METHOD_FADVISE if evict else METHOD_NONE
    host = socket.gethostname()
    started = _utc_now()
    run: dict[str, Any] = {
        "type": "run",
        "schema": SCHEMA,
        "run_id": run_id or f"bench-{host}-{started.replace(':', '').replace('-', '')[:15]}",
        "role": role,
        "started_utc": started,
        "host": host,
        "os": platform.system(),
        "kernel": platform.release(),
        "kernel_version": platform.version(),
        "python": platform.python_version(),
        "costmodel_version": __version__,
        "cpu_count": os.cpu_count(),
        "mem_total_bytes": _mem_total_bytes(),
        "page_bytes": pagecache.PAGE_BYTES,
        "filesystem": _filesystem(manifest.root),
        **manifest.to_dict(),
        "options": {
            "passes": passes,
            "workers": workers,
            "max_files": max_files,
            "block_bytes": block_bytes,
            "block_mib": block_bytes / MIB,
            "sample_interval_s": sample_interval_s,
            "direct": direct,
            "cold_every_pass": cold_every_pass,
            "evict": evict,
        },
        "eviction_method": method,
        "notes": notes,
    }
    writer = RecordWriter(out) if out is not None else None
    result = BenchResult(run=run, passes=[], samples=[], file_reads=[], notes=notes,
                         out=os.fspath(out) if out is not None else None)
    unreadable: dict[int, dict[str, Any]] = {}
    buffers = make_buffers(max(1, min(workers, len(paths))), block_bytes)
    t0 = time.perf_counter()
    try:
        if writer:
            writer.write([run, {"type": "manifest", "files": [
                {"index": e.index, "path": e.relpath, "bytes": e.size_bytes} for e in manifest.entries]}])
        try:
            for p in range(1, passes + 1):
                pr, data = _one_pass(p, paths, manifest, method, use_direct, cold_every_pass, workers,
                                     block_bytes, t0, sample_interval_s, on_progress, progress_interval_s, buffers)
                with interrupts_deferred():  # the pass is kept whole in the result and the record, or not at all
                    _collect_problems(data, manifest, unreadable, result.changed)
                    if p == 1 and pr.files_read == 0 and pr.files_failed > 0 and not pr.interrupted:
                        first = next(iter(unreadable.values()))
                        raise BenchError(
                            f"all {pr.files_failed} files under {manifest.root} were unreadable; "
                            f"first: {first['path']}: {first['error']}"
                        )
                    result.passes.append(pr)
                    result.samples.extend(data.samples)
                    result.file_reads.extend(data.reads)
                    if writer:
                        writer.write([r.to_record() for r in data.reads] + [s.to_record() for s in data.samples]
                                     + [pr.to_record()])
                if pr.interrupted:
                    result.status = "interrupted"
                    break
                if on_pass is not None:
                    on_pass(pr)
        except KeyboardInterrupt:
            result.status = "interrupted"
        with interrupts_deferred():  # a second Ctrl-C waits until the record is complete
            result.unreadable = sorted(unreadable.values(), key=lambda u: u["index"])
            if result.unreadable:
                notes.append(f"{len(result.unreadable)} file(s) could not be read (listed under 'unreadable')")
            if result.changed:
                notes.append(f"{len(result.changed)} read(s) found a file changed since the walk "
                             "(size or mtime; listed under 'changed')")
            if writer:
                writer.finish({
                    "type": "end",
                    "status": result.status,
                    "ended_utc": _utc_now(),
                    "elapsed_s": time.perf_counter() - t0,
                    "passes_completed": sum(1 for x in result.passes if not x.interrupted),
                    "cold_to_warm_throughput_ratio": result.cold_warm_ratio(),
                    "unreadable": result.unreadable,
                    "changed": result.changed,
                    "notes": notes,
                })
    except BaseException:
        if writer:
            writer.abort()
        raise
    return result


def _one_pass(
    p: int, paths: list[str], manifest: Manifest, method: str, use_direct: bool,
    cold_every_pass: bool, workers: int, block_bytes: int, t0: float, sample_interval_s: float,
    on_progress: Callable[[str], None] | None, progress_interval_s: float, buffers: list[Any],
) -> tuple[PassResult, PassData]:
    eviction = None
    if use_direct:
        cold, page_cache, before = True, "bypassed", pagecache.residency(paths)
    elif method == METHOD_FADVISE and (p == 1 or cold_every_pass):
        eviction = pagecache.evict(paths)
        cold = eviction.method == METHOD_FADVISE
        page_cache = "evicted" if cold else "as_found"
        before = eviction.after if eviction.after is not None else pagecache.residency(paths)  # evict() sets it
        if on_progress is not None and eviction.worked is False:
            on_progress(f"pass {p}: eviction did not work: {'; '.join(eviction.notes)}")
    else:
        cold, page_cache, before = False, "as_found", pagecache.residency(paths)
    data = read_pass(
        paths, pass_no=p, workers=workers, block_bytes=block_bytes, direct=use_direct, t0=t0,
        sample_interval_s=sample_interval_s, total_bytes=manifest.total_bytes,
        on_progress=on_progress, progress_interval_s=progress_interval_s, buffers=buffers,
    )
    after = pagecache.residency(paths)
    direct_verified = None
    if use_direct and before.resident_bytes is not None and after.resident_bytes is not None and after.checked_bytes:
        added = after.resident_bytes - before.resident_bytes
        direct_verified = added <= pagecache.RESIDENT_OK_FRACTION * after.checked_bytes
        if not direct_verified and on_progress is not None:
            on_progress(f"pass {p}: O_DIRECT reads filled the page cache ({added / after.checked_bytes:.0%} of the "
                        "bytes): the file system does not honour O_DIRECT")
    ok = [r for r in data.reads if r.error is None]
    failed = [r for r in data.reads if r.error is not None and r.error != INTERRUPTED]
    changed = sum(1 for r in ok if _changed_reason(manifest.entries[r.index], r))
    pr = PassResult(
        pass_no=p,
        cold=cold,
        page_cache=page_cache,
        bytes=sum(r.bytes for r in data.reads if r.error in (None, INTERRUPTED)),
        elapsed_s=data.end_s - data.start_s,
        start_s=data.start_s,
        end_s=data.end_s,
        files_read=len(ok),
        files_failed=len(failed),
        files_changed=changed,
        latency_s=latency_summary([r.latency_s for r in ok]),
        residency_before=before,
        eviction=eviction,
        interrupted=data.interrupted,
        residency_after=after,
        direct_verified=direct_verified,
    )
    return pr, data


def _collect_problems(data: PassData, manifest: Manifest, unreadable: dict[int, dict[str, Any]],
                      changed: list[dict[str, Any]]) -> None:
    for r in data.reads:
        if r.error is None:
            entry = manifest.entries[r.index]
            why = _changed_reason(entry, r)
            if why:
                changed.append({"index": r.index, "path": entry.relpath, "pass": r.pass_no,
                                "expected_bytes": entry.size_bytes, "read_bytes": r.bytes, "reason": why})
        elif r.error != INTERRUPTED:
            u = unreadable.setdefault(r.index, {"index": r.index, "path": manifest.entries[r.index].relpath,
                                                "error": r.error, "passes": []})
            u["passes"].append(r.pass_no)


def _changed_reason(entry: Any, r: Any) -> str:
    """Why a successful read shows the file changed since the walk ('' when it did not)."""
    if r.bytes != entry.size_bytes:
        return "size"
    if r.size_after is not None and r.size_after != entry.size_bytes:
        return "size"
    if r.mtime_ns_after is not None and entry.mtime_ns is not None and r.mtime_ns_after != entry.mtime_ns:
        return "mtime"
    return ""
