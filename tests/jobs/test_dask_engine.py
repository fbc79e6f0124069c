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
