"""Issue 18: every figure a user reads carries its unit (one family per quantity), one equivalence
vocabulary in compare and the checklist, list parameters given as strings, bench passes and --max-files."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from costmodel import checklist
from costmodel.cli import main
from costmodel.foundation import units_fmt as U


def _run(level: float, sd: float, seed: int, n: int = 400, metric: str = "samples_per_s") -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    v = level * (1 + sd * rng.standard_normal(n))
    st = np.full(n, 24.0) / v if metric == "samples_per_s" else np.full(n, 0.5)
    df = pd.DataFrame({"run_id": f"r{seed}", "step": np.arange(n), "t_s": np.cumsum(st), "step_time_s": st})
    df[metric] = v
    if metric == "samples_per_s":
        df["samples"] = 24.0
    return df


# ------------------------------------------------------------------ units


def test_formatter_families_and_scales():
    assert U.bytes_per_s(9.689e8) == "924.0 MiB/s"
    assert U.bytes_per_s(1.75 * 2**30) == "1.750 GiB/s"
    assert U.bytes_read(0.78 * 2**30) == "798.7 MiB"
    assert U.transfer_bytes(793e9) == "793.0 GB" and U.transfer_bytes(2.5e12) == "2.500 TB"
    assert U.transfer_bytes(264.3e9) == "264.3 GB"
    assert U.metric(116.04, "samples_per_s") == "116.0 samples/s"
    assert U.metric(0.9512, "cache_hit_ratio") == "95.12 %"
    assert U.metric_interval(9.689e8, 1.941e8, 1.744e9, "read_bytes_per_s") == "924.0 MiB/s [185.1, 1,663] MiB/s"
    assert U.usd(3047.2) == "3,047.20 USD" and U.seconds(448.44) == "448.4 s" and U.metric(None, "x") == "-"


def test_fit_prints_byte_rates_with_their_unit_like_bench(tmp_path, capsys):
    df = _run(9.689e8, 0.05, 3, metric="read_bytes_per_s")
    path = tmp_path / "reads.csv"
    df.drop(columns=["run_id"]).to_csv(path, index=False)
    assert main(["fit", str(path), "--metric", "read_bytes_per_s"]) == 0
    out = capsys.readouterr().out
    steady = next(line for line in out.splitlines() if "steady:" in line)
    assert re.search(r"steady: \d[\d,.]* MiB/s \[\d[\d,.]*, \d[\d,.]*\] MiB/s \(95 % CI\)", steady), steady
    assert "e+" not in out


# ------------------------------------------------------------------ one vocabulary


def test_compare_and_checklist_say_the_same_word_for_the_same_evidence(tmp_path, capsys):
    """Ratio ~0.98 with a CI across the lower margin bound: significantly below 1, neither equivalent nor
    shown beyond the margin. compare used to say `different` where the checklist said inconclusive."""
    from costmodel.warmup import compare

    res = compare([_run(100, 0.05, 1)], [_run(98.0, 0.05, 2)], margin=0.02)
    d = res.to_dict()
    assert d["verdict"] == "different"  # the old key keeps its meaning (CI excludes 1)
    assert d["equivalence"] == "inconclusive" and d["equivalence_direction"] is None
    ev = checklist.gather_evidence(compare=d)["throughput_equivalent"]
    assert ev.proposed == "unknown" and ev.facts["equivalence"] == "inconclusive" and "inconclusive" in ev.summary
    col, rem = tmp_path / "c.csv", tmp_path / "r.csv"
    _run(100, 0.05, 1).drop(columns=["run_id"]).to_csv(col, index=False)
    _run(98.0, 0.05, 2).drop(columns=["run_id"]).to_csv(rem, index=False)
    assert main(["compare", "--colocated", str(col), "--remote", str(rem)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("equivalence"))
    assert "inconclusive" in line and ": different" not in line


@pytest.mark.parametrize("ratio,lo,hi,eq,want,proposed", [
    (0.95, 0.94, 0.96, False, ("different", "remote_slower"), "no"),
    (1.05, 1.04, 1.06, False, ("different", "remote_faster"), "yes"),
    (0.999, 0.99, 1.01, True, ("equivalent", None), "yes"),
    (0.975, 0.97, 0.985, False, ("inconclusive", None), "unknown"),
])
def test_outcomes_drive_the_checklist_proposal(ratio, lo, hi, eq, want, proposed):
    from costmodel.foundation import equivalence

    assert equivalence.outcome(ratio, lo, hi, 0.02, eq) == want
    cmp = {"ratio": ratio, "ratio_ci_low": lo, "ratio_ci_high": hi, "margin": 0.02, "equivalent": eq}
    ev = checklist.gather_evidence(compare=cmp)["throughput_equivalent"]
    assert ev.proposed == proposed and ev.facts["equivalence"] == want[0] and want[0] in ev.summary


# ------------------------------------------------------------------ list parameters given as strings


def test_list_parameters_given_as_json_or_yaml_strings(examples_dir):
    """`papermill -p colocated '["a.csv"]'` hands the notebook the string; it is a list of files."""
    from papermill.cli import _resolve_type

    from costmodel.foundation.errors import ReportError
    from costmodel.report import validate_checklist_parameters, validate_parameters

    col = str(examples_dir / "colocated_steps.csv")
    rem = str(examples_dir / "remote_steps.csv")
    given = _resolve_type(json.dumps([col]))
    assert isinstance(given, str)  # what papermill's -p passes on
    p = validate_parameters(colocated=given, remote=f"[{rem}, {col}]", monte_carlo_n=0)
    assert p.colocated == (col,) and p.remote == (rem, col)
    c = validate_checklist_parameters(colocated=json.dumps([col]), remote=json.dumps([rem]))
    assert c.colocated == (col,) and c.remote == (rem,)
    with pytest.raises(ReportError, match=r"parameter 'remote'.*not valid JSON/YAML"):
        validate_parameters(remote='["a.csv"')
    assert validate_parameters(colocated=col, remote=rem).remote == (rem,)  # a plain path is still one file


# ------------------------------------------------------------------ bench


def test_bench_defaults_to_five_passes_and_says_when_max_files_leaves_files_out(tmp_path, capsys):
    root = tmp_path / "d"
    root.mkdir()
    for i in range(12):
        (root / f"f{i:02d}.bin").write_bytes(bytes(4096))
    assert main(["bench", str(root), "--max-files", "10", "--json", "-q", "--sample-interval-s", "0.05"]) == 0
    cap = capsys.readouterr()
    d = json.loads(cap.out)
    assert len(d["passes"]) == 5
    assert d["files"] == 10 and d["files_under_root"] == 12 and d["files_beyond_max_files"] == 2
    assert "warning: --max-files 10: reading 10 of 12 files" in cap.err  # loud even with -q
    assert main(["bench", str(root), "--passes", "1", "-q", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["files_beyond_max_files"] == 0 and not any("--max-files" in n for n in d["notes"])


# ------------------------------------------------------------------ simulate: one key per quantity


def _small_scenario(tmp_path, top_link=True, workload_rtt=None):
    import yaml

    wl = {
        "dataset": {"samples": 2000, "sample_bytes": 65536, "files": 20, "block_bytes": 65536},
        "access": {"pattern": "shuffled", "epochs": 3},
        "step": {"samples_per_step": 32, "compute_s": 0.05, "loader_workers": 4, "prefetch_depth": 2},
        "link": {"bandwidth_bytes_per_s": 1e9, "parallel_streams": 4, "origin_latency_s": 0.0,
                 "request_bytes": 65536},
        "cache": {"policy": "lru", "capacity_bytes": 2000 * 65536 * 2},
    }
    if workload_rtt is not None:
        wl["link"]["rtt_s"] = workload_rtt
    doc = {"name": "small", "workload": wl}
    if top_link:
        doc["link"] = {"rtt_ms": 50}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_simulate_reads_the_scenarios_link_rtt_ms_and_set_changes_it(cli, tmp_path):
    scen = _small_scenario(tmp_path)
    base = cli.json("simulate", scen, "--json")
    assert base["workload"]["link"]["rtt_s"] == pytest.approx(0.05)
    slow = cli.json("simulate", scen, "--set", "link.rtt_ms=200", "--json")
    assert slow["workload"]["link"]["rtt_s"] == pytest.approx(0.2)
    assert slow["cold_samples_per_s"] < base["cold_samples_per_s"] * 0.6


def test_simulate_override_matching_no_input_is_an_error_naming_the_keys(tmp_path, capsys):
    scen = _small_scenario(tmp_path)
    assert main(["simulate", str(scen), "--set", "link.rtt_msec=200", "--json"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "link.rtt_msec" in err
    assert "did you mean link.rtt_ms" in err and "link.bandwidth_gbps" in err and "workload." in err
    assert main(["simulate", str(scen), "--set", "cache.steady_hit_ratio=0.5"]) == 2
    assert "reads no such input" in capsys.readouterr().err


def test_simulate_deprecated_workload_rtt_s_warns_and_a_conflict_is_refused(cli, tmp_path, capsys):
    old = _small_scenario(tmp_path, top_link=False, workload_rtt=0.05)
    d = cli.json("simulate", old, "--json")
    assert d["workload"]["link"]["rtt_s"] == pytest.approx(0.05)
    assert main(["simulate", str(old)]) == 0
    assert "warning: workload.link.rtt_s is deprecated: state link.rtt_ms = 50" in capsys.readouterr().err
    both = _small_scenario(tmp_path, top_link=True, workload_rtt=0.1)
    assert main(["simulate", str(both)]) == 2
    err = capsys.readouterr().err
    assert "link.rtt_ms = 50 ms" in err and "workload.link.rtt_s = 0.1 s" in err


def test_simulate_labels_the_per_epoch_mean_and_prints_each_epoch(cli, tmp_path, capsys):
    scen = _small_scenario(tmp_path)
    d = cli.json("simulate", scen, "--json")
    by_epoch = d["cross_region_bytes_by_epoch"]
    assert len(by_epoch) == 3 and by_epoch[0] > by_epoch[-1]  # the cache holds the dataset after epoch 1
    assert main(["simulate", str(scen)]) == 0
    out = capsys.readouterr().out
    assert f"cross-region by epoch  {', '.join(U.transfer_bytes(b) for b in by_epoch)}" in out
    assert re.search(r"cross-region per epoch [\d.,]+ GB \(mean of 3 epochs\)", out)


# ------------------------------------------------------------------ what-if charts offline


def test_whatif_curve_of_a_long_run_stays_under_altairs_row_limit_and_draws_offline():
    """5,673 rows used to raise MaxRowsError in the notebook (the curve the sliders redraw)."""
    from types import SimpleNamespace

    from costmodel import charts
    from costmodel.simulate import whatif

    n = 5673
    steps = np.arange(n)
    sps = 116.0 - 20.0 * np.exp(-steps / 100.0)
    table = pd.DataFrame({"step": steps, "t_s": np.cumsum(384.0 / sps), "samples_per_s": sps,
                          "cache_hit_ratio": np.clip(steps / 150.0, 0, 0.95)})
    co = table.assign(samples_per_s=116.0)
    result = SimpleNamespace(runs=[SimpleNamespace(table=table, run_id="long-predicted")],
                             colocated=SimpleNamespace(table=co), summary={"warmup_end_step": 120})
    df = whatif.curve_frame(result)
    assert len(df) < charts.MAX_ROWS and set(df["series"]) == {
        "samples/s (predicted remote)", "cache hit ratio (predicted)", "samples/s (predicted co-located)"}
    # bins keep the curve: the first bin starts near the cold level, the last sits on the plateau
    remote = df[df["series"] == "samples/s (predicted remote)"]
    assert remote["value"].iloc[0] < 100 and remote["value"].iloc[-1] == pytest.approx(116.0, abs=0.01)
    svg = charts.to_svg(whatif.curve_chart(result))  # raised MaxRowsError before
    assert svg.startswith("<svg") and "PREDICTED" in svg and "cdn" not in svg


def test_whatif_notebook_shows_charts_as_inline_svg_not_through_a_cdn_renderer():
    import nbformat

    from costmodel.foundation.resources import notebook_path

    nb = nbformat.read(notebook_path("whatif"), as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "charts.show(whatif.curve_chart(W.result))" in code and "charts.show(whatif.cost_chart(W))" in code
    for c in nb.cells:  # no bare chart expression left for Altair's default (CDN) renderer
        if c.cell_type == "code":
            last = c.source.strip().splitlines()[-1]
            assert not last.startswith("whatif.curve_chart") and not last.startswith("whatif.cost_chart"), last


def test_report_comparison_table_uses_the_shared_word(report_stages):
    from costmodel import report

    *_, cmp, _cost, decision, _record = report_stages
    values = dict(zip(*[report.compare_table(cmp)[c] for c in ("quantity", "value")], strict=True))
    ev = next(i for i in decision.to_dict()["items"] if i["id"] == "throughput_equivalent")["evidence"]
    assert values["equivalence at the margin (as the checklist says)"] == cmp.equivalence == ev["facts"]["equivalence"]
