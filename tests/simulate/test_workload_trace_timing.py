"""The what-if simulator: workload validation, traces, the timing model, predicted runs and the CLI."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from costmodel.foundation.errors import SimulateError
from costmodel.foundation.timeline import read_runs
from costmodel.simulate import simulate
from costmodel.simulate.model import step_timeline
from costmodel.simulate.trace import build_layout, sample_order
from costmodel.simulate.workload import parse_workload


def small(**changes) -> dict:
    """A small workload: 2,000 samples of 16 KiB (4 blocks) in 20 files, 100 samples per step."""
    w = {
        "name": "small",
        "dataset": {"samples": 2000, "sample_bytes": 16384, "files": 20, "block_bytes": 4096},
        "access": {"pattern": "sequential", "epochs": 3},
        "step": {"samples_per_step": 100, "compute_s": 0.5, "loader_workers": 8, "prefetch_depth": 2},
        "link": {"rtt_s": 0.05, "bandwidth_bytes_per_s": 1e9, "parallel_streams": 8, "origin_latency_s": 0.0,
                 "request_bytes": 4096},
        "local": {"read_latency_s": 0.0001, "read_bytes_per_s": 2e9},
        "cache": {"policy": "lru", "capacity_bytes": 2000 * 16384 * 2},
    }
    for path, val in changes.items():
        cur = w
        keys = path.split("__")
        for k in keys[:-1]:
            cur = cur.setdefault(k, {})
        if val is None:
            cur.pop(keys[-1], None)
        else:
            cur[keys[-1]] = val
    return {"workload": w}


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize("change,key", [
    ({"dataset__sample_bytes": -5}, "workload.dataset.sample_bytes"),
    ({"dataset__samples": 0}, "workload.dataset.samples"),
    ({"dataset__block_bytes": 512}, "workload.dataset.block_bytes"),
    ({"access__pattern": "random"}, "workload.access.pattern"),
    ({"cache__policy": "fifo"}, "workload.cache.policy"),
    ({"cache__capacity_bytes": -1}, "workload.cache.capacity_bytes"),
    ({"link__rtt_s": -0.01}, "workload.link.rtt_s"),
    ({"link__bandwidth_bytes_per_s": 0}, "workload.link.bandwidth_bytes_per_s"),
    ({"step__loader_workers": 2.5}, "workload.step.loader_workers"),
    ({"step__compute_s": "fast"}, "workload.step.compute_s"),
    ({"step__samples_per_step": None}, "workload.step.samples_per_step"),
    ({"link__rtt_ms": 60}, "workload.link.rtt_ms"),
    ({"cache__prefetch": {"accuracy": 1.5}}, "workload.cache.prefetch.accuracy"),
    ({"cache__prefetch": {"lookahead": 2}}, "workload.cache.prefetch.lookahead"),
])
def test_bad_workload_raises_simulate_error_naming_the_key(change, key):
    with pytest.raises(SimulateError) as exc:
        simulate(small(**change))
    assert str(exc.value).startswith(key + ":")


def test_cache_larger_than_the_physical_limit_is_refused():
    doc = small(cache__capacity_bytes=5e12, cache__physical_limit_bytes=4e12)
    with pytest.raises(SimulateError, match=r"workload.cache.capacity_bytes: .* larger than the stated physical limit"):
        simulate(doc)


def test_predictive_accuracy_above_one_is_refused():
    doc = small(cache__policy="predictive", cache__prefetch={"accuracy": 1.2})
    with pytest.raises(SimulateError, match=r"^workload.cache.prefetch.accuracy: got 1.2; expected a number <= 1$"):
        simulate(doc)


def test_single_pass_with_epochs_is_refused_and_numbers_as_strings_are_read():
    with pytest.raises(SimulateError, match=r"workload.access.epochs"):
        simulate(small(access__pattern="single_pass", access__epochs=3))
    w = parse_workload(small(cache__capacity_bytes="6.5e7")["workload"])
    assert w.cache.capacity_bytes == 6.5e7 and w.capacity_blocks == 15869


def test_epochs_default_to_the_cost_scenario_training_section():
    doc = small(access__epochs=None)
    w = parse_workload(doc["workload"], scenario={"training": {"epochs_per_run": 4}})
    assert w.access.epochs == 4.0 and w.steps_per_run == 80


def test_missing_file_and_missing_section(tmp_path):
    with pytest.raises(SimulateError, match="no such scenario file"):
        simulate(tmp_path / "nope.yaml")
    p = tmp_path / "s.yaml"
    p.write_text("horizon_months: 12\n")
    with pytest.raises(SimulateError, match="workload: missing"):
        simulate(p)


# --------------------------------------------------------------------------- traces and layout


def test_layout_packs_samples_into_block_aligned_files():
    # 4 samples of 6,000 bytes in 2 files, 4 KiB blocks: file 0 = bytes 0..11999 (blocks 0-2),
    # file 1 starts at block 3. Sample 1 (bytes 6000..11999) covers blocks 1 and 2.
    w = parse_workload(small(dataset__samples=4, dataset__sample_bytes=6000, dataset__files=2)["workload"])
    lay = build_layout(w)
    start, count = lay.blocks_of(np.arange(4))
    assert start.tolist() == [0, 1, 3, 4] and count.tolist() == [2, 2, 2, 2]
    assert lay.total_blocks == 6


def test_layout_with_varying_sizes_covers_every_byte_once():
    w = parse_workload(small(dataset__sample_bytes_sigma=0.8)["workload"])
    lay = build_layout(w, seed=3)
    start, count = lay.blocks_of(np.arange(2000))
    sizes = lay.bytes_of(np.arange(2000))
    assert sizes.mean() == pytest.approx(16384, rel=0.1) and sizes.std() > 5000
    assert (count >= np.ceil(sizes / 4096)).all()
    assert (np.diff(start) >= 0).all() and start[-1] + count[-1] == lay.total_blocks


@pytest.mark.parametrize("pattern", ["sequential", "shuffled", "shard_shuffle", "single_pass"])
def test_each_epoch_reads_every_sample_once(pattern):
    epochs = 1 if pattern == "single_pass" else 2
    w = parse_workload(small(access__pattern=pattern, access__epochs=epochs)["workload"])
    ids = sample_order(w, 2000 * epochs, seed=1)
    for e in range(epochs):
        assert np.array_equal(np.sort(ids[e * 2000:(e + 1) * 2000]), np.arange(2000))
    if pattern == "sequential":
        assert np.array_equal(ids[:2000], np.arange(2000))
    else:
        assert not np.array_equal(ids[:2000], np.arange(2000))


def test_shard_shuffle_keeps_each_file_together():
    w = parse_workload(small(access__pattern="shard_shuffle")["workload"])
    ids = sample_order(w, 2000, seed=4)
    files = ids // 100  # 20 files of 100 samples
    changes = np.count_nonzero(np.diff(files))
    assert changes == 19  # one run of 100 per file
    assert not np.array_equal(ids[:100], np.sort(ids[:100]))  # shuffled inside the file


def test_zipf_reads_are_skewed_and_seeded():
    w = parse_workload(small(access__pattern="zipf", access__zipf_exponent=1.2)["workload"])
    a = sample_order(w, 50_000, seed=9)
    b = sample_order(w, 50_000, seed=9)
    assert np.array_equal(a, b)
    counts = np.sort(np.bincount(a, minlength=2000))[::-1]
    h = np.sum(np.arange(1, 2001) ** -1.2)
    assert counts[0] / 50_000 == pytest.approx(1 / h, rel=0.05)  # most popular sample ~ 1/H(2000, 1.2)


# --------------------------------------------------------------------------- timing model


def test_step_timing_hand_computed():
    # 10 samples of one block, all missed: ceil(10 / min(5, 5)) * 0.1 s = 0.2 s to load; compute 0.5 s
    w = parse_workload(small(step__samples_per_step=10, step__loader_workers=5, step__prefetch_depth=1,
                             link__parallel_streams=5, link__rtt_s=0.1, dataset__sample_bytes=4096)["workload"])
    z = np.zeros(3)
    io = {"samples": np.full(3, 10.0), "bytes_read": np.full(3, 40960.0), "hit_bytes": z, "hit_blocks": z,
          "blocks": np.full(3, 10.0), "remote_req": np.full(3, 10.0), "local_req": z,
          "link_bytes": np.full(3, 40960.0), "cross_region_bytes": np.full(3, 40960.0)}
    t = step_timeline(w, io)
    # step 0: ready 0.2, ends 0.7; batch 1 loads 0.2..0.4 while step 0 runs: no wait afterwards
    assert t["t_s"].tolist() == pytest.approx([0.7, 1.2, 1.7])
    assert t["data_wait_s"].tolist() == pytest.approx([0.2, 0.0, 0.0])
    assert t["samples_per_s"].tolist() == pytest.approx([10 / 0.7, 20.0, 20.0])
    assert t["read_latency_s"].tolist() == pytest.approx([0.1, 0.1, 0.1])
    # without loader prefetch (depth 0) every step waits for its own load
    w0 = parse_workload(small(step__samples_per_step=10, step__loader_workers=5, step__prefetch_depth=0,
                              link__parallel_streams=5, link__rtt_s=0.1, dataset__sample_bytes=4096)["workload"])
    t0 = step_timeline(w0, io)
    assert t0["t_s"].tolist() == pytest.approx([0.7, 1.4, 2.1])
    assert t0["gpu_util"].tolist() == pytest.approx([0.5 / 0.7] * 3)


# --------------------------------------------------------------------------- predicted runs


def test_sequential_epochs_larger_than_the_lru_cache_never_hit():
    res = simulate(small(cache__capacity_bytes=2000 * 16384 * 0.9))
    t = res.runs[0].table
    assert t["cache_hit_ratio"].max() == 0.0
    assert res.summary["steady_hit_ratio"] == 0.0
    # every epoch re-reads the whole dataset across the link
    assert res.summary["cross_region_bytes_per_run"] == 3 * 2000 * 16384


def test_dataset_that_fits_is_read_across_regions_once():
    res = simulate(small())
    t = res.runs[0].table
    assert t["cache_hit_ratio"].iloc[:20].max() == 0.0 and (t["cache_hit_ratio"].iloc[20:] == 1.0).all()
    assert res.summary["cross_region_bytes_per_run"] == 2000 * 16384
    assert res.summary["steady_hit_ratio"] == 1.0
    # cold: 400 block requests / 8 in flight * 50 ms = 2.5 s per step; warm: compute-bound at 100 / 0.5 s
    assert t["samples_per_s"].iloc[5] == pytest.approx(100 / 2.5)
    assert res.summary["steady_samples_per_s"] == pytest.approx(200.0)
    assert res.summary["warmup_end_step"] in (20, 21)


def test_uniform_random_access_hit_ratio_matches_capacity_share():
    res = simulate(small(access__pattern="zipf", access__zipf_exponent=1e-9, access__epochs=20,
                         cache__capacity_bytes=500 * 16384))
    assert res.summary["steady_hit_ratio"] == pytest.approx(0.25, abs=0.02)


def test_cache_survival_between_runs():
    warm = simulate(small(simulation={"runs": 2}, access__epochs=1))
    cold = simulate(small(simulation={"runs": 2}, access__epochs=1, cache__survives_between_runs=False))
    assert warm.per_run[1]["cross_region_bytes_per_run"] == 0
    assert (warm.runs[1].table["cache_hit_ratio"] == 1.0).all()
    assert cold.per_run[1]["cross_region_bytes_per_run"] == 2000 * 16384
    assert cold.runs[1].table["cache_hit_ratio"].max() == 0.0
    assert [r.run_id for r in warm.runs] == ["small-predicted-run1", "small-predicted-run2"]


def test_predicted_runs_are_timeline_runs_and_round_trip(tmp_path):
    from costmodel.foundation.timeline import write_runs

    res = simulate(small(access__pattern="shuffled", step__compute_cv=0.01, simulation={"with_colocated": True}))
    assert [r.role for r in res.runs] == ["remote", "colocated"]
    for r in res.runs:
        assert r.predicted and r.metadata["predicted"] is True
        for col in ("samples_per_s", "read_bytes_per_s", "cache_hit_ratio", "data_wait_s", "cross_region_bytes",
                    "t_s", "step", "step_time_s"):
            assert r.table[col].notna().all(), col
    path = write_runs(res.runs, tmp_path / "p.parquet")
    back = read_runs(path)
    assert back[0].predicted and back[0].metadata["summary"]["steady_hit_ratio"] == res.summary["steady_hit_ratio"]
    pd.testing.assert_frame_equal(back[0].table, res.runs[0].table, check_dtype=False)


def test_same_seed_same_numbers_other_seed_other_trace():
    doc = small(access__pattern="shuffled", cache__policy="predictive", cache__prefetch={"accuracy": 0.7},
                cache__capacity_bytes=400 * 16384)
    a, b, c = simulate(doc, seed=1), simulate(doc, seed=1), simulate(doc, seed=2)
    pd.testing.assert_frame_equal(a.runs[0].table, b.runs[0].table)
    assert a.summary == b.summary
    assert not a.runs[0].table["cache_hit_ratio"].equals(c.runs[0].table["cache_hit_ratio"])


def test_truncated_run_is_extrapolated_and_flagged():
    res = simulate(small(access__epochs=10, simulation={"max_steps": 50}))
    s = res.summary
    assert s["steps_simulated"] == 50 and s["steps_per_run"] == 200 and s["extrapolated"] is True
    # after the first epoch everything hits, so the other 150 steps add nothing
    assert s["cross_region_bytes_per_run"] == 2000 * 16384
    assert s["cross_region_bytes_per_epoch"] == pytest.approx(2000 * 16384 / 10)


def test_scenario_overrides_feed_the_cost_model():
    res = simulate(small())
    o = res.scenario_overrides()
    assert o["cache.steady_hit_ratio"] == 1.0
    assert o["cache.steady_slowdown_fraction"] == 0.0
    # 20 cold steps of 2.5 s instead of the co-located 400 * 0 ms ... load: lost = sum(remote - colocated)
    assert o["cache.warmup_lost_s"] > 0


# --------------------------------------------------------------------------- CLI


def test_cli_json_keys_and_output_parquet(cli, tmp_path):
    import yaml

    scen = tmp_path / "s.yaml"
    scen.write_text(yaml.safe_dump(small()))
    out = tmp_path / "pred.parquet"
    data = cli.json("simulate", scen, "-o", out, "--seed", "3", "--json")
    for key in ("warmup_end_step", "steady_samples_per_s", "steady_hit_ratio", "cross_region_bytes_per_run",
                "cross_region_bytes_per_epoch", "assumptions", "not_modelled", "runs", "seed"):
        assert key in data, key
    assert data["seed"] == 3 and data["steady_hit_ratio"] == 1.0
    assert isinstance(data["assumptions"], list) and data["assumptions"]
    runs = read_runs(out)
    assert len(runs) == 1 and runs[0].predicted and runs[0].role == "remote"


def test_cli_bad_input_exits_2_one_line_and_writes_nothing(cli, tmp_path):
    import yaml

    scen = tmp_path / "s.yaml"
    scen.write_text(yaml.safe_dump(small(cache__policy="mru")))
    out = tmp_path / "pred.parquet"
    proc = cli.subprocess("simulate", scen, "-o", out, "--json")
    assert proc.rc == 2
    assert proc.out == ""
    lines = proc.err.strip().splitlines()
    assert len(lines) == 1 and "workload.cache.policy" in lines[0] and "Traceback" not in proc.err
    assert not out.exists() and list(tmp_path.iterdir()) == [scen]


def test_cli_bad_override_exit_2(tmp_path, capsys):
    import yaml

    from costmodel.cli import main

    scen = tmp_path / "s.yaml"
    scen.write_text(yaml.safe_dump(small()))
    assert main(["simulate", str(scen), "--set", "workload.link.rtt_s=-1", "--json"]) == 2
    err = capsys.readouterr().err
    assert "workload.link.rtt_s" in err and len(err.strip().splitlines()) == 1
    assert main(["simulate", str(scen), "--set", "rtt"]) == 2
    assert "KEY.PATH=VALUE" in capsys.readouterr().err
    assert main(["simulate", str(scen), "-o", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_cli_set_override_changes_the_prediction(cli, tmp_path):
    import yaml

    scen = tmp_path / "s.yaml"
    scen.write_text(yaml.safe_dump(small()))
    base = cli.json("simulate", scen, "--json")
    slow = cli.json("simulate", scen, "--set", "workload.link.rtt_s=0.2", "--json")
    assert slow["cold_samples_per_s"] == pytest.approx(base["cold_samples_per_s"] / 4, rel=0.05)


def test_shuffled_epochs_lru_hit_ratio_matches_the_closed_form():
    # reshuffled epochs over N blocks, LRU of f*N blocks: a block hits when the blocks after it in one
    # epoch plus the new ones before it in the next are fewer than f*N:
    # hit = integral_0^f (f - x) / (1 - x) dx = f + (1 - f) ln(1 - f)   (0.1534 for f = 1/2)
    f = 0.5
    doc = small(dataset__samples=20000, dataset__files=100, access__pattern="shuffled", access__epochs=4,
                step__samples_per_step=500, cache__capacity_bytes=f * 20000 * 16384)
    res = simulate(doc, seed=2)
    assert res.summary["steady_window"] == "epoch 3"
    assert res.summary["steady_hit_ratio"] == pytest.approx(f + (1 - f) * np.log(1 - f), abs=0.004)


def test_predictive_cache_relearns_after_a_reset_between_runs():
    # one 1 MiB request per sample: 100 requests / 8 streams * 50 ms = 0.65 s of prefetching per step,
    # 2 steps x 0.5 s of lookahead: every prediction arrives in time
    pf = {"accuracy": 1.0, "lookahead_steps": 2, "learning_steps": 5, "ramp_steps": 0}
    base = {"simulation": {"runs": 2}, "access__pattern": "shuffled", "access__epochs": 1, "cache__policy": "predictive",
                "cache__prefetch": pf, "link__request_bytes": 1 << 20}
    kept = simulate(small(**base))
    reset = simulate(small(cache__survives_between_runs=False, **base))
    assert kept.summary["prefetch_in_time_fraction"] == 1.0
    for res in (kept, reset):  # run 1: cold while the predictor learns (5 steps), then every block prefetched
        h = res.runs[0].table["cache_hit_ratio"]
        assert h.iloc[:5].max() == 0.0 and (h.iloc[5:] == 1.0).all()
    assert (kept.runs[1].table["cache_hit_ratio"] == 1.0).all()  # the cache kept the whole dataset
    h2 = reset.runs[1].table["cache_hit_ratio"]
    assert h2.iloc[:5].max() == 0.0 and (h2.iloc[5:] == 1.0).all()  # emptied, and the predictor relearns


def test_late_predictions_count_as_not_predicted():
    # 4 requests per sample (4 KiB each): 400 / 8 streams * 50 ms = 2.5 s to prefetch a step; one step of
    # 0.5 s lookahead: a fifth of the predictions arrive in time, the rest miss (no wrong blocks fetched)
    doc = small(access__pattern="shuffled", access__epochs=1, cache__policy="predictive",
                cache__prefetch={"accuracy": 1.0, "lookahead_steps": 1}, dataset__samples=20000, dataset__files=100)
    res = simulate(doc)
    assert res.summary["prefetch_in_time_fraction"] == pytest.approx(0.5 / (2.5 + 400 * 4096 / 1e9))
    assert res.summary["steady_hit_ratio"] == pytest.approx(res.summary["prefetch_in_time_fraction"], abs=0.02)
    assert res.summary["prefetched_blocks"] == res.summary["prefetched_blocks_used"]


def test_fit_and_compare_take_predicted_runs_like_measured_ones(tmp_path, capsys):
    from costmodel.cli import main
    from costmodel.foundation.timeline import write_runs

    res = simulate(small(access__pattern="shuffled", step__compute_cv=0.02, access__epochs=10,
                         simulation={"with_colocated": True}), seed=1)
    remote = write_runs([res.runs[0]], tmp_path / "remote.parquet")
    co = write_runs([res.runs[1]], tmp_path / "colocated.parquet")
    assert main(["fit", str(remote), "--json"]) == 0
    fit = json.loads(capsys.readouterr().out)
    fits = fit if isinstance(fit, list) else fit.get("fits", fit.get("runs", [fit]))
    assert fits[0]["predicted"] is True and fits[0]["run_id"] == "small-predicted"
    assert main(["compare", "--colocated", str(co), "--remote", str(remote), "--json"]) == 0
    cmp = json.loads(capsys.readouterr().out)
    # steady state: compute-bound on both sides once the dataset is cached
    assert cmp["ratio"] == pytest.approx(1.0, abs=0.02)


def test_cache_invalidation_refetches_the_dataset():
    res = simulate(small(simulation={"invalidate_at_steps": [20]}))  # start of epoch 2 (20 steps per epoch)
    t = res.runs[0].table
    assert t["cache_hit_ratio"].iloc[20:40].max() == 0.0 and (t["cache_hit_ratio"].iloc[40:] == 1.0).all()
    assert res.summary["cross_region_bytes_per_run"] == 2 * 2000 * 16384
    assert any("emptied before step(s) 20" in a for a in res.assumptions)
    with pytest.raises(SimulateError, match=r"workload.simulation.invalidate_at_steps"):
        simulate(small(simulation={"invalidate_at_steps": "soon"}))
    with pytest.raises(SimulateError, match=r"workload.simulation.invalidate_at_steps\[0\]: got 0; expected a number >= 1"):
        simulate(small(simulation={"invalidate_at_steps": [0]}))
