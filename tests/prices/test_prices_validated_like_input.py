"""Prices are validated like any input (issue 27, case 2): a catalog price is a finite USD amount >= 0 (NaN and
inf refused, the row and file named); an Azure page billed in EUR is refused, not imported as USD; a GCP listing
with a missing or zero conversion rate is refused, not taken 1:1."""
from __future__ import annotations

import json
import shutil

import pytest
from support.paths import TEST_DATA

from costmodel.cli import main
from costmodel.foundation.errors import PriceError
from costmodel.prices.catalog import PRICES_DIR, load_prices

DATA = TEST_DATA / "prices"


def _one_line_2(capsys, args):
    rc = main(args)
    err = capsys.readouterr().err
    assert rc == 2, err
    lines = [x for x in err.strip().splitlines() if not x.startswith("reading ")]  # progress lines aside
    assert len(lines) == 1 and "error:" in lines[0] and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("bad", ["nan", "NaN", "inf", "-inf", "Infinity"])
def test_catalog_price_not_finite_is_refused_naming_row_and_file(tmp_path, capsys, bad):
    prices = tmp_path / "prices"
    shutil.copytree(PRICES_DIR, prices)
    lines = (prices / "transfer.csv").read_text().splitlines(keepends=True)
    head = lines[0].split(",")
    col = head.index("usd")
    import csv
    import io

    rows = list(csv.reader(io.StringIO("".join(lines))))
    rows[3][col] = bad
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    (prices / "transfer.csv").write_text(buf.getvalue())
    load_prices.cache_clear() if hasattr(load_prices, "cache_clear") else None
    with pytest.raises(PriceError, match=r"transfer\.csv:4: usd: .*not a finite number"):
        load_prices(prices)
    p = rows[3]
    line = _one_line_2(capsys, ["prices", "show", "--provider", p[0], "--item", p[1], "--src", p[2], "--dst", p[3],
                                "--dir", str(prices)])
    assert "transfer.csv:4" in line and "finite" in line


def test_catalog_row_in_another_currency_is_refused(tmp_path):
    prices = tmp_path / "prices"
    shutil.copytree(PRICES_DIR, prices)
    text = (prices / "requests.csv").read_text().splitlines()
    rows = [text[0] + ",currency"] + [t + ",USD" for t in text[1:]]
    rows[2] = text[2] + ",EUR"
    (prices / "requests.csv").write_text("\n".join(rows) + "\n")
    with pytest.raises(PriceError, match=r"requests\.csv:3: currency: currency 'EUR': the catalog is in USD"):
        load_prices(prices)


def _azure_page(tmp_path, billing, item_code):
    page = json.loads((DATA / "azure-retail-page-nd-h100_rebuilt.json").read_text())
    page["BillingCurrency"] = billing
    for it in page["Items"]:
        if item_code is None:
            it.pop("currencyCode")
        else:
            it["currencyCode"] = item_code
    src = tmp_path / "azure-eur.json"
    src.write_text(json.dumps(page))
    return src


@pytest.mark.parametrize("billing, code", [("EUR", None), ("EUR", "EUR"), ("USD", "EUR")])
def test_azure_page_billed_in_eur_is_refused(tmp_path, capsys, billing, code):
    src = _azure_page(tmp_path, billing, code)
    out = tmp_path / "out"
    line = _one_line_2(capsys, ["prices", "import", str(src), "-o", str(out)])
    assert "azure-eur.json" in line and "EUR" in line and "USD" in line
    assert not out.exists()


def _gcp_sku(currency, rate):
    sku = {"skus": [{
        "name": "services/6F81-5844-456A/skus/1A51-8906-72EB", "skuId": "1A51-8906-72EB",
        "description": "Network Internet Egress from Virginia to Americas",
        "category": {"serviceDisplayName": "Compute Engine", "resourceFamily": "Network",
                     "resourceGroup": "PremiumInternetEgress", "usageType": "OnDemand"},
        "serviceRegions": ["us-east4"],
        "pricingInfo": [{"pricingExpression": {
            "usageUnit": "GiBy", "baseUnit": "By", "baseUnitConversionFactor": 1073741824,
            "tieredRates": [{"startUsageAmount": 0,
                             "unitPrice": {"currencyCode": currency, "units": "0", "nanos": 110000000}}]},
            "effectiveTime": "2020-10-05T10:18:44.165Z"}]}]}
    if rate != "missing":
        sku["skus"][0]["pricingInfo"][0]["currencyConversionRate"] = rate
    return sku


@pytest.mark.parametrize("currency, rate, words", [
    ("EUR", "missing", "without a currencyConversionRate"),
    ("EUR", 0, "currencyConversionRate 0 is not a positive number"),
    ("USD", 0, "currencyConversionRate 0 is not a positive number"),
    ("EUR", "0", "currencyConversionRate '0' is not a positive number"),
    ("EUR", None, "without a currencyConversionRate"),
])
def test_gcp_missing_or_zero_conversion_rate_is_refused(tmp_path, capsys, currency, rate, words):
    src = tmp_path / "skus.json"
    src.write_text(json.dumps(_gcp_sku(currency, rate)))
    out = tmp_path / "out"
    line = _one_line_2(capsys, ["prices", "import", str(src), "-o", str(out)])
    assert "skus.json: skus[0]" in line and words in line, line
    assert not out.exists()


def test_gcp_usd_without_rate_is_taken_as_usd(tmp_path):
    src = tmp_path / "skus.json"
    src.write_text(json.dumps(_gcp_sku("USD", "missing")))
    assert main(["prices", "import", str(src), "-o", str(tmp_path / "out")]) == 0
    assert load_prices(tmp_path / "out").lookup("gcp", "internet_egress", "us-east4", "internet").usd == 0.11
