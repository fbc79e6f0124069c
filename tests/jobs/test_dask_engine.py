"""The Dask engine (extra ``distributed``) on a local cluster of 2 workers gives the fleet engine's job
series, stragglers and lost time to the last bits (same reader and fold, run on the workers), and the
pandas engine's to float32 precision."""
from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from costmodel.jobs import load_side
from costmodel.synthetic.rank_logs import generate_job


@pytest.fixture(scope="module")
def cluster():
    with (distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as lc,
          distributed.Client(lc) as c):
        yield c


def test_dask_engine_matches_pandas(tmp_path, cluster):
    truth = generate_job(tmp_path / "job1", n_ranks=24, n_steps=800, seed=11)
    a = load_side([str(tmp_path / "job1")], engine="pandas")
    b = load_side([str(tmp_path / "job1")], engine="dask", hash_files=True)
    f = load_side([str(tmp_path / "job1")], engine="duckdb", hash_files=True)
    ja, jb, jf = a.jobs[0], b.jobs[0], f.jobs[0]
    assert jb["engine"] == "dask" and jb["ranks"] == 24 and jb["steps"] == 800 and jf["reader"] == "arrow"
    for c in ("step", "samples_per_s", "step_time_s", "t_s"):
        np.testing.assert_array_equal(f.runs[0].table[c].to_numpy(float), b.runs[0].table[c].to_numpy(float))
        np.testing.assert_allclose(a.runs[0].table[c].to_numpy(float), b.runs[0].table[c].to_numpy(float), rtol=1e-6)
    assert sorted(s["rank"] for s in jb["stragglers"]) == truth["stragglers"] == sorted(s["rank"] for s in ja["stragglers"])
    assert jb["straggler_lost_s"] == jf["straggler_lost_s"] == pytest.approx(ja["straggler_lost_s"], rel=1e-6)
    # the workers hashed what they read: the same digests and sizes as the fleet engine's reading pass
    assert [(x["path"], x["sha256"], x["size_bytes"]) for x in b.files] == [
        (x["path"], x["sha256"], x["size_bytes"]) for x in f.files]
    assert jb["held_back_steps"] == ja["held_back_steps"]
    assert [x["rank"] for x in jb["ranks_incomplete"]] == [truth["early_rank"]]
    # the cluster really ran the tasks
    assert cluster.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.workers)) == 2


def test_scan_part_same_bits_with_the_nannys_malloc_setting(tmp_path, monkeypatch):
    """A task under Dask's nanny (``MALLOC_TRIM_THRESHOLD_`` set) folds with roomier allocator settings
    (``roomy_malloc``) and gives back the same partial as a plain process, bit for bit."""
    from costmodel.jobs import distributed as D
    from costmodel.jobs import fleet

    generate_job(tmp_path / "job1", n_ranks=6, n_steps=3000, seed=5)
    files = sorted(str(f) for f in (tmp_path / "job1").glob("*.csv"))
    plan = fleet.usable(files)
    ranks, _ = fleet.file_ranks(files)
    args = (files, [ranks[f] for f in files], plan, [ranks[files[0]]], 50, "samples_per_s", True)
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    plain = D.scan_part(*args)
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    roomy = D.scan_part(*args)
    with D.roomy_malloc():  # re-entrant use and the settings put back: a second task still works
        again = D.scan_part(*args)
    for got in (roomy, again):
        assert got["digests"] == plain["digests"] and got["sizes"] == plain["sizes"]
        for k, v in plain["acc"].a.items():
            np.testing.assert_array_equal(got["acc"].a[k], v)
        np.testing.assert_array_equal(np.vstack(got["bins"]), np.vstack(plain["bins"]))
        assert got["cand_raw"].keys() == plain["cand_raw"].keys()
