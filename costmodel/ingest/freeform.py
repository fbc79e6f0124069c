"""Free-form logs as frameworks print them, and ``--pattern REGEX`` for any other log.

Built-in dialects (several may come from one file; each makes its own run ``<file>:<dialect>``):

* ``mllog``: MLPerf ``:::MLLOG {json}`` events; one row per epoch from ``throughput`` (or
  ``tracked_stats.imgs_sec``) events, ``t_s`` = event time since ``run_start``.
* ``speed``: MXNet ``... Epoch[E] Batch [a-b] Speed: N samples/sec`` (one row per logged batch window).
* ``tf``: TensorFlow ``loss = x, step = S (T sec)`` -> step time = T / steps since the last line; or
  ``global_step/sec: N`` alone -> step time 1/N.
* ``throughput``: ``... (epoch, step) ... throughput : N`` step lines (Hugging Face / Neuron examples).
* ``superbench``: SuperBench ``results.json`` (``raw_data.steptime_train_*`` ms and ``throughput_train_*``)
  -> one run per model and precision.
* ``elbencho``: the result table (``OPERATION RESULT TYPE  FIRST DONE  LAST DONE``) -> one row per READ/WRITE
  phase with LAST DONE throughput (MiB/s), IOPS, bytes; ``t_s`` = cumulative elapsed of all phases.
* ``pattern``: ``--pattern`` with named groups named like Timeline columns or aliases with unit suffixes
  (``(?P<step>\\d+)``, ``(?P<samples_per_s>[\\d.]+)``, ``(?P<step_time_ms>[\\d.]+)``).
Lines that match nothing are counted in a warning, never silently dropped.
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
from ..foundation.units import MIB
from .frame import convert
from .units import documented_column
from .validate import build_run, read_text, run_id_for

FORMAT = "freeform"
FORMATS = ["freeform", "mllog", "speed", "tf", "throughput", "superbench", "elbencho", "pattern"]

MLLOG_RE = re.compile(r":::MLLOG\s+(\{.*\})\s*$")
SPEED_RE = re.compile(
    r"^(?P<ts>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:,\d+)?)?.*?(?:Node\[(?P<node>\d+)\]\s*)?Epoch\[(?P<epoch>\d+)\]\s*"
    r"Batch\s*\[(?:\d+-)?(?P<batch>\d+)\]\s*Speed:\s*(?P<v>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*samples/sec"
)
SPEED_ANY_RE = re.compile(r"Speed:\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*samples/sec")
TF_STEP_RE = re.compile(r"step = (?P<step>\d+) \((?P<sec>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?) sec\)")
TF_GS_RE = re.compile(r"global_step/sec:\s*(?P<v>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")
THR_RE = re.compile(r"throughput\s*:\s*(?P<v>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)", re.IGNORECASE)
HF_RE = re.compile(r"^LOG (?P<date>\w{3} \w{3}\s+\d+ \d\d:\d\d:\d\d \d{4}) - \((?P<epoch>\d+), (?P<step>\d+)\)")


def dialects(head: str) -> list[str]:
    found = []
    if re.search(r":::MLLOG\s+\{", head):
        found.append("mllog")
    if SPEED_ANY_RE.search(head):
        found.append("speed")
    if TF_GS_RE.search(head) or TF_STEP_RE.search(head):
        found.append("tf")
    if THR_RE.search(head) and "throughput_train" not in head and "mllog" not in found:
        found.append("throughput")
    if '"raw_data"' in head and ("steptime_train" in head or "throughput_train" in head):
        found.append("superbench")
    if "OPERATION RESULT TYPE" in head or re.search(r"^\s*(READ|WRITE)\s+Elapsed ms\s*:", head, flags=re.MULTILINE):
        found.append("elbencho")
    return found


def sniff(head: str, path: Path) -> bool:
    return bool(dialects(head))


def read(path: Path, options: Any) -> list[Run]:
    src = str(path)
    text = read_text(path)
    if getattr(options, "pattern", None):
        return [_pattern(path, text, options)]
    fmt = getattr(options, "fmt", None)
    kinds = [fmt] if fmt in FORMATS[1:] else dialects(text[: 1 << 20])
    if not kinds:
        raise IngestError("no known log lines (MLLOG, Speed:, global_step/sec, throughput :, SuperBench, elbencho); "
                          "use --pattern with named groups", path=src)
    runs: list[Run] = []
    for k in kinds:
        fn = {"mllog": _mllog, "speed": _speed, "tf": _tf, "throughput": _throughput, "superbench": _superbench,
              "elbencho": _elbencho}[k]
        runs.extend(fn(path, text, options, suffix=k if len(kinds) > 1 else ""))
    if len(kinds) > 1:
        # several dialects of one console log describe the same training run (e.g. MXNet's per-batch
        # Speed: lines and MLLOG's per-epoch throughput): views of one run, not repetitions
        for r in runs:
            r.metadata.setdefault("view_of", src)
            r.metadata.setdefault("view", r.format)
    return runs


def _c(options: Any) -> dict[str, Any]:
    return {"role": getattr(options, "role", "") or "", "strict": getattr(options, "strict", False)}


#: MLLOG ``value`` keys that hold a throughput (``tracked_stats`` dicts: MLPerf Training v1-v5)
MLLOG_RATE_KEYS = ("throughput", "imgs_sec", "samples_per_second", "samples_per_sec")


def _mllog_step(e: dict[str, Any]) -> tuple[float | None, str]:
    """The position of an MLLOG rate event and its granularity: (value, "step" | "epoch" | "samples")."""
    md: dict[str, Any] = e["metadata"] if isinstance(e.get("metadata"), dict) else {}
    v: dict[str, Any] = e["value"] if isinstance(e.get("value"), dict) else {}
    for src, key, gran in ((md, "step", "step"), (md, "iteration", "step"), (md, "epoch_num", "epoch"),
                           (v, "epoch_num", "epoch"), (md, "samples_count", "samples")):
        x = src.get(key)
        if isinstance(x, list) and x and all(isinstance(k, (int, float)) for k in x):
            x = x[-1]  # [phase, step] (BERT phase 2): the step within the phase
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            return float(x), gran
    return None, "epoch"


def _mllog(path: Path, text: str, options: Any, suffix: str = "") -> list[Run]:
    """MLPerf ``:::MLLOG`` events: one run per series of rate events (``throughput`` events, and
    ``tracked_stats`` dicts with a throughput), split by granularity (per step vs per epoch): a file with
    both makes two runs ``:mllog/step`` and ``:mllog/epoch``, never one run with duplicate steps."""
    src = str(path)
    events = []
    bad = 0
    other_lines = 0
    for i, line in enumerate(text.splitlines(), start=1):
        m = MLLOG_RE.search(line)
        if not m:
            if line.strip():
                other_lines += 1
            continue
        try:
            ev = limits.loads(m.group(1))
        except ValueError:
            bad += 1
            continue
        if isinstance(ev, dict):
            events.append((i, ev))
        else:
            bad += 1
    if not events:
        raise IngestError("no valid ':::MLLOG {json}' line", path=src)
    t0 = next((e.get("time_ms") for _i, e in events if e.get("key") == "run_start"), events[0][1].get("time_ms"))
    meta: dict[str, Any] = {"dialect": "mllog"}
    for _i, e in events:
        if (e.get("key") in ("global_batch_size", "submission_benchmark", "submission_org", "train_samples", "seed")
                and "value" in e):
            meta[e["key"]] = e["value"]
    # series: (granularity) -> rows (position, rate, time_ms, line)
    series: dict[str, list[tuple[float, float, Any, int]]] = {}
    current_epoch = None
    epoch_count = 0
    unused = 0
    same = 0
    seen_rates: dict[float, list[Any]] = {}
    epoch_at: dict[int, Any] = {}  # the epoch_start in force at each event's line
    for i, e in events:
        md: dict[str, Any] = e["metadata"] if isinstance(e.get("metadata"), dict) else {}
        if e.get("key") == "epoch_start":
            current_epoch = md.get("epoch_num", current_epoch)
        epoch_at[i] = current_epoch
    # "throughput" events first: a tracked_stats dict logging the same figure is then the duplicate
    for i, e in sorted(events, key=lambda ie: (ie[1].get("key") != "throughput", ie[0])):
        key = e.get("key")
        current_epoch = epoch_at[i]
        val = e.get("value")
        rate = None
        if key == "throughput" and isinstance(val, (int, float)) and not isinstance(val, bool):
            rate = float(val)
        elif key == "tracked_stats" and isinstance(val, dict):
            rate = next((float(val[k]) for k in MLLOG_RATE_KEYS
                         if isinstance(val.get(k), (int, float)) and not isinstance(val.get(k), bool)), None)
        if rate is None:
            unused += 1
            continue
        tm = e.get("time_ms")
        if any(abs(float(tm) - float(t2)) <= 1000.0 if tm is not None and t2 is not None else True
               for t2 in seen_rates.get(rate, ())):
            same += 1  # one measurement logged twice (throughput and tracked_stats of the same epoch)
            continue
        seen_rates.setdefault(rate, []).append(tm)
        pos, gran = _mllog_step(e)
        if pos is None:
            epoch_count += 1
            pos = float(current_epoch) if isinstance(current_epoch, (int, float)) else float(epoch_count)
        series.setdefault(gran, []).append((pos, rate, e.get("time_ms"), i))
    if not series:
        raise IngestError("MLLOG events hold no 'throughput' values (key 'throughput', or 'tracked_stats' with "
                          f"{' / '.join(MLLOG_RATE_KEYS)})", path=src)
    if t0 is not None:
        meta["start_epoch_s"] = float(t0) / 1e3
    warn = []
    if bad:
        warn.append(f"{src}: {bad} MLLOG line(s) with invalid JSON not imported")
    if other_lines:
        warn.append(f"{src}: {other_lines} line(s) are not MLLOG events (other console output); not read by the mllog reader")
    meta["skipped_lines"] = {"not_mllog": other_lines, "invalid_json": bad, "events_without_a_rate": unused,
                             "same_rate_logged_twice": same}
    runs = []
    for gran, all_rows in sorted(series.items()):
        all_rows.sort(key=lambda r: r[3])  # file order
        spos = np.array([r[0] for r in all_rows])
        # one series per granularity: a repeated position (an event logged twice) keeps the last value, counted
        _u, last = np.unique(spos[::-1], return_index=True)
        keep = np.sort(len(spos) - 1 - last)
        dup = len(spos) - len(keep)
        rows = [all_rows[k] for k in keep]
        spos = spos[keep]
        t = np.array([(float(r[2]) - float(t0)) / 1e3 if r[2] is not None and t0 is not None else np.nan for r in rows])
        cols = {"step": spos, "samples_per_s": np.array([r[1] for r in rows]), "t_s": t}
        if gran == "epoch":
            cols["epoch"] = spos
        m2 = {**meta, "series": gran,
              "step_is": {"step": "the event's metadata step (iteration)", "epoch": "the epoch number",
                          "samples": "the samples count of the event"}[gran],
              "rate_unit_note": "MLPerf's throughput unit (samples/s for most benchmarks; tokens/s for some LLM ones)"}
        w2 = list(warn)
        if dup:
            w2.append(f"{src}: {dup} MLLOG rate event(s) repeat a {gran} already logged; the last one is kept")
            m2["repeated_events"] = dup
        sfx = "/".join(x for x in (suffix, gran if len(series) > 1 else "") if x)
        if len(series) > 1:
            m2["view_of"] = src
            m2["view"] = f"mllog per {gran}"
        runs.append(build_run(cols, path=path, run_id=run_id_for(path, options, sfx), fmt="mllog",
                              lines=np.array([r[3] for r in rows]), metadata=m2, warnings=w2, **_c(options)))
    return runs


def _parse_dt(s: str | None, fmts: tuple[str, ...]) -> float:
    if not s:
        return np.nan
    for f in fmts:
        try:
            return datetime.strptime(s, f).timestamp()
        except ValueError:
            continue
    return np.nan


def _speed(path: Path, text: str, options: Any, suffix: str = "") -> list[Run]:
    src = str(path)
    by_node: dict[str, list[tuple[int, Any]]] = {}
    unmatched: list[int] = []
    other = 0
    for i, line in enumerate(text.splitlines(), start=1):
        m = SPEED_RE.search(line)
        if m:
            by_node.setdefault(m.group("node") or "0", []).append((i, m))
        elif SPEED_ANY_RE.search(line):
            unmatched.append(i)  # a Speed: line of another shape: data this reader could not place
        elif line.strip():
            other += 1
    if not by_node:
        raise IngestError("no 'Epoch[E] Batch [a-b] Speed: N samples/sec' line", path=src)
    runs = []
    for node, items in sorted(by_node.items()):
        ts = np.array([_parse_dt(m.group("ts"), ("%Y-%m-%d %H:%M:%S,%f", "%Y-%m-%d %H:%M:%S")) for _i, m in items])
        t = ts - ts[np.isfinite(ts)][0] if np.isfinite(ts).any() else np.full(len(ts), np.nan)
        cols = {
            "step": np.arange(1, len(items) + 1, dtype="float64"),
            "epoch": np.array([float(m.group("epoch")) for _i, m in items]),
            "samples_per_s": np.array([float(m.group("v")) for _i, m in items]),
            "t_s": t,
        }
        meta: dict[str, Any] = {"dialect": "speed", "node": node, "step_is": "index of the logged batch window (Batch [a-b])",
                                "batch_end": [int(m.group("batch")) for _i, m in items[:3]],
                                "skipped_lines": {"speed_lines_not_parsed": len(unmatched), "other_lines": other}}
        warn = []
        if unmatched:
            warn.append(f"{src}: {len(unmatched)} 'Speed: N samples/sec' line(s) without 'Epoch[E] Batch [a-b]' were not "
                        f"imported (first: line {unmatched[0]})")
        if other:
            warn.append(f"{src}: {other} other line(s) hold no 'Speed:' figure; not read by the speed reader")
        sfx = suffix + (f"/node{node}" if len(by_node) > 1 else "")
        runs.append(build_run(cols, path=path, run_id=run_id_for(path, options, sfx), fmt="speed",
                              lines=np.array([i for i, _m in items]), metadata=meta, warnings=warn, **_c(options)))
    return runs


def _tf(path: Path, text: str, options: Any, suffix: str = "") -> list[Run]:
    src = str(path)
    steps, secs, lines = [], [], []
    gs, gs_lines = [], []
    other = 0
    for i, line in enumerate(text.splitlines(), start=1):
        m = TF_STEP_RE.search(line)
        if m:
            steps.append(int(m.group("step")))
            secs.append(float(m.group("sec")))
            lines.append(i)
            continue
        m = TF_GS_RE.search(line)
        if m:
            gs.append(float(m.group("v")))
            gs_lines.append(i)
        elif line.strip():
            other += 1
    prev0 = re.search(r"step = (\d+)\s*$", text, flags=re.MULTILINE)
    if steps:
        st = np.array(steps, dtype="float64")
        first = float(prev0.group(1)) if prev0 and int(prev0.group(1)) < steps[0] else 0.0
        span = np.diff(np.concatenate(([first], st)))
        sec = np.array(secs)
        with np.errstate(divide="ignore", invalid="ignore"):
            step_time = np.where(span > 0, sec / span, np.nan)
        cols = {"step": st, "step_time_s": step_time, "t_s": np.cumsum(sec)}
        meta = {"dialect": "tf", "step_time_from": "interval seconds / steps in the interval",
                "global_step_per_s": gs}
        ln = np.array(lines)
    elif gs:
        v = np.array(gs)
        with np.errstate(divide="ignore"):
            cols = {"step_time_s": np.where(v > 0, 1.0 / v, np.nan)}
        meta = {"dialect": "tf", "step_time_from": "1 / global_step/sec"}
        ln = np.array(gs_lines)
    else:
        raise IngestError("no 'step = S (T sec)' or 'global_step/sec: N' line", path=src)
    warn = [] if getattr(options, "batch_size", None) else [
        (f"{src}: TensorFlow logs give steps per second, not samples: samples_per_s needs the batch size; "
         "give it with --batch-size N (samples per step, all replicas)")]
    if steps and gs:
        warn.append(f"{src}: {len(gs)} 'global_step/sec' line(s) kept in metadata (the step lines give the step times)")
    if other:
        warn.append(f"{src}: {other} other line(s) hold no step time; not read by the tf reader")
    meta_out: dict[str, Any] = {**meta, "skipped_lines": {"other_lines": other}}
    return [build_run(cols, path=path, run_id=run_id_for(path, options, suffix), fmt="tf", lines=ln, metadata=meta_out,
                      warnings=warn, **_c(options))]


def _throughput(path: Path, text: str, options: Any, suffix: str = "") -> list[Run]:
    src = str(path)
    rows, lines = [], []
    other = 0
    for i, line in enumerate(text.splitlines(), start=1):
        m = THR_RE.search(line)
        if not m:
            if line.strip():
                other += 1
            continue
        h = HF_RE.search(line)
        stamp_s = _parse_dt(h.group("date"), ("%a %b %d %H:%M:%S %Y",)) if h else np.nan
        step = float(h.group("step")) if h else np.nan
        epoch = float(h.group("epoch")) if h else np.nan
        if not h:
            sm = re.search(r"\bstep\s*[:=]?\s*(\d+)", line)
            step = float(sm.group(1)) if sm else np.nan
        rows.append((step, epoch, float(m.group("v")), stamp_s))
        lines.append(i)
    if not rows:
        raise IngestError("no 'throughput : N' line", path=src)
    a = np.array(rows, dtype="float64")
    ts = a[:, 3]
    cols = {"samples_per_s": a[:, 2]}
    if np.isfinite(a[:, 0]).all():
        cols["step"] = a[:, 0]
    if np.isfinite(a[:, 1]).any():
        cols["epoch"] = a[:, 1]
    if np.isfinite(ts).any():
        cols["t_s"] = ts - ts[np.isfinite(ts)][0]
    meta = {"dialect": "throughput", "unit_note": "throughput unit is not printed; read as samples/s",
            "skipped_lines": {"other_lines": other}}
    warn = [f"{src}: {other} other line(s) hold no 'throughput :' figure; not read by the throughput reader"] if other else []
    return [build_run(cols, path=path, run_id=run_id_for(path, options, suffix), fmt="throughput", lines=np.array(lines),
                      metadata=meta, warnings=warn, **_c(options))]


def _superbench(path: Path, text: str, options: Any, suffix: str = "") -> list[Run]:
    src = str(path)
    try:
        doc = limits.loads(text)
    except json.JSONDecodeError as exc:
        raise IngestError(f"not valid JSON ({exc.msg}); expected SuperBench results.json", path=src, line=exc.lineno) from None
    items = doc if isinstance(doc, list) else [doc]
    runs = []
    for bi, b in enumerate(items):
        if not isinstance(b, dict) or not isinstance(b.get("raw_data"), dict):
            continue
        name = str(b.get("name", f"benchmark{bi}"))
        raw = b["raw_data"]
        precisions = sorted({k.rsplit("_", 1)[-1] for k in raw if k.startswith(("steptime_train_", "throughput_train_"))})
        for prec in precisions:
            def first_list(key: str) -> np.ndarray | None:
                v = raw.get(key)  # noqa: B023 - called within this iteration
                if isinstance(v, list) and v and isinstance(v[0], list):
                    v = v[0]
                if not isinstance(v, list):
                    return None
                return np.array([float(x) if isinstance(x, (int, float)) else np.nan for x in v])
            st = first_list(f"steptime_train_{prec}")
            thr = first_list(f"throughput_train_{prec}")
            n = len(st) if st is not None else len(thr) if thr is not None else 0
            if n == 0:
                continue
            cols: dict[str, np.ndarray] = {"step": np.arange(1, n + 1, dtype="float64")}
            if st is not None and len(st) == n:
                cols["step_time_s"] = st / 1e3
            if thr is not None and len(thr) == n:
                cols["samples_per_s"] = thr
            meta = {"dialect": "superbench", "benchmark": name, "precision": prec, "return_code": b.get("return_code"),
                    "start_time": b.get("start_time"), "end_time": b.get("end_time"), "run_count": b.get("run_count"),
                    "units": "steptime ms -> s"}
            runs.append(build_run(cols, path=path, run_id=run_id_for(path, options, f"{name}/{prec}"), fmt="superbench",
                                  metadata=meta, **_c(options)))
    if not runs:
        raise IngestError("no benchmark with raw_data steptime_train_* / throughput_train_* lists", path=src, field="raw_data")
    return runs


def _elbencho(path: Path, text: str, options: Any, suffix: str = "") -> list[Run]:
    src = str(path)
    phases: list[dict[str, Any]] = []
    cur: dict[str, Any] | None = None
    label = ""
    row_re = re.compile(r"^(?P<op>[A-Z]+)?\s+(?P<what>[A-Za-z%/ ]+?)\s*:\s*(?P<first>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
                        r"\s+(?P<last>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$")
    for i, line in enumerate(text.splitlines(), start=1):
        if line.startswith("Working on"):
            label = line[len("Working on"):].strip().rstrip(".")
            continue
        m = row_re.match(line)
        if not m:
            if line.strip() == "---":
                cur = None
            continue
        if m.group("op"):
            cur = {"op": m.group("op"), "label": label, "line": i}
            phases.append(cur)
        if cur is None:
            continue
        cur[m.group("what").strip()] = float(m.group("last"))
        cur[m.group("what").strip() + " (first done)"] = float(m.group("first"))
    if not phases:
        raise IngestError("no elbencho result rows ('WRITE  Elapsed ms : first last')", path=src)
    elapsed = np.array([p.get("Elapsed ms", np.nan) / 1e3 for p in phases])
    t_end = np.cumsum(np.nan_to_num(elapsed))
    keep = [k for k, p in enumerate(phases) if p["op"] in ("READ", "WRITE")]
    if not keep:
        raise IngestError("no READ or WRITE phase in the elbencho results", path=src)
    rd = np.array([phases[k]["op"] == "READ" for k in keep])
    mibs = np.array([phases[k].get("Throughput MiB/s", np.nan) * MIB for k in keep])
    iops = np.array([phases[k].get("IOPS", np.nan) for k in keep])
    tot = np.array([phases[k].get("Total MiB", np.nan) * MIB for k in keep])
    nan = np.full(len(keep), np.nan)
    cols = {
        "step": np.arange(len(keep), dtype="float64"),
        "t_s": t_end[keep],
        "step_time_s": elapsed[keep],
        "read_bytes_per_s": np.where(rd, mibs, nan),
        "write_bytes_per_s": np.where(~rd, mibs, nan),
        "read_iops": np.where(rd, iops, nan),
        "write_iops": np.where(~rd, iops, nan),
        "bytes_read": np.where(rd, tot, nan),
    }
    meta = {"dialect": "elbencho", "phases": [dict(phases[j]) for j in keep],
            "other_phases": sorted({p["op"] for p in phases} - {"READ", "WRITE"}),
            "t_s_from": "cumulative LAST DONE elapsed of every phase (incl. DROPCACHE, RMFILES)",
            "units": "MiB = 2^20 bytes; LAST DONE (slowest thread) values"}
    return [build_run(cols, path=path, run_id=run_id_for(path, options, suffix), fmt="elbencho",
                      lines=np.array([phases[k]["line"] for k in keep]), metadata=meta, **_c(options))]


def _pattern(path: Path, text: str, options: Any) -> Run:
    src = str(path)
    try:
        rx = re.compile(options.pattern)
    except re.error as exc:
        raise IngestError(f"--pattern is not a valid regular expression: {exc}", field="--pattern") from None
    if not rx.groupindex:
        raise IngestError("--pattern needs named groups such as (?P<step>\\d+) and (?P<samples_per_s>[\\d.]+)", field="--pattern")
    records: dict[str, list[str | None]] = {g: [] for g in rx.groupindex}
    lines = []
    other = 0
    for i, line in enumerate(text.splitlines(), start=1):
        m = rx.search(line)
        if not m:
            if line.strip():
                other += 1
            continue
        for g in rx.groupindex:
            records[g].append(m.group(g))
        lines.append(i)
    if not lines:
        raise IngestError("--pattern matched no line", path=src, field="--pattern")
    conv = convert({g: np.array(v, dtype=object) for g, v in records.items()}, options, source=src, resolver=documented_column)
    if not conv.columns:
        raise IngestError(
            f"--pattern groups {sorted(rx.groupindex)} name no Timeline column; use names such as step, t_s, samples_per_s, "
            "step_time_ms, gpu_util_pct, read_MBps (Timeline columns or the aliases in docs/ingest.md)",
            field="--pattern",
        )
    conv.warnings = [w for w in conv.warnings if "not in the Timeline, not imported" not in w]
    extras = [g for g in rx.groupindex if g not in conv.mapped]
    meta: dict[str, Any] = {"pattern": options.pattern, **conv.metadata}
    if extras:
        meta["extra_columns"] = {g: _extra_values(records[g]) for g in extras}
        meta["extra_columns_lines"] = lines[:MAX_EXTRA_VALUES]
        conv.warnings.append(
            f"{src}: --pattern group(s) {', '.join(extras)} are not Timeline columns or documented aliases: kept as extra "
            f"column(s) in metadata extra_columns (not guessed into another column; rename the group, e.g. gpu_util_pct, "
            f"t_s, or use --map GROUP=COLUMN[:UNIT])"
            + (f"; first {MAX_EXTRA_VALUES} of {len(lines)} values kept" if len(lines) > MAX_EXTRA_VALUES else ""))
    warn = conv.warnings + ([f"{src}: {other} line(s) did not match --pattern and were not imported"] if other else [])
    return build_run(conv.columns, path=path, run_id=run_id_for(path, options), fmt="pattern", lines=np.array(lines),
                     invalid=conv.invalid, metadata=meta, warnings=warn, **_c(options))


#: values kept per extra --pattern group in metadata (a warning says when more were matched)
MAX_EXTRA_VALUES = 100_000


def _extra_values(values: list[str | None]) -> list[Any]:
    """An extra group's values: numbers where every present value is one, else the text."""
    vals = values[:MAX_EXTRA_VALUES]
    try:
        return [None if v is None else (int(v) if re.fullmatch(r"[-+]?\d+", v) else float(v)) for v in vals]
    except ValueError:
        return list(vals)
