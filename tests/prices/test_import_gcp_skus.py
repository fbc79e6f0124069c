"""`costmodel prices import` on a REAL GCP Cloud Billing Catalog SKU listing page (Compute Engine, 7 SKUs, effective
2023-03-24, 4 of them priced in IDR with a currencyConversionRate; tests/data/prices/SOURCES.md) and broken variants."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from costmodel.cli import main
from costmodel.prices.catalog import load_prices
from costmodel.prices.importers import import_price_files

REAL = "gcp-compute-skus-opencost.json"


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_real_listing_gives_the_a100_hour_in_each_of_its_regions(price_files_dir, tmp_path):
    (s,) = import_price_files([price_files_dir / REAL], tmp_path)
    rows = _rows(tmp_path / "gcp-compute-skus-opencost.csv")
    assert [(r["provider"], r["item"], r["src_region"], r["dst_region"], r["unit"], r["usd"], r["as_of"])
            for r in rows] == [
        ("gcp", "gpu:nvidia-tesla-a100", region, "", "gpu-hour", "2.933908", "2023-03-24")  # units 2 + nanos 933908000
        for region in ("us-central1", "us-east1", "us-west1")]
    assert {r["source"] for r in rows} == {
        f"{REAL} (GCP Cloud Billing Catalog SKU 039F-D0DA-4055 'Nvidia Tesla A100 GPU running in Americas')"}
    assert {r["notes"] for r in rows} == {"usageUnit h"}
    assert (s.format, s.rows, s.skipped) == ("gcp-skus", 3, 6)
    assert s.skip_reasons == {"not a catalog item (Compute/CPU, OnDemand)": 3,
                              "not a catalog item (Compute/RAM, OnDemand)": 3}
    assert load_prices(tmp_path).lookup("gcp", "gpu:nvidia-tesla-a100", "us-east1").usd == 2.933908


def test_a_real_idr_sku_made_a_gpu_is_converted_to_usd(price_files_dir, tmp_path):
    """The real T2D core SKU (508.934997455 IDR per hour at 14999.999925 IDR per USD) relabelled as a GPU SKU and
    given an effectiveTime (the IDR SKUs of the real page have none): the price is divided by the rate."""
    page = json.loads((price_files_dir / REAL).read_text())
    (sku,) = [s for s in page["skus"] if s["skuId"] == "9E37-EAF4-1576"]
    sku["category"]["resourceGroup"] = "GPU"
    sku["description"] = "Nvidia Tesla T4 GPU running in Singapore"
    sku["pricingInfo"][0]["effectiveTime"] = "2023-03-24T10:52:50.681Z"
    src = tmp_path / "idr.json"
    src.write_text(json.dumps({"skus": [sku]}))
    import_price_files([src], tmp_path / "out")
    (r,) = _rows(tmp_path / "out" / "idr.csv")
    assert (r["item"], r["src_region"], r["usd"]) == ("gpu:nvidia-tesla-t4", "asia-southeast1", "0.033929")
    assert r["notes"] == "usageUnit h; converted from IDR at 14999.999925 per USD"


def _fails(capsys, tmp_path: Path, broken: Path) -> str:
    out = tmp_path / "out"
    out.mkdir()
    rc = main(["prices", "import", str(broken), "-o", str(out)])
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error" in line]
    assert rc == 2 and len(errors) == 1 and "Traceback" not in err
    assert list(out.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out", broken.name])
    return errors[0].removeprefix("costmodel prices: error: ")


def test_truncated_listing(price_files_dir, tmp_path, capsys):
    broken = tmp_path / "skus-cut.json"
    broken.write_bytes((price_files_dir / REAL).read_bytes()[:2500])
    assert _fails(capsys, tmp_path, broken).startswith("skus-cut.json: invalid JSON near byte 2500: ")


@pytest.mark.parametrize("old, new, message", [
    ('"nanos": 933908000', '"nanos": "933908000x"',
     ("skus[0].pricingInfo[0].pricingExpression.tieredRates[0]: unitPrice {'currencyCode': 'USD', 'units': '2', "
     "'nanos': '933908000x'} or startUsageAmount is not a number")),
    # in a RAM SKU that gives no row: a broken price is a broken file all the same
    ('"units": "0",\n                        "nanos": 4237000', '"units": "zero",\n                        "nanos": 4237000',
     ("skus[1].pricingInfo[0].pricingExpression.tieredRates[0]: unitPrice {'currencyCode': 'USD', 'units': 'zero', "
     "'nanos': 4237000} or startUsageAmount is not a number")),
    ('"effectiveTime": "2023-03-24T10:52:50.681Z"', '"effective": "2023-03-24T10:52:50.681Z"',
     "skus[0]: pricingInfo has no effectiveTime; as_of would be unknown"),
    ('"skus": [', '"items": [',
     "byte 0: a JSON object without offerCode (AWS), skus (GCP) or Items (Azure); not a provider price file"),
])
def test_broken_listing_variants(price_files_dir, tmp_path, capsys, old, new, message):
    text = (price_files_dir / REAL).read_text()
    assert text.count(old) >= 1, old
    broken = tmp_path / "skus-broken.json"
    broken.write_text(text.replace(old, new, 1))
    assert _fails(capsys, tmp_path, broken) == f"skus-broken.json: {message}"
