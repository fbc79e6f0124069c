"""Multi-node jobs: ranks grouped into jobs, job-level series against the generator's truth, stragglers,
DuckDB and pandas engines agreeing, CLI contracts (ingest/fit/compare --json), real DLIO rank outputs."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from costmodel.foundation.errors import AnalysisError, IngestError
from costmodel.jobs import load_side, rank_from_name
from costmodel.jobs.aggregate import detect_throughput_mode, tables_from_long
from costmodel.jobs.discover import group_runs, parse_job_spec
from costmodel.jobs.report import (
    collapse_files,
    combined_sha256,
    heat_matrix,
    straggler_table,
)
from costmodel.synthetic.rank_logs import generate_job


@pytest.fixture(scope="module")
def job_dir(tmp_path_factory):
    """32 ranks (4 nodes of 8), node 1 slow by 12 %, rank 3 ends at step 1200, checkpoint stalls
    every 500 steps on every rank, a cold-cache warm-up."""
    root = tmp_path_factory.mktemp("jobs")
    truth = generate_job(root / "remote" / "job1", n_ranks=32, n_steps=2000, seed=7)
    return root, truth


def test_rank_from_name():
    assert rank_from_name("logs/rank7.csv") == 7
    assert rank_from_name("logs/train_rank_12.log") == 12
    assert rank_from_name("out/3_output.json") == 3
    assert rank_from_name("node007.log") == 7
    assert rank_from_name("node012/steps.csv") == 12
    assert rank_from_name("node000_rank0031.csv") == 31  # the rank wins over the node
    assert rank_from_name("steps.csv") is None
    assert rank_from_name("frank7.csv") is None  # 'rank' inside another word is not a rank


def test_job_series_matches_the_generator_truth(job_dir):
    root, truth = job_dir
    side = load_side([str(root / "remote")], "remote", engine="pandas")
    assert len(side.runs) == 1 and len(side.jobs) == 1
    run, job = side.runs[0], side.jobs[0]
    assert run.job_id == "job1" and run.rank == -1 and run.format == "job"
    assert job["ranks"] == 32 and job["steps"] == 2000
    assert job["rank_throughput"] == "local"
    thr = run.table["samples_per_s"].to_numpy()
    st = run.table["step_time_s"].to_numpy()
    # the job's throughput is the sum over ranks (rank 3's missing steps scaled), its step time the slowest rank's
    assert np.max(np.abs(thr / truth["job_samples_per_s"] - 1)) < 0.01
    assert np.median(np.abs(thr / truth["job_samples_per_s"] - 1)) < 0.002
    assert np.max(np.abs(st - truth["job_step_time_s"])) < 1e-5
    # the early rank is counted and named, not dropped
    assert job["ranks_incomplete"] == [{"rank": 3, "steps": 1201, "last_step": 1200, "missing_steps": 799,
                                        "ended_early": True, "source": job["ranks_incomplete"][0]["source"]}]
    assert job["ranks_incomplete"][0]["source"].endswith("node000_rank0003.csv")
    assert job["steps_scaled"] == 799


def test_stragglers_found_with_evidence_and_lost_time(job_dir):
    root, truth = job_dir
    job = load_side([str(root / "remote")], "remote", engine="pandas").jobs[0]
    found = sorted(s["rank"] for s in job["stragglers"])
    assert found == truth["stragglers"] == list(range(8, 16))
    for s in job["stragglers"]:
        assert abs(s["excess_step_time_fraction"] - truth["straggler_excess"]) < 0.02
        assert s["bins_above"] >= 0.8 * s["bins"]
        assert f"rank {s['rank']}" in s["evidence"] and "median of the job's other ranks" in s["evidence"]
    # time lost: within 3 % of the truth (sum of T - slowest non-straggler)
    assert job["straggler_lost_s"] == pytest.approx(truth["straggler_lost_s"], rel=0.03)
    assert 0.05 < job["straggler_lost_fraction"] < 0.12


def test_shared_checkpoint_stalls_flag_nobody(tmp_path):
    truth = generate_job(tmp_path / "j", n_ranks=24, n_steps=1500, seed=3, straggler_node=None, early_rank=None,
                         stall_every=100, stall_factor=10.0)
    job = load_side([str(tmp_path / "j")], engine="pandas").jobs[0]
    assert job["stragglers"] == [] and job["straggler_lost_s"] == 0.0
    assert job["ranks_incomplete"] == []
    # stall steps are 10x slower on every rank: the job series keeps them (no dropping)
    st = load_side([str(tmp_path / "j")], engine="pandas").runs[0].table["step_time_s"].to_numpy()
    assert np.sum(st > 5 * np.median(st)) == len(range(99, 1500, 100))
    assert truth["straggler_lost_s"] == 0.0


def test_duckdb_engine_agrees_with_pandas(job_dir):
    pytest.importorskip("duckdb")
    root, _truth = job_dir
    a = load_side([str(root / "remote")], "remote", engine="pandas")
    b = load_side([str(root / "remote")], "remote", engine="duckdb")
    assert b.jobs[0]["engine"] == "duckdb" and a.jobs[0]["engine"] == "pandas"
    ta, tb = a.runs[0].table, b.runs[0].table
    for c in ("step", "samples_per_s", "step_time_s", "t_s"):
        np.testing.assert_allclose(ta[c].to_numpy(dtype=float), tb[c].to_numpy(dtype=float), rtol=2e-7)
    for k in ("ranks", "steps", "steps_scaled", "rank_throughput", "held_back_steps"):
        assert a.jobs[0][k] == b.jobs[0][k]
    assert [s["rank"] for s in a.jobs[0]["stragglers"]] == [s["rank"] for s in b.jobs[0]["stragglers"]]
    assert a.jobs[0]["straggler_lost_s"] == pytest.approx(b.jobs[0]["straggler_lost_s"], rel=1e-5)
    assert [x["rank"] for x in a.jobs[0]["ranks_incomplete"]] == [x["rank"] for x in b.jobs[0]["ranks_incomplete"]]


def test_global_throughput_detected_and_taken_as_is(tmp_path):
    truth = generate_job(tmp_path / "g", n_ranks=8, n_steps=400, seed=5, mode="global", ranks_per_node=4,
                         straggler_node=None, early_rank=None)
    side = load_side([str(tmp_path / "g")], engine="pandas")
    job = side.jobs[0]
    assert job["rank_throughput"] == "global" and "400 of 400" in job["rank_throughput_evidence"]
    np.testing.assert_allclose(side.runs[0].table["samples_per_s"], truth["job_samples_per_s"], rtol=1e-5)
    # forcing local would sum 8 copies of the global figure: 8x
    forced = load_side([str(tmp_path / "g")], engine="pandas", rank_throughput="local")
    np.testing.assert_allclose(forced.runs[0].table["samples_per_s"], 8 * truth["job_samples_per_s"], rtol=1e-5)


def test_ambiguous_throughput_needs_the_option():
    # identical at 2/3 of the steps (step % 3 != 0): neither pattern
    rows = [{"rank": rank, "step": step, "thr": 10.0 if step % 3 != 0 else 10.0 + rank, "st": 0.1}
            for step in range(100) for rank in range(4)]
    tabs = tables_from_long("j", pd.DataFrame(rows))
    with pytest.raises(AnalysisError, match="--rank-throughput"):
        detect_throughput_mode(tabs)
    assert detect_throughput_mode(tabs, "global")[0] == "global"


def test_same_rank_twice_in_a_job_is_an_error(tmp_path):
    d = tmp_path / "j"
    d.mkdir()
    for name in ("rank1.csv", "node1_rank1_copy.csv", "rank2.csv"):
        (d / name).write_text("step,samples_per_s\n" + "".join(f"{i},{10 + i % 3}\n" for i in range(30)))
    with pytest.raises(IngestError, match="rank 1 appears twice"):
        load_side([str(d)], engine="pandas")


def test_job_spec_parsing_and_explicit_jobs(tmp_path):
    spec = parse_job_spec("remote:run1=logs/*.csv")
    assert (spec.role, spec.name, spec.pattern) == ("remote", "run1", "logs/*.csv")
    with pytest.raises(IngestError, match="--job"):
        parse_job_spec("nothing")
    generate_job(tmp_path / "a", n_ranks=6, n_steps=300, seed=1, ranks_per_node=2, early_rank=None,
                 name_fmt="part{rank}.csv")  # names say no rank: file order gives them
    side = load_side([], "remote", job_specs=[parse_job_spec(f"remote:myjob={tmp_path}/a/part*.csv")], engine="pandas")
    assert [j["job_id"] for j in side.jobs] == ["myjob"] and side.jobs[0]["ranks"] == 6
    assert any("ranks given in file order" in w for w in side.warnings)


def test_real_dlio_rank_outputs_form_one_job(real_dir):
    d = real_dir / "dlio"
    side = load_side([str(d)], engine="pandas")
    assert [j["job_id"] for j in side.jobs] == ["dlio"]
    job = side.jobs[0]
    assert job["ranks"] == 2 and job["rank_ids"] == [0, 1]
    run = next(r for r in side.runs if r.job_id == "dlio")
    # DLIO ranks time their own step (samples per step = throughput x own step time is constant): the
    # synchronous job's throughput is both ranks' samples over the slower rank's step time
    from costmodel.ingest import load

    r0 = load(d / "0_output.json")[0].table.set_index("step")
    r1 = load(d / "1_output.json")[0].table.set_index("step")
    both = r0.index.intersection(r1.index)
    assert job["rank_clock"] == "own"
    st = run.table.set_index("step").loc[both, "step_time_s"]
    slowest = np.maximum(r0.loc[both, "step_time_s"], r1.loc[both, "step_time_s"])
    np.testing.assert_allclose(st, slowest)
    samples = sum(r.loc[both, "samples_per_s"] * r.loc[both, "step_time_s"] for r in (r0, r1))
    got = run.table.set_index("step").loc[both, "samples_per_s"]
    np.testing.assert_allclose(got, samples / slowest, rtol=1e-6)  # float32 products, as every engine
    # the sum of the ranks' own figures is kept as evidence, never below the job's (it cannot wait for a rank)
    ranks_sum = (r0.loc[both, "samples_per_s"] + r1.loc[both, "samples_per_s"]).mean()
    assert job["ranks_throughput_sum"] == pytest.approx(ranks_sum, rel=1e-3)
    assert job["ranks_throughput_sum"] >= job["job_throughput"]
    assert any("at least 3 are needed" in n for n in job["notes"])  # 2 ranks: no straggler verdict possible


def test_ingest_json_runs_carry_job_id_and_rank(cli, job_dir):
    root, _ = job_dir
    rc, out, err = cli("ingest", str(root / "remote" / "job1"), "--json")
    assert rc == 0, err
    runs = json.loads(out)["runs"]
    assert len(runs) == 32
    assert {r["job_id"] for r in runs} == {"job1"}
    assert sorted(r["rank"] for r in runs) == list(range(32))


def test_fit_and_compare_json_gain_jobs(cli, tmp_path, job_dir):
    root, _ = job_dir
    for k in range(2):
        generate_job(tmp_path / "col" / f"job{k}", n_ranks=32, n_steps=2000, seed=40 + k, straggler_node=None,
                     early_rank=None, warmup_excess=0.02)
    rc, out, err = cli("fit", str(root / "remote"), "--json")
    assert rc == 0, err
    fits = json.loads(out)
    assert len(fits) == 1 and fits[0]["run_id"] == "job1"
    assert fits[0]["jobs"][0]["ranks"] == 32 and "steady_mean" in fits[0]
    rc, out, err = cli("compare", "--colocated", str(tmp_path / "col"), "--remote", str(root / "remote"),
                       "--json")
    assert rc == 0, err
    res = json.loads(out)
    for key in ("ratio", "ratio_ci_low", "ratio_ci_high", "equivalent", "verdict", "pooled", "colocated", "remote"):
        assert key in res
    assert len(res["colocated"]) == 2 and len(res["remote"]) == 1  # two co-located jobs = two repetitions
    jobs = {(j["role"], j["job_id"]): j for j in res["jobs"]}
    assert set(jobs) == {("colocated", "job0"), ("colocated", "job1"), ("remote", "job1")}
    for j in jobs.values():
        for key in ("job_id", "ranks", "ranks_incomplete", "stragglers", "straggler_lost_s"):
            assert key in j
    rem = jobs[("remote", "job1")]
    assert sorted(s["rank"] for s in rem["stragglers"]) == list(range(8, 16))
    assert {"rank", "excess_step_time_fraction", "evidence"} <= set(rem["stragglers"][0])
    # the remote job is slower by about the straggler's excess: 1 / 1.12
    assert 0.85 < res["ratio"] < 0.95


def test_compare_job_without_side_is_exit_2(cli, job_dir):
    root, _ = job_dir
    rc, _out, err = cli("compare", "--remote", str(root / "remote"), "--job", f"x={root}/remote/job1/*.csv")
    assert rc == 2 and "colocated" in err and "Traceback" not in err


def test_duckdb_rank_column_and_rejections(tmp_path):
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(0)
    lines = ["rank,step,samples_per_s,step_time_ms"]
    for step in range(300):
        for rank in range(4):
            st = 100 * (1.15 if rank == 2 else 1.0) * rng.lognormal(0, 0.02)
            lines.append(f"{rank},{step},{24000 / st:.4f},{st:.4f}")
    lines[50] = "1,12,abc,100.0"  # a bad cell: rejected, counted
    f = tmp_path / "all_ranks.csv"
    f.write_text("\n".join(lines) + "\n")
    side = load_side([str(f)], engine="duckdb")
    job = side.jobs[0]
    assert job["ranks"] == 4 and job["rejected_rows"] == 1
    assert [s["rank"] for s in job["stragglers"]] == [2]
    assert any("rejected 1 unparsable" in w for w in side.warnings)
    # step_time_ms read as seconds
    assert side.runs[0].table["step_time_s"].median() == pytest.approx(0.115, rel=0.05)


def test_report_helpers_collapse_and_bound_the_heatmap():
    files = [{"role": "remote", "path": f"/x/job1/rank{i}.csv", "format": "csv", "run_ids": [f"rank{i}"],
              "predicted": False, "size_bytes": 10, "sha256": f"{i:064x}", "job_id": "job1"} for i in range(30)]
    files.append({"role": "scenario", "path": "/x/s.yaml", "format": "", "run_ids": [], "predicted": False,
                  "size_bytes": 5, "sha256": "f" * 64, "job_id": ""})
    rows = collapse_files(files)
    assert len(rows) == 2 and rows[0]["file"] == "job1 (30 files)" and rows[0]["size_bytes"] == 300
    assert rows[0]["sha256"] == combined_sha256(files[:30])
    changed = [dict(f) for f in files[:30]]
    changed[4]["sha256"] = "0" * 64
    assert combined_sha256(changed) != rows[0]["sha256"]
    assert len(collapse_files(files[:20])) == 20  # not collapsed up to 20 files
    # 1,000 ranks x 200 bins -> a bounded heatmap that still shows the one slow rank
    bins = pd.DataFrame([(r, b, 0.2 * (1.3 if r == 517 else 1.0), 1.0, 10) for r in range(1000) for b in range(200)],
                        columns=["rank", "bin", "st_mean", "thr_mean", "n"])
    m = heat_matrix(bins, 500)
    assert len(m) <= 32 * 48
    hot = m[m["ratio"] > 1.2]
    assert len(hot) > 0 and (hot["rank_lo"] <= 517).all() and (hot["rank_hi"] >= 517).all()
    t = straggler_table([{"role": "remote", "job_id": "j", "ranks": 4, "straggler_lost_s": 1.0,
                          "straggler_lost_fraction": 0.1, "ranks_incomplete": [], "held_back_steps": 3,
                          "stragglers": [{"rank": 2, "excess_step_time_fraction": 0.15, "held_back_steps": 3}]}])
    assert t.loc[0, "rank"] == "2" and t.loc[0, "excess_step_time_fraction"] == 0.15


def test_group_runs_leaves_single_runs_alone(examples_dir):
    from costmodel.ingest import load

    runs = load(examples_dir / "remote_steps.csv") + load(examples_dir / "colocated_steps.csv")
    g = group_runs(runs)
    assert g.jobs == {} and len(g.singles) == 2 and all(r.rank == -1 and r.job_id == "" for r in runs)


def test_checklist_says_a_straggler_node_is_not_the_link():
    from costmodel.checklist import gather_evidence

    cmp = {"ratio": 0.90, "ratio_ci_low": 0.89, "ratio_ci_high": 0.91, "margin": 0.02, "equivalent": False,
           "verdict": "different", "colocated": [], "remote": []}
    plain = gather_evidence(compare=cmp)["throughput_equivalent"]
    assert plain.proposed == "no"
    jobs = [{"role": "remote", "job_id": "job1", "straggler_lost_fraction": 0.085,
             "stragglers": [{"rank": 8}, {"rank": 9}]},
            {"role": "colocated", "job_id": "c", "straggler_lost_fraction": 0.0, "stragglers": []}]
    ev = gather_evidence(compare=dict(cmp, jobs=jobs))["throughput_equivalent"]
    assert ev.proposed == "unknown" and "straggler node" in ev.condition
    assert "rank(s) 8, 9" in ev.summary and "not a link" in ev.summary
    assert ev.facts["remote_straggler_lost_fraction"] == pytest.approx(0.085)
    # a small straggler share does not excuse a large gap
    small = [dict(jobs[0], straggler_lost_fraction=0.01)]
    assert gather_evidence(compare=dict(cmp, jobs=small))["throughput_equivalent"].proposed == "no"


@pytest.mark.parametrize("n_ranks,ranks_per_node", [(16, 8), (8, 4), (16, 4)])  # the slow node: 1/2, 1/2, 1/4
def test_a_slow_node_is_found_also_when_it_is_half_of_the_job(tmp_path, n_ranks, ranks_per_node):
    # two nodes, one 12 % slower (the reference case: 2 x 8 GPUs): the job median sits between the two
    # nodes, so a rule against the median alone names nobody; the two-pass baseline names the slow node
    truth = generate_job(tmp_path / "j", n_ranks=n_ranks, n_steps=1200, seed=11, ranks_per_node=ranks_per_node,
                         straggler_node=1, early_rank=None)
    job = load_side([str(tmp_path / "j")], "remote", engine="pandas").jobs[0]
    assert sorted(s["rank"] for s in job["stragglers"]) == truth["stragglers"]
    for s in job["stragglers"]:
        assert abs(s["excess_step_time_fraction"] - truth["straggler_excess"]) < 0.02
    assert job["straggler_lost_s"] == pytest.approx(truth["straggler_lost_s"], rel=0.03)


@pytest.mark.parametrize("noise_cv", [0.03, 0.10])
def test_noisy_ranks_without_a_slow_node_flag_nobody(tmp_path, noise_cv):
    generate_job(tmp_path / "j", n_ranks=16, n_steps=1200, seed=5, ranks_per_node=8, straggler_node=None,
                 early_rank=None, noise_cv=noise_cv)
    job = load_side([str(tmp_path / "j")], "remote", engine="pandas").jobs[0]
    assert job["stragglers"] == [] and job["straggler_lost_s"] == 0.0
