"""Issue 12: one table of units (costmodel/foundation/units.py) that every reader of a unit name uses, and the figures
it gives are the ones the providers, the benchmarks and the scenario keys mean."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import costmodel
from costmodel.cost import spec
from costmodel.foundation import units
from costmodel.foundation.units_fmt import bytes_per_s, transfer_bytes
from costmodel.ingest.units import UNIT_FACTORS, resolve_column, unit_factor
from costmodel.prices import billing as pricing
from costmodel.prices.catalog import bytes_per_unit

PACKAGE = Path(costmodel.__file__).parent


def test_binary_and_decimal_bytes_are_what_the_bills_and_the_benchmarks_mean():
    assert units.BYTES["gib"] == 1_073_741_824 and units.BYTES["gb"] == 1_000_000_000
    assert units.BYTES["tib"] / units.BYTES["tb"] == pytest.approx(1.099511627776, rel=1e-15)
    assert units.SECONDS["ms"] == 1e-3 and units.SECONDS["days"] == 86_400
    # the same spelling is a byte rate in a column header and a link speed in a scenario key
    assert units.BYTES_PER_S["mbps"] == 1e6 and units.BITS_PER_S["mbps"] == 1e6
    assert units.BYTES_PER_S["gbit/s"] == 125_000_000 and units.BITS_PER_S["gbps"] / 8 == 125_000_000


def test_every_reader_of_a_unit_name_gets_the_factor_from_the_one_table():
    # ingest: column headers and --map
    assert unit_factor("GiB/s") == units.GIB and unit_factor("KiB") == 1024.0 and unit_factor("usec") == 1e-6
    assert resolve_column("read_MiBps").factor == units.MIB and resolve_column("read_MBps").factor == 1e6
    # prices: the catalog's billed unit (case as billed) and a row's unit in the cost model
    assert bytes_per_unit("GiB-month") == units.GIB and bytes_per_unit("TB") == 1e12 and bytes_per_unit("gib") is None
    assert pricing.bytes_per_unit(type("Row", (), {"unit": "MiB"})()) == units.MIB
    # scenario keys written in another unit: factors to the key's own unit
    assert spec.unit_dimension("TiB") is units.SIZE_UNITS_GB and units.SIZE_UNITS_GB["tib"] == 1099.511627776
    assert spec.unit_dimension("mbps") is units.RATE_UNITS_GBPS and units.RATE_UNITS_GBPS["mbps"] == 1e-3
    assert spec.unit_dimension("hours") is units.TIME_UNITS_S and spec.unit_dimension("MiBps") is None
    # human output: binary for rates, decimal for billed volumes
    assert bytes_per_s(1.5 * units.GIB) == "1.500 GiB/s" and transfer_bytes(1.2e12) == "1.200 TB"


def test_the_ingest_spellings_are_unchanged():
    # adding a spelling to the shared table must not widen what a column header may say
    assert "minutes" not in UNIT_FACTORS and "pb" not in UNIT_FACTORS and "tbps" not in UNIT_FACTORS
    assert len(UNIT_FACTORS) == 48


def test_no_other_module_writes_its_own_table_of_byte_units():
    # a dict literal mapping a byte unit name to a number, outside costmodel/foundation/units.py
    pattern = re.compile(r"""["'](?:kib|mib|gib|tib|kb|mb|gb|tb)["']\s*:\s*(?:\d|float\()""", re.IGNORECASE)
    offenders = [p.relative_to(PACKAGE).as_posix() for p in sorted(PACKAGE.rglob("*.py"))
                 if p.name != "units.py" or p.parent != PACKAGE / "foundation"
                 if pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
