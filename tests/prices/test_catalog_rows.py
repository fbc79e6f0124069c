"""The bundled price catalog (issue 14 item 1): every row dated, sourced, verified (and how), in the byte unit
the provider bills; a few figures checked against the source each row cites; `prices show` for each provider."""
from __future__ import annotations

import csv
import datetime as dt
import itertools
import json
import re

import pytest

from costmodel.cli import main
from costmodel.foundation.errors import PriceError
from costmodel.prices.catalog import (
    PRICES_DIR,
    bytes_per_unit,
    load_prices,
    parse_as_of,
    parse_verified,
)

#: the day the catalog was last reviewed: no row may be dated after it
REVIEWED = dt.date(2026, 12, 3)
#: items priced per byte (per GB/GiB transferred or processed, per GB/GiB-month stored)
BYTE_ITEMS = {"inter_region", "inter_az", "internet_egress", "nat_gateway_processing", "transit_gateway_processing",
              "privatelink_processing", "s3_standard", "gcs_standard", "blob_hot", "ebs_gp3", "efs_standard",
              "fsx_lustre", "replication_rtc"}
REQUEST_ITEMS = {"object_get", "object_put"}


def catalog_rows() -> list[tuple[str, int, dict[str, str]]]:
    out = []
    for f in sorted(PRICES_DIR.glob("*.csv")):
        with open(f, newline="", encoding="utf-8") as fh:
            for line, rec in enumerate(csv.DictReader(fh), start=2):
                out.append((f.name, line, rec))
    return out


ROWS = catalog_rows()
IDS = [f"{name}:{line}:{rec['provider']}/{rec['item']}" for name, line, rec in ROWS]


def test_the_catalog_is_not_empty_and_covers_three_providers_and_gpu_clouds():
    assert len(ROWS) >= 50
    assert {rec["provider"] for _, _, rec in ROWS} == {"aws", "gcp", "azure", "lambda", "nebius"}


@pytest.mark.parametrize("name, line, rec", ROWS, ids=IDS)
def test_every_row_is_sourced_dated_and_says_how_it_was_verified(name, line, rec):
    assert len(rec["source"].strip()) >= 20, "source must name the page, price file or dataset (with its path)"
    as_of = parse_as_of(rec["as_of"])
    assert as_of is not None, "as_of is required in the bundled catalog"
    assert dt.date(2015, 1, 1) <= as_of <= REVIEWED
    how = rec["verified"].strip()
    assert parse_verified(how) is True, f"verified {how!r} must say how (never 'no' or empty)"
    assert how.lower() not in ("yes", "true"), "say how it was verified, not just yes"
    assert float(rec["usd"]) >= 0


@pytest.mark.parametrize("name, line, rec", ROWS, ids=IDS)
def test_units_carry_the_byte_unit_the_provider_bills(name, line, rec):
    item, unit, provider = rec["item"], rec["unit"], rec["provider"]
    if item in BYTE_ITEMS:
        assert bytes_per_unit(unit) in (1e9, 2**30), f"{item} must be priced per GB or GiB, got {unit!r}"
        assert "byte unit" in rec["notes"], "the row must cite what the provider says about its byte unit"
        if provider == "gcp":
            assert unit.startswith("GiB"), "GCP bills network and storage per GiB (SKU usageUnit GiBy)"
        if item == "s3_standard":
            assert unit == "GiB-month", "S3 bills storage per GB-month of 2^30 bytes (S3 FAQ)"
        if item.endswith(("_standard", "_hot", "_gp3")):
            assert unit.endswith("-month")
    elif item in REQUEST_ITEMS:
        assert unit == "1000 requests"
    else:  # GPU instance types, their capacity-block / committed variants
        assert unit == "instance-hour" and bytes_per_unit(unit) is None


def test_tier_bounds_are_contiguous_from_zero():
    table = load_prices()
    seen = set()
    for r in table.rows:
        key = (r.provider, r.item, r.src_region, r.dst_region)
        if key in seen or not any(o.tier_end is not None for o in table.rows if (o.provider, o.item, o.src_region,
                                                                                 o.dst_region) == key):
            continue
        seen.add(key)
        tiers = table.lookup_tiers(r.provider, r.item, r.src_region.split("|")[0].replace("*", "x"),
                                   r.dst_region.split("|")[0].replace("*", "x"))
        assert tiers[0].tier_start == 0, key
        if tiers[-1].tier_end is not None:  # a ladder known only in part says where it stops
            assert "first" in tiers[-1].notes, key
        for a, b in itertools.pairwise(tiers):
            assert a.tier_end == b.tier_start, key


# ------------------------------------------------------------------ spot values against the cited source
@pytest.mark.parametrize(
    "args, usd, unit, as_of, cited",
    [
        # tsaol/aws-gpu data/p5_instances.js @7412fd2 (instances.vantage.sh, 2026-01-21): after the June 2025 cut
        (("aws", "p5.48xlarge", "us-west-2"), 55.04, "instance-hour", "2026-01-21", "tsaol/aws-gpu"),
        # dstack PR #4110 `dstack offer` (2026-08-06): p5en.48xlarge 63.296 in us-east-2
        (("aws", "p5en.48xlarge", "us-east-2"), 63.296, "instance-hour", "2026-08-06", "dstack PR #4110"),
        # SaimShaikh/Cloud_Computing AWS_S3_Pricing.md (last verified 2025-08-29): first 50 TB 0.023 per GB(-month)
        (("aws", "s3_standard", "us-east-1"), 0.023, "GiB-month", "2025-08-29", "AWS_S3_Pricing.md"),
        # api-evangelist/amazon-s3 plans yml @4f0a828 (2026-05-05): PUT/COPY/POST/LIST 0.005 per 1,000
        (("aws", "object_put", "us-east-1"), 0.005, "1000 requests", "2026-05-05", "api-evangelist/amazon-s3"),
        # skyplane aws_transfer_costs.csv @4602d9c: us-east-2 -> us-west-2 0.02
        (("aws", "inter_region", "us-east-2", "us-west-2"), 0.02, "GB", "2026-06", "aws_transfer_costs.csv"),
        # cloud.google.com/nat/pricing: 0.045 per GiB processed, the same in every region
        (("gcp", "nat_gateway_processing", "europe-west4"), 0.045, "GiB", "2026-12-03", "cloud.google.com/nat/pricing"),
        # cloud.google.com/storage/pricing (2022-12-30 copy): Standard regional us-central1 0.020 per GiB-month
        (("gcp", "gcs_standard", "us-central1"), 0.020, "GiB-month", "2022-12-30", "cloud.google.com/storage/pricing"),
        # skypilot-catalog v6/azure/vms.csv and an Azure Retail Prices item (2026-09-16): 98.32 per hour
        (("azure", "Standard_ND96isr_H100_v5", "eastus"), 98.32, "instance-hour", "2026-09-16", "skypilot-catalog"),
        # Cyclenerd/google-cloud-pricing-cost-calculator pricing.yml @0166a59 (generated 2025-03-06):
        # a3-highgpu-8g us-central1 hour 88.4899999, a2-highgpu-8g 29.38708, a2-ultragpu-8g us-west1 40.5503831
        (("gcp", "a3-highgpu-8g", "us-central1"), 88.49, "instance-hour", "2025-03-06", "pricing.yml (commit 0166a59"),
        (("gcp", "a2-highgpu-8g", "us-east1"), 29.38708, "instance-hour", "2025-03-06", "Cyclenerd/google-cloud-pricing"),
        (("gcp", "a2-ultragpu-8g", "us-west1"), 40.550383, "instance-hour", "2025-03-06", "Cyclenerd/google-cloud-pricing"),
        # skypilot-catalog v6/azure/vms.csv @098741e 27.197; datareceipts compare.json (2026-11-09) 8 x 3.3996
        (("azure", "Standard_ND96asr_v4", "eastus"), 27.197, "instance-hour", "2026-11-09", "datareceipts/data-receipts"),
    ],
)
def test_spot_values_match_the_cited_source(args, usd, unit, as_of, cited):
    r = load_prices().lookup(*args)
    assert (r.usd, r.unit, r.as_of) == (usd, unit, as_of)
    assert cited in r.source and r.verified


def test_s3_tiers_are_per_gib_month_and_the_us_west_2_carry_over_is_gone():
    table = load_prices()
    tiers = table.lookup_tiers("aws", "s3_standard", "us-east-1")
    assert [(t.tier_start, t.tier_end, t.usd) for t in tiers] == [
        (0.0, 51200.0, 0.023), (51200.0, 512000.0, 0.022), (512000.0, None, 0.021)]
    assert all(t.bytes_per_unit == 2**30 for t in tiers)
    with pytest.raises(PriceError, match="us-west-2"):  # no dated source names us-west-2 (docs/prices.md)
        table.lookup("aws", "s3_standard", "us-west-2")


@pytest.mark.parametrize("provider, item", [
    ("aws", "replication_rtc"), ("aws", "batch_operations_job"), ("aws", "batch_replication_objects"),
    ("azure", "blob_hot"), ("gcp", "a4-highgpu-8g"), ("gcp", "a3-ultragpu-8g"), ("azure", "Standard_ND96isr_H200_v5"),
    ("azure", "Standard_ND96amsr_A100_v4"),
    ("aws", "p5.48xlarge:capacity_block"),
])
def test_unverified_items_are_not_shipped_and_the_docs_say_why(provider, item):
    with pytest.raises(PriceError, match=r"no .* price item|did you mean|known items"):
        load_prices().lookup(provider, item, "us-east-1")
    docs = (PRICES_DIR.parents[2] / "docs" / "prices.md").read_text()
    section = docs[docs.index("## Not shipped"):]
    assert f"`{item}`" in section, f"{provider}/{item} must be listed under 'Not shipped' with the reason"


# ------------------------------------------------------------------ `prices show` for a row of each provider
@pytest.mark.parametrize(
    "argv, expect",
    [
        (["--provider", "aws", "--item", "s3_standard", "--src", "us-east-1"],
         ["aws s3_standard us-east-1: 0.023 USD per GiB-month", "tier 0-51200 GiB/month", "as_of 2025-08-29",
          "verified: two sources agree", "1 GiB = 1073741824 bytes"]),
        (["--provider", "gcp", "--item", "nat", "--src", "us-central1"],
         ["gcp nat_gateway_processing us-central1: 0.045 USD per GiB (matched row *)", "as_of 2026-12-03 (0 days old)",
          "verified: provider page", "source: cloud.google.com/nat/pricing"]),
        (["--provider", "azure", "--item", "Standard_ND96isr_H100_v5", "--src", "eastus"],
         ["azure Standard_ND96isr_H100_v5 eastus: 98.32 USD per instance-hour", "as_of 2026-09-16 (78 days old)",
          "verified: two sources agree"]),
    ],
)
def test_prices_show_prints_the_row_its_age_and_how_it_was_verified(capsys, argv, expect):
    assert main(["prices", "show", *argv, "--today", "2026-12-03"]) == 0
    out = capsys.readouterr().out
    for text in expect:
        assert text in out, (text, out)


def test_prices_show_json_keeps_the_bool_and_adds_how(capsys):
    assert main(["prices", "show", "--provider", "aws", "--item", "transfer", "--src", "us-east-2", "--dst",
                 "us-west-2", "--json", "--today", "2026-12-03"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["row"]["verified"] is True and out["row"]["verified_how"].startswith("three sources agree")
    assert out["row"]["unit"] == "GB" and out["row"]["bytes_per_unit"] == 1e9
    assert out["age_days"] == (dt.date(2026, 12, 3) - dt.date(2026, 6, 1)).days


@pytest.mark.parametrize("cell, value", [("yes", True), ("no", False), ("", None), ("maybe", None),
                                         ("aws-offer-file AWSDataTransfer 2026-11-01", True),
                                         ("two sources agree: a, b", True), ("unverified", False)])
def test_verified_cell_is_yes_no_or_how(cell, value):
    assert parse_verified(cell) is value


def test_a_user_table_with_an_unexplained_verified_cell_is_rejected_naming_file_and_line(tmp_path):
    rows = (PRICES_DIR / "requests.csv").read_text().splitlines()
    rows.append("aws,object_get,eu-west-1,,1000 requests,0.0004,,,my bill,2026-11-30,maybe,")
    (tmp_path / "requests.csv").write_text("\n".join(rows) + "\n")
    with pytest.raises(PriceError, match=re.escape(f"requests.csv:{len(rows)}")):
        load_prices(tmp_path)
