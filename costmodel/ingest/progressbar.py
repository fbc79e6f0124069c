"""Console progress bars of NeMo 1.x / PyTorch Lightning (format ``progress_bar``, alias ``nemo_console``).

NeMo 1.x (and any Lightning run without a logger) writes only its tqdm training bar to the console, e.g.
(NVIDIA/NeMo-Framework-Launcher issue #55, a GPT run)::

    Epoch 0:   1%|          | 795/77225 [9:07:58<878:01:48, 41.36s/it, loss=3.1, v_num=, reduced_train_loss=3.090,
    global_step=794.0, consumed_samples=1.63e+6]

(one line in the log), or, for Lightning,
``Epoch 1:  39%|████▍  | 4846/12331 [05:59<09:15, 13.47it/s, loss=0.0136, v_num=1]``.
Updates are separated by carriage returns (a terminal) or new lines (a captured log); both are read.

What each figure is:

* ``n/total``: batches done in this epoch; the step (steps done) is the postfix's ``global_step`` + 1 (NeMo's
  ``global_step`` is the index of the step being logged: 794 at batch 795) when present, else the epoch's batches
  added up over the epochs;
* ``[elapsed<remaining, rate]``: ``elapsed`` is the time since the **epoch's** bar started (``MM:SS`` or
  ``H:MM:SS``, whole seconds); ``rate`` (``it/s`` or ``s/it``) is tqdm's exponential moving average, not an
  interval mean: it is not used as the rate;
* the time of a row is the difference of ``elapsed`` between rows; the clock has whole seconds, so rows are
  merged until it has advanced by at least ``MIN_SPAN_S`` seconds (a rounding error of at most
  ``1 / MIN_SPAN_S`` per row; the level, a ratio of sums, is exact to a second). ``step_time_s`` = seconds /
  steps of the merged row: an interval mean, stalls (checkpoints, validation inside the epoch) included;
* the epoch's bar starts at ``elapsed`` 0 with no batch done: the first update's steps (a start-up stall among
  them) are the first row even where the log lacks the bar's ``0/N`` line; the last steps, shorter than one
  merged row, are counted (``metadata.tail_not_a_row``, a warning);
* a new epoch restarts ``elapsed``: its first row lasts its own ``elapsed`` (the time between the epochs'
  bars, e.g. validation, is not in the log; counted in ``metadata``);
* the same step printed again (a refresh, or validation batches while ``global_step`` waits) keeps its first
  line; ``Validation`` / ``Testing`` bars and every other line are counted in a warning.

``samples_per_s`` needs the global batch size (``--batch-size``): the bar has none (``consumed_samples`` is
printed with three significant digits). A bar line whose ``[elapsed<...]`` cannot be read is an error naming
the line (line numbers count a carriage return as a line end: the text is read with universal newlines).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation.errors import IngestError
from ..foundation.schema import Run
from .validate import build_run, read_text, run_id_for

FORMAT = "progress_bar"
FORMATS = ["progress_bar", "nemo_console"]

MIN_SPAN_S = 10.0
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
#: the start of a training bar: ``Epoch N:`` then the percentage and the bar
BAR_START_RE = re.compile(r"\bEpoch (?P<epoch>\d+)\s*:\s*(?P<pct>\d+)%\|")
BAR_RE = re.compile(r"\bEpoch (?P<epoch>\d+)\s*:\s*\d+%\|[^|]*\|\s*(?P<n>\d+)/(?P<tot>\d+|\?)\s*"
                    r"\[(?P<el>[^<\]]*)<(?P<rem>[^,\]]*),\s*(?P<rate>[^,\]]*)(?:,\s*(?P<post>[^\]]*))?\]")
ELAPSED_RE = re.compile(r"^\s*(?:(?P<h>\d+):)?(?P<m>\d+):(?P<s>\d\d)\s*$")
SNIFF_RE = re.compile(r"\bEpoch \d+\s*:\s*\d+%\|[^|]*\|\s*\d+/(?:\d+|\?)\s*\[[\d:]+<")


#: a console log may open with long start-up output: sniffed deeper when the head matched nothing
DEEP_SNIFF = True


def sniff(head: str, path: Path) -> bool:
    first = SNIFF_RE.search(head)  # two bar updates
    return first is not None and SNIFF_RE.search(head, first.end()) is not None


def _elapsed_s(txt: str) -> float | None:
    m = ELAPSED_RE.match(txt)
    if not m or int(m.group("s")) >= 60 or (m.group("h") is not None and int(m.group("m")) >= 60):
        return None
    return float(int(m.group("h") or 0) * 3600 + int(m.group("m")) * 60 + int(m.group("s")))


def _postfix(post: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in (post or "").split(","):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def _rows(text: str, src: str) -> tuple[list[tuple[int, float, float, float, float]], int, int]:
    """(line, epoch, step, elapsed s, batches of the epoch) of each training-bar update; other lines; repeated
    steps."""
    rows: list[tuple[int, float, float, float, float]] = []
    other = repeats = 0
    seen: set[tuple[float, float]] = set()
    done_before = 0.0  # batches of the finished epochs (when there is no global_step)
    cur_epoch, cur_n = -1.0, 0.0
    for ln, phys in enumerate(text.split("\n"), start=1):
        for part in phys.split("\r"):
            if not part.strip():
                continue
            if not BAR_START_RE.search(part):
                other += 1
                continue
            m = BAR_RE.search(part)
            el = _elapsed_s(m.group("el")) if m else None
            if m is None or el is None:
                raise IngestError("a training progress bar whose '[elapsed<remaining, rate]' cannot be read; expected "
                                  "e.g. 'Epoch 0:  10%|#   | 100/1000 [01:40<15:00, 1.00it/s, ...]' (elapsed as MM:SS "
                                  "or H:MM:SS)", path=src, line=ln)
            epoch, n = float(m.group("epoch")), float(m.group("n"))
            if epoch != cur_epoch:
                if cur_epoch >= 0:
                    done_before += cur_n
                cur_epoch = epoch
            cur_n = max(cur_n, n) if epoch == cur_epoch else n
            gs = _postfix(m.group("post")).get("global_step")
            try:
                step = float(gs) + 1.0 if gs is not None else done_before + n
            except ValueError:
                raise IngestError(f"global_step={gs!r} in the bar's postfix is not a number", path=src, line=ln,
                                  field="global_step") from None
            if (epoch, step) in seen:
                repeats += 1
                continue
            seen.add((epoch, step))
            rows.append((ln, epoch, step, el, n))
    return rows, other, repeats


def read(path: Path, options: Any) -> list[Run]:
    src = str(path)
    rows, other, repeats = _rows(read_text(path), src)
    if not rows:
        raise IngestError("no training progress bar ('Epoch N:  P%|...| n/total [MM:SS<MM:SS, rate, ...]')", path=src)
    out_line: list[int] = []
    out_step: list[float] = []
    out_epoch: list[float] = []
    out_d: list[float] = []
    out_span: list[float] = []
    gaps = 0
    # the epoch's bar starts at elapsed 0 with its batch count at 0: the first update's steps are a row too
    prev_ep, prev_el, prev_step = rows[0][1], 0.0, rows[0][2] - rows[0][4]
    acc_d = 0.0
    for ln, ep, step, el, _n in rows:
        if ep != prev_ep:
            gaps += 1
            acc_d += el  # the new epoch's bar counts from its own start
        elif el < prev_el:
            raise IngestError(f"the bar's elapsed time goes back ({prev_el:g} s -> {el:g} s) within epoch {ep:g}",
                              path=src, line=ln)
        else:
            acc_d += el - prev_el
        prev_ep, prev_el = ep, el
        if step <= prev_step:
            continue
        if acc_d >= MIN_SPAN_S:
            out_line.append(ln)
            out_step.append(step)
            out_epoch.append(ep)
            out_d.append(acc_d)
            out_span.append(step - prev_step)
            prev_step, acc_d = step, 0.0
    tail_steps = rows[-1][2] - prev_step
    if len(out_step) < 2:
        raise IngestError(f"the bar's elapsed clock advances by fewer than {2 * MIN_SPAN_S:g} s in all: no step time to "
                          "read", path=src)
    d, span = np.array(out_d), np.array(out_span)
    meta: dict[str, Any] = {
        "dialect": "progress_bar",
        "step_time_is": f"seconds of the bar's elapsed clock / steps, over rows merged to >= {MIN_SPAN_S:g} s (interval "
                        "means, stalls included)",
        "rate_column_ignored": "tqdm's it/s or s/it is an exponential moving average, not an interval mean",
        "skipped_lines": {"other_lines": other, "repeated_steps": repeats},
        "epoch_changes": gaps,
    }
    warn: list[str] = []
    if other:
        warn.append(f"{src}: {other} other line(s) or bar update(s) (validation/testing bars, messages) were not imported")
    if tail_steps > 0 or acc_d > 0:
        meta["tail_not_a_row"] = {"steps": tail_steps, "seconds": acc_d}
        warn.append(f"{src}: the last {tail_steps:g} step(s) ({acc_d:g} s of the bar's clock) are shorter than one "
                    f"{MIN_SPAN_S:g}-s row and are not a row")
    if gaps:
        warn.append(f"{src}: the bar's clock restarts at each of {gaps} new epoch(s); the time between two epochs' bars "
                    "(validation, checkpointing) is not in the log")
    cols = {"step": np.array(out_step), "epoch": np.array(out_epoch), "step_time_s": d / span, "t_s": np.cumsum(d)}
    return [build_run(cols, path=path, run_id=run_id_for(path, options), fmt="progress_bar", lines=np.array(out_line),
                      metadata=meta, warnings=warn, role=getattr(options, "role", "") or "",
                      strict=getattr(options, "strict", False))]
