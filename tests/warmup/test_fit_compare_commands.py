"""`costmodel fit` and `costmodel compare`: JSON contract, Parquet input, bad input exits 2."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest


def test_fit_json_on_the_reference_example(cli, examples_dir):
    rc, out, err = cli("fit", str(examples_dir / "remote_steps.csv"),
                       str(examples_dir / "colocated_steps.csv"), "--json")
    assert rc == 0, err
    fits = json.loads(out)
    assert isinstance(fits, list) and len(fits) == 2
    rem, col = fits
    for key in ("run_id", "metric", "classification", "warmup_end_step", "warmup_end_t_s", "steady_mean",
                "steady_ci_low", "steady_ci_high", "steady_cv", "cold_mean", "curve", "lost_s", "segments"):
        assert key in rem
    for key in ("model", "plateau", "initial", "tau_steps", "tau_s", "r2"):
        assert key in rem["curve"]
    assert rem["classification"] == "warmup" and 100 <= rem["warmup_end_step"] <= 150
    assert 115 <= rem["steady_mean"] <= 117
    assert col["classification"] == "flat"


def test_fit_readable_output(cli, examples_dir):
    rc, out, _ = cli("fit", str(examples_dir / "remote_steps.csv"))
    assert rc == 0
    assert "remote_steps: warmup" in out and "95 % CI" in out


def test_compare_json_on_the_reference_example(cli, examples_dir):
    rc, out, err = cli("compare", "--colocated", str(examples_dir / "colocated_steps.csv"),
                       "--remote", str(examples_dir / "remote_steps.csv"), "--json")
    assert rc == 0, err
    d = json.loads(out)
    for key in ("ratio", "ratio_ci_low", "ratio_ci_high", "equivalent", "margin", "remote_extra_warmup_s",
                "remote_lost_s", "colocated", "remote"):
        assert key in d
    assert d["equivalent"] is True and d["margin"] == 0.02
    assert d["remote"][0]["role"] == "remote" and d["colocated"][0]["role"] == "colocated"


def test_fit_reads_a_timeline_parquet(cli, tmp_path):
    from costmodel.foundation.timeline import write_runs
    from costmodel.synthetic.shapes import generate

    runs = [generate(n=1500, shape="exp", warmup_frac=0.2, cv=0.01, seed=1).to_run("a", "remote"),
            generate(n=1500, shape="flat", warmup_frac=0, cv=0.01, seed=2).to_run("b", "colocated")]
    p = write_runs(runs, tmp_path / "tl.parquet")
    rc, out, err = cli("fit", str(p), "--json", "--axis", "t_s")
    assert rc == 0, err
    fits = json.loads(out)
    assert [f["run_id"] for f in fits] == ["a", "b"]
    assert [f["classification"] for f in fits] == ["warmup", "flat"]
    assert fits[0]["axis"] == "t_s"


def test_fit_short_csv_is_too_short_not_an_error(cli, tmp_path):
    p = tmp_path / "short.csv"
    pd.DataFrame({"step": range(8), "samples_per_s": np.linspace(90, 100, 8)}).to_csv(p, index=False)
    rc, out, _ = cli("fit", str(p), "--json")
    assert rc == 0
    f = json.loads(out)[0]
    assert f["classification"] == "too_short" and f["steady_mean"] is None


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["fit", "/nonexistent/steps.csv", "--json"], "no such file"),
        (["fit", "{remote}", "--metric", "tokens_per_s", "--json"], "tokens_per_s"),
        (["compare", "--colocated", "{col}", "--remote", "{remote}", "--margin", "2", "--json"], "margin"),
    ],
)
def test_bad_input_exits_2_with_one_line(cli, examples_dir, argv, needle):
    argv = [a.format(remote=examples_dir / "remote_steps.csv", col=examples_dir / "colocated_steps.csv") for a in argv]
    rc, out, err = cli(*argv)
    assert rc == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err
