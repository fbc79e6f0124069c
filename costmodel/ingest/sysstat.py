"""System telemetry text, chosen by content (format ``sysstat``):

* ``iostat_x``: ``iostat -x [-t] [-m] [interval]`` text reports -> one run per device: ``r/s`` -> ``read_iops``,
  ``w/s`` -> ``write_iops``, ``rkB/s`` / ``wkB/s`` (KiB: sysstat's kB are 1024 B; ``rMB/s`` with ``-m`` MiB) ->
  bytes/s, ``r_await`` (ms) -> ``read_latency_s``. ``t_s`` from ``-t`` timestamps, else report index x interval
  (1 s assumed, said in a warning). The first report is the average since boot: it is dropped (with a note) when
  there are later ones.
* ``sar_d``: ``sar -d [-p]`` text -> one run per device (``DEV``): ``rkB/s`` / ``wkB/s`` (or ``rd_sec/s`` /
  ``wr_sec/s``, 512-byte sectors) -> bytes/s, ``await`` (ms) -> ``read_latency_s`` (sar gives no read/write split:
  metadata says so); ``t_s`` from the row clock (``HH:MM:SS [AM|PM]``) and the header date. ``Average:`` rows are
  kept in metadata, not as rows.
* ``nvidia_smi_dmon``: ``nvidia-smi dmon [-s ...] [-o DT]`` (any column set, sniffed by its header) -> one run per
  GPU (GPU telemetry, merged onto a training run like nvidia-smi CSV by time weighting): ``sm`` % -> ``gpu_util``,
  ``pwr`` W -> ``gpu_power_w``; ``-`` is missing; lines that do not fit the header are counted; ``-o T`` (time of
  day only) gives relative seconds; without a clock the 1 s default interval is assumed (warning).
* ``dstat``: ``dstat --output FILE.csv`` -> one run: ``dsk/total`` (or the first ``dsk/*``) ``read`` / ``writ`` B/s;
  ``epoch`` or ``time`` column for ``t_s``, else 1 s per row (warning); dstat's first row (since boot) is dropped.
"""
from __future__ import annotations

import csv
import io
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation.errors import IngestError
from ..foundation.schema import Run
from ..foundation.units import KIB, MIB
from .validate import build_run, read_text, run_id_for

FORMAT = "sysstat"
FORMATS = ["sysstat", "iostat_x", "sar_d", "nvidia_smi_dmon", "dstat"]
#: GPU telemetry formats of this module (merged onto training runs by time)
GPU_FORMATS = ("nvidia_smi_dmon",)

_IOSTAT_DEV = re.compile(r"^Device:?\s+.*(r/s|rkB/s|rMB/s)", re.MULTILINE)
_SAR_D = re.compile(r"^\d\d:\d\d:\d\d(?:\s+[AP]M)?\s+(?:DEV\s+tps\s|tps\s.*\sDEV\s*$)", re.MULTILINE)
#: ``nvidia-smi dmon`` column names (any ``-s`` selection: p u c v m e t and their newer fields)
DMON_FIELDS = ("pwr", "gtemp", "mtemp", "sm", "mem", "enc", "dec", "jpg", "ofa", "mclk", "pclk", "pviol", "tviol",
               "fb", "bar1", "ccpm", "sbecc", "dbecc", "pci", "rxpci", "txpci", "nvlrx", "nvltx")
# a dmon header: "# gpu <field> ...", with "Date", "Time" or "Date Time" first when -o D / T / DT is given
_DMON = re.compile(r"^#\s*(?:Date\s+)?(?:Time\s+)?gpu\s+(?:" + "|".join(DMON_FIELDS) + r")\b", re.MULTILINE)
_DSTAT = re.compile(r'^"Dstat [\d.]+ CSV output"', re.MULTILINE)
_TS = re.compile(r"^(\d\d/\d\d/\d{2,4}\s+\d\d:\d\d:\d\d(?:\s+[AP]M)?|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[^\s]*)\s*$")


def kind(head: str) -> str | None:
    if _DSTAT.search(head):
        return "dstat"
    if _DMON.search(head):
        return "nvidia_smi_dmon"
    if _SAR_D.search(head):
        return "sar_d"
    if _IOSTAT_DEV.search(head):
        return "iostat_x"
    return None


def sniff(head: str, path: Path) -> bool:
    return kind(head) is not None


def sniffed_format(head: str, path: Path) -> str:
    return kind(head) or FORMAT


def read(path: Path, options: Any) -> list[Run]:
    text = read_text(path)
    fmt = getattr(options, "fmt", None)
    k = fmt if fmt in FORMATS[1:] else kind(text[: 1 << 16])
    if k is None:
        raise IngestError("not iostat -x, sar -d, nvidia-smi dmon or dstat CSV output", path=str(path))
    return {"iostat_x": _iostat, "sar_d": _sar, "nvidia_smi_dmon": _dmon, "dstat": _dstat}[k](path, text, options)


def _c(options: Any) -> dict[str, Any]:
    return {"role": getattr(options, "role", "") or "", "strict": getattr(options, "strict", False)}


def _cell(v: str) -> float:
    v = v.strip().replace(",", ".") if v.count(",") == 1 and "." not in v else v.strip()
    try:
        return float(v)
    except ValueError:
        return np.nan


def _parse_clock(s: str) -> float:
    for fmt in ("%m/%d/%Y %I:%M:%S %p", "%m/%d/%y %I:%M:%S %p", "%m/%d/%Y %H:%M:%S", "%m/%d/%y %H:%M:%S",
                "%d/%m/%Y %H:%M:%S", "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.strptime(s.strip(), fmt).timestamp()
        except ValueError:
            continue
    return np.nan


# ------------------------------------------------------------------------------------------------ iostat -x


def _iostat(path: Path, text: str, options: Any) -> list[Run]:
    src = str(path)
    lines = text.splitlines()
    reports: list[dict[str, Any]] = []
    header: list[str] | None = None
    clock = np.nan
    for i, line in enumerate(lines, start=1):
        s = line.strip()
        m = _TS.match(s)
        if m:
            clock = _parse_clock(m.group(1))
            continue
        if s.startswith("Device"):
            header = s.replace("Device:", "Device").split()
            reports.append({"clock": clock, "rows": {}, "line": i})
            continue
        if not s or header is None or s.startswith(("avg-cpu", "Linux")) or not reports:
            if not s:
                header = None
            continue
        parts = s.split()
        if len(parts) != len(header):
            continue
        reports[-1]["rows"][parts[0]] = (i, dict(zip(header[1:], parts[1:], strict=True)))
    reports = [r for r in reports if r["rows"]]
    if not reports:
        raise IngestError("no iostat -x device report ('Device r/s rkB/s ...' header and rows)", path=src)
    notes = []
    meta_base: dict[str, Any] = {"dialect": "iostat_x", "units": "kB = KiB (1024 B) in sysstat; MB = MiB"}
    if len(reports) > 1:
        reports = reports[1:]
        notes.append(f"{src}: the first iostat report (averages since boot) was dropped")
        meta_base["first_report"] = "dropped: averages since boot"
    clocks = np.array([r["clock"] for r in reports])
    if np.isfinite(clocks).all():
        t = clocks - clocks[0]
        meta_base["start_epoch_s"] = float(clocks[0])
    else:
        t = np.arange(len(reports), dtype="float64")
        notes.append(f"{src}: iostat reports have no timestamps (-t): 1 s interval assumed; t_s = report index")
        meta_base["t_s_from"] = "report index x 1 s (assumed interval)"
    devices = sorted({d for r in reports for d in r["rows"]})
    runs = []
    for dev in devices:
        def col(*names: str, factor: float = 1.0) -> np.ndarray:
            out = np.full(len(reports), np.nan)
            for j, r in enumerate(reports):
                row = r["rows"].get(dev)  # noqa: B023 - called within this iteration
                if row is None:
                    continue
                for nm in names:
                    if nm in row[1]:
                        out[j] = _cell(row[1][nm]) * factor
                        break
            return out
        cols = {"step": np.arange(len(reports), dtype="float64"), "t_s": t,
                "read_bytes_per_s": np.where(np.isfinite(col("rkB/s")), col("rkB/s", factor=KIB), col("rMB/s", factor=MIB)),
                "write_bytes_per_s": np.where(np.isfinite(col("wkB/s")), col("wkB/s", factor=KIB), col("wMB/s", factor=MIB)),
                "read_iops": col("r/s"), "write_iops": col("w/s"), "read_latency_s": col("r_await", "await", factor=1e-3)}
        have = [j for j, r in enumerate(reports) if dev in r["rows"]]
        lines_dev = np.array([reports[j]["rows"][dev][0] for j in have])
        cols = {k: v[have] for k, v in cols.items()}
        cols["step"] = np.arange(len(have), dtype="float64")
        meta = {**meta_base, "device": dev}
        runs.append(build_run(cols, path=path, run_id=run_id_for(path, options, dev), fmt="iostat_x", lines=lines_dev,
                              metadata=meta, warnings=list(notes), **_c(options)))
    return runs


# ------------------------------------------------------------------------------------------------ sar -d


def _sar(path: Path, text: str, options: Any) -> list[Run]:
    src = str(path)
    date = None
    m = re.search(r"\s(\d\d/\d\d/\d{2,4}|\d{4}-\d\d-\d\d)\s", text.splitlines()[0] if text else "")
    if m:
        date = m.group(1)
    header: list[str] | None = None
    per_dev: dict[str, list[tuple[int, float, dict[str, str]]]] = {}
    averages: dict[str, dict[str, str]] = {}
    for i, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s:
            continue
        parts = s.split()
        ampm = len(parts) > 1 and parts[1] in ("AM", "PM")
        clock = " ".join(parts[:2]) if ampm else parts[0]
        rest = parts[2:] if ampm else parts[1:]
        if "DEV" in rest and "tps" in rest:
            header = rest  # DEV first (sysstat < 12) or last (sysstat 12)
            continue
        if header is None:
            continue
        if parts[0] == "Average:":
            if len(parts) - 1 == len(header):
                row = dict(zip(header, parts[1:], strict=True))
                averages[row["DEV"]] = {k: v for k, v in row.items() if k != "DEV"}
            continue
        if len(rest) != len(header) or not re.match(r"\d\d:\d\d:\d\d", clock):
            continue
        row = dict(zip(header, rest, strict=True))
        dev = row.pop("DEV")
        per_dev.setdefault(dev, []).append((i, _sar_clock(date, clock), row))
    if not per_dev:
        raise IngestError("no sar -d rows ('HH:MM:SS DEV tps rkB/s ...')", path=src)
    runs = []
    for dev, rows in sorted(per_dev.items()):
        t = np.array([r[1] for r in rows])
        meta: dict[str, Any] = {"dialect": "sar_d", "device": dev, "average": averages.get(dev),
                                "latency_note": "sar's await covers reads and writes together (no read/write split)"}
        if np.isfinite(t).all():
            t = np.where(np.diff(np.concatenate(([t[0]], t))) < -43200, t + 86400, t)  # past midnight
            t = np.maximum.accumulate(t)
            meta["start_epoch_s"] = float(t[0])
            t = t - t[0]

        def col(name: str, factor: float) -> np.ndarray:
            return np.array([_cell(r[2][name]) * factor if name in r[2] else np.nan for r in rows])  # noqa: B023 - called within this iteration
        rd = col("rkB/s", KIB) if "rkB/s" in rows[0][2] else col("rd_sec/s", 512.0)
        wr = col("wkB/s", KIB) if "wkB/s" in rows[0][2] else col("wr_sec/s", 512.0)
        cols = {"step": np.arange(len(rows), dtype="float64"), "t_s": t, "read_bytes_per_s": rd, "write_bytes_per_s": wr,
                "read_latency_s": col("await", 1e-3)}
        runs.append(build_run(cols, path=path, run_id=run_id_for(path, options, dev), fmt="sar_d",
                              lines=np.array([r[0] for r in rows]), metadata=meta, **_c(options)))
    return runs


def _sar_clock(date: str | None, clock: str) -> float:
    if not date:
        date = "1970-01-01"
    for dfmt in ("%m/%d/%Y", "%m/%d/%y", "%Y-%m-%d", "%d/%m/%Y"):
        for tfmt in ("%I:%M:%S %p", "%H:%M:%S"):
            try:
                return datetime.strptime(f"{date} {clock}", f"{dfmt} {tfmt}").timestamp()
            except ValueError:
                continue
    return np.nan


# ------------------------------------------------------------------------------------------------ nvidia-smi dmon


def _dmon_clock(row: dict[str, str], day: float | None) -> float:
    """Unix seconds of a dmon row: ``-o DT`` (date and time), ``-o T`` (time only: on ``day``, else NaN)."""
    if "date" in row and "time" in row:
        try:
            return datetime.strptime(row["date"] + " " + row["time"], "%Y%m%d %H:%M:%S").timestamp()
        except ValueError:
            return np.nan
    if "time" in row and day is not None:
        try:
            t = datetime.strptime(row["time"], "%H:%M:%S")
        except ValueError:
            return np.nan
        return day + t.hour * 3600.0 + t.minute * 60.0 + t.second
    return np.nan


def _dmon(path: Path, text: str, options: Any) -> list[Run]:
    """``nvidia-smi dmon`` with any column set (``-s pucvmet``), sniffed by its header line; the header may
    repeat (dmon reprints it) and change. Rows whose field count differs from the header are counted."""
    src = str(path)
    header: list[str] | None = None
    per_gpu: dict[str, list[tuple[int, float, dict[str, str]]]] = {}
    skipped: list[int] = []
    units: dict[str, str] = {}
    for i, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s:
            continue
        if s.startswith("#"):
            names = s.lstrip("#").split()
            low = [n.lower() for n in names]
            if low and low[0] in ("gpu", "date", "time") and "gpu" in low:
                header = low
            elif header is not None and len(names) == len(header):
                units = dict(zip(header, names, strict=True))  # the unit line under the header ("Idx W C % ...")
            continue
        if header is None:
            skipped.append(i)
            continue
        parts = s.split()
        if len(parts) != len(header):
            skipped.append(i)
            continue
        row = dict(zip(header, parts, strict=True))
        per_gpu.setdefault(row.get("gpu", "0"), []).append((i, _dmon_clock(row, None), row))
    if not per_gpu:
        raise IngestError("no nvidia-smi dmon rows under a '# gpu <field> ...' header (e.g. '# gpu sm mem ...')", path=src)
    runs = []
    for gpu, rows in sorted(per_gpu.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0):
        ts = np.array([r[1] for r in rows])
        fields = [h for h in rows[0][2] if h not in ("gpu", "date", "time")]
        meta: dict[str, Any] = {"dialect": "nvidia_smi_dmon", "gpu": gpu, "fields": fields}
        warn = []
        if np.isfinite(ts).all():
            meta["start_epoch_s"] = float(ts[0])
            t = ts - ts[0]
        elif all("time" in r[2] for r in rows) and np.isfinite(tod := np.array([_dmon_clock(r[2], 0.0) for r in rows])).all():
            # -o T: a time of day without a date: seconds since the first sample (past midnight: + 1 day)
            t = np.concatenate([[0.0], np.diff(tod)])
            t = np.cumsum(np.where(t < -43200, t + 86400, t))
            meta["t_s_from"] = "dmon time of day (-o T), no date: no absolute clock to align with a training log"
        else:
            t = np.arange(len(rows), dtype="float64")
            warn.append(f"{src}: nvidia-smi dmon without -o DT has no date: 1 s interval assumed (dmon's default -d 1)")
            meta["t_s_from"] = "sample index x 1 s (assumed)"

        def col(name: str, factor: float = 1.0) -> np.ndarray:
            return np.array([_cell(r[2].get(name, "-")) * factor for r in rows])  # noqa: B023 - called within this iteration
        cols = {"step": np.arange(len(rows), dtype="float64"), "t_s": t}
        if "sm" in fields:
            cols["gpu_util"] = col("sm", 0.01)
            meta["gpu_util_from"] = "sm: % of the sample period a kernel ran on the SMs (nvidia-smi dmon)"
        if "pwr" in fields:
            cols["gpu_power_w"] = col("pwr")
        if len(cols) == 2:
            warn.append(f"{src}: nvidia-smi dmon columns {', '.join(fields)} hold neither sm (utilisation) nor pwr "
                        "(power): no Timeline column to import (add -s u or -s p)")
        meta["units"] = {k: v for k, v in units.items() if k in fields}
        means = {}
        for f in fields:
            v = col(f)
            means[f] = float(np.nanmean(v)) if np.isfinite(v).any() else None
        meta["means"] = means
        if skipped:
            warn.append(f"{src}: {len(skipped)} line(s) outside the dmon table or with another field count than its "
                        f"header were not imported (first: line {skipped[0]})")
            meta["skipped_lines"] = len(skipped)
        runs.append(build_run(cols, path=path, run_id=run_id_for(path, options, f"gpu{gpu}"), fmt="nvidia_smi_dmon",
                              lines=np.array([r[0] for r in rows]), metadata=meta, warnings=warn, **_c(options)))
    return runs


# ------------------------------------------------------------------------------------------------ dstat CSV


def _dstat(path: Path, text: str, options: Any) -> list[Run]:
    src = str(path)
    rows = list(csv.reader(io.StringIO(text)))
    groups_i = next((i for i, r in enumerate(rows) if r and any(c.startswith(("dsk/", "total cpu", "system", "epoch"))
                                                                   for c in r)), None)
    if groups_i is None or groups_i + 1 >= len(rows):
        raise IngestError("no dstat group and column header rows", path=src)
    groups, names = rows[groups_i], rows[groups_i + 1]
    cur = ""
    full = []
    for j, n in enumerate(names):
        if j < len(groups) and groups[j]:
            cur = groups[j]
        full.append(f"{cur}:{n}")
    disk = next((g for g in ("dsk/total",) if any(f.startswith(g + ":") for f in full)), None) \
        or next((f.split(":")[0] for f in full if f.startswith("dsk/")), None)
    data = [(groups_i + 3 + k, r) for k, r in enumerate(rows[groups_i + 2:]) if len(r) >= len(names)]
    if not data:
        raise IngestError("no dstat data rows", path=src)
    meta: dict[str, Any] = {"dialect": "dstat", "disk_group": disk}
    notes = []
    if len(data) > 1:
        data = data[1:]
        notes.append(f"{src}: dstat's first row (averages since boot) was dropped")

    def col(key: str) -> np.ndarray:
        j = full.index(key)
        return np.array([_cell(r[j]) for _i, r in data])
    cols: dict[str, np.ndarray] = {"step": np.arange(len(data), dtype="float64")}
    if disk:
        cols["read_bytes_per_s"] = col(f"{disk}:read")
        cols["write_bytes_per_s"] = col(f"{disk}:writ")
    ep = next((f for f in full if f.endswith(":epoch")), None)
    tm = next((f for f in full if f.endswith(":time")), None)
    year = re.search(r'"Date:","\d\d \w{3} (\d{4})', text)
    clock = np.array([_dstat_clock(r[full.index(tm)], year.group(1) if year else "1970") for _i, r in data]) if tm else None
    if ep:
        e = col(ep)
        meta["start_epoch_s"] = float(e[0])
        cols["t_s"] = e - e[0]
    elif clock is not None and np.isfinite(clock).all():
        clock = np.maximum.accumulate(np.where(np.diff(np.concatenate(([clock[0]], clock))) < -180 * 86400,
                                               clock + 365 * 86400, clock))  # past new year
        meta["start_epoch_s"] = float(clock[0])
        cols["t_s"] = clock - clock[0]
        meta["t_s_from"] = "dstat time column (dd-mm HH:MM:SS, year from the header Date)"
    else:
        cols["t_s"] = np.arange(len(data), dtype="float64")
        notes.append(f"{src}: dstat CSV without an epoch or time column: 1 s per row assumed (dstat's default delay)")
    if not disk:
        raise IngestError("dstat CSV has no dsk/* columns (read, writ); run dstat with -d", path=src)
    return [build_run(cols, path=path, run_id=run_id_for(path, options), fmt="dstat",
                      lines=np.array([i for i, _r in data]), metadata=meta, warnings=notes, **_c(options))]


def _dstat_clock(cell: str, year: str) -> float:
    for fmt in ("%d-%m %H:%M:%S", "%b-%d %H:%M:%S"):
        try:
            return datetime.strptime(f"{year} {cell.strip()}", f"%Y {fmt}").timestamp()
        except ValueError:
            continue
    return np.nan
