"""Ctrl-C during `costmodel report`: a real SIGINT to the CLI process after its first progress line
ends it with exit 130, one line on stderr after the progress lines (no asyncio / kernel shutdown
traceback) and no output folder, temporary or final."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from support.paths import REPO
from support.signals import default_dispositions

EX = REPO / "costmodel" / "data" / "examples"


def _cli_args(out: Path) -> list[str]:
    return ["report", "--colocated", str(EX / "colocated_steps.csv"), "--remote", str(EX / "remote_steps.csv"),
            "--scenario", str(EX / "scenario.yaml"), "--answers", str(EX / "answers.yaml"), "-o", str(out)]


def _interrupt(cmd: list[str], wait_for: str, delay_s: float = 0.0) -> tuple[int, str]:
    """Start ``cmd``, send SIGINT once a stderr line contains ``wait_for``; return (rc, stderr)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                         preexec_fn=default_dispositions)  # Ctrl-C as a terminal delivers it, under nohup or `&` too
    seen = []
    try:
        while True:
            line = p.stderr.readline()
            seen.append(line)
            if not line or wait_for in line:
                break
        assert line, f"the process ended before {wait_for!r}: {''.join(seen)}"
        time.sleep(delay_s)
        p.send_signal(signal.SIGINT)
        _out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return p.returncode, "".join(seen) + err


def _assert_one_line_and_nothing_left(rc: int, err: str, parent: Path) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    other = [ln for ln in lines if not ln.startswith("report: ")]
    assert rc == 130, err
    assert other == ["costmodel report: interrupted"], err
    assert "Traceback" not in err and "never retrieved" not in err
    assert list(parent.iterdir()) == [], "a folder was left behind"


# A driver that runs the real CLI (--via-kernel: the notebook in a kernel) with the notebook step replaced: the
# interrupt lands while a
# kernel client's asyncio task has failed with DeadKernelError and nobody retrieved it (what
# nbclient leaves behind when Ctrl-C stops it), or while code swallows the KeyboardInterrupt (as
# Python does in weakref callbacks and __del__), then the real notebook runs to the end.
DRIVER = textwrap.dedent(
    """
    import asyncio, sys, time
    from costmodel.cli import main
    from costmodel.report import render

    mode = sys.argv[1]
    real = render.execute_notebook

    def execute(nb_path, out_path, params, progress=None, cwd=None, **kw):  # kw: km, the kernel started early
        progress("report: kernel busy")
        if mode == "dead-kernel-task":
            from nbclient.exceptions import DeadKernelError
            loop = asyncio.new_event_loop()

            async def poll():
                raise DeadKernelError("Kernel died")

            task = loop.create_task(poll())
            loop.run_until_complete(asyncio.sleep(0.01))  # the task fails; its exception is never retrieved
            try:
                time.sleep(60)
            finally:
                del task  # collected while the interrupt unwinds: asyncio logs it with a traceback
        else:
            deadline = time.time() + 60
            while time.time() < deadline:
                try:
                    time.sleep(0.05)
                except KeyboardInterrupt:
                    break  # swallowed
        return real(nb_path, out_path, params, progress=progress, cwd=cwd, **kw)

    render.execute_notebook = execute
    sys.exit(main(sys.argv[2:]))
    """
)


def test_sigint_after_the_first_progress_line_exits_130_with_one_line(tmp_path):
    parent = tmp_path / "p"
    parent.mkdir()
    cmd = [sys.executable, "-m", "costmodel", *_cli_args(parent / "out")]
    rc, err = _interrupt(cmd, "report: ", delay_s=1.0)
    _assert_one_line_and_nothing_left(rc, err, parent)


def test_sigint_leaves_no_asyncio_dead_kernel_traceback(tmp_path):
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    parent = tmp_path / "p"
    parent.mkdir()
    rc, err = _interrupt([sys.executable, str(driver), "dead-kernel-task", *_cli_args(parent / "out"), "--via-kernel"],
                         "kernel busy", 0.3)
    _assert_one_line_and_nothing_left(rc, err, parent)


def test_a_swallowed_sigint_still_stops_the_report_before_it_is_written(tmp_path):
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    parent = tmp_path / "p"
    parent.mkdir()
    rc, err = _interrupt([sys.executable, str(driver), "swallow", *_cli_args(parent / "out"), "--via-kernel"],
                         "kernel busy", 0.3)
    _assert_one_line_and_nothing_left(rc, err, parent)
    assert "report: wrote" not in err and "exporting HTML" not in err


def test_render_report_restores_the_sigint_handler(tmp_path, examples_dir):
    from costmodel import report

    before = signal.getsignal(signal.SIGINT)
    report.render_report([examples_dir / "colocated_steps.csv"], [], examples_dir / "scenario.yaml",
                         examples_dir / "answers.yaml", tmp_path / "out", monte_carlo_n=0)
    assert signal.getsignal(signal.SIGINT) is before
    assert os.path.isfile(tmp_path / "out" / "decision.json")
