"""`costmodel prices import|show` on excerpts of the providers' own price files (tests/data/prices/SOURCES.md)."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from support.paths import TEST_DATA

from costmodel.cli import main
from costmodel.prices.catalog import load_prices
from costmodel.prices.importers import PriceImportError, import_price_files

DATA = TEST_DATA / "prices"


def _rows(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_aws_offer_json_excerpt(tmp_path):
    (s,) = import_price_files([DATA / "aws-ec2-us-east-2-excerpt.json"], tmp_path / "out")
    assert s.format == "aws-json" and s.rows == 1 and s.skipped == 3  # m5 (not GPU), Windows BYOL p3, NLB
    (r,) = _rows(tmp_path / "out" / "aws-ec2-us-east-2-excerpt.csv")
    assert (r["provider"], r["item"], r["src_region"], r["unit"], r["usd"], r["as_of"]) == (
        "aws", "ebs_gp3", "us-east-2", "GB-month", "0.08", "2023-03-22")
    assert "AmazonEC2" in r["source"] and "publicationDate 2023-03-22T14:56:51Z" in r["source"]
    table = load_prices(tmp_path / "out")  # the output is a valid catalog folder
    assert table.lookup("aws", "ebs_gp3", "us-east-2").usd == 0.08


def test_aws_offer_csv_gives_the_same_rows_as_json(tmp_path):
    import_price_files([DATA / "aws-ec2-us-east-2-excerpt_rebuilt.csv", DATA / "aws-ec2-us-east-2-excerpt.json"], tmp_path)
    a = _rows(tmp_path / "aws-ec2-us-east-2-excerpt_rebuilt.csv")
    b = _rows(tmp_path / "aws-ec2-us-east-2-excerpt.csv")
    key = ("item", "src_region", "unit", "usd", "as_of")
    assert [tuple(r[k] for k in key) for r in a] == [tuple(r[k] for k in key) for r in b]


def test_gcp_sku_listing_excerpt(tmp_path):
    (s,) = import_price_files([DATA / "gcp-compute-skus-excerpt.json"], tmp_path)
    rows = _rows(tmp_path / "gcp-compute-skus-excerpt.csv")
    assert s.rows == 3 and s.skipped == 3  # A2 RAM, A2 core, T2D RAM are not catalog items
    assert {r["src_region"] for r in rows} == {"us-central1", "us-east1", "us-west1"}
    assert {(r["item"], r["unit"], r["usd"], r["as_of"]) for r in rows} == {
        ("gpu:nvidia-tesla-a100", "gpu-hour", "2.933908", "2023-03-24")}  # units 2 + nanos 933908000


def _gcp_network_sku(currency="USD", rate=1):
    """The fields of Compute Engine SKU 1A51-8906-72EB (premium egress, three GiB tiers) as the listing gives them."""
    def price(nanos):
        return {"currencyCode": currency, "units": "0", "nanos": nanos}
    return {"skus": [{
        "name": "services/6F81-5844-456A/skus/1A51-8906-72EB", "skuId": "1A51-8906-72EB",
        "description": "Network Internet Egress from Virginia to Americas",
        "category": {"serviceDisplayName": "Compute Engine", "resourceFamily": "Network",
                     "resourceGroup": "PremiumInternetEgress", "usageType": "OnDemand"},
        "serviceRegions": ["us-east4"],
        "pricingInfo": [{"pricingExpression": {
            "usageUnit": "GiBy", "baseUnit": "By", "baseUnitConversionFactor": 1073741824,
            "tieredRates": [{"startUsageAmount": 0, "unitPrice": price(120000000 * rate)},
                            {"startUsageAmount": 1024, "unitPrice": price(110000000 * rate)},
                            {"startUsageAmount": 10240, "unitPrice": price(80000000 * rate)}]},
            "currencyConversionRate": rate, "effectiveTime": "2020-10-05T10:18:44.165Z"}]}]}


@pytest.mark.parametrize("currency, rate", [("USD", 1), ("EUR", 2)])
def test_gcp_tiers_in_gib_and_currency_conversion(tmp_path, currency, rate):
    src = tmp_path / "skus.json"
    src.write_text(json.dumps(_gcp_network_sku(currency, rate)))
    import_price_files([src], tmp_path / "out")
    table = load_prices(tmp_path / "out")
    tiers = table.lookup_tiers("gcp", "egress", "us-east4", "internet")
    assert [(t.tier_start, t.tier_end, t.usd, t.unit) for t in tiers] == [
        (0.0, 1024.0, 0.12, "GiB"), (1024.0, 10240.0, 0.11, "GiB"), (10240.0, None, 0.08, "GiB")]
    assert tiers[0].bytes_per_unit == 2**30 and tiers[0].as_of == "2020-10-05"


def test_azure_retail_page(tmp_path):
    (s,) = import_price_files([DATA / "azure-retail-page-nd-h100_rebuilt.json"], tmp_path)
    assert s.rows == 4 and s.skipped == 2  # Windows and Spot meters are not the on-demand Linux price
    table = load_prices(tmp_path)
    vm = table.lookup("azure", "Standard_ND96isr_H100_v5", "eastus")
    assert (vm.usd, vm.unit, vm.as_of) == (98.32, "instance-hour", "2026-09-01")
    tiers = table.lookup_tiers("azure", "internet_egress", "eastus", "internet")
    assert [(t.tier_start, t.tier_end, t.usd) for t in tiers] == [
        (0.0, 10240.0, 0.087), (10240.0, 51200.0, 0.083), (51200.0, None, 0.07)]


@pytest.mark.parametrize("name, words", [
    ("broken-aws-truncated.json", "broken-aws-truncated.json: invalid JSON near byte 3000"),
    ("broken-aws-short-row_rebuilt.csv", "broken-aws-short-row_rebuilt.csv:7: 41 fields, expected 44"),
    ("broken-empty.json", "broken-empty.json: line 1: empty file"),
    ("broken-unknown.json", "broken-unknown.json: byte 0: a JSON object without offerCode"),
])
def test_broken_files_exit_2_and_write_nothing(tmp_path, capsys, name, words):
    out = tmp_path / "out"
    rc = main(["prices", "import", str(DATA / "aws-ec2-us-east-2-excerpt.json"), str(DATA / name), "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 2
    assert words in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("costmodel prices: error:")
    assert not out.exists()  # the good file before it was not written either
    assert list(tmp_path.iterdir()) == []  # no temporary folder left behind


def test_aws_offer_without_publication_date_is_refused(tmp_path):
    text = (DATA / "aws-ec2-us-east-2-excerpt.json").read_text().replace('"publicationDate"', '"published"')
    src = tmp_path / "offer.json"
    src.write_text(text)
    with pytest.raises(PriceImportError, match="no publicationDate"):
        import_price_files([src], tmp_path / "out")


def test_import_cli_json_counts(tmp_path, capsys):
    rc = main(["prices", "import", str(DATA / "gcp-compute-skus-excerpt.json"), "-o", str(tmp_path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["rows"] == 3 and out["skipped"] == 3
    assert out["files"][0]["items"] == {"gpu:nvidia-tesla-a100": 3}


def test_show_transfer_alias_json_and_age(capsys):
    rc = main(["prices", "show", "--provider", "aws", "--item", "transfer", "--src", "us-east-2", "--dst", "us-west-2",
               "--today", "2026-12-03", "--json"])
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    assert rc == 0
    assert out["item"] == "inter_region" and out["row"]["usd"] == 0.02 and out["row"]["unit"] == "GB"
    assert out["age_days"] == 185 and out["row"]["as_of"] == "2026-06" and out["warning"] is None
    assert cap.err == ""
    assert main(["prices", "show", "--provider", "aws", "--item", "transfer", "--src", "us-east-2", "--dst",
                 "us-west-2", "--today", "2027-07-01"]) == 0
    assert "395 days old" in capsys.readouterr().err  # older than 12 months: a warning on stderr


def test_show_text_tiers_and_did_you_mean(capsys):
    assert main(["prices", "show", "--provider", "aws", "--item", "egress", "--src", "us-east-2", "--dst", "internet",
                 "--today", "2026-12-03"]) == 0
    text = capsys.readouterr().out
    assert "tier 10240-51200 GB/month: 0.085 USD per GB" in text and "as_of 2026-06-02 (184 days old)" in text
    assert main(["prices", "show", "--provider", "aws", "--item", "trnsfer", "--src", "us-east-2"]) == 2
    err = capsys.readouterr().err
    assert "error: --item: no aws price item 'trnsfer' (did you mean 'transfer'?)" in err
    assert main(["prices", "show", "--provider", "awz", "--item", "transfer", "--src", "us-east-2"]) == 2
    assert "error: --provider: no prices for provider 'awz'" in capsys.readouterr().err
    assert main(["prices", "show", "--provider", "aws", "--item", "transfer", "--src", "us-east-2",
                 "--dst", "us-wset-2"]) == 2
    assert "error: --dst: no aws inter_region price for us-east-2 -> us-wset-2; closest known: us-east-2 -> us-west-2" \
        in capsys.readouterr().err


def test_show_reads_an_imported_folder(tmp_path, capsys):
    import_price_files([DATA / "azure-retail-page-nd-h100_rebuilt.json"], tmp_path)
    assert main(["prices", "show", "--provider", "azure", "--item", "Standard_ND96isr_H100_v5", "--src", "eastus",
                 "--dir", str(tmp_path), "--today", "2026-12-03", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["row"]["usd"] == 98.32 and out["age_days"] == 93 and out["folder"] == str(tmp_path)


def test_scenario_prices_dir_points_at_an_imported_folder(tmp_path, examples_dir):
    import datetime as dt

    import yaml

    from costmodel.cost.scenario import load_scenario

    import_price_files([DATA / "aws-ec2-us-east-2-excerpt.json"], tmp_path / "imported")
    sc = yaml.safe_load((examples_dir / "scenario.yaml").read_text())
    sc["prices"] = {"provider": "aws", "src_region": "us-east-2", "dst_region": "us-east-2",
                    "storage_item": "ebs_gp3", "dir": "imported"}  # relative to the scenario file
    sc["link"]["transfer_usd_per_gb"] = 0.02
    sc["training"]["cluster_usd_per_hour"] = 110.08
    del sc["replica"]["storage_usd_per_gib_month"]  # the example gives us-west-2 S3; fill from the import instead
    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump(sc))
    s = load_scenario(p, today=dt.date(2026, 12, 3))
    used = {u["key"]: u for u in s.prices_used}
    row = used["replica.storage_usd_per_gb_month"]
    assert row["usd"] == 0.08 and row["as_of"] == "2023-03-22" and row["age_days"] == 1352
    assert row["file"] == "aws-ec2-us-east-2-excerpt.csv" and row["unit"] == "GB-month"
    assert used["link.transfer_usd_per_gb"]["age_days"] is None  # given in the scenario
    assert any("replica.storage_usd_per_gb_month" in w and "1352 days old" in w for w in s.warnings)


def test_report_prices_table_shows_age(examples_dir):
    import datetime as dt

    from costmodel import report
    from costmodel.cost.scenario import load_scenario

    s = load_scenario(examples_dir / "scenario.yaml", today=dt.date(2026, 12, 3))
    df = report.prices_table({"prices_used": s.prices_used})
    by = dict(zip(df["input"], df["age (days)"], strict=True))
    assert by["training.cluster_usd_per_hour"] == "316"
    assert by["link.transfer_usd_per_gb"] == "185"
    assert by["replica.storage_usd_per_gb_month"] == "-"  # the example gives its us-west-2 S3 price itself
    # with the replica in us-east-1 every price comes from the catalog, two of them older than 12 months
    s = load_scenario(examples_dir / "scenario.yaml", ["replica.storage_usd_per_gib_month=null",
                                                       "prices.dst_region=us-east-1"], today=dt.date(2026, 12, 3))
    df = report.prices_table({"prices_used": s.prices_used})
    by = dict(zip(df["input"], df["age (days)"], strict=True))
    assert by["link.transfer_usd_per_gb"] == "1316 (> 12 months)"  # skyplane pair rate, 2023-04-27
    assert by["replica.storage_usd_per_gb_month"] == "461 (> 12 months)"  # S3 Standard us-east-1, 2025-08-29
    html = report.html_table(df, "prices")._repr_html_()
    assert "461 (&gt; 12 months)" in html or "461 (> 12 months)" in html


def _aws_offer(offer: str, products: dict, prices: dict) -> dict:
    """A synthetic bulk offer in the real schema: products -> attributes, terms.OnDemand -> priceDimensions."""
    terms = {}
    for sku, dims in prices.items():
        terms[sku] = {f"{sku}.JRTCKXETXF": {"offerTermCode": "JRTCKXETXF", "sku": sku, "priceDimensions": {
            f"{sku}.JRTCKXETXF.{i}": {"unit": u, "beginRange": b, "endRange": e, "description": "",
                                      "pricePerUnit": {"USD": usd}} for i, (u, b, e, usd) in enumerate(dims)}}}
    return {"formatVersion": "v1.0", "offerCode": offer, "version": "20261201000000",
            "publicationDate": "2026-12-01T00:00:00Z",
            "products": {k: {"sku": k, "productFamily": fam, "attributes": a} for k, (fam, a) in products.items()},
            "terms": {"OnDemand": terms}}


def test_aws_transfer_s3_nat_and_gpu_mapping(tmp_path):
    dt_offer = _aws_offer("AWSDataTransfer", {
        "IR": ("Data Transfer", {"transferType": "InterRegion Outbound", "fromRegionCode": "us-east-2",
                                 "toRegionCode": "us-west-2", "usagetype": "USE2-USW2-AWS-Out-Bytes"}),
        "AZ": ("Data Transfer", {"transferType": "IntraRegion", "fromRegionCode": "us-east-2",
                                 "toRegionCode": "us-east-2", "usagetype": "USE2-DataTransfer-Regional-Bytes"}),
        "NET": ("Data Transfer", {"transferType": "AWS Outbound", "fromRegionCode": "us-east-2",
                                  "toLocation": "External", "usagetype": "USE2-DataTransfer-Out-Bytes"}),
    }, {"IR": [("GB", "0", "Inf", "0.0200000000")], "AZ": [("GB", "0", "Inf", "0.0100000000")],
        "NET": [("GB", "0", "10240", "0.0900000000"), ("GB", "10240", "51200", "0.0850000000"),
                ("GB", "51200", "Inf", "0.0700000000")]})
    s3_offer = _aws_offer("AmazonS3", {
        "ST": ("Storage", {"volumeType": "Standard", "storageClass": "General Purpose", "regionCode": "us-west-2",
                           "usagetype": "USW2-TimedStorage-ByteHrs"}),
        "PUT": ("API Request", {"group": "S3-API-Tier1", "regionCode": "us-west-2", "usagetype": "USW2-Requests-Tier1"}),
        "GET": ("API Request", {"group": "S3-API-Tier2", "regionCode": "us-west-2", "usagetype": "USW2-Requests-Tier2"}),
    }, {"ST": [("GB-Mo", "0", "51200", "0.0230000000"), ("GB-Mo", "51200", "512000", "0.0220000000")],
        "PUT": [("Requests", "0", "Inf", "0.0000050000")], "GET": [("Requests", "0", "Inf", "0.0000004000")]})
    ec2_offer = _aws_offer("AmazonEC2", {
        "P5": ("Compute Instance", {"instanceType": "p5.48xlarge", "gpu": "8", "operatingSystem": "Linux",
                                    "tenancy": "Shared", "preInstalledSw": "NA", "licenseModel": "No License required",
                                    "capacitystatus": "Used", "usagetype": "USW2-BoxUsage:p5.48xlarge",
                                    "regionCode": "us-west-2", "marketoption": "OnDemand"}),
        "P5R": ("Compute Instance", {"instanceType": "p5.48xlarge", "gpu": "8", "operatingSystem": "Linux",
                                     "tenancy": "Shared", "preInstalledSw": "NA",
                                     "licenseModel": "No License required", "capacitystatus": "UnusedCapacityReservation",
                                     "usagetype": "USW2-UnusedBox:p5.48xlarge", "regionCode": "us-west-2"}),
        "NAT": ("NAT Gateway", {"usagetype": "USW2-NatGateway-Bytes", "regionCode": "us-west-2"}),
    }, {"P5": [("Hrs", "0", "Inf", "55.0400000000")], "P5R": [("Hrs", "0", "Inf", "55.0400000000")],
        "NAT": [("GB", "0", "Inf", "0.0450000000")]})
    files = []
    for name, offer in (("AWSDataTransfer.json", dt_offer), ("AmazonS3.json", s3_offer), ("AmazonEC2.json", ec2_offer)):
        (tmp_path / name).write_text(json.dumps(offer, indent=1))
        files.append(tmp_path / name)
    sums = import_price_files(files, tmp_path / "out")
    assert [(s.rows, s.skipped) for s in sums] == [(5, 0), (4, 0), (2, 1)]  # the unused reservation is skipped
    t = load_prices(tmp_path / "out")
    assert t.lookup("aws", "transfer", "us-east-2", "us-west-2").usd == 0.02
    assert t.lookup("aws", "inter_az", "us-east-2").usd == 0.01
    egress = t.lookup_tiers("aws", "internet_egress", "us-east-2", "internet")
    assert [(r.tier_start, r.tier_end, r.usd) for r in egress] == [(0, 10240, 0.09), (10240, 51200, 0.085),
                                                                   (51200, None, 0.07)]
    s3 = t.lookup_tiers("aws", "s3_standard", "us-west-2")
    assert [r.usd for r in s3] == [0.023, 0.022]
    assert {r.unit for r in s3} == {"GiB-month"}  # the offer's GB-Mo is 2**30 bytes (S3 FAQ), as the catalog
    assert t.lookup("aws", "object_put", "us-west-2").usd == 0.005  # 0.000005 per request x 1000
    assert t.lookup("aws", "object_get", "us-west-2").unit == "1000 requests"
    p5 = t.lookup("aws", "p5.48xlarge", "us-west-2")
    assert (p5.usd, p5.unit, p5.as_of) == (55.04, "instance-hour", "2026-12-01")
    assert t.lookup("aws", "nat", "us-west-2").usd == 0.045


def test_gcp_storage_and_operations_units(tmp_path):
    def sku(sku_id, desc, group, unit, nanos):
        return {"skuId": sku_id, "description": desc,
                "category": {"serviceDisplayName": "Cloud Storage", "resourceFamily": "Storage",
                             "resourceGroup": group, "usageType": "OnDemand"},
                "serviceRegions": ["us-central1"],
                "pricingInfo": [{"pricingExpression": {"usageUnit": unit, "tieredRates": [
                    {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "0", "nanos": nanos}}]},
                    "currencyConversionRate": 1, "effectiveTime": "2026-11-01T00:00:00Z"}]}
    page = {"skus": [sku("S1", "Standard Storage Iowa", "RegionalStorage", "GiBy.mo", 20000000),
                     sku("S2", "Standard Storage Class A Operations", "ClassARequest", "count", 5000),
                     sku("S3", "Standard Storage Class B Operations", "ClassBRequest", "count", 400),
                     sku("S4", "Standard Storage Iowa (per request?)", "RegionalStorage", "count", 1)]}
    src = tmp_path / "gcs.json"
    src.write_text(json.dumps(page))
    (s,) = import_price_files([src], tmp_path / "out")
    assert (s.rows, s.skipped) == (3, 1)  # the storage SKU priced per count is not a GiB-month price
    t = load_prices(tmp_path / "out")
    st = t.lookup("gcp", "gcs_standard", "us-central1")
    assert (st.usd, st.unit, st.bytes_per_unit) == (0.02, "GiB-month", 2**30)
    assert t.lookup("gcp", "object_put", "us-central1").usd == 0.005  # 0.000005 per operation x 1000
    assert t.lookup("gcp", "object_get", "us-central1").usd == 0.0004


def test_azure_documented_sample_items_are_all_skipped_and_counted(tmp_path):
    """Microsoft's own sample items: a Windows dev/test Spot meter, a reservation, and a EUR price. None is a
    Linux pay-as-you-go price, so none becomes a catalog row; all three are counted, none silently dropped."""
    (s,) = import_price_files([DATA / "azure-retail-learn-samples.json"], tmp_path)
    assert (s.format, s.rows, s.skipped) == ("azure-retail", 0, 3)
    assert _rows(tmp_path / "azure-retail-learn-samples.csv") == []


def test_sagemaker_offer_gives_the_training_rate_of_ml_instances(tmp_path):
    """Issue 25: SageMaker / HyperPod `ml.*` rates from the AmazonSageMaker offer (the EC2 offer layout): the Training
    component's hourly rate is a catalog row named by the instance; Hosting and a training plan's upfront fee are
    counted as skipped, with their reasons."""
    (s,) = import_price_files([DATA / "aws-sagemaker-us-east-1_rebuilt.json"], tmp_path / "out")
    assert s.format == "aws-json" and s.rows == 1 and s.skipped == 2
    assert any("Hosting" in r for r in s.skip_reasons) and any("upfront fee" in r for r in s.skip_reasons)
    (r,) = _rows(tmp_path / "out" / "aws-sagemaker-us-east-1_rebuilt.csv")
    assert (r["item"], r["src_region"], r["unit"], r["usd"]) == ("ml.g5.2xlarge", "us-east-1", "instance-hour", "1.515")
    assert "AmazonSageMaker" in r["source"]
    # a scenario prices its cluster from it: 2 x ml.g5.2xlarge
    from costmodel.cost import scenario_from_dict

    sc = scenario_from_dict({
        "horizon_months": 12, "dataset": {"size_gb": 100, "monthly_churn_fraction": 0},
        "training": {"runs_per_month": 1, "epochs_per_run": 1, "run_hours": 10, "instance_type": "ml.g5.2xlarge",
                     "instance_count": 2, "purchase_option": "sagemaker"},
        "link": {"transfer_usd_per_gb": 0.02},
        "cache": {"steady_hit_ratio": 0.9, "cold_starts_per_month": 1, "warmup_lost_s": 0, "steady_slowdown_fraction": 0},
        "replica": {"storage_usd_per_gb_month": 0.023},
        "prices": {"provider": "aws", "src_region": "us-east-2", "dst_region": "us-east-1"},
    }, prices_dir=tmp_path / "out")
    assert sc.values["training.cluster_usd_per_hour"] == pytest.approx(2 * 1.515)
