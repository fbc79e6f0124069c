"""SkyPilot's public GPU price catalog (``skypilot-org/skypilot-catalog``, ``catalogs/v7/<cloud>/vms.csv``, or a
SkyPilot user's local copy ``~/.sky/catalogs/v7/<cloud>/vms.csv``) as catalog rows.

Columns used (their order differs per cloud; the header says which): ``InstanceType``, ``AcceleratorName``,
``AcceleratorCount``, ``Price`` (on demand, USD per instance-hour), ``SpotPrice`` (spot, the same unit),
``Region``, ``AvailabilityZone`` (absent in some clouds' files). The cloud is the name of the file's folder
(``aws``, ``gcp``, ``lambda``, ``runpod``, ``nebius``, ...): every provider is a first-class one.

- One row per instance type and region: ``<InstanceType>`` (on demand) and ``<InstanceType>:spot`` (spot, a
  purchase option of its own). Where the zones of a region differ, the **highest** zone price is kept
  (the price you may pay) and the zones' range is written in ``notes``.
- **GCP** prices the host VM (rows with an instance type and no accelerator) and the GPUs (rows with an
  accelerator and no instance type) separately: a machine's price is the host row + the GPU row of its family's
  GPU and count in the same zone (``a3-highgpu-8g`` = host + ``H100`` x 8); a zone without both is counted.
- ``notes`` carries ``accelerator <name> x <count>``: what :mod:`costmodel.place.speed` reads to know the GPU.
- The file carries no date: ``as_of`` is the date the user states (``--as-of``), else empty (undated, warned
  about at every use).
- Counted and named, never silently dropped: rows without an accelerator (CPU machines), empty prices (per
  instance type), exact duplicate rows (per instance type), GCP zones lacking a host or a GPU row.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path

from .catalog import csv_records
from .import_common import FileSummary, PriceImportError, Row, _decimal_text, _row

REQUIRED = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "SpotPrice", "Region")
#: GCP machine family -> the GPU its GPU rows are named by (Compute Engine accelerator-optimized machine types)
GCP_FAMILIES = {"a2-highgpu": "A100", "a2-megagpu": "A100", "a2-ultragpu": "A100-80GB", "a3-highgpu": "H100",
                "a3-edgegpu": "H100", "a3-megagpu": "H100-MEGA", "a3-ultragpu": "H200", "a4-highgpu": "B200"}
_GCP_COUNT = re.compile(r"-(\d+)g(?:-|$)")
_CLOUD = re.compile(r"^[a-z][a-z0-9_-]{1,39}$")


def is_skypilot_header(first_line: str) -> bool:
    cols = {c.strip().strip('"') for c in first_line.split(",")}
    return all(c in cols for c in REQUIRED)


def cloud_of(path: Path) -> str:
    """The provider: the name of the file's folder (``catalogs/v7/aws/vms.csv`` -> ``aws``)."""
    cloud = path.resolve().parent.name.lower()
    if not _CLOUD.match(cloud):
        raise PriceImportError(f"{path}: a SkyPilot catalog file is named by its folder (catalogs/v7/<cloud>/vms.csv); "
                               f"the folder {cloud!r} is not a cloud name", path=str(path))
    return cloud


def _price(text: str, where: str, col: str, path: Path) -> Decimal | None:
    text = (text or "").strip()
    if not text:
        return None
    try:
        d = Decimal(text)
    except InvalidOperation:
        raise PriceImportError(f"{where}: {col} {text!r} is not a number (USD per instance-hour)",
                               path=str(path)) from None
    if not d.is_finite() or d < 0:
        raise PriceImportError(f"{where}: {col} {text!r} is not a price >= 0", path=str(path))
    return d


def import_skypilot(path: Path, summary: FileSummary) -> Iterator[Row]:
    """Rows of one SkyPilot ``vms.csv`` (see the module docstring). ``summary.as_of_stated``: the date to
    write (empty: undated). Raises PriceImportError naming the file and line for a bad cell."""
    cloud = cloud_of(path)
    as_of = getattr(summary, "as_of_stated", "") or ""
    # (instance type, region) -> purchase -> list of (zone, price); plus the accelerator
    groups: dict[tuple[str, str], dict[str, list[tuple[str, Decimal]]]] = {}
    accel: dict[str, tuple[str, str]] = {}
    gcp_host: dict[tuple[str, str], tuple[str, Decimal | None, Decimal | None]] = {}  # (type, zone) -> region, od, spot
    gcp_gpu: dict[tuple[str, str, str], tuple[Decimal | None, Decimal | None]] = {}  # (gpu, count, zone) -> od, spot
    seen: set[tuple[str, ...]] = set()
    for _lineno, where, rec in csv_records(path, REQUIRED, lambda missing: PriceImportError(
            f"{path.name}: line 1: lacks the SkyPilot columns {missing}", path=str(path))):
        itype = (rec.get("InstanceType") or "").strip()
        name = (rec.get("AcceleratorName") or "").strip()
        region = (rec.get("Region") or "").strip()
        zone = (rec.get("AvailabilityZone") or "").strip()
        key = tuple((v or "").strip() for v in rec.values() if isinstance(v, str))
        label = itype or f"{name} x {rec.get('AcceleratorCount') or '?'} (GPU row)"
        if key in seen:
            summary.skip(f"duplicate row: {label}")
            continue
        seen.add(key)
        if not region:
            summary.skip(f"no Region: {label}")
            continue
        od = _price(rec.get("Price", ""), where, "Price", path)
        spot = _price(rec.get("SpotPrice", ""), where, "SpotPrice", path)
        count_text = (rec.get("AcceleratorCount") or "").strip()
        if cloud == "gcp" and itype and not name:
            gcp_host[(itype, zone)] = (region, od, spot)
            continue
        if cloud == "gcp" and name and not itype:
            gcp_gpu[(name, count_text, zone)] = (od, spot)
            continue
        if not name:
            summary.skip("no accelerator (not a GPU machine)")
            continue
        try:
            count = int(float(count_text))
        except ValueError:
            raise PriceImportError(f"{where}: AcceleratorCount {count_text!r} is not a number",
                                   path=str(path)) from None
        accel[itype] = (name, str(count))
        _add(groups, summary, itype, region, zone, od, spot)
    for (itype, zone), (region, od, spot) in sorted(gcp_host.items()):
        fam = next((f for f in GCP_FAMILIES if itype.startswith(f)), None)
        m = _GCP_COUNT.search(itype)
        if fam is None or m is None:
            summary.skip(f"GCP host row of an unknown GPU family: {itype}")
            continue
        gpu, n = GCP_FAMILIES[fam], int(m.group(1))
        g = gcp_gpu.get((gpu, f"{n}", zone)) or gcp_gpu.get((gpu, f"{n}.0", zone))
        if g is None:
            summary.skip(f"GCP zone without the {gpu} x {n} GPU row: {itype}")
            continue
        accel[itype] = (gpu, str(n))
        _add(groups, summary, itype, region, zone, None if od is None or g[0] is None else od + g[0],
             None if spot is None or g[1] is None else spot + g[1])
    source = f"SkyPilot catalog {cloud}/{path.name} (skypilot-org/skypilot-catalog schema v7; {path.name})"
    for (itype, region), by in sorted(groups.items()):
        gpu, n_gpus = accel[itype]
        for purchase, zones in sorted(by.items()):
            prices = [p for _, p in zones]
            hi, lo = max(prices), min(prices)
            spread = "" if hi == lo else (f"; zones differ {_decimal_text(lo)}..{_decimal_text(hi)}: the highest kept "
                                          f"({len(zones)} zones)")
            what = "host VM + GPUs, " if cloud == "gcp" else ""
            notes = (f"accelerator {gpu} x {n_gpus}; {purchase.replace('_', '-')} USD per instance-hour ({what}SkyPilot "
                     f"Price/SpotPrice){spread}" + ("" if as_of else "; undated: the catalog file carries no date"))
            item = itype if purchase == "on_demand" else f"{itype}:spot"
            r = _row(cloud, item, region, "", "instance-hour", hi, source, as_of, notes)
            r["verified"] = "no"
            yield r


def _add(groups: dict, summary: FileSummary, itype: str, region: str, zone: str, od: Decimal | None,
         spot: Decimal | None) -> None:
    by = groups.setdefault((itype, region), {})
    if od is None:
        summary.skip(f"empty Price (on demand): {itype}")
    else:
        by.setdefault("on_demand", []).append((zone, od))
    if spot is None:
        summary.skip(f"empty SpotPrice: {itype}")
    else:
        by.setdefault("spot", []).append((zone, spot))
    if not by:
        del groups[(itype, region)]
