"""One timed pass: a pool of threads reads every file once, block by block, while the calling thread
samples the bytes read per time slice and reports progress.

Hot path per block: one ``readv`` into a buffer allocated once per thread (mmap-allocated, hence
page-aligned, for O_DIRECT) and two integer additions; the GIL is released during the read.
"""
from __future__ import annotations

import mmap
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .result import GIB, FileRead, Sample

INTERRUPTED = "interrupted"


@dataclass
class PassData:
    """Raw measurements of one pass (times in seconds since the run's ``t0``)."""

    reads: list[FileRead]
    samples: list[Sample]
    start_s: float
    end_s: float
    interrupted: bool


def make_buffers(workers: int, block_bytes: int) -> list[mmap.mmap]:
    """One read buffer per worker: anonymous mmap (page-aligned, as O_DIRECT needs), pages touched now
    so that neither allocation nor first-touch page faults fall inside a timed pass."""
    zeros = bytes(block_bytes)
    bufs = []
    for _ in range(workers):
        b = mmap.mmap(-1, block_bytes)
        b[:] = zeros
        bufs.append(b)
    return bufs


def read_pass(
    paths: Sequence[str],
    *,
    pass_no: int,
    workers: int,
    block_bytes: int,
    direct: bool,
    t0: float,
    sample_interval_s: float,
    total_bytes: int,
    on_progress: Callable[[str], None] | None = None,
    progress_interval_s: float = 5.0,
    buffers: Sequence[mmap.mmap] | None = None,
) -> PassData:
    """Read every path once with ``workers`` threads; Ctrl-C stops the pass and marks it interrupted.

    ``buffers`` (from :func:`make_buffers`, at least ``workers`` of ``block_bytes``) are reused across
    passes; without them each pass allocates its own.
    """
    n_files = len(paths)
    workers = max(1, min(workers, n_files))
    bufs = list(buffers) if buffers is not None else make_buffers(workers, block_bytes)
    flags = os.O_RDONLY | (getattr(os, "O_DIRECT", 0) if direct else 0)
    next_index = iter(range(n_files)).__next__  # atomic under the GIL: each file goes to one thread
    done_bytes = [0] * workers
    done_blocks = [0] * workers
    done_files = [0] * workers
    end_times = [0.0] * workers
    reads: list[FileRead] = []
    stop = threading.Event()
    finished = threading.Event()
    remaining = [workers]
    lock = threading.Lock()
    clock = time.perf_counter

    def work(w: int) -> None:
        view = [memoryview(bufs[w])[:block_bytes]]
        try:
            while not stop.is_set():
                try:
                    i = next_index()
                except StopIteration:
                    break
                start = clock()
                n = 0
                err = None
                st = None
                try:
                    fd = os.open(paths[i], flags)
                    try:
                        while True:
                            k = os.readv(fd, view)
                            if k <= 0:
                                break
                            n += k
                            done_bytes[w] += k
                            done_blocks[w] += 1
                            if stop.is_set():
                                err = INTERRUPTED
                                break
                        st = os.fstat(fd)  # size and mtime after the read: was the file changing?
                    finally:
                        os.close(fd)
                except OSError as exc:
                    err = f"{type(exc).__name__}: {exc.strerror or exc}"
                end = clock()
                reads.append(FileRead(pass_no, i, n, start - t0, end - t0, w, err,
                                      st.st_size if st else None, st.st_mtime_ns if st else None))
                done_files[w] += 1
        finally:
            end_times[w] = clock()
            view[0].release()
            with lock:
                remaining[0] -= 1
                if remaining[0] == 0:
                    finished.set()

    threads = [threading.Thread(target=work, args=(w,), name=f"costmodel-bench-{w}", daemon=True) for w in range(workers)]
    samples: list[Sample] = []
    t_start = clock()
    last_t, last_b, last_k, k = t_start, 0, 0, 0
    next_tick = t_start + sample_interval_s
    next_progress = t_start + progress_interval_s if progress_interval_s > 0 else float("inf")
    prog_t, prog_b = t_start, 0
    interrupted = False
    try:
        for th in threads:
            th.start()
        while not finished.wait(max(0.0, next_tick - clock())):
            now = clock()
            b, blk = sum(done_bytes), sum(done_blocks)
            samples.append(Sample(pass_no, k, last_t - t0, now - t0, b - last_b, blk - last_k, sum(done_files)))
            k += 1
            last_t, last_b, last_k = now, b, blk
            next_tick += sample_interval_s
            if next_tick <= now:
                next_tick = now + sample_interval_s
            if on_progress is not None and now >= next_progress:
                rate = (b - prog_b) / (now - prog_t) / GIB
                on_progress(
                    f"pass {pass_no}: {sum(done_files)}/{n_files} files, {b / GIB:.2f}/{total_bytes / GIB:.2f} GiB, "
                    f"{rate:.2f} GiB/s over the last {now - prog_t:.1f} s"
                )
                prog_t, prog_b = now, b
                next_progress = now + progress_interval_s
    except KeyboardInterrupt:
        interrupted = True
        stop.set()
    while True:  # a Ctrl-C while joining stops the readers too (each stops within one block)
        try:
            for th in threads:
                if th.ident is not None:
                    th.join()
            break
        except KeyboardInterrupt:
            interrupted = True
            stop.set()
    t_end = max(end_times) if all(end_times) else clock()
    b, blk = sum(done_bytes), sum(done_blocks)
    tail = Sample(pass_no, k, last_t - t0, t_end - t0, b - last_b, blk - last_k, sum(done_files))
    if samples and tail.duration_s < 0.5 * sample_interval_s:
        prev = samples.pop()
        tail = Sample(pass_no, prev.slice, prev.t_start_s, tail.t_end_s, prev.bytes + tail.bytes, prev.blocks + tail.blocks,
                      tail.files_done)
    samples.append(tail)
    if any(r.error == INTERRUPTED for r in reads):
        interrupted = True
    reads.sort(key=lambda r: (r.start_s, r.index))
    return PassData(reads=reads, samples=samples, start_s=t_start - t0, end_s=t_end - t0, interrupted=interrupted)
