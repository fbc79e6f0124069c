"""What the object-storage tests (s3:// on moto, gs:// on gcp-storage-emulator, az:// on Azurite) share: the
1,000 rank logs they upload, waiting for an emulator's port, a server that accepts and never answers (the
timeout case), and the one-line-exit-2 check of a CLI error."""
from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

from costmodel.cli import main


def rank_csv(r: int) -> bytes:
    """One rank's log of the test fleet: rank 17 is 20 % slower on every step; rank 400 logs only 20 of 40 steps."""
    n = 20 if r == 400 else 40
    rows = []
    for s in range(n):
        st = 0.2 * (1.2 if r == 17 else 1.0) * (1 + 0.01 * ((s * 7 + r) % 5))
        rows.append(f"{s},{24 / st:.5f},{st:.5f}\n")
    return ("step,samples_per_s,step_time_s\n" + "".join(rows)).encode()


def wait_port(port: int, proc: subprocess.Popen | None = None, seconds: float = 30.0, poll_s: float = 0.1) -> bool:
    """True once 127.0.0.1:``port`` accepts a connection; False after ``seconds`` or when ``proc`` has exited."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(poll_s)
    return False


@contextlib.contextmanager
def silent_server() -> Iterator[int]:
    """A port on 127.0.0.1 whose server accepts connections and never answers (a hung endpoint)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            with contextlib.suppress(OSError):
                held.append(srv.accept()[0])

    th = threading.Thread(target=accept, daemon=True)
    th.start()
    try:
        yield int(srv.getsockname()[1])
    finally:
        stop.set()
        th.join(5)
        for c in held:
            c.close()
        srv.close()


def one_line_exit_2(capsys: Any, args: list[str], needle: str) -> str:
    """Runs the CLI in-process; asserts exit 2 and exactly one stderr line holding ``needle``, no traceback."""
    rc = main(args)
    err = capsys.readouterr().err
    assert rc == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in err, err
    return lines[0]
