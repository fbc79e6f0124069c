"""`costmodel watch` on a log as it is written: a growing file, a rotated file, standard input, bad and
truncated lines, a writer that stops (short timeouts: these run on a shared machine)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from support.paths import EXAMPLES, REPO

REMOTE = EXAMPLES / "remote_steps.csv"
COLOC = EXAMPLES / "colocated_steps.csv"
FAST = ("--poll", "0.02", "--json", "--margin", "0.05")


def _lines() -> list[str]:
    return REMOTE.read_text(encoding="utf-8").splitlines(keepends=True)


def _events(out: str) -> list[dict]:
    return [json.loads(x) for x in out.splitlines() if x.strip()]


def _writer(path: Path, chunks: list[list[str]], pause_s: float, rotate_at: int | None = None) -> threading.Thread:
    def run() -> None:
        for i, ch in enumerate(chunks):
            if rotate_at is not None and i == rotate_at:
                path.rename(path.with_name(path.name + ".1"))
                path.write_text(_lines()[0], encoding="utf-8")  # the new file starts with its header
            with path.open("a", encoding="utf-8") as f:
                f.writelines(ch)
            time.sleep(pause_s)
    t = threading.Thread(target=run, daemon=True)
    return t


def _chunks(rows: list[str], size: int) -> list[list[str]]:
    return [rows[i:i + size] for i in range(0, len(rows), size)]


def test_a_growing_file_is_followed_until_the_call(cli, tmp_path):
    log = tmp_path / "remote.csv"
    lines = _lines()
    log.write_text(lines[0], encoding="utf-8")
    w = _writer(log, _chunks(lines[1:600], 40), 0.03)
    w.start()
    r = cli("watch", log, "--colocated", COLOC, "--until", "decided", "--idle-timeout", "5", *FAST)
    w.join()
    ev = _events(r.out)
    kinds = [e["event"] for e in ev]
    assert r.rc == 0, r.err
    assert "warmup_over" in kinds and "call" in kinds and kinds[-1] == "end"
    wu = next(e for e in ev if e["event"] == "warmup_over")
    assert 120 <= wu["warmup_end_step"] <= 160  # the example's remote warm-up (compare: 138)
    end = ev[-1]
    assert end["call"] == "equivalent" and end["decided_by"] == "confidence sequence" and end["exit_code"] == 0
    assert end["called_at_step"] < 599  # stopped before the writer's last row
    assert 0.99 < end["ratio"] < 1.01 and end["ratio_cs_low"] > 1 / 1.05 and end["ratio_cs_high"] < 1.05


def test_a_rotated_file_continues_in_its_new_part(tmp_path):
    from costmodel.trial.follow import Follower, parse_parts

    log = tmp_path / "remote.csv"
    lines = _lines()
    log.write_text("".join(lines[:201]), encoding="utf-8")
    f = Follower(str(log), poll_s=0.01, idle_timeout_s=0.3)
    it = f.updates()
    assert next(it).kind == "data"
    log.rename(tmp_path / "remote.csv.1")  # logrotate: the old file moves away, a new one takes its name
    with (tmp_path / "remote.csv.1").open("a", encoding="utf-8") as old:
        old.writelines(lines[201:211])  # the writer's last rows into the old file before it reopens
    log.write_text(lines[0] + "".join(lines[211:400]), encoding="utf-8")
    assert [next(it).kind, next(it).kind] == ["data", "rotated"]  # the old file's last rows first
    with log.open("r+", encoding="utf-8") as new:  # copytruncate: the same file cut to nothing, rewritten
        new.truncate(0)
        new.write("".join(lines[400:500]))
    kinds = [u.kind for u in it]
    assert kinds[0] == "rotated" and kinds[-1] == "idle" and f.rotations == 2
    p = parse_parts(f.parts, f.name, ended=True)
    assert p.rejected == [] and p.run is not None
    steps = p.run.table["step"].tolist()
    assert steps == list(range(499))  # every row of the three parts once, in order; no header read as a row


def test_standard_input_is_read_to_its_end(tmp_path):
    data = "".join(_lines()[:700]).encode()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    p = subprocess.run([sys.executable, "-m", "costmodel", "watch", "-", "--colocated", str(COLOC), *FAST],
                       input=data, capture_output=True, timeout=300, env=env, check=False)
    ev = _events(p.stdout.decode())
    assert p.returncode == 0, p.stderr.decode()[-2000:]
    assert ev[-1]["event"] == "end" and ev[-1]["rows"] == 699 and ev[-1]["call"] == "equivalent"


def test_bad_and_truncated_lines_are_counted_and_named_never_fatal(cli, tmp_path):
    log = tmp_path / "remote.csv"
    lines = _lines()[:500]
    lines.insert(200, "oops,this is not a row\n")
    lines.insert(300, "250,xx,yy\n")
    log.write_text("".join(lines) + "499,1890.0,11", encoding="utf-8")  # a last line cut short
    r = cli("watch", log, "--colocated", COLOC, "--no-follow", "--replay", "50", *FAST)
    end = _events(r.out)[-1]
    assert r.rc == 0, r.err
    assert end["rejected_lines"] == 3, end["rejected"]
    assert [x["line"] for x in end["rejected"]] == [201, 301, 503]  # 1-based lines of the file
    assert end["truncated_last_line"] is True
    assert any(e["event"] == "rejected" for e in _events(r.out))


def test_a_writer_that_stops_is_reported_after_the_idle_timeout(cli, tmp_path):
    log = tmp_path / "remote.csv"
    log.write_text("".join(_lines()[:90]), encoding="utf-8")
    t0 = time.monotonic()
    r = cli("watch", log, "--colocated", COLOC, "--idle-timeout", "0.5", "--no-final-analysis", *FAST)
    took = time.monotonic() - t0
    ev = _events(r.out)
    assert [e["event"] for e in ev][-2:] == ["idle", "end"]
    assert ev[-2]["idle_s"] >= 0.5 and took < 30
    assert r.rc == 4 and ev[-1]["call"] == "undecided" and ev[-1]["exit_code"] == 4
    human = cli("watch", log, "--colocated", COLOC, "--idle-timeout", "0.3", "--no-final-analysis", "--poll", "0.02")
    assert human.rc == 4 and "stopped growing" in human.out and "undecided" in human.out


def test_bad_options_and_a_missing_log_are_one_line_errors(cli, tmp_path):
    for args in (("--margin", "2"), ("--idle-timeout", "0")):
        r = cli("watch", REMOTE, "--colocated", COLOC, *args)
        assert r.rc == 2 and r.err.count("\n") == 1 and "error:" in r.err
    r = cli("watch", tmp_path / "nope.csv", "--colocated", COLOC)
    assert r.rc == 2 and "nope.csv" in r.err and "Traceback" not in r.err
