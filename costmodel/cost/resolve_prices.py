"""Resolve, optional prices: path processing, inter-zone and request prices looked up in the catalog, and the
options a term without a price leaves not priced (see :mod:`costmodel.cost.resolve`)."""
from __future__ import annotations

from ..foundation.errors import PriceError
from ..prices.billing import lookup_tiers, price_entry, row_warning, tier_bounds, usd_per_count, usd_per_decimal_gb
from .resolve_ctx import Ctx

PATH_ITEMS = {
    "nat_gateway": "nat_gateway_processing",
    "transit_gateway": "transit_gateway_processing",
    "privatelink": "privatelink_processing",
}



def catalog_price(c: Ctx, key: str, items: tuple[str, ...], regions: list[tuple[str, str]], kind: str,
                   per: float = 1.0, tier_key: str | None = None) -> float | None:
    """Look ``items`` up for the scenario's provider; record it in prices_used; None when not found. With
    ``tier_key``, a per-byte item the catalog tiers by monthly volume (``lookup_tiers``) stores its tiers in
    ``internal[tier_key]`` (the first tier's price is the value)."""
    provider = c.settings.get("prices.provider")
    table = c.table() if provider else None
    if table is None or not provider:
        return None
    row, rows = None, None
    for item in items:
        for src, dst in regions:
            try:
                row = table.lookup(provider, item, src or "", dst or "")
            except PriceError:
                continue
            if tier_key is not None:
                try:
                    rows = lookup_tiers(table, provider, item, src or "", dst or "")
                except PriceError:
                    rows = None
            break
        if row is not None:
            break
    if row is None:
        return None
    if rows and len(rows) > 1:
        row = rows[0]
        tiers = tier_bounds(rows)
        if tiers:
            c.internal[tier_key] = tiers
    try:
        usd = usd_per_decimal_gb(row) if kind == "bytes" else usd_per_count(row, per)
    except PriceError:
        return None
    c.values[key] = usd
    c.prov[key] = {"value": usd, "source": f"price table {row.ref()}", "as_of": row.as_of or None}
    c.prices_used.append(price_entry(key, row, usd, c.sc.today, tiers=rows if rows and len(rows) > 1 else None))
    w = row_warning(key, row, c.sc.today)
    if w:
        c.warnings.append(w)
    return usd


def regions(c: Ctx, src_first: bool = False) -> list[tuple[str, str]]:
    src, dst = c.settings.get("prices.src_region") or "", c.settings.get("prices.dst_region") or ""
    pairs = [(dst, ""), (dst, dst), (src, ""), (src, src)]
    return [(src, ""), (src, src), *pairs] if src_first else pairs


def path(c: Ctx) -> None:
    key = "link.path_processing_usd_per_gb"
    path = c.settings.get("link.path")
    if path is None:
        c.settings["link.path"] = path = "vpc_peering"
        c.prov["link.path"] = {"value": path, "source": "default"}
        c.warnings.append("link.path: not given; assumed vpc_peering (no per-GB path processing). Say nat_gateway, "
                          "transit_gateway, privatelink or internet if the traffic crosses one")
    if path in PATH_ITEMS:
        if c.stated(key):
            return
        item = PATH_ITEMS[path]
        if catalog_price(c, key, (item,), regions(c), "bytes", tier_key="_path_tiers") is None:
            c.values[key] = 0.0
            c.unpriced("cross_region", f"link.path = {path} is charged per GB processed but the price catalog has no "
                       f"{c.settings.get('prices.provider') or '?'} {item} row for {c.settings.get('prices.dst_region') or '?'}; "
                       "give link.path_processing_usd_per_gb")
        return
    if c.stated(key) and c.values[key] > 0:
        c.warnings.append(f"{key} = {c.values[key]:g} although link.path = {path}"
                          + (" has no processing charge" if path == "vpc_peering" else
                             " is billed as internet egress in link.transfer_usd_per_gb") + "; charged as stated")


def inter_az(c: Ctx) -> None:
    key = "link.inter_az_usd_per_gb"
    who = [o for o, flag in (("cross_region", "cache.cross_az"), ("replicate", "replica.cross_az")) if c.settings.get(flag)]
    c.internal["_cache_cross_az"] = bool(c.settings.get("cache.cross_az"))
    c.internal["_replica_cross_az"] = bool(c.settings.get("replica.cross_az"))
    if not who or c.stated(key):
        return
    dst = c.settings.get("prices.dst_region") or ""
    if catalog_price(c, key, ("inter_az", "cross_az"), [(dst, dst), (dst, ""), ("*", "*")], "bytes") is None:
        c.values[key] = 0.0
        for o in who:
            c.unpriced(o, "data crosses zones (cache.cross_az / replica.cross_az) but no inter_az price was found; "
                       "give link.inter_az_usd_per_gb")


def requests(c: Ctx) -> None:
    if c.values.get("dataset.objects", 0) <= 0:
        return
    wanted = [
        ("requests.get_usd_per_1000", ("object_get", "s3_get"), 1000.0, ("cross_region", "replicate"), True),
        ("requests.put_usd_per_1000", ("object_put", "s3_put_copy_post_list"), 1000.0, ("replicate",), False),
        ("requests.batch_replication_usd_per_million", ("batch_replication_objects",), 1e6, ("replicate",), False),
        ("requests.batch_job_usd", ("batch_operations_job",), 1.0, ("replicate",), False),
    ]
    # a term that does not apply to the replica's mechanism never unprices replicate (DataSync or a file
    # system's replication run no S3 Batch Operations; file-system replication writes no object PUTs)
    s3 = bool(c.internal.get("_s3_replication", True))
    puts = bool(c.internal.get("_replica_puts", True))
    applies = {"requests.put_usd_per_1000": puts, "requests.batch_replication_usd_per_million": s3,
               "requests.batch_job_usd": s3}
    for key, items, per, options, src_first in wanted:
        if c.stated(key):
            continue
        if catalog_price(c, key, items, regions(c, src_first), "count", per) is None:
            c.values[key] = 0.0
            if not applies.get(key, True):
                c.prov[key] = {"value": 0.0, "source": "default: does not apply to replica.mechanism = "
                               + str(c.settings.get("replica.mechanism") or "s3_replication")}
                continue
            for o in options:
                c.unpriced(o, f"{key} has no price (catalog items {' / '.join(items)} not found for "
                           f"{c.settings.get('prices.provider') or '?'}); give it in the scenario")


def wait(c: Ctx) -> None:
    wk = "wait.expected_wait_hours_per_run"
    if c.stated(wk) and c.values.get(wk) == 0 and wk not in getattr(c.sc, "distributions", {}):
        c.warnings.append(f"{wk} = 0: waiting for GPUs in the data region is assumed to cost no time at all, so "
                          "wait is priced only by its cluster premium; state the expected queue (or a range such "
                          "as [0, 72]): a zero-hour wait never wins robustly")
    lacking = [k for k in ("wait.expected_wait_hours_per_run", "wait.delay_usd_per_hour") if not c.stated(k)]
    if lacking:
        c.unpriced("wait", f"{' and '.join(lacking)} not given: waiting for GPUs near the data has no price "
                   "(state them; 0 is a valid answer)")
