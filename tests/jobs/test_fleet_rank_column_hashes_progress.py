"""Issue 28, fleets: the fast path takes rank logs with a ``rank`` column (one rank per file; a file
holding several ranks goes through the query), hashes each file in its reading pass (the same SHA-256
as hashing the file apart, and no second read), says how far a long scan is on stderr, and every
engine (pandas, the DuckDB query, the fast path on 1 or 2 threads) gives the same job."""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from costmodel.jobs import arrowscan, fleet, load_side, progress
from costmodel.synthetic.rank_logs import generate_job

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")


def _same(x: pd.DataFrame, y: pd.DataFrame) -> None:
    assert list(x.columns) == list(y.columns) and len(x) == len(y)
    for c in x.columns:
        xa, ya = x[c].to_numpy(dtype="float64"), y[c].to_numpy(dtype="float64")
        np.testing.assert_array_equal(np.isnan(xa), np.isnan(ya), err_msg=c)
        np.testing.assert_allclose(xa, ya, rtol=1e-9, atol=0, err_msg=c)


@pytest.fixture(scope="module")
def ranked(tmp_path_factory) -> tuple[Path, dict]:
    """16 ranks with a rank column, files named without a rank (log_a.csv ...), node 1 slow, rank 3 ends early."""
    d = tmp_path_factory.mktemp("ranked") / "job1"
    truth = generate_job(d, n_ranks=16, n_steps=1200, seed=5, rank_column=True,
                         name_fmt="log_{node}_{rank:x}x.csv")
    # names that say nothing about the rank (the column does)
    for i, f in enumerate(sorted(d.glob("*.csv"))):
        f.rename(d / f"log_{chr(ord('a') + (7 * i) % 16)}.csv")
    return d, truth


def test_rank_column_takes_the_fast_path_with_the_query_s_answer(ranked, monkeypatch):
    d, truth = ranked
    files = sorted(str(f) for f in d.glob("*.csv"))
    plan = fleet.usable(files)
    assert plan is not None and plan["rank"] == "rank"
    monkeypatch.setattr(fleet, "FAST_PATH", True)
    a = fleet.tables_from_csv("j", files)
    monkeypatch.setattr(fleet, "FAST_PATH", False)
    b = fleet.tables_from_csv("j", files)
    assert (a.reader, b.reader) == ("arrow", "duckdb")
    assert a.ranks_all == b.ranks_all == list(range(16))
    _same(a.steps, b.steps)
    _same(a.ranks, b.ranks)
    _same(a.bins, b.bins)
    # the fast path knows which file holds which rank
    for r, f in a.sources.items():
        assert int(pd.read_csv(f, nrows=1)["rank"].iloc[0]) == r
    bad = set(truth["stragglers"])
    np.testing.assert_allclose(a.others_max(bad), b.others_max(bad), rtol=1e-9)


def test_a_file_with_two_ranks_goes_through_the_query(ranked, tmp_path, monkeypatch):
    d, _truth = ranked
    files = sorted(d.glob("*.csv"))
    out = tmp_path / "job1"
    out.mkdir()
    for f in files[2:]:
        (out / f.name).write_bytes(f.read_bytes())
    both = pd.concat([pd.read_csv(files[0]), pd.read_csv(files[1])])  # two ranks in one file
    both.to_csv(out / "two.csv", index=False, float_format="%.6f")
    fs = sorted(str(f) for f in out.glob("*.csv"))
    monkeypatch.setattr(fleet, "FAST_PATH", True)
    t = fleet.tables_from_csv("j", fs)
    assert t.reader == "duckdb" and t.ranks_all == list(range(16))


def test_hashes_come_from_the_reading_pass(ranked, monkeypatch):
    d, _truth = ranked
    from costmodel.foundation import util

    calls: list[str] = []
    real = util.sha256_file
    monkeypatch.setattr(util, "sha256_file", lambda p, *a, **k: calls.append(str(p)) or real(p, *a, **k))
    monkeypatch.setattr(fleet, "FAST_PATH", True)
    side = load_side([str(d)], "remote", engine="duckdb", hash_files=True)
    assert side.jobs[0]["reader"] == "arrow"
    assert len(side.files) == 16 and calls == []  # no second read of any file
    for rec in side.files:
        assert rec["sha256"] == hashlib.sha256(Path(rec["path"]).read_bytes()).hexdigest()
    # the query path (no hashing while reading) still fills every hash
    monkeypatch.setattr(fleet, "FAST_PATH", False)
    side_q = load_side([str(d)], "remote", engine="duckdb", hash_files=True)
    assert side_q.jobs[0]["reader"] == "duckdb"
    assert sorted(r["sha256"] for r in side_q.files) == sorted(r["sha256"] for r in side.files)
    assert len(calls) == 16


def test_a_long_scan_says_how_far_it_is_on_stderr(ranked, monkeypatch, capsys):
    d, _truth = ranked
    files = sorted(str(f) for f in d.glob("*.csv"))
    plan = fleet.usable(files)
    ranks = fleet.ranks_from_column(files, plan)
    arrowscan.scan(files, plan, ranks, [], 64, "samples_per_s", label="job1")
    assert capsys.readouterr().err == ""  # a quick scan prints nothing
    monkeypatch.setattr(progress, "EVERY_S", 0.0)
    monkeypatch.delenv("COSTMODEL_PROGRESS", raising=False)
    arrowscan.scan(files, plan, ranks, [], 64, "samples_per_s", label="job1")
    assert capsys.readouterr().err == ""  # stderr is not a terminal: no progress unless asked for
    monkeypatch.setenv("COSTMODEL_PROGRESS", "1")  # a CI log that wants it
    arrowscan.scan(files, plan, ranks, [], 64, "samples_per_s", label="job1")
    err = capsys.readouterr().err.splitlines()
    assert err and err[-1].startswith("costmodel: job job1: 16/16 files, ") and err[-1].endswith("MB/s)")
    monkeypatch.setenv("COSTMODEL_PROGRESS", "0")
    arrowscan.scan(files, plan, ranks, [], 64, "samples_per_s", label="job1")
    assert capsys.readouterr().err == ""


def test_every_engine_gives_the_same_job(tmp_path, monkeypatch):
    """pandas, the DuckDB query, and the fast path on one thread and on two (the threads' accumulators
    merged) give the same job summary and job series; ties in step time cross the threads."""
    d = tmp_path / "job1"
    truth = generate_job(d, n_ranks=12, n_steps=900, seed=9)
    files = sorted(d.glob("*.csv"))
    base = pd.read_csv(files[0])
    for f in files[1:4]:  # ranks 1-3 tie with rank 0, and at steps 300-309 all four are the slowest
        t = pd.read_csv(f)
        t["step_time_s"] = base["step_time_s"].to_numpy()[: len(t)]
        t.loc[t["step"].between(300, 309), "step_time_s"] = 9.0
        t.to_csv(f, index=False, float_format="%.6f")
    t = pd.read_csv(files[0])
    t.loc[t["step"].between(300, 309), "step_time_s"] = 9.0
    t.to_csv(files[0], index=False, float_format="%.6f")
    for f in files[5:]:  # step times of 0 at steps 400-404 on ranks 5-11 (ties at 0: rank 5 among them)
        t = pd.read_csv(f)
        t.loc[t["step"].between(400, 404), "step_time_s"] = 0.0
        t.to_csv(f, index=False, float_format="%.6f")

    def run(engine: str, fast: bool, threads: int = 2):
        monkeypatch.setattr(fleet, "FAST_PATH", fast)
        monkeypatch.setattr(arrowscan, "THREADS", threads)
        return load_side([str(d)], "remote", engine=engine)
    sides = {"pandas": run("pandas", False), "query": run("duckdb", False), "arrow1": run("duckdb", True, 1),
             "arrow2": run("duckdb", True, 2)}
    assert [s.jobs[0]["reader"] for s in sides.values()] == ["pandas", "duckdb", "arrow", "arrow"]
    # the fleet readers round throughput and step time to float32 (7 digits), pandas keeps float64: the same
    # job to 1e-6; the three fleet readers among themselves to the last bits
    for ref_name, rel in (("pandas", 1e-6), ("query", 1e-12)):
        ref = sides[ref_name]
        for name, s in sides.items():
            if ref_name == "query" and name == "pandas":
                continue
            j, r = s.jobs[0], ref.jobs[0]
            assert sorted(x["rank"] for x in j["stragglers"]) == sorted(x["rank"] for x in r["stragglers"]), name
            assert j["straggler_lost_s"] == pytest.approx(r["straggler_lost_s"], rel=rel), name
            assert (j["steps"], j["ranks"], j["held_back_steps"], j["rank_clock"]) == (
                r["steps"], r["ranks"], r["held_back_steps"], r["rank_clock"]), name
            assert j["job_throughput"] == pytest.approx(r["job_throughput"], rel=rel), name
            for c in ("samples_per_s", "step_time_s", "t_s"):
                np.testing.assert_allclose(s.runs[0].table[c].to_numpy(float), ref.runs[0].table[c].to_numpy(float),
                                           rtol=rel, err_msg=f"{name} {c}")
    ref = sides["pandas"]
    assert sorted(x["rank"] for x in ref.jobs[0]["stragglers"]) == truth["stragglers"]
    a1, a2 = sides["arrow1"].tables["job1"], sides["arrow2"].tables["job1"]
    _same(a1.steps, a2.steps)
    assert (a2.steps.set_index("step").loc[300:309, "slowest_rank"] == 0).all()


def test_merged_accumulators_equal_one_fold():
    """Folding ranks into two accumulators and merging them gives the arrays of one fold of all ranks
    (random ranks, ragged steps, empty cells, ties in step time, times of 0)."""
    rng = np.random.default_rng(3)
    rows = []
    for r in rng.permutation(40):
        lo = int(rng.integers(0, 30))
        step = np.arange(lo, lo + int(rng.integers(50, 200)))
        if r % 5 == 0:
            step = step[rng.random(len(step)) > 0.3]  # gaps: the fancy-index fold
        st = rng.choice([0.0, 0.25, 0.5, 0.5, 1.0], size=len(step))
        thr = rng.random(len(step)).astype("float32").astype("float64")
        t = np.cumsum(st)
        thr[rng.random(len(step)) < 0.05] = np.nan
        holes = {"thr": bool(np.isnan(thr).any()), "st": False, "t": False, "st_zero": True}
        rows.append((int(r), step, thr, st, t, r % 3 != 0, holes))
    one, x, y = arrowscan.Acc(), arrowscan.Acc(), arrowscan.Acc()
    for i, row in enumerate(rows):
        one.add(*row)
        (x if i % 2 else y).add(*row)
    got, want = arrowscan.merge_acc(x, y).counts(), one.counts()
    for k, v in want.items():
        np.testing.assert_array_equal(got[k][:len(v)], v, err_msg=k)
    # by brute force: the largest step time, the lowest rank among those that have it, the second largest
    best: dict[int, tuple[float, int]] = {}
    tops: dict[int, list[float]] = {}
    for r, step, _thr, st, _t, _o, _h in rows:
        for s_, v in zip(step.tolist(), st.tolist(), strict=True):
            if s_ not in best or (v, -r) > (best[s_][0], -best[s_][1]):
                best[s_] = (v, r)
            tops.setdefault(s_, []).append(v)
    steps = sorted(best)
    assert [int(want["slowest"][s_]) for s_ in steps] == [best[s_][1] for s_ in steps]
    assert sum(best[s_][0] == 0.0 for s_ in steps) > 0  # ties at 0 were there
    second = [sorted(tops[s_])[-2] if len(tops[s_]) > 1 else -np.inf for s_ in steps]
    np.testing.assert_array_equal(want["st_second"][steps], second)


def test_engine_from_the_environment(tmp_path, monkeypatch):
    """``COSTMODEL_ENGINE`` chooses the engine where the caller says auto (how ``report --engine`` reaches the
    notebook's kernel); a value that is no engine is one clear error."""
    d = tmp_path / "job1"
    generate_job(d, n_ranks=4, n_steps=300, seed=2, straggler_node=None, early_rank=None)
    assert load_side([str(d)], "remote").jobs[0]["engine"] == "duckdb"  # auto: the fleet engine at every size
    monkeypatch.setenv("COSTMODEL_ENGINE", "pandas")
    assert load_side([str(d)], "remote").jobs[0]["engine"] == "pandas"
    assert load_side([str(d)], "remote", engine="duckdb").jobs[0]["engine"] == "duckdb"  # explicit wins
    monkeypatch.setenv("COSTMODEL_ENGINE", "spark")
    from costmodel.foundation.errors import IngestError

    with pytest.raises(IngestError, match="COSTMODEL_ENGINE='spark': expected one of auto, pandas, duckdb, dask"):
        load_side([str(d)], "remote")
