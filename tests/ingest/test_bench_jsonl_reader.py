"""The ``bench_jsonl`` reader: a real run's record becomes a Timeline of passes (time slices in metadata)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from support.bench_tree import SIZES, make_tree

from costmodel.bench import run_bench
from costmodel.foundation.errors import IngestError
from costmodel.ingest import IngestOptions, load, sniff_format

TOTAL = sum(SIZES.values())


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("bench")
    tree = make_tree(d / "data", SIZES)
    out = d / "run.jsonl"
    run_bench(tree, passes=3, workers=2, block_mib=0.0625, out=out, sample_interval_s=0.01, run_id="node-a",
              role="colocated")
    return out


def test_rows_are_passes_with_slices_as_sub_pass_detail(record: Path):
    recs = [json.loads(line) for line in record.read_text().splitlines()]
    samples = [r for r in recs if r["type"] == "sample"]
    pass_recs = [r for r in recs if r["type"] == "pass"]
    assert sniff_format(record) == "bench_jsonl"
    [run] = load(record)
    t = run.table
    assert run.run_id == "node-a" and run.role == "colocated" and run.format == "bench_jsonl"
    # 3 passes are 3 rows, whatever the number of time slices
    assert len(t) == 3 and len(samples) >= 3
    assert t["step"].tolist() == [1, 2, 3] and t["epoch"].tolist() == [1.0, 2.0, 3.0]
    assert t["bytes_read"].tolist() == [TOTAL] * 3
    np.testing.assert_allclose(t["step_time_s"], [p["elapsed_s"] for p in pass_recs])
    np.testing.assert_allclose(t["read_bytes_per_s"], [p["throughput_bytes_per_s"] for p in pass_recs])
    np.testing.assert_allclose(t["t_s"], [p["end_s"] for p in pass_recs])
    np.testing.assert_allclose(t["read_iops"], [sum(s["blocks"] for s in samples if s["pass"] == p["pass"]) / p["elapsed_s"]
                                                for p in pass_recs])
    # the slices are kept, as columns, in metadata
    sl = run.metadata["slices"]
    assert sl["pass"] == [s["pass"] for s in samples]
    np.testing.assert_allclose(sl["length_s"], [s["t_end_s"] - s["t_start_s"] for s in samples])
    assert sum(b for b, p in zip(sl["bytes"], sl["pass"], strict=True) if p == 2) == TOTAL
    # cold/warm as bench recorded it: pass 1 evicted, 2 and 3 warm
    assert run.metadata["cold_passes"] == [1] and run.metadata["warm_passes"] == [2, 3]
    assert run.metadata["file_list_sha256"] == recs[0]["file_list_sha256"]
    assert [p["pass"] for p in run.metadata["passes"]] == [1, 2, 3]
    assert [p["bytes"] for p in run.metadata["passes"]] == [TOTAL] * 3
    assert run.metadata["passes"][0]["page_cache"] == "evicted"
    assert run.metadata["file_reads"] == 3 * len(SIZES)
    assert run.metadata["status"] == "complete" and run.warnings == []


def test_run_id_and_role_options_override(record: Path):
    [run] = load(record, IngestOptions(run_id="x", role="remote"))
    assert run.run_id == "x" and run.role == "remote"
    assert set(run.table["run_id"]) == {"x"}


def test_killed_run_partial_record_loads_with_warnings(record: Path, tmp_path: Path):
    lines = record.read_text().splitlines(keepends=True)
    last_pass = max(i for i, ln in enumerate(lines) if '"type":"pass"' in ln)
    cut = [*lines[:last_pass], lines[last_pass][:25]]  # killed while writing pass 3's record
    partial = tmp_path / "run.jsonl.partial"
    partial.write_text("".join(cut))
    [run] = load(partial)
    assert run.metadata["status"] == "incomplete"
    assert any("no end record" in w for w in run.warnings)
    assert len(run.rejected) == 1 and run.rejected[0].line == last_pass + 1
    assert len(run.metadata["passes"]) == 2
    assert run.table["step"].tolist() == [1, 2]  # pass 3 has no pass record: its slices stay in metadata only
    assert 3 in run.metadata["slices"]["pass"]
    assert any("pass(es) 3 did not complete" in w for w in run.warnings)


def test_samples_feed_the_warmup_analysis_on_both_axes(record: Path):
    series = pytest.importorskip("costmodel.warmup.series")
    [run] = load(record)
    for axis in ("step", "t_s"):
        s = series.prepare(run, axis=axis)
        assert s.metric == "read_bytes_per_s"
        assert s.time_source == "step_time_s"
        # level over the whole run = total bytes / total reading time
        assert s.level() == pytest.approx(3 * TOTAL / run.table["step_time_s"].sum())


def test_bad_records(tmp_path: Path):
    bad_first = tmp_path / "a.jsonl"
    bad_first.write_text('{"type": "run", "schema": "costmodel.bench/1"\n')
    with pytest.raises(IngestError, match=r"a\.jsonl:1: first record is not JSON"):
        load(bad_first, IngestOptions(fmt="bench_jsonl"))
    no_samples = tmp_path / "b.jsonl"
    no_samples.write_text('{"type":"run","schema":"costmodel.bench/1","run_id":"b"}\n{"type":"end","status":"complete"}\n')
    with pytest.raises(IngestError, match="no throughput samples"):
        load(no_samples)
    wrong = tmp_path / "c.jsonl"
    wrong.write_text('{"type":"sample","pass":1}\n')
    with pytest.raises(IngestError, match="expected the costmodel bench run record"):
        load(wrong, IngestOptions(fmt="bench_jsonl"))
    bad_slice = tmp_path / "d.jsonl"
    bad_slice.write_text(
        '{"type":"run","schema":"costmodel.bench/1","run_id":"d"}\n'
        + "".join(f'{{"type":"sample","pass":1,"t_start_s":{i},"t_end_s":{i + 1},"bytes":100}}\n' for i in range(30))
        + '{"type":"sample","pass":1,"t_start_s":31,"t_end_s":31,"bytes":100}\n'
    )
    [run] = load(bad_slice)
    assert len(run.table) == 30 and run.rejected[0].line == 32 and "slice length" in run.rejected[0].reason
    assert any("no pass completed: rows are the time slices" in w for w in run.warnings)


def test_generic_jsonl_is_not_sniffed_as_bench(tmp_path: Path):
    p = tmp_path / "train.jsonl"
    p.write_text('{"step": 1, "samples_per_s": 100}\n{"step": 2, "samples_per_s": 110}\n')
    assert sniff_format(p) != "bench_jsonl"


def test_fit_reads_three_passes_as_three_with_cold_as_recorded(tmp_path: Path):
    tree = make_tree(tmp_path / "data", SIZES)
    out = tmp_path / "cold.jsonl"
    run_bench(tree, passes=3, workers=2, block_mib=0.0625, out=out, sample_interval_s=0.01, run_id="c", cold_every_pass=True)
    [run] = load(out)
    assert run.rows == 3 and run.metadata["cold_passes"] == [1, 2, 3] and run.metadata["warm_passes"] == []
    from costmodel.warmup import fit_runs

    (fit,), _ = fit_runs([run])
    assert fit.n_points == 3
    assert fit.multipass["passes"] == 3 and fit.multipass["warm"] is None
    assert "every pass (3) was read cold" in fit.multipass["note"]
