"""Fault injection: a full disk (a small tmpfs the test mounts, as root), a read-only file system,
permission errors, SIGINT/SIGTERM/SIGHUP at random stages of a real `costmodel report`, and two
concurrent writers of the same output folder. Each case: the exit status, one clear stderr line,
nothing half-written (no temporary folder, no lock, no kernel, no kernel connection file)."""
from __future__ import annotations

import errno
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.hostile import (
    EX,
    can_mount_tmpfs,
    fill,
    good_steps_csv,
    nothing_left,
    one_error_line,
    report_args,
    tmpfs,
)
from support.paths import REPO
from support.signals import default_dispositions, default_handlers

OUTPUT_FILES = ("report.ipynb", "report.html", "decision.json", "adr.md")


@pytest.fixture
def mountpoint(tmp_path):
    where = tmp_path / "fs"
    why = can_mount_tmpfs(where)
    if why:
        pytest.skip(why)
    return where


# -------------------------------------------------------------------------------- disk full
@pytest.mark.slow
@pytest.mark.parametrize("leave_bytes", [60_000, 700_000])
def test_report_on_a_full_disk_names_the_file_and_leaves_nothing(cli, mountpoint, leave_bytes):
    """60 kB free: the executed notebook does not fit; 700 kB: the HTML page does not."""
    with tmpfs(mountpoint, "2m") as fs:
        fill(fs, leave_bytes)
        r = cli.subprocess(*report_args(fs / "out"))
        line = one_error_line(_without_progress(r), "report", "no space left on device", "ENOSPC", str(fs / "out"))
        assert any(f"{fs / 'out'}/{name}" in line for name in OUTPUT_FILES), line
        nothing_left(fs, {"filler"})


def test_ingest_output_on_a_full_disk(cli, mountpoint, tmp_path):
    src = good_steps_csv(tmp_path / "r.csv", n=20_000)
    with tmpfs(mountpoint, "256k") as fs:
        fill(fs, 8_192)
        r = cli("ingest", src, "-o", fs / "t.parquet")
        one_error_line(r, "ingest", "cannot write", "t.parquet", "no space left on device")
        nothing_left(fs, {"filler"})


def test_read_only_file_system(cli, mountpoint, tmp_path):
    src = good_steps_csv(tmp_path / "r.csv")
    with tmpfs(mountpoint, "256k", ro=True) as fs:
        one_error_line(cli("ingest", src, "-o", fs / "t.parquet"), "ingest", "t.parquet", "read-only file system", "EROFS")
        one_error_line(cli("simulate", EX / "whatif.yaml", "-o", fs / "p.parquet"), "simulate", "p.parquet", "read-only")
        line = one_error_line(cli(*report_args(fs / "sub" / "out")), "report", "read-only file system")
        assert str(fs / "sub") in line
        nothing_left(fs)


def test_permission_denied_is_mapped_even_as_root(tmp_path, monkeypatch):
    """Root ignores file modes, so EACCES is injected where the report creates its temporary folder."""
    import tempfile

    from costmodel import report
    from costmodel.foundation.errors import OutputError

    def denied(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied", str(tmp_path))

    monkeypatch.setattr(tempfile, "mkdtemp", denied)
    with pytest.raises(OutputError, match=r"cannot create the output folder .*: permission denied \(EACCES\)"):
        report.render_report([EX / "colocated_steps.csv"], [], EX / "scenario.yaml", EX / "answers.yaml",
                             tmp_path / "out", monte_carlo_n=0)
    nothing_left(tmp_path)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EACCES, errno.EROFS, errno.ENAMETOOLONG, errno.EISDIR, errno.EDQUOT])
def test_os_errors_while_writing_name_the_file(tmp_path, monkeypatch, code):
    """A write that fails after open (no file name in the OSError, as write() on a full disk) still names the file."""
    from costmodel.foundation.errors import OutputError
    from costmodel.foundation.util import write_text_atomic

    real = Path.write_text

    def failing(self, *a, **k):
        real(self, "half")
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(Path, "write_text", failing)
    target = tmp_path / "sub" / "x.json"
    with pytest.raises(OutputError) as info:
        write_text_atomic(target, "{}")
    msg = str(info.value)
    assert msg.startswith(f"cannot write {target}: ") and f"({errno.errorcode[code]})" in msg, msg
    nothing_left(tmp_path / "sub")


# ---------------------------------------------------------------------------------- signals
STAGES = ["report: inputs checked", "report: ingesting inputs", "report: fitting warm-up",
          "report: pricing the options", "report: writing decision.json", "report: exporting HTML"]


def _children(pid: int) -> set[int]:
    out = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[-1].split()
            except OSError:
                continue
            if fields[1] == str(pid):
                out.add(int(name))
    return out


def _connection_files(pids: set[int]) -> list[str]:
    files = []
    for pid in pids:
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        except OSError:
            continue
        files += [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "-f"]
    return files


def _without_progress(r):
    r.err = "\n".join(ln for ln in r.err.splitlines() if not ln.startswith("report: ")) + "\n"
    return r


#: (signal, stage): every stage gets a signal; the delay after the stage's line is random (seeded,
#: COSTMODEL_FAULT_SEED to vary it), up to 0.3 s (0 for the last stage, which ends within a second)
SIGNAL_CASES = [(signal.SIGTERM, STAGES[0]), (signal.SIGHUP, STAGES[1]), (signal.SIGTERM, STAGES[2]),
                (signal.SIGINT, STAGES[3]), (signal.SIGHUP, STAGES[4]), (signal.SIGTERM, STAGES[5])]


@pytest.mark.slow
@pytest.mark.parametrize("sig,stage", SIGNAL_CASES, ids=lambda v: signal.Signals(v).name if isinstance(v, int) else v.split(": ")[1])
def test_a_signal_at_each_stage_stops_the_report_cleanly(tmp_path, sig, stage):
    """The run ends with 128+N, one line, and no temporary folder, lock, output, kernel process
    or kernel connection file."""
    rng = random.Random(int(os.environ.get("COSTMODEL_FAULT_SEED", "19")) * 100 + STAGES.index(stage))
    delay_s = 0.0 if stage == STAGES[-1] else rng.uniform(0.0, 0.3)
    parent = tmp_path / "p"
    parent.mkdir()
    p = subprocess.Popen([sys.executable, "-m", "costmodel", *map(str, report_args(parent / "out"))],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, preexec_fn=default_dispositions)
    seen, kids, conns = [], set(), []
    try:
        while True:
            line = p.stderr.readline()
            seen.append(line)
            kids |= _children(p.pid)
            conns += _connection_files(kids)
            if not line or line.startswith(stage):
                break
        assert line, f"ended before {stage!r}: {''.join(seen)}"
        time.sleep(delay_s)
        kids |= _children(p.pid)
        conns += _connection_files(kids)
        p.send_signal(sig)
        _out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    lines = [ln for ln in ("".join(seen) + err).splitlines() if ln.strip() and not ln.startswith("report: ")]
    name = signal.Signals(sig).name
    expected = "costmodel report: interrupted" if sig == signal.SIGINT else f"costmodel report: interrupted by {name}"
    assert p.returncode == 128 + int(sig), (stage, p.returncode, err)
    assert lines == [expected], (stage, err)
    nothing_left(parent)
    for k in kids:
        assert not Path(f"/proc/{k}").exists() or "Z" in Path(f"/proc/{k}/stat").read_text().split(") ")[1][:1], \
            f"kernel {k} still running after {name} at {stage!r}"
    for c in conns:
        assert not os.path.exists(c), f"kernel connection file {c} left after {name} at {stage!r}"


# --------------------------------------------------------------------------- concurrent writers
@pytest.mark.slow
@pytest.mark.parametrize("force", [False, True])
def test_two_concurrent_reports_to_one_folder_exactly_one_wins(tmp_path, force):
    out = tmp_path / "same"
    if force:  # both replace a previous report
        out.mkdir()
        (out / "report.html").write_text("previous")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = []
    for title in ("Run A", "Run B"):
        argv = [sys.executable, "-m", "costmodel", *map(str, report_args(out, title=title))] + (["--force"] if force else [])
        procs.append((title, subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=env)))
    outputs = [p.communicate(timeout=240) for _t, p in procs]
    results = [(title, p.returncode, o_e) for (title, p), o_e in zip(procs, outputs, strict=True)]
    print([(t, rc, o_e[1].splitlines()[-1:]) for t, rc, o_e in results])
    winners = [t for t, rc, _ in results if rc == 0]
    losers = [(t, rc, oe[1]) for t, rc, oe in results if rc != 0]
    assert len(winners) == 1 and len(losers) == 1, results
    _t, rc, err = losers[0]
    errs = [ln for ln in err.splitlines() if ln.startswith("costmodel report")]
    assert rc == 2 and len(errs) == 1, err
    assert "is taken: another costmodel report" in errs[0] or "exists and is not empty" in errs[0], errs
    assert json.loads((out / "decision.json").read_text())["title"] == winners[0]
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_FILES)
    nothing_left(tmp_path, {"same"})


def test_output_claim_is_exclusive_and_a_stale_lock_is_taken_over(tmp_path):
    from costmodel.foundation.errors import OutputError
    from costmodel.report.render import OutputClaim

    dest = tmp_path / "out"
    a = OutputClaim(dest).acquire()
    assert (tmp_path / ".out.lock").read_text().strip() == str(os.getpid())
    with pytest.raises(OutputError, match=rf"output folder {dest} is taken: another costmodel report \(pid {os.getpid()}\)"):
        OutputClaim(dest).acquire()
    a.release()
    nothing_left(tmp_path)
    (tmp_path / ".out.lock").write_text("999999\n")  # left by a run killed with SIGKILL: nobody holds it
    b = OutputClaim(dest).acquire()
    b.release()
    nothing_left(tmp_path)


def test_a_lock_taken_before_its_pid_is_written_still_refuses_in_one_line(tmp_path):
    """The race two concurrent reports can hit: the other holds the lock but has not written its pid yet."""
    import fcntl

    from costmodel.foundation.errors import OutputError
    from costmodel.report.render import OutputClaim

    dest = tmp_path / "out"
    fd = os.open(tmp_path / ".out.lock", os.O_RDWR | os.O_CREAT, 0o644)  # held, still empty
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(OutputError, match=rf"output folder {dest} is taken: another costmodel report is writing"):
            OutputClaim(dest).acquire()
    finally:
        os.close(fd)


def test_a_claimed_folder_refuses_the_cli_at_once(cli, tmp_path):
    from costmodel.report.render import OutputClaim

    claim = OutputClaim((tmp_path / "out").resolve()).acquire()
    try:
        r = cli(*report_args(tmp_path / "out"))
        r.err = "\n".join(ln for ln in r.err.splitlines() if not ln.startswith("report: "))
        one_error_line(r, "report", "is taken", str(tmp_path / "out"))
        assert r.seconds < 10
    finally:
        claim.release()
    nothing_left(tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: signal.Signals(s).name)
def test_a_signal_during_streaming_ingest_leaves_no_partial_parquet(tmp_path, sig):
    """ingest -o streams the CSV batch by batch into a temporary file beside the output; a signal
    while that file exists ends with 128+N, one line, and neither the output nor the temporary file."""
    import numpy as np

    n = 800_000
    src = tmp_path / "big.csv"
    np.savetxt(src, np.c_[np.arange(n), np.arange(n) * 0.5, np.full(n, 100.5)], fmt=["%d", "%.1f", "%.1f"],
               delimiter=",", header="step,t_s,samples_per_s", comments="")
    out_dir = tmp_path / "o"
    out_dir.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO), "COSTMODEL_STREAM_CSV_BYTES": "1000"}
    p = subprocess.Popen([sys.executable, "-m", "costmodel", "ingest", str(src), "-o", str(out_dir / "t.parquet")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         preexec_fn=default_dispositions)
    try:
        deadline = time.monotonic() + 120
        while p.poll() is None and time.monotonic() < deadline:
            if any(f.name.endswith(".tmp") for f in out_dir.iterdir()):
                break
            time.sleep(0.005)
        assert p.poll() is None, "ingest finished before its temporary file was seen"
        p.send_signal(sig)
        _out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 128 + int(sig), err
    assert [ln for ln in err.splitlines() if ln.strip()] == [f"costmodel ingest: interrupted by {signal.Signals(sig).name}"], err
    nothing_left(out_dir)


def test_an_interruption_the_moment_the_temporary_file_exists_leaves_nothing(tmp_path, monkeypatch):
    """The race the streaming test above can hit: a signal arriving right after the atomic write's temporary file
    is made (here a KeyboardInterrupt raised as os.open returns) still removes it; the temporary file is made inside
    the block that cleans up, not before it."""
    from costmodel.foundation.util import atomic_path

    real_open = os.open

    def open_then_interrupted(path, flags, *args):
        fd = real_open(path, flags, *args)
        os.close(fd)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "open", open_then_interrupted)
    with pytest.raises(KeyboardInterrupt), atomic_path(tmp_path / "out.parquet"):
        pytest.fail("the block ran although the temporary file could not be made")
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


def test_signal_scope_turns_term_and_hup_into_interrupted_and_restores_handlers():
    from costmodel.foundation.signals import Interrupted, SignalScope, describe, exit_code_of

    with default_handlers():  # as from a terminal, also when the suite runs under nohup (SIGHUP ignored)
        before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        for sig, code in ((signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)):
            with pytest.raises(KeyboardInterrupt) as info, SignalScope():
                signal.raise_signal(sig)
                time.sleep(1)  # never reached: the handler raises first
            assert isinstance(info.value, Interrupted) and exit_code_of(info.value) == code
            assert describe(info.value) == ("interrupted" if sig == signal.SIGINT else f"interrupted by {signal.Signals(sig).name}")
        assert {s: signal.getsignal(s) for s in before} == before


def test_signals_during_cleanup_are_noted_then_raised_by_check():
    from costmodel.foundation.signals import Interrupted, SignalScope

    with SignalScope() as scope:
        with scope.deferred():
            signal.raise_signal(signal.SIGTERM)  # noted only: the cleanup goes on
            done = True
        assert done and scope.seen == signal.SIGTERM
        with pytest.raises(Interrupted) as info:
            scope.check()
    assert info.value.signum == signal.SIGTERM


def test_an_ignored_sighup_stays_ignored(monkeypatch):
    from costmodel.foundation.signals import SignalScope

    old = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with SignalScope():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN  # nohup: left alone
            signal.raise_signal(signal.SIGHUP)
    finally:
        signal.signal(signal.SIGHUP, old)
