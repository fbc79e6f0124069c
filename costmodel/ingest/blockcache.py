"""Caching block devices sampled over time (format ``blockcache``; sub-formats ``bcache_telegraf``,
``dmcache_status``): a cache warm-up seen from below the file system, read as a Timeline on the time axis.

Two shapes, both cumulative counters sampled every few seconds:

* ``bcache_telegraf``: InfluxDB line protocol from Telegraf's ``inputs.bcache`` plugin (influxdata/telegraf,
  ``plugins/inputs/bcache``: one ``bcache`` measurement per backing device, tags ``backing_dev`` and
  ``bcache_dev``, the ``stats_total`` counters ``cache_hits``, ``cache_misses``, ``cache_bypass_hits``,
  ``cache_bypass_misses``, ``cache_readaheads``, ``cache_miss_collisions``, the cumulative ``cache_hit_ratio``
  (percent) and ``bypassed`` / ``dirty_data`` in bytes), usually beside ``inputs.diskio``'s ``diskio`` lines of
  the cached device (tag ``name=bcache0``; cumulative ``reads``, ``read_bytes``, ...). Timestamps in ns (or s,
  ms, us: told by their size).
* ``dmcache_status``: ``dmsetup status`` of a dm-cache / lvmcache device, sampled with a time stamp in front
  (``date +%s`` or ISO 8601), e.g. ``1714557600 0 41943040 cache 8 259/2048 128 8192/81920 1210 4311 0 0 0
  812 0 1 writethrough 2 migration_threshold 2048 smq 0 rw -``; the fields after ``cache`` are, as the kernel
  documents them (Documentation/admin-guide/device-mapper/cache.rst, "Status"): metadata block size,
  used/total metadata blocks, cache block size (sectors), used/total cache blocks, read hits, read misses,
  write hits, write misses, demotions, promotions, dirty, ... An optional ``name:`` precedes the start
  sector (``dmsetup status`` of several devices).

Per interval between two samples (row ``k`` covers ``(t_{k-1}, t_k]``):

* ``cache_hit_ratio`` = hits / (hits + misses) **of the interval** (differences of the counters). bcache's own
  ``cache_hit_ratio`` is cumulative since the device was registered: it creeps towards the warm value for
  hours and never settles, so it is not used (kept in ``metadata`` as the last value); bcache counts hits and
  misses per IO (reads and writes), dm-cache read hits and read misses only;
* ``read_bytes_per_s`` / ``read_iops`` from ``diskio``'s ``read_bytes`` / ``reads`` of the cached device
  (bcache); dm-cache counts bios, not bytes: ``read_iops`` = (read hits + read misses) / seconds;
* a counter that goes back (the device re-registered, the host rebooted) leaves that interval out (counted);
  an interval without IO has no hit ratio.

``step`` is the sample index; analyse on the time axis (``--axis t_s``). Without read throughput (bcache
without ``diskio``) only the hit ratio is there: ``fit --metric cache_hit_ratio``.
"""
from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation.errors import IngestError
from ..foundation.schema import Run
from .validate import build_run, read_text, run_id_for

FORMAT = "blockcache"
FORMATS = ["blockcache", "bcache_telegraf", "dmcache_status"]

LP_RE = re.compile(r"^(?P<meas>[A-Za-z_][\w.-]*)(?P<tags>(?:,[^\s]+)?)\s+(?P<fields>\S+)(?:\s+(?P<ts>\d+))?\s*$")
BCACHE_SNIFF_RE = re.compile(r"^bcache,\S*\s\S*\bcache_(?:hits|misses)=\d", re.MULTILINE)
DM_RE = re.compile(
    r"^(?P<ts>\d{9,10}(?:\.\d+)?|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?)\s+"
    r"(?:(?P<dev>[\w.+-]+):\s+)?\d+\s+\d+\s+cache\s+(?P<rest>.*)$")
DM_FIELDS_RE = re.compile(r"^\d+\s+\d+/\d+\s+(?P<cbs>\d+)\s+(?P<cu>\d+)/(?P<ct>\d+)\s+(?P<rh>\d+)\s+(?P<rm>\d+)\s+"
                          r"(?P<wh>\d+)\s+(?P<wm>\d+)\s+(?P<dem>\d+)\s+(?P<pro>\d+)\s+(?P<dirty>\d+)(?:\s|$)")


def dialect(head: str) -> str | None:
    """``bcache_telegraf``, ``dmcache_status`` or None."""
    if BCACHE_SNIFF_RE.search(head):
        return "bcache_telegraf"
    n = 0
    for line in head.splitlines()[:200]:
        if DM_RE.match(line.strip()):
            n += 1
            if n >= 2:
                return "dmcache_status"
    return None


def sniff(head: str, path: Path) -> bool:
    return dialect(head) is not None


def _lp_seconds(raw: str) -> float:
    v = int(raw)
    if v >= 10**17:
        return v / 1e9
    if v >= 10**14:
        return v / 1e6
    if v >= 10**11:
        return v / 1e3
    return float(v)


def _lp_fields(txt: str, src: str, ln: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for part in txt.split(","):
        if "=" not in part:
            raise IngestError(f"line-protocol field {part!r} is not key=value", path=src, line=ln)
        k, v = part.split("=", 1)
        if v.startswith('"'):
            continue
        try:
            out[k] = float(v[:-1] if v[-1:] in ("i", "u") else v)
        except ValueError:
            raise IngestError(f"line-protocol field {k}={v!r} is not a number (expected e.g. {k}=123i)", path=src,
                              line=ln, field=k) from None
    return out


def _lp_tags(txt: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in txt.strip(",").split(","):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k] = v.strip('"')
    return out


def read(path: Path, options: Any) -> list[Run]:
    src = str(path)
    text = read_text(path)
    fmt = getattr(options, "fmt", None)
    kind = fmt if fmt in FORMATS[1:] else dialect(text[: 1 << 20])
    if kind == "bcache_telegraf":
        return _telegraf(path, text, options)
    if kind == "dmcache_status":
        return _dmcache(path, text, options)
    raise IngestError("neither Telegraf bcache line protocol ('bcache,bcache_dev=... cache_hits=..i,cache_misses=..i "
                      "<ts>') nor time-stamped 'dmsetup status' lines of a dm-cache device", path=src)


def _telegraf(path: Path, text: str, options: Any) -> list[Run]:
    src = str(path)
    bc: dict[str, list[tuple[float, int, dict[str, float]]]] = {}
    disk: dict[str, dict[float, dict[str, float]]] = {}
    backing: dict[str, str] = {}
    other = 0
    for ln, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        m = LP_RE.match(s)
        if m is None or m.group("meas") not in ("bcache", "diskio"):
            other += 1
            continue
        if m.group("ts") is None:
            raise IngestError(f"{m.group('meas')} line without a time stamp; expected line protocol "
                              "'measurement,tags fields <timestamp>'", path=src, line=ln)
        t_line = _lp_seconds(m.group("ts"))
        tags = _lp_tags(m.group("tags"))
        fields = _lp_fields(m.group("fields"), src, ln)
        if m.group("meas") == "bcache":
            if "cache_hits" not in fields or "cache_misses" not in fields:
                raise IngestError("bcache line without cache_hits and cache_misses (Telegraf inputs.bcache)", path=src,
                                  line=ln)
            dev = tags.get("bcache_dev") or tags.get("backing_dev") or "bcache"
            bc.setdefault(dev, []).append((t_line, ln, fields))
            backing.setdefault(dev, tags.get("backing_dev", ""))
        else:
            disk.setdefault(tags.get("name", ""), {})[t_line] = fields
    if not bc:
        raise IngestError("no 'bcache' line (Telegraf inputs.bcache line protocol)", path=src)
    runs = []
    for dev, rows in bc.items():
        rows.sort(key=lambda r: r[0])
        t = np.array([r[0] for r in rows])
        lines = np.array([r[1] for r in rows])
        hits = np.array([r[2]["cache_hits"] for r in rows])
        miss = np.array([r[2]["cache_misses"] for r in rows])
        dio = disk.get(dev, {})
        rb = np.array([dio.get(x, {}).get("read_bytes", np.nan) for x in t])
        rd = np.array([dio.get(x, {}).get("reads", np.nan) for x in t])
        meta: dict[str, Any] = {"dialect": "bcache_telegraf", "bcache_dev": dev,
                                "backing_dev": backing.get(dev, ""),
                                "cache_hit_ratio_is": "hits / (hits + misses) of each interval (bcache counts per IO, "
                                                      "reads and writes); bcache's own cache_hit_ratio is cumulative"}
        last = rows[-1][2].get("cache_hit_ratio")
        if last is not None:
            meta["bcache_cumulative_hit_ratio_pct_last"] = last
        warn: list[str] = []
        counters = {"hits": hits, "misses": miss}
        if np.isfinite(rb).sum() >= 2:
            counters["read_bytes"] = rb
            counters["reads"] = rd
        else:
            warn.append(f"{src}: no diskio read_bytes for {dev} (Telegraf inputs.diskio with devices = [\"{dev}\"]): "
                        "only the hit ratio is read; fit it with --metric cache_hit_ratio")
        suffix = dev if len(bc) > 1 else ""
        runs.append(_run(path, options, suffix, t, lines, counters, meta, warn, other))
    return runs


def _iso_s(raw: str) -> float:
    txt = raw.replace("Z", "+00:00").replace(" ", "T")
    dt = datetime.fromisoformat(txt)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


def _dmcache(path: Path, text: str, options: Any) -> list[Run]:
    src = str(path)
    by_dev: dict[str, list[tuple[float, int, dict[str, float]]]] = {}
    other = 0
    for ln, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s:
            continue
        m = DM_RE.match(s)
        if m is None:
            other += 1
            continue
        f = DM_FIELDS_RE.match(m.group("rest"))
        if f is None:
            raise IngestError("a dm-cache status line whose fields after 'cache' cannot be read; expected '<metadata "
                              "block size> <used>/<total> <cache block size> <used>/<total> <read hits> <read misses> "
                              "<write hits> <write misses> <demotions> <promotions> <dirty> ...'", path=src, line=ln)
        ts = m.group("ts")
        try:
            t_line = float(ts) if "-" not in ts else _iso_s(ts)
        except ValueError:
            raise IngestError(f"time stamp {ts!r} is neither epoch seconds nor ISO 8601", path=src, line=ln) from None
        vals = {k: float(v) for k, v in f.groupdict().items()}
        by_dev.setdefault(m.group("dev") or "", []).append((t_line, ln, vals))
    if not by_dev:
        raise IngestError("no time-stamped 'dmsetup status' line of a cache target ('<epoch s> 0 <len> cache ...')",
                          path=src)
    runs = []
    for dev, rows in by_dev.items():
        rows.sort(key=lambda r: r[0])
        t = np.array([r[0] for r in rows])
        lines = np.array([r[1] for r in rows])
        v = {k: np.array([r[2][k] for r in rows]) for k in rows[0][2]}
        meta: dict[str, Any] = {"dialect": "dmcache_status", "device": dev,
                                "cache_block_bytes": float(v["cbs"][-1]) * 512.0,
                                "cache_blocks_used_last": float(v["cu"][-1]), "cache_blocks_total": float(v["ct"][-1]),
                                "cache_hit_ratio_is": "read hits / (read hits + read misses) of each interval",
                                "read_iops_is": "bios read per second (read hits + read misses); dm-cache counts bios, "
                                                "not bytes"}
        counters = {"hits": v["rh"], "misses": v["rm"], "reads": v["rh"] + v["rm"]}
        runs.append(_run(path, options, dev if len(by_dev) > 1 else "", t, lines, counters, meta, [], other))
    return runs


def _run(path: Path, options: Any, suffix: str, t: np.ndarray, lines: np.ndarray, counters: dict[str, np.ndarray],
         meta: dict[str, Any], warn: list[str], other: int) -> Run:
    """Interval rows from cumulative counters sampled at ``t`` (epoch seconds)."""
    src = str(path)
    if len(t) < 3:
        raise IngestError(f"{len(t)} sample(s): at least 3 are needed for 2 intervals", path=src)
    dt = np.diff(t)
    diffs = {k: np.diff(v) for k, v in counters.items()}
    ok = dt > 0
    reset = np.zeros(len(dt), dtype=bool)
    for d in diffs.values():
        reset |= np.isfinite(d) & (d < 0)
    ok &= ~reset
    io = diffs["hits"] + diffs["misses"]
    with np.errstate(divide="ignore", invalid="ignore"):
        hit = np.where(io > 0, diffs["hits"] / io, np.nan)
        cols: dict[str, np.ndarray] = {"step": np.arange(1, len(t), dtype="float64")[ok], "t_s": (t[1:] - t[0])[ok],
                                       "cache_hit_ratio": hit[ok]}
        if "read_bytes" in diffs:
            cols["read_bytes_per_s"] = (diffs["read_bytes"] / dt)[ok]
        if "reads" in diffs:
            cols["read_iops"] = (diffs["reads"] / dt)[ok]
    meta["start_epoch_s"] = float(t[0])
    meta["start_time"] = datetime.fromtimestamp(float(t[0]), tz=timezone.utc).isoformat()
    meta["sample_interval_s"] = float(np.median(dt[dt > 0])) if (dt > 0).any() else None
    meta["skipped"] = {"other_lines": other, "counter_resets": int(reset.sum()), "intervals_without_time": int((dt <= 0).sum()),
                       "intervals_without_io": int(np.sum(ok & ~(io > 0)))}
    if reset.any():
        warn.append(f"{src}: a counter went back {int(reset.sum())} time(s) (device re-registered or host rebooted); "
                    "those intervals were left out")
    if other:
        warn.append(f"{src}: {other} other line(s) were not imported")
    return build_run(cols, path=path, run_id=run_id_for(path, options, suffix), fmt=meta["dialect"],
                     lines=lines[1:][ok], metadata=meta, warnings=warn, role=getattr(options, "role", "") or "",
                     strict=getattr(options, "strict", False))
