"""fio ``--output-format=json`` / ``json+``: one run per job (or per client), one summary row each.

Handles the version drift in formats.md: ``clat_ns`` (ns) vs ``clat`` (µs, fio < 3.0), ``bw_bytes``
(B/s, fio >= 3.2) vs ``bw`` (KiB/s), ``io_bytes`` in KiB when ``io_kbytes`` is absent (fio < 2.21),
text before/after the JSON, several concatenated documents (``--status-interval``: the last one is
used, cumulative), duplicate keys (percentile padding ``"0.00"`` entries are dropped), ``mixed``
unified reporting and ``client_stats``. Unused directions are NaN, never 0.
The row: ``t_s`` = job runtime, read/write bytes per second and IOPS, ``read_latency_s`` = mean
completion latency, ``bytes_read``. Completion-latency percentiles (s) go into the run metadata.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation.errors import IngestError
from ..foundation.schema import Run
from ..foundation.units import KIB
from .validate import build_run, read_text, run_id_for

FORMAT = "fio_json"
FORMATS = ["fio_json", "fio"]


def sniff(head: str, path: Path) -> bool:
    return '"fio version"' in head or ('"jobs"' in head and '"jobname"' in head)


def documents(text: str, src: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Every JSON object in ``text`` that starts a line with ``{``; returns (documents, notes on skipped text)."""
    dec = json.JSONDecoder()
    docs: list[dict[str, Any]] = []
    notes: list[str] = []
    pos = 0
    first_error: str | None = None
    for m in re.finditer(r"^\{", text, flags=re.MULTILINE):
        if m.start() < pos:
            continue
        try:
            obj, end = dec.raw_decode(text, m.start())
        except json.JSONDecodeError as exc:
            line = text.count("\n", 0, exc.pos) + 1
            first_error = first_error or f"line {line}: {exc.msg}"
            continue
        if isinstance(obj, dict):
            pre = text[pos:m.start()].strip()
            if pre:
                notes.append(f"{src}: text outside the JSON not imported: {pre.splitlines()[0][:100]!r}")
            docs.append(obj)
            pos = end
    tail = text[pos:].strip()
    if docs and tail:
        notes.append(f"{src}: text after the JSON not imported ({len(tail.splitlines())} line(s))")
    if not docs:
        raise IngestError(
            f"no complete fio JSON document ({first_error or 'no line starts with {'}); expected fio --output-format=json",
            path=src,
            line=int(first_error.split(":")[0][5:]) if first_error else None,
        )
    return docs, notes


def _float_or_none(d: dict[str, Any], key: str) -> float | None:
    """``d[key]`` as a float (fio's JSON numbers), None when it is missing or not a number."""
    v: Any = d.get(key)
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f


def _lat(d: dict[str, Any], base: str) -> tuple[dict[str, Any] | None, float]:
    """The latency object for ``base`` (clat/lat/slat) and its factor to seconds."""
    if isinstance(d.get(f"{base}_ns"), dict):
        return d[f"{base}_ns"], 1e-9
    if isinstance(d.get(base), dict):
        return d[base], 1e-6
    return None, 1.0


def direction(d: object) -> dict[str, Any] | None:
    """SI summary of one direction (read/write/trim/mixed) or None when unused."""
    if not isinstance(d, dict):
        return None
    io_b = (_float_or_none(d, "io_kbytes" if "io_kbytes" in d else "io_bytes") or 0.0) * KIB  # fio < 2.21: io_bytes is KiB
    bw = _float_or_none(d, "bw_bytes")
    if bw is None:
        bw = (_float_or_none(d, "bw") or 0.0) * KIB
    iops = _float_or_none(d, "iops") or 0.0
    runtime_s = (_float_or_none(d, "runtime") or 0.0) / 1e3
    if io_b == 0 and bw == 0 and iops == 0:
        return None
    out: dict[str, Any] = {"bytes": io_b, "bytes_per_s": bw, "iops": iops, "runtime_s": runtime_s}
    lat, f = _lat(d, "clat")
    if lat is not None:
        if _float_or_none(lat, "mean") is not None:
            out["clat_mean_s"] = float(lat["mean"]) * f
        pct = lat.get("percentile")
        if isinstance(pct, dict):
            pts = {}
            for k, v in pct.items():
                try:
                    p = float(k)
                    val = float(v)
                except (TypeError, ValueError):
                    continue
                if p > 0:
                    pts[f"p{p:g}"] = val * f
            if pts:
                out["clat_percentiles_s"] = pts
        bins = lat.get("bins")
        if isinstance(bins, dict):
            out["clat_bins"] = sum(1 for k in bins if re.fullmatch(r"\d+", str(k)))
    tl, f2 = _lat(d, "lat")
    if tl is not None and _float_or_none(tl, "mean") is not None:
        out["lat_mean_s"] = float(tl["mean"]) * f2
    return out


def read(path: Path, options: Any) -> list[Run]:
    src = str(path)
    text = read_text(path)
    docs, notes = documents(text, src)
    fio_docs = [d for d in docs if isinstance(d.get("jobs"), list) or isinstance(d.get("client_stats"), list)]
    if not fio_docs:
        raise IngestError("JSON has no 'jobs' or 'client_stats' list; expected fio --output-format=json", path=src, field="jobs")
    if len(fio_docs) > 1:
        notes.append(f"{src}: {len(fio_docs)} concatenated fio reports (--status-interval); the last (cumulative) one is used")
    doc = fio_docs[-1]
    jobs: Any = doc.get("jobs") if isinstance(doc.get("jobs"), list) else doc.get("client_stats")
    version = str(doc.get("fio version", ""))
    runs: list[Run] = []
    names: dict[str, int] = {}
    for idx, job in enumerate(jobs):
        if not isinstance(job, dict):
            raise IngestError(f"jobs[{idx}] is a {type(job).__name__}, expected an object", path=src, field=f"jobs[{idx}]")
        name = str(job.get("jobname", f"job{idx}"))
        if "hostname" in job:
            name = f"{job['hostname']}/{name}"
        names[name] = names.get(name, 0) + 1
        label = name if names[name] == 1 else f"{name}#{names[name]}"
        sides = {k: direction(job.get(k)) for k in ("read", "write", "trim", "mixed")}
        r = sides["read"] or sides["mixed"]
        w = sides["write"]
        if r is None and w is None and sides["trim"] is None:
            notes.append(f"{src}: job {label!r} did no I/O (all directions zero); no row")
            continue
        runtime_s = max([s["runtime_s"] for s in sides.values() if s] or [0.0])
        if _float_or_none(job, "job_runtime"):
            runtime_s = float(job["job_runtime"]) / 1e3
        nan = float("nan")
        cols = {
            "step": np.array([0.0]),
            "t_s": np.array([runtime_s]),
            "read_bytes_per_s": np.array([r["bytes_per_s"] if r else nan]),
            "write_bytes_per_s": np.array([w["bytes_per_s"] if w else nan]),
            "read_iops": np.array([r["iops"] if r else nan]),
            "write_iops": np.array([w["iops"] if w else nan]),
            "read_latency_s": np.array([r.get("clat_mean_s", nan) if r else nan]),
            "bytes_read": np.array([r["bytes"] if r else nan]),
        }
        meta: dict[str, Any] = {
            "fio_version": version,
            "jobname": job.get("jobname"),
            "job_index": idx,
            "job_options": job.get("job options", {}),
            "global_options": doc.get("global options", {}),
            "timestamp": doc.get("timestamp"),
            "elapsed_s": job.get("elapsed"),
            "error": job.get("error"),
        }
        for side, s in sides.items():
            if s:
                meta[side] = dict(s)
        if job.get("error"):
            notes.append(f"{src}: job {label!r} reported error {job.get('error')}")
        runs.append(
            build_run(
                cols,
                path=path,
                run_id=run_id_for(path, options, label if len(jobs) > 1 else ""),
                fmt=FORMAT,
                role=getattr(options, "role", "") or "",
                metadata=meta,
                warnings=list(notes),
                strict=getattr(options, "strict", False),
            )
        )
        notes = []
    if not runs:
        raise IngestError("no fio job did any I/O", path=src, field="jobs")
    return runs
