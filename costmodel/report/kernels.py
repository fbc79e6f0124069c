"""The kernels a report run started: found among this process's children and stopped when the run is interrupted,
so that no kernel outlives ``costmodel report``."""
from __future__ import annotations

import contextlib
import os
import signal


def _process_children() -> set[int]:
    """Process ids whose parent is this process (Linux /proc; empty elsewhere)."""
    me = os.getpid()
    out: set[int] = set()
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[1] == str(me):
            out.add(int(name))
    return out


def _kernel_connection_file(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read().decode("utf-8", "replace").split("\0")
    except OSError:
        return None
    if not any("ipykernel" in a for a in argv):
        return None
    for i, a in enumerate(argv[:-1]):
        if a == "-f" and argv[i + 1].endswith(".json"):
            return argv[i + 1]
    return ""


def stop_kernels(pids: set[int], timeout_s: float = 3.0) -> list[int]:
    """Stop the Jupyter kernels among ``pids`` (children of this process): SIGTERM, SIGKILL after
    ``timeout_s``, reaped, connection files removed. Returns the pids stopped."""
    import time

    kernels = {}
    for pid in pids:
        conn = _kernel_connection_file(pid)
        if conn is not None:
            kernels[pid] = conn
    for pid in kernels:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    pending = set(kernels)
    while pending:
        for pid in list(pending):
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                pending.discard(pid)
        if not pending:
            break
        if time.monotonic() > deadline:
            for pid in pending:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            for pid in pending:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
            break
        time.sleep(0.02)
    for conn in kernels.values():
        if conn:
            with contextlib.suppress(OSError):
                os.unlink(conn)
    return sorted(kernels)
