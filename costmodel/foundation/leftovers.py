"""Temporary folders a killed run leaves behind, cleaned by a later run (issue 27).

A run that is killed with SIGKILL (or loses its machine) cannot remove its temporary folder. Every temporary
folder costmodel makes is therefore named with the process id that owns it (:func:`owned_tempdir`:
``<prefix><pid>-<random><suffix>``); the next run that makes one in the same place first removes those whose
owner is no longer running and that are older than a minute (:func:`sweep`). A folder of a live process, of
another user, or of a process id now reused is left alone.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from pathlib import Path

#: a leftover is removed only when older than this (seconds): a run that is just starting is never touched
MIN_AGE_S = 60.0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def sweep(directory: str | os.PathLike[str], prefix: str, suffix: str = "", min_age_s: float = MIN_AGE_S) -> list[str]:
    """Remove the folders ``<prefix><pid>-*<suffix>`` in ``directory`` whose process is gone and that are older than
    ``min_age_s``; returns their names. Never raises (cleaning is best effort)."""
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
            if not e.is_dir(follow_symlinks=False) or st.st_uid != os.getuid() or now - st.st_mtime < min_age_s:
                continue
        except OSError:
            continue
        if _alive(int(m.group(1))):
            continue
        shutil.rmtree(e.path, ignore_errors=True)
        if not os.path.lexists(e.path):
            removed.append(e.name)
    return removed


def owned_tempdir(prefix: str, suffix: str = "", directory: str | os.PathLike[str] | None = None) -> Path:
    """``tempfile.mkdtemp`` named ``<prefix><pid>-<random><suffix>`` in ``directory`` (the system's temporary folder by
    default), after sweeping the leftovers of killed runs there."""
    where = directory if directory is not None else tempfile.gettempdir()
    sweep(where, prefix, suffix)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", suffix=suffix, dir=where))
