"""`costmodel prices`: look up a catalog price with its age, or import the providers' own price files."""
from __future__ import annotations

import argparse
import datetime as dt
import sys
from typing import Any

HELP = "price catalog: show a price and its age; fetch and import AWS/GCP/Azure price files"
DESCRIPTION = """\
costmodel prices show --provider aws --item transfer --src us-east-2 --dst us-west-2 [--json]
    print the catalog row a cost uses (the most specific region match), its source and its age;
    tiered items list every tier. --dir reads an imported folder instead of the bundled catalog.
    A price older than 12 months or undated warns (on stderr).
costmodel prices import FILE... -o DIR [--json]
    read the providers' price files as downloaded (AWS Price List bulk offers in JSON or CSV, AWS
    Savings Plans rates: `aws savingsplans describe-savings-plans-offering-rates` JSON or the Savings
    Plans bulk price list; GCP Cloud Billing Catalog SKU pages, Azure Retail Prices API pages) and write catalog CSVs
    to DIR (nothing is written when a file is broken). Point a scenario at DIR with
    `prices: {dir: DIR}`. Item aliases: transfer = inter_region, egress = internet_egress, ...
costmodel prices fetch [--aws-region R]... [--azure-region R]... [--gcp --gcp-api-key KEY] -o DIR
    download those files from the providers' price APIs (AWS Price List bulk API, Azure Retail
    Prices API, GCP Cloud Billing Catalog API), every page, into DIR; --dry-run prints curl lines.
    Refresh the catalog in two commands (needs the network):
      costmodel prices fetch --aws-region us-east-2 --aws-region us-west-2 -o downloads
      costmodel prices import downloads/* -o prices
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    show = sub.add_parser("show", help="show the price row used for a provider/item/region(s) and its age",
                          parents=[_common()])
    show.add_argument("--provider", required=True, help="aws, gcp or azure")
    show.add_argument("--item", required=True, help="catalog item (inter_region, s3_standard, p5.48xlarge, ...; "
                      "aliases: transfer, egress, nat, tgw, privatelink)")
    show.add_argument("--src", "--region", dest="src", required=True, help="source region (or the region)")
    show.add_argument("--dst", default="", help="destination region for transfer items")
    show.add_argument("--dir", default=None, help="price folder (default: the bundled catalog)")
    show.add_argument("--today", default=None, help="date the age is computed at, YYYY-MM-DD (default: today)")
    imp = sub.add_parser("import", help="import provider price files into a catalog folder", parents=[_common()])
    imp.add_argument("files", nargs="+", metavar="FILE", help="AWS offer (JSON/CSV), GCP SKU page or Azure page")
    imp.add_argument("-o", "--out", required=True, metavar="DIR", help="folder to write the catalog CSVs to")
    imp.add_argument("--as-of", default=None, metavar="DATE",
                     help="the date of files that carry none (SkyPilot catalogs), YYYY[-MM[-DD]]; default: undated")
    imp.add_argument("--item", action="append", default=None, metavar="GLOB",
                     help="import only items matching GLOB (repeat; e.g. 'p5*' 'gpu_8x_h100*'); the rest is counted")
    imp.add_argument("--verified", default=None, metavar="TEXT",
                     help="the verified cell of every row written: how they were checked (e.g. 'dataset <repo> "
                          "<path> @<commit>'); default: the importer's own")
    imp.add_argument("--force", action="store_true", help="replace CSVs of the same names in DIR")
    fet = sub.add_parser("fetch", help="download the providers' price files (every page) for `prices import`",
                         parents=[_common()])
    fet.add_argument("--aws-region", action="append", default=[], metavar="REGION",
                     help="AWS region code (repeat): one file per offer (--aws-offer) and region")
    fet.add_argument("--aws-offer", action="append", default=None, metavar="OFFER",
                     help="AWS offer code (repeat; default: AmazonEC2 AmazonS3 AWSDataTransfer AmazonVPC)")
    fet.add_argument("--azure-region", action="append", default=[], metavar="REGION",
                     help="Azure ARM region name (repeat): VM, bandwidth and Hot LRS blob pages")
    fet.add_argument("--gcp", action="store_true", help="GCP Compute Engine, Cloud Storage and Networking SKUs")
    fet.add_argument("--gcp-api-key", default=None, metavar="KEY",
                     help="API key for the Cloud Billing Catalog API (default: $COSTMODEL_GCP_API_KEY)")
    fet.add_argument("-o", "--out", required=True, metavar="DIR", help="folder to save the price files in")
    fet.add_argument("--force", action="store_true", help="replace files of the same names in DIR")
    fet.add_argument("--dry-run", action="store_true", help="print the downloads as curl lines, fetch nothing")


def _common() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--debug", action="store_true", help="show a traceback on errors")
    return p


def run(args: argparse.Namespace) -> int:
    from ..foundation.errors import CostmodelError

    if args.action == "show":
        return _show(args)
    if args.action == "import":
        return _import(args)
    if args.action == "fetch":
        return _fetch(args)
    raise CostmodelError("expected an action: show, import or fetch (see costmodel prices --help)")


def _show(args: argparse.Namespace) -> int:
    from ..foundation import clock
    from ..foundation.errors import PriceError
    from ..prices.catalog import age_warning, load_prices
    from ._common import emit_json

    if args.today:
        try:
            today = dt.date.fromisoformat(args.today)
        except ValueError:
            raise PriceError(f"--today {args.today!r} is not a date YYYY-MM-DD") from None
    else:
        today = clock.today()
    table = load_prices(args.dir)
    if args.provider not in table.providers():
        table.lookup(args.provider, args.item, args.src, args.dst, key="--provider")  # raises, with did-you-mean
    if table.resolve_item(args.provider, args.item) not in table.items(args.provider):
        table.lookup(args.provider, args.item, args.src, args.dst, key="--item")  # raises, with did-you-mean
    tiers = table.lookup_tiers(args.provider, args.item, args.src, args.dst, key="--dst" if args.dst else "--src")
    rows = [{**r.to_dict(), "age_days": r.age_days(today), "ref": r.ref()} for r in tiers]  # the row as of today
    warning = age_warning(tiers[0], today)
    out: dict[str, Any] = {
        "provider": args.provider, "item_asked": args.item, "item": tiers[0].item, "src_region": args.src,
        "dst_region": args.dst, "folder": str(args.dir) if args.dir else "bundled", "today": today.isoformat(),
        "row": rows[0], "tiers": rows, "age_days": rows[0]["age_days"], "warning": warning,
    }
    if args.json:
        emit_json(out)
    else:
        r = tiers[0]
        where = f"{args.src} -> {args.dst}" if args.dst else args.src
        print(f"{r.provider} {r.item} {where}: {r.usd:g} USD per {r.unit}"
              + (f" (matched row {r.src_region}{' -> ' + r.dst_region if r.dst_region else ''})"
                 if (r.src_region != args.src or (args.dst and r.dst_region != args.dst)) else ""))
        if len(tiers) > 1:
            for t in tiers:
                end = "inf" if t.tier_end is None else f"{t.tier_end:g}"
                print(f"  tier {t.tier_start:g}-{end} {t.unit.split('-')[0]}/month: {t.usd:g} USD per {t.unit}")
        age = rows[0]["age_days"]
        print(f"  as_of {r.as_of or 'undated'}" + (f" ({age} days old)" if age is not None else "")
              + f"; verified: {(r.verified_how or 'yes') if r.verified else 'no'}; {r.ref()}")
        print(f"  source: {r.source}")
        if r.notes:
            print(f"  notes: {r.notes}")
        if r.bytes_per_unit:
            print(f"  1 {r.unit.split('-')[0]} = {r.bytes_per_unit:.0f} bytes")
    if warning:
        sys.stderr.write(f"costmodel prices: warning: {warning}\n")
    return 0


def _import(args: argparse.Namespace) -> int:
    from ..foundation.names import shown
    from ..prices.importers import import_price_files
    from ._common import emit_json, progress

    summaries = import_price_files(args.files, args.out, progress=None if args.json else progress,
                                   as_of=args.as_of, items=args.item, verified=args.verified, force=args.force)
    if args.json:
        emit_json({"out": str(args.out), "files": [s.to_dict() for s in summaries],
                   "rows": sum(s.rows for s in summaries), "skipped": sum(s.skipped for s in summaries)})
    else:
        for s in summaries:
            span = f"as_of {s.as_of_min}..{s.as_of_max}" if s.as_of_min else "no rows"
            print(f"{s.path} ({s.format}) -> {args.out}/{s.output}: {s.rows} rows, {s.skipped} records not "
                  f"catalog items (skipped, counted); {span}")
            for reason, n in sorted(s.skip_reasons.items(), key=lambda kv: (-kv[1], kv[0])):
                print(f"  skipped {n}: {shown(reason)}")
            for k in s.kept:
                print(f"  {shown(k)}")
            if s.rows == 0:
                sys.stderr.write(f"costmodel prices: warning: {s.path}: no catalog rows (see the skipped reasons)\n")
    return 0


def _fetch(args: argparse.Namespace) -> int:
    import os

    from ..prices.fetch import AWS_OFFERS, curl_lines, fetch, plan
    from ._common import emit_json, progress

    key = args.gcp_api_key or os.environ.get("COSTMODEL_GCP_API_KEY")
    downloads = plan(args.aws_region, args.azure_region, args.gcp, key, args.aws_offer or AWS_OFFERS)
    if args.dry_run:
        if args.json:
            emit_json({"out": str(args.out), "downloads": [d.__dict__ for d in downloads]})
        else:
            print(f"mkdir -p {args.out} && cd {args.out}")
            print("\n".join(curl_lines(downloads)))
        return 0
    saved = fetch(downloads, args.out, progress=None if args.json else progress, force=args.force)
    if args.json:
        emit_json({"out": str(args.out), "files": saved})
    else:
        for s in saved:
            print(f"{s['file']}: {s['bytes']} bytes from {s['url']}")
        print(f"next: costmodel prices import {args.out}/* -o prices")
    return 0
