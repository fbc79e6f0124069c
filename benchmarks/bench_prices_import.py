"""Peak memory of `costmodel prices import` on AWS offer files of growing size (real schema, synthetic SKUs).

JSON offers: baseline ``json.load`` of the same file (what a non-streaming importer does). CSV offers (``--format
csv``; the real 91-column AmazonEC2 header and two real rows of tests/data/prices as templates): baseline
``list(csv.reader(...))``, every row held. Each measurement runs in a fresh Python process and reports its peak
resident memory (``VmHWM`` of /proc/self/status). The importer's peak should stay flat as the file grows; the
baseline grows with it.

    PYTHONPATH=$PWD python benchmarks/bench_prices_import.py            # JSON, 50 and 200 MB
    PYTHONPATH=$PWD python benchmarks/bench_prices_import.py --mb 50 200 1000
    PYTHONPATH=$PWD python benchmarks/bench_prices_import.py --format csv --mb 50 200 1000
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PRODUCT = """    "{sku}" : {{
      "sku" : "{sku}",
      "productFamily" : "Compute Instance",
      "attributes" : {{
        "servicecode" : "AmazonEC2", "location" : "US East (Ohio)", "locationType" : "AWS Region",
        "instanceType" : "{itype}", "currentGeneration" : "Yes", "instanceFamily" : "General purpose",
        "vcpu" : "8", "memory" : "32 GiB", "storage" : "EBS only", "networkPerformance" : "Up to 12500 Megabit",
        "tenancy" : "Shared", "operatingSystem" : "Linux", "licenseModel" : "No License required",
        "usagetype" : "USE2-BoxUsage:{itype}", "operation" : "RunInstances", "capacitystatus" : "Used",
        "preInstalledSw" : "NA", "regionCode" : "us-east-2", "servicename" : "Amazon Elastic Compute Cloud"
      }}
    }}"""
TERM = """    "{sku}" : {{
      "{sku}.JRTCKXETXF" : {{
        "offerTermCode" : "JRTCKXETXF", "sku" : "{sku}", "effectiveDate" : "2026-11-01T00:00:00Z",
        "priceDimensions" : {{
          "{sku}.JRTCKXETXF.6YS6EN2CT7" : {{
            "rateCode" : "{sku}.JRTCKXETXF.6YS6EN2CT7", "description" : "${usd} per On Demand Linux {itype} Instance Hour",
            "beginRange" : "0", "endRange" : "Inf", "unit" : "Hrs", "pricePerUnit" : {{ "USD" : "{usd}" }}, "appliesTo" : [ ]
          }}
        }},
        "termAttributes" : {{ }}
      }}
    }}"""


def make_offer(path: Path, mb: int) -> int:
    """Write an AmazonEC2-shaped offer of about ``mb`` MB; 1 in 500 SKUs is a GPU type (p5.48xlarge)."""
    target = mb * 1_000_000
    per = len(PRODUCT.format(sku="X" * 16, itype="m5.2xlarge")) + len(TERM.format(sku="X" * 16, itype="m5.2xlarge",
                                                                                  usd="0.3840000000"))
    n = max(1, target // (per + 4))
    skus = range(n)
    with open(path, "w") as fh:
        fh.write('{\n  "formatVersion" : "v1.0",\n  "disclaimer" : "synthetic",\n  "offerCode" : "AmazonEC2",\n'
                 '  "version" : "20261201000000",\n  "publicationDate" : "2026-12-01T00:00:00Z",\n  "products" : {\n')
        for i in skus:
            s = f"{i:016X}"
            fh.write(PRODUCT.format(sku=s, itype="p5.48xlarge" if i % 500 == 0 else "m5.2xlarge"))
            fh.write(",\n" if i + 1 < n else "\n")
        fh.write('  },\n  "terms" : {\n  "OnDemand" : {\n')
        for i in skus:
            s = f"{i:016X}"
            gpu = i % 500 == 0
            fh.write(TERM.format(sku=s, itype="p5.48xlarge" if gpu else "m5.2xlarge",
                                 usd="55.0400000000" if gpu else "0.3840000000"))
            fh.write(",\n" if i + 1 < n else "\n")
        fh.write("  }\n  }\n}\n")
    return n


REAL_CSV = Path(__file__).resolve().parents[1] / "tests" / "data" / "prices" / "aws-ec2-global-2025-09-12-ec2-priceit.csv"


def make_offer_csv(path: Path, mb: int) -> int:
    """Write an AmazonEC2 offer CSV of about ``mb`` MB: the real file's 5 metadata lines and 91-column header, then
    copies of its real c5d.2xlarge on-demand row, 1 in 500 its g5.48xlarge row made on-demand Linux shared."""
    import csv
    import io

    lines = REAL_CSV.read_text().split("\n")
    header = next(csv.reader([lines[5]]))
    col = {name: n for n, name in enumerate(header)}
    plain = next(csv.reader([next(ln for ln in lines if ln.startswith('"2223RRAP6Z3VBN3N"'))]))
    gpu = next(csv.reader([next(ln for ln in lines if ln.startswith('"2224ZGY5JW89DTH5","JRTCKXETXF"'))]))
    gpu[col["Operating System"]], gpu[col["Tenancy"]] = "Linux", "Shared"
    gpu[col["usageType"]], gpu[col["CapacityStatus"]] = "APS2-BoxUsage:g5.48xlarge", "Used"

    def line(row: list[str], i: int) -> str:
        r = list(row)
        r[col["SKU"]] = f"{i:016X}"
        r[col["RateCode"]] = f"{i:016X}.JRTCKXETXF.6YS6EN2CT7"
        buf = io.StringIO()
        csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(r)
        return buf.getvalue()

    per = len(line(plain, 0))
    n = max(1, mb * 1_000_000 // per)
    with open(path, "w") as fh:
        fh.write("\n".join(lines[:6]) + "\n")
        fh.writelines(line(gpu if i % 500 == 0 else plain, i) for i in range(n))
    return n


CHILD = """
import csv, json, resource, sys, time
t = time.perf_counter()
mode, path, out = sys.argv[1], sys.argv[2], sys.argv[3]
if mode == "import":
    from costmodel.price_import import import_price_files
    (s,) = import_price_files([path], out, force=True)  # its own output of an earlier repeat
    rows = s.rows
elif mode == "csv":
    with open(path, newline="") as fh:
        d = list(csv.reader(fh))
    rows = len(d) - 6
else:
    with open(path) as fh:
        d = json.load(fh)
    rows = len(d["products"])
def peak_mb():
    # VmHWM belongs to this process's own address space (reset by exec); ru_maxrss is not: on Linux it keeps
    # the parent's high-water mark across fork+exec, which would charge the generator's memory to the child
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"peak_rss_mb": peak_mb(),
                  "s": time.perf_counter() - t, "rows": rows}))
"""


def measure(mode: str, path: Path, out: Path) -> dict:
    res = subprocess.run([sys.executable, "-c", CHILD, mode, str(path), str(out)], capture_output=True, text=True,
                         check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, nargs="+", default=[50, 200], help="offer sizes in MB (default 50 200)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the json.load baseline (it needs ~10x RAM)")
    ap.add_argument("--format", choices=("json", "csv"), default="json", help="offer file format (default json)")
    args = ap.parse_args()
    baseline = "json.load" if args.format == "json" else "csv rows list"
    with tempfile.TemporaryDirectory() as tmp:
        first = None
        print(f"{'size MB':>8} {'SKUs':>9} {'import peak MB':>15} {'import s':>9} {'rows':>6} "
              f"{baseline + ' peak MB':>18} {'ratio':>6}")
        for mb in args.mb:
            path = Path(tmp) / f"AmazonEC2-{mb}.{args.format}"
            t = time.perf_counter()
            n = make_offer(path, mb) if args.format == "json" else make_offer_csv(path, mb)
            size = path.stat().st_size / 1e6
            imp = measure("import", path, Path(tmp) / f"out{mb}")
            base = None if args.no_baseline else measure(args.format, path, Path(tmp))
            first = first or imp["peak_rss_mb"]
            print(f"{size:8.0f} {n:9d} {imp['peak_rss_mb']:15.1f} {imp['s']:9.1f} {imp['rows']:6d} "
                  + (f"{base['peak_rss_mb']:18.1f} {base['peak_rss_mb'] / imp['peak_rss_mb']:6.1f}" if base else
                     f"{'-':>18} {'-':>6}")
                  + f"   (import peak / smallest: {imp['peak_rss_mb'] / first:.2f}; generated in "
                  f"{time.perf_counter() - t:.0f} s)")
            path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
