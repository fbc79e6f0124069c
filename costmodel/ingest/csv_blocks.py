"""Reading CSV/TSV text into numpy columns, for :mod:`.tabular` and :mod:`.stream`: the header and the
pyarrow read plan, line-aligned blocks for files of any size, and cells that carry units or text (parsed
per column, the bad ones counted with their line numbers)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation.errors import IngestError
from .frame import NA_TOKENS, plan_columns

#: cells read as missing (NaN, not a bad value); a literal "nan" is NOT here: it is a bad value
NULL_VALUES = sorted(set(NA_TOKENS) | {"N/A", "NA", "NULL", "None"})



def _header(path: Path, delimiter: str) -> tuple[list[str], int]:
    """Column names and the number of preamble lines (``#`` comments, blank lines) before them."""
    from ..foundation.limits import max_columns, max_line_bytes

    skip = 0
    limit = max_line_bytes()
    with open(path, encoding="utf-8-sig", errors="replace") as fh:
        while line := fh.readline(limit + 1):  # bounded: a 2 GiB line is never read whole
            if len(line) > limit and not line.endswith("\n"):
                raise IngestError(f"a line longer than {limit:,} bytes (COSTMODEL_MAX_LINE_BYTES); not a header row",
                                  path=str(path), line=skip + 1)
            if not line.strip() or line.lstrip().startswith("#"):
                skip += 1
                continue
            if line.count(delimiter) >= max_columns():
                raise IngestError(f"the header has {line.count(delimiter) + 1:,} columns; at most {max_columns():,} "
                                  "are read (COSTMODEL_MAX_COLUMNS)", path=str(path), line=skip + 1)
            import csv

            names = next(csv.reader([line.rstrip("\r\n")], delimiter=delimiter))
            return [n.strip() for n in names], skip
    raise IngestError("no header row found; expected a header naming the columns", path=str(path))


def first_long_line(path: Path, limit: int) -> tuple[int, int] | None:
    """(line number, length in bytes at least) of the first line of ``path`` longer than ``limit``, or None."""
    line, length = 1, 0
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            parts = chunk.split(b"\n")
            for k, part in enumerate(parts):
                length += len(part)
                if length > limit:
                    return line, length
                if k < len(parts) - 1:
                    line, length = line + 1, 0
    return None


def csv_parse_error(path: Path | str, exc: BaseException) -> IngestError:
    """The one-line error for a CSV the reader could not parse: a line (or cell) longer than the reader's block is
    named by its line number and the limit; anything else keeps the reader's own words."""
    from ..foundation.limits import max_line_bytes

    msg = str(exc)
    if "straddl" in msg or "block size" in msg:
        limit = max_line_bytes()
        where = first_long_line(Path(path), limit)
        if where is not None:
            return IngestError(f"a line (or one cell) longer than {limit:,} bytes (COSTMODEL_MAX_LINE_BYTES): at "
                               f"least {where[1]:,} bytes; not a benchmark row", path=str(path), line=where[0])
    return IngestError(f"not a well-formed CSV: {msg.splitlines()[0][:200] if msg else type(exc).__name__}",
                       path=str(path))


def arrow_csv_plan(path: Path, options: Any, delimiter: str) -> tuple[list[str], int, dict[str, Any], list[str]]:
    """(header names, preamble lines, source->Mapping plan, notes) for a CSV file."""
    names, skip = _header(path, delimiter)
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise IngestError(f"duplicate column name(s) {dup} in the header; expected unique names", path=str(path), line=skip + 1)
    plan, _ignored, notes = plan_columns(names, options)
    return names, skip, plan, notes


STREAM_BLOCK_BYTES = 4 * 1024 * 1024


def _estimate_rows(path: Path, skip: int) -> int:
    """Upper estimate of the data rows from the mean line length of the first 64 KiB."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.read(64 * 1024)
    lines = head.split(b"\n")[skip + 1 : -1] or [head]
    mean = max(1.0, sum(len(x) + 1 for x in lines) / len(lines))
    return int(size / mean * 1.25) + 1024


#: CSV blocks parsed at once (each parse also spreads over Arrow's own thread pool): the next blocks are parsed
#: while the caller copies and checks the current one, so no core waits for the other
BLOCKS_AHEAD = 2


def _with_handler(parse_opts: Any, handler: Any) -> Any:
    """A copy of ``parse_opts`` (``pyarrow.csv.ParseOptions``) with another invalid-row handler."""
    import pyarrow.csv as pacsv

    return pacsv.ParseOptions(delimiter=parse_opts.delimiter, quote_char=parse_opts.quote_char,
                              double_quote=parse_opts.double_quote, escape_char=parse_opts.escape_char,
                              newlines_in_values=parse_opts.newlines_in_values,
                              ignore_empty_lines=parse_opts.ignore_empty_lines, invalid_row_handler=handler)


def csv_blocks(path: Path, skip: int, names: list[str], parse_opts: Any, conv_opts: Any,
               block_bytes: int = STREAM_BLOCK_BYTES, keep_typed: frozenset[str] = frozenset(),
               reported: tuple[list[Any], ...] = (), ahead: int = BLOCKS_AHEAD) -> Any:
    """Yield the data rows of a CSV as (Arrow table, {float column: NaN-cell mask}) of about ``block_bytes`` of
    text each, in file order (the masks only for columns with a NaN cell: a literal ``nan`` is a bad value).

    The file is cut at line ends by us and each block parsed with ``pyarrow.csv.read_csv`` (multi-
    threaded) under the known column names; up to ``ahead`` further blocks are parsed concurrently on
    worker threads while the caller consumes the current one, so at most ``ahead + 1`` blocks of text
    and their tables are in memory (Arrow's own streaming reader reads ahead without bound). The rows
    ``parse_opts.invalid_row_handler`` is asked about are handed to it in file order, block by block,
    once a block has parsed (a block parsed again is reported once; ``reported``, the lists that handler fills,
    needs no rollback any more and is kept for the callers). Fields with embedded newlines are not
    supported on this path. Raises ``pyarrow.ArrowInvalid`` on a cell that does not convert.
    """
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    import pyarrow as pa
    import pyarrow.csv as pacsv

    read_opts = pacsv.ReadOptions(column_names=names, block_size=max(1 << 20, block_bytes // 4))
    handler = parse_opts.invalid_row_handler
    opts = conv_opts
    text_cols: set[str] = set()

    def parse(block: Any, conv: Any) -> tuple[Any, list[Any], BaseException | None]:
        rows: list[Any] = []

        def keep(row: Any) -> str:  # asked on Arrow's threads: only collected here, handed over in file order
            rows.append(row)
            return "skip"

        popts = parse_opts if handler is None else _with_handler(parse_opts, keep)
        try:
            table = pacsv.read_csv(pa.BufferReader(block), read_options=read_opts, parse_options=popts,
                                   convert_options=conv)
        except pa.ArrowInvalid as exc:
            return None, rows, exc
        return (table, _nan_cells(table)), rows, None

    blocks = line_blocks(path, skip, block_bytes)
    pending: deque[tuple[Any, Any, Any]] = deque()
    pool = ThreadPoolExecutor(max_workers=max(1, ahead), thread_name_prefix="costmodel-csv")

    def submit() -> None:
        block = next(blocks, None)
        if block is not None:
            pending.append((block, opts, pool.submit(parse, block, opts)))

    try:
        for _ in range(max(1, ahead) + 1):
            submit()
        while pending:
            block, used, fut = pending.popleft()
            table, rows, exc = fut.result()
            if used is not opts:  # parsed before a column turned to text: parse again as the file goes on
                table, rows, exc = parse(block, opts)
            while exc is not None:
                msg = str(exc)
                if "CSV parse error" in msg and "conversion" not in msg.lower():
                    raise exc
                # a cell that is not a number: from now on that column is read as text and converted by the
                # caller (vectorised, bad cells marked), the others stay typed
                m = re.search(r"column #(\d+)", msg)
                name = names[int(m.group(1))] if m and int(m.group(1)) < len(names) else None
                if name is None or name in text_cols or name not in opts.include_columns or name in keep_typed:
                    raise exc  # a time column of text (ISO dates), or no way to tell: the caller's whole-file text path
                text_cols.add(name)
                types = {n: (pa.string() if n in text_cols else pa.float64()) for n in opts.include_columns}
                opts = pacsv.ConvertOptions(include_columns=opts.include_columns, column_types=types,
                                            null_values=NULL_VALUES, strings_can_be_null=False)
                table, rows, exc = parse(block, opts)
            for row in rows:  # malformed rows, in file order (a failed attempt's rows were dropped with it)
                if handler(row) != "skip":
                    raise pa.ArrowInvalid(f"CSV parse error: Expected {row.expected_columns} columns, got "
                                          f"{row.actual_columns}: {row.text}")
            del block, rows
            submit()  # keep the workers busy while the caller copies this block
            yield table
            del table
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        blocks.close()


def _nan_cells(table: Any) -> dict[str, np.ndarray]:
    """Masks of the NaN cells (a literal ``nan`` in the text; not the empty ones) of the float columns that have any."""
    import pyarrow as pa
    import pyarrow.compute as pc

    out: dict[str, np.ndarray] = {}
    for name, col in zip(table.schema.names, table.columns, strict=True):
        if pa.types.is_floating(col.type) and col.null_count < len(col) and pc.any(pc.is_nan(col)).as_py():
            out[name] = pc.fill_null(pc.is_nan(col), False).to_numpy(zero_copy_only=False)
    return out


def line_blocks(path: Path, skip: int, block_bytes: int = STREAM_BLOCK_BYTES) -> Any:
    """Yield the data rows of a CSV (after ``skip`` preamble lines and the header) as blocks (bytes-like) of
    about ``block_bytes``, each cut at a line end. Each block is read once into a buffer of its own (no
    concatenation): only the partial last line is carried over to the next block."""
    from ..foundation.limits import max_line_bytes

    limit = max_line_bytes()
    with open(path, "rb") as fh:
        for _ in range(skip + 1):  # preamble and header
            fh.readline(limit + 1)
        rest = b""
        while True:
            buf = bytearray(len(rest) + block_bytes)
            buf[: len(rest)] = rest
            got = fh.readinto(memoryview(buf)[len(rest):])
            if not got:
                break
            end = len(rest) + got
            cut = buf.rfind(b"\n", 0, end)
            if cut < 0:
                if end > limit:  # one line longer than any row: never held whole (a 2 GiB line)
                    raise csv_parse_error(path, ValueError("straddling"))
                rest = bytes(buf[:end])
                continue
            rest = bytes(buf[cut + 1 : end])
            if _TEXT.search(buf, 0, cut + 1):  # not only blank lines (stops at the first character)
                yield memoryview(buf)[: cut + 1]
        if rest.strip():
            yield rest


_TEXT = re.compile(rb"\S")


def _read_numeric_streaming(
    path: Path, skip: int, parse_opts: Any, conv_opts: Any, include: list[str], names: list[str],
    keep_typed: frozenset[str] = frozenset(), reported: tuple[list[Any], ...] = (),
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], int]:
    """Read float columns block by block into preallocated numpy arrays.

    Peak memory is the result plus a few blocks in flight (the whole Arrow table never exists). Untouched tail pages
    of the preallocation are never resident; the arrays returned are views of the filled part.
    Raises ``pyarrow.ArrowInvalid`` when a cell is not a number (the caller falls back to text parsing).
    """
    cap = _estimate_rows(path, skip)
    out = {n: np.empty(cap, dtype="float64") for n in include}
    return _fill(csv_blocks(path, skip, names, parse_opts, conv_opts, block_bytes=STREAM_BLOCK_BYTES,
                            keep_typed=keep_typed, reported=reported, ahead=BLOCKS_AHEAD),
                 out, cap)


def _fill(reader: Any, out: dict[str, np.ndarray], cap: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], int]:
    import pyarrow as pa

    nan_cells: dict[str, np.ndarray] = {}
    i = 0
    for batch, nans in reader:
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
            if name in nans:  # found by the worker that parsed the block
                if name not in nan_cells:
                    nan_cells[name] = np.zeros(cap, dtype=bool)
                nan_cells[name][i : i + n] = nans[name]
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
