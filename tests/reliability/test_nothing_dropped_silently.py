"""Nothing dropped without a count and a name (issue 27, case 3): binary, empty and corrupt rank logs of a job, a
symbolically linked subfolder, the rows of a concatenated Parquet file and mixed-unit columns. Each is counted and
named in ``--json`` and on stderr, converted per cell when each cell states its unit, or refused in one line."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest
from support.storage import rank_csv

from costmodel.cli import main
from costmodel.ingest import load

BINARY = bytes(range(256)) * 8


def _run(capsys, args):
    rc = main(args)
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_binary_and_empty_rank_logs_are_counted_and_named(capsys, tmp_path):
    job = tmp_path / "job"
    job.mkdir()
    for r in range(40):
        (job / f"rank{r:04d}.csv").write_bytes(rank_csv(r))
    (job / "rank0040.csv").write_bytes(BINARY)
    (job / "rank0041.csv").write_bytes(b"")
    rc, out, err = _run(capsys, ["fit", str(job), "--json"])
    assert rc == 0, err
    j = json.loads(out)[0]["jobs"][0]
    assert j["ranks"] == 40 and j["skipped_count"] == 2
    assert [(os.path.basename(x["path"]), x["reason"].split(",")[0]) for x in j["skipped_files"]] == [
        ("rank0040.csv", "binary data"), ("rank0041.csv", "empty")]
    assert "2 input file(s) skipped" in err and "rank0040.csv: skipped" in err and "rank0041.csv: skipped (empty)" in err


def test_every_corrupt_log_is_named_with_a_count(capsys, tmp_path):
    job = tmp_path / "job"
    job.mkdir()
    bad = {17, 1000, 1999}
    for r in range(2000):
        body = b"step,samples_per_s,step_time_s\n\x00\x01\x02 torn write" if r in bad else rank_csv(r % 50)
        (job / f"rank{r:04d}.csv").write_bytes(body)
    rc, out, err = _run(capsys, ["fit", str(job), "--json", "--engine", "pandas"])
    assert rc == 0, err
    j = json.loads(out)[0]["jobs"][0]
    assert j["ranks"] == 1997 and j["skipped_count"] == 3
    assert sorted(os.path.basename(x["path"]) for x in j["skipped_files"]) == [f"rank{r:04d}.csv" for r in sorted(bad)]
    assert "3 input file(s) skipped" in err
    assert all(f"rank{r:04d}.csv: skipped" in err for r in bad)


def test_symlinked_subfolder_is_named_not_dropped(capsys, tmp_path):
    real = tmp_path / "elsewhere"
    real.mkdir()
    (real / "rank0.csv").write_bytes(rank_csv(0))
    top = tmp_path / "top"
    top.mkdir()
    (top / "run.csv").write_bytes(rank_csv(5))
    (top / "linked").symlink_to(real)
    rc, out, err = _run(capsys, ["ingest", str(top), "--json"])
    assert rc == 0, err
    warnings = json.loads(out)["warnings"]
    assert any(w.startswith(f"{top / 'linked'}: skipped (a symbolic link to a folder") and str(real) in w
               for w in warnings), warnings
    rc, out, err = _run(capsys, ["fit", str(top), "--json"])
    assert rc == 0 and f"{top / 'linked'}: skipped (a symbolic link" in err


def test_concatenated_parquet_is_refused_not_half_read(capsys, tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    parts = []
    for k in range(2):
        p = tmp_path / f"p{k}.parquet"
        pq.write_table(pa.table({"step": list(range(k * 100, k * 100 + 100)), "samples_per_s": [100.0] * 100}), p)
        parts.append(p.read_bytes())
    cat = tmp_path / "cat.parquet"
    cat.write_bytes(parts[0] + parts[1])
    rc, out, err = _run(capsys, ["ingest", str(cat), "--json"])
    assert rc == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "two Parquet files concatenated" in lines[0] and f"byte {len(parts[0]):,}" in lines[0]


def _col(path, name):
    (run,) = load(path)
    return np.asarray(run.table[name], dtype=float), run


def test_mixed_rate_units_converted_per_cell(tmp_path):
    p = tmp_path / "rates.csv"
    p.write_text("step,read_bytes_per_s\n" + "".join(f"{i},{'512 MiB/s' if i % 2 else '0.5 GiB/s'}\n" for i in range(40)))
    v, run = _col(p, "read_bytes_per_s")
    assert np.all(v == 512 * 2**20)
    assert any("20 in gib/s, 20 in mib/s" in w for w in run.warnings)


def test_mixed_time_units_converted_per_cell(tmp_path):
    p = tmp_path / "times.csv"
    p.write_text("step,step_time\n" + "".join(f"{i},{'250 ms' if i % 2 else '0.25 s'}\n" for i in range(40)))
    v, _run = _col(p, "step_time_s")
    assert np.all(v == 0.25)


def test_percent_beside_fraction_is_refused(capsys, tmp_path):
    p = tmp_path / "util.csv"
    p.write_text("step,samples_per_s,gpu_util\n" + "".join(f"{i},100,{'87%' if i % 2 else '0.87'}\n" for i in range(40)))
    rc, out, err = _run(capsys, ["ingest", str(p), "--json"])
    assert rc == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "util.csv" in lines[0] and "column 'gpu_util' mixes units" in lines[0]
    assert "20 cell(s) state one (%) and 20 do not" in lines[0]
