"""Issue 36, self-audit of the bundled example: every term that flips the cheapest option on its own at a
plausible value is named by the tool, and nothing within a factor of 2 is called deciding when its plausible
range cannot reach the flip. The example: D = 792.9856 GB (198.2464 G tokens x 4 B), 1 run of 3 epochs
(347.716 h) a month, 12 months, 0.02 USD/GB us-east-2 -> us-west-2, a 61,440 GB cache (77.5x the dataset)."""
from __future__ import annotations

import copy
import datetime as dt

import pytest
import yaml

from costmodel.cost import evaluate, scenario_from_dict
from costmodel.cost.summary import analyze

TODAY = dt.date(2026, 12, 2)
D = 792.9856


@pytest.fixture
def example(examples_dir):
    return yaml.safe_load((examples_dir / "scenario.yaml").read_text())


def scen(d, overrides=()):
    return scenario_from_dict(copy.deepcopy(d), today=TODAY, overrides=list(overrides))


# ---------------------------------------------------------------- item 5: forced lru on a cache that holds W
def test_forced_lru_on_a_cache_that_holds_the_working_set_charges_no_warm_misses(example):
    r = evaluate(scen(example, ["link.bytes_basis=lru"]))
    base = evaluate(scen(example, ["link.bytes_basis=dataset"]))
    assert r.derived["lru_hit_ratio"] == 1.0  # was h = 0.95: 0.05 x 792.9856 x 2 warm epochs = 79.3 GB/month more
    xb = r.to_dict()["cross_region_bytes"]
    assert xb["basis"] == "lru"
    assert xb["gb_per_month"] == pytest.approx(D, rel=1e-12)  # one cold fill; was 872.28416 (and reported 0)
    assert xb["estimates_gb_per_month"]["lru"] == pytest.approx(D, rel=1e-12)
    assert r.options["cross_region"].total_usd == pytest.approx(base.options["cross_region"].total_usd, rel=1e-12)
    assert round(r.options["cross_region"].total_usd, 2) == 3272.67  # was 3,291.70
