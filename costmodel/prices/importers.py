"""Import the providers' own machine-readable price files into the catalog's CSV format, offline.

Formats (detected from the first bytes of each file):

- **AWS Price List bulk offer, JSON** (``AmazonEC2``, ``AmazonS3``, ``AWSDataTransfer``, whole or region files):
  streamed with ijson in two passes (``products``, then ``terms.OnDemand``); only the products that map to a
  catalog item are kept between the passes, so memory does not grow with the file (AmazonEC2 is several GB).
- **AWS Price List bulk offer, CSV**: five metadata lines (``FormatVersion`` ... ``OfferCode``), a header, one row
  per price dimension; read row by row.
- **AWS Savings Plans rates**: the JSON of ``aws savingsplans describe-savings-plans-offering-rates``
  (``searchResults``) and the Savings Plans bulk price-list JSON (``terms.savingsPlan``); see :mod:`.import_aws_sp`.
- **GCP Cloud Billing Catalog SKU listing** (``services/<id>/skus`` pages: ``{"skus": [...], "nextPageToken"}``).
- **Azure Retail Prices API page** (``{"BillingCurrency", "Items": [...], "NextPageLink", "Count"}``).
- **SkyPilot catalog** ``catalogs/v7/<cloud>/vms.csv`` (any cloud; the folder names it): on-demand and spot GPU
  machine prices, GCP's host and GPU rows added; undated unless ``as_of`` is stated (:mod:`.import_skypilot`).

Where an imported row meets a row of the same provider, item and region already in the output folder, the
newer dated one is kept and the older never replaces it (an undated row never replaces a dated one); each
such meeting is said in ``FileSummary.kept``.

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
import os
import re
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..foundation import clock
from .catalog import ALL_COLUMNS
from .import_aws import import_aws_csv, import_aws_json
from .import_aws_sp import import_aws_sp_offer, import_aws_sp_rates
from .import_azure import _azure_tiers, import_azure_retail
from .import_common import (
    HEAD_BYTES,
    FileSummary,
    PriceImportError,
    Row,
)
from .import_gcp import import_gcp_skus
from .import_skypilot import cloud_of, import_skypilot, is_skypilot_header


def detect_format(path: Path) -> str:
    """``aws-json``, ``aws-csv``, ``aws-sp-rates``, ``aws-sp-offer``, ``gcp-skus`` or ``azure-retail`` from the
    first bytes; PriceImportError else."""
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
        if re.search(r'"searchResults"\s*:', text) and re.search(r'"savingsPlanOffering"\s*:', text):
            return "aws-sp-rates"
        if (re.search(r'"savingsPlan"\s*:\s*\[', text) or re.search(r'"productFamily"\s*:\s*"\w*SavingsPlans"', text)
                or re.search(r'"serviceCode"\s*:\s*"\w*SavingsPlans?"', text)):
            return "aws-sp-offer"
        if re.search(r'"offerCode"\s*:', text) or re.search(r'"formatVersion"\s*:', text):
            return "aws-json"
        if re.search(r'"skus"\s*:', text):
            return "gcp-skus"
        if re.search(r'"Items"\s*:', text) or re.search(r'"BillingCurrency"\s*:', text):
            return "azure-retail"
        raise PriceImportError(f"{path.name}: byte 0: a JSON object without offerCode (AWS), skus (GCP) or Items "
                               "(Azure); not a provider price file", path=str(path))
    first = text.splitlines()[0]
    if is_skypilot_header(first):
        return "skypilot"
    if first.replace('"', "").startswith(("FormatVersion", "SKU,OfferTermCode")):
        return "aws-csv"  # the latter: metadata lines cut off; import_aws_csv says the publication date is missing
    raise PriceImportError(f"{path.name}: line 1: {first[:60]!r} is not the start of an AWS offer CSV "
                           "(\"FormatVersion\",\"v1.0\") nor a JSON price file", path=str(path))


IMPORTERS: dict[str, Callable[[Path, FileSummary], Iterator[Row]]] = {
    "aws-json": import_aws_json,
    "aws-csv": import_aws_csv,
    "aws-sp-rates": import_aws_sp_rates,
    "aws-sp-offer": import_aws_sp_offer,
    "gcp-skus": import_gcp_skus,
    "azure-retail": import_azure_retail,
    "skypilot": import_skypilot,
}


#: the largest price a catalog row may hold (USD per billed unit): a larger one is a broken file, not a price
MAX_USD = 1e9


def _checked(r: Row, summary: FileSummary, seen: dict[tuple[str, ...], str]) -> None:
    """The one number rule for an imported row: a finite price in 0..MAX_USD, and one price per catalog
    key in a file (the same item, regions, unit and tier priced twice with different figures is refused)."""
    from ..foundation.numbers import NumberRefused, number

    name = Path(summary.path).name
    try:
        number(r["usd"], f"{name}: {r['item']} ({r['src_region']}{'->' + r['dst_region'] if r['dst_region'] else ''}) "
                         "usd", minimum=0, maximum=MAX_USD, text=True)
    except NumberRefused as exc:
        raise PriceImportError(str(exc), path=summary.path) from None
    key = (r["provider"], r["item"], r["src_region"], r["dst_region"], r["unit"], r["tier_start"])
    first = seen.setdefault(key, r["usd"])
    if first != r["usd"]:
        raise PriceImportError(f"{name}: {r['item']} in {r['src_region'] or 'every region'}"
                               f"{' -> ' + r['dst_region'] if r['dst_region'] else ''} is priced twice ({first} and "
                               f"{r['usd']} USD per {r['unit']}); keep one", path=summary.path)


def _write(target: Path, rows: Iterable[Row], summary: FileSummary) -> None:
    seen: dict[tuple[str, ...], str] = {}
    with open(target, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(ALL_COLUMNS), lineterminator="\n")
        w.writeheader()
        for r in rows:
            _checked(r, summary, seen)
            w.writerow(r)
            summary.rows += 1
            summary.items[r["item"]] = summary.items.get(r["item"], 0) + 1
            if r["as_of"]:
                summary.as_of_min = min(summary.as_of_min or r["as_of"], r["as_of"])
                summary.as_of_max = max(summary.as_of_max or r["as_of"], r["as_of"])


# ------------------------------------------------------------------------------------------ driver
def import_price_files(paths: Iterable[str | os.PathLike[str]], out_dir: str | os.PathLike[str],
                       *, progress: Callable[[str], None] | None = None, as_of: str | None = None,
                       items: Iterable[str] | None = None, verified: str | None = None, force: bool = False) -> list[FileSummary]:
    """Import ``paths`` into ``out_dir/<file stem>.csv`` (one CSV per input, catalog columns).

    Everything is written to a temporary folder beside ``out_dir`` and moved into place only when every input
    was read; on any error nothing is left behind. An existing CSV of the same name in ``out_dir`` is replaced only
    with ``force`` (OutputError naming it, before its input is read); other files there are kept. Raises
    PriceImportError (file and position) for a broken or unknown input.
    """
    files = [Path(p) for p in paths]
    globs = list(items or [])
    if verified is not None:
        from .catalog import parse_verified

        if parse_verified(verified) is None:
            raise PriceImportError(f"--verified {verified!r}: yes, no, or how the rows were verified in a few words")
    if as_of:
        from .catalog import parse_as_of

        try:
            parse_as_of(as_of)
        except ValueError:
            raise PriceImportError(f"--as-of {as_of!r}: expected YYYY, YYYY-MM or YYYY-MM-DD") from None
    if not files:
        raise PriceImportError("no price files given")
    for f in files:
        if not f.is_file():
            raise PriceImportError(f"{f}: no such file", path=str(f))
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise PriceImportError(f"{out}: exists and is not a folder", path=str(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    from ..foundation.leftovers import owned_tempdir
    from ..foundation.safeio import refuse_existing

    tmp = owned_tempdir(f".{out.name}.importing-", directory=out.parent)
    summaries: list[FileSummary] = []
    try:
        used: set[str] = set()
        azure: list[tuple[FileSummary, list[Row]]] = []
        for f in files:
            fmt = detect_format(f)
            stem = re.sub(r"[^A-Za-z0-9._-]+", "_", f.name.split(".")[0]) or "prices"
            if fmt == "skypilot":
                stem = f"skypilot_{cloud_of(f)}"
            name = stem
            i = 2
            while name in used:
                name, i = f"{stem}_{i}", i + 1
            used.add(name)
            refuse_existing(out / f"{name}.csv", "-o", force)
            summary = FileSummary(path=str(f), format=fmt, output=f"{name}.csv", as_of_stated=as_of or "")
            if progress:
                progress(f"reading {f} ({fmt})")
            summaries.append(summary)
            if fmt == "azure-retail":  # pages are small (1,000 items); tiers are completed across pages below
                azure.append((summary, list(IMPORTERS[fmt](f, summary))))
            else:
                rows: Iterator[Row] = IMPORTERS[fmt](f, summary)
                if globs:
                    rows = _only(rows, globs, summary)
                if fmt == "skypilot":
                    rows = iter(_newest(list(rows), out, {s.output for s in summaries}, summary))
                if verified:
                    rows = ({**r, "verified": verified} for r in rows)
                _write(tmp / summary.output, rows, summary)
        for (summary, _), tiered in zip(azure, _azure_tiers([rows for _, rows in azure]), strict=True):
            _write(tmp / summary.output, tiered, summary)
        out.mkdir(parents=True, exist_ok=True)
        for s in summaries:
            os.replace(tmp / s.output, out / s.output)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(tmp, ignore_errors=True)
    return summaries


def _only(rows: Iterable[Row], globs: list[str], summary: FileSummary) -> Iterator[Row]:
    """The rows whose item matches one of ``globs`` (``--item``); the others counted."""
    import fnmatch

    for r in rows:
        if any(fnmatch.fnmatchcase(r["item"], g) for g in globs):
            yield r
        else:
            summary.skip("item not asked for (--item)")


def _newest(rows: list[Row], out: Path, replaced: set[str], summary: FileSummary) -> list[Row]:
    """``rows`` less those that meet a newer (or equally dated) row of the same provider, item and region in the
    catalog CSVs already in ``out`` (files this import replaces aside); an undated row never replaces a dated one.
    Each meeting is said in ``summary.kept``."""
    from .catalog import _match_score, parse_as_of, read_price_csv

    if not out.is_dir():
        return rows
    existing = [r for f in sorted(out.glob("*.csv")) if f.name not in replaced and f.name != summary.output
                for r in read_price_csv(f)]
    index: dict[tuple[str, str], list] = {}
    for e in existing:
        index.setdefault((e.provider, e.item), []).append(e)
    kept: list[Row] = []
    for r in rows:
        new_d = parse_as_of(r["as_of"])
        hit = next((e for e in index.get((r["provider"], r["item"]), [])
                    if not e.dst_region and (_match_score(e.src_region, r["src_region"]) or (0,))[0] == 3), None)
        if hit is None:
            kept.append(r)
            continue
        old_d = hit.as_of_date()
        what = f"{r['provider']} {r['item']} {r['src_region']}"
        if old_d is not None and (new_d is None or new_d <= old_d):
            summary.kept.append(f"{what}: kept {hit.ref()} ({hit.usd:g} USD, as_of {hit.as_of}) over the imported "
                                f"{r['usd']} USD (as_of {r['as_of'] or 'undated'})")
            summary.skip("an older or undated row where the catalog has a newer dated one")
            continue
        summary.kept.append(f"{what}: the imported {r['usd']} USD (as_of {r['as_of'] or 'undated'}) is newer than "
                            f"{hit.ref()} ({hit.usd:g} USD, as_of {hit.as_of or 'undated'}): lookups prefer it")
        kept.append(r)
    return kept


def today_iso() -> str:  # pragma: no cover - trivial
    return clock.today().isoformat()
