"""This client's page cache, for exactly the files it reads: evict, measure residency, test O_DIRECT.

Nothing here needs root or touches other files: eviction is ``posix_fadvise(fd, 0, 0,
POSIX_FADV_DONTNEED)`` on each file read (never ``drop_caches``), and residency is measured with
``mincore(2)`` on a read-only mapping (which does not fault pages in). On systems without these
calls the functions say so instead of failing.
"""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import mmap
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..foundation.fields_json import FieldsJson, JsonKeys

PAGE_BYTES = mmap.PAGESIZE
#: Residency above this share of the checked bytes after an eviction means it did not work.
RESIDENT_OK_FRACTION = 0.02
#: At most this many files are checked with mincore (evenly spaced); the rest are assumed alike.
MAX_CHECKED_FILES = 2000
#: O_DIRECT needs buffers, offsets and lengths aligned to the logical block size; 4 KiB covers all.
DIRECT_ALIGN_BYTES = 4096

_HAVE_FADVISE = hasattr(os, "posix_fadvise") and hasattr(os, "POSIX_FADV_DONTNEED")
_HAVE_DIRECT = hasattr(os, "O_DIRECT")


@dataclass
class Residency(FieldsJson):
    """How much of the checked files sits in this machine's page cache (mincore), in bytes."""

    checked_files: int
    checked_bytes: int
    resident_bytes: int | None
    method: str = "mincore"
    note: str = ""

    @property
    def fraction(self) -> float | None:
        if self.resident_bytes is None or self.checked_bytes <= 0:
            return None
        return self.resident_bytes / self.checked_bytes

    JSON = JsonKeys(keys=("method", "checked_files", "checked_bytes", "resident_bytes", "resident_fraction=fraction", "note"))


@dataclass
class Eviction(FieldsJson):
    """What was done to make the next pass cold, and whether it worked (``worked`` None = unknown)."""

    method: str
    files: int = 0
    errors: int = 0
    elapsed_s: float = 0.0
    after: Residency | None = None
    worked: bool | None = None
    notes: list[str] = field(default_factory=list)

    JSON = JsonKeys(rename={"after": "residency_after"}, lists=True)


def _libc() -> Any:
    name = ctypes.util.find_library("c")
    try:
        lib = ctypes.CDLL(name, use_errno=True)
        lib.mmap.restype = ctypes.c_void_p
        lib.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
        lib.munmap.restype = ctypes.c_int
        lib.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        lib.mincore.restype = ctypes.c_int
        lib.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        return lib
    except (OSError, AttributeError):
        return None


_LIBC = _libc()
_MAP_FAILED = ctypes.c_void_p(-1).value
#: mincore sets bit 0 of a page's byte when resident; the other bits are reserved.
_LOW_BIT = bytes(b & 1 for b in range(256))


def resident_bytes(path: str) -> int | None:
    """Bytes of ``path`` in the page cache (whole pages, capped at the file size); None when unknowable."""
    if _LIBC is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return 0
        addr = _LIBC.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, _MAP_FAILED):
            return None
        try:
            pages = (size + PAGE_BYTES - 1) // PAGE_BYTES
            vec = (ctypes.c_ubyte * pages)()
            if _LIBC.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(size), vec) != 0:
                return None
            n = bytes(vec).translate(_LOW_BIT).count(1)
            return min(n * PAGE_BYTES, size)
        finally:
            _LIBC.munmap(ctypes.c_void_p(addr), ctypes.c_size_t(size))
    finally:
        os.close(fd)


def _checked_subset(paths: Sequence[str], max_files: int = MAX_CHECKED_FILES) -> list[str]:
    if len(paths) <= max_files:
        return list(paths)
    step = len(paths) / max_files
    return [paths[int(i * step)] for i in range(max_files)]


def residency(paths: Sequence[str], sizes: Sequence[int] | None = None) -> Residency:
    """Page-cache residency of ``paths`` (up to :data:`MAX_CHECKED_FILES`, evenly spaced), via mincore."""
    subset = _checked_subset(paths)
    if _LIBC is None:
        return Residency(len(subset), 0, None, method="unavailable", note="mincore is not available here")
    checked_bytes = 0
    resident = 0
    unknown = 0
    for p in subset:
        try:
            size = os.stat(p).st_size
        except OSError:
            unknown += 1
            continue
        r = resident_bytes(p)
        if r is None:
            unknown += 1
            continue
        checked_bytes += size
        resident += r
    note = f"{unknown} file(s) could not be mapped" if unknown else ""
    if unknown == len(subset):
        return Residency(len(subset), 0, None, note=note or "no file could be mapped")
    return Residency(len(subset) - unknown, checked_bytes, resident, note=note)


def evict(paths: Sequence[str]) -> Eviction:
    """Drop this machine's cached pages of exactly ``paths`` with POSIX_FADV_DONTNEED, then verify.

    Dirty pages are not dropped by the advice; files still resident afterwards are flushed with
    ``fdatasync`` and advised again (their data is already written, so this changes nothing on disk).
    ``worked`` is True when at most :data:`RESIDENT_OK_FRACTION` of the checked bytes stay resident.
    """
    import time

    t0 = time.perf_counter()
    if not _HAVE_FADVISE:
        return Eviction("none", notes=["posix_fadvise is not available on this system; the pass is not cold"])
    ev = Eviction("posix_fadvise_dontneed", files=len(paths))
    for p in paths:
        if not _advise(p, sync=False):
            ev.errors += 1
    ev.after = residency(paths)
    frac = ev.after.fraction
    if frac is not None and frac > RESIDENT_OK_FRACTION:
        still = [p for p in _checked_subset(paths) if (resident_bytes(p) or 0) > 0]
        for p in still:
            _advise(p, sync=True)
        ev.notes.append(f"{len(still)} file(s) stayed resident after the first advice; flushed and advised again")
        ev.after = residency(paths)
        frac = ev.after.fraction
    if frac is None:
        ev.worked = None
        ev.notes.append("residency could not be measured (mincore unavailable or files not mappable)")
    else:
        ev.worked = frac <= RESIDENT_OK_FRACTION
        if not ev.worked:
            ev.notes.append(
                f"{frac:.1%} of the checked bytes are still in the page cache after eviction "
                "(a file system that keeps its data in memory, such as tmpfs, or pages pinned by another process)"
            )
    if ev.errors:
        ev.notes.append(f"{ev.errors} file(s) could not be opened for eviction")
    ev.elapsed_s = time.perf_counter() - t0
    return ev


def _advise(path: str, sync: bool) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        if sync:
            with contextlib.suppress(OSError):
                os.fdatasync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def direct_support(path: str) -> tuple[bool, str]:
    """Whether ``path`` can be read with O_DIRECT and an aligned buffer; ``(False, why)`` when not.

    Raises OSError when the file cannot be opened at all (missing, no permission).
    """
    if not _HAVE_DIRECT:
        return False, "O_DIRECT is not available on this system"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            return False, "the file system does not support O_DIRECT (EINVAL on open)"
        raise  # the file itself cannot be opened (missing, permissions): not an answer about O_DIRECT
    try:
        buf = mmap.mmap(-1, DIRECT_ALIGN_BYTES)
        try:
            os.readv(fd, [buf])
        finally:
            buf.close()
    except OSError as exc:
        return False, f"O_DIRECT read failed ({exc.strerror}); the file system does not support it"
    finally:
        os.close(fd)
    return True, ""
