"""Temporary folders a killed run leaves behind, cleaned by a later run.

A run that is killed with SIGKILL (or loses its machine) cannot remove its temporary folder. Every temporary
folder (and every temporary file of an atomic write, :func:`owned_tempname`) costmodel makes is therefore named
with the process id that owns it (:func:`owned_tempdir`: ``<prefix><pid>-<random><suffix>``); the next run that
makes one in the same place first removes those whose owner is no longer running (a zombie, or a process that
started after the leftover was made, reusing the number, counts as gone) and that are older than a minute
(:func:`sweep`). A folder of a live owner or of another user is left alone.
"""
from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import tempfile
import time
from pathlib import Path

#: a leftover is removed only when older than this (seconds): a run that is just starting is never touched
MIN_AGE_S = 60.0


def _alive(pid: int, since: float | None = None) -> bool:
    """Whether process ``pid`` still runs. A zombie (killed, not yet reaped by its parent) is dead; a process
    that started after ``since`` (the leftover's time, seconds since the epoch) is another process that reuses
    the number, so the owner is dead too (Linux ``/proc``; elsewhere the signal check alone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return True
    if fields[0] in (b"Z", b"X"):
        return False
    if since is not None:
        try:
            ticks = os.sysconf("SC_CLK_TCK")
            with open("/proc/stat", "rb") as fh:
                boot = next(float(line.split()[1]) for line in fh if line.startswith(b"btime "))
            started = boot + int(fields[19]) / ticks
        except (OSError, ValueError, IndexError, StopIteration):
            return True
        if started > since + 2.0:  # the number was reused after the leftover was made
            return False
    return True


def sweep(directory: str | os.PathLike[str], prefix: str, suffix: str = "", min_age_s: float = MIN_AGE_S) -> list[str]:
    """Remove the folders and files ``<prefix><pid>-*<suffix>`` in ``directory`` whose process is gone (or is a
    zombie, or whose number was reused since) and that are older than ``min_age_s``; returns their names. Never
    raises (cleaning is best effort)."""
    removed: list[str] = []
    pattern = re.compile(re.escape(prefix) + r"(\d+)-[^/]*" + re.escape(suffix) + "$")
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    now = time.time()
    for e in entries:
        m = pattern.match(e.name)
        if not m or int(m.group(1)) == os.getpid():
            continue
        try:
            st = e.stat(follow_symlinks=False)
            is_dir = e.is_dir(follow_symlinks=False)
            if not (is_dir or e.is_file(follow_symlinks=False)) or st.st_uid != os.getuid() \
                    or now - st.st_mtime < min_age_s:
                continue
        except OSError:
            continue
        if _alive(int(m.group(1)), since=st.st_ctime):  # the owner made it, so started before its last change
            continue
        if is_dir:
            shutil.rmtree(e.path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(e.path)
        if not os.path.lexists(e.path):
            removed.append(e.name)
    return removed


def owned_tempdir(prefix: str, suffix: str = "", directory: str | os.PathLike[str] | None = None) -> Path:
    """``tempfile.mkdtemp`` named ``<prefix><pid>-<random><suffix>`` in ``directory`` (the system's temporary folder by
    default), after sweeping the leftovers of killed runs there."""
    where = directory if directory is not None else tempfile.gettempdir()
    sweep(where, prefix, suffix)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", suffix=suffix, dir=where))


def owned_tempname(target: str | os.PathLike[str]) -> Path:
    """A fresh name ``.<name>.<pid>-<random>.tmp`` beside ``target`` for an atomic write of it (no file is made: the
    caller makes it where an interruption removes it), after sweeping the ones killed runs left there
    (:func:`sweep`). The name carries this process's id, so a file already there under it is a dead run's."""
    t = Path(target)
    sweep(t.parent, f".{t.name}.", ".tmp")
    return t.parent / f".{t.name}.{os.getpid()}-{secrets.token_hex(6)}.tmp"
