"""Property-based: mutated real fixtures and random bytes either ingest or raise IngestError, nothing else."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import REAL_DIR

from costmodel.foundation.errors import CostmodelError
from costmodel.ingest import load, load_many

# small fixtures of every kind (names kept: some readers take hints from them)
SAMPLES = [
    "fio/fio-plot_fio-3.34/randread-1-1.json",
    "fio/fio-plot_fio-3.1/randread-4-1.json",
    "fio/axboe_fio_plot_samples/m2sw1-128k-sdb-read-para.results_iops.log",
    "dlio/summary.json",
    "dlio/per_epoch_stats.json",
    "dlio/0_output.json",
    "mlperf_storage/v0.5/mlperf_storage_report.json",
    "gpu_util/DCGMIDmonResults.txt",
    "gpu_util/nvidia_power_output.txt",
    "gpu_util/query-gpu-8xH100.csv",
    "training_logs/t2t_gpu_output.txt",
    "training_logs/huggingface_bert_pretraining_output.txt",
    "elbencho/nersc-tbn-6_tests_2021-01-01_0.txt",
]
SETTINGS = settings(
    max_examples=int(os.environ.get("INGEST_HYPOTHESIS_EXAMPLES", "40")), derandomize=not os.environ.get("INGEST_HYPOTHESIS_RANDOM"), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
OWN_SAMPLES = {
    "steps.csv": b"step,t_s,samples_per_s,step_time_ms,gpu_util_pct,read_MBps\n"
    + b"".join(b"%d,%.1f,%d,500,%d,1200\n" % (i, i * 0.5, 100 + i, 80 + i % 20) for i in range(1, 40)),
    "client.txt": b"files=400 workers=8\npass=1 data=0.78 GiB time=0.45s throughput=1.75 GiB/s\n"
    b"pass=2 data=0.78 GiB time=0.18s throughput=4.33 GiB/s\n",
    "train.log": b"".join(b"step=%d samples/s=%d.5 gpu_util=%d%%\n" % (i, 90 + i, 70 + i) for i in range(1, 30)),
    "steps.jsonl": b"".join(b'{"iter": %d, "throughput": %d, "data_wait_ms": 3}\n' % (i, 50 + i) for i in range(1, 30)),
}


def _fixture_bytes(name: str) -> bytes:
    if name in OWN_SAMPLES:
        return OWN_SAMPLES[name]
    p = REAL_DIR / name
    if not p.is_file():
        pytest.skip(f"real fixture {p} absent")
    return p.read_bytes()


def _try(name: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / Path(name).name
        p.write_bytes(data)
        try:
            runs = load(p)
        except CostmodelError:
            return
        for r in runs:  # whatever loads is a valid Timeline
            assert r.rows >= 1
            t = r.table
            for c in ("samples_per_s", "read_bytes_per_s", "step_time_s"):
                v = t[c].to_numpy(dtype="float64")
                assert not (v[np.isfinite(v)] < 0).any()
            g = t["gpu_util"].to_numpy(dtype="float64")
            assert not (g[np.isfinite(g)] > 1.0 + 1e-9).any()
            assert t["step"].is_monotonic_increasing


@st.composite
def mutation(draw: st.DrawFn) -> tuple[str, bytes]:
    name = draw(st.sampled_from(SAMPLES + list(OWN_SAMPLES)))
    data = bytearray(_fixture_bytes(name))
    kind = draw(st.sampled_from(["truncate", "flip", "insert", "drop_line", "dup_line", "swap_lines", "replace_digit"]))
    if not data:
        return name, bytes(data)
    pos = draw(st.integers(0, len(data) - 1))
    if kind == "truncate":
        data = data[:pos]
    elif kind == "flip":
        for _ in range(draw(st.integers(1, 8))):
            i = draw(st.integers(0, len(data) - 1))
            data[i] = draw(st.integers(0, 255))
    elif kind == "insert":
        data[pos:pos] = draw(st.binary(min_size=1, max_size=40))
    else:
        lines = bytes(data).split(b"\n")
        i = draw(st.integers(0, len(lines) - 1))
        j = draw(st.integers(0, len(lines) - 1))
        if kind == "drop_line":
            del lines[i]
        elif kind == "dup_line":
            lines.insert(i, lines[i])
        elif kind == "swap_lines":
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines[i] = lines[i].replace(b"1", b"-1", 1).replace(b"5", b"nan", 1)  # negative / NaN values
        data = bytearray(b"\n".join(lines))
    return name, bytes(data)


@SETTINGS
@given(mutation())
def test_mutated_fixtures_only_raise_ingest_errors(m: tuple[str, bytes]) -> None:
    _try(*m)


@SETTINGS
@given(st.binary(min_size=0, max_size=2048), st.sampled_from(["x.csv", "x.json", "x.log", "x.txt", "x_bw.1.log", "x.parquet"]))
def test_random_bytes_only_raise_ingest_errors(data: bytes, name: str) -> None:
    _try(name, data)


@SETTINGS
@given(
    st.lists(
        st.lists(st.one_of(st.integers(-5, 500).map(str), st.floats(allow_nan=True, allow_infinity=True).map(str),
                           st.sampled_from(["", "N/A", "abc", "87%", "1e309", "-0"])), min_size=3, max_size=3),
        min_size=1, max_size=30,
    )
)
def test_random_csv_cells_only_raise_ingest_errors(rows: list[list[str]]) -> None:
    text = "step,samples_per_s,gpu_util\n" + "".join(",".join(r) + "\n" for r in rows)
    _try("r.csv", text.encode())


def test_load_many_of_garbage_writes_nothing(tmp_path: Path) -> None:
    from costmodel.cli import main

    bad = tmp_path / "g.bin"
    bad.write_bytes(os.urandom(4096))
    out = tmp_path / "o.parquet"
    assert main(["ingest", str(bad), "-o", str(out)]) == 2
    assert not out.exists()
    with pytest.raises(CostmodelError):
        load_many([bad])
