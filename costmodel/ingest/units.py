"""Column names and units: which Timeline column a source column feeds, and the factor to SI.

Pure functions, no I/O. ``resolve_column("read_MBps")`` -> ``Mapping("read_bytes_per_s", 1e6)``.
Rules (documented in the README's ingest section):

* names are matched case-insensitively after trimming, ``[unit]`` / ``(unit)`` brackets are read as the unit;
* a unit suffix (``_ms``, ``_us``, ``_pct``, ``%``, ``_MBps``, ``_MiBps`` ...) sets the conversion;
* ``MB``/``GB``/``KB`` are decimal (10^6, 10^9, 10^3 bytes); ``MiB``/``GiB``/``KiB`` are binary (2^20 ...);
* percentages become fractions 0..1.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..foundation.errors import IngestError
from ..foundation.schema import TIMELINE_COLUMNS
from ..foundation.units import BYTES, BYTES_PER_S, FRACTION, SECONDS, pick

#: unit string (lower case, as a user writes it in --map or a header) -> factor to SI; the factors are
#: the package's one unit table (costmodel.foundation.units), these are the spellings a column header may use
UNIT_FACTORS: dict[str, float] = {
    "": 1.0,
    "1": 1.0,
    **pick(SECONDS, ("s", "sec", "secs", "seconds", "ms", "msec", "us", "usec", "µs", "ns", "min", "h")),
    **FRACTION,
    **pick(BYTES, ("b", "bytes", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib")),
    **BYTES_PER_S,
    "1/s": 1.0,
    "/s": 1.0,
    "w": 1.0,
}

#: units of a byte rate (a "throughput" in these units is storage bandwidth)
BYTE_RATE_UNITS = ("b/s", "kb/s", "mb/s", "gb/s", "kib/s", "mib/s", "gib/s", "mbit/s", "gbit/s")

#: time units that mean "absolute time" (converted to seconds since the first row)
ABSOLUTE_TIME_UNITS = ("iso", "epoch_s", "epoch_ms", "epoch_us", "epoch_ns")


@dataclass(frozen=True)
class Mapping:
    """Where a source column goes: Timeline ``column``, multiply by ``factor``; ``unit`` as found."""

    column: str
    factor: float = 1.0
    unit: str = ""
    #: for time columns: "" (elapsed seconds, scaled by factor) or one of ABSOLUTE_TIME_UNITS / "auto"
    time_kind: str = ""
    #: True when the unit was guessed (the reader may want to say so)
    ambiguous: bool = False
    #: the prefix of a prefixed source name (``train`` for ``train/samples_per_sec``), kept in metadata
    prefix: str = ""


def unit_factor(unit: str, *, field: str | None = None) -> float:
    """Factor from ``unit`` to SI; raises IngestError naming the known units."""
    u = unit.strip().lower().replace(" ", "")
    if u in UNIT_FACTORS:
        return UNIT_FACTORS[u]
    raise IngestError(
        f"unknown unit {unit!r}; expected one of: {', '.join(sorted(k for k in UNIT_FACTORS if k))}"
        f", or for time columns: {', '.join(ABSOLUTE_TIME_UNITS)}",
        field=field,
    )


def _norm(name: str) -> str:
    n = name.strip().strip('"').strip()
    n = re.sub(r"\s+", "_", n)
    return n


#: time names whose cells are often text (ISO 8601): read as text first. Other time names (``t_s``, ``elapsed``...) are
#: read as numbers first (time_kind ``auto_num``), and as text when a cell is not a number; both follow the same rules.
TEXT_TIME_BASES = ("time", "timestamp", "date", "datetime", "ts", "t", "wall_time", "walltime", "wall_clock", "_timestamp")

# Base names (lower case, no unit) -> Timeline column.
_ALIASES: dict[str, str] = {}


def _alias(col: str, *names: str) -> None:
    for n in names:
        _ALIASES[n] = col


_alias("step", "step", "steps", "batch", "batch_idx", "iter", "iteration", "iterations", "global_step", "pass", "_step",
       "trainer/global_step")
_alias("t_s", "_runtime", "_timestamp", "t", "time", "timestamp", "elapsed", "elapsed_time", "wall_time", "walltime",
       "wall_clock", "date", "datetime", "ts")
_alias("epoch", "epoch", "epochs", "epoch_num")
_alias(
    "samples_per_s",
    "samples_per",
    "samples_per_sec",
    "samples_per_second",
    "samples/",
    "samples/sec",
    "throughput",
    "sps",
    "imgs_sec",
    "images_per_sec",
    "images_per_second",
    "img/",
    "images/",
    "train_samples_per_second",
)
_alias("tokens_per_s", "tokens_per", "tokens_per_sec", "tokens_per_second", "tok/", "tokens/", "tps", "tokens/sec")
_alias("step_time_s", "step_time", "batch_time", "iter_time", "iteration_time", "step_duration", "time_per_step", "steptime")
_alias(
    "gpu_util",
    "gpu_util",
    "gpu_utilization",
    "utilization.gpu",
    "gpu_usage",
    "gract",
    "dcgm_fi_prof_gr_engine_active",
    "dcgm_fi_dev_gpu_util",
)
_alias("read_bytes_per_s", "read_bytes_per", "read_bw", "read_throughput", "read_bandwidth", "read", "read_rate")
_alias("write_bytes_per_s", "write_bytes_per", "write_bw", "write_throughput", "write_bandwidth", "write", "write_rate")
_alias("read_iops", "read_iops", "r_iops", "iops")
_alias("write_iops", "write_iops", "w_iops")
_alias("read_latency_s", "read_latency", "read_lat", "latency", "lat", "read_await", "r_await")
_alias("cache_hit_ratio", "cache_hit", "cache_hit_ratio", "hit_rate", "hit_ratio", "cache_hit_rate", "cache_hits")
_alias("data_wait_s", "data_wait", "dataloader_time", "data_time", "data_loading_time", "load_time", "io_wait")
_alias("bytes_read", "bytes_read", "read_bytes", "data_read")
_alias("cross_region_bytes", "cross_region_bytes", "cross_region")
_alias("samples", "samples", "num_samples", "samples_processed")
_alias("gpu_power_w", "power", "power.draw", "power_draw", "gpu_power", "power.draw.average", "power.draw.instant",
       "dcgm_fi_dev_power_usage")

# Units that may end a name, longest first (so "_mibps" wins over "_bps"). Value: canonical unit.
_SUFFIX_UNITS: list[tuple[str, str]] = [
    ("_bytes_per_s", "b/s"),
    ("_per_s", "1/s"),
    ("_per_sec", "1/s"),
    ("_gibps", "gib/s"),
    ("_mibps", "mib/s"),
    ("_kibps", "kib/s"),
    ("_gbps", "gb/s"),
    ("_mbps", "mb/s"),
    ("_kbps", "kb/s"),
    ("_gib/s", "gib/s"),
    ("_mib/s", "mib/s"),
    ("_kib/s", "kib/s"),
    ("_gb/s", "gb/s"),
    ("_mb/s", "mb/s"),
    ("_kb/s", "kb/s"),
    ("_ratio", "fraction"),
    ("_fraction", "fraction"),
    ("_percent", "%"),
    ("_pct", "%"),
    ("%", "%"),
    ("_msec", "ms"),
    ("_ms", "ms"),
    ("_usec", "us"),
    ("_us", "us"),
    ("_ns", "ns"),
    ("_sec", "s"),
    ("_s", "s"),
    ("_gib", "gib"),
    ("_mib", "mib"),
    ("_kib", "kib"),
    ("_gb", "gb"),
    ("_mb", "mb"),
    ("_kb", "kb"),
    ("_bytes", "b"),
    ("_w", "w"),
]

# Storage-style units written without underscore: "rMB/s", "read_MBps", "MiB/s".
_BARE_RATE = re.compile(r"^(?P<base>.*?)[_ ]?(?P<unit>[kmgt]i?b(?:/s|ps))$")


def split_unit(name: str) -> tuple[str, str]:
    """Split a column name into (base name, unit): ``"read_MBps"`` -> ``("read", "mb/s")``.

    A bracketed unit wins: ``"utilization.gpu [%]"`` -> ``("utilization.gpu", "%")``.
    """
    n = _norm(name)
    m = re.match(r"^(?P<base>.*?)_*[\[(](?P<unit>[^\])]*)[\])]$", n)
    if m:
        unit = m.group("unit").strip().lower()
        return m.group("base").lower().rstrip("_"), unit
    low = n.lower()
    if low in _ALIASES:
        return low, ""
    if low.endswith("/s") and low[:-1] in _ALIASES:  # "samples/s", "tok/s"
        return low[:-1], "1/s"
    if low.endswith("/sec") and low[:-3] in _ALIASES:  # "samples/sec"
        return low[:-3], "1/s"
    m = _BARE_RATE.match(low)
    if m and m.group("base"):
        unit = m.group("unit").replace("ps", "/s")
        return m.group("base").rstrip("_"), unit
    for suf, unit in _SUFFIX_UNITS:
        if low.endswith(suf) and len(low) > len(suf):
            return low[: -len(suf)], unit
    return low, ""


def resolve_column(name: str) -> Mapping | None:
    """The Timeline column and SI factor for a source column name, or None when it is not one we know."""
    n = _norm(name)
    low = n.lower()
    if low in TIMELINE_COLUMNS and low not in ("run_id", "role"):
        # canonical names map to themselves (already SI)
        if low == "t_s":
            return Mapping("t_s", 1.0, "s", time_kind="auto_num")  # epoch s/ms by magnitude, ISO text too
        # a canonical fraction column holding 0..100 is read as percent (with a warning)
        return Mapping(low, 1.0, "", ambiguous=low in ("gpu_util", "cache_hit_ratio"))
    base, unit = split_unit(n)
    col = _ALIASES.get(base)
    if col is None and unit in ("b/s", "1/s") and base + "_per_s" in TIMELINE_COLUMNS:
        col = base + "_per_s"
    if col is None:
        return None
    ambiguous = False
    if col == "t_s":
        # every time alias reads ISO 8601 text and epoch s/ms/us/ns (by magnitude) the same way
        if unit in ("", "s") and base in TEXT_TIME_BASES:
            return Mapping("t_s", 1.0, unit, time_kind="auto")
        if unit not in UNIT_FACTORS:
            return None
        return Mapping("t_s", UNIT_FACTORS[unit], unit or "s", time_kind="auto_num")
    if unit not in UNIT_FACTORS:
        return None
    factor = UNIT_FACTORS[unit]
    if unit in BYTE_RATE_UNITS and col in ("samples_per_s", "tokens_per_s", "read_iops"):
        col = "read_bytes_per_s"  # "throughput_MiBps", "Throughput MiB/s": bytes, not samples
    if col in ("read_bytes_per_s", "write_bytes_per_s", "bytes_read", "cross_region_bytes") and unit == "":
        # bare "read_bw" / "read": no unit, keep as bytes(/s) but flag it
        ambiguous = base not in ("read_bytes_per", "write_bytes_per", "bytes_read", "read_bytes", "cross_region_bytes")
    if col in ("read_bytes_per_s", "write_bytes_per_s") and unit == "mb/s" and "mbps" in low and "MBps" not in n:
        ambiguous = True  # lower-case "mbps" could be megabits; we read megabytes and say so
    if (col in ("read_latency_s", "step_time_s", "data_wait_s") and unit == ""
            and base in ("latency", "lat", "read_lat", "read_latency")):
        ambiguous = True  # a bare "latency" is often ms: read as seconds, and say so
    if col in ("gpu_util", "cache_hit_ratio") and unit == "":
        return Mapping(col, 1.0, "", ambiguous=True)  # fraction or percent: decided from the values
    return Mapping(col, factor, unit, ambiguous=ambiguous)


def mapping_from_option(src: str, dst: str, unit: str | None) -> Mapping:
    """A ``--map src=dst[:unit]`` item as a Mapping; raises IngestError on an unknown column or unit."""
    if dst not in TIMELINE_COLUMNS or dst in ("run_id", "role"):
        valid = ", ".join(c for c in TIMELINE_COLUMNS if c not in ("run_id", "role"))
        raise IngestError(f"--map {src}={dst}: unknown Timeline column {dst!r}; expected one of: {valid}", field="--map")
    u = (unit or "").strip().lower()
    if dst == "t_s" and u in ABSOLUTE_TIME_UNITS:
        return Mapping("t_s", 1.0, u, time_kind=u)
    return Mapping(dst, unit_factor(u, field="--map") if u else 1.0, u)


#: The aliases docs/ingest.md documents, per Timeline column. A ``--pattern`` group must be a Timeline column or one
#: of these (a unit suffix allowed: ``step_time_ms``, ``time_ms``); any other name is kept as an extra, never guessed.
DOCUMENTED_ALIASES: dict[str, tuple[str, ...]] = {
    "step": ("batch", "iter", "iteration", "global_step", "pass"),
    "t_s": ("time", "timestamp", "elapsed", "elapsed_s", "wall_time"),
    "epoch": ("epoch",),
    "samples_per_s": ("samples_per_sec", "samples/s", "samples/sec", "throughput", "imgs_sec"),
    "tokens_per_s": ("tokens_per_sec", "tok/s", "tokens/s", "tps"),
    "step_time_s": ("step_time", "step_time_ms", "batch_time", "iter_time"),
    "gpu_util": ("gpu_util_pct", "gpu_util%", "utilization.gpu [%]", "GRACT", "DCGM_FI_DEV_GPU_UTIL"),
    "read_bytes_per_s": ("read_mbps", "read_MBps", "read_MiBps", "read_GBps", "read_GiBps", "read_bw", "Throughput MiB/s"),
    "read_latency_s": ("read_latency_ms", "read_lat_us", "r_await"),
    "cache_hit_ratio": ("cache_hit", "hit_rate", "hit_ratio", "cache_hit_pct"),
    "data_wait_s": ("data_wait", "data_wait_ms", "dataloader_time", "data_time"),
    "gpu_power_w": ("power.draw [W]", "power_draw"),
}


def documented_column(name: str) -> Mapping | None:
    """``resolve_column(name)`` when ``name`` is a Timeline column or a documented alias (with or without a unit
    suffix), else None: the strict rule for ``--pattern`` group names (``gpu`` is not ``gpu_util``, ``date`` is not
    ``t_s``)."""
    m = resolve_column(name)
    if m is None:
        return None
    low = _norm(name).lower()
    names = {a.lower() for al in DOCUMENTED_ALIASES.values() for a in al}
    names |= {c for c in TIMELINE_COLUMNS if c not in ("run_id", "role")}
    bases = {split_unit(a)[0] for a in names} | names
    for c in TIMELINE_COLUMNS:  # canonical stems with another unit: step_time_ms, read_latency_us, data_wait_ms
        for suf in ("_s", "_w", "_per_s"):
            if c.endswith(suf):
                bases.add(c[: -len(suf)])
    if low in names or split_unit(name)[0] in bases:
        return m
    return None


#: prefixes whose metrics are not the training run's (evaluation): a column under them maps only when no other does
EVAL_PREFIXES = ("eval", "val", "valid", "validation", "test")


def resolve_prefixed(name: str, resolver: Any = None) -> tuple[Mapping, str] | None:
    """A prefixed metric name mapped by its last part: ``train/samples_per_sec`` -> (samples_per_s, ``train``),
    ``perf/tok/s`` -> (tokens_per_s, ``perf``), a W&B panel column ``run-7 - train/loss`` -> its metric. Returns
    (Mapping, prefix) or None. W&B ``__MIN`` / ``__MAX`` band columns are not metrics (None)."""
    res = resolver or resolve_column
    n = _norm(name)
    if n.endswith(("__MIN", "__MAX", "__min", "__max")):
        return None
    if " - " in name:
        n = _norm(name.rsplit(" - ", 1)[1])
    parts = n.split("/")
    for k in range(1, len(parts)):
        tail = "/".join(parts[k:])
        m = res(tail)
        if m is not None:
            return m, "/".join(parts[:k])
    if n != _norm(name):
        m = res(n)
        if m is not None:
            return m, ""
    return None

