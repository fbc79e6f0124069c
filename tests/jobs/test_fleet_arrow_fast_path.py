"""The fleet engine's fast path (pyarrow + numpy per rank file, costmodel.jobs.arrowscan) gives the same
tables as the DuckDB query on a job with an incomplete rank, missing steps, a rank that starts late,
stragglers and tied step times; files it cannot take exactly (a bad cell, a repeated step) go through the
query, which counts and names the bad rows."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from costmodel.jobs import arrowscan, fleet, load_side
from costmodel.synthetic.rank_logs import generate_job

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")


def _both(files: list[str], monkeypatch: pytest.MonkeyPatch, cands: list[int] | None = None):
    if cands is not None:
        monkeypatch.setattr(fleet, "sample_candidates", lambda *a, **k: list(cands))
    monkeypatch.setattr(fleet, "FAST_PATH", True)
    a = fleet.tables_from_csv("j", files)
    monkeypatch.setattr(fleet, "FAST_PATH", False)
    b = fleet.tables_from_csv("j", files)
    return a, b


def _same(x: pd.DataFrame, y: pd.DataFrame) -> None:
    assert list(x.columns) == list(y.columns) and len(x) == len(y)
    for c in x.columns:
        xa, ya = x[c].to_numpy(dtype="float64"), y[c].to_numpy(dtype="float64")
        np.testing.assert_array_equal(np.isnan(xa), np.isnan(ya), err_msg=c)
        np.testing.assert_allclose(xa, ya, rtol=1e-9, atol=0, err_msg=c)


@pytest.fixture(scope="module")
def ragged(tmp_path_factory) -> tuple[list[str], dict]:
    """24 ranks (node 1 = ranks 8-15 slow), rank 3 ends early; rank 5 misses every 7th step and the
    steps 100-149; rank 6 starts at step 40; ranks 1 and 2 copy rank 0's step times (ties) and are
    the slowest, tied, at steps 200-209; rank 9 has empty throughput cells."""
    d = tmp_path_factory.mktemp("ragged") / "job1"
    truth = generate_job(d, n_ranks=24, n_steps=1500, seed=7)
    files = sorted(str(f) for f in Path(d).glob("*.csv"))
    base = pd.read_csv(files[0])
    for i, f in enumerate(files):
        t = pd.read_csv(f)
        if i == 5:
            t = t[(t["step"] % 7 != 0) & ~t["step"].between(100, 149)]
        if i == 6:
            t = t[t["step"] >= 40]
        if i in (1, 2):
            t["step_time_s"] = base["step_time_s"].to_numpy()[: len(t)]
            t.loc[t["step"].between(200, 209), "step_time_s"] = 10.0  # the slowest, tied: rank 1 wins
        if i == 9:
            t.loc[t.index[10:20], "samples_per_s"] = np.nan  # empty cells: missing, not bad
        t.to_csv(f, index=False, float_format="%.6f")
    return files, truth


def test_fast_path_equals_duckdb_query(ragged, monkeypatch):
    files, truth = ragged
    a, b = _both(files, monkeypatch)
    assert (a.reader, b.reader) == ("arrow", "duckdb")
    assert a.bin_steps == b.bin_steps and a.ranks_all == b.ranks_all and a.sources == b.sources
    _same(a.steps, b.steps)
    _same(a.ranks, b.ranks)
    _same(a.bins, b.bins)
    assert (a.identical_steps, a.multi_rank_steps, a.rejected_rows) == (b.identical_steps, b.multi_rank_steps, 0)
    # what the fixture built is really there
    st = a.steps.set_index("step")
    assert (st.loc[0, "n_ranks"], st.loc[120, "n_ranks"], st.loc[1499, "n_ranks"]) == (22, 23, 23)
    assert (st.loc[200:209, "slowest_rank"] == 1).all() and (st.loc[200:209, "st_second"] == 10.0).all()
    assert st["thr_sum"].notna().all() and (a.ranks.set_index("rank").loc[6, "first_step"] == 40)
    for bad in ({8, 9, 10}, set(truth["stragglers"]), {3}):
        np.testing.assert_allclose(a.others_max(bad), b.others_max(bad), rtol=1e-9)


def test_fast_path_others_max_outside_candidates(ragged, monkeypatch):
    """Stragglers outside the sampled candidates: one more pass over the files, the same maximum."""
    files, truth = ragged
    a, b = _both(files, monkeypatch, cands=[])
    bad = set(truth["stragglers"])
    got, want = a.others_max(bad), b.others_max(bad)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_fast_path_job_summary_equals_query(ragged, monkeypatch):
    d = str(Path(ragged[0][0]).parent)
    monkeypatch.setattr(fleet, "FAST_PATH", False)
    q = load_side([d], engine="duckdb").jobs[0]
    monkeypatch.setattr(fleet, "FAST_PATH", True)
    f = load_side([d], engine="duckdb").jobs[0]
    assert (q["reader"], f["reader"]) == ("duckdb", "arrow")
    q.pop("reader"), f.pop("reader")
    assert f == q and f["stragglers"] and f["ranks_incomplete"]


@pytest.mark.parametrize("edit", ["abc", "-0.5", "inf", "nan", "dup", "short"])
def test_files_the_fast_path_cannot_take_go_through_the_query(tmp_path, monkeypatch, edit):
    d = tmp_path / "j"
    generate_job(d, n_ranks=6, n_steps=300, seed=3, straggler_node=None, early_rank=None)
    files = sorted(str(f) for f in d.glob("*.csv"))
    lines = Path(files[2]).read_text().splitlines()
    cells = lines[101].split(",")
    if edit == "dup":
        lines.insert(102, lines[101])  # step 100 twice
    elif edit == "short":
        lines[101] = ",".join(cells[:2])
    else:
        cells[3] = edit
        lines[101] = ",".join(cells)
    Path(files[2]).write_text("\n".join(lines) + "\n")
    plan = fleet.usable(files)
    ranks, _ = fleet.file_ranks(files)
    with pytest.raises(arrowscan.Fallback):
        arrowscan.scan(files, plan, ranks, [], 200, "samples_per_s")
    monkeypatch.setattr(fleet, "FAST_PATH", True)
    t = fleet.tables_from_csv("j", files)
    assert t.reader == "duckdb"
    if edit != "dup":
        # counted and named, as before the fast path (DuckDB reports a short line once per missing column)
        assert t.rejected_rows == (2 if edit == "short" else 1) and any("rejected" in w for w in t.warnings)


def test_header_only_rank_file_same_as_query(tmp_path, monkeypatch):
    """A rank whose log has only its header: present in the job, no row, same tables as the query."""
    d = tmp_path / "j"
    generate_job(d, n_ranks=5, n_steps=500, seed=4, straggler_node=None, early_rank=None)
    files = sorted(str(f) for f in d.glob("*.csv"))
    Path(files[3]).write_text(Path(files[3]).read_text().splitlines()[0] + "\n")
    a, b = _both(files, monkeypatch)
    assert (a.reader, b.reader) == ("arrow", "duckdb") and a.ranks_all == b.ranks_all == [0, 1, 2, 3, 4]
    _same(a.steps, b.steps)
    _same(a.ranks, b.ranks)
    _same(a.bins, b.bins)
    assert 3 not in set(a.ranks["rank"]) and (a.steps["n_ranks"] == 4).all()
