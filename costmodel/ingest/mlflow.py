"""MLflow metrics, format ``mlflow``:

* **file store** (``mlruns/<experiment>/<run>/metrics/<key>``): one file per metric key, one line per logged value,
  ``<timestamp ms> <value> <step>``. Keys with ``/`` are sub-folders (``metrics/train/samples_per_sec``). Reading any
  metric file reads every metric of its run into one Timeline run (run id = the MLflow run folder; ``params/`` and
  ``tags/mlflow.runName`` in metadata); a folder given to ``ingest`` reads each run once. Keys map to Timeline
  columns like CSV headers (prefix kept in metadata); ``t_s`` from the timestamps (ms since the epoch).
* **metric-history CSV** (``MlflowClient.get_metric_history`` or an export to a table): long format with columns
  ``key`` (or ``metric``), ``value``, ``step`` and optionally ``timestamp`` (ms) and ``run_id``; pivoted to one column
  per key, one run per ``run_id``. Read by the ``tabular`` reader (see :func:`read_long_csv`).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation.errors import IngestError
from ..foundation.schema import Run
from .frame import convert
from .validate import build_run, read_text

FORMAT = "mlflow"
_LINE = re.compile(r"^\s*(\d{10,16})\s+(\S+)\s+(-?\d+)\s*$")


def metrics_dir(path: Path) -> Path | None:
    """The ``metrics`` folder above ``path`` (MLflow file store), or None."""
    for parent in path.parents:
        if parent.name == "metrics":
            return parent
        if parent.name in ("mlruns", "") or parent == parent.parent:
            return None
    return None


def sniff(head: str, path: Path) -> bool:
    if metrics_dir(path) is None:
        return False
    lines = [ln for ln in head.splitlines()[:20] if ln.strip()]
    return bool(lines) and all(_LINE.match(ln) for ln in lines)


def _read_metric(path: Path) -> tuple[list[float], list[float], list[float], int]:
    ts, vals, steps, bad = [], [], [], 0
    for ln in read_text(path).splitlines():
        if not ln.strip():
            continue
        m = _LINE.match(ln)
        if not m:
            bad += 1
            continue
        try:
            v = float(m.group(2))
        except ValueError:
            bad += 1
            continue
        ts.append(float(m.group(1)))
        vals.append(v)
        steps.append(float(m.group(3)))
    return ts, vals, steps, bad


def read(path: Path, options: Any) -> list[Run]:
    src = str(path)
    mdir = metrics_dir(path)
    if mdir is None:
        raise IngestError("not inside an MLflow run's metrics/ folder", path=src)
    run_dir = mdir.parent
    files = sorted(f for f in mdir.rglob("*") if f.is_file())
    by_key: dict[str, tuple[list[float], list[float], list[float]]] = {}
    warnings: list[str] = []
    for f in files:
        key = f.relative_to(mdir).as_posix()
        ts, vals, steps, bad = _read_metric(f)
        if bad:
            warnings.append(f"{f}: {bad} line(s) not '<timestamp ms> <value> <step>' were not imported")
        if vals:
            by_key[key] = (ts, vals, steps)
    if not by_key:
        raise IngestError("no '<timestamp ms> <value> <step>' line in the run's metric files", path=str(mdir))
    steps_all = sorted({s for _t, _v, st in by_key.values() for s in st})
    index = {s: i for i, s in enumerate(steps_all)}
    table: dict[str, Any] = {}
    wall = np.full(len(steps_all), np.nan)
    for key, (ts, vals, steps) in by_key.items():
        col = np.full(len(steps_all), np.nan)
        for t, v, s in zip(ts, vals, steps, strict=True):
            col[index[s]] = v  # last logged value of a step wins
            wall[index[s]] = t if not (wall[index[s]] >= t) else wall[index[s]]
        table[key] = col
    conv = convert({"step": np.array(steps_all), **table}, options, source=str(mdir))
    cols = conv.columns
    meta: dict[str, Any] = {"dialect": "mlflow_file_store", "run_dir": str(run_dir), "metric_keys": sorted(by_key),
                            **conv.metadata}
    if "t_s" not in cols and np.isfinite(wall).any():
        t0 = float(np.nanmin(wall))
        cols["t_s"] = (wall - t0) / 1e3
        meta["start_epoch_s"] = t0 / 1e3
        meta["t_s_from"] = "MLflow metric timestamps (ms since the epoch), latest of the step"
    name_file = run_dir / "tags" / "mlflow.runName"
    if name_file.is_file():
        meta["run_name"] = read_text(name_file).strip()
    params = run_dir / "params"
    if params.is_dir():
        meta["params"] = {p.name: read_text(p).strip()[:200] for p in sorted(params.iterdir())[:100] if p.is_file()}
    if "step" not in cols:
        cols["step"] = np.array(steps_all)
    rid = getattr(options, "run_id", None) or run_dir.name
    return [build_run(cols, path=run_dir, run_id=rid, fmt=FORMAT, invalid=conv.invalid, metadata=meta,
                      warnings=warnings + conv.warnings, role=getattr(options, "role", "") or "",
                      strict=getattr(options, "strict", False))]


# ---------------------------------------------------------------------------------------- long-format CSV


def long_format_columns(names: list[str]) -> dict[str, str] | None:
    """{role: column} when ``names`` is a long metric table (key, value, step [, timestamp, run_id]), else None."""
    low = {n.strip().lower(): n for n in names}
    key = next((low[k] for k in ("key", "metric", "metric_name", "name") if k in low), None)
    val = low.get("value")
    step = low.get("step")
    if not (key and val and step):
        return None
    out = {"key": key, "value": val, "step": step}
    for role, cands in (("timestamp", ("timestamp", "time", "timestamp_ms")), ("run", ("run_id", "run", "run_uuid"))):
        c = next((low[k] for k in cands if k in low), None)
        if c:
            out[role] = c
    return out


def read_long_csv(path: Path, options: Any, roles: dict[str, str], delimiter: str = ",") -> list[Run]:
    """A long metric CSV pivoted to one column per key and one run per run id."""
    import pandas as pd

    src = str(path)
    df = pd.read_csv(path, sep=delimiter, comment=None, skipinitialspace=True)
    df.columns = [c.strip() for c in df.columns]
    runs = []
    groups = df.groupby(roles["run"], sort=True) if "run" in roles else [("", df)]
    for rid_value, group in groups:
        g = group.copy()
        g["_line"] = g.index.to_numpy() + 2
        values = pd.to_numeric(g[roles["value"]], errors="coerce")
        wide = g.assign(_v=values).pivot_table(index=roles["step"], columns=roles["key"], values="_v", aggfunc="last")
        table: dict[str, Any] = {"step": wide.index.to_numpy(dtype="float64")}
        for c in wide.columns:
            table[str(c)] = wide[c].to_numpy(dtype="float64")
        conv = convert(table, options, source=src)
        cols = conv.columns
        meta: dict[str, Any] = {"dialect": "mlflow_metric_history", "long_format": roles, **conv.metadata}
        if "timestamp" in roles and "t_s" not in cols:
            ts = pd.to_numeric(g[roles["timestamp"]], errors="coerce").groupby(g[roles["step"]]).max()
            t = ts.reindex(wide.index).to_numpy(dtype="float64")
            if np.isfinite(t).any():
                scale = 1e-3 if np.nanmedian(t) > 1e11 else 1.0
                t0 = float(np.nanmin(t)) * scale
                cols["t_s"] = t * scale - t0
                meta["start_epoch_s"] = t0
        if "step" not in cols:
            cols["step"] = table["step"]
        base = getattr(options, "run_id", None) or path.stem
        rid = f"{base}:{rid_value}" if rid_value != "" else base
        runs.append(build_run(cols, path=path, run_id=rid, fmt="mlflow_csv", invalid=conv.invalid, metadata=meta,
                              warnings=conv.warnings, role=getattr(options, "role", "") or "",
                              strict=getattr(options, "strict", False)))
    if not runs:
        raise IngestError("no rows in the long metric table", path=src)
    return runs
