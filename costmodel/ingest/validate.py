"""Validation and Run assembly shared by every reader.

Readers hand over plain numpy columns already in SI units (plus the source line of each row);
:func:`build_run` rejects bad rows, decides whether the file as a whole is bad, fills ``t_s``
from step times when the source has no clock, and returns a :class:`~costmodel.foundation.schema.Run`.

Cell rules: a bad cell is a value that is present but not a number (wrong type, ``nan``, ``inf``), a
negative rate, time, size or count, or a fraction (``gpu_util``, ``cache_hit_ratio``) above 1. In a key
column (``step``, ``t_s``) or the run's primary metric (:func:`primary_metric`) a bad cell rejects its row;
in any other column it becomes missing (NaN), the row stays, and ``metadata["missing_cells"]`` counts it per
column (count, first lines, first reason). A column with more than :data:`MAX_BAD_FRACTION` bad cells (and
more than :data:`MIN_BAD_ALLOWED`) makes the file bad; ``--strict`` makes any bad cell fatal.

Row rules (a rejected row is counted, reported with its line number, never silently dropped):

* a bad cell in ``step``, ``t_s`` or the primary metric;
* a step that repeats (duplicate step) or is lower than an earlier one; a step that is not an integer;
* a time that goes backwards (equal times are allowed: some tools print coarse clocks).

File rules: the file is bad (IngestError, nothing is written) when no row survives, when no
metric column carries a value, or when more than :data:`MAX_BAD_FRACTION` of the rows (and more
than :data:`MIN_BAD_ALLOWED` rows) are rejected. ``--strict`` makes any rejected row fatal.
"""
from __future__ import annotations

import re
from collections.abc import Mapping as TMapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..foundation.errors import IngestError
from ..foundation.safeio import open_input
from ..foundation.schema import FRACTION_COLUMNS, METRIC_COLUMNS, TIMELINE_COLUMNS, Rejection, Run
from .resume import name_resumes

#: share of rejected rows above which a file is "bad" rather than "good with a few bad rows"
MAX_BAD_FRACTION = 0.10
#: a file may always lose this many rows (so a 5-row log with one bad line still loads)
MIN_BAD_ALLOWED = 2
#: metric columns that make a table usable
USABLE_COLUMNS = (*METRIC_COLUMNS, "gpu_power_w", "samples", "tokens_per_s")
FLOAT_COLUMNS = tuple(c for c, (dt, _u, _m) in TIMELINE_COLUMNS.items() if dt == "float64")


def read_text(path: Path) -> str:
    """A source file's text (UTF-8, BOM dropped, undecodable bytes replaced); IngestError when unreadable."""
    try:
        with open_input(path, "r", encoding="utf-8-sig", errors="replace") as fh:  # regular files only: a FIFO never hangs
            return fh.read()
    except OSError as exc:
        raise IngestError(f"cannot read: {exc}", path=str(path)) from None


def too_many_bad(n_bad: int, total: int) -> bool:
    """The rule that turns "a good file with a few bad rows" into "a bad file"."""
    return n_bad > MIN_BAD_ALLOWED and n_bad > MAX_BAD_FRACTION * max(total, 1)


#: a Lightning ``CSVLogger`` run folder: ``<save_dir>/<name>/version_<N>/metrics.csv``
_LIGHTNING_VERSION = re.compile(r"version_(\d+)")


def lightning_run_name(path: Path) -> str | None:
    """``name`` (``name/version_N`` for N > 0) of a Lightning ``CSVLogger`` file ``name/version_N/metrics.csv``,
    else None: every such file is called ``metrics.csv``, so its folder says which run it is."""
    if path.name != "metrics.csv":
        return None
    m = _LIGHTNING_VERSION.fullmatch(path.parent.name)
    if not m or not path.parent.parent.name:
        return None
    name = path.parent.parent.name
    return name if m.group(1) == "0" else f"{name}/{path.parent.name}"


def run_id_for(path: Path, options: Any, suffix: str = "") -> str:
    """Default run id: ``--run-id``, else the Lightning run folder (``name[/version_N]``) for a Lightning
    ``metrics.csv``, else the file name without extension; plus ``:suffix`` for sub-runs."""
    base = getattr(options, "run_id", None) or lightning_run_name(path) or path.stem
    return f"{base}:{suffix}" if suffix else base


#: a step counter that drops back to one of these values starts a new epoch (PyTorch batch_idx, 1-based counters)
EPOCH_FIRST_STEPS = (0.0, 1.0)
#: at most this many restart lines / offsets are kept in run metadata
MAX_EPOCH_NOTES = 1000


def renumber_epochs(sv: np.ndarray, epoch: np.ndarray | None,
                    state: dict[str, Any]) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Per-epoch step counters to a global running step.

    A row starts a new epoch when its step drops back to the counter's first value (0 or 1), or when
    the ``epoch`` column increases at that row while the step does not. The step of each later epoch is
    shifted by an offset so that steps keep increasing: ``global = step + offset[epoch index]``, with
    ``offset[k] = offset[k-1] + max step of epoch k-1 - first step of epoch k + 1``. ``state`` carries
    the counter across batches (streaming) and collects the restarts; it is updated in place.
    Returns (steps, epoch numbers counted from the first step value where the source has no epoch
    column (else None), row indexes of the restarts). Non-integer steps are left for the caller to reject.
    """
    n = len(sv)
    with np.errstate(invalid="ignore"):
        valid = np.isfinite(sv) & (np.floor(sv) == sv)
    idx = np.flatnonzero(valid)
    no_restart = np.zeros(0, dtype="int64")
    if not len(idx):
        return sv, None, no_restart
    v = sv[idx]
    if "first" not in state:
        state.update(first=float(v[0]), last=None, last_epoch=None, offset=0.0, seg_max=-np.inf, seg=0,
                     restart_rows=0, restart_lines=[], offsets=[])
    first = state["first"]
    prev = np.concatenate(([np.inf if state["last"] is None else state["last"]], v[:-1]))
    restart = (v < prev) & (v == first) if first in EPOCH_FIRST_STEPS else np.zeros(len(v), dtype=bool)
    ep = None
    if epoch is not None:
        ep = np.asarray(epoch, dtype="float64")[idx]
        ep_prev = np.concatenate(([np.nan if state["last_epoch"] is None else state["last_epoch"]], ep[:-1]))
        with np.errstate(invalid="ignore"):
            restart |= (ep > ep_prev) & (v <= prev)
    if state["last"] is None:
        restart[0] = False
    starts = np.flatnonzero(restart)
    state["last"] = float(v[-1])
    if ep is not None and np.isfinite(ep).any():
        state["last_epoch"] = float(ep[np.isfinite(ep)][-1])
    if not len(starts) and not state["seg"]:
        state["seg_max"] = max(state["seg_max"], float(v.max()))
        return sv, None, no_restart
    # segment maxima: the carried segment's max joins this batch's first segment
    bounds = np.concatenate(([0], starts))
    seg_max = np.maximum.reduceat(v, bounds)
    seg_max[0] = max(seg_max[0], state["seg_max"])
    incr = seg_max[:-1] - v[starts] + 1.0  # offset added at each restart
    offsets = state["offset"] + np.concatenate(([0.0], np.cumsum(incr)))
    seg_of = np.cumsum(restart)  # 0 = carried segment
    out = np.array(sv, dtype="float64", copy=True)
    out[idx] = v + offsets[seg_of]
    epoch_no = None
    if epoch is None:
        epoch_no = np.full(n, np.nan)
        epoch_no[idx] = first + state["seg"] + seg_of
    state["offset"] = float(offsets[-1])
    state["seg_max"] = float(seg_max[-1])
    state["seg"] += len(starts)
    state["restart_rows"] += len(starts)
    state["offsets"] += [float(x) for x in offsets[1:]][: max(0, MAX_EPOCH_NOTES - len(state["offsets"]))]
    return out, epoch_no, idx[starts]


def epoch_note(state: dict[str, Any], field: str = "the source's step/batch/iteration column") -> dict[str, Any]:
    """The run metadata that keeps the per-epoch counter recoverable: ``original = step - offsets[epoch index]``."""
    return {
        "rule": "the step counter restarted at its first value (or the epoch column increased): each restart is a new epoch; "
                "Timeline step is the global running step; original per-epoch step = step - epoch_offsets[k] in epoch k "
                "(k from 0)",
        "source_column": field,
        "first_step": state["first"],
        "restarts": state["restart_rows"],
        "restart_lines": state["restart_lines"][:MAX_EPOCH_NOTES],
        "epoch_offsets": [0.0, *state["offsets"][:MAX_EPOCH_NOTES]],
    }


def _step_text(sv: np.ndarray, raw: np.ndarray | None, i: int) -> str:
    """A step for a message: the source's value, and the global step when per-epoch steps were renumbered."""
    if raw is None or raw[i] == sv[i]:
        return str(int(sv[i]))
    return f"{int(raw[i])} (global step {int(sv[i])})"


#: columns that key a row: a bad cell there rejects the row
KEY_COLUMNS = ("step", "t_s")
#: the primary metric of a run is the first of these it has; a bad cell there rejects the row
_PRIMARY_FIRST = ("samples_per_s", "tokens_per_s", "read_bytes_per_s", "write_bytes_per_s", "read_iops", "write_iops",
                  "step_time_s")
PRIMARY_ORDER = (*_PRIMARY_FIRST, *(c for c in METRIC_COLUMNS if c not in _PRIMARY_FIRST), "gpu_power_w", "samples")
#: first lines kept per column in ``missing_cells``
MISSING_LINES_KEPT = 5


def primary_metric(floats: TMapping[str, np.ndarray], invalid: TMapping[str, np.ndarray] | None = None) -> str | None:
    """The run's primary metric: the first of :data:`PRIMARY_ORDER` with a value or a bad cell (None when none).

    It matches the analysis default (``fit`` without ``--metric``): samples_per_s, then tokens_per_s, bytes/s, IOPS,
    then step_time_s and the other metrics.
    """
    inv = invalid or {}
    for c in PRIMARY_ORDER:
        if c not in floats:
            continue
        a = floats[c]
        if (c in inv and inv[c] is not None and np.asarray(inv[c]).any()) or not np.isnan(a).all():
            return c
    return None


def _missing_cells(cell_checks: dict[str, list[tuple[np.ndarray, Any]]], rejected: np.ndarray,
                   line_of: Any) -> dict[str, dict[str, Any]]:
    """Per column: the bad cells of kept rows (count, first lines, first reason); vectorised, no per-row Python."""
    out: dict[str, dict[str, Any]] = {}
    for c, checks in cell_checks.items():
        mask = checks[0][0].copy()
        for m, _r in checks[1:]:
            mask |= m
        if rejected.any():
            mask &= ~rejected
        k = int(mask.sum())
        if not k:
            continue
        first = np.flatnonzero(mask)[:MISSING_LINES_KEPT]
        i0 = int(first[0])
        reason = next(r(i0) for m, r in checks if m[i0])
        out[c] = {"count": k, "first_lines": [line_of(int(i)) for i in first], "first_reason": reason, "_mask": mask}
    return out


def _reject_rows(
    bad: np.ndarray, reason_of: Any, rejected_mask: np.ndarray, reasons: dict[int, tuple[str, str | None]], field: str | None
) -> None:
    """Mark rows ``bad`` (bool array) as rejected, keeping the first reason per row."""
    idx = np.flatnonzero(bad & ~rejected_mask)
    for i in idx:
        reasons[int(i)] = (reason_of(int(i)), field)
    rejected_mask |= bad


RESTART_FRACTION = 0.5  # a clock that drops to below half its last value while the steps go on has restarted


def continue_restarted_clock(t: np.ndarray, step: np.ndarray, rejected: np.ndarray, metadata: dict[str, Any],
                             source: str) -> tuple[np.ndarray, list[str]]:
    """Continue an elapsed clock that restarts when a run resumes (torchtitan, a relaunched job): where ``t`` drops
    below ``RESTART_FRACTION`` of the last time while the step still increases, the later rows are continued from
    the last time before the restart. The time between the two parts is not in the file: it is named, not guessed
    (``metadata.clock_restarts``). Returns the clock (a new array when it restarts) and the warnings."""
    ok = np.isfinite(t) & ~rejected
    if ok.all():  # the common case: no copy of 10 M rows to find out that nothing restarts
        idx, tv, sv = None, t, step
        if len(t) < 3:
            return t, []
    else:
        idx = np.flatnonzero(ok)
        if len(idx) < 3:
            return t, []
        tv, sv = t[idx], step[idx]
    drops = _clock_drops(tv, sv)
    if not len(drops):
        return t, []
    if idx is None:
        idx = np.arange(len(t))
    t = np.array(t, dtype=float)
    found = []
    for j in drops:
        off = float(t[idx[j - 1]])
        t[idx[j]:] += off
        found.append({"step": int(sv[j]), "continued_from_s": off,
                      "note": "the clock restarts here (a resumed run): the later rows continue from the last time "
                              "before it; the time between the two parts is not in the file"})
    metadata["clock_restarts"] = found
    where = ", ".join(str(f["step"]) for f in found[:5])
    msg = (f"{source}: the clock restarts at step {where} while the steps go on (a resumed run): the run is continued "
           "across the restart; the gap between the two parts is not in the file, so elapsed times after it leave it out")
    return t, [msg]


def _clock_drops(tv: np.ndarray, sv: np.ndarray, chunk: int = 1 << 20) -> np.ndarray:
    """Rows j where the clock drops below ``RESTART_FRACTION`` of row j-1's (positive) time while the step goes on;
    in slices of ``chunk`` rows, so the temporaries stay a few MB for 10 M rows."""
    found = []
    for a in range(0, len(tv) - 1, chunk):
        b = min(a + chunk, len(tv) - 1)
        prev, cur = tv[a:b], tv[a + 1 : b + 1]
        hit = (cur < RESTART_FRACTION * prev) & (sv[a + 1 : b + 1] > sv[a:b]) & (prev > 0)
        if hit.any():
            found.append(np.flatnonzero(hit) + a + 1)
    return np.concatenate(found) if found else np.zeros(0, dtype=np.intp)


def build_run(
    columns: TMapping[str, np.ndarray],
    *,
    path: Path,
    run_id: str,
    fmt: str,
    role: str = "",
    lines: np.ndarray | int | None = None,
    invalid: TMapping[str, np.ndarray] | None = None,
    metadata: dict[str, Any] | None = None,
    warnings: list[str] | None = None,
    extra_rejected: list[Rejection] | None = None,
    source_rows: int | None = None,
    check_step_order: bool = True,
    strict: bool = False,
    carry_step: float | None = None,
    carry_t: float | None = None,
    check_threshold: bool = True,
    epoch_state: dict[str, Any] | None = None,
) -> Run:
    """Validate ``columns`` (Timeline name -> array, SI units) and return a Run.

    Takes ownership of ``columns``: arrays may be reused in the table and the dict may be emptied.

    ``lines``: 1-based source line of each row (for messages), or an int: the line of row 0 when rows
    follow each other line by line (no array needed for 10 M rows). ``invalid``: column -> bool mask of
    cells that were present in the source but not a valid number. ``extra_rejected``: rows the
    reader already dropped (unparseable lines); they count against the bad-row threshold.
    A step counter that restarts each epoch becomes a global step (:func:`renumber_epochs`);
    ``epoch_state`` carries that across batches when streaming.
    Raises IngestError for a bad file (see module docstring).
    """
    src = str(path)
    cols = {k: v for k, v in columns.items() if v is not None}
    unknown = [k for k in cols if k not in TIMELINE_COLUMNS]
    if unknown:
        raise IngestError(f"internal: reader produced unknown Timeline columns {unknown}", path=src)
    n = len(next(iter(cols.values()))) if cols else 0
    for k, v in cols.items():
        if len(v) != n:
            raise IngestError(f"column {k} has {len(v)} values, expected {n}", path=src, field=k)
    warnings = list(warnings or [])
    extra = list(extra_rejected or [])
    metadata = dict(metadata or {})

    def line_of(i: int) -> int | None:
        if lines is None:
            return None
        if isinstance(lines, (int, np.integer)):
            return int(lines) + i  # row i sits on line offset + i
        return int(lines[i])

    usable = [c for c in cols if c in USABLE_COLUMNS]
    if n == 0 or not usable:
        what = "no data rows" if n == 0 else "no usable column"
        raise IngestError(
            f"{what}: expected at least one of {', '.join(USABLE_COLUMNS)} "
            "(or an alias such as samples/s, throughput, step_time_ms, gpu_util_pct, read_MBps; see --map)",
            path=src,
            line=extra[0].line if extra and n == 0 else None,
        )

    rejected = np.zeros(n, dtype=bool)
    reasons: dict[int, tuple[str, str | None]] = {}
    floats: dict[str, np.ndarray] = {}
    for c, v in cols.items():
        if c == "step":
            continue
        a = np.asarray(v, dtype="float64")
        floats[c] = a
    # Bad cells. In a key column (step, t_s) or the primary metric they reject the row; in any other
    # column the cell becomes missing (NaN), counted per column, and the row stays.
    primary = primary_metric(floats, invalid)
    cell_checks: dict[str, list[tuple[np.ndarray, Any]]] = {}

    def bad_cells(c: str, mask: np.ndarray, reason_of: Any) -> None:
        if c in KEY_COLUMNS or c == primary:
            _reject_rows(mask, reason_of, rejected, reasons, c)
        else:
            cell_checks.setdefault(c, []).append((mask, reason_of))

    for c, mask in (invalid or {}).items():
        if mask is None or not mask.any():
            continue
        bad_cells(c, np.asarray(mask, dtype=bool), lambda i, c=c: f"{c}: not a number (expected a finite number)")
    for c, a in floats.items():
        if c == "t_s":
            continue
        with np.errstate(invalid="ignore"):
            inf = np.isinf(a)
            if inf.any():
                bad_cells(c, inf, lambda i, c=c, a=a: f"{c} = {a[i]} (expected a finite number)")
            neg = a < 0
            if neg.any():
                bad_cells(c, neg, lambda i, c=c, a=a: f"{c} = {a[i]:g} is negative (expected >= 0)")
            if c in FRACTION_COLUMNS:
                over = a > 1.0 + 1e-9
                if over.any():
                    bad_cells(c, over, lambda i, c=c, a=a: f"{c} = {a[i]:g} (expected a fraction 0..1)")

    # step: integer, strictly increasing
    renumbered: np.ndarray | None = None  # the source's per-epoch steps, when they were made global
    has_steps = "step" in cols
    if "step" in cols:
        sv = np.asarray(cols["step"], dtype="float64")
        if check_step_order:
            estate = {} if epoch_state is None else epoch_state
            fresh = "first" not in estate
            cheap_sorted = bool(np.all(sv[1:] > sv[:-1])) and (fresh or not (sv[0] < estate.get("last", np.inf)))
            if not (cheap_sorted and not estate.get("seg")):
                raw_sv = sv
                sv, epoch_no, restarts = renumber_epochs(sv, floats.get("epoch"), estate)
                if sv is not raw_sv:
                    renumbered = raw_sv
                if len(restarts):
                    if epoch_no is not None:
                        floats["epoch"] = epoch_no
                    room = max(0, MAX_EPOCH_NOTES - len(estate["restart_lines"]))
                    estate["restart_lines"] += [line_of(int(i)) for i in restarts[:room]]
                    metadata["epoch_steps"] = epoch_note(estate)
                    if epoch_state is None:  # streaming reports it once for the whole file
                        warnings.append(
                            f"{src}: the step counter restarts at {estate['first']:g}"
                            + (f" on line {estate['restart_lines'][0]}"
                               if estate["restart_lines"] and estate["restart_lines"][0] else "")
                            + ": read as per-epoch steps (new epoch at each restart); Timeline step is the global step, "
                            "the original counter is kept in metadata epoch_steps"
                        )
                elif estate.get("seg") and epoch_no is not None:
                    floats["epoch"] = epoch_no
            elif len(sv):  # strictly increasing, no epoch so far: only carry the counter
                if fresh:
                    estate.update(first=float(sv[0]), last_epoch=None, offset=0.0, seg=0, restart_rows=0,
                                  restart_lines=[], offsets=[])
                estate.update(last=float(sv[-1]), seg_max=float(sv[-1]))
                ep = floats.get("epoch")
                if ep is not None and np.isfinite(ep).any():
                    estate["last_epoch"] = float(ep[np.isfinite(ep)][-1])
        with np.errstate(invalid="ignore"):
            nonint = ~np.isfinite(sv) | (np.floor(sv) != sv) | (np.abs(sv) > 2.0**53)
        if nonint.any():
            _reject_rows(nonint, lambda i: f"step = {sv[i]!r} (expected an integer)", rejected, reasons, "step")
        in_order = (carry_step is None or sv[0] > carry_step) and not rejected.any() and bool(np.all(sv[1:] > sv[:-1]))
        if check_step_order and (n > 1 or carry_step is not None) and not in_order:
            s_ok = np.where(rejected, -np.inf, sv)
            prev = np.maximum.accumulate(np.concatenate(([-np.inf if carry_step is None else carry_step], s_ok[:-1])))
            dup = (sv == prev) & ~rejected
            back = (sv < prev) & ~rejected
            if dup.any():
                _reject_rows(dup, lambda i: f"duplicate step {_step_text(sv, renumbered, i)} (steps must increase)",
                             rejected, reasons, "step")
            if back.any():
                _reject_rows(
                    back,
                    lambda i: f"step {_step_text(sv, renumbered, i)} after global step {int(prev[i])} (steps must increase)"
                    if renumbered is not None else f"step {int(sv[i])} after step {int(prev[i])} (steps must increase)",
                    rejected, reasons, "step",
                )
            if (dup | back).any() and "t_s" in floats:
                floats["t_s"], more = name_resumes(dup | back, rejected, floats["t_s"], sv, line_of, metadata, src)
                warnings += more
        if rejected.any():
            step = np.where(rejected, 0, np.nan_to_num(sv, nan=0.0, posinf=0.0, neginf=0.0)).astype("int64")
        else:
            step = sv.astype("int64")
        if isinstance(columns, dict) and columns.get("step") is cols["step"]:
            columns.pop("step")  # the caller handed its float steps over: free them (10 M rows = 80 MB)
        cols.pop("step")
        del sv
    else:
        step = np.arange(n, dtype="int64")

    # a resumed run: the elapsed clock starts again from zero while the steps go on
    if "t_s" in floats and n > 2 and carry_t is None and has_steps:
        floats["t_s"], more = continue_restarted_clock(floats["t_s"], step, rejected, metadata, str(path))
        warnings += more
    # time: never backwards
    if "t_s" in floats and (n > 1 or carry_t is not None):
        t = floats["t_s"]
        with np.errstate(invalid="ignore"):
            bad_t = np.isinf(t)
        if bad_t.any():
            _reject_rows(bad_t, lambda i: f"t_s = {t[i]} (expected a finite time)", rejected, reasons, "t_s")
        with np.errstate(invalid="ignore"):
            t_sorted = (carry_t is None or not t[0] < carry_t) and not rejected.any() and bool(np.all(t[1:] >= t[:-1]))
        back_t = np.zeros(0, dtype=bool)
        if not t_sorted:  # NaN gaps, rejected rows or real disorder: the exact (slower) check
            t_ok = np.where(rejected | np.isnan(t), -np.inf, t)
            prev_t = np.maximum.accumulate(np.concatenate(([-np.inf if carry_t is None else carry_t], t_ok[:-1])))
            with np.errstate(invalid="ignore"):
                back_t = (t < prev_t) & ~rejected
        if back_t.any():
            _reject_rows(
                back_t,
                lambda i: f"time goes backwards: t_s = {t[i]:g} after {prev_t[i]:g} (expected non-decreasing time)",
                rejected,
                reasons,
                "t_s",
            )

    missing_cells = _missing_cells(cell_checks, rejected, line_of)
    n_bad = int(rejected.sum()) + len(extra)
    total = (source_rows if source_rows is not None else n + len(extra))
    row_rejections = [
        Rejection(path=src, line=line_of(i), reason=reasons[i][0], field=reasons[i][1]) for i in sorted(reasons)
    ]
    all_rejections = sorted(extra + row_rejections, key=lambda r: (r.line is None, r.line or 0))
    if n_bad:
        first = all_rejections[0]
        if strict:
            raise IngestError(
                f"{n_bad} bad row(s) and --strict is set; first: {first.reason}", path=first.path, line=first.line,
                field=first.field
            )
        kept = n - int(rejected.sum())
        if check_threshold and (kept == 0 or too_many_bad(n_bad, total)):
            raise IngestError(
                f"{n_bad} of {total} rows are bad (a file may lose at most {MAX_BAD_FRACTION:.0%} of its rows); "
                f"first: {first.reason}",
                path=first.path,
                line=first.line,
                field=first.field,
            )

    if missing_cells:
        first_col = min(missing_cells, key=lambda c: (missing_cells[c]["first_lines"] or [0])[0] or 0)
        info = missing_cells[first_col]
        first_line = info["first_lines"][0] if info["first_lines"] else None
        if strict:
            raise IngestError(
                f"column {first_col}: {info['count']} bad cell(s) and --strict is set; first: {info['first_reason']}",
                path=src, line=first_line, field=first_col,
            )
        if check_threshold:
            for c, info in missing_cells.items():
                if too_many_bad(info["count"], total):
                    fl = info["first_lines"][0] if info["first_lines"] else None
                    raise IngestError(
                        f"column {c}: {info['count']} of {total} cells are bad (a column may lose at most "
                        f"{MAX_BAD_FRACTION:.0%} of its cells); first: {info['first_reason']}",
                        path=src, line=fl, field=c,
                    )
        for c, info in missing_cells.items():
            a = floats[c]
            if not a.flags.writeable:
                a = floats[c] = np.array(a, dtype="float64")
            a[info.pop("_mask")] = np.nan
            where = f" (first on line {info['first_lines'][0]})" if info["first_lines"] and info["first_lines"][0] else ""
            warnings.append(f"{src}: {c}: {info['count']} bad cell(s) kept as missing, rows kept{where}: {info['first_reason']}")
        metadata["missing_cells"] = missing_cells

    keep = ~rejected if rejected.any() else None
    if keep is not None:
        step = step[keep]
        floats = {c: a[keep] for c, a in floats.items()}
    m = len(step)

    # no clock: t_s is the cumulative step time
    if "t_s" not in floats and "step_time_s" in floats:
        st = floats["step_time_s"]
        floats["t_s"] = np.cumsum(np.nan_to_num(st, nan=0.0))
        if np.isnan(st).any():
            warnings.append(f"{src}: t_s is the cumulative step time; {int(np.isnan(st).sum())} step(s) without a step time "
                            "count as 0 s")
        metadata.setdefault("t_s_from", "cumsum(step_time_s)")

    if check_threshold and not any(np.isfinite(floats[c]).any() for c in floats if c in USABLE_COLUMNS):
        raise IngestError(
            f"no usable value: every {', '.join(c for c in floats if c in USABLE_COLUMNS)} cell is empty", path=src
        )

    table = _frame(step, floats, run_id, role, m)
    return Run(
        run_id=run_id,
        table=table,
        format=fmt,
        source=src,
        role=role,
        metadata=metadata,
        rejected=all_rejections,
        warnings=warnings,
    )


def _frame(step: np.ndarray, floats: dict[str, np.ndarray], run_id: str, role: str, m: int) -> pd.DataFrame:
    """The full-width Timeline frame; absent columns are read-only NaN views (no memory per row),
    ``run_id`` and ``role`` are categorical (one value per run)."""
    nan_col = np.broadcast_to(np.float64(np.nan), (m,))
    data: dict[str, Any] = {}
    for col in TIMELINE_COLUMNS:
        if col in ("run_id", "role"):
            data[col] = _const_str(run_id if col == "run_id" else role, m)
        elif col == "step":
            data[col] = step
        elif col in floats:
            data[col] = np.ascontiguousarray(floats[col], dtype="float64")
        else:
            data[col] = nan_col
    return pd.DataFrame(data, copy=False)


def _const_str(value: str, m: int) -> Any:
    """A column of one repeated string: categorical (1 byte per row), written as string in Parquet."""
    return pd.Categorical.from_codes(np.zeros(m, dtype=np.int8), categories=pd.Index([value]))
