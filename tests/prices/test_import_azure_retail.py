"""`costmodel prices import` on REAL Azure Retail Prices API items (the three sample items Microsoft's API page
documents, in the page envelope; tests/data/prices/SOURCES.md) and broken variants. No real page holding a Linux
pay-as-you-go GPU VM, bandwidth or blob meter was found: `azure-retail-page-nd-h100_rebuilt.json` is rebuilt."""
from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path

import pytest

from costmodel.cli import main
from costmodel.prices.catalog import load_prices
from costmodel.prices.importers import _azure_unit, import_price_files

REAL = "azure-retail-learn-samples.json"
REBUILT = "azure-retail-page-nd-h100_rebuilt.json"


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_real_sample_items_are_all_skipped_each_with_its_reason(price_files_dir, tmp_path):
    (s,) = import_price_files([price_files_dir / REAL], tmp_path)
    assert (s.format, s.rows, s.skipped) == ("azure-retail", 0, 3)
    assert s.skip_reasons == {"type DevTestConsumption (not pay-as-you-go)": 1,  # F16s Spot Windows, USD
                              "type Reservation (not pay-as-you-go)": 1,  # E64 v4, 25007 USD for 1 year
                              "Virtual Machines: Windows": 1}  # F16s Spot Windows, EUR
    assert _rows(tmp_path / "azure-retail-learn-samples.csv") == []


def _edited(price_files_dir: Path, tmp_path: Path, index: int, **fields) -> Path:
    page = json.loads((price_files_dir / REAL).read_text())
    page["Items"][index].update(fields)
    out = tmp_path / "edited.json"
    out.write_text(json.dumps(page, indent=2))
    return out


def test_real_item_made_linux_pay_as_you_go_gives_the_hourly_row(price_files_dir, tmp_path):
    src = _edited(price_files_dir, tmp_path, 0, type="Consumption", productName="Virtual Machines FS Series",
                  meterName="F16s", skuName="F16s")
    import_price_files([src], tmp_path / "out")
    (r,) = _rows(tmp_path / "out" / "edited.csv")
    assert (r["provider"], r["item"], r["src_region"], r["unit"], r["usd"], r["as_of"], r["tier_start"]) == (
        "azure", "Standard_F16s", "westeurope", "instance-hour", "0.176346", "2020-08-01", "")
    assert r["source"] == "edited.json (Azure Retail Prices meter 000a794b-bdb0-58be-a0cd-0c3a0f222923 'F16s')"
    assert r["notes"] == "Virtual Machines FS Series / F16s; unitOfMeasure 1 Hour"


@pytest.mark.parametrize("text, qty, unit", [
    ("1 Hour", "1", "Hour"), ("1/Hour", "1", "Hour"), ("100 Hours", "100", "Hours"), ("1 GB/Month", "1", "GB/Month"),
    ("1/Month", "1", "Month"), ("10K", "10000", ""), ("1 GB", "1", "GB"), ("1M", "1000000", ""),
])
def test_units_of_measure(text, qty, unit):
    assert _azure_unit(text) == (Decimal(qty), unit)


def test_rebuilt_page_tiers_and_hourly_price(price_files_dir, tmp_path):
    (s,) = import_price_files([price_files_dir / REBUILT], tmp_path)
    assert (s.rows, s.skip_reasons) == (4, {"Virtual Machines: Windows": 1, "Virtual Machines: Spot / Low Priority": 1})
    t = load_prices(tmp_path)
    assert [(r.tier_start, r.tier_end, r.usd, r.unit) for r in t.lookup_tiers("azure", "internet_egress", "eastus",
                                                                             "internet")] == [
        (0.0, 10240.0, 0.087, "GB"), (10240.0, 51200.0, 0.083, "GB"), (51200.0, None, 0.07, "GB")]


def _fails(capsys, tmp_path: Path, broken: Path) -> str:
    out = tmp_path / "out"
    rc = main(["prices", "import", str(broken), "-o", str(out)])
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error" in line]
    assert rc == 2 and len(errors) == 1 and "Traceback" not in err
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == [broken.name]
    return errors[0].removeprefix("costmodel prices: error: ")


def test_truncated_page(price_files_dir, tmp_path, capsys):
    broken = tmp_path / "page-cut.json"
    broken.write_bytes((price_files_dir / REAL).read_bytes()[:1500])
    assert _fails(capsys, tmp_path, broken).startswith("page-cut.json: invalid JSON near byte 1500: ")


@pytest.mark.parametrize("index, fields, message", [
    # a non-numeric price in an item that gives no row is still a broken page
    (1, {"retailPrice": "25,007.00"}, "Items[1]: retailPrice '25,007.00' is not a number"),
    (0, {"retailPrice": None}, "Items[0]: retailPrice None is not a number"),
    # the EUR item as a Linux pay-as-you-go meter: the page must be downloaded in USD
    (2, {"productName": "Virtual Machines FS Series", "meterName": "F16s", "skuName": "F16s"},
     "Items[2]: currencyCode 'EUR'; download the page with currencyCode='USD'"),
    (0, {"type": "Consumption", "productName": "Virtual Machines FS Series", "meterName": "F16s", "skuName": "F16s",
         "effectiveStartDate": ""}, "Items[0]: no effectiveStartDate; as_of would be unknown"),
])
def test_broken_item_variants(price_files_dir, tmp_path, capsys, index, fields, message):
    broken = _edited(price_files_dir, tmp_path, index, **fields)
    assert _fails(capsys, tmp_path, broken) == f"edited.json: {message}"


def test_a_page_without_items_is_not_a_price_file(price_files_dir, tmp_path, capsys):
    text = (price_files_dir / REAL).read_text().replace('"Items"', '"Rows"').replace('"BillingCurrency"', '"Cur"')
    broken = tmp_path / "page-header.json"
    broken.write_text(text)
    assert _fails(capsys, tmp_path, broken).startswith("page-header.json: byte 0: a JSON object without offerCode")
