"""`costmodel prices import` on AWS Savings Plans rates (issue 25): the JSON of `aws savingsplans
describe-savings-plans-offering-rates` and a Savings Plans bulk price-list file. Both excerpts are REBUILT from
AWS's documented schemas with illustrative rates (no real excerpt was found; tests/data/prices/SOURCES.md);
broken variants are made here from them."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from support.paths import TEST_DATA

from costmodel.cli import main
from costmodel.prices.catalog import load_prices
from costmodel.prices.importers import detect_format, import_price_files

DATA = TEST_DATA / "prices"
RATES = DATA / "aws-savingsplans-offering-rates_rebuilt.json"
OFFER = DATA / "aws-computesavingsplan-us-east-1_rebuilt.json"


def _rows(path: Path) -> list[tuple[str, ...]]:
    with open(path, newline="") as fh:
        return [tuple(r[k] for k in ("provider", "item", "src_region", "dst_region", "unit", "usd", "as_of"))
                for r in csv.DictReader(fh)]


def test_describe_offering_rates_gives_gpu_linux_shared_and_sagemaker_training_rows(tmp_path):
    (s,) = import_price_files([RATES], tmp_path / "out")
    assert s.format == "aws-sp-rates"
    assert _rows(tmp_path / "out" / s.output) == [
        ("aws", "p5.48xlarge:savings_plan:compute:1yr:no_upfront", "us-east-1", "", "instance-hour", "36.42", ""),
        ("aws", "p5.48xlarge:savings_plan:compute:3yr:all_upfront", "us-east-1", "", "instance-hour", "24.15", ""),
        ("aws", "p4d.24xlarge:savings_plan:ec2_instance:1yr:partial_upfront", "us-west-2", "", "instance-hour",
         "18.97", ""),
        ("aws", "ml.p4d.24xlarge:savings_plan:sagemaker:1yr:no_upfront", "us-east-1", "", "instance-hour", "27.8",
         ""),
    ]
    assert (s.rows, s.skipped) == (4, 5)
    assert s.skip_reasons == {
        "EC2: not Linux (operation RunInstances)": 1,  # p5 Windows (RunInstances:0002)
        "EC2: not shared-tenancy instance usage (BoxUsage)": 1,  # p5 DedicatedUsage
        "instance without GPU": 1,  # m5.xlarge
        "SageMaker: Host (only Train rates are catalog items)": 1,
        "savings plan rate for AWSLambda (not an EC2 or SageMaker instance)": 1,
    }
    # the API's answer has no date: the rows are undated, and the catalog reads them as such
    row = load_prices(tmp_path / "out").lookup("aws", "p5.48xlarge:savings_plan:compute:1yr:no_upfront", "us-east-1")
    assert (row.usd, row.unit, row.as_of) == (36.42, "instance-hour", "")


def test_bulk_savings_plan_offer_gives_rows_per_term_and_payment(tmp_path, capsys):
    assert main(["prices", "import", str(OFFER), "-o", str(tmp_path / "cat"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    (f,) = out["files"]
    assert (f["format"], f["rows"], f["skipped"]) == ("aws-sp-offer", 3, 3)
    assert f["skip_reasons"] == {"EC2: not Linux (operation RunInstances)": 1, "instance without GPU": 1,
                                 "savings plan rate for AmazonECS (not an EC2 or SageMaker instance)": 1}
    assert _rows(tmp_path / "cat" / f["output"]) == [
        ("aws", "p5.48xlarge:savings_plan:compute:1yr:no_upfront", "us-east-1", "", "instance-hour", "36.42",
         "2026-10-03"),
        ("aws", "p6-b200.48xlarge:savings_plan:compute:1yr:no_upfront", "us-east-1", "", "instance-hour", "87.5",
         "2026-10-03"),
        ("aws", "p5en.48xlarge:savings_plan:compute:3yr:all_upfront", "us-east-1", "", "instance-hour", "23.8",
         "2026-10-03"),
    ]
    row = load_prices(tmp_path / "cat").lookup("aws", "p5en.48xlarge:savings_plan:compute:3yr:all_upfront",
                                               "us-east-1")
    assert row.source.startswith(f"{OFFER.name} (AWS Savings Plans price list ComputeSavingsPlans, publicationDate")


def test_both_formats_are_detected_from_their_first_bytes():
    assert detect_format(RATES) == "aws-sp-rates"
    assert detect_format(OFFER) == "aws-sp-offer"


def _fails(capsys, tmp_path: Path, broken: Path) -> str:
    """A good file then a broken one into an existing folder: exit 2, one error line, nothing written."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.csv").write_text("kept\n")
    rc = main(["prices", "import", str(OFFER), str(broken), "-o", str(out)])
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error" in line]
    assert rc == 2 and len(errors) == 1 and "Traceback" not in err
    assert sorted(p.name for p in out.iterdir()) == ["keep.csv"] and (out / "keep.csv").read_text() == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out", broken.name])
    return errors[0]


@pytest.mark.parametrize("old, new, words", [
    ('"rate": "24.1500",\n            "currency": "USD"', '"rate": "24.1500",\n            "currency": "CNY"',
     "searchResults[1]: currency 'CNY': only USD rates are imported"),
    ('"currency": "USD",\n                "planDescription": "1 year Partial',
     '"currency": "EUR",\n                "planDescription": "1 year Partial',
     "searchResults[2]: currency 'EUR': only USD rates are imported"),
    ('"rate": "18.9700"', '"rate": "NaN"', "searchResults[2]: rate 'NaN' is not a number"),
    ('"rate": "18.9700"', '"rate": "Infinity"', "searchResults[2]: rate 'Infinity' is not a number"),
    ('"rate": "18.9700"', '"rate": "-18.97"', "searchResults[2]: rate '-18.97' is negative"),
    ('"rate": "18.9700"', '"rate": ""', "searchResults[2]: rate '' is not a number"),
    # a broken rate in a record that gives no row (Lambda) is still a broken file
    ('"rate": "0.0000133334"', '"rate": "n/a"', "searchResults[8]: rate 'n/a' is not a number"),
])
def test_broken_rates_variants_name_file_and_row(tmp_path, capsys, old, new, words):
    text = RATES.read_text()
    assert text.count(old) == 1
    broken = tmp_path / "sp-rates.json"
    broken.write_text(text.replace(old, new))
    assert f"sp-rates.json: {words}" in _fails(capsys, tmp_path, broken)


@pytest.mark.parametrize("old, new, words", [
    ('"price" : "39.65"', '"price" : "39,65"', "terms.savingsPlan[0].rates[1]: rate '39,65' is not a number"),
    ('"price" : "23.80"', '"price" : "-23.80"', "terms.savingsPlan[1].rates[0]: rate '-23.80' is negative"),
    ('"price" : "0.03238",\n          "currency" : "USD"', '"price" : "0.03238",\n          "currency" : "CNY"',
     "terms.savingsPlan[0].rates[4]: currency 'CNY': only USD rates are imported"),
    ('"publicationDate" : "2026-10-03T07:15:46Z"', '"published" : "2026-10-03T07:15:46Z"',
     "byte 0: no publicationDate (a date) in the offer header"),
])
def test_broken_offer_variants_name_file_and_position(tmp_path, capsys, old, new, words):
    text = OFFER.read_text()
    assert text.count(old) == 1
    broken = tmp_path / "sp-offer.json"
    broken.write_text(text.replace(old, new))
    assert f"sp-offer.json: {words}" in _fails(capsys, tmp_path, broken)


@pytest.mark.parametrize("src, cut", [(RATES, 2500), (OFFER, 3000)])
def test_truncated_files_name_the_byte(tmp_path, capsys, src, cut):
    broken = tmp_path / f"cut-{src.name}"
    broken.write_bytes(src.read_bytes()[:cut])
    assert f"cut-{src.name}: invalid JSON near byte {cut}" in _fails(capsys, tmp_path, broken)


def _scenario(prices_dir: Path, **purchase):
    from costmodel.cost import scenario_from_dict

    return scenario_from_dict({
        "horizon_months": 12, "dataset": {"size_gb": 800, "monthly_churn_fraction": 0},
        "training": {"runs_per_month": 1, "epochs_per_run": 3, "run_hours": 350, "instance_type": "p5.48xlarge",
                     "instance_count": 2, "cluster_usd_per_hour": 110.08},
        "link": {"transfer_usd_per_gb": 0.02},
        "cache": {"steady_hit_ratio": 0.95, "cold_starts_per_month": 1, "warmup_lost_s": 600,
                  "steady_slowdown_fraction": 0.02},
        "replica": {"storage_usd_per_gb_month": 0.023},
        "prices": {"provider": "aws", "src_region": "us-east-2", "dst_region": "us-east-1"},
        "purchase": purchase,
    }, prices_dir=prices_dir)


def test_a_scenario_prices_its_cluster_under_the_imported_savings_plan(tmp_path):
    """`purchase.savings_plan: compute:1yr:no_upfront` fills purchase.savings_plan_usd_per_hour from the imported
    row of the scenario's instance x instance_count, priced side by side with the on-demand cluster."""
    from costmodel.cost.verdict import purchase_options

    import_price_files([OFFER], tmp_path / "cat")
    sc = _scenario(tmp_path / "cat", savings_plan="compute:1yr:no_upfront")
    assert sc.get("purchase.savings_plan_usd_per_hour") == pytest.approx(2 * 36.42)
    (used,) = [u for u in sc.prices_used if u["key"] == "purchase.savings_plan_usd_per_hour"]
    assert (used["item"], used["usd"], used["multiplier"], used["as_of"]) == (
        "p5.48xlarge:savings_plan:compute:1yr:no_upfront", 36.42, 2.0, "2026-10-03")
    rows, _ = purchase_options(sc, None)
    assert [(r["purchase_option"], round(r["cluster_usd_per_hour"], 2)) for r in rows] == [
        ("on_demand", 110.08), ("savings_plan", 72.84)]
    # a rate given in the scenario wins over the table
    assert _scenario(tmp_path / "cat", savings_plan="compute:1yr:no_upfront",
                     savings_plan_usd_per_hour=70).get("purchase.savings_plan_usd_per_hour") == 70


def test_a_plan_that_was_not_imported_is_an_error_naming_what_is_known(tmp_path):
    from costmodel.foundation.errors import PriceError, ScenarioError

    import_price_files([OFFER], tmp_path / "cat")
    with pytest.raises(PriceError, match=r"no aws price item 'p5.48xlarge:savings_plan:compute:3yr:no_upfront' \(did you "
                                         r"mean 'p5.48xlarge:savings_plan:compute:1yr:no_upfront'\?\).*needed for "
                                         r"purchase.savings_plan_usd_per_hour"):
        _scenario(tmp_path / "cat", savings_plan="compute:3yr:no_upfront")
    with pytest.raises(ScenarioError, match=r"^purchase\.savings_plan: got 'compute:2yr:no_upfront'; expected one of compute:1yr:no_upfront"):
        _scenario(tmp_path / "cat", savings_plan="compute:2yr:no_upfront")


def test_sagemaker_savings_plan_offer_and_a_region_from_the_usage_type(tmp_path):
    """The same layout for a SageMaker plan (`AWSMachineLearningSavingsPlans`): a `Train:` usage gives an `ml.*`
    row; without `discountedRegionCode` the region comes from the usage-type prefix (USW2 = us-west-2)."""
    offer = json.loads(OFFER.read_text())
    for p in offer["products"]:
        p["productFamily"] = p["serviceCode"] = "MachineLearningSavingsPlans"
    (one_year, three_year) = offer["terms"]["savingsPlan"]
    one_year["rates"] = [
        {"discountedUsageType": "USW2-Train:ml.p4d.24xlarge", "discountedOperation": "RunInstance",
         "discountedServiceCode": "AmazonSageMaker", "unit": "Hrs", "discountedRate": {"price": "27.8", "currency": "USD"}},
        {"discountedUsageType": "USW2-Notebk:ml.t3.medium", "discountedOperation": "RunInstance",
         "discountedServiceCode": "AmazonSageMaker", "unit": "Hrs", "discountedRate": {"price": "0.04", "currency": "USD"}},
    ]
    three_year["sku"] = "NOT-A-PRODUCT"
    src = tmp_path / "sagemaker-sp.json"
    src.write_text(json.dumps(offer))
    (s,) = import_price_files([src], tmp_path / "out")
    assert s.format == "aws-sp-offer"
    assert _rows(tmp_path / "out" / s.output) == [
        ("aws", "ml.p4d.24xlarge:savings_plan:sagemaker:1yr:no_upfront", "us-west-2", "", "instance-hour", "27.8",
         "2026-10-03")]
    assert s.skip_reasons == {"SageMaker: Notebk (only Train rates are catalog items)": 1,
                              "rate of a product that is not a known savings plan": 1}
