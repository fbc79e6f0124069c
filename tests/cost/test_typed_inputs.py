"""Issue 36, item 7: the model's inputs are one typed model with enums, and the point evaluation, the scalar
totals and the Monte Carlo price through the same function (a draw with zero spread is the point value)."""
from __future__ import annotations

import dataclasses
import datetime as dt

import numpy as np
import pytest
from support.paths import EXAMPLES

from costmodel.cost import evaluate, load_scenario, monte_carlo
from costmodel.cost.evaluate import model_inputs
from costmodel.cost.inputs import SCENARIO_KEYS, BytesBasis, Follow, ModelInputs
from costmodel.cost.model import OPTIONS, derived, totals, totals_scalar
from costmodel.cost.spec import MODEL_KEYS

TODAY = dt.date(2026, 12, 2)


@pytest.fixture(scope="module")
def example():
    return load_scenario(EXAMPLES / "scenario.yaml", today=TODAY)


def test_the_typed_model_reads_every_model_key_and_nothing_else():
    assert SCENARIO_KEYS == MODEL_KEYS


def test_modes_are_enums_not_float_codes(example):
    i = ModelInputs.of(model_inputs(example))
    # the example states epochs and throughput: run_hours is derived and follows them; the warm-up is stated
    # (55 s) and kept above the link's lower bound; the copy time is derived from the 5 Gbit/s link
    assert i.follow_run_hours is Follow.DERIVED
    assert i.follow_warmup is Follow.BOUNDED
    assert i.follow_copy_hours is Follow.DERIVED
    assert i.follow_epochs is Follow.NONE
    assert i.bytes_basis is BytesBasis.DATASET and i.bytes_auto is True
    assert i.s3_replication is True and i.replica_puts is True and i.instance_copy is False
    assert i.cache_persistent is False and i.cache_cross_az is False
    for key in ("_follow_run_hours", "_follow_warmup", "_follow_copy_hours", "_bytes_basis"):
        assert isinstance(example.internal[key], (Follow, BytesBasis)), key
    assert BytesBasis.MEASURED_ORIGIN.record_name == "measured" and BytesBasis.LRU.record_name == "lru"


def test_a_missing_scenario_key_is_refused_by_name(example):
    p = model_inputs(example)
    del p["dataset.size_gb"]
    with pytest.raises(KeyError, match=r"dataset\.size_gb"):
        ModelInputs.of(p)


def test_point_value_scalar_totals_and_a_zero_spread_draw_are_the_same_number(example):
    point = evaluate(example)
    scalar = totals_scalar(model_inputs(example))
    n = 64
    # every uncertain input and the throughput (a source that run_hours follows) drawn at its point value
    flat = {k: np.full(n, example.values[k]) for k in example.distributions}
    flat["training.samples_per_s"] = np.full(n, 116.0)
    drawn = totals(model_inputs(example, **flat))
    for j, o in enumerate(OPTIONS):
        assert scalar[j] == point.options[o].total_usd  # to the bit: one function
        assert np.all(np.asarray(drawn[o]) == point.options[o].total_usd), o
    assert scalar[2] == pytest.approx(12 * 1 * 72 * 50.0)  # wait: 12 months x 1 run x 72 h x 50 USD/h


def test_monte_carlo_without_spread_is_the_point_value(example):
    still = dataclasses.replace(example, distributions={})
    mc = monte_carlo(still, 200, seed=3, default_ranges=False)
    point = evaluate(still)
    assert mc.uncertain_inputs == [] and mc.byte_cases == []
    for o in OPTIONS:
        assert np.all(mc.totals[o] == point.options[o].total_usd), o
        assert mc.p5[o] == mc.p95[o] == point.options[o].total_usd


def test_a_drawn_byte_basis_prices_each_case_as_its_point_evaluation(example):
    measured = example.with_values()
    p = model_inputs(measured)
    p["_read_bytes_per_s"] = 2.0e6
    p["_bytes_auto"] = 0.0
    codes = np.array([BytesBasis.DATASET, BytesBasis.MEASURED_READ, BytesBasis.LRU], dtype=float)
    drawn = totals({**p, "_bytes_basis": codes})
    for j, b in enumerate(BytesBasis(int(c)) for c in codes):
        one = totals(ModelInputs.of(p).with_(bytes_basis=b, bytes_auto=False))
        assert float(drawn["cross_region"][j]) == float(one["cross_region"])
    # 2 MB/s x 5 % misses over 347.7 h x 1 run/month on top of the cold fill: more than the dataset model
    gb = derived({**p, "_bytes_basis": BytesBasis.MEASURED_READ})["cross_region_gb_per_month"]
    assert gb == pytest.approx(792.9856 + 2.0e6 * 0.05 * 3600 * derived(p)["training_hours_per_month"] / 1e9,
                               rel=1e-12)


def test_the_enums_name_exactly_the_choices_the_scenario_accepts():
    from costmodel.cost.inputs import CachePersistence, ReplicaMechanism
    from costmodel.cost.spec import CHOICES

    assert tuple(m.value for m in CachePersistence) == CHOICES["cache.persistence"]
    assert tuple(m.value for m in ReplicaMechanism) == CHOICES["replica.mechanism"]
    assert {b.record_name for b in BytesBasis} | {"auto"} == set(CHOICES["link.bytes_basis"])
    assert [m for m in ReplicaMechanism if m.s3_batch] == [ReplicaMechanism.S3_REPLICATION]
    assert [m for m in ReplicaMechanism if not m.writes_puts] == [ReplicaMechanism.FILESYSTEM_REPLICATION]
