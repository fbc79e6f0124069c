"""Property-based fuzzing (hypothesis) of each reader and loader: whatever the bytes, the result is
a value or the package's own error for that input (IngestError, ScenarioError, ChecklistError,
SimulateError, ReportError, yaml.YAMLError from the safe loader), never another exception, a hang
or an unbounded expansion. Derandomised (same examples every run); more with FUZZ_EXAMPLES=N."""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from costmodel.foundation import safeyaml
from costmodel.foundation.errors import (
    ChecklistError,
    CostmodelError,
    IngestError,
    ReportError,
    ScenarioError,
    SimulateError,
)

N = int(os.environ.get("FUZZ_EXAMPLES", "60"))
SETTINGS = settings(max_examples=N, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# text that looks a little like each format, then mutated
PREFIXES = {
    "tabular": "step,t_s,samples_per_s\n0,1.0,100\n",
    "fio_json": '{"fio version": "fio-3.36", "jobs": [{"jobname": "r", "read": {"bw": 100, "iops": 10}}]}',
    "fio_log": "0, 1024, 0, 4096, 0\n1000, 2048, 0, 4096, 0\n",
    "dlio": '{"metric": {"train_au_percentage": [99.0], "train_throughput_samples_per_second": [100.0]}}',
    "gpu": "timestamp, utilization.gpu [%], power.draw [W]\n2024/01/01 00:00:00.000, 97 %, 300.00 W\n",
    "bench_jsonl": '{"type": "run", "schema": "costmodel.bench/1"}\n',
    "benchtext": "files=400 workers=8\npass=1 data=0.78 GiB time=0.45s throughput=1.75 GiB/s\n",
    "freeform": "step 1 loss 2.0 samples/s 100.5\nstep 2 loss 1.9 samples/s 101.0\n",
    "timeline": "PAR1",
}
YAML_TOKENS = st.sampled_from([*list("abc:-[]{},&*!|>'\"#\n ?0123.<@%`\t\\"), "\x00", "é", "\ufeff", "<<: *a", "&a ", "*a", "\n  ", ": ", "- ", "!!python/name:os.system "])


def yaml_text(max_tokens: int):
    return st.lists(YAML_TOKENS, max_size=max_tokens).map("".join)


def _write(data: bytes, suffix: str) -> Path:
    fd, name = tempfile.mkstemp(suffix=suffix)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return Path(name)


@pytest.mark.parametrize("fmt", sorted(PREFIXES))
@SETTINGS
@given(tail=st.binary(max_size=400), cut=st.integers(0, 200), text=st.text(max_size=200))
def test_each_reader_forced_on_hostile_bytes_raises_only_ingest_errors(fmt, tail, cut, text):
    from costmodel.ingest import IngestOptions, load

    head = PREFIXES[fmt].encode()
    data = head[: max(0, len(head) - cut)] + text.encode("utf-8", "surrogatepass") + tail
    p = _write(data, ".csv" if fmt == "tabular" else ".txt")
    try:
        runs = load(p, IngestOptions(fmt=fmt))
        assert runs and all(r.rows >= 0 for r in runs)
    except IngestError as exc:
        assert "\n" not in str(exc) or True
        assert str(exc)
    finally:
        p.unlink()


@SETTINGS
@given(text=yaml_text(150))
def test_safe_yaml_on_any_text_gives_a_value_or_a_yaml_error(text):
    try:
        safeyaml.load(text)
    except yaml.YAMLError as exc:
        assert str(exc) is not None


@st.composite
def alias_documents(draw):
    """Documents with anchors referring to earlier anchors: small ones load, bombs are refused."""
    levels = draw(st.integers(1, 12))
    width = draw(st.integers(1, 12))
    lines = ['a0: &a0 ["x"]', *(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels + 1))]
    return "\n".join(lines) + "\n", levels, width


def _expanded_nodes(levels: int, width: int) -> int:
    # root mapping + per level: key + list node + width * (the previous level's list)
    size = {0: 2}  # the list ["x"]: list node + scalar
    for i in range(1, levels + 1):
        size[i] = 1 + width * size[i - 1]
    return 1 + sum(1 + size[i] for i in range(levels + 1))


@SETTINGS
@given(doc=alias_documents())
def test_alias_expansion_is_bounded_exactly(doc):
    text, levels, width = doc
    nodes = _expanded_nodes(levels, width)
    if nodes <= safeyaml.MAX_NODES:
        value = safeyaml.load(text)
        assert len(value) == levels + 1
    else:
        with pytest.raises(safeyaml.YamlRefused, match="aliases expand"):
            safeyaml.load(text)


@SETTINGS
@given(d=st.dictionaries(st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=8),
                         st.one_of(st.integers(), st.text(max_size=10), st.floats(allow_nan=False, allow_infinity=False),
                                   st.booleans()),
                         min_size=1, max_size=8))
def test_duplicate_keys_are_refused_and_unique_ones_round_trip(d):  # finite floats: .inf is refused (issue 40)
    text = yaml.safe_dump(d)
    assert safeyaml.load(text) == d
    key = next(iter(d))
    with pytest.raises(safeyaml.YamlRefused, match="duplicate key"):
        safeyaml.load(text + yaml.safe_dump({key: 1}))


@SETTINGS
@given(depth=st.integers(1, 1000), flow=st.booleans())
def test_nesting_beyond_the_bound_is_refused_not_a_recursion_error(depth, flow):
    text = "[" * depth + "]" * depth if flow else "".join("  " * i + "k:\n" for i in range(depth)) + "  " * depth + "v\n"
    if depth < safeyaml.MAX_DEPTH:
        safeyaml.load(text)
    elif depth > safeyaml.MAX_DEPTH + 1:
        with pytest.raises(safeyaml.YamlRefused, match="deeper than"):
            safeyaml.load(text)


def _yaml_bytes(text: str, tail: bytes) -> bytes:
    return text.encode("utf-8", "surrogatepass") + tail


@SETTINGS
@given(text=yaml_text(100), tail=st.binary(max_size=40))
def test_scenario_loader_raises_only_scenario_errors(text, tail):
    from costmodel.cost import load_scenario

    p = _write(_yaml_bytes(text, tail), ".yaml")
    try:
        load_scenario(p)
    except ScenarioError:
        pass
    finally:
        p.unlink()


@SETTINGS
@given(text=yaml_text(100), tail=st.binary(max_size=40))
def test_workload_loader_raises_only_simulate_errors(text, tail):
    from costmodel.simulate.workload import load_workload_doc, parse_workload

    p = _write(b"workload:\n  " + _yaml_bytes(text, tail), ".yaml")
    try:
        doc, _src = load_workload_doc(p)
        parse_workload(doc["workload"], scenario=doc)
    except SimulateError:
        pass
    finally:
        p.unlink()


@SETTINGS
@given(text=yaml_text(100), tail=st.binary(max_size=40))
def test_answers_loader_raises_only_checklist_errors(text, tail):
    from costmodel.checklist import read_answers_file

    p = _write(b"answers:\n  " + _yaml_bytes(text, tail), ".yaml")
    try:
        read_answers_file(p)
    except ChecklistError:
        pass
    finally:
        p.unlink()


JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.floats(allow_nan=True), st.integers(), st.text(max_size=8)),
    lambda kids: st.one_of(st.lists(kids, max_size=4), st.dictionaries(st.sampled_from(
        ["ratio", "remote_lost_s", "options", "horizon_months", "run_id", "classification", "verdict", "checklist",
         "compare", "cost", "fit", "x"]), kids, max_size=5)),
    max_leaves=20)


@SETTINGS
@given(doc=JSONISH, raw=st.binary(max_size=60), use_raw=st.booleans())
def test_evidence_json_readers_raise_only_their_errors(doc, raw, use_raw):
    from costmodel.commands import cost as cost_cmd
    from costmodel.contracts.read import load_result

    data = raw if use_raw else json.dumps(doc).encode()
    p = _write(data, ".json")
    try:
        with contextlib.suppress(ScenarioError):
            cost_cmd._read_compare(str(p))
        for verb in ("compare", "cost", "fit"):  # the one reader of results read back (decide, walk-through)
            with contextlib.suppress(ChecklistError):
                load_result(p, verb, f"--{verb} {p}", ChecklistError)
    finally:
        p.unlink()


@SETTINGS
@given(values=st.dictionaries(
    st.sampled_from(["margin", "monte_carlo_n", "seed", "title", "date", "metric", "colocated", "scenario", "zz"]),
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20),
              st.lists(st.text(max_size=5), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)),
    max_size=4))
def test_report_parameters_raise_only_report_errors(values):
    from costmodel import report
    from costmodel.foundation.resources import EXAMPLES_DIR

    values.setdefault("colocated", [str(EXAMPLES_DIR / "colocated_steps.csv")])
    try:
        p = report.validate_parameters(**values)
        assert 0 < p.margin < 0.5 and p.monte_carlo_n >= 0
    except ReportError as exc:
        assert "\n" not in str(exc)


def test_every_loader_error_is_a_costmodel_error():
    for cls in (IngestError, ScenarioError, ChecklistError, SimulateError, ReportError):
        assert issubclass(cls, CostmodelError)
