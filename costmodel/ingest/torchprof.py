"""PyTorch profiler traces (``torch.profiler`` ``export_chrome_trace`` / ``tensorboard_trace_handler`` JSON), format
``torch_trace``.

The trace is Chrome trace JSON (``{"traceEvents": [...]}``, times in microseconds). With a profiler ``schedule`` and
``prof.step()`` each profiled step is a ``ProfilerStep#N`` complete event (``"ph": "X"``): one row per step, ``step`` =
N, ``step_time_s`` = its ``dur``, ``t_s`` = its end since the first step's start. Inside each step's time window:
``data_wait_s`` = the time in DataLoader ``__next__`` events (``enumerate(DataLoader)...``), and ``gpu_util`` = the
share of the step during which at least one GPU kernel (``cat: kernel``) ran (union of kernel intervals / step time)
when the trace has GPU kernels. ``samples_per_s`` needs ``--batch-size``. Traces without ``ProfilerStep#`` events
are an error that says how to record them.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation import limits
from ..foundation.errors import IngestError
from ..foundation.schema import Run
from .validate import build_run, read_text, run_id_for

FORMAT = "torch_trace"
_STEP = re.compile(r"^ProfilerStep#(\d+)$")


def sniff(head: str, path: Path) -> bool:
    h = head.lstrip()
    return h.startswith("{") and '"traceEvents"' in head and (
        "ProfilerStep#" in head or '"schemaVersion"' in head or '"deviceProperties"' in head or "PyTorch Profiler" in head)


def _union_within(starts: np.ndarray, ends: np.ndarray, lo: float, hi: float) -> float:
    """Length of the union of [starts, ends) clipped to [lo, hi)."""
    s = np.clip(starts, lo, hi)
    e = np.clip(ends, lo, hi)
    keep = e > s
    if not keep.any():
        return 0.0
    s, e = s[keep], e[keep]
    order = np.argsort(s)
    s, e = s[order], np.maximum.accumulate(e[order])
    gaps = np.maximum(s[1:] - e[:-1], 0.0)
    return float(e[-1] - s[0] - gaps.sum())


def read(path: Path, options: Any) -> list[Run]:
    src = str(path)
    try:
        doc = limits.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise IngestError(f"not valid JSON ({exc.msg}); expected a PyTorch profiler Chrome trace", path=src,
                          line=exc.lineno) from None
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc if isinstance(doc, list) else None
    if not isinstance(events, list):
        raise IngestError("no traceEvents list; expected a PyTorch profiler Chrome trace", path=src, field="traceEvents")
    steps: dict[int, tuple[float, float]] = {}
    kernels: list[tuple[float, float]] = []
    loads: list[tuple[float, float]] = []
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        ts, dur = e.get("ts"), e.get("dur")
        if not isinstance(ts, (int, float)) or not isinstance(dur, (int, float)):
            continue
        name = str(e.get("name", ""))
        m = _STEP.match(name)
        if m:
            k = int(m.group(1))
            if k not in steps or dur > steps[k][1]:  # CPU and GPU-side annotations: keep the CPU (outer) one
                steps[k] = (float(ts), float(dur))
            continue
        cat = str(e.get("cat", ""))
        if cat == "kernel" or cat == "gpu_memcpy":
            kernels.append((float(ts), float(ts) + float(dur)))
        elif name.startswith("enumerate(DataLoader)") or ("DataLoader" in name and "__next__" in name):
            loads.append((float(ts), float(ts) + float(dur)))
    if not steps:
        raise IngestError("no ProfilerStep#N events: record with torch.profiler.profile(schedule=...) and call "
                          "prof.step() once per training step", path=src, field="traceEvents")
    keys = sorted(steps)
    ts = np.array([steps[k][0] for k in keys])
    dur = np.array([steps[k][1] for k in keys])
    k_arr = np.array(kernels) if kernels else np.zeros((0, 2))
    l_arr = np.array(loads) if loads else np.zeros((0, 2))
    wait = (np.array([_union_within(l_arr[:, 0], l_arr[:, 1], t, t + d) for t, d in zip(ts, dur, strict=True)])
            if len(l_arr) else None)
    busy = (np.array([_union_within(k_arr[:, 0], k_arr[:, 1], t, t + d) for t, d in zip(ts, dur, strict=True)])
            if len(k_arr) else None)
    t0 = float(ts.min())
    cols: dict[str, np.ndarray] = {"step": np.array(keys, dtype="float64"), "step_time_s": dur / 1e6,
                                   "t_s": (ts + dur - t0) / 1e6}
    meta: dict[str, Any] = {"dialect": "torch_trace", "time_unit": "Chrome trace microseconds",
                            "steps_profiled": len(keys), "trace_events": len(events)}
    if wait is not None:
        cols["data_wait_s"] = wait / 1e6
        meta["data_wait_from"] = "DataLoader __next__ time inside each ProfilerStep"
    if busy is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            cols["gpu_util"] = np.where(dur > 0, busy / dur, np.nan)
        meta["gpu_util_from"] = "union of GPU kernel and memcpy intervals / ProfilerStep duration"
    for key in ("deviceProperties", "distributedInfo", "schemaVersion", "baseTimeNanoseconds"):
        if key in doc:
            meta[key] = doc[key]
    warn = [] if getattr(options, "batch_size", None) else [
        f"{src}: a profiler trace gives step times, not samples: give --batch-size N for samples_per_s"]
    return [build_run(cols, path=path, run_id=run_id_for(path, options), fmt=FORMAT, metadata=meta, warnings=warn,
                      role=getattr(options, "role", "") or "", strict=getattr(options, "strict", False))]
