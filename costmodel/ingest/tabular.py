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

from ..foundation.errors import IngestError
from ..foundation.schema import Rejection, Run
from .frame import NA_TOKENS, convert, plan_columns
from .validate import build_run, run_id_for

FORMAT = "tabular"
FORMATS = ["tabular", "csv", "tsv", "jsonl", "parquet", "kv"]

_KV_EQ = re.compile(r"([A-Za-z_][\w./%\[\]-]*)=([^\s,]+)")
#: cells read as missing (NaN, not a bad value); a literal "nan" is NOT here: it is a bad value
NULL_VALUES = sorted(set(NA_TOKENS) | {"N/A", "NA", "NULL", "None"})


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
            obj = json.loads(first)
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


def _header(path: Path, delimiter: str) -> tuple[list[str], int]:
    """Column names and the number of preamble lines (``#`` comments, blank lines) before them."""
    skip = 0
    with open(path, encoding="utf-8-sig", errors="replace") as fh:
        for line in fh:
            if not line.strip() or line.lstrip().startswith("#"):
                skip += 1
                continue
            import csv

            names = next(csv.reader([line.rstrip("\r\n")], delimiter=delimiter))
            return [n.strip() for n in names], skip
            break
    raise IngestError("no header row found; expected a header naming the columns", path=str(path))


def arrow_csv_plan(path: Path, options: Any, delimiter: str) -> tuple[list[str], int, dict[str, Any], list[str]]:
    """(header names, preamble lines, source->Mapping plan, notes) for a CSV file."""
    names, skip = _header(path, delimiter)
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise IngestError(f"duplicate column name(s) {dup} in the header; expected unique names", path=str(path), line=skip + 1)
    plan, _ignored, notes = plan_columns(names, options)
    return names, skip, plan, notes


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
            return _finish(path, options, "tsv" if delimiter == "\t" else "csv", cols, lines, extra,
                           source_rows=n + len(skipped), src_invalid=invalid_nan, notes=notes_not_read)
        table = pacsv.read_csv(path, read_options=read_opts, parse_options=parse_opts, convert_options=conv_opts)
        typed = True
    except pa.ArrowInvalid as exc:
        if "CSV parse error" in str(exc) and "conversion" not in str(exc).lower():
            raise IngestError(f"not a well-formed CSV: {exc}", path=str(path)) from None
        skipped.clear()
        texts.clear()
        conv_opts = pacsv.ConvertOptions(
            include_columns=include, column_types={n: pa.string() for n in include}, strings_can_be_null=False
        )
        try:
            table = pacsv.read_csv(path, read_options=read_opts, parse_options=parse_opts, convert_options=conv_opts)
        except pa.ArrowInvalid as exc2:
            raise IngestError(f"not a well-formed CSV: {exc2}", path=str(path)) from None
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
    return _finish(
        path, options, "tsv" if delimiter == "\t" else "csv", cols, lines, extra, source_rows=n + len(skipped),
        src_invalid=invalid_nan, notes=notes_not_read,
    )


#: CSV text per Arrow batch on the streaming path (small blocks keep the working set small)
STREAM_BLOCK_BYTES = 4 * 1024 * 1024


def _estimate_rows(path: Path, skip: int) -> int:
    """Upper estimate of the data rows from the mean line length of the first 64 KiB."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.read(64 * 1024)
    lines = head.split(b"\n")[skip + 1 : -1] or [head]
    mean = max(1.0, sum(len(x) + 1 for x in lines) / len(lines))
    return int(size / mean * 1.25) + 1024


def csv_blocks(path: Path, skip: int, names: list[str], parse_opts: Any, conv_opts: Any,
               block_bytes: int = STREAM_BLOCK_BYTES, keep_typed: frozenset[str] = frozenset(),
               reported: tuple[list[Any], ...] = ()) -> Any:
    """Yield the data rows of a CSV as Arrow tables of about ``block_bytes`` of text each.

    The file is cut at line ends by us and each block parsed with ``pyarrow.csv.read_csv`` (multi-
    threaded) under the known column names, so at most one block of text and its table are in memory
    (Arrow's own streaming reader reads ahead without bound). Fields with embedded newlines are not
    supported on this path. Raises ``pyarrow.ArrowInvalid`` on a cell that does not convert.
    """
    import io

    import pyarrow as pa
    import pyarrow.csv as pacsv

    read_opts = pacsv.ReadOptions(column_names=names, block_size=max(1 << 20, block_bytes // 4))
    opts = conv_opts
    text_cols: set[str] = set()
    for block in line_blocks(path, skip, block_bytes):
        marks = [len(lst) for lst in reported]  # malformed rows reported by a failed attempt are reported again
        while True:
            for lst, mark in zip(reported, marks, strict=True):
                del lst[mark:]
            try:
                yield pacsv.read_csv(io.BytesIO(block), read_options=read_opts, parse_options=parse_opts,
                                     convert_options=opts)
                break
            except pa.ArrowInvalid as exc:
                msg = str(exc)
                if "CSV parse error" in msg and "conversion" not in msg.lower():
                    raise
                # a cell that is not a number: from now on that column is read as text and converted by the caller
                # (vectorised, bad cells marked), the others stay typed
                m = re.search(r"column #(\d+)", msg)
                name = names[int(m.group(1))] if m and int(m.group(1)) < len(names) else None
                if name is None or name in text_cols or name not in opts.include_columns or name in keep_typed:
                    raise  # a time column of text (ISO dates), or no way to tell: the caller's whole-file text path
                text_cols.add(name)
                types = {n: (pa.string() if n in text_cols else pa.float64()) for n in opts.include_columns}
                opts = pacsv.ConvertOptions(include_columns=opts.include_columns, column_types=types,
                                            null_values=NULL_VALUES, strings_can_be_null=False)


def line_blocks(path: Path, skip: int, block_bytes: int = STREAM_BLOCK_BYTES) -> Any:
    """Yield the data rows of a CSV (after ``skip`` preamble lines and the header) as byte blocks of
    about ``block_bytes``, each cut at a line end."""
    with open(path, "rb") as fh:
        for _ in range(skip + 1):  # preamble and header
            fh.readline()
        rest = b""
        while True:
            chunk = fh.read(block_bytes)
            if not chunk:
                break
            buf = rest + chunk
            cut = buf.rfind(b"\n")
            if cut < 0:
                rest = buf
                continue
            block, rest = buf[: cut + 1], buf[cut + 1 :]
            del buf, chunk
            if block.strip():
                yield block
        if rest.strip():
            yield rest


def _read_numeric_streaming(
    path: Path, skip: int, parse_opts: Any, conv_opts: Any, include: list[str], names: list[str],
    keep_typed: frozenset[str] = frozenset(), reported: tuple[list[Any], ...] = (),
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], int]:
    """Read float columns block by block into preallocated numpy arrays.

    Peak memory is the result plus one block (the whole Arrow table never exists). Untouched tail pages
    of the preallocation are never resident; the arrays returned are views of the filled part.
    Raises ``pyarrow.ArrowInvalid`` when a cell is not a number (the caller falls back to text parsing).
    """
    cap = _estimate_rows(path, skip)
    out = {n: np.empty(cap, dtype="float64") for n in include}
    return _fill(csv_blocks(path, skip, names, parse_opts, conv_opts, keep_typed=keep_typed, reported=reported),
                 out, cap)


def _fill(reader: Any, out: dict[str, np.ndarray], cap: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], int]:
    import pyarrow as pa
    import pyarrow.compute as pc

    nan_cells: dict[str, np.ndarray] = {}
    i = 0
    for batch in reader:
        n = batch.num_rows
        if i + n > cap:  # the estimate was short: grow (rare)
            cap = int((i + n) * 1.5) + 1024
            for k in out:
                bigger = np.empty(cap, dtype="float64")
                bigger[:i] = out[k][:i]
                out[k] = bigger
            for k in nan_cells:
                grown = np.zeros(cap, dtype=bool)
                grown[:i] = nan_cells[k][:i]
                nan_cells[k] = grown
        for name, col in zip(batch.schema.names, batch.columns, strict=True):
            if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
                # a block re-read as text (a cell that is not a number): per-column parse; a cell is invalid when
                # present and not a number; cells with units need the whole-file text path (their unit sets the factor)
                vals, bad, unit = _text_to_float(col)
                if unit:
                    raise pa.ArrowInvalid(f"conversion: column {name!r} has cells with a unit")
                out[name][i : i + n] = vals
                if bad.any():
                    if name not in nan_cells:
                        nan_cells[name] = np.zeros(cap, dtype=bool)
                    nan_cells[name][i : i + n] = bad
                continue
            j = i
            for chunk in getattr(col, "chunks", [col]):  # copy chunk by chunk: no intermediate concatenation
                out[name][j : j + len(chunk)] = chunk.to_numpy(zero_copy_only=False)
                j += len(chunk)
            if col.null_count < n and pc.any(pc.is_nan(col)).as_py():
                if name not in nan_cells:
                    nan_cells[name] = np.zeros(cap, dtype=bool)
                nan_cells[name][i : i + n] = pc.fill_null(pc.is_nan(col), False).to_numpy(zero_copy_only=False)
        i += n
    del reader
    return {k: v[:i] for k, v in out.items()}, {k: v[:i] for k, v in nan_cells.items()}, i


_NUMBER_RE = r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$"
_NUMBER_UNIT_RE = r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*(?:%|[A-Za-z/µ]+)$"


def _text_to_float(col: Any) -> tuple[np.ndarray, np.ndarray, bool]:
    """A text column of a CSV block as float64, vectorised in Arrow: (values, invalid mask, has cells with units).
    NA tokens (empty, ``N/A``...) are NaN and not invalid; a literal ``nan``/``inf`` is invalid, like any other text."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:  # most columns of the block are clean numbers: one cast, no per-cell regex
        a = np.array(pc.cast(col, pa.float64()).to_numpy(zero_copy_only=False), dtype="float64")  # writable
        bad = np.isinf(a) | np.isnan(a)  # "nan"/"inf" text converts: still a bad value
        return a, bad, False
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    col = col.combine_chunks() if hasattr(col, "combine_chunks") else col
    n = len(col)
    # plain decimals ("97.5", "12") are found without a regex; only the rest (a few cells) go through one
    plain = pc.fill_null(pc.utf8_is_decimal(pc.replace_substring(col, ".", "", max_replacements=1)), False)
    a = np.full(n, np.nan)
    plain_np = plain.to_numpy(zero_copy_only=False).astype(bool)
    if plain_np.any():
        a[plain_np] = pc.cast(pc.filter(col, plain), pa.float64()).to_numpy(zero_copy_only=False)
    invalid = np.zeros(n, dtype=bool)
    rest = np.flatnonzero(~plain_np)
    if not len(rest):
        return a, invalid, False
    sub = pc.utf8_trim_whitespace(pc.take(col, pa.array(rest)))
    is_num = pc.fill_null(pc.match_substring_regex(sub, _NUMBER_RE), False)
    is_na = pc.fill_null(pc.is_in(pc.utf8_lower(sub), value_set=pa.array(sorted(NA_TOKENS))), True)
    other = pc.and_(pc.invert(is_num), pc.invert(is_na))
    has_unit = bool(pc.any(pc.and_(other, pc.fill_null(pc.match_substring_regex(sub, _NUMBER_UNIT_RE), False))).as_py())
    vals = pc.cast(pc.if_else(is_num, sub, pa.scalar(None, pa.string())), pa.float64())
    a[rest] = vals.to_numpy(zero_copy_only=False).astype("float64", copy=False)
    invalid[rest] = other.to_numpy(zero_copy_only=False).astype(bool)
    return a, invalid, has_unit


def _arrow_to_numpy(table: Any, typed: bool) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Columns of an Arrow table as numpy (floats) or pandas (text/timestamps), freeing Arrow memory as it goes."""
    import pyarrow as pa
    import pyarrow.compute as pc

    names = table.column_names
    chunked = dict(zip(names, table.columns, strict=True))
    out: dict[str, Any] = {}
    nan_cells: dict[str, np.ndarray] = {}
    for name in names:
        col = chunked.pop(name)
        if pa.types.is_floating(col.type) or pa.types.is_integer(col.type):
            if pa.types.is_floating(col.type) and col.null_count < len(col):
                isnan = pc.fill_null(pc.is_nan(col), False)
                if pc.any(isnan).as_py():
                    nan_cells[name] = isnan.to_numpy(zero_copy_only=False)
            a = col.to_numpy()
            if pa.types.is_integer(col.type) or not a.flags.writeable:
                a = a.astype("float64")
            out[name] = a
        else:
            out[name] = col.to_pandas()
        del col
    return out, nan_cells


def _locate(path: Path, texts: list[str], skipped: list[tuple[int | None, str]]) -> list[tuple[int | None, str]]:
    """Line numbers of malformed rows that Arrow reported without one (found by their text)."""
    pending: dict[str, list[int]] = {}
    for k, t in enumerate(texts):
        pending.setdefault(t, []).append(k)
    found: dict[int, int] = {}
    with open(path, encoding="utf-8-sig", errors="replace") as fh:
        for i, line in enumerate(fh, start=1):
            ks = pending.get(line.rstrip("\r\n"))
            if ks:
                found[ks.pop(0)] = i
                if len(found) == len(texts):
                    break
    return [(found.get(k), why) for k, (_n, why) in enumerate(skipped)]


def _line_numbers(n: int, skip: int, skipped: list[tuple[int | None, str]]) -> np.ndarray | int:
    """Source line of each data row (an int offset when no row was skipped: no per-row array)."""
    if not any(s[0] is not None for s in skipped):
        return skip + 2
    lines = np.arange(n, dtype="int64") + skip + 2
    for number in sorted(num for num, _why in skipped if num is not None):
        lines[lines >= number] += 1
    return lines


# ---------------------------------------------------------------------------------------- Parquet


def _read_parquet(path: Path, options: Any) -> Run:
    import pyarrow as pa
    import pyarrow.parquet as pq

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
                obj = json.loads(s)
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
