"""One converter from pydantic errors to ours: file, key path (loc joined with '.', list positions as [i]),
what was given, what was expected, and the closest allowed key for an unknown one."""
from __future__ import annotations

import json

import pytest

from costmodel.contracts.errors import closest, did_you_mean
from costmodel.contracts.read import load_result
from costmodel.foundation.errors import ChecklistError, ScenarioError, SimulateError
from costmodel.simulate.workload import parse_workload

WORKLOAD = {"dataset": {"samples": 1000, "sample_bytes": 16384, "files": 10}, "access": {"epochs": 2},
            "step": {"samples_per_step": 50, "compute_s": 0.1}, "link": {"bandwidth_bytes_per_s": 1e9},
            "cache": {"policy": "lru", "capacity_bytes": 1e9}}
SCENARIO = {"link": {"rtt_ms": 50}}


def _workload(**sections):
    w = json.loads(json.dumps(WORKLOAD))
    for k, v in sections.items():
        w[k] = v if v is None or not isinstance(w.get(k), dict) else {**w[k], **v}
    return w


def test_a_valid_workload_reads_numbers_written_as_strings():
    w = parse_workload(_workload(cache={"capacity_bytes": "2e9"}, dataset={"samples": "1_000"}), scenario=SCENARIO)
    assert w.cache.capacity_bytes == 2e9 and w.dataset.samples == 1000 and w.link.rtt_s == 0.05


@pytest.mark.parametrize("sections, message", [
    ({"cache": {"prefetch": {"lookahed_steps": 2}}},
     ("workload.cache.prefetch.lookahed_steps: unknown key; did you mean 'lookahead_steps'?; allowed here: accuracy, "
      "lookahead_steps, learning_steps, ramp_steps")),
    ({"step": {"compute_s": -1}}, "workload.step.compute_s: got -1; expected a number >= 0"),
    ({"step": {"loader_workers": 2.5}}, "workload.step.loader_workers: got 2.5; expected a whole number"),
    ({"dataset": {"samples": True}}, "workload.dataset.samples: got True; expected a number"),
    ({"cache": {"policy": "fifo"}},
     "workload.cache.policy: got 'fifo'; expected one of 'none', 'lru' or 'predictive'"),
    ({"simulation": {"invalidate_at_steps": [5, 0]}},
     "workload.simulation.invalidate_at_steps[1]: got 0; expected a number >= 1"),
    ({"step": {"samples_per_step": None, "compute_s": 0.1}},
     "workload.step.samples_per_step: got None; expected a whole number"),
])
def test_workload_errors_name_key_given_and_expected(sections, message):
    with pytest.raises(SimulateError) as exc:
        parse_workload(_workload(**sections), scenario=SCENARIO)
    assert str(exc.value).startswith(message), str(exc.value)


def test_a_missing_required_key_says_what_is_expected():
    w = _workload()
    del w["step"]["compute_s"]
    with pytest.raises(SimulateError, match=r"^workload.step.compute_s: missing; expected a number \(compute time"):
        parse_workload(w, scenario=SCENARIO)


def test_a_result_with_a_wrongly_typed_key_names_file_and_key(tmp_path):
    p = tmp_path / "compare.json"
    p.write_text(json.dumps({"ratio": "fast", "remote_lost_s": 3.0}))
    with pytest.raises(ChecklistError) as exc:
        load_result(p, "compare", f"--compare {p}", ChecklistError)
    assert str(exc.value) == f"--compare {p}: ratio: got 'fast'; expected a number"
    p.write_text(json.dumps({"ratio": 1.0, "remote_lost_s": 3.0, "colocated": [{"run_id": "a"}]}))
    with pytest.raises(ScenarioError, match=r"colocated\[0\]\.classification: missing"):
        load_result(p, "compare", f"--from-compare {p}", ScenarioError)
    p.write_text('{"ratio": 1.0,\n "remote_lost_s": }')
    with pytest.raises(ChecklistError, match=r"compare.json:2: not valid JSON"):
        load_result(p, "compare", f"--compare {p}", ChecklistError)


def test_newer_keys_are_kept_when_a_result_is_read_back(tmp_path):
    p = tmp_path / "compare.json"
    p.write_text(json.dumps({"ratio": 0.99, "remote_lost_s": None, "added_by_a_newer_costmodel": [1, 2]}))
    res = load_result(p, "compare", "--compare c", ChecklistError)
    assert res.to_json_dict() == {"ratio": 0.99, "remote_lost_s": None, "added_by_a_newer_costmodel": [1, 2]}


@pytest.mark.parametrize("word, choices, expected", [
    ("s3_rtc", ["s3_get", "s3_rtc_transfer"], "s3_rtc_transfer"),  # a prefix wins over a close spelling
    ("stedy_hit_ratio", ["steady_hit_ratio", "capacity_gb"], "steady_hit_ratio"),
    ("size", ["dataset_size_gb"], "dataset_size_gb"),  # contained
    ("zz", ["alpha", "beta"], None),
])
def test_one_closest_match(word, choices, expected):
    assert closest(word, choices) == expected
    assert did_you_mean(word, choices) == (f"; did you mean {expected!r}?" if expected else "")
    assert did_you_mean(word, choices, paren=True) == (f" (did you mean {expected!r}?)" if expected else "")
