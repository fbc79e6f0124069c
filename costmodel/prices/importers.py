"""Import the providers' own machine-readable price files into the catalog's CSV format, offline.

Formats (detected from the first bytes of each file):

- **AWS Price List bulk offer, JSON** (``AmazonEC2``, ``AmazonS3``, ``AWSDataTransfer``, whole or region files):
  streamed with ijson in two passes (``products``, then ``terms.OnDemand``); only the products that map to a
  catalog item are kept between the passes, so memory does not grow with the file (AmazonEC2 is several GB).
- **AWS Price List bulk offer, CSV**: five metadata lines (``FormatVersion`` ... ``OfferCode``), a header, one row
  per price dimension; read row by row.
- **GCP Cloud Billing Catalog SKU listing** (``services/<id>/skus`` pages: ``{"skus": [...], "nextPageToken"}``).
- **Azure Retail Prices API page** (``{"BillingCurrency", "Items": [...], "NextPageLink", "Count"}``).

Every row written carries ``source`` = the file's name (and the offer/service it holds) and ``as_of``: the
offer's ``publicationDate`` (AWS), the SKU's ``pricingInfo.effectiveTime`` (GCP) or the item's
``effectiveStartDate`` (Azure): the two latter formats carry no file-level date. Every record that gives no row
is counted under its reason (``FileSummary.skip_reasons``); every price in a file is checked to be a non-negative
number, also in records that give no row. Azure pages of one run are read together, so that a meter's tiers split
across pages are completed and kept in one output file. Rows are written to a temporary folder next to the
output and renamed at the end, so a broken input leaves nothing behind.
Raises :class:`PriceImportError` (exit 2) naming the file and the position (byte offset, key path or line).
"""
from __future__ import annotations

import csv
import datetime as dt
import io
import itertools
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from ..foundation.errors import PriceError
from ..foundation.util import dataclass_dict
from .catalog import ALL_COLUMNS

HEAD_BYTES = 65536

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


class PriceImportError(PriceError):
    """A price file that cannot be read: the message names the file and the position."""

    def __init__(self, message: str, *, path: str | None = None, key: str | None = None) -> None:
        super().__init__(message)
        self.file = path


@dataclass
class FileSummary:
    """What one input file gave: ``rows`` written, ``skipped`` records that are not catalog items (counted,
    never silently dropped), the detected ``format`` and ``as_of`` range."""

    path: str
    format: str
    output: str = ""
    rows: int = 0
    skipped: int = 0
    as_of_min: str | None = None
    as_of_max: str | None = None
    items: dict[str, int] = field(default_factory=dict)
    skip_reasons: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str = "not a catalog item", n: int = 1) -> None:
        """Count ``n`` records that give no catalog row, under ``reason`` (printed; never silently dropped)."""
        if n > 0:
            self.skipped += n
            self.skip_reasons[reason] = self.skip_reasons.get(reason, 0) + n

    def to_dict(self) -> dict[str, Any]:
        return dataclass_dict(self)


Row = dict[str, str]


# ----------------------------------------------------------------------------------------- helpers
def _decimal_text(text: Any) -> str:
    """A price or bound as a plain decimal string (no exponent, trailing zeros trimmed)."""
    d = Decimal(str(text))
    s = format(d.normalize(), "f")
    return s if s != "-0" else "0"


def _row(provider: str, item: str, src: str, dst: str, unit: str, usd: Any, source: str, as_of: str,
         notes: str = "", tier_start: Any = "", tier_end: Any = "") -> Row:
    return {
        "provider": provider, "item": item, "src_region": src, "dst_region": dst, "unit": unit, "usd": _decimal_text(usd),
        "source": source, "as_of": as_of, "verified": "yes", "notes": notes,
        "tier_start": "" if tier_start in ("", None) or Decimal(str(tier_start)) == 0 else _decimal_text(tier_start),
        "tier_end": "" if tier_end in ("", None, "Inf", "inf") else _decimal_text(tier_end),
    }


def _date(text: Any) -> str:
    """``YYYY-MM-DD`` from an ISO timestamp (``2023-03-22T14:56:51Z``); '' when absent."""
    m = re.match(r"\s*(\d{4}-\d{2}-\d{2})", str(text or ""))
    return m.group(1) if m else ""


def _norm(key: str) -> str:
    """Attribute names of the JSON and CSV offers in one key space: ``Instance Type`` == ``instanceType``."""
    return re.sub(r"[^a-z0-9]", "", key.lower())


class _CountingReader(io.RawIOBase):
    """A binary reader that remembers how many bytes were handed out (the parse position for errors)."""

    def __init__(self, fh: Any) -> None:
        self._fh = fh
        self.pos = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        data = self._fh.read(len(b))
        n = len(data)
        b[:n] = data
        self.pos += n
        return n


def _require_ijson() -> Any:
    try:
        import ijson  # imported where the JSON formats need it
    except ImportError:  # pragma: no cover - ijson is a core dependency
        raise PriceImportError("reading JSON price files needs ijson: pip install ijson") from None
    return ijson


def _stream(path: Path, fn: Callable[[Any, Any], Iterator[Any]]) -> Iterator[Any]:
    ijson = _require_ijson()
    with open(path, "rb") as raw:
        reader = _CountingReader(raw)
        buffered = io.BufferedReader(reader, buffer_size=1 << 16)
        try:
            yield from fn(ijson, buffered)
        except ijson.JSONError as exc:
            msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise PriceImportError(f"{path.name}: invalid JSON near byte {reader.pos}: {msg}", path=str(path)) from None


def detect_format(path: Path) -> str:
    """``aws-json``, ``aws-csv``, ``gcp-skus`` or ``azure-retail`` from the first bytes; PriceImportError else."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
    except OSError as exc:
        raise PriceImportError(f"{path}: cannot read: {exc.strerror or exc}", path=str(path)) from None
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if not text:
        raise PriceImportError(f"{path.name}: line 1: empty file; expected an AWS offer (JSON/CSV), a GCP SKU "
                               "listing or an Azure Retail Prices page", path=str(path))
    if text.startswith("{"):
        if re.search(r'"offerCode"\s*:', text) or re.search(r'"formatVersion"\s*:', text):
            return "aws-json"
        if re.search(r'"skus"\s*:', text):
            return "gcp-skus"
        if re.search(r'"Items"\s*:', text) or re.search(r'"BillingCurrency"\s*:', text):
            return "azure-retail"
        raise PriceImportError(f"{path.name}: byte 0: a JSON object without offerCode (AWS), skus (GCP) or Items "
                               "(Azure); not a provider price file", path=str(path))
    first = text.splitlines()[0]
    if first.replace('"', "").startswith(("FormatVersion", "SKU,OfferTermCode")):
        return "aws-csv"  # the latter: metadata lines cut off; import_aws_csv says the publication date is missing
    raise PriceImportError(f"{path.name}: line 1: {first[:60]!r} is not the start of an AWS offer CSV "
                           "(\"FormatVersion\",\"v1.0\") nor a JSON price file", path=str(path))


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


# --------------------------------------------------------------------------------------------- GCP
_GCP_UNITS = {"GiBy": "GiB", "GiBy.mo": "GiB-month", "h": "hour", "count": "1000 requests"}
#: the usageUnit each catalog item must have (anything else is skipped and counted)
_GCP_EXPECTED_UNIT = {"internet_egress": "GiBy", "inter_region": "GiBy", "inter_az": "GiBy", "gcs_standard": "GiBy.mo",
                      "object_put": "count", "object_get": "count", "gpu": "h"}


def _gcp_price(rate: dict[str, Any]) -> Decimal:
    up = rate.get("unitPrice") or {}
    return Decimal(str(up.get("units") or 0)) + Decimal(str(up.get("nanos") or 0)) / Decimal(10**9)


def _gcp_tiers(info: dict[str, Any], where: str) -> list[tuple[Decimal, Decimal]]:
    """(startUsageAmount, price in the listing's currency) of each tier of one ``pricingInfo``, sorted by start.
    Raises PriceImportError (``where``) for a price or bound that is not a number, or a negative price."""
    tiers = []
    rates = ((info.get("pricingExpression") or {}).get("tieredRates") or []) if isinstance(info, dict) else []
    for ti, t in enumerate(rates):
        try:
            start = Decimal(str(t.get("startUsageAmount") or 0))
            price = _gcp_price(t)
        except (InvalidOperation, TypeError, AttributeError):
            raise PriceImportError(f"{where}.tieredRates[{ti}]: unitPrice {t.get('unitPrice') if isinstance(t, dict) else t!r}"
                                   " or startUsageAmount is not a number") from None
        if not (start.is_finite() and price.is_finite()) or price < 0:
            raise PriceImportError(f"{where}.tieredRates[{ti}]: unitPrice {t.get('unitPrice')!r} is not a price")
        tiers.append((start, price))
    return sorted(tiers)


def _gcp_classify(sku: dict[str, Any]) -> tuple[str, str] | None:
    cat = sku.get("category") or {}
    fam, group, usage = cat.get("resourceFamily", ""), cat.get("resourceGroup", ""), cat.get("usageType", "")
    desc = str(sku.get("description", ""))
    svc = cat.get("serviceDisplayName", "")
    if usage != "OnDemand":
        return None
    if fam == "Network":
        if group in ("PremiumInternetEgress", "StandardInternetEgress") or "Internet Egress" in desc:
            return "internet_egress", "internet"
        if group in ("InterregionEgress", "InterRegionEgress") or "Inter Region" in desc:
            m = re.search(r"\bto (.+)$", desc)
            return "inter_region", re.sub(r"[^a-z0-9]+", "-", m.group(1).lower()).strip("-") if m else "*"
        if group in ("InterzoneEgress", "IntrazoneEgress") or "Inter Zone" in desc:
            return "inter_az", ""
        return None
    if svc == "Cloud Storage" and "Class A" in desc:
        return "object_put", ""
    if svc == "Cloud Storage" and "Class B" in desc:
        return "object_get", ""
    if svc == "Cloud Storage" and fam == "Storage" and desc.startswith("Standard Storage"):
        return "gcs_standard", ""
    if fam == "Compute" and group == "GPU":
        slug = re.sub(r"[^a-z0-9]+", "-", desc.lower().split(" running in ")[0].replace(" gpu", "")).strip("-")
        return f"gpu:{slug}", ""
    return None


def import_gcp_skus(path: Path, summary: FileSummary) -> Iterator[Row]:
    """Rows from a GCP Cloud Billing Catalog SKU listing page (``{"skus": [...]}``), streamed per SKU."""
    n = 0
    for sku in _stream(path, lambda ij, f: ij.items(f, "skus.item")):
        n += 1
        where = f"{path.name}: skus[{n - 1}]"
        if not isinstance(sku, dict) or "skuId" not in sku:
            raise PriceImportError(f"{where}: expected a SKU object with skuId", path=str(path))
        infos = sku.get("pricingInfo") or []
        try:
            checked = [_gcp_tiers(info, f"{where}.pricingInfo[{i}].pricingExpression") for i, info in enumerate(infos)]
        except PriceImportError as exc:  # a broken price is a broken file, even in a SKU that gives no row
            raise PriceImportError(str(exc), path=str(path)) from None
        hit = _gcp_classify(sku)
        if not hit or not infos:
            cat = sku.get("category") or {}
            summary.skip(f"not a catalog item ({cat.get('resourceFamily', '?')}/{cat.get('resourceGroup', '?')}, "
                         f"{cat.get('usageType', '?')})" if not hit else "no pricingInfo")
            continue
        item, dst = hit
        info = infos[-1]
        expr = info.get("pricingExpression") or {}
        unit_in = str(expr.get("usageUnit", ""))
        if _GCP_EXPECTED_UNIT.get(item.split(":")[0], unit_in) != unit_in or unit_in not in _GCP_UNITS:
            # e.g. a storage SKU priced per request: not what the item means
            summary.skip(f"{item}: usageUnit {unit_in!r}, expected {_GCP_EXPECTED_UNIT.get(item.split(':')[0])!r}")
            continue
        unit = "gpu-hour" if item.startswith("gpu:") else _GCP_UNITS[unit_in]
        as_of = _date(info.get("effectiveTime") or info.get("EffectiveTime"))
        if not as_of:
            raise PriceImportError(f"{where}: pricingInfo has no effectiveTime; as_of would be unknown",
                                   path=str(path))
        try:
            rate = Decimal(str(info.get("currencyConversionRate", 1) or 1))
        except InvalidOperation:
            rate = Decimal("NaN")
        if not rate.is_finite() or rate <= 0:
            raise PriceImportError(f"{where}: currencyConversionRate {info.get('currencyConversionRate')!r} is not a "
                                   "positive number", path=str(path))
        currency = ((expr.get("tieredRates") or [{}])[0].get("unitPrice") or {}).get("currencyCode", "USD")
        note_cur = "" if currency == "USD" else f"; converted from {currency} at {rate} per USD"
        source = f"{path.name} (GCP Cloud Billing Catalog SKU {sku['skuId']} '{sku.get('description', '')}')"
        tiers = checked[-1]
        if not tiers:
            summary.skip("no tieredRates")
            continue
        regions = sku.get("serviceRegions") or ["global"]
        for ti, (start, price) in enumerate(tiers):
            usd = price / rate
            if rate != 1:  # a converted price: 10 significant digits, not the division's 28
                usd = Decimal(f"{usd:.10g}")
            if unit == "1000 requests":
                usd = usd * 1000
            end = tiers[ti + 1][0] if ti + 1 < len(tiers) else ""
            for region in regions:
                yield _row("gcp", item, region, dst, unit, usd, source, as_of,
                           f"usageUnit {unit_in}{note_cur}", start, end)


# ------------------------------------------------------------------------------------------- Azure
def _azure_unit(text: str) -> tuple[Decimal, str]:
    """(quantity, unit) of an ``unitOfMeasure``: ``1 Hour``, ``1/Hour``, ``1 GB/Month``, ``1/Month``, ``10K``,
    ``100 Hours`` -> (1, Hour), (1, Hour), (1, GB/Month), (1, Month), (10000, ''), (100, Hours)."""
    m = re.match(r"\s*([\d.]+)\s*([KM]?)\s*/?\s*(.*)$", text or "")
    if not m:
        return Decimal(1), (text or "").strip()
    q = Decimal(m.group(1)) * {"": 1, "K": 1000, "M": 1_000_000}[m.group(2)]
    return q, m.group(3).strip()


AzureHit = tuple[str, str, str, Decimal]


def _azure_classify(it: dict[str, Any]) -> AzureHit | str:
    """(item, dst, unit, quantity the price is for) or the reason the item is no catalog row."""
    if it.get("type") != "Consumption":
        return f"type {it.get('type') or '(none)'} (not pay-as-you-go)"
    svc, prod = str(it.get("serviceName", "")), str(it.get("productName", ""))
    meter, sku = str(it.get("meterName", "")), str(it.get("skuName", ""))
    qty, unit = _azure_unit(str(it.get("unitOfMeasure", "")))
    if svc == "Virtual Machines":
        if "Windows" in prod:
            return "Virtual Machines: Windows"
        if "Spot" in sku or "Low Priority" in sku or "Spot" in meter or "Low Priority" in meter:
            return "Virtual Machines: Spot / Low Priority"
        if unit.lower() not in ("hour", "hours") or not it.get("armSkuName"):
            return f"Virtual Machines: unitOfMeasure {it.get('unitOfMeasure')!r} or no armSkuName"
        return str(it["armSkuName"]), "", "instance-hour", qty
    if svc == "Bandwidth" and unit == "GB":
        if "Data Transfer Out" in meter and "Inter" not in meter and "Intra" not in meter:
            return "internet_egress", "internet", "GB", qty
        if "Intra Continent" in meter:
            return "inter_region", "same-continent", "GB", qty
        if "Inter Continent" in meter or "Inter-Region" in meter or "Inter Region" in meter:
            return "inter_region", "other-continent", "GB", qty
        return f"Bandwidth: meter {meter!r}"
    if svc == "Storage" and "Block Blob" in prod and sku == "Hot LRS":
        if meter == "Hot LRS Data Stored" and unit == "GB/Month":
            return "blob_hot", "", "GB-month", qty
        if meter in ("Hot Read Operations", "Hot LRS Read Operations") and unit == "":
            return "object_get", "", "1000 requests", qty / 1000
        if meter in ("Hot Write Operations", "Hot LRS Write Operations") and unit == "":
            return "object_put", "", "1000 requests", qty / 1000
    return f"not a catalog item ({svc or 'no serviceName'})"


def import_azure_retail(path: Path, summary: FileSummary) -> Iterator[Row]:
    """Rows from one Azure Retail Prices API page (``{"Items": [...], "NextPageLink": ...}``), streamed per item.
    Every item's ``retailPrice`` is checked to be a number, also those that give no row."""
    n = 0
    for it in _stream(path, lambda ij, f: ij.items(f, "Items.item")):
        n += 1
        where = f"{path.name}: Items[{n - 1}]"
        if not isinstance(it, dict):
            raise PriceImportError(f"{where}: expected an object", path=str(path))
        try:
            price = _aws_number(it.get("retailPrice"), where, "retailPrice")
        except PriceImportError as exc:
            raise PriceImportError(str(exc), path=str(path)) from None
        hit = _azure_classify(it)
        if not isinstance(hit, tuple):
            summary.skip(hit)
            continue
        item, dst, unit, qty = hit
        if it.get("currencyCode", "USD") != "USD":
            raise PriceImportError(f"{where}: currencyCode {it.get('currencyCode')!r}; download the page with "
                                   "currencyCode='USD'", path=str(path))
        if qty <= 0:
            raise PriceImportError(f"{where}: unitOfMeasure {it.get('unitOfMeasure')!r} has no positive quantity",
                                   path=str(path))
        usd = price / qty
        as_of = _date(it.get("effectiveStartDate"))
        if not as_of:
            raise PriceImportError(f"{where}: no effectiveStartDate; as_of would be unknown", path=str(path))
        source = f"{path.name} (Azure Retail Prices meter {it.get('meterId', '?')} '{it.get('meterName', '')}')"
        yield _row("azure", item, str(it.get("armRegionName", "")), dst, unit, usd, source, as_of,
                   f"{it.get('productName', '')} / {it.get('skuName', '')}; unitOfMeasure {it.get('unitOfMeasure')}",
                   it.get("tierMinimumUnits") or 0, "")


IMPORTERS: dict[str, Callable[[Path, FileSummary], Iterator[Row]]] = {
    "aws-json": import_aws_json,
    "aws-csv": import_aws_csv,
    "gcp-skus": import_gcp_skus,
    "azure-retail": import_azure_retail,
}


def _azure_tiers(pages: list[list[Row]]) -> list[list[Row]]:
    """Azure gives only tier minimums: a tier ends where the next tier of the same meter starts. ``pages`` are the
    rows of every Azure page of one import run, since the API's paging can split one meter's tiers across two page
    files; such a meter's tiers all go to the page of its first tier (a catalog folder keeps a tier set in one
    file). Returns the rows per page, in their order."""
    groups: dict[tuple[str, ...], list[tuple[int, int, Row]]] = {}
    for p, rows in enumerate(pages):
        for i, r in enumerate(rows):
            meter = re.search(r" meter (\S+) '", r["source"])
            groups.setdefault((r["item"], r["src_region"], r["dst_region"], meter.group(1) if meter else "",
                               r["notes"]), []).append((p, i, r))
    placed: list[list[tuple[int, int, Row]]] = [[] for _ in pages]
    for g in groups.values():
        g.sort(key=lambda t: Decimal(t[2]["tier_start"] or 0))
        for (_, _, a), (_, _, b) in itertools.pairwise(g):
            a["tier_end"] = b["tier_start"]
        home, first = g[0][0], g[0][1]
        for k, (_, _, r) in enumerate(g):  # a meter's tiers stay together, where its first tier was
            placed[home].append((first, k, r))
    return [[r for _, _, r in sorted(rows, key=lambda t: (t[0], t[1]))] for rows in placed]


def _write(target: Path, rows: Iterable[Row], summary: FileSummary) -> None:
    with open(target, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(ALL_COLUMNS), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(r)
            summary.rows += 1
            summary.items[r["item"]] = summary.items.get(r["item"], 0) + 1
            if r["as_of"]:
                summary.as_of_min = min(summary.as_of_min or r["as_of"], r["as_of"])
                summary.as_of_max = max(summary.as_of_max or r["as_of"], r["as_of"])


# ------------------------------------------------------------------------------------------ driver
def import_price_files(paths: Iterable[str | os.PathLike[str]], out_dir: str | os.PathLike[str],
                       *, progress: Callable[[str], None] | None = None) -> list[FileSummary]:
    """Import ``paths`` into ``out_dir/<file stem>.csv`` (one CSV per input, catalog columns).

    Everything is written to a temporary folder beside ``out_dir`` and moved into place only when every input
    was read; on any error nothing is left behind. Existing CSVs of the same names in ``out_dir`` are replaced,
    other files there are kept. Raises PriceImportError (file and position) for a broken or unknown input.
    """
    files = [Path(p) for p in paths]
    if not files:
        raise PriceImportError("no price files given")
    for f in files:
        if not f.is_file():
            raise PriceImportError(f"{f}: no such file", path=str(f))
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise PriceImportError(f"{out}: exists and is not a folder", path=str(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.importing-", dir=out.parent))
    summaries: list[FileSummary] = []
    try:
        used: set[str] = set()
        azure: list[tuple[FileSummary, list[Row]]] = []
        for f in files:
            fmt = detect_format(f)
            stem = re.sub(r"[^A-Za-z0-9._-]+", "_", f.name.split(".")[0]) or "prices"
            name = stem
            i = 2
            while name in used:
                name, i = f"{stem}_{i}", i + 1
            used.add(name)
            summary = FileSummary(path=str(f), format=fmt, output=f"{name}.csv")
            if progress:
                progress(f"reading {f} ({fmt})")
            summaries.append(summary)
            if fmt == "azure-retail":  # pages are small (1,000 items); tiers are completed across pages below
                azure.append((summary, list(IMPORTERS[fmt](f, summary))))
            else:
                _write(tmp / summary.output, IMPORTERS[fmt](f, summary), summary)
        for (summary, _), rows in zip(azure, _azure_tiers([rows for _, rows in azure]), strict=True):
            _write(tmp / summary.output, rows, summary)
        out.mkdir(parents=True, exist_ok=True)
        for s in summaries:
            os.replace(tmp / s.output, out / s.output)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(tmp, ignore_errors=True)
    return summaries


def today_iso() -> str:  # pragma: no cover - trivial
    return dt.date.today().isoformat()
