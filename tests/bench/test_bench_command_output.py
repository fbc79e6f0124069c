"""`costmodel bench` on the command line: the familiar stdout, errors, Ctrl-C, and ingesting its outputs."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.bench_tree import GIB, LINE_RE, SIZES, make_tree
from support.signals import default_dispositions

from costmodel.ingest import load

TOTAL = sum(SIZES.values())


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "data", SIZES)


def test_stdout_is_the_familiar_client_and_ingests_as_benchtext(cli, tree: Path, tmp_path: Path):
    out = tmp_path / "run.jsonl"
    proc = cli.subprocess("bench", str(tree), "--passes", "3", "--workers", "4", "--out", str(out), "--role", "remote")
    assert proc.rc == 0, proc.err
    lines = proc.out.splitlines()
    assert lines[0] == f"files={len(SIZES)} workers=4"
    assert len(lines) == 4
    for i, line in enumerate(lines[1:], start=1):
        m = LINE_RE.match(line)
        assert m and int(m.group(1)) == i and m.group(2) == f"{TOTAL / GIB:.2f}"
    assert "Traceback" not in proc.err and "evicted 6 files" in proc.err
    text = tmp_path / "client.txt"
    text.write_text(proc.out)
    [run] = load(text)
    assert run.format == "benchtext"
    assert run.table["step"].tolist() == [1, 2, 3]
    assert run.metadata["files"] == len(SIZES) and run.metadata["workers"] == 4
    # the JSONL of the same run
    [jr] = load(out)
    assert jr.format == "bench_jsonl" and jr.role == "remote"
    assert jr.metadata["passes_completed"] == 3 and jr.metadata["status"] == "complete"


def test_json_output(cli, tree: Path):
    proc = cli.subprocess("bench", str(tree), "--passes", "2", "--workers", "2", "--json", "-q")
    assert proc.rc == 0, proc.err
    d = json.loads(proc.out)
    assert d["files"] == len(SIZES) and d["total_bytes"] == TOTAL and d["workers"] == 2
    assert [p["bytes"] for p in d["passes"]] == [TOTAL, TOTAL]
    assert proc.err == ""


@pytest.mark.parametrize(
    "make, args, expect",
    [
        (lambda t: None, ["{t}/missing"], "no such directory"),
        (lambda t: (t / "empty" / "sub").mkdir(parents=True), ["{t}/empty"], "No files found under {t}/empty"),
        (lambda t: make_tree(t / "d", {"a": 1}), ["{t}/d", "--passes", "0"], "--passes must be at least 1"),
        (lambda t: make_tree(t / "d", {"a": 1}), ["{t}/d", "--no-evict", "--direct"], "--no-evict contradicts"),
        (lambda t: make_tree(t / "d", {"a": 1}), ["{t}/d", "--block-mib", "0.0001"], "4 KiB pages"),
        (lambda t: make_tree(t / "o.jsonl", {"a": 1}), ["{t}/o.jsonl"], "--out {t}/o.jsonl: is a directory"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(cli, tmp_path: Path, make, args, expect):
    make(tmp_path)
    out = tmp_path / "o.jsonl"
    proc = cli.subprocess("bench", *[a.format(t=tmp_path) for a in args], "--out", str(out))
    assert proc.rc == 2
    assert proc.out == ""
    err = proc.err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in proc.err
    assert expect.format(t=tmp_path) in err[0]
    assert (not out.exists() or out.is_dir()) and not list(tmp_path.glob("*.partial"))


def _no_read_override() -> list[str]:
    """A command prefix under which even root obeys file modes (drops CAP_DAC_OVERRIDE and friends)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    drop = [setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--"] if setpriv else []
    if not setpriv or subprocess.run([*drop, "true"]).returncode != 0:
        pytest.skip("running as root without setpriv to drop the file-mode override")
    return drop


def test_unreadable_files_listed_not_fatal_unless_all(tree: Path, tmp_path: Path):
    prefix = _no_read_override()
    (tree / "m.bin").chmod(0)
    out = tmp_path / "u.jsonl"
    cmd = [*prefix, sys.executable, "-m", "costmodel", "bench", str(tree), "--passes", "2", "--workers", "2"]
    proc = subprocess.run([*cmd, "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 3 and all(LINE_RE.match(x) for x in lines[1:])
    assert "pass 1: 1 file(s) unreadable" in proc.stderr
    assert "unreadable: m.bin: PermissionError: Permission denied" in proc.stderr
    end = json.loads(out.read_text().splitlines()[-1])
    assert [(u["path"], u["passes"]) for u in end["unreadable"]] == [("m.bin", [1, 2])]
    passes = [json.loads(x) for x in out.read_text().splitlines() if '"type":"pass"' in x]
    assert [p["bytes"] for p in passes] == [TOTAL - SIZES["m.bin"]] * 2
    for f in tree.rglob("*"):
        if f.is_file():
            f.chmod(0)
    proc = subprocess.run([*cmd, "--out", str(tmp_path / "all.jsonl")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and f"all {len(SIZES)} files under {tree} were unreadable" in err[0]
    assert not (tmp_path / "all.jsonl").exists() and not (tmp_path / "all.jsonl.partial").exists()


def _wait_for_line(proc: subprocess.Popen, prefix: str, timeout_s: float = 60) -> str:
    t_end = time.monotonic() + timeout_s
    while time.monotonic() < t_end:
        line = proc.stdout.readline()
        if line.startswith(prefix):
            return line
        if not line and proc.poll() is not None:
            break
    raise AssertionError(f"no line starting with {prefix!r}")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_keeps_a_complete_record_marked_interrupted(tree: Path, tmp_path: Path, sig):
    out = tmp_path / "int.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "costmodel", "bench", str(tree), "--passes", "1000000", "--workers", "2",
         "--out", str(out), "-q"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=default_dispositions,  # a background shell ignores SIGINT, nohup SIGHUP
    )
    try:
        _wait_for_line(proc, "pass=3 ")
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted: kept" in err and "Traceback" not in err
    assert not (tmp_path / "int.jsonl.partial").exists()
    recs = [json.loads(line) for line in out.read_text().splitlines()]  # every line is whole JSON
    assert recs[0]["type"] == "run" and recs[-1]["type"] == "end"
    assert recs[-1]["status"] == "interrupted"
    done = [r for r in recs if r["type"] == "pass" and not r["interrupted"]]
    assert recs[-1]["passes_completed"] == len(done) >= 3
    assert all(r["bytes"] == TOTAL for r in done)
    [run] = load(out)
    assert run.metadata["status"] == "interrupted"
    assert any("interrupted (Ctrl-C)" in w for w in run.warnings)


@pytest.mark.parametrize("axis", ["step", "t_s"])
def test_fit_analyses_the_record_on_both_axes(tree: Path, tmp_path: Path, axis: str, capsys):
    from costmodel.bench import run_bench
    from costmodel.cli import main

    out = tmp_path / "fit.jsonl"
    run_bench(tree, passes=4, workers=2, block_mib=0.0625, out=out, sample_interval_s=0.01)
    [run] = load(out)
    capsys.readouterr()
    assert main(["fit", str(out), "--axis", axis, "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    res = res[0] if isinstance(res, list) else res
    assert res["metric"] == "read_bytes_per_s" and res["axis"] == axis
    assert res["n_points"] == run.rows
