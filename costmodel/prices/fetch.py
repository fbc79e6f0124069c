"""Download the providers' machine-readable price files that ``costmodel prices import`` reads.

Where each provider publishes them (no scraping of web pages):

- **AWS Price List bulk API** (no credentials): ``https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/index.json``
  lists every offer; one region of an offer is ``/offers/v1.0/aws/<OfferCode>/current/<region>/index.json`` (the
  offer's ``current/region_index.json`` lists the regions). One file per offer and region, no paging.
- **Azure Retail Prices API** (no credentials): ``https://prices.azure.com/api/retail/prices?currencyCode='USD'&
  $filter=...``; pages of at most 1,000 items linked by ``NextPageLink`` (``null`` on the last page).
- **GCP Cloud Billing Catalog API** (an API key, no billing permission needed):
  ``https://cloudbilling.googleapis.com/v1/services/<service id>/skus?key=KEY&currencyCode=USD&pageSize=5000``;
  pages linked by ``nextPageToken`` (empty on the last page).

Every page is saved as its own file (the importer reads one page per file). Files go to a temporary folder
next to the output and are moved in only when every download succeeded: an error leaves nothing half-written.
Base URLs can be redirected (``COSTMODEL_AWS_PRICING_URL``, ``COSTMODEL_AZURE_PRICES_URL``,
``COSTMODEL_GCP_BILLING_URL``), which the tests use to serve files from 127.0.0.1. Raises :class:`PriceError`.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..foundation.errors import PriceError

AWS_BASE = "https://pricing.us-east-1.amazonaws.com"
AZURE_BASE = "https://prices.azure.com"
GCP_BASE = "https://cloudbilling.googleapis.com"

#: AWS offers holding the catalog's items: GPU instances, EBS, NAT gateway (AmazonEC2); S3 storage, requests,
#: replication, Batch Operations (AmazonS3); inter-region / inter-AZ / internet transfer (AWSDataTransfer);
#: Transit Gateway and PrivateLink processing (AmazonVPC)
AWS_OFFERS = ("AmazonEC2", "AmazonS3", "AWSDataTransfer", "AmazonVPC")
#: Azure Retail Prices queries, one file series each ({region} is the ARM region name)
AZURE_QUERIES = {
    "vm": "serviceName eq 'Virtual Machines' and armRegionName eq '{region}' and priceType eq 'Consumption'",
    "bandwidth": "serviceName eq 'Bandwidth' and armRegionName eq '{region}'",
    "blob": "serviceName eq 'Storage' and armRegionName eq '{region}' and skuName eq 'Hot LRS'",
}
#: GCP Cloud Billing Catalog services: GPUs (Compute Engine), GCS, network egress (Networking)
GCP_SERVICES = {"compute": "6F81-5844-456A", "storage": "95FF-2EF5-5EA1", "networking": "E505-1604-58F8"}
MAX_PAGES = 500  # per query: Azure VMs of one region are a few pages of 1,000 items
TIMEOUT_S = 120.0
CHUNK_BYTES = 1 << 20


@dataclass
class Download:
    """One file series to fetch: ``url`` of the first page, ``name`` of the file (``-pN`` added per page for
    paged APIs), ``paging``: ``none`` (AWS), ``azure`` (NextPageLink) or ``gcp`` (nextPageToken)."""

    url: str
    name: str
    paging: str = "none"


def _base(env: str, default: str) -> str:
    return os.environ.get(env, default).rstrip("/")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")


def plan(aws_regions: Iterable[str] = (), azure_regions: Iterable[str] = (), gcp: bool = False,
         gcp_api_key: str | None = None, aws_offers: Iterable[str] = AWS_OFFERS) -> list[Download]:
    """The downloads for the given regions (AWS region codes, Azure ARM region names) and GCP services.

    Raises PriceError when nothing is asked for, or GCP is asked for without an API key.
    """
    aws_regions, azure_regions, aws_offers = list(aws_regions), list(azure_regions), list(aws_offers)
    if not (aws_regions or azure_regions or gcp):
        raise PriceError("nothing to fetch: give --aws-region, --azure-region and/or --gcp")
    out: list[Download] = []
    aws = _base("COSTMODEL_AWS_PRICING_URL", AWS_BASE)
    for region in aws_regions:
        for offer in aws_offers:
            out.append(Download(f"{aws}/offers/v1.0/aws/{urllib.parse.quote(offer)}/current/"  # noqa: PERF401  kept as a readable loop
                                f"{urllib.parse.quote(region)}/index.json", f"aws-{_slug(offer)}-{_slug(region)}.json"))
    azure = _base("COSTMODEL_AZURE_PRICES_URL", AZURE_BASE)
    for region in azure_regions:
        for key, flt in AZURE_QUERIES.items():
            query = urllib.parse.urlencode({"currencyCode": "'USD'", "$filter": flt.format(region=region)},
                                           quote_via=urllib.parse.quote, safe="$")
            out.append(Download(f"{azure}/api/retail/prices?{query}", f"azure-{key}-{_slug(region)}.json", "azure"))
    if gcp:
        if not gcp_api_key:
            raise PriceError("--gcp: the Cloud Billing Catalog API needs an API key: --gcp-api-key KEY or "
                             "COSTMODEL_GCP_API_KEY (any key of a project with the Cloud Billing API enabled)")
        base = _base("COSTMODEL_GCP_BILLING_URL", GCP_BASE)
        for key, sid in GCP_SERVICES.items():
            query = urllib.parse.urlencode({"key": gcp_api_key, "currencyCode": "USD", "pageSize": 5000})
            out.append(Download(f"{base}/v1/services/{sid}/skus?{query}", f"gcp-{key}.json", "gcp"))
    return out


def _paged_name(name: str, page: int, paging: str) -> str:
    if paging == "none":
        return name
    stem, _, ext = name.rpartition(".")
    return f"{stem}-p{page}.{ext}"


def _redact(url: str) -> str:
    return re.sub(r"([?&]key=)[^&]+", r"\1***", url)


def _get(url: str, target: Path, timeout_s: float) -> None:
    req = urllib.request.Request(url, headers={"User-Agent": "costmodel-prices-fetch", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as resp, open(target, "wb") as fh:
            shutil.copyfileobj(resp, fh, CHUNK_BYTES)
    except urllib.error.HTTPError as exc:
        hint = ""
        m = re.match(r"(.*/offers/v1\.0/aws/[^/]+/current/)[^/]+/index\.json$", url)
        if exc.code == 404 and m:
            hint = f" (the offer has no file for this region? its regions: {m.group(1)}region_index.json)"
        raise PriceError(f"{_redact(url)}: HTTP {exc.code} {exc.reason}{hint}") from None
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise PriceError(f"{_redact(url)}: cannot download: {reason}") from None


def _next_url(d: Download, page_file: Path, url: str) -> str | None:
    """The next page's URL from a saved Azure or GCP page, or None on the last page."""
    if d.paging == "none":
        return None
    try:
        with open(page_file, "rb") as fh:
            page = json.load(fh)
    except (ValueError, OSError) as exc:
        raise PriceError(f"{_redact(url)}: the page is not JSON ({exc})") from None
    if not isinstance(page, dict):
        raise PriceError(f"{_redact(url)}: the page is not a JSON object")
    if d.paging == "azure":
        link = page.get("NextPageLink")
        if not link:
            return None
        first, nxt = urllib.parse.urlsplit(d.url), urllib.parse.urlsplit(str(link))
        if (nxt.scheme, nxt.hostname) != (first.scheme, first.hostname):
            raise PriceError(f"{_redact(url)}: NextPageLink {link!r} leaves {first.scheme}://{first.hostname}; "
                             "not followed")
        return str(link)
    token = page.get("nextPageToken")
    if not token:
        return None
    parts = urllib.parse.urlsplit(d.url)
    query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query) if k != "pageToken"] + [("pageToken", token)]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def fetch(downloads: list[Download], out_dir: str | os.PathLike[str], *, timeout_s: float = TIMEOUT_S,
          progress: Callable[[str], None] | None = None, force: bool = False) -> list[dict[str, Any]]:
    """Download ``downloads`` (every page of the paged ones) into ``out_dir``; returns one entry per file saved
    (``file``, ``url`` with any API key masked, ``bytes``). All or nothing: files are moved into ``out_dir`` only
    when every download succeeded; a file of the same name there is replaced only with ``force`` (OutputError naming
    it). Raises PriceError naming the URL."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise PriceError(f"{out}: exists and is not a folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    from ..foundation.leftovers import owned_tempdir

    tmp = owned_tempdir(f".{out.name}.fetching-", directory=out.parent)
    saved: list[dict[str, Any]] = []
    try:
        for d in downloads:
            url: str | None = d.url
            page = 1
            while url:
                if page > MAX_PAGES:
                    raise PriceError(f"{_redact(d.url)}: more than {MAX_PAGES} pages; narrow the query")
                name = _paged_name(d.name, page, d.paging)
                if progress:
                    progress(f"fetching {_redact(url)} -> {name}")
                _get(url, tmp / name, timeout_s)
                saved.append({"file": name, "url": _redact(url), "bytes": (tmp / name).stat().st_size})
                url = _next_url(d, tmp / name, url)
                page += 1
        from ..foundation.safeio import refuse_existing

        for s in saved:
            refuse_existing(out / s["file"], "-o", force)
        out.mkdir(parents=True, exist_ok=True)
        for s in saved:
            os.replace(tmp / s["file"], out / s["file"])
            s["file"] = str(out / s["file"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return saved


def curl_lines(downloads: list[Download]) -> list[str]:
    """The same downloads as ``curl`` command lines (first page only for the paged APIs, which say so)."""
    lines = []
    for d in downloads:
        name = _paged_name(d.name, 1, d.paging)
        note = {"none": "", "azure": "  # page 1; next: .NextPageLink",
                "gcp": "  # page 1; next: &pageToken=.nextPageToken"}[d.paging]
        lines.append(f"curl -sSfL -o {name} '{d.url}'{note}")
    return lines
