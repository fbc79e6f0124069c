"""DLIO benchmark and MLPerf Storage outputs (formats.md sections 2 and 3).

* ``summary.json``: one row per epoch (``step`` = ``epoch``), ``samples_per_s`` (sum over ranks),
  ``gpu_util`` = AU % / 100, ``read_bytes_per_s`` = epoch samples/s x the run's bytes per sample
  (``train_io_mean_MB_per_second`` is MiB/s: "MB" means MiB in DLIO). When ``per_epoch_stats.json``
  (or ``{rank}_per_epoch_stats.json``) lies beside it, ``t_s`` = end of each epoch's block since the start.
* ``per_epoch_stats.json`` / ``{rank}_per_epoch_stats.json``: one row per epoch, ``step_time_s`` = training
  block duration, ``t_s`` = end of the block since the first start.
* ``{rank}_output.json``: one row per training step, ``step_time_s`` = ``proc``, ``data_wait_s`` = ``load``,
  ``epoch``; ``t_s`` = cumulative step time (gaps between epochs are not in the file); with the run's
  config (``.hydra/config.yaml`` or ``configs/config.yaml`` beside it) ``samples_per_s`` = batch / step time.
* ``mlperf_storage_report.json``: one run per benchmark run (one row: samples/s and MiB/s -> B/s).
* the DLIO text log (``dlio.log`` or MLPerf per-host ``<ip>.log``): lines ``Rank R step S processed N samples
  in T s`` -> one run per rank, a row per step, epochs inferred where step numbers restart.
* sysstat ``iostat -o JSON`` (DLIO's iostat profiler): one run per disk, 1 s samples, ``rMB/s`` (MiB/s).
AppleDouble files (``._*``) are not outputs: skipped by ``load_many``, an error when named alone.
"""
from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation import limits
from ..foundation.errors import IngestError
from ..foundation.schema import Run
from ..foundation.units import KIB, MIB
from .validate import build_run, read_text, run_id_for

FORMAT = "dlio"
FORMATS = ["dlio", "dlio_summary", "dlio_epochs", "dlio_output", "mlperf_storage_report", "dlio_log", "iostat"]

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
#: the step record itself; it starts with a literal, so a search is linear in the line (the former
#: pattern began with optional groups and ``.*?`` and took 35 s on a line of 8,000 ``[``)
_STEP_CORE = re.compile(r"Rank (?P<rank>\d+) step (?P<step>\d+)(?::| processed)[ \t]*(?:loaded[ \t]+)?(?P<n>\d+) "
                        r"samples in (?P<t>" + _NUM + r")[ \t]*s")
#: what may stand at the start of the record's line: ``[LEVEL] `` and an ISO timestamp
_STEP_PREFIX = re.compile(r"(?:\[(?P<level>\w+)\][ \t]+)?(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)?")


class _StepMatch:
    """The groups of one DLIO step record (rank, step, n, t from the record; level, ts from its line's start)."""

    def __init__(self, core: re.Match[str], prefix: re.Match[str]) -> None:
        self._groups = {**prefix.groupdict(), **core.groupdict()}

    def group(self, name: str) -> Any:
        return self._groups[name]


class _StepPattern:
    """``search(text)``: the first DLIO step record in ``text`` (as the former single pattern found it), in linear time."""

    def search(self, text: str) -> _StepMatch | None:
        core = _STEP_CORE.search(text)
        if core is None:
            return None
        start = text.rfind("\n", 0, core.start()) + 1
        prefix = _STEP_PREFIX.match(text, start)
        assert prefix is not None  # every part of it is optional
        return _StepMatch(core, prefix)


STEP_RE = _StepPattern()


def kind(head: str, path: Path) -> str | None:
    """Which DLIO/MLPerf Storage file ``head`` is, or None."""
    if '"sysstat"' in head[:2000]:
        return "iostat"
    if '"runs"' in head and "train_throughput" in head and '"overall"' in head:
        return "mlperf_storage_report"
    if '"metric"' in head and ("train_au_percentage" in head or "train_throughput_samples_per_second" in head):
        return "dlio_summary"
    if '"block1"' in head and '"proc"' in head and '"load"' in head:
        return "dlio_output"
    if '"block1"' in head and '"duration"' in head:
        return "dlio_epochs"
    if STEP_RE.search(head):
        return "dlio_log"
    return None


def sniff(head: str, path: Path) -> bool:
    return kind(head, path) is not None


def _json(path: Path) -> Any:
    try:
        return limits.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise IngestError(f"not valid JSON ({exc.msg}); expected a complete DLIO output", path=str(path),
                          line=exc.lineno) from None


def _since_s(stamp: Any, t0: float | None) -> float:
    """Seconds from ``t0`` to the ISO time ``stamp``; NaN when either is missing or unreadable."""
    s = _ts(stamp) if stamp else None
    return s - t0 if s is not None and t0 is not None else np.nan


def _ts(s: Any) -> float | None:
    """Naive local ISO time -> seconds (as if UTC; only differences are used)."""
    if not isinstance(s, str):
        return None
    try:
        d = datetime.fromisoformat(s)
    except ValueError:
        return None
    if d.tzinfo is None:
        from datetime import timezone

        d = d.replace(tzinfo=timezone.utc)
    return d.timestamp()


def _float(v: Any) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def read(path: Path, options: Any) -> list[Run]:
    if path.name.startswith("._"):
        raise IngestError("a macOS AppleDouble metadata file ('._' prefix), not a benchmark output; skip it", path=str(path))
    fmt = getattr(options, "fmt", None)
    with open(path, "rb") as fh:
        head = fh.read(64 * 1024).decode("utf-8-sig", errors="replace")
    k = fmt if fmt in FORMATS[1:] else kind(head, path)
    if k is None:
        raise IngestError("not a DLIO / MLPerf Storage output (summary, per-epoch stats, rank output, report or log)",
                          path=str(path))
    return {
        "dlio_summary": _summary,
        "dlio_epochs": _epochs,
        "dlio_output": _output,
        "mlperf_storage_report": _report,
        "dlio_log": _log,
        "iostat": _iostat,
    }[k](path, options)


def _common(options: Any) -> dict[str, Any]:
    return {"role": getattr(options, "role", "") or "", "strict": getattr(options, "strict", False)}


def _epoch_stats(obj: Any, src: str) -> list[tuple[int, dict[str, Any]]]:
    if not isinstance(obj, dict):
        raise IngestError("expected an object keyed by epoch number", path=src)
    out = []
    for key, v in obj.items():
        if re.fullmatch(r"\d+", str(key)) and isinstance(v, dict):
            out.append((int(key), v))
    out.sort()
    return out


def _sibling_epochs(path: Path) -> Path | None:
    for name in ("per_epoch_stats.json", "0_per_epoch_stats.json"):
        p = path.with_name(name)
        if p.is_file():
            return p
    return None


def _summary(path: Path, options: Any) -> list[Run]:
    src = str(path)
    d = _json(path)
    if not isinstance(d, dict) or not isinstance(d.get("metric"), dict):
        raise IngestError("no 'metric' object; expected a DLIO summary.json", path=src, field="metric")
    m = d["metric"]
    thr = m.get("train_throughput_samples_per_second")
    au = m.get("train_au_percentage")
    if not isinstance(thr, list) or not thr:
        raise IngestError("expected a per-epoch list", path=src, field="metric.train_throughput_samples_per_second")
    n = len(thr)
    au_l = au if isinstance(au, list) and len(au) == n else [float("nan")] * n
    warnings: list[str] = []
    if isinstance(au, list) and len(au) != n:
        warnings.append(f"{src}: train_au_percentage has {len(au)} values for {n} epochs; AU not imported")
    samples = np.array([_float(x) for x in thr])
    cols: dict[str, np.ndarray] = {
        "step": np.arange(1, n + 1, dtype="float64"),
        "epoch": np.arange(1, n + 1, dtype="float64"),
        "samples_per_s": samples,
        "gpu_util": np.array([_float(x) for x in au_l]) / 100.0,
    }
    mean_thr = _float(m.get("train_throughput_mean_samples_per_second"))
    io_mib = _float(m.get("train_io_mean_MB_per_second"))
    meta: dict[str, Any] = {k: v for k, v in d.items() if k not in ("metric", "host_cpuinfo", "host_meminfo")}
    meta["metric"] = {k: v for k, v in m.items() if not isinstance(v, list)}
    if np.isfinite(mean_thr) and mean_thr > 0 and np.isfinite(io_mib):
        bps = io_mib * MIB / mean_thr
        cols["read_bytes_per_s"] = samples * bps
        meta["bytes_per_sample"] = bps
        meta["read_bytes_per_s_from"] = ("samples_per_s x train_io_mean_MB_per_second (MiB/s) / mean samples_per_s "
                                         "(configured record length)")
    eps = _sibling_epochs(path)
    if eps is not None:
        try:
            stats = _epoch_stats(_json(eps), str(eps))
        except IngestError as exc:
            warnings.append(f"{src}: per-epoch stats beside it not used: {exc}")
            stats = []
        ends = {e: _ts((v.get("block1") or v).get("end")) for e, v in stats}
        t0 = _ts(d.get("start")) or (min((_ts(v.get("start")) or np.inf) for _e, v in stats) if stats else None)
        end_s = [ends.get(e) for e in range(1, n + 1)]
        if t0 is not None and all(x is not None for x in end_s):
            cols["t_s"] = np.array([x - t0 for x in end_s if x is not None])
            cols["step_time_s"] = np.array([_float(dict(stats)[e].get("block1", {}).get("duration")) for e in range(1, n + 1)])
            meta["t_s_from"] = f"{eps.name}: end of each epoch's training block since the run start"
    meta["units"] = "DLIO MB = MiB (2^20 bytes); AU % -> fraction"
    rid = getattr(options, "run_id", None) or f"{path.parent.name}:{path.stem}"
    return [build_run(cols, path=path, run_id=rid, fmt="dlio_summary", metadata=meta, warnings=warnings, **_common(options))]


def _epochs(path: Path, options: Any) -> list[Run]:
    src = str(path)
    stats = _epoch_stats(_json(path), src)
    if not stats:
        raise IngestError("no epoch entries (keys '1', '2', ...)", path=src)
    starts = [_ts(v.get("start")) for _e, v in stats]
    t0 = min((s for s in starts if s is not None), default=None)
    ep, t, dur = [], [], []
    for e, v in stats:
        b1 = v.get("block1")
        blk = b1 if isinstance(b1, dict) else v
        ep.append(float(e))
        end = _ts(blk.get("end"))
        t.append(end - t0 if end is not None and t0 is not None else float("nan"))
        dur.append(_float(blk.get("duration")))
    meta = {"epochs": len(stats), "start_time": min((v["start"] for _e, v in stats if v.get("start")), default=None)}
    ckpt = {f"{e}.{k}": v for e, s in stats for k, v in s.items() if k.startswith(("save_ckpt", "load_ckpt", "eval"))}
    if ckpt:
        meta["other_phases"] = ckpt
    rid = options.run_id if getattr(options, "run_id", None) else f"{path.parent.name}:{path.stem}"
    return [
        build_run(
            {"step": np.array(ep), "epoch": np.array(ep), "t_s": np.array(t), "step_time_s": np.array(dur)},
            path=path, run_id=rid, fmt="dlio_epochs", metadata=meta, **_common(options),
        )
    ]


def _config(path: Path) -> dict[str, Any]:
    for rel in (".hydra/config.yaml", "configs/config.yaml"):
        p = path.parent / rel
        if p.is_file():
            try:
                from ..foundation.safeyaml import safe_load_file

                cfg = safe_load_file(p)
                return cfg.get("workload", cfg) if isinstance(cfg, dict) else {}
            except Exception:  # noqa: BLE001 - the config is optional context
                return {}
    return {}


def _output(path: Path, options: Any) -> list[Run]:
    src = str(path)
    d = _json(path)
    stats = _epoch_stats(d, src)
    step_t, wait, comp, epoch = [], [], [], []
    per_epoch: dict[str, Any] = {}
    for e, v in stats:
        proc = (v.get("proc") or {}).get("block1")
        load = (v.get("load") or {}).get("block1")
        cmp_ = (v.get("compute") or {}).get("block1")
        if not isinstance(proc, list):
            continue
        nn = len(proc)
        step_t += [_float(x) for x in proc]
        wait += [_float(x) for x in load] if isinstance(load, list) and len(load) == nn else [float("nan")] * nn
        comp += [_float(x) for x in cmp_] if isinstance(cmp_, list) and len(cmp_) == nn else [float("nan")] * nn
        epoch += [float(e)] * nn
        per_epoch[str(e)] = {
            "throughput_samples_per_s": (v.get("throughput") or {}).get("block1"),
            "au_percent": (v.get("au") or {}).get("block1"),
            "steps": nn,
        }
    if not step_t:
        raise IngestError("no per-step 'proc' lists (epoch -> proc -> block1)", path=src, field="proc.block1")
    st = np.array(step_t)
    cols = {
        "step": np.arange(1, len(st) + 1, dtype="float64"),
        "epoch": np.array(epoch),
        "step_time_s": st,
        "data_wait_s": np.array(wait),
    }
    meta: dict[str, Any] = {"per_epoch": per_epoch, "hostname": d.get("hostname"),
                            "compute_time_s_mean": float(np.nanmean(comp)) if comp else None}
    cfg = _config(path)
    bs = ((cfg.get("reader") or {}).get("batch_size")) if cfg else None
    if isinstance(bs, (int, float)) and bs > 0:
        with np.errstate(divide="ignore", invalid="ignore"):
            cols["samples_per_s"] = np.where(st > 0, bs / st, np.nan)
        cols["samples"] = np.full(len(st), float(bs))
        meta["batch_size"] = bs
        meta["samples_per_s_from"] = "batch_size (config) / step time"
    meta["t_s_from"] = "cumsum(proc); pauses between epochs are not in the file"
    m = re.match(r"(\d+)_output", path.stem)
    meta["rank"] = int(m.group(1)) if m else None
    rid = options.run_id if getattr(options, "run_id", None) else f"{path.parent.name}:{path.stem}"
    return [build_run(cols, path=path, run_id=rid, fmt="dlio_output", metadata=meta, **_common(options))]


def _report(path: Path, options: Any) -> list[Run]:
    src = str(path)
    d = _json(path)
    runs_obj = d.get("runs") if isinstance(d, dict) else None
    if not isinstance(runs_obj, dict) or not runs_obj:
        raise IngestError("no 'runs' object; expected mlperf_storage_report.json", path=src, field="runs")
    overall = d.get("overall", {})
    base = getattr(options, "run_id", None) or f"{path.parent.name}:report"
    out = []
    for i, (rid, v) in enumerate(runs_obj.items()):
        if not isinstance(v, dict):
            raise IngestError(f"runs.{rid} is not an object", path=src, field=f"runs.{rid}")
        cols = {
            "step": np.array([0.0]),
            "samples_per_s": np.array([_float(v.get("train_throughput_samples_per_second"))]),
            "read_bytes_per_s": np.array([_float(v.get("train_throughput_MB_per_second")) * MIB]),
        }
        meta = {"benchmark_run": rid, "run_index": i, "overall": overall,
                **{k: x for k, x in v.items() if not k.startswith("train_throughput")}, "units": "MB = MiB"}
        out.append(build_run(cols, path=path, run_id=f"{base}:{rid}", fmt="mlperf_storage_report", metadata=meta,
                             **_common(options)))
    return out


def _log(path: Path, options: Any) -> list[Run]:
    src = str(path)
    by_rank: dict[int, dict[str, list[Any]]] = {}
    other = 0
    meta_lines: list[str] = []
    with open(path, encoding="utf-8-sig", errors="replace") as fh:
        for i, line in enumerate(fh, start=1):
            m = STEP_RE.search(line)
            if not m:
                if line.strip():
                    other += 1
                    if ("Throughput" in line or "Accelerator Utilization" in line) and len(meta_lines) < 50:
                        meta_lines.append(line.strip()[:200])
                continue
            r = by_rank.setdefault(int(m.group("rank")), {"ts": [], "step": [], "n": [], "t": [], "line": []})
            r["ts"].append(m.group("ts"))
            r["step"].append(int(m.group("step")))
            r["n"].append(float(m.group("n")))
            r["t"].append(_float(m.group("t")))
            r["line"].append(i)
    if not by_rank:
        raise IngestError("no 'Rank R step S processed N samples in T s' line", path=src)
    all_ts = [_ts(x) for r in by_rank.values() for x in r["ts"] if x]
    t0 = min((x for x in all_ts if x is not None), default=None)
    runs = []
    for rank in sorted(by_rank):
        r = by_rank[rank]
        steps = np.array(r["step"])
        # steps restart each epoch: epoch k+1 begins where the step number drops
        epoch = 1 + np.concatenate(([0], np.cumsum(steps[1:] <= steps[:-1])))
        t = np.array([_since_s(x, t0) for x in r["ts"]])
        n = np.array(r["n"])
        dur = np.array(r["t"])
        with np.errstate(divide="ignore", invalid="ignore"):
            sps = np.where(dur > 0, n / dur, np.nan)
        cols = {
            "step": np.arange(1, len(steps) + 1, dtype="float64"),
            "epoch": epoch.astype("float64"),
            "t_s": t,
            "step_time_s": dur,
            "samples": n,
            "samples_per_s": sps,
        }
        meta = {"rank": rank, "ranks_in_file": len(by_rank), "step_in_epoch_restarts": int(epoch[-1]),
                "t_s_from": "log timestamps since the file's first step line (naive local time)"}
        if meta_lines:
            meta["summary_lines"] = meta_lines
        warnings = [f"{src}: {other} line(s) without a step record were not imported"] if other else []
        runs.append(
            build_run(cols, path=path, run_id=run_id_for(path, options, f"rank{rank}"), fmt="dlio_log",
                      lines=np.array(r["line"]), metadata=meta, warnings=warnings, **_common(options))
        )
    return runs


def _iostat(path: Path, options: Any) -> list[Run]:
    src = str(path)
    d = _json(path)
    try:
        hosts = d["sysstat"]["hosts"]
    except (KeyError, TypeError):
        raise IngestError("expected sysstat.hosts[] (iostat -o JSON)", path=src, field="sysstat.hosts") from None
    runs = []
    for h in hosts if isinstance(hosts, list) else []:
        series: dict[str, dict[str, list[float]]] = {}
        stats = h.get("statistics") or []
        for sample_i, st in enumerate(stats):
            ts = st.get("timestamp")
            for disk in st.get("disk") or []:
                name = str(disk.get("disk_device", "disk"))
                s = series.setdefault(name, {"i": [], "ts": [], "r": [], "w": [], "riops": [], "wiops": [], "await": []})
                s["i"].append(sample_i)
                s["ts"].append(ts)
                if "rMB/s" in disk:
                    s["r"].append(_float(disk.get("rMB/s")) * MIB)
                    s["w"].append(_float(disk.get("wMB/s")) * MIB)
                else:  # without -m: kB/s (KiB)
                    s["r"].append(_float(disk.get("rkB/s")) * KIB)
                    s["w"].append(_float(disk.get("wkB/s")) * KIB)
                s["riops"].append(_float(disk.get("r/s")))
                s["wiops"].append(_float(disk.get("w/s")))
                s["await"].append(_float(disk.get("r_await", disk.get("await"))) / 1e3)
        for name, s in series.items():
            tss = s["ts"]
            t = _iostat_times(tss)
            cols = {
                "step": np.array(s["i"], dtype="float64"),
                "t_s": t,
                "read_bytes_per_s": np.array(s["r"]),
                "write_bytes_per_s": np.array(s["w"]),
                "read_iops": np.array(s["riops"]),
                "write_iops": np.array(s["wiops"]),
                "read_latency_s": np.array(s["await"]),
            }
            meta = {"nodename": h.get("nodename"), "disk": name, "units": "rMB/s = MiB/s; r_await ms -> s",
                    "start_time": tss[0] if tss else None}
            runs.append(build_run(cols, path=path, run_id=run_id_for(path, options, f"{h.get('nodename', 'host')}/{name}"),
                                  fmt="iostat", metadata=meta, **_common(options)))
    if not runs:
        raise IngestError("no disk statistics in sysstat.hosts[].statistics[].disk", path=src)
    return runs


def _iostat_times(tss: list[Any]) -> np.ndarray:
    out = []
    for x in tss:
        t = None
        for fmt in ("%m/%d/%y %H:%M:%S", "%m/%d/%Y %H:%M:%S", "%Y-%m-%dT%H:%M:%S%z", "%m/%d/%y %I:%M:%S %p"):
            try:
                t = datetime.strptime(str(x), fmt).timestamp()
                break
            except ValueError:
                continue
        out.append(np.nan if t is None else t)
    a = np.array(out, dtype="float64")
    a = a - a[np.isfinite(a)][0] if np.isfinite(a).any() else np.arange(len(a), dtype="float64")
    return a
