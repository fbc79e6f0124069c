"""Logs whose only clock is cumulative: ``step:N/M ... train_time:Xms step_avg:Yms`` (format ``cumclock``).

The nanoGPT speedrun (modded-nanogpt) and llm.c-style trainers print, per logged step, the training
time so far (the clock is paused during evaluation and may be reset, e.g. after the compile steps) and
its running average ``step_avg``. There is no per-step time to read: it is the difference of the
clock between logged rows.

For logged rows ``k`` with step ``s_k`` and clock ``c_k`` (``train_time`` / ``training_time`` /
``elapsed`` / ``total_time``, in ms, s or min as written):

* the row covers ``s_k - s_{k-1}`` steps and lasted ``d_k = c_k - c_{k-1}`` seconds, so
  ``step_time_s = d_k / (s_k - s_{k-1})``;
* a **reset** (``c_k < c_{k-1}``: the trainer restarted its timer) makes ``d_k = c_k``, the time since
  the reset; the time between row ``k-1`` and the reset is not in the log (counted in ``metadata``);
* a row with ``d_k = 0`` (``step:0 ... train_time:0ms``, the evaluation before training) has no duration:
  it is skipped and counted;
* a step logged twice (a training line and an evaluation line at the same step) keeps the first
  (training) line; the rest are counted as evaluation lines;
* without any cumulative clock, ``step_avg`` (the running mean step time since the counter's start) gives
  ``c_k = step_avg_k * s_k`` (said in a warning: the speedrun's own average leaves out its first
  steps, so the first rows' times are approximate).

``t_s`` is the running sum of the ``d_k``: the training clock, evaluation excluded. ``samples_per_s``
needs the batch: ``--batch-size`` or ``--tokens-per-step`` (:mod:`costmodel.ingest.derive`). Every
other line is counted in a warning.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation.errors import IngestError
from ..foundation.schema import Run
from .validate import build_run, read_text, run_id_for

FORMAT = "cumclock"
FORMATS = ["cumclock"]

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
STEP_RE = re.compile(r"(?:^|[\s|,\[])step[:=\s]\s*(?P<step>\d+)(?:\s*/\s*(?P<of>\d+))?", re.IGNORECASE)
CLOCK_RE = re.compile(r"\b(?P<key>train_time|training_time|elapsed_time|time_elapsed|elapsed|total_time)"
                      r"\s*[:=]\s*(?P<v>" + _NUM + r")\s*(?P<unit>ms|s|sec|min|h)?\b", re.IGNORECASE)
#: a clock key whose value CLOCK_RE cannot read is a malformed line
CLOCK_KEY_RE = re.compile(r"\b(train_time|training_time)\s*[:=]", re.IGNORECASE)
AVG_RE = re.compile(r"\bstep_avg\s*[:=]\s*(?P<v>" + _NUM + r"|nan)\s*(?P<unit>ms|s)?", re.IGNORECASE)
_UNIT_S = {"ms": 1e-3, "s": 1.0, "sec": 1.0, "min": 60.0, "h": 3600.0, None: 1.0}


#: what sniffing asks for (``--format cumclock`` reads the other clock names too): ``step:N`` with
#: ``train_time`` / ``training_time`` or ``step_avg``, so key=value tables with an ``elapsed`` column stay tabular
SNIFF_RE = re.compile(r"\bstep:\d+\b.*\b(?:train_time|training_time|step_avg)\s*:", re.IGNORECASE)


#: speedrun logs open with the whole training script (often over 64 KiB): sniffed deeper when the head matched nothing
DEEP_SNIFF = True


def sniff(head: str, path: Path) -> bool:
    n = 0
    for line in head.splitlines()[:100_000]:
        if SNIFF_RE.search(line):
            n += 1
            if n >= 2:
                return True
    return False


def read(path: Path, options: Any) -> list[Run]:
    src = str(path)
    text = read_text(path)
    rows: list[tuple[int, float, float, float, bool]] = []  # (line, step, clock s, step_avg s, is eval)
    other = 0
    for i, line in enumerate(text.splitlines(), start=1):
        sm = STEP_RE.search(line)
        cm = CLOCK_RE.search(line)
        am = AVG_RE.search(line)
        if sm and cm is None and (key := CLOCK_KEY_RE.search(line)):
            raise IngestError(f"{key.group(1)} is not a number with a unit (expected e.g. {key.group(1)}:45123ms)",
                              path=src, line=i, field=key.group(1))
        if not sm or not (cm or am):
            if line.strip():
                other += 1
            continue
        clock = float(cm.group("v")) * _UNIT_S[(cm.group("unit") or "s").lower()] if cm else np.nan
        avg = np.nan
        if am and am.group("v").lower() != "nan":
            avg = float(am.group("v")) * _UNIT_S[(am.group("unit") or "ms").lower()]
        is_eval = bool(re.search(r"\b(?:val|eval)[_a-z]*\s*[:=]", line, re.IGNORECASE))
        rows.append((i, float(sm.group("step")), clock, avg, is_eval))
    if not rows:
        raise IngestError("no 'step:N ... train_time:Xms' line (a cumulative training clock)", path=src)
    # a step logged twice: keep the training line (else the first)
    by_step: dict[float, tuple[int, float, float, float, bool]] = {}
    evals = 0
    for r in rows:
        prev = by_step.get(r[1])
        if prev is None:
            by_step[r[1]] = r
        else:
            evals += 1
            if prev[4] and not r[4]:
                by_step[r[1]] = r
    kept = sorted(by_step.values(), key=lambda r: r[0])
    line_no = np.array([r[0] for r in kept])
    steps = np.array([r[1] for r in kept])
    clocks = np.array([r[2] for r in kept])
    avgs = np.array([r[3] for r in kept])
    warn: list[str] = []
    meta: dict[str, Any] = {"dialect": "cumclock"}
    if not np.isfinite(clocks).any():
        clocks = avgs * steps
        meta["clock_from"] = "step_avg x step (no cumulative clock in the log)"
        warn.append(f"{src}: no cumulative clock (train_time); the time is step_avg x step, approximate for the "
                    "first rows (a running average may leave out the first steps)")
    else:
        meta["clock_from"] = "differences of the cumulative clock between logged rows"
    order = np.argsort(steps, kind="stable")
    steps, clocks, line_no = steps[order], clocks[order], line_no[order]
    n = len(steps)
    d = np.full(n, np.nan)
    span = np.full(n, np.nan)
    resets: list[int] = []
    prev_c, prev_s = 0.0, 0.0
    for k in range(n):
        c = clocks[k]
        if not np.isfinite(c):
            continue
        if c < prev_c:
            resets.append(int(line_no[k]))
            d[k] = c  # time since the reset
        else:
            d[k] = c - prev_c
        span[k] = steps[k] - prev_s
        prev_c, prev_s = c, steps[k]
    ok = np.isfinite(d) & (d > 0) & (span > 0)
    zero = int(np.sum(np.isfinite(d) & (d <= 0)))
    no_clock = int(np.sum(~np.isfinite(d)))
    cols = {"step": steps[ok], "step_time_s": d[ok] / span[ok], "t_s": np.cumsum(d[ok]), "steps_per_row": span[ok]}
    if resets:
        meta["clock_resets"] = resets[:100]
        warn.append(f"{src}: the clock was reset {len(resets)} time(s) (first at line {resets[0]}); the row after a "
                    "reset lasts its own clock value (the time between the previous row and the reset is not in "
                    "the log)")
    skipped = {"other_lines": other, "evaluation_lines_same_step": evals, "rows_without_duration": zero,
               "rows_without_clock": no_clock}
    meta["skipped_lines"] = skipped
    if other:
        warn.append(f"{src}: {other} other line(s) hold no step with a cumulative clock; not imported")
    if evals:
        warn.append(f"{src}: {evals} line(s) repeat a step already logged (evaluation lines); the training line is kept")
    if zero or no_clock:
        warn.append(f"{src}: {zero + no_clock} logged row(s) have no duration (clock unchanged or missing; e.g. the "
                    "evaluation before step 1) and were not imported")
    if int(ok.sum()) == 0:
        raise IngestError("the cumulative clock never advances between logged steps: no step time to read", path=src)
    of = next((int(m.group("of")) for m in (STEP_RE.search(ln) for ln in text.splitlines()[:200]) if m and m.group("of")),
              None)
    if of is not None:
        meta["steps_planned"] = of
    keep_lines = line_no[ok]
    # steps_per_row is bookkeeping for the reader; the Timeline has no such column
    cols.pop("steps_per_row")
    return [build_run(cols, path=path, run_id=run_id_for(path, options), fmt="cumclock", lines=keep_lines,
                      metadata=meta, warnings=warn, role=getattr(options, "role", "") or "",
                      strict=getattr(options, "strict", False))]
