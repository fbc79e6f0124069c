"""AWS Price List bulk offers (JSON, streamed in two passes; CSV, row by row) -> catalog rows (see
:mod:`.importers` for the formats and what every row carries)."""
from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from .import_common import (
    HEAD_BYTES,
    FileSummary,
    PriceImportError,
    Row,
    _date,
    _norm,
    _row,
    _stream,
)

#: AWS location names (older offer files have no regionCode) -> region codes
AWS_LOCATIONS = {
    "US East (N. Virginia)": "us-east-1", "US East (Ohio)": "us-east-2", "US West (N. California)": "us-west-1",
    "US West (Oregon)": "us-west-2", "Canada (Central)": "ca-central-1", "EU (Ireland)": "eu-west-1",
    "EU (London)": "eu-west-2", "EU (Paris)": "eu-west-3", "EU (Frankfurt)": "eu-central-1",
    "EU (Stockholm)": "eu-north-1", "Europe (Ireland)": "eu-west-1", "Europe (London)": "eu-west-2",
    "Europe (Frankfurt)": "eu-central-1", "Europe (Stockholm)": "eu-north-1", "Asia Pacific (Tokyo)": "ap-northeast-1",
    "Asia Pacific (Seoul)": "ap-northeast-2", "Asia Pacific (Singapore)": "ap-southeast-1",
    "Asia Pacific (Sydney)": "ap-southeast-2", "Asia Pacific (Mumbai)": "ap-south-1",
    "South America (Sao Paulo)": "sa-east-1", "AWS GovCloud (US)": "us-gov-west-1",
    "AWS GovCloud (US-West)": "us-gov-west-1", "AWS GovCloud (US-East)": "us-gov-east-1",
}



# --------------------------------------------------------------------------------------------- AWS
def _aws_region(attrs: dict[str, str], code_key: str = "regioncode", loc_key: str = "location") -> str:
    code = attrs.get(code_key, "")
    if code:
        return code
    loc = attrs.get(loc_key, "")
    return AWS_LOCATIONS.get(loc, loc)


AwsHit = tuple[str, str, str, str]


def _aws_classify(attrs: dict[str, str]) -> AwsHit | str:
    """(item, src, dst, unit kind) for an AWS product's normalised attributes, or the reason it is no catalog item."""
    fam = attrs.get("productfamily", "")
    usage = attrs.get("usagetype", "")
    if fam.startswith("Compute Instance"):  # also "Compute Instance (bare metal)"
        itype = attrs.get("instancetype", "")
        gpu = attrs.get("gpu", "")
        is_gpu = (gpu not in ("", "NA", "0")) or itype.split(".")[0].startswith(("p4", "p5", "p6", "p3"))
        if not is_gpu:
            return "instance without GPU"
        market = attrs.get("marketoption", "OnDemand") or "OnDemand"
        if market == "CapacityBlock":
            # the bulk offer lists Capacity Blocks at 0.00 per hour; their price is published elsewhere
            return "GPU instance: Capacity Block (listed at 0.00 in the offer)"
        if (attrs.get("operatingsystem") == "Linux" and attrs.get("tenancy") == "Shared"
                and attrs.get("preinstalledsw", "NA") in ("NA", "")
                and attrs.get("licensemodel") in ("No License required", "")
                and attrs.get("capacitystatus", "Used") in ("Used", "") and "BoxUsage" in usage
                and market == "OnDemand"):
            return itype, _aws_region(attrs), "", "instance-hour"
        return "GPU instance: not on-demand Linux, shared tenancy, no pre-installed software"
    if fam == "ML Instance":  # AmazonSageMaker offer (SageMaker / HyperPod ml.* instances)
        name = attrs.get("instancename", "") or attrs.get("instancetype", "")
        comp = attrs.get("component", "")
        if "UpfrontFee" in usage:
            return "SageMaker: an upfront fee (training plan), not an hourly rate"
        if comp == "Training" and name.startswith("ml."):
            return name, _aws_region(attrs), "", "instance-hour"
        return f"SageMaker: component {comp or '(none)'} (only Training rates are catalog items)"
    if fam == "NAT Gateway" and "NatGateway-Bytes" in usage:
        return "nat_gateway_processing", _aws_region(attrs), "", "GB"
    if "TransitGateway-Bytes" in usage:
        return "transit_gateway_processing", _aws_region(attrs), "", "GB"
    if fam in ("VpcEndpoint", "VPC Endpoint") and "VpcEndpoint-Bytes" in usage:
        return "privatelink_processing", _aws_region(attrs), "", "GB"
    if fam == "Data Transfer":
        ttype = attrs.get("transfertype", "")
        src = _aws_region(attrs, "fromregioncode", "fromlocation")
        dst = _aws_region(attrs, "toregioncode", "tolocation")
        if ttype == "InterRegion Outbound":
            return "inter_region", src, dst, "GB"
        if ttype == "IntraRegion":
            return "inter_az", src, "", "GB"
        if ttype == "AWS Outbound" and attrs.get("tolocation") == "External":
            return "internet_egress", src, "internet", "GB"
        return f"Data Transfer: transferType {ttype or '(none)'}"
    if fam == "Storage":
        if attrs.get("volumeapiname") == "gp3" and "VolumeUsage" in usage:
            return "ebs_gp3", _aws_region(attrs), "", "GB-month"
        if attrs.get("volumetype") == "Standard" and attrs.get("storageclass") == "General Purpose":
            # S3 bills storage per 2**30 bytes (the S3 FAQ's "1 GB / 1,073,741,824 bytes"), though the offer says GB-Mo
            return "s3_standard", _aws_region(attrs), "", "GiB-month"
        return "Storage: not EBS gp3 nor S3 Standard"
    if fam == "API Request":
        group = attrs.get("group", "")
        if group == "S3-API-Tier1":
            return "object_put", _aws_region(attrs), "", "1000 requests"
        if group == "S3-API-Tier2":
            return "object_get", _aws_region(attrs), "", "1000 requests"
        return f"API Request: group {group or '(none)'}"
    if "S3RTC" in usage or "RTC-" in usage:
        return "replication_rtc", _aws_region(attrs), "*", "GB"
    if "BatchOperations-Jobs" in usage:
        return "batch_operations_job", _aws_region(attrs), "", "job"
    if "BatchOperations-Objects" in usage:
        return "batch_replication_objects", _aws_region(attrs), "", "1M objects"
    return f"not a catalog item ({fam or 'no productFamily'})"


#: the units AWS lists per catalog unit kind (lower case): a price in any other unit is not the item's price
_AWS_UNITS = {"instance-hour": ("hrs", "hr", "hours", "hour"), "GB": ("gb",), "GB-month": ("gb-mo", "gb-month"),
              "GiB-month": ("gb-mo", "gb-month"),
              "1000 requests": ("requests", "request"), "job": ("jobs", "job"), "1M objects": ("objects", "object")}


def _aws_scale(kind: str, unit: str, usd: Decimal) -> Decimal:
    """Price per the catalog unit: AWS lists requests and objects per 1, the catalog per 1000 / 1M."""
    if kind == "1000 requests" and unit.lower() in ("requests", "request"):
        return usd * 1000
    if kind == "1M objects" and unit.lower() in ("objects", "object"):
        return usd * 1_000_000
    return usd


def _aws_price(price_per_unit: Any, where: str, field_name: str) -> tuple[Decimal | None, str]:
    """(USD price, '') or (None, currency) when the dimension is priced in another currency only (China regions
    bill in CNY). Raises PriceImportError (``where``) for a price that is missing, not a number or negative."""
    if not isinstance(price_per_unit, dict) or not price_per_unit:
        raise PriceImportError(f"{where}: {field_name} {price_per_unit!r}: expected {{\"USD\": \"<number>\"}}")
    if "USD" not in price_per_unit:
        other = min(price_per_unit)
        _aws_number(price_per_unit[other], where, f"{field_name}.{other}")
        return None, str(other)
    return _aws_number(price_per_unit["USD"], where, f"{field_name}.USD"), ""


def _aws_number(text: Any, where: str, field_name: str) -> Decimal:
    try:
        value = Decimal(str(text).strip())
    except (InvalidOperation, TypeError):
        value = Decimal("NaN")
    if not value.is_finite() or str(text).strip() == "":
        raise PriceImportError(f"{where}: {field_name} {text!r} is not a number")
    if value < 0:
        raise PriceImportError(f"{where}: {field_name} {text!r} is negative")
    return value


def _aws_rows(item: AwsHit, dims: Iterable[dict[str, Any]], source: str, as_of: str, where: str,
              summary: FileSummary, field_name: str = "pricePerUnit") -> Iterator[Row]:
    name, src, dst, kind = item
    for d in dims:
        usd, currency = _aws_price(d.get("pricePerUnit"), where, field_name)
        if usd is None:
            summary.skip(f"priced in {currency} only (no USD price)")
            continue
        unit = str(d.get("unit", ""))
        if unit.lower() not in _AWS_UNITS[kind]:
            summary.skip(f"{name}: unit {unit!r}, expected {kind}")
            continue
        usd = _aws_scale(kind, unit, usd)
        yield _row("aws", name, src, dst, kind, usd, source, as_of, str(d.get("description", ""))[:120],
                   d.get("beginRange", ""), d.get("endRange", ""))


def import_aws_json(path: Path, summary: FileSummary) -> Iterator[Row]:
    """Rows from an AWS bulk offer JSON, streamed (see module docstring). Every OnDemand price is checked to be a
    number, also those of products that give no row."""
    with open(path, "rb") as fh:
        head = fh.read(HEAD_BYTES).decode("utf-8", errors="replace")
    pub = re.search(r'"publicationDate"\s*:\s*"([^"]+)"', head)
    offer = re.search(r'"offerCode"\s*:\s*"([^"]+)"', head)
    if not pub:
        raise PriceImportError(f"{path.name}: byte 0: no publicationDate in the offer header; as_of would be unknown",
                               path=str(path))
    as_of = _date(pub.group(1))
    if not as_of:
        raise PriceImportError(f"{path.name}: publicationDate {pub.group(1)!r} is not a date", path=str(path))
    source = f"{path.name} (AWS Price List offer {offer.group(1) if offer else '?'}, publicationDate {pub.group(1)})"
    wanted: dict[str, AwsHit] = {}
    n_products = 0
    for sku, prod in _stream(path, lambda ij, f: ij.kvitems(f, "products")):
        n_products += 1
        if not isinstance(prod, dict):
            raise PriceImportError(f"{path.name}: products.{sku}: expected an object", path=str(path))
        attrs = {_norm(k): str(v) for k, v in (prod.get("attributes") or {}).items()}
        attrs["productfamily"] = str(prod.get("productFamily", ""))
        hit = _aws_classify(attrs)
        if isinstance(hit, tuple):
            wanted[sku] = hit
        else:
            summary.skip(hit)
    if n_products == 0:
        raise PriceImportError(f"{path.name}: no products in the offer (an index file? download the offer's "
                               "currentVersionUrl or a region file)", path=str(path))
    priced: set[str] = set()
    for sku, terms in _stream(path, lambda ij, f: ij.kvitems(f, "terms.OnDemand")):
        where = f"{path.name}: terms.OnDemand.{sku}"
        if not isinstance(terms, dict):
            raise PriceImportError(f"{where}: expected an object", path=str(path))
        for code, term in terms.items():
            dims = ((term or {}).get("priceDimensions") or {}) if isinstance(term, dict) else {}
            for rate, d in dims.items():
                if sku not in wanted:  # not a catalog item, but a broken price is still a broken file
                    _aws_price((d or {}).get("pricePerUnit"), f"{where}.{code}.priceDimensions.{rate}", "pricePerUnit")
                    continue
                try:
                    yield from _aws_rows(wanted[sku], [d], source, as_of,
                                         f"{where}.{code}.priceDimensions.{rate}", summary)
                except PriceImportError as exc:
                    raise PriceImportError(str(exc), path=str(path)) from None
        if sku in wanted:
            priced.add(sku)
    summary.skip("no OnDemand price in terms", len(set(wanted) - priced))


_AWS_CSV_META = ("FormatVersion", "Disclaimer", "Publication Date", "Version", "OfferCode")


def import_aws_csv(path: Path, summary: FileSummary) -> Iterator[Row]:
    """Rows from an AWS bulk offer CSV, read row by row. Every row's PricePerUnit is checked to be a number."""
    with open(path, newline="", encoding="utf-8-sig") as fh:
        meta: dict[str, str] = {}
        reader = csv.reader(fh)
        lineno = 0
        header: list[str] | None = None
        for rec in reader:
            lineno = reader.line_num
            if len(rec) == 2 and header is None and rec[0] in _AWS_CSV_META:
                meta[rec[0]] = rec[1]
                continue
            header = rec
            break
        if header is None or "SKU" not in header or "PricePerUnit" not in header or "TermType" not in header:
            raise PriceImportError(f"{path.name}:{lineno}: expected the offer's header row (SKU, OfferTermCode, "
                                   "RateCode, TermType, ..., PricePerUnit, Currency, ...) after the five lines "
                                   f"{', '.join(_AWS_CSV_META)}", path=str(path))
        if "Publication Date" not in meta:
            raise PriceImportError(f"{path.name}:{lineno}: no 'Publication Date' line before the header; as_of "
                                   "would be unknown", path=str(path))
        as_of = _date(meta["Publication Date"])
        if not as_of:
            raise PriceImportError(f"{path.name}:{lineno - 1}: Publication Date {meta['Publication Date']!r} is not "
                                   "a date", path=str(path))
        source = (f"{path.name} (AWS Price List offer {meta.get('OfferCode', '?')}, "
                  f"publicationDate {meta['Publication Date']})")
        cols = [_norm(h) for h in header]
        width = len(header)
        for rec in reader:
            lineno = reader.line_num
            if len(rec) != width:
                raise PriceImportError(f"{path.name}:{lineno}: {len(rec)} fields, expected {width} like the header",
                                       path=str(path))
            attrs = dict(zip(cols, rec, strict=False))
            where = f"{path.name}:{lineno}"
            price = {attrs.get("currency") or "USD": attrs.get("priceperunit", "")}
            _aws_price(price, where, "PricePerUnit")  # raises for a broken price, on every row
            if attrs.get("termtype") != "OnDemand":
                summary.skip(f"TermType {attrs.get('termtype') or '(none)'}")
                continue
            hit = _aws_classify(attrs)
            if not isinstance(hit, tuple):
                summary.skip(hit)
                continue
            dim = {"pricePerUnit": price, "unit": attrs.get("unit", ""),
                   "description": attrs.get("pricedescription", ""), "beginRange": attrs.get("startingrange", ""),
                   "endRange": attrs.get("endingrange", "")}
            try:
                yield from _aws_rows(hit, [dim], source, as_of, where, summary, "PricePerUnit")
            except PriceImportError as exc:
                raise PriceImportError(str(exc), path=str(path)) from None
