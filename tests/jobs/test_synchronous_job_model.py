"""One model for a synchronous job: it steps at its slowest rank, so its throughput is its samples over the
slowest rank's step time (the sum of the ranks' own figures is evidence beside it), and a rank that holds
it back for a large share of the run is a straggler whose cost is counted."""
from __future__ import annotations

import numpy as np
import pytest

from costmodel.jobs import load_side
from costmodel.synthetic.rank_logs import generate_job

ENGINES = [("pandas", "1"), ("duckdb", "1"), ("duckdb", "0")]  # pandas; arrow fast path; the DuckDB query


@pytest.fixture(scope="module")
def slow_for_three_quarters(tmp_path_factory):
    """16 ranks timing their own step (throughput = batch / own step time); node 1 (ranks 8-15) 12 %
    slower from a quarter of the run on, i.e. for 75 % of it."""
    root = tmp_path_factory.mktemp("sync")
    truth = generate_job(root / "remote" / "job1", n_ranks=16, n_steps=3000, seed=5, rank_clock="own",
                         straggler_from=0.25, early_rank=None)
    return root, truth


@pytest.mark.parametrize(("engine", "fast"), ENGINES)
def test_throughput_is_samples_over_the_slowest_ranks_step_time(slow_for_three_quarters, engine, fast, monkeypatch):
    from costmodel.jobs import fleet

    monkeypatch.setattr(fleet, "FAST_PATH", fast == "1")
    root, truth = slow_for_three_quarters
    side = load_side([str(root / "remote")], "remote", engine=engine)
    job, run = side.jobs[0], side.runs[0]
    assert job["reader"] == {"pandas": "pandas", "1": "arrow", "0": "duckdb"}[engine if engine == "pandas" else fast]
    assert job["rank_clock"] == "own" and "own step" in job["rank_clock_evidence"]
    thr = run.table["samples_per_s"].to_numpy()
    np.testing.assert_allclose(thr, truth["job_samples_per_s"], rtol=2e-3)  # the job's truth, step by step
    late = slice(1000, None)  # node 1 slow: the job runs at its pace
    early = slice(200, 700)
    drop = 1 - np.median(thr[late]) / np.median(thr[early])
    true_drop = 1 - np.median(truth["job_samples_per_s"][late]) / np.median(truth["job_samples_per_s"][early])
    assert drop == pytest.approx(true_drop, abs=0.003) and drop > 0.08  # the slow node's pace (the maximum of
    # 16 noisy ranks already ran ~3 % over the median rank before it), not the sum of the ranks' figures
    # the ranks' own figures, kept as evidence: each rank counts its samples over its own time, the job waits
    # for the slowest (the slow node, and the noisiest rank of each step), so their sum overstates the job
    assert 1.05 < job["ranks_throughput_sum"] / job["job_throughput"] < 1.15


@pytest.mark.parametrize(("engine", "fast"), ENGINES)
def test_a_rank_slow_for_three_quarters_of_the_run_is_a_straggler_and_its_cost_counted(
        slow_for_three_quarters, engine, fast, monkeypatch):
    from costmodel.jobs import fleet

    monkeypatch.setattr(fleet, "FAST_PATH", fast == "1")
    root, truth = slow_for_three_quarters
    job = load_side([str(root / "remote")], "remote", engine=engine).jobs[0]
    assert sorted(s["rank"] for s in job["stragglers"]) == truth["stragglers"] == list(range(8, 16))
    for s in job["stragglers"]:
        assert s["excess_step_time_fraction"] == pytest.approx(0.12, abs=0.01)  # how much slower while slow
        assert 0.7 <= s["bins_above"] / s["bins"] <= 0.8  # for three quarters of the run
        assert "75% of the run" in s["evidence"] or "76% of the run" in s["evidence"]
    assert job["straggler_lost_s"] == pytest.approx(truth["straggler_lost_s"], rel=0.01) and truth["straggler_lost_s"] > 50


def test_a_rank_slow_for_less_than_half_the_run_is_not(tmp_path):
    truth = generate_job(tmp_path / "j", n_ranks=16, n_steps=3000, seed=6, rank_clock="own", straggler_from=0.6,
                         early_rank=None)
    job = load_side([str(tmp_path / "j")], engine="duckdb").jobs[0]
    assert job["stragglers"] == [] and job["straggler_lost_s"] == 0.0
    assert truth["straggler_lost_s"] > 0  # it did cost time: 40 % of the run is not "a large share"


def test_ranks_timing_the_jobs_step_sum_to_the_job(tmp_path):
    """Ranks that time the job's step (they wait at the collective) log figures that already sum to the job's."""
    truth = generate_job(tmp_path / "j", n_ranks=16, n_steps=2000, seed=3, rank_clock="job", early_rank=None)
    side = load_side([str(tmp_path / "j")], engine="duckdb")
    job = side.jobs[0]
    assert job["rank_clock"] == "job"
    np.testing.assert_allclose(side.runs[0].table["samples_per_s"], truth["job_samples_per_s"], rtol=0.01)
    assert job["ranks_throughput_sum"] == pytest.approx(job["job_throughput"], rel=1e-12)
