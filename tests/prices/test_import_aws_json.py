"""`costmodel prices import` on REAL AWS Price List bulk offer JSON excerpts (region files of the AmazonEC2 offer,
tests/data/prices/SOURCES.md), and on broken variants of them made here byte by byte."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from costmodel.cli import main
from costmodel.prices.catalog import load_prices
from costmodel.prices.importers import import_price_files

P4D = "aws-ec2-us-east-1-p4d-opencost.json"  # publicationDate 2024-05-28, p4d on-demand + a Capacity Block SKU
OHIO = "aws-ec2-us-east-2-excerpt.json"  # publicationDate 2023-03-22, m5 / p3 Windows BYOL / gp3 / NLB
NINGXIA = "aws-ec2-cn-northwest-1-opencost.json"  # publicationDate 2023-03-14, gp3 priced in CNY only


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _key(r: dict[str, str]) -> tuple[str, ...]:
    return tuple(r[k] for k in ("provider", "item", "src_region", "dst_region", "unit", "usd", "as_of",
                                "tier_start", "tier_end"))


def test_p4d_on_demand_row_and_the_capacity_block_listed_at_zero_is_skipped(price_files_dir, tmp_path):
    (s,) = import_price_files([price_files_dir / P4D], tmp_path / "out")
    rows = _rows(tmp_path / "out" / "aws-ec2-us-east-1-p4d-opencost.csv")
    assert [_key(r) for r in rows] == [
        ("aws", "p4d.24xlarge", "us-east-1", "", "instance-hour", "32.7726", "2024-05-28", "", "")]
    assert rows[0]["source"] == (f"{P4D} (AWS Price List offer AmazonEC2, publicationDate 2024-05-28T20:35:22Z)")
    assert rows[0]["notes"] == "$32.7726 per On Demand Linux p4d.24xlarge Instance Hour"
    # the same instance as a Capacity Block is listed at 0.00 USD/h: a 0 would be a wrong price, so it is skipped
    assert (s.format, s.rows, s.skipped) == ("aws-json", 1, 1)
    assert s.skip_reasons == {"GPU instance: Capacity Block (listed at 0.00 in the offer)": 1}
    row = load_prices(tmp_path / "out").lookup("aws", "p4d.24xlarge", "us-east-1")
    assert (row.usd, row.unit, row.bytes_per_unit, row.as_of) == (32.7726, "instance-hour", None, "2024-05-28")


def test_ohio_region_file_gives_gp3_per_decimal_gb_month_and_counts_each_skip(price_files_dir, tmp_path):
    (s,) = import_price_files([price_files_dir / OHIO], tmp_path)
    assert [_key(r) for r in _rows(tmp_path / "aws-ec2-us-east-2-excerpt.csv")] == [
        ("aws", "ebs_gp3", "us-east-2", "", "GB-month", "0.08", "2023-03-22", "", "")]
    assert s.skip_reasons == {"instance without GPU": 1,  # m5.large
                              "GPU instance: not on-demand Linux, shared tenancy, no pre-installed software": 1,
                              "not a catalog item (Load Balancer-Network)": 1}
    row = load_prices(tmp_path).lookup("aws", "ebs_gp3", "us-east-2")
    assert row.bytes_per_unit == 1e9  # AWS "GB-Mo" is a decimal gigabyte-month


def test_china_region_priced_in_cny_only_gives_no_row_and_says_why(price_files_dir, tmp_path, capsys):
    rc = main(["prices", "import", str(price_files_dir / NINGXIA), "-o", str(tmp_path / "out")])
    cap = capsys.readouterr()
    assert rc == 0
    assert "0 rows, 1 records not catalog items" in cap.out
    assert "  skipped 1: priced in CNY only (no USD price)" in cap.out
    assert f"warning: {price_files_dir / NINGXIA}: no catalog rows" in cap.err
    assert _rows(tmp_path / "out" / "aws-ec2-cn-northwest-1-opencost.csv") == []  # header only, never 0.5312 USD


def test_two_region_files_in_one_run_make_one_catalog_folder(price_files_dir, tmp_path, capsys):
    assert main(["prices", "import", str(price_files_dir / P4D), str(price_files_dir / OHIO), "-o",
                 str(tmp_path / "cat"), "--json"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    assert (out["rows"], out["skipped"]) == (2, 4)
    assert next(f["skip_reasons"] for f in out["files"]) == {
        "GPU instance: Capacity Block (listed at 0.00 in the offer)": 1}
    table = load_prices(tmp_path / "cat")
    assert table.lookup("aws", "p4d.24xlarge", "us-east-1").as_of == "2024-05-28"
    assert table.lookup("aws", "ebs_gp3", "us-east-2").as_of == "2023-03-22"


def _fails(capsys, tmp_path: Path, good: Path, broken: Path) -> str:
    """Run the CLI on a good file then a broken one into an existing folder: exit 2, one error line, the folder
    untouched and no temporary folder left."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.csv").write_text("kept\n")
    rc = main(["prices", "import", str(good), str(broken), "-o", str(out)])
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error" in line]
    assert rc == 2 and len(errors) == 1 and "Traceback" not in err
    assert errors[0].startswith("costmodel prices: error: ")
    assert sorted(p.name for p in out.iterdir()) == ["keep.csv"] and (out / "keep.csv").read_text() == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out", broken.name])
    return errors[0]


def test_truncated_offer_names_file_and_byte(price_files_dir, tmp_path, capsys):
    broken = tmp_path / "p4d-truncated.json"
    broken.write_bytes((price_files_dir / P4D).read_bytes()[:4000])
    line = _fails(capsys, tmp_path, price_files_dir / OHIO, broken)
    assert "p4d-truncated.json: invalid JSON near byte 4000" in line


@pytest.mark.parametrize("old, new, words", [
    ('"USD": "32.7726000000"', '"USD": "32,7726"',
     ("terms.OnDemand.H7NGEAC6UEHNTKSJ.H7NGEAC6UEHNTKSJ.JRTCKXETXF.priceDimensions."
     "H7NGEAC6UEHNTKSJ.JRTCKXETXF.6YS6EN2CT7: pricePerUnit.USD '32,7726' is not a number")),
    # a broken price in a product that gives no row is still a broken file
    ('"USD": "0.0000000000"', '"USD": "n/a"', ("terms.OnDemand.YSXJGN78QTXNVGDQ.YSXJGN78QTXNVGDQ.JRTCKXETXF."
     "priceDimensions.YSXJGN78QTXNVGDQ.JRTCKXETXF.6YS6EN2CT7: pricePerUnit.USD 'n/a' is not a number")),
    ('"USD": "32.7726000000"', '"USD": "-32.7726"', ("terms.OnDemand.H7NGEAC6UEHNTKSJ.H7NGEAC6UEHNTKSJ.JRTCKXETXF."
     "priceDimensions.H7NGEAC6UEHNTKSJ.JRTCKXETXF.6YS6EN2CT7: pricePerUnit.USD '-32.7726' is negative")),
    ('"publicationDate": "2024-05-28T20:35:22Z"', '"published": "2024-05-28T20:35:22Z"',
     "byte 0: no publicationDate in the offer header"),
    ('"formatVersion": "v1.0",\n', "", ""),  # offerCode alone still identifies the offer: imports fine
    ('"formatVersion": "v1.0",\n  "disclaimer"', '"format": "v1.0",\n  "disclaimer"', ""),
])
def test_broken_offer_variants(price_files_dir, tmp_path, capsys, old, new, words):
    text = (price_files_dir / P4D).read_text()
    assert old in text
    broken = tmp_path / "p4d-broken.json"
    broken.write_text(text.replace(old, new, 1))
    if not words:
        (s,) = import_price_files([broken], tmp_path / "ok")
        assert s.rows == 1
        return
    assert f"p4d-broken.json: {words}" in _fails(capsys, tmp_path, price_files_dir / OHIO, broken)


def test_a_json_object_with_no_offer_keys_is_not_an_offer(price_files_dir, tmp_path, capsys):
    text = (price_files_dir / P4D).read_text().replace('"formatVersion"', '"fv"').replace('"offerCode"', '"oc"')
    broken = tmp_path / "p4d-header.json"
    broken.write_text(text)
    assert "p4d-header.json: byte 0: a JSON object without offerCode (AWS), skus (GCP) or Items (Azure)" in _fails(
        capsys, tmp_path, price_files_dir / OHIO, broken)
