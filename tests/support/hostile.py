"""Helpers of the adversarial corpus (tests/reliability/): build hostile inputs, check "one clear line,
nothing half-written" on a :class:`~support.cli.Result` (the ``cli`` fixture runs the verbs)."""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
from pathlib import Path

from .cli import Result
from .paths import EXAMPLES as EX


def one_error_line(r: Result, verb: str, *needles: str) -> str:
    """Assert exit 2 and exactly one stderr line ``costmodel VERB: error: ...`` containing every
    needle (case-insensitive), no traceback; return the line."""
    assert not r.hung, f"hung on a FIFO: {r.err}"
    assert r.rc == 2, (r.rc, r.err)
    assert "Traceback" not in r.err, r.err
    errs = [ln for ln in r.lines if ln.startswith(f"costmodel {verb}: ")]
    assert len(errs) == 1 and len(r.lines) == 1, r.err
    line = errs[0]
    assert line.startswith(f"costmodel {verb}: error: "), line
    assert "internal error" not in line, line
    for n in needles:
        assert n.lower() in line.lower(), (n, line)
    return line


def nothing_left(folder: Path, allowed: frozenset[str] | set[str] = frozenset()) -> None:
    """Nothing but ``allowed`` names in ``folder`` (no temporary file, lock or half-written output)."""
    names = {p.name for p in folder.iterdir()} if folder.exists() else set()
    extra = names - set(allowed)
    assert not extra, f"left behind in {folder}: {sorted(extra)}"


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def link_loop(path: Path) -> Path:
    os.symlink(path.name, path)  # points at itself
    return path


def unix_socket(path: Path) -> tuple[Path, socket.socket]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    return path, s


def billion_laughs(levels: int = 9, width: int = 9, indent: str = "") -> str:
    """A YAML alias bomb: ``levels`` anchors each listing the previous one ``width`` times
    (``width ** levels`` strings once expanded: 387,420,489 for the defaults)."""
    lines = [f'{indent}l0: &l0 ["lol"]',
             *(f"{indent}l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]" for i in range(1, levels + 1))]
    return "\n".join(lines) + "\n"


def good_steps_csv(path: Path, n: int = 60, bad_rows: int = 0) -> Path:
    rows = ["step,t_s,samples_per_s"]
    t = 0.0
    for i in range(n):
        t += 1.0
        rows.append(f"{i},{t:.1f},{100 + (i % 7)}.0")
    for k in range(bad_rows):
        rows.insert(10 + k, f"{9},{-1},{-5}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def can_mount_tmpfs(where: Path) -> str | None:
    """None when a tmpfs can be mounted at ``where`` (then unmounted), else why not."""
    if os.geteuid() != 0:
        return "not root: cannot mount a tmpfs"
    where.mkdir(parents=True, exist_ok=True)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)], check=False, capture_output=True,
                       text=True)
    if p.returncode != 0:
        return f"mount not permitted here: {p.stderr.strip()}"
    subprocess.run(["umount", str(where)], check=False)
    return None


@contextlib.contextmanager
def tmpfs(where: Path, size: str = "2m", ro: bool = False):
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], check=True)
    try:
        if ro:
            subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(where: Path, leave_bytes: int) -> None:
    """Fill the file system at ``where`` until about ``leave_bytes`` are free."""
    st = os.statvfs(where)
    free = st.f_bavail * st.f_frsize
    n = max(0, free - leave_bytes)
    with open(where / "filler", "wb") as fh:
        fh.write(b"\0" * n)


def report_args(out: Path, **kw: str) -> list[str | Path]:
    args: list[str | Path] = ["report", "--colocated", EX / "colocated_steps.csv", "--remote", EX / "remote_steps.csv",
            "--scenario", kw.get("scenario", EX / "scenario.yaml"), "--answers", kw.get("answers", EX / "answers.yaml"),
            "-o", out, "--monte-carlo", "0"]
    if "title" in kw:
        args += ["--title", kw["title"]]
    return args
