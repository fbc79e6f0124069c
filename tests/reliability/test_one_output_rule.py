"""One output rule for every verb (issue 27, cases 4, 5 and the full disk of case 8): ``ingest -o``, ``simulate -o``,
``bench --out`` and ``schema --write`` never replace an existing file without ``--force``; ADR numbers are claimed
under a lock with exclusive create, unique when ``decide`` runs in parallel processes with different titles; a
full disk while ``decide --adr`` writes names the folder in one line and leaves no empty ``adr/``."""
from __future__ import annotations

import errno
import multiprocessing
import os
import re
from pathlib import Path

from costmodel.cli import main

UNRELATED = "an unrelated file the user keeps\n"


def _refused(capsys, args, target: Path, words: str = "exists; not replaced") -> None:
    rc = main(args)
    err = capsys.readouterr().err
    assert rc == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "--force" in lines[0] and "Traceback" not in err, err
    assert target.read_text() == UNRELATED  # untouched


def test_ingest_o_does_not_replace_without_force(capsys, tmp_path, examples_dir):
    out = tmp_path / "keep.parquet"
    out.write_text(UNRELATED)
    args = ["ingest", str(examples_dir / "colocated_steps.csv"), "-o", str(out)]
    _refused(capsys, args, out)
    assert main([*args, "--force"]) == 0
    assert out.read_bytes()[:4] == b"PAR1"


def test_simulate_o_does_not_replace_without_force(capsys, tmp_path, examples_dir):
    out = tmp_path / "keep.parquet"
    out.write_text(UNRELATED)
    args = ["simulate", str(examples_dir / "whatif.yaml"), "-o", str(out), "--json"]
    _refused(capsys, args, out)
    assert main([*args, "--force"]) == 0
    assert out.read_bytes()[:4] == b"PAR1"


def test_bench_out_does_not_replace_without_force(capsys, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for i in range(3):
        (data / f"f{i}.bin").write_bytes(os.urandom(4096))
    out = tmp_path / "keep.jsonl"
    out.write_text(UNRELATED)
    args = ["bench", str(data), "--passes", "1", "--workers", "1", "--out", str(out), "-q"]
    _refused(capsys, args, out)
    assert not (tmp_path / "keep.jsonl.partial").exists()
    assert main([*args, "--force"]) == 0
    capsys.readouterr()
    assert out.read_text() != UNRELATED and out.read_text().startswith("{")


def test_schema_write_does_not_replace_without_force(capsys, tmp_path):
    d = tmp_path / "schema"
    d.mkdir()
    (d / "fit.json").write_text(UNRELATED)
    _refused(capsys, ["schema", "--write", str(d)], d / "fit.json")
    assert sorted(p.name for p in d.iterdir()) == ["fit.json"]  # nothing else written either
    assert main(["schema", "--write", str(d), "--force"]) == 0
    capsys.readouterr()
    assert (d / "fit.json").read_text().startswith("{")


def _decide(args: tuple[str, str, str, object]) -> None:
    answers, adr_dir, title, start = args
    start.wait()  # type: ignore[attr-defined]
    rc = main(["decide", "--answers", answers, "--adr", adr_dir, "--title", title, "--json"])
    os._exit(rc)


def test_adr_numbers_unique_under_parallel_decide(tmp_path, examples_dir):
    adr_dir = tmp_path / "adr"
    adr_dir.mkdir()
    for i in range(300):  # a folder with many records already, beside 20,000 other files (a slow listing)
        (adr_dir / f"{i + 1:04d}-old-{i}.md").write_text("---\nstatus: accepted\n---\n")
    for i in range(20_000):
        (adr_dir / f"attachment-{i}.txt").touch()
    ctx = multiprocessing.get_context("fork")
    start = ctx.Event()
    procs = [ctx.Process(target=_decide, args=((str(examples_dir / "answers.yaml"), str(adr_dir),
                                                 f"Parallel decision {k}", start),)) for k in range(12)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * 12
    numbers = [int(m.group(1)) for p in adr_dir.iterdir() if (m := re.match(r"^(\d{4})-.*\.md$", p.name))]
    assert len(numbers) == 312 and len(set(numbers)) == 312, sorted(numbers)[300:]
    assert sorted(numbers)[-12:] == list(range(301, 313))
    assert not [p for p in adr_dir.iterdir() if p.name.endswith(".tmp")]


def test_full_disk_during_decide_names_the_folder_and_leaves_no_empty_adr(capsys, tmp_path, examples_dir,
                                                                         monkeypatch):
    adr_dir = tmp_path / "adr"
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

    def fdopen(fd, mode="r", *a, **k):
        fh = real_fdopen(fd, mode, *a, **k)
        return Full(fh) if "w" in mode else fh

    monkeypatch.setattr(os, "fdopen", fdopen)
    rc = main(["decide", "--answers", str(examples_dir / "answers.yaml"), "--adr", str(adr_dir), "--json"])
    err = capsys.readouterr().err
    assert rc == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "no space left on device" in lines[0] and str(adr_dir) in lines[0], err
    assert not adr_dir.exists()
