"""GPU telemetry: ``nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]``, ``dcgmi dmon`` and
DCGM-exporter style CSV. One run per GPU (``run_id`` = ``<file>:gpu<N>``).

* nvidia-smi: ``", "``-separated, units in the header (``utilization.gpu [%]``) and, without ``nounits``,
  in the cells (``45 %``, ``27.32 W``); ``N/A`` / ``[N/A]`` are missing values. ``timestamp``
  (``YYYY/MM/DD HH:MM:SS.mmm``, local) -> ``t_s`` since the file's first sample, shared by all GPUs.
  Repeated timestamps are kept in row order (nvidia-smi's clock is coarser than its polling).
* dcgmi dmon: fixed-width, ``GPU N`` entity rows, fields are fractions 0..1; ``GRACT`` (else ``SMACT``)
  -> ``gpu_util``; no timestamps: ``t_s`` = sample index x the interval (``-d``, 1 s unless ``--map``...
  the default is assumed and said in a warning).
* DCGM exporter CSV: ``DCGM_FI_DEV_GPU_UTIL`` (percent) or ``DCGM_FI_PROF_GR_ENGINE_ACTIVE`` (fraction).

Given together with a training run in one ``load_many`` call, telemetry is merged onto it by time
(see :func:`costmodel.ingest.gpumerge.merge_gpu`, time-weighted).
"""
from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation.errors import IngestError
from ..foundation.schema import Run
from .frame import convert, time_to_seconds
from .validate import build_run, read_text, run_id_for

FORMAT = "gpu"
FORMATS = ["gpu", "nvidia_smi", "dcgmi", "dcgm_exporter"]
GPU_TELEMETRY_FORMATS = ("nvidia_smi", "dcgmi", "dcgm_exporter")

_SMI_FIELDS = ("utilization.gpu", "power.draw", "memory.used", "pci.bus_id", "temperature.gpu", "clocks.", "utilization.memory")


def kind(head: str) -> str | None:
    first = next((ln for ln in head.splitlines() if ln.strip()), "")
    if first.lstrip().startswith("#Entity") or (
            re.search(r"^\s*GPU \d+\s+[\d.N/A-]+", head, flags=re.MULTILINE) and "#Entity" in head):
        return "dcgmi"
    if "DCGM_FI_" in first and "," in first:
        return "dcgm_exporter"
    if "," in first and any(f in first for f in _SMI_FIELDS):
        return "nvidia_smi"
    return None


def sniff(head: str, path: Path) -> bool:
    return kind(head) is not None


def read(path: Path, options: Any) -> list[Run]:
    with open(path, "rb") as fh:
        head = fh.read(64 * 1024).decode("utf-8-sig", errors="replace")
    fmt = getattr(options, "fmt", None)
    k = fmt if fmt in GPU_TELEMETRY_FORMATS else kind(head)
    if k == "dcgmi":
        return _dcgmi(path, options)
    if k in ("nvidia_smi", "dcgm_exporter"):
        return _csv(path, options, k)
    raise IngestError("not GPU telemetry (nvidia-smi --query-gpu CSV, dcgmi dmon, DCGM exporter CSV)", path=str(path))


def _csv(path: Path, options: Any, k: str) -> list[Run]:
    import pandas as pd

    src = str(path)
    text = read_text(path)
    try:
        df = pd.read_csv(io.StringIO(text), dtype=str, skipinitialspace=True, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise IngestError(f"not a readable CSV ({exc})", path=src) from None
    df.columns = [c.strip() for c in df.columns]
    lines = np.arange(len(df)) + 2
    gpu_col = next((c for c in df.columns if c.lower() in ("index", "gpu", "gpu_index", "gpu_id", "uuid", "pci.bus_id")), None)
    time_col = next((c for c in df.columns if c.lower() in ("timestamp", "time", "date")), None)
    meta_common: dict[str, Any] = {"telemetry": k}
    t_all = None
    if time_col is not None:
        t_all, _bad_t, tmeta = time_to_seconds(df[time_col], "auto")
        if np.isfinite(t_all).any():
            t_all = t_all - np.nanmin(t_all)  # all GPUs share the file's first sample as origin
            meta_common.update(tmeta)
    if k == "dcgm_exporter":
        df = df.rename(columns={c: f"{c} [%]" for c in df.columns if c.upper() == "DCGM_FI_DEV_GPU_UTIL"})
    names = [c for c in df.columns if c not in (gpu_col, time_col, "name", "driver_version", "pstate", "uuid", "pci.bus_id")]
    groups = [("", np.arange(len(df)))] if gpu_col is None else [
        (str(g), idx) for g, idx in df.groupby(df[gpu_col].str.strip(), sort=False).indices.items()
    ]
    runs = []
    for g, idx in sorted(groups, key=lambda x: (len(x[0]), x[0])):
        sub = df.iloc[idx]
        conv = convert({c: sub[c].to_numpy() for c in names}, options, source=src)
        cols = dict(conv.columns)
        if t_all is not None:
            cols["t_s"] = t_all[idx]
        if "t_s" in cols and np.all(np.diff(cols["t_s"][np.isfinite(cols["t_s"])]) == 0) and len(idx) > 1:
            conv.warnings.append(f"{src}: every sample of GPU {g} has the same timestamp; rows kept in file order")
        meta = {**meta_common, **conv.metadata, "gpu": g}
        for c in ("name", "pci.bus_id", "driver_version"):
            if c in sub.columns:
                meta[c] = str(sub[c].iloc[0]).strip()
        runs.append(
            build_run(cols, path=path, run_id=run_id_for(path, options, f"gpu{g}" if g else ""), fmt=k,
                      role=getattr(options, "role", "") or "", lines=lines[idx], invalid=conv.invalid, metadata=meta,
                      warnings=conv.warnings, strict=getattr(options, "strict", False))
        )
    return runs


def _dcgmi(path: Path, options: Any) -> list[Run]:
    src = str(path)
    fields: list[str] = []
    per_gpu: dict[str, dict[str, Any]] = {}
    bad = 0
    for i, line in enumerate(read_text(path).splitlines(), start=1):
        s = line.strip()
        if not s:
            continue
        if s.startswith("#Entity"):
            fields = s.split()[1:]
            continue
        if s == "ID" or s.startswith(("#", "ID ")):
            continue
        m = re.match(r"^(GPU|GPU-I|GPU-CI)\s+(\d+)\s+(.*)$", s)
        if not m or not fields:
            bad += 1
            continue
        vals = m.group(3).split()
        if len(vals) != len(fields):
            bad += 1
            continue
        g = per_gpu.setdefault(m.group(2), {"rows": [], "lines": []})
        g["rows"].append([np.nan if v.upper() in ("N/A", "[N/A]")
                          else float(v) if re.fullmatch(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", v) else np.nan
                          for v in vals])
        g["lines"].append(i)
    if not per_gpu:
        raise IngestError("no 'GPU N value ...' rows after a '#Entity' header (dcgmi dmon)", path=src)
    util_field = next((f for f in ("GRACT", "SMACT") if f in fields), None)
    runs = []
    for gid, g in per_gpu.items():
        arr = np.asarray(g["rows"], dtype="float64")
        cols: dict[str, np.ndarray] = {"t_s": np.arange(len(arr), dtype="float64")}
        if util_field:
            cols["gpu_util"] = arr[:, fields.index(util_field)]
        else:
            raise IngestError(f"dcgmi fields {fields} hold no GRACT or SMACT (graphics/SM activity)", path=src, field="#Entity")
        meta = {"telemetry": "dcgmi", "gpu": gid, "fields": fields, "gpu_util_from": util_field,
                "means": {f: float(np.nanmean(arr[:, j])) if np.isfinite(arr[:, j]).any() else None
                          for j, f in enumerate(fields)},
                "interval_s_assumed": 1.0}
        warnings = [f"{src}: dcgmi dmon has no timestamps; t_s assumes the default 1 s interval (dmon -d 1000)"]
        if bad:
            warnings.append(f"{src}: {bad} line(s) not in the dmon table were not imported")
        runs.append(build_run(cols, path=path, run_id=run_id_for(path, options, f"gpu{gid}"), fmt="dcgmi",
                              role=getattr(options, "role", "") or "", lines=np.asarray(g["lines"]), metadata=meta,
                              warnings=warnings, strict=getattr(options, "strict", False)))
    return runs
