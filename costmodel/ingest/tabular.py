"""Per-step training logs: CSV, TSV, JSONL, Parquet (not a Timeline) and ``key=value`` lines.

Column names are matched to the Timeline by alias and unit suffix (:mod:`costmodel.ingest.units`);
``--map`` overrides. CSV/TSV go through ``pyarrow.csv`` with explicit float types (vectorised, multi-
threaded); a file whose cells carry units or text falls back to a string read and per-column parsing.
Numeric CSVs are read in line-aligned blocks into preallocated numpy columns (memory ~ the result);
inputs larger than memory are streamed into Parquet by :mod:`costmodel.ingest.stream`.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation import limits
from ..foundation.errors import IngestError
from ..foundation.schema import Rejection, Run
from .csv_blocks import (
    NULL_VALUES,
    _arrow_to_numpy,
    _header,
    _line_numbers,
    _locate,
    _read_numeric_streaming,
    arrow_csv_plan,
    csv_parse_error,
)
from .frame import convert, plan_columns
from .validate import build_run, run_id_for

FORMAT = "tabular"
FORMATS = ["tabular", "csv", "tsv", "jsonl", "parquet", "kv"]

_KV_EQ = re.compile(r"([A-Za-z_][\w./%\[\]-]*)=([^\s,]+)")


def _lines(head: str, n: int = 20) -> list[str]:
    return [ln for ln in head.splitlines()[:200] if ln.strip()][:n]


def _is_binary(head: str) -> bool:
    return "\x00" in head or head.count("\ufffd") > max(2, len(head) // 100)


def dialect(head: str, path: Path) -> str | None:
    """Which tabular dialect ``head`` looks like: csv, tsv, jsonl, parquet, kv, or None."""
    if head.startswith("PAR1"):
        return "parquet"
    if _is_binary(head):
        return None
    lines = [ln for ln in _lines(head) if not ln.lstrip().startswith("#")]
    if not lines:
        return None
    first = lines[0].strip()
    if first.startswith("{"):
        try:
            obj = limits.loads(first)
        except ValueError:
            return None
        return "jsonl" if isinstance(obj, dict) else None
    if "\t" in first and all(ln.count("\t") == first.count("\t") for ln in lines[1:5]):
        return "tsv"
    kv = [ln for ln in lines if len(_KV_EQ.findall(ln)) >= 2]
    if len(kv) >= max(1, len(lines) // 2):
        return "kv"
    for d in (",", ";"):
        c = first.count(d)
        rest = lines[1:10]
        if c >= 1 and (not rest or sum(ln.count(d) == c for ln in rest) >= max(1, (len(rest) + 1) // 2)):
            return "csv"
    return None


def sniff(head: str, path: Path) -> bool:
    return dialect(head, path) is not None


def read(path: Path, options: Any) -> list[Run]:
    fmt = getattr(options, "fmt", None)
    with open(path, "rb") as fh:
        head = fh.read(64 * 1024).decode("utf-8-sig", errors="replace")
    kind = fmt if fmt in ("csv", "tsv", "jsonl", "parquet", "kv") else dialect(head, path)
    if kind is None:
        raise IngestError("not a table: expected CSV/TSV with a header row, JSON lines, Parquet or key=value lines",
                          path=str(path))
    if kind == "parquet":
        return [_read_parquet(path, options)]
    if kind == "jsonl":
        return [_read_jsonl(path, options)]
    if kind == "kv":
        return [_read_kv(path, options)]
    delim = "\t" if kind == "tsv" else _delimiter(head)
    from .mlflow import long_format_columns, read_long_csv

    names, _skip = _header(path, delim)
    roles = long_format_columns(names) if not getattr(options, "mapping", None) else None
    if roles:  # key,value,step[,timestamp,run_id]: one column per key (MLflow metric history and the like)
        return read_long_csv(path, options, roles, delim)
    return [_read_csv(path, options, delim)]


def _delimiter(head: str) -> str:
    lines = [ln for ln in _lines(head) if not ln.lstrip().startswith("#")]
    first = lines[0] if lines else ""
    return ";" if first.count(";") > first.count(",") else ","


def _finish(path: Path, options: Any, fmt: str, conv_table: dict[str, Any], lines: np.ndarray | int | None,
            extra: list[Rejection], source_rows: int | None = None, metadata: dict[str, Any] | None = None,
            src_invalid: dict[str, np.ndarray] | None = None, notes: list[str] | None = None) -> Run:
    conv = convert(conv_table, options, source=str(path))
    conv.warnings = list(notes or []) + conv.warnings
    conv_table.clear()
    columns, conv.columns = conv.columns, {}
    for src, mask in (src_invalid or {}).items():
        col = conv.mapped.get(src.strip())
        if col is not None:
            conv.invalid[col] = conv.invalid[col] | mask if col in conv.invalid else mask
    meta = {"dialect": fmt, **(metadata or {}), **conv.metadata}
    if "step" in columns:
        columns, conv.invalid, lines, note, merged = merge_same_step(columns, conv.invalid, lines)
        if merged:
            conv.warnings.append(f"{path}: {note}")
            meta["rows_merged_by_step"] = merged
            if source_rows is not None:
                source_rows -= merged["rows_merged"]
    if fmt in ("csv", "tsv"):
        conv.warnings += missing_cell_notes(str(path), columns, conv.invalid)
    return build_run(
        columns,
        path=path,
        run_id=run_id_for(path, options),
        fmt=f"tabular/{fmt}",
        role=getattr(options, "role", "") or "",
        lines=lines,
        invalid=conv.invalid,
        metadata=meta,
        warnings=conv.warnings,
        extra_rejected=extra,
        source_rows=source_rows,
        strict=getattr(options, "strict", False),
    )


def merge_same_step(columns: dict[str, np.ndarray], invalid: dict[str, np.ndarray], lines: Any
                    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], Any, str, dict[str, Any] | None]:
    """Rows that repeat the previous row's step and fill other columns are one observation logged in pieces
    (Lightning's epoch-end validation row, W&B history rows): they are merged into one row (first value of each
    column). Rows whose values conflict (two different values in one column) are left alone, so the duplicate step
    is still rejected. Vectorised: only the rows next to a repeated step are looked at."""
    sv = np.asarray(columns["step"], dtype="float64")
    n = len(sv)
    if n < 2:
        return columns, invalid, lines, "", None
    same = sv[1:] == sv[:-1]
    if not same.any():
        return columns, invalid, lines, "", None
    import pandas as pd

    group = np.concatenate(([0], np.cumsum(~same)))  # consecutive rows with one step share a group
    floats = {c: np.asarray(a, dtype="float64") for c, a in columns.items() if c != "step"}
    frame = pd.DataFrame(dict(floats))
    frame["_g"] = group
    dup_groups = np.unique(group[1:][same])
    sub = frame[np.isin(group, dup_groups)]
    # a piece fills columns the other pieces leave empty; the clock and epoch may repeat (same value) in every piece;
    # two values in one metric column (even equal ones: a row logged twice) are a real duplicate
    by = sub.groupby("_g")
    counts = by.count()
    shared = [c for c in ("epoch", "t_s") if c in counts.columns]
    metric_ok = (counts.drop(columns=shared) <= 1).all(axis=1)
    shared_ok = (by[shared].nunique(dropna=True) <= 1).all(axis=1) if shared else True
    ok = metric_ok & shared_ok
    ok_groups = ok.index[ok.to_numpy()].to_numpy()
    if not len(ok_groups):
        return columns, invalid, lines, "", None
    merge_rows = np.isin(group, ok_groups)
    firsts = sub[np.isin(sub["_g"].to_numpy(), ok_groups)].groupby("_g").first()
    keep = ~merge_rows | np.concatenate(([True], group[1:] != group[:-1]))  # the first row of each merged group
    out: dict[str, np.ndarray] = {"step": sv[keep]}
    first_idx = np.flatnonzero(keep & merge_rows)
    gid = group[first_idx]
    for c, a in floats.items():
        b = np.array(a, copy=True)
        b[first_idx] = firsts[c].reindex(gid).to_numpy(dtype="float64")
        out[c] = b[keep]
    inv = {}
    for c, mask in invalid.items():
        m = np.asarray(mask, dtype=bool)
        if merge_rows.any():
            g_bad = pd.Series(m).groupby(group).transform("max").to_numpy(dtype=bool)
            m = np.where(merge_rows, g_bad, m)
        inv[c] = m[keep]
    if isinstance(lines, (int, np.integer)):
        new_lines: Any = (np.arange(n) + int(lines))[keep]
    elif lines is None:
        new_lines = None
    else:
        new_lines = np.asarray(lines)[keep]
    merged_rows = int(n - keep.sum())
    info = {"rows_merged": merged_rows, "groups": len(ok_groups),
            "rule": "consecutive rows with the same step and no conflicting value are one row (first value per column)"}
    note = (f"{merged_rows} row(s) repeating the previous row's step with other columns filled (e.g. epoch-end "
            f"validation rows) were merged into {len(ok_groups)} row(s); rows that conflict stay duplicates")
    return out, inv, new_lines, note, info


def missing_cell_notes(src: str, columns: dict[str, np.ndarray], invalid: dict[str, np.ndarray]) -> list[str]:
    """One warning per metric column with some empty or ``N/A`` cells: they are kept as missing (NaN, "not
    measured"), unlike a literal ``NaN``/``inf``, which is a bad value and rejects its row. A column with
    no value at all is not warned about (it is simply absent from the run's columns)."""
    notes = []
    for col, a in columns.items():
        if col in ("step", "t_s", "epoch") or a is None or getattr(a, "dtype", None) != np.float64:
            continue
        miss = np.isnan(a)
        if col in invalid:
            miss &= ~invalid[col]
        k = int(miss.sum())
        if k and k < len(a):  # a wholly empty column is simply not measured: it is not in the run's columns
            notes.append(f"{src}: {col}: {k} empty or N/A cell(s) kept as missing (not measured); "
                         "a literal NaN or inf is a bad value and rejects its row")
    return notes


# ---------------------------------------------------------------------------------------- CSV / TSV


def _read_csv(path: Path, options: Any, delimiter: str) -> Run:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    names, skip, plan, _notes = arrow_csv_plan(path, options, delimiter)
    if not plan:
        raise IngestError(
            f"no usable column: header has {', '.join(names[:15])}; expected step, t_s/time/elapsed, samples_per_s/"
            "samples/s/throughput, tokens_per_s, step_time(_ms), gpu_util(_pct), read_MBps/read_bytes_per_s, ... "
            "(or name them with --map SRC=COLUMN[:UNIT])",
            path=str(path),
            line=skip + 1,
        )
    skipped: list[tuple[int | None, str]] = []

    texts: list[str] = []

    def on_invalid(row: Any) -> str:
        skipped.append((row.number, f"expected {row.expected_columns} fields, found {row.actual_columns}"))
        try:
            texts.append(row.text)
        except UnicodeDecodeError:  # not UTF-8: the line cannot be located by its text
            texts.append("\x00")
        return "skip"

    include = [n for n in names if n in plan]
    not_read = [n for n in names if n not in plan and n]
    if not_read:
        shown = ", ".join(not_read[:12]) + (f" and {len(not_read) - 12} more" if len(not_read) > 12 else "")
        notes_not_read = [f"{path}: columns not in the Timeline, not imported: {shown}"]
    else:
        notes_not_read = []
    types = {}
    for name in include:
        m = plan[name]
        if m.column == "t_s" and m.time_kind and m.time_kind != "auto_num":
            continue
        types[name] = pa.float64()
    read_opts = pacsv.ReadOptions(skip_rows=skip + 1, column_names=names)  # our stripped header names
    parse_opts = pacsv.ParseOptions(delimiter=delimiter, invalid_row_handler=on_invalid)
    extra: list[Rejection] = []
    try:
        conv_opts = pacsv.ConvertOptions(
            include_columns=include, column_types=types, null_values=NULL_VALUES, strings_can_be_null=True
        )
        if len(types) == len(include):  # all numeric: stream into preallocated numpy columns (memory ~ the result)
            time_cols = frozenset(n for n in include if plan[n].column == "t_s")
            cols, invalid_nan, n = _read_numeric_streaming(path, skip, parse_opts, conv_opts, include, names,
                                                           keep_typed=time_cols, reported=(skipped, texts))
            lines = _line_numbers(n, skip, skipped)
            if skipped and any(num is None for num, _w in skipped):
                skipped[:] = _locate(path, texts, skipped)
                lines = _line_numbers(n, skip, skipped)
            extra = [Rejection(path=str(path), line=num, reason=f"malformed row: {why}") for num, why in skipped]
            run = _finish(path, options, "tsv" if delimiter == "\t" else "csv", cols, lines, extra,
                          source_rows=n + len(skipped), src_invalid=invalid_nan, notes=notes_not_read)
            return _elapsed_beside_absolute(run, path, names, plan, skip, delimiter)
        table = pacsv.read_csv(path, read_options=read_opts, parse_options=parse_opts, convert_options=conv_opts)
        typed = True
    except pa.ArrowInvalid as exc:
        if "CSV parse error" in str(exc) and "conversion" not in str(exc).lower():
            raise csv_parse_error(path, exc) from None
        skipped.clear()
        texts.clear()
        conv_opts = pacsv.ConvertOptions(
            include_columns=include, column_types={n: pa.string() for n in include}, strings_can_be_null=False
        )
        try:
            table = pacsv.read_csv(path, read_options=read_opts, parse_options=parse_opts, convert_options=conv_opts)
        except pa.ArrowInvalid as exc2:
            raise csv_parse_error(path, exc2) from None
        typed = False
    except (OSError, UnicodeDecodeError) as exc:
        raise IngestError(f"cannot read as CSV: {exc}", path=str(path)) from None
    n = table.num_rows
    cols, invalid_nan = _arrow_to_numpy(table, typed)
    del table
    if skipped and any(num is None for num, _w in skipped):
        skipped[:] = _locate(path, texts, skipped)
    lines = _line_numbers(n, skip, skipped)
    for number, why in skipped:
        extra.append(Rejection(path=str(path), line=number, reason=f"malformed row: {why}"))
    # NaN written literally in the file ("nan") is a bad value, not a missing one
    run = _finish(
        path, options, "tsv" if delimiter == "\t" else "csv", cols, lines, extra, source_rows=n + len(skipped),
        src_invalid=invalid_nan, notes=notes_not_read,
    )
    return _elapsed_beside_absolute(run, path, names, plan, skip, delimiter)


def _elapsed_beside_absolute(run: Run, path: Path, names: list[str], plan: dict[str, Any], skip: int,
                             delimiter: str) -> Run:
    """When ``t_s`` is an absolute clock (0 at the first row) and an elapsed clock beside it (``elapsed_s``,
    ``time/elapsed_s``: seconds since the run started) was not imported, keep that clock's first value as
    ``elapsed_at_first_row_s`` (:func:`costmodel.ingest.frame.elapsed_first_value`): how long the run ran before
    its first row, which rows every N steps need for the first row's duration. Reads that one column's head."""
    from .frame import elapsed_first_value

    if "start_epoch_s" not in run.metadata or "elapsed_at_first_row_s" in run.metadata:
        return run
    for name in names:
        if name in plan or not name or not _is_time_alias(name):
            continue
        import pandas as pd

        try:
            head = pd.read_csv(path, sep=delimiter, skiprows=skip + 1, names=names, usecols=[name], nrows=1000)
        except (ValueError, OSError, UnicodeDecodeError):
            continue
        got = elapsed_first_value(head[name].to_numpy())
        if got is not None:
            run.metadata["elapsed_at_first_row_s"] = got
            run.metadata["elapsed_at_first_row_from"] = name
            break
    return run


def _is_time_alias(name: str) -> bool:
    from .units import resolve_column, resolve_prefixed

    m = resolve_column(name) or (resolve_prefixed(name) or (None,))[0]
    return m is not None and m.column == "t_s"


#: CSV text per Arrow batch on the streaming path (small blocks keep the working set small)
# ---------------------------------------------------------------------------------------- Parquet


def concatenated_parquet_at(path: Path, chunk_bytes: int = 8 << 20) -> int | None:
    """The byte where a second Parquet file starts inside ``path`` (``PAR1PAR1``: one file's end magic followed by
    the next one's start), or None. A reader sees only the last footer: the rows of the other file(s) would vanish
    without a word. Linear, one chunk in memory."""
    tail = b""
    pos = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(chunk_bytes):
            buf = tail + chunk
            at = buf.find(b"PAR1PAR1")
            if at >= 0:
                return pos - len(tail) + at + 4
            tail = buf[-7:]
            pos += len(chunk)
    return None


def _read_parquet(path: Path, options: Any) -> Run:
    import pyarrow as pa
    import pyarrow.parquet as pq

    at = concatenated_parquet_at(path)
    if at is not None:
        raise IngestError(f"two Parquet files concatenated (a second file starts at byte {at:,}); a reader sees only "
                          "the last one's rows: split the file and give each part", path=str(path))
    try:
        schema = pq.read_schema(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise IngestError(f"not a readable Parquet file ({exc})", path=str(path)) from None
    plan, _ignored, _notes = plan_columns(list(schema.names), options)
    if not plan:
        raise IngestError(
            f"no usable column: Parquet columns are {', '.join(schema.names[:15])}; name them with --map SRC=COLUMN[:UNIT]",
            path=str(path),
        )
    try:
        table = pq.read_table(path, columns=list(plan))
    except (pa.ArrowInvalid, OSError) as exc:
        raise IngestError(f"not a readable Parquet file ({exc})", path=str(path)) from None
    n = table.num_rows
    cols, nan_cells = _arrow_to_numpy(table, True)
    ignored = [c for c in schema.names if c not in plan]
    run = _finish(path, options, "parquet", cols, None, [], source_rows=n, src_invalid=nan_cells)
    if ignored:
        run.warnings = [w for w in run.warnings if "not imported" not in w] + [
            f"{path}: columns not in the Timeline, not imported: {', '.join(ignored[:12])}"
        ]
    return run


# ---------------------------------------------------------------------------------------- JSONL


def _read_jsonl(path: Path, options: Any) -> Run:
    import pandas as pd

    records: list[dict[str, Any]] = []
    lines: list[int] = []
    extra: list[Rejection] = []
    with open(path, encoding="utf-8-sig", errors="replace") as fh:
        for i, line in enumerate(fh, start=1):
            s = line.strip()
            if not s:
                continue
            try:
                obj = limits.loads(s)
            except ValueError as exc:  # JSONDecodeError, or e.g. an integer too long to convert
                why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                extra.append(Rejection(path=str(path), line=i,
                                       reason=f"not valid JSON ({why}); expected one JSON object per line"))
                continue
            if not isinstance(obj, dict):
                extra.append(Rejection(path=str(path), line=i, reason=f"a JSON {type(obj).__name__}, expected an object"))
                continue
            records.append({k: v for k, v in obj.items() if not isinstance(v, (dict, list))})
            lines.append(i)
    if not records:
        raise IngestError("no JSON object found; expected one JSON object per line", path=str(path),
                          line=extra[0].line if extra else None)
    df = pd.DataFrame.from_records(records)
    table = {c: df[c] for c in df.columns}
    return _finish(path, options, "jsonl", table, np.asarray(lines), extra)


# ---------------------------------------------------------------------------------------- key=value


def parse_kv_line(line: str) -> dict[str, str]:
    """``step=10 samples/s=101.2 gpu_util=87%`` -> {"step": "10", "samples/s": "101.2", "gpu_util": "87%"}."""
    return dict(_KV_EQ.findall(line))


def _read_kv(path: Path, options: Any) -> Run:
    import pandas as pd

    records: list[dict[str, str]] = []
    lines: list[int] = []
    other = 0
    first_other: int | None = None
    with open(path, encoding="utf-8-sig", errors="replace") as fh:
        for i, line in enumerate(fh, start=1):
            kv = parse_kv_line(line)
            if len(kv) >= 1 and any(_known(k, options) for k in kv):
                records.append(kv)
                lines.append(i)
            elif line.strip():
                other += 1
                first_other = first_other or i
    if not records:
        raise IngestError("no key=value line names a Timeline column (e.g. step=10 samples/s=101.2)", path=str(path))
    df = pd.DataFrame.from_records(records)
    table = {c: df[c] for c in df.columns}
    run = _finish(path, options, "kv", table, np.asarray(lines), [])
    if other:
        run.warnings.append(f"{path}: {other} line(s) without key=value pairs were not imported (first at line {first_other})")
    return run


def _known(key: str, options: Any) -> bool:
    from .units import resolve_column

    return resolve_column(key) is not None or key in (getattr(options, "mapping", {}) or {})
