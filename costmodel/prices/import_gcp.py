"""GCP Cloud Billing Catalog SKU listings (``services/<id>/skus`` pages) -> catalog rows (see :mod:`.importers`)."""
from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from .import_common import (
    FileSummary,
    PriceImportError,
    Row,
    _date,
    _row,
    _stream,
)

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
        currency = ((expr.get("tieredRates") or [{}])[0].get("unitPrice") or {}).get("currencyCode", "USD")
        raw_rate = info.get("currencyConversionRate")
        if raw_rate is None and currency != "USD":
            raise PriceImportError(f"{where}: prices in {currency!r} without a currencyConversionRate; the catalog is "
                                   "USD and the rate cannot be guessed (download the listing with currencyCode=USD)",
                                   path=str(path))
        try:
            rate = Decimal(1) if raw_rate is None else Decimal(str(raw_rate))
        except InvalidOperation:
            rate = Decimal("NaN")
        if not rate.is_finite() or rate <= 0:
            raise PriceImportError(f"{where}: currencyConversionRate {raw_rate!r} is not a "
                                   "positive number", path=str(path))
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
