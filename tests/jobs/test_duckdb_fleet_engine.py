"""DuckDB fleet engine at scale (issue 16, item 5): sampled straggler candidates, the unchecked fast
scan falling back to the checked one on bad values, deterministic slowest rank on ties, and which
engine ``auto`` picks by size and columns."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from costmodel.jobs import fleet, load_side
from costmodel.synthetic.rank_logs import generate_job

pytest.importorskip("duckdb")


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """32 ranks (4 nodes of 8), node 1 (ranks 8-15) slow by 12 %, rank 3 ends early."""
    root = tmp_path_factory.mktemp("scale")
    truth = generate_job(root / "job1", n_ranks=32, n_steps=3000, seed=11)
    return root / "job1", truth


def test_sampled_candidates_are_the_slow_node(job):
    d, truth = job
    files = sorted(str(f) for f in d.glob("*.csv"))
    plan = fleet.usable(files)
    ranks, _ = fleet.file_ranks(files)
    cands = fleet.sample_candidates(files, plan, ranks)
    assert sorted(truth["stragglers"]) == list(range(8, 16))
    assert set(truth["stragglers"]) <= set(cands) and len(cands) <= 12


def test_sampled_cells_parse_in_one_pass_as_the_regex_reads_them(job, tmp_path):
    """The batched pyarrow parse of every file's sampled lines gives the regex's cells per file; lines it
    cannot take (a text cell, a blank line) send the job to the regex, with the same candidates."""
    d, truth = job
    files = sorted(str(f) for f in d.glob("*.csv"))
    plan = fleet.usable(files)
    col = plan["names"].index(plan["step_time_s"][0])
    lines = {f: fleet._sample_lines(f) for f in files}
    got = fleet._parse_samples(lines, plan, col)
    assert got is not None and set(got) == set(files)
    for f in files:
        want = fleet._sample_step_times(f, col, plan["delim"])
        assert len(want) > 100
        np.testing.assert_array_equal(got[f], want)
    # a text cell and a blank line in one file: the batch is refused, the regex reads every file
    ranks, _ = fleet.file_ranks(files)
    before = fleet.sample_candidates(files, plan, ranks)
    bad_dir = tmp_path / "bad"
    bad_dir.mkdir()
    copies = []
    for f in files:
        text = Path(f).read_text()
        if f == files[0]:
            rows = text.split("\n")
            mid = 3  # inside the first sampled range
            cells = rows[mid].split(plan["delim"])
            cells[col] = "oops"
            rows[mid] = plan["delim"].join(cells)
            rows.insert(mid + 1, "")
            text = "\n".join(rows)
        out = bad_dir / f.rsplit("/", 1)[-1]
        out.write_text(text)
        copies.append(str(out))
    lines_bad = {f: fleet._sample_lines(f) for f in copies}
    assert fleet._parse_samples(lines_bad, plan, col) is None
    ranks_bad, _ = fleet.file_ranks(copies)
    assert fleet.sample_candidates(copies, plan, ranks_bad) == before
    assert set(truth["stragglers"]) <= set(before)


def test_candidates_miss_costs_a_scan_not_the_answer(job, monkeypatch):
    """No candidate sampled (forced): the time lost comes from a second scan and is the same."""
    d, _truth = job
    a = load_side([str(d)], engine="duckdb").jobs[0]
    monkeypatch.setattr(fleet, "sample_candidates", lambda *a, **k: [])
    b = load_side([str(d)], engine="duckdb").jobs[0]
    assert [s["rank"] for s in a["stragglers"]] == [s["rank"] for s in b["stragglers"]] and a["stragglers"]
    assert a["straggler_lost_s"] == pytest.approx(b["straggler_lost_s"], rel=1e-12)
    assert a["straggler_lost_s"] > 0


def test_fast_scan_agrees_with_pandas_and_is_deterministic(job):
    d, _truth = job
    p = load_side([str(d)], engine="pandas")
    a = load_side([str(d)], engine="duckdb")
    b = load_side([str(d)], engine="duckdb")
    assert a.jobs[0] == b.jobs[0]
    for c in ("samples_per_s", "step_time_s", "t_s"):
        np.testing.assert_array_equal(a.runs[0].table[c].to_numpy(), b.runs[0].table[c].to_numpy())
        np.testing.assert_allclose(a.runs[0].table[c].to_numpy(float), p.runs[0].table[c].to_numpy(float), rtol=2e-7)
    # ties in step time go to the lowest rank, as in the pandas engine: same slowest-step counts
    assert [(s["rank"], s["slowest_steps"], s["held_back_steps"]) for s in a.jobs[0]["stragglers"]] == \
        [(s["rank"], s["slowest_steps"], s["held_back_steps"]) for s in p.jobs[0]["stragglers"]]
    assert a.jobs[0]["straggler_lost_s"] == pytest.approx(p.jobs[0]["straggler_lost_s"], rel=1e-6)


@pytest.mark.parametrize("bad", ["-0.5", "inf", "nan"])
def test_bad_value_reruns_the_checked_scan(tmp_path, bad):
    """A negative or non-finite step time is counted and kept as missing, exactly as the checked scan does."""
    d = tmp_path / "j"
    generate_job(d, n_ranks=8, n_steps=400, seed=3, straggler_node=None, early_rank=None)
    f = sorted(d.glob("*.csv"))[2]
    lines = f.read_text().splitlines()
    cells = lines[101].split(",")
    cells[3] = bad
    lines[101] = ",".join(cells)  # step 100 of rank 2
    f.write_text("\n".join(lines) + "\n")
    side = load_side([str(d)], engine="duckdb")
    job = side.jobs[0]
    assert job["rejected_rows"] == 1
    assert any("1 row(s) with a negative or non-finite value" in w for w in side.warnings)
    st = side.runs[0].table.set_index("step")["step_time_s"]
    assert np.isfinite(st.to_numpy()).all() and st[100] > 0


def test_auto_engine_by_size_and_columns(tmp_path, monkeypatch):
    d = tmp_path / "j"
    generate_job(d, n_ranks=4, n_steps=300, seed=5, straggler_node=None, early_rank=None)
    monkeypatch.setattr(fleet, "FLEET_BYTES", 1)
    assert load_side([str(d)], engine="auto").jobs[0]["engine"] == "duckdb"
    # a column only the pandas engine aggregates keeps a mid-size job on pandas ...
    for f in d.glob("*.csv"):
        lines = f.read_text().splitlines()
        f.write_text("\n".join([lines[0] + ",data_wait_s"] + [x + ",0.01" for x in lines[1:]]) + "\n")
    side = load_side([str(d)], engine="auto")
    assert side.jobs[0]["engine"] == "pandas" and "data_wait_s" in side.runs[0].table
    # ... until the always-DuckDB size, where a note names the column left out
    monkeypatch.setattr(fleet, "FLEET_BYTES_ALWAYS", 1)
    side = load_side([str(d)], engine="auto")
    assert side.jobs[0]["engine"] == "duckdb"
    assert any("data_wait_s not aggregated by the DuckDB engine" in w for w in side.warnings)
