"""The bundled price tables and their lookup."""
from __future__ import annotations

import datetime as dt

import pytest

from costmodel.foundation.errors import PriceError
from costmodel.prices.catalog import COLUMNS, PRICES_DIR, age_warning, load_prices, parse_as_of, read_price_csv


@pytest.fixture(scope="module")
def table():
    return load_prices()


def test_every_bundled_row_is_dated_and_sourced(table):
    assert len(table) >= 45
    for r in table.rows:
        assert r.usd > 0, r
        assert r.source and "public repo citing" not in r.source, r
        assert r.unit in {"GB", "GiB", "GB-month", "GiB-month", "instance-hour", "1000 requests", "job"}, r
        assert r.as_of, r  # v2: every bundled row carries a date
        assert dt.date(2018, 1, 1) <= parse_as_of(r.as_of) <= dt.date(2026, 12, 31)
    assert set(table.providers()) == {"aws", "gcp", "azure", "lambda", "nebius"}  # GPU clouds: SkyPilot imports
    for provider in ("aws", "gcp", "azure"):
        assert "inter_region" in table.items(provider)
    # GCP bills transfer and storage per GiB; AWS and Azure label GB (requests and GPU machine hours carry no bytes)
    assert {r.unit for r in table.rows if r.provider == "gcp" and r.bytes_per_unit is not None} <= {"GiB", "GiB-month"}
    assert {r.unit for r in table.rows if r.provider == "gcp" and r.item in ("object_get", "object_put")} \
        == {"1000 requests"}
    assert table.lookup("gcp", "inter_region", "us-central1", "us-east4").bytes_per_unit == 2**30
    assert table.lookup("aws", "inter_region", "us-east-2", "us-west-2").bytes_per_unit == 1e9
    assert table.lookup("aws", "p5.48xlarge", "us-west-2").bytes_per_unit is None


@pytest.mark.parametrize(
    "args, usd, as_of",
    [
        (("aws", "inter_region", "us-east-2", "us-west-2"), 0.02, "2026-06"),  # the reference case
        (("aws", "inter_region", "us-east-2", "us-east-1"), 0.01, "2023-04-27"),
        (("aws", "inter_region", "us-west-1", "eu-central-1"), 0.02, "2023-04-27"),  # glob us-*
        (("aws", "inter_region", "af-south-1", "us-east-1"), 0.147, "2023-04-27"),
        (("aws", "transfer", "us-east-2", "us-west-2"), 0.02, "2026-06"),  # alias
        (("gcp", "inter_region", "us-central1", "us-east4"), 0.01, "2022-10"),
        (("gcp", "inter_region", "europe-west1", "europe-west4"), 0.02, "2022-10"),
        (("gcp", "inter_region", "us-central1", "asia-east1"), 0.08, "2022-10"),
        (("gcp", "inter_region", "us-central1", "asia-southeast2"), 0.15, "2022-10"),  # exact beats glob
        (("azure", "inter_region", "eastus", "westus2"), 0.02, "2024-01-09"),
        (("azure", "inter_region", "eastus", "westeurope"), 0.05, "2024-01-09"),
        (("aws", "s3_standard", "us-east-2"), 0.023, "2018-08-07"),
        (("aws", "s3_standard", "us-east-1"), 0.023, "2025-08-29"),
        (("aws", "p5.48xlarge", "us-west-2"), 55.04, "2026-01-21"),  # after the June 2025 cut (was 98.32)
        (("aws", "p5.48xlarge", "us-west-1"), 68.80, "2026-01-21"),
        (("aws", "p5en.48xlarge", "us-east-2"), 63.296, "2026-08-06"),
        (("aws", "p5en.48xlarge", "us-west-2"), 63.296, "2026-08-06"),
        (("aws", "nat_gateway_processing", "us-east-2"), 0.045, "2026-04-27"),
        (("aws", "object_get", "us-east-2"), 0.0004, "2026-05-05"),
        (("aws", "object_put", "us-east-1"), 0.005, "2026-05-05"),
        (("aws", "s3_get", "us-east-2"), 0.0004, "2026-05-05"),  # v1 name -> object_get
        (("gcp", "nat_gateway_processing", "us-central1"), 0.045, "2026-12-03"),
        (("azure", "Standard_ND96isr_H100_v5", "eastus"), 98.32, "2026-09-16"),
    ],
)
def test_lookup_values_from_the_research_notes(table, args, usd, as_of):
    r = table.lookup(*args)
    assert r.usd == usd
    assert r.as_of == as_of


def test_exact_row_is_preferred_and_says_how_it_was_verified(table):
    east2 = table.lookup("aws", "s3_standard", "us-east-2")
    east1 = table.lookup("aws", "s3_standard", "us-east-1")
    assert east2.verified and east2.src_region == "us-east-2" and "@317a6db" in east2.verified_how
    assert east1.verified and east1.src_region == "us-east-1" and east1.verified_how.startswith("two sources agree")
    # the Ohio figure is no longer carried over to regions no source names
    with pytest.raises(PriceError, match="no aws s3_standard price for us-west-2"):
        table.lookup("aws", "s3_standard", "us-west-2")


def test_tiers_sorted_and_first_tier_is_the_lookup(table):
    tiers = table.lookup_tiers("aws", "internet_egress", "us-east-2", "internet")
    assert [(t.tier_start, t.tier_end, t.usd) for t in tiers] == [
        (0.0, 10240.0, 0.09), (10240.0, 51200.0, 0.085), (51200.0, 153600.0, 0.07), (153600.0, None, 0.05)]
    assert table.lookup("aws", "internet_egress", "us-east-2", "internet") is tiers[0]
    s3 = table.lookup_tiers("aws", "s3_standard", "us-east-2")
    assert [t.usd for t in s3] == [0.023, 0.022, 0.021] and s3[1].tier_start == 51200
    one = table.lookup_tiers("aws", "inter_region", "us-east-2", "us-west-2")
    assert len(one) == 1 and one[0].tier_start == 0 and one[0].tier_end is None


@pytest.mark.parametrize("cell, words", [("tier_start=x", "tier_start 'x' is not a number"),
                                         ("tier_end=5", "tier_end 5.0 must be above tier_start 10.0")])
def test_bad_tier_cells(tmp_path, cell, words):
    row = {"provider": "aws", "item": "x", "src_region": "a", "dst_region": "", "unit": "GB", "usd": "0.1",
           "source": "s", "as_of": "2025-01-01", "verified": "no", "notes": "", "tier_start": "10", "tier_end": ""}
    col, val = cell.split("=")
    row[col] = val
    cols = [*list(COLUMNS), "tier_start", "tier_end"]
    p = tmp_path / "t.csv"
    p.write_text(",".join(cols) + "\n" + ",".join(row[c] for c in cols) + "\n")
    with pytest.raises(PriceError, match="t.csv:2: " + words.split()[0]):
        read_price_csv(p)


def test_unknown_pair_item_provider_suggest(table):
    with pytest.raises(PriceError, match=r"closest known: us-east-2 -> us-west-2"):
        table.lookup("aws", "inter_region", "us-east-2", "us-wset-2", key="prices.dst_region")
    with pytest.raises(PriceError, match=r"did you mean 's3_standard'"):
        table.lookup("aws", "s3_standrd", "us-east-1")
    with pytest.raises(PriceError, match=r"did you mean 'aws'"):
        table.lookup("awz", "inter_region", "us-east-2", "us-west-2")


def test_age_warning_uses_today_parameter(table):
    r = table.lookup("aws", "inter_region", "us-east-2", "us-east-1")
    assert age_warning(r, dt.date(2024, 4, 26)) is None  # 365 days
    w = age_warning(r, dt.date(2024, 4, 28))
    assert w is not None and "367 days old" in w and "as_of 2023-04-27" in w
    p5 = table.lookup("aws", "p5.48xlarge", "us-west-2")
    assert age_warning(p5, dt.date(2026, 12, 3)) is None  # 316 days
    assert "days old" in age_warning(p5, dt.date(2027, 1, 22))


def test_parse_as_of_forms():
    assert parse_as_of("2022-10") == dt.date(2022, 10, 1)
    assert parse_as_of("2025") == dt.date(2025, 1, 1)
    assert parse_as_of("") is None
    with pytest.raises(ValueError):
        parse_as_of("June 2025")


@pytest.mark.parametrize(
    "cell, field",
    [("usd=abc", "usd"), ("usd=-1", "usd"), ("as_of=June", "as_of"), ("verified=maybe", "verified")],
)
def test_bad_price_csv_names_file_line_and_column(tmp_path, cell, field):
    col, val = cell.split("=")
    row = {"provider": "aws", "item": "x", "src_region": "a", "dst_region": "b", "unit": "GB", "usd": "0.1",
           "source": "s", "as_of": "2025-01-01", "verified": "no", "notes": ""}
    row[col] = val
    p = tmp_path / "t.csv"
    p.write_text(",".join(COLUMNS) + "\n" + ",".join(row[c] for c in COLUMNS) + "\n")
    with pytest.raises(PriceError, match=rf"t.csv:2: {field}:"):
        read_price_csv(p)


def test_price_csv_missing_columns(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("provider,item,usd\naws,x,1\n")
    with pytest.raises(PriceError, match="lacks columns"):
        read_price_csv(p)


def test_bundled_folder_is_in_the_repo():
    assert PRICES_DIR.name == "prices" and (PRICES_DIR / "README.md").is_file()
