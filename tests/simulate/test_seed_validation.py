"""A seed that numpy cannot take is bad input (SimulateError, exit 2), not an internal error."""
from __future__ import annotations

import pytest

from costmodel.cli import main
from costmodel.foundation.errors import SimulateError
from costmodel.simulate import simulate
from costmodel.simulate.trace import check_seed


def test_negative_seed_cli_exits_2_one_line(capsys, examples_dir, tmp_path):
    out_file = tmp_path / "p.parquet"
    with pytest.raises(SystemExit) as exc:
        main(["simulate", str(examples_dir / "whatif.yaml"), "--seed", "-1", "-o", str(out_file), "--json"])
    assert exc.value.code == 2
    out = capsys.readouterr()
    assert out.out == "" and not out_file.exists()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and "argument --seed: expected a whole number >= 0, got '-1'" in lines[0]


def test_negative_seed_library_raises_simulate_error(examples_dir):
    with pytest.raises(SimulateError, match=r"seed: expected a whole number >= 0, got -1"):
        simulate(examples_dir / "whatif.yaml", seed=-1)
    with pytest.raises(SimulateError, match="got 'a'"):
        check_seed("a")
    assert check_seed(7) == 7


def test_predictions_over_two_links_equal_fresh_ones(examples_dir):
    """The trace memo (issue 37: a placement predicts one workload over several links) changes no figure."""
    from costmodel.simulate import simulator

    over = {"workload.simulation.max_steps": 200}
    fresh = []
    for rtt in (12, 80):
        simulator._TRACE_MEMO.clear()
        fresh.append(simulate(examples_dir / "whatif.yaml", overrides=over | {"link.rtt_ms": rtt}).summary)
    shared = [simulate(examples_dir / "whatif.yaml", overrides=over | {"link.rtt_ms": rtt}).summary
              for rtt in (12, 80)]
    assert len(simulator._TRACE_MEMO) == 1
    assert repr(shared) == repr(fresh)  # every figure, NaN included
    assert fresh[0]["warmup_lost_s"] != fresh[1]["warmup_lost_s"]  # the link does change the prediction
