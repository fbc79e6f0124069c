"""Training-framework logs, chosen by content (format ``trainlog``; one run per dialect found in a file):

* ``megatron``: Megatron-LM / Megatron-DeepSpeed ``iteration N/ M | consumed samples: ... | elapsed time per
  iteration (ms): T | ... | global batch size: B | ... [| samples per second: S]``. ``step`` = iteration,
  ``step_time_s`` = T (ms or s, as the line says; it is the mean over the ``log_interval`` iterations since the
  previous line), ``samples_per_s`` = the line's ``samples per second`` or else B / step_time_s, ``tokens_per_s``
  from ``consumed tokens`` (difference between lines over the time between them). ``t_s`` = the line's
  ``[YYYY-MM-DD HH:MM:SS]`` stamp when present, else the cumulative step time x iterations since the previous line.
* ``nemo``: NeMo 2 / Megatron-Bridge ``Training epoch E, iteration I/N | ... | global_batch_size: B |
  global_step: G | ... | train_step_timing in s: T | consumed_samples: C``; ``samples_per_s`` = B / T, ``tokens_per_s``
  from ``tokens_per_sec_per_gpu`` is per GPU (kept in metadata, not as the job's rate).
* ``deepspeed``: DeepSpeed ``[timer.py] epoch=E/micro_step=M/global_step=G, RunningAvgSamplesPerSec=R,
  CurrSamplesPerSec=C, ...``; ``samples_per_s`` = C (samples/s of the whole job over the last step), ``t_s`` from the
  line's timestamp; the running average is kept in metadata.
* ``torchtitan``: ``step: N  loss: L  memory: ...  tps: 6,789  tflops: ...  mfu: ...%`` (ANSI colour codes and
  thousands separators allowed); ``tokens_per_s`` = tps, which torchtitan computes **per GPU** (metadata
  ``tokens_per_s_scope``), ``t_s`` from the line's timestamp.
* ``hf_trainer``: Hugging Face Trainer ``trainer_state.json`` (``log_history``): one row per logged step (``step``,
  ``epoch``); the Trainer logs loss, not time, per step, so the measured throughput is the final summary's
  ``train_samples_per_second`` (mean over the run, on the last step) unless entries carry their own
  ``*_samples_per_second`` / ``*_tokens_per_second``. ``eval_*`` entries make a second run ``<file>:eval``.

Lines that match no dialect are counted in a warning, never silently dropped.
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
from .validate import build_run, read_text, run_id_for

FORMAT = "trainlog"
FORMATS = ["trainlog", "megatron", "nemo", "deepspeed", "torchtitan", "hf_trainer"]

_NUM = r"[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")
MEGATRON_RE = re.compile(r"\biteration\s+(?P<it>\d+)\s*/\s*(?P<of>\d+)\s*\|"
                         r"(?P<rest>.*elapsed time per iteration \((?P<unit>ms|s)\)\s*:.*)")
NEMO_RE = re.compile(r"Training epoch (?P<epoch>\d+), iteration (?P<it>\d+)/(?P<of>\d+)\s*\|"
                     r"(?P<rest>.*train_step_timing in s:.*)")
#: a NeMo 2 console line without its step time (no TimingCallback): refused with a message that says so
NEMO_LINE_RE = re.compile(r"Training epoch \d+, iteration \d+/\d+\s*\|")
DS_RE = re.compile(r"epoch=(?P<epoch>\d+)/micro_step=(?P<micro>\d+)/global_step=(?P<step>\d+),"
                   r"\s*RunningAvgSamplesPerSec=(?P<avg>" + _NUM + r"),\s*CurrSamplesPerSec=(?P<cur>" + _NUM + r"|inf|nan)")
TITAN_RE = re.compile(r"\bstep:\s*(?P<step>\d+)\s+loss:\s*(?P<loss>" + _NUM + r"|nan|inf)"
                      r".*?\b(?P<key>tps|wps):\s*(?P<tps>" + _NUM + r")")
STAMP_RE = re.compile(r"\[?(?P<ts>\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?)")


def _f(s: str) -> float:
    return float(s.replace(",", ""))


def _stamp(line: str) -> float:
    m = STAMP_RE.search(line)
    if not m:
        return np.nan
    txt = m.group("ts").replace(",", ".").replace("T", " ")
    for fmt in ("%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S"):
        try:
            return datetime.strptime(txt, fmt).timestamp()
        except ValueError:
            continue
    return np.nan


def _is_hf_state(head: str) -> bool:
    return head.lstrip().startswith("{") and '"log_history"' in head


def dialects(head: str) -> list[str]:
    """The dialects ``head`` holds (several may share one file)."""
    if _is_hf_state(head):
        return ["hf_trainer"]
    text = ANSI_RE.sub("", head)
    found = []
    if MEGATRON_RE.search(text):
        found.append("megatron")
    if NEMO_RE.search(text):
        found.append("nemo")
    if DS_RE.search(text):
        found.append("deepspeed")
    if TITAN_RE.search(text):
        found.append("torchtitan")
    if not found and NEMO_LINE_RE.search(text):
        found.append("nemo")  # read() names the line and what is missing
    return found


#: framework logs often open with a long argument or config dump (Megatron's arguments, NeMo's model config): sniffed
#: deeper when the head matched no reader
DEEP_SNIFF = True


def sniff(head: str, path: Path) -> bool:
    return bool(dialects(head))


def read(path: Path, options: Any) -> list[Run]:
    src = str(path)
    text = read_text(path)
    fmt = getattr(options, "fmt", None)
    kinds = [fmt] if fmt in FORMATS[1:] else dialects(text[: 1 << 20]) or dialects(text)
    if not kinds:
        raise IngestError("no Megatron, NeMo, DeepSpeed or torchtitan step line and no trainer_state.json log_history",
                          path=src)
    if kinds == ["hf_trainer"]:
        return _hf_trainer(path, text, options)
    plain = ANSI_RE.sub("", text)
    lines = plain.splitlines()
    runs: list[Run] = []
    used: set[int] = set()
    for k in kinds:
        fn = {"megatron": _megatron, "nemo": _nemo, "deepspeed": _deepspeed, "torchtitan": _torchtitan}[k]
        run, hit = fn(path, lines, options, k if len(kinds) > 1 else "")
        used |= hit
        runs.append(run)
    other = sum(1 for i, ln in enumerate(lines) if ln.strip() and i not in used)
    if other and runs:
        runs[0].warnings.append(f"{src}: {other} other line(s) (not step lines of {', '.join(kinds)}) were not imported")
    return runs


def _c(options: Any) -> dict[str, Any]:
    return {"role": getattr(options, "role", "") or "", "strict": getattr(options, "strict", False)}


def _fields(rest: str) -> dict[str, str]:
    """``| key: value | key: value`` -> {key: value} (Megatron / NeMo separators)."""
    out = {}
    for part in rest.split("|"):
        if ":" in part:
            k, v = part.split(":", 1)
            out[k.strip().lower()] = v.strip()
    return out


def _first_number(d: dict[str, str], *keys: str) -> float:
    """The number that the text of the first of ``keys`` present in ``d`` starts with; NaN when none does."""
    for k in keys:
        v = d.get(k)
        if v is None:
            continue
        m = re.match(_NUM, v)
        if m:
            return _f(m.group(0))
    return np.nan


def _relative(ts: np.ndarray, meta: dict[str, Any]) -> np.ndarray | None:
    if not np.isfinite(ts).any():
        return None
    t0 = float(ts[np.isfinite(ts)][0])
    meta["start_epoch_s"] = t0
    meta["start_time"] = datetime.fromtimestamp(t0).isoformat()
    return ts - t0


def _dialect_run(fmt: str, cols: dict[str, np.ndarray], meta: dict[str, Any], path: Path, options: Any, suffix: str,
                 nums: list[int], stamps: np.ndarray | None = None, **kw: Any) -> tuple[Run, set[int]]:
    """The Run of one log dialect and the line indices it used; ``t_s`` from the lines' own time stamps
    (seconds since the first) when ``stamps`` has any."""
    t = None if stamps is None else _relative(stamps, meta)
    if t is not None:
        cols["t_s"] = t
    run = build_run(cols, path=path, run_id=run_id_for(path, options, suffix), fmt=fmt, lines=np.array(nums) + 1,
                    metadata=meta, **kw, **_c(options))
    return run, set(nums)


def _megatron(path: Path, lines: list[str], options: Any, suffix: str) -> tuple[Run, set[int]]:
    rows: list[dict[str, float]] = []
    nums: list[int] = []
    for i, line in enumerate(lines):
        m = MEGATRON_RE.search(line)
        if not m:
            continue
        d = _fields(m.group("rest"))
        scale = 1e-3 if m.group("unit") == "ms" else 1.0
        step_s = _first_number(d, f"elapsed time per iteration ({m.group('unit')})") * scale
        rows.append({"it": float(m.group("it")), "st": step_s, "gbs": _first_number(d, "global batch size"),
                     "sps": _first_number(d, "samples per second"), "tok": _first_number(d, "consumed tokens"),
                     "ts": _stamp(line[: m.start()] or line), "of": float(m.group("of"))})
        nums.append(i)
    if not rows:
        raise IngestError("no Megatron 'iteration N/ M | ... | elapsed time per iteration (ms): T' line", path=str(path))
    it = np.array([r["it"] for r in rows])
    st = np.array([r["st"] for r in rows])
    gbs = np.array([r["gbs"] for r in rows])
    sps = np.array([r["sps"] for r in rows])
    meta: dict[str, Any] = {"dialect": "megatron", "train_iters": rows[-1]["of"],
                            "step_time_is": "mean elapsed time per iteration over the log interval ending at this iteration"}
    with np.errstate(divide="ignore", invalid="ignore"):
        derived = np.where(st > 0, gbs / st, np.nan)
    cols: dict[str, np.ndarray] = {"step": it, "step_time_s": st}
    if np.isfinite(sps).any():
        cols["samples_per_s"] = np.where(np.isfinite(sps), sps, derived)
        meta["samples_per_s_from"] = "the line's 'samples per second' (else global batch size / elapsed time per iteration)"
    elif np.isfinite(derived).any():
        cols["samples_per_s"] = derived
        meta["samples_per_s_from"] = "the log's global batch size / elapsed time per iteration"
    if np.isfinite(gbs).any():
        meta["global_batch_size"] = float(gbs[np.isfinite(gbs)][-1])
    # iterations covered by each line: the log interval; the first line covers the iterations since the start when
    # the log begins there, else (an excerpt) one log interval
    span = np.diff(np.concatenate(([0.0], it)))
    if len(it) > 1:
        interval = float(np.median(span[1:]))
        if it[0] > interval:
            span[0] = interval
            meta["t_s_note"] = f"the log starts at iteration {it[0]:g}: t_s counts from one log interval before it"
    t = _relative(np.array([r["ts"] for r in rows]), meta)
    if t is None:
        t = np.cumsum(np.nan_to_num(st * span, nan=0.0))
        meta["t_s_from"] = "cumsum(elapsed time per iteration x iterations since the previous line)"
    cols["t_s"] = t
    tok = np.array([r["tok"] for r in rows])
    if np.isfinite(tok).sum() >= 2:
        with np.errstate(divide="ignore", invalid="ignore"):
            dtok = np.diff(np.concatenate(([np.nan], tok)))
            cols["tokens_per_s"] = np.where(span > 0, dtok / (st * span), np.nan)
        meta["tokens_per_s_from"] = "difference of consumed tokens / (elapsed time per iteration x iterations)"
    return _dialect_run("megatron", cols, meta, path, options, suffix, nums)


def _nemo(path: Path, lines: list[str], options: Any, suffix: str) -> tuple[Run, set[int]]:
    rows, nums = [], []
    for i, line in enumerate(lines):
        m = NEMO_RE.search(line)
        if not m:
            continue
        d = _fields(m.group("rest"))
        rows.append((float(m.group("epoch")), _first_number(d, "global_step"), float(m.group("it")),
                     _first_number(d, "train_step_timing in s"), _first_number(d, "global_batch_size"),
                     _first_number(d, "tokens_per_sec_per_gpu"),
                     _stamp(line[: m.start()] or line)))
        nums.append(i)
    if not rows:
        first = next((i + 1 for i, ln in enumerate(lines) if NEMO_LINE_RE.search(ln)), None)
        if first is not None:
            raise IngestError("NeMo 'Training epoch E, iteration I/N | ...' lines without 'train_step_timing in s': no "
                              "step time or clock to read; NeMo logs it with its TimingCallback (or log to TensorBoard "
                              "and ingest the events file)", path=str(path), line=first)
        raise IngestError("no NeMo 'Training epoch E, iteration I/N | ... | train_step_timing in s: T' line", path=str(path))
    a = np.array(rows, dtype="float64")
    step = np.where(np.isfinite(a[:, 1]), a[:, 1], a[:, 2])
    st, gbs = a[:, 3], a[:, 4]
    meta: dict[str, Any] = {"dialect": "nemo"}
    cols: dict[str, np.ndarray] = {"step": step, "epoch": a[:, 0], "step_time_s": st}
    with np.errstate(divide="ignore", invalid="ignore"):
        if np.isfinite(gbs).any():
            cols["samples_per_s"] = np.where(st > 0, gbs / st, np.nan)
            meta["samples_per_s_from"] = "the log's global_batch_size / train_step_timing"
            meta["global_batch_size"] = float(gbs[np.isfinite(gbs)][-1])
    if np.isfinite(a[:, 5]).any():
        meta["tokens_per_sec_per_gpu"] = [float(x) for x in a[:, 5]]
    return _dialect_run("nemo", cols, meta, path, options, suffix, nums, stamps=a[:, 6])


def _deepspeed(path: Path, lines: list[str], options: Any, suffix: str) -> tuple[Run, set[int]]:
    rows, nums = [], []
    for i, line in enumerate(lines):
        m = DS_RE.search(line)
        if not m:
            continue
        cur = m.group("cur")
        rows.append((float(m.group("step")), float(m.group("epoch")), float(cur) if cur in ("inf", "nan") else _f(cur),
                     _f(m.group("avg")), _stamp(line)))
        nums.append(i)
    if not rows:
        raise IngestError("no DeepSpeed 'epoch=E/micro_step=M/global_step=G, RunningAvgSamplesPerSec=R, "
                          "CurrSamplesPerSec=C' line", path=str(path))
    a = np.array(rows, dtype="float64")
    meta: dict[str, Any] = {"dialect": "deepspeed", "running_avg_samples_per_s": [float(x) for x in a[:, 3]],
                            "samples_per_s_is": "CurrSamplesPerSec: samples per second of the whole job over the last step"}
    cols: dict[str, np.ndarray] = {"step": a[:, 0], "epoch": a[:, 1], "samples_per_s": a[:, 2]}
    return _dialect_run("deepspeed", cols, meta, path, options, suffix, nums, stamps=a[:, 4])


def _torchtitan(path: Path, lines: list[str], options: Any, suffix: str) -> tuple[Run, set[int]]:
    rows, nums = [], []
    key = "tps"
    for i, line in enumerate(lines):
        m = TITAN_RE.search(line)
        if not m:
            continue
        key = m.group("key")
        mfu = re.search(r"mfu:\s*(" + _NUM + r")%", line)
        rows.append((float(m.group("step")), _f(m.group("tps")), _f(mfu.group(1)) if mfu else np.nan, _stamp(line[: m.start()])))
        nums.append(i)
    if not rows:
        raise IngestError("no torchtitan 'step: N  loss: L ... tps: T' line", path=str(path))
    a = np.array(rows, dtype="float64")
    meta: dict[str, Any] = {"dialect": "torchtitan",
                            "tokens_per_s_scope": f"per GPU: torchtitan's {key} is tokens per second per device"}
    if np.isfinite(a[:, 2]).any():
        meta["mfu_pct"] = [float(x) for x in a[:, 2]]
    cols: dict[str, np.ndarray] = {"step": a[:, 0], "tokens_per_s": a[:, 1]}
    warn = [f"{path}: torchtitan's {key} is tokens per second per GPU; multiply by the number of GPUs for the job's rate"]
    return _dialect_run("torchtitan", cols, meta, path, options, suffix, nums, stamps=a[:, 3], warnings=warn)


# ------------------------------------------------------------------------------------------ HF Trainer


def _hf_trainer(path: Path, text: str, options: Any) -> list[Run]:
    src = str(path)
    try:
        doc = limits.loads(text)
    except json.JSONDecodeError as exc:
        raise IngestError(f"not valid JSON ({exc.msg}); expected a Hugging Face trainer_state.json", path=src,
                          line=exc.lineno) from None
    hist = doc.get("log_history") if isinstance(doc, dict) else None
    if not isinstance(hist, list):
        raise IngestError("no log_history list; expected a Hugging Face trainer_state.json", path=src, field="log_history")
    train: dict[float, dict[str, float]] = {}
    evals: dict[float, dict[str, float]] = {}
    for e in hist:
        if not isinstance(e, dict) or not isinstance(e.get("step"), (int, float)):
            continue
        step = float(e["step"])
        is_eval = any(k.startswith("eval_") for k in e)
        target = evals if is_eval else train
        row = target.setdefault(step, {})
        for k, v in e.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                row[k] = float(v)
    meta: dict[str, Any] = {"dialect": "hf_trainer"}
    for k in ("global_step", "max_steps", "num_train_epochs", "train_batch_size", "logging_steps", "total_flos"):
        if k in doc:
            meta[k] = doc[k]
    if "train_batch_size" in doc:
        meta["train_batch_size_is"] = ("per device (TrainingArguments.per_device_train_batch_size x gradient "
                                       "accumulation not included)")
    found = [_hf_rows(path, train, meta, options, "", "train_")] if train else []  # must=True: a Run or IngestError
    if evals:
        found.append(_hf_rows(path, evals, {**meta, "prefix": "eval"}, options, "eval", "eval_", must=False))
    runs = [r for r in found if r is not None]
    if not runs:
        raise IngestError("log_history has no entry with a step", path=src, field="log_history")
    return runs


def _hf_rows(path: Path, rows: dict[float, dict[str, float]], meta: dict[str, Any], options: Any, suffix: str,
             prefix: str, must: bool = True) -> Run | None:
    steps = sorted(rows)
    n = len(steps)

    def col(*names: str) -> np.ndarray:
        out = np.full(n, np.nan)
        for i, s in enumerate(steps):
            for nm in names:
                if nm in rows[s]:
                    out[i] = rows[s][nm]
                    break
        return out

    cols: dict[str, np.ndarray] = {"step": np.array(steps), "epoch": col("epoch")}
    sps = col(f"{prefix}samples_per_second", "samples_per_second")
    tps = col(f"{prefix}tokens_per_second", "tokens_per_second")
    if np.isfinite(sps).any():
        cols["samples_per_s"] = sps
    if np.isfinite(tps).any():
        cols["tokens_per_s"] = tps
    meta = dict(meta)
    summary = [s for s in steps if f"{prefix}runtime" in rows[s]]
    if summary:
        last = rows[summary[-1]]
        meta[f"{prefix}runtime_s"] = last.get(f"{prefix}runtime")
    warnings = []
    if "samples_per_s" not in cols and "tokens_per_s" not in cols:
        if not must:
            return None
        raise IngestError("trainer_state.json log_history holds loss per step but no time or throughput "
                          "(no train_samples_per_second summary); log with report_to=tensorboard and ingest the "
                          "events file, or give the step time another way", path=str(path), field="log_history")
    if prefix == "train_" and np.isfinite(sps).sum() <= 1:
        warnings.append(f"{path}: the Hugging Face Trainer logs loss, not time, per step: the only throughput is the "
                        "whole-run mean train_samples_per_second on the last step (a level, not a warm-up curve)")
    return build_run(cols, path=path, run_id=run_id_for(path, options, suffix), fmt="hf_trainer", metadata=meta,
                     warnings=warnings, **_c(options))
