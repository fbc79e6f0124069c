"""`costmodel prices import` on a REAL AWS Price List bulk offer CSV (AmazonEC2, publication 2025-09-12, 91 columns,
unquoted empty fields, Reserved and "Upfront Fee" rows; tests/data/prices/SOURCES.md) and broken variants of it."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from costmodel.cli import main
from costmodel.prices.catalog import load_prices
from costmodel.prices.importers import import_price_files

REAL = "aws-ec2-global-2025-09-12-ec2-priceit.csv"
REBUILT = "aws-ec2-us-east-2-excerpt_rebuilt.csv"  # no real CSV with catalog rows was found: see SOURCES.md


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_real_csv_every_record_is_counted_with_its_reason(price_files_dir, tmp_path):
    (s,) = import_price_files([price_files_dir / REAL], tmp_path)
    # 44 price records: none is an on-demand Linux shared-tenancy GPU hour, EBS gp3, transfer or NAT price
    assert (s.format, s.rows, s.skipped) == ("aws-csv", 0, 44)
    assert s.skip_reasons == {
        "TermType Reserved": 30,  # hourly and "Upfront Fee" (unit Quantity) reserved prices
        "instance without GPU": 13,  # c5d, c6i, r7i, ... including 2 "Compute Instance (bare metal)" rows
        # g5.48xlarge in ap-southeast-2: SUSE, dedicated, an unused capacity reservation
        "GPU instance: not on-demand Linux, shared tenancy, no pre-installed software": 1,
    }
    assert _rows(tmp_path / "aws-ec2-global-2025-09-12-ec2-priceit.csv") == []


def test_real_csv_row_made_a_catalog_item_reads_the_91_column_layout(price_files_dir, tmp_path):
    """The real g5.48xlarge row with only its OS, tenancy, usage type and capacity status changed to those of an
    on-demand Linux shared instance: everything else (region code column, unit Hrs, price, publication date) is
    the file's own."""
    text = (price_files_dir / REAL).read_text()
    lines = text.split("\n")
    (i,) = [n for n, line in enumerate(lines) if line.startswith('"2224ZGY5JW89DTH5","JRTCKXETXF"')]
    row = next(csv.reader([lines[i]]))
    header = next(csv.reader([lines[5]]))
    col = {name: n for n, name in enumerate(header)}
    assert len(header) == len(row) == 91
    row[col["Operating System"]], row[col["Tenancy"]] = "Linux", "Shared"
    row[col["usageType"]], row[col["CapacityStatus"]] = "APS2-BoxUsage:g5.48xlarge", "Used"
    out = Path(tmp_path / "edited.csv")
    with open(out, "w", newline="") as fh:
        fh.write("\n".join(lines[:6]) + "\n")
        csv.writer(fh, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(row)
    (_s,) = import_price_files([out], tmp_path / "cat")
    (r,) = _rows(tmp_path / "cat" / "edited.csv")
    assert (r["item"], r["src_region"], r["unit"], r["usd"], r["as_of"]) == (
        "g5.48xlarge", "ap-southeast-2", "instance-hour", "21.30264", "2025-09-12")
    assert r["source"] == "edited.csv (AWS Price List offer AmazonEC2, publicationDate 2025-09-12T22:53:08Z)"
    assert load_prices(tmp_path / "cat").lookup("aws", "g5.48xlarge", "ap-southeast-2").usd == 21.30264


def test_rebuilt_csv_rows_equal_the_real_json_offer_rows(price_files_dir, tmp_path):
    """The rebuilt CSV holds the SKUs of the real us-east-2 JSON excerpt: the two layouts give the same rows."""
    import_price_files([price_files_dir / REBUILT, price_files_dir / "aws-ec2-us-east-2-excerpt.json"], tmp_path)
    key = ("item", "src_region", "unit", "usd", "as_of")
    a = [tuple(r[k] for k in key) for r in _rows(tmp_path / "aws-ec2-us-east-2-excerpt_rebuilt.csv")]
    b = [tuple(r[k] for k in key) for r in _rows(tmp_path / "aws-ec2-us-east-2-excerpt.csv")]
    assert a == b == [("ebs_gp3", "us-east-2", "GB-month", "0.08", "2023-03-22")]


def _fails(capsys, tmp_path: Path, good: Path, broken: Path) -> str:
    out = tmp_path / "out"
    rc = main(["prices", "import", str(good), str(broken), "-o", str(out)])
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error" in line]
    assert rc == 2 and len(errors) == 1 and "Traceback" not in err
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [broken.name]  # no temporary folder left
    return errors[0].removeprefix("costmodel prices: error: ")


def _variant(price_files_dir: Path, tmp_path: Path, edit) -> Path:
    lines = (price_files_dir / REAL).read_text().split("\n")
    broken = tmp_path / "ec2-broken.csv"
    broken.write_text("\n".join(edit(lines)))
    return broken


@pytest.mark.parametrize("edit, message", [
    # cut in the middle of the 20th data row (line 26)
    (lambda ls: [*ls[:25], ls[25][:300]], "ec2-broken.csv:26: 24 fields, expected 91 like the header"),
    # the header row replaced by a row of the Savings Plans file layout: no PricePerUnit, no TermType
    (lambda ls: [*ls[:5], "SKU,RateCode,Unit,EffectiveDate,DiscountedRate,Currency", *ls[6:]],
     ("ec2-broken.csv:6: expected the offer's header row (SKU, OfferTermCode, RateCode, TermType, ..., "
     "PricePerUnit, Currency, ...) after the five lines FormatVersion, Disclaimer, Publication Date, Version, "
     "OfferCode")),
    # the metadata cut off (as some tools 'behead' the file): the publication date is gone
    (lambda ls: ls[5:], "ec2-broken.csv:1: no 'Publication Date' line before the header; as_of would be unknown"),
    (lambda ls: [*ls[:2], '"Publication Date","last week"', *ls[3:]],
     "ec2-broken.csv:5: Publication Date 'last week' is not a date"),
    # a non-numeric price on line 7, a Reserved row that gives no catalog row: still a broken file
    (lambda ls: [*ls[:6], ls[6].replace('"0.1046300000"', '"0.10463 USD"'), *ls[7:]],
     "ec2-broken.csv:7: PricePerUnit.USD '0.10463 USD' is not a number"),
])
def test_broken_csv_variants_exit_2_with_file_and_line(price_files_dir, tmp_path, capsys, edit, message):
    broken = _variant(price_files_dir, tmp_path, edit)
    assert _fails(capsys, tmp_path, price_files_dir / "aws-ec2-us-east-1-p4d-opencost.json", broken) == message
