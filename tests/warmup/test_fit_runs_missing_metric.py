"""`costmodel fit` on files where some runs lack the metric: per-run fall-back, left-out runs warned."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from costmodel.foundation.errors import AnalysisError
from costmodel.warmup import fit_runs

FIO = "fio/pkb_fio-2.1.4/fio-parser-sample-result.json"


def test_fit_fio_file_picks_the_metric_per_run(cli, real_dir):
    rc, out, err = cli("fit", str(real_dir / FIO), "--json")
    assert rc == 0, err
    fits = json.loads(out)
    got = {f["run_id"].split(":")[1]: f["metric"] for f in fits}
    # the write jobs have only write_* columns; before, they aborted the read jobs' fits
    assert got == {"sequential_write": "write_bytes_per_s", "sequential_read": "read_bytes_per_s",
                   "random_write_test": "write_bytes_per_s", "random_read_test": "read_bytes_per_s",
                   "random_read_test_parallel": "read_bytes_per_s"}
    assert err == ""


def test_fit_explicit_metric_leaves_out_runs_without_it(cli, real_dir):
    rc, out, err = cli("fit", str(real_dir / FIO), "--metric", "read_iops", "--json")
    assert rc == 0, err
    fits = json.loads(out)
    assert isinstance(fits, list)
    assert sorted(f["run_id"].split(":")[1] for f in fits) == ["random_read_test", "random_read_test_parallel",
                                                              "sequential_read"]
    assert all(f["metric"] == "read_iops" for f in fits)
    lines = err.strip().splitlines()
    assert len(lines) == 2
    assert all("warning" in ln and "read_iops" in ln for ln in lines)
    assert any("sequential_write" in ln for ln in lines) and any("random_write_test" in ln for ln in lines)


def test_fit_exits_2_when_no_run_has_the_metric(cli, real_dir):
    rc, out, err = cli("fit", str(real_dir / FIO), "--metric", "tokens_per_s", "--json")
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "tokens_per_s" in err and "no run could be analysed" in err


def test_fit_runs_api_skips_and_reports(rng):
    n = 400
    good = pd.DataFrame({"run_id": "good", "step": np.arange(n), "t_s": np.arange(1, n + 1, dtype=float),
                         "read_iops": 500.0 * (1 + 0.01 * rng.standard_normal(n))})
    bad = pd.DataFrame({"run_id": "bad", "step": np.arange(n), "gpu_util": np.full(n, 0.5)})
    fits, skipped = fit_runs([bad, good])
    assert [f.run_id for f in fits] == ["good"] and fits[0].metric == "read_iops"
    assert len(skipped) == 1 and "'bad'" in skipped[0] and "gpu_util" in skipped[0]
    with pytest.raises(AnalysisError, match="no run could be analysed"):
        fit_runs([bad])
