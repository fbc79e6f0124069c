"""Azure Retail Prices API pages -> catalog rows, and the tiers of one meter completed across the pages of
one run (see :mod:`.importers`)."""
from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

from .import_aws import _aws_number
from .import_common import (
    FileSummary,
    PriceImportError,
    Row,
    _date,
    _row,
    _stream,
)


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
    billing = next(iter(_stream(path, lambda ij, f: ij.items(f, "BillingCurrency"))), None)
    if billing is not None and billing != "USD":
        raise PriceImportError(f"{path.name}: BillingCurrency {billing!r}; the catalog is USD: download the page with "
                               "currencyCode='USD'", path=str(path))
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
        code = it.get("currencyCode", billing)
        if code != "USD":
            what = "no currencyCode and no page BillingCurrency (the catalog is USD)" if code is None else \
                f"currencyCode {code!r}"
            raise PriceImportError(f"{where}: {what}; download the page with currencyCode='USD'", path=str(path))
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
