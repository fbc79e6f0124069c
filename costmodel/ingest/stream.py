"""Streaming ingestion: CSV/TSV logs larger than memory into a Timeline Parquet, batch by batch.

``costmodel ingest BIG.csv -o timeline.parquet`` streams every CSV/TSV input whose size is at least
:data:`STREAM_BYTES` (other inputs are read whole and written into the same file). Memory stays at
about one Arrow batch (``block_bytes``, 16 MiB of CSV text by default) whatever the file size:
:func:`costmodel.ingest.csv_blocks.csv_blocks` cuts the text at line ends and parses one block with
``pyarrow.csv`` (Arrow's own streaming reader reads the whole file ahead), the same vectorised conversion and validation as
:func:`costmodel.ingest.load` runs on it (step order and time order carried across batches), and a
``pyarrow.parquet.ParquetWriter`` appends it. A column that meets a cell that is not a number is read as
text from that block on and converted in Arrow (the bad cells marked, so only they are rejected or blanked,
with line numbers, as on the unstreamed path); a cell with a unit sends its block through the text parse;
per-epoch step counters are carried across blocks (:func:`costmodel.ingest.validate.renumber_epochs`). The file
appears only when everything succeeded (temporary name, then rename); the bad-row threshold is checked over the whole file.
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation.errors import IngestError
from ..foundation.schema import TIMELINE_COLUMNS, Rejection, Run, to_timeline
from ..foundation.util import atomic_path, to_jsonable
from .derive import apply_to_run
from .frame import convert
from .validate import MAX_BAD_FRACTION, MISSING_LINES_KEPT, build_run, epoch_note, run_id_for, too_many_bad

#: CSV/TSV inputs at least this large are always streamed when writing with -o; inputs adding up to it
#: are read and written one file at a time
STREAM_BYTES = int(os.environ.get("COSTMODEL_STREAM_BYTES", str(512 * 1024 * 1024)))
#: a CSV/TSV input at least this large is streamed with -o too, unless GPU telemetry given with it must be
#: merged onto it (streaming is faster and leaner than reading whole: 10 M rows in about 1.4x pyarrow's
#: read_csv time at 1.2x the Arrow table's size, against 1.7x and 1.65x)
STREAM_CSV_BYTES = int(os.environ.get("COSTMODEL_STREAM_CSV_BYTES", str(64 * 1024 * 1024)))
BLOCK_BYTES = 16 * 1024 * 1024


class StreamedRun(Run):
    """A Run whose rows went straight to Parquet: ``table`` is empty, ``rows``/``columns`` are counted."""

    n_rows: int = 0
    present: Sequence[str] = ()

    @property
    def rows(self) -> int:
        return self.n_rows

    @property
    def columns(self) -> list[str]:
        return list(self.present)


def should_stream(path: str | Path, stream_bytes: int | None = None) -> bool:
    """True when ``path`` is a CSV/TSV log big enough to stream."""
    from .api import _head
    from .tabular import dialect

    p = Path(path)
    limit = STREAM_BYTES if stream_bytes is None else stream_bytes
    try:
        if not p.is_file() or p.stat().st_size < limit:
            return False
        return dialect(_head(p), p) in ("csv", "tsv")
    except OSError:
        return False


def _arrow_schema() -> Any:
    import pyarrow as pa

    fields = []
    for col, (dtype, _u, _m) in TIMELINE_COLUMNS.items():
        fields.append(pa.field(col, pa.string() if dtype == "string" else pa.int64() if dtype == "int64" else pa.float64()))
    return pa.schema(fields)


def _to_arrow(table: Any, schema: Any) -> Any:
    """A Timeline frame as an Arrow table of ``schema`` (constant string columns built without Python objects)."""
    import pyarrow as pa

    arrays = []
    m = len(table)
    for f in schema:
        col = table[f.name]
        if f.type == pa.string():
            value = str(col.iloc[0]) if m else ""
            codes = pa.array(np.zeros(m, dtype="int32"))
            arrays.append(pa.DictionaryArray.from_arrays(codes, pa.array([value])).dictionary_decode())
        else:
            arrays.append(pa.array(col.to_numpy(dtype="int64" if f.type == pa.int64() else "float64"), type=f.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def stream_csv(path: Path, options: Any, writer: Any, schema: Any, block_bytes: int = BLOCK_BYTES,
               run_id: str | None = None) -> StreamedRun:
    """Append one CSV/TSV file to ``writer`` batch by batch; returns its summary Run (no rows in memory)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from .api import _head
    from .csv_blocks import NULL_VALUES, arrow_csv_plan, line_blocks
    from .tabular import _delimiter, dialect

    src = str(path)
    head = _head(path)
    delim = "\t" if dialect(head, path) == "tsv" else _delimiter(head)
    names, skip, plan, _notes = arrow_csv_plan(path, options, delim)
    if not plan:
        raise IngestError(f"no usable column: header has {', '.join(names[:15])}", path=src, line=skip + 1)
    include = [n for n in names if n in plan]
    types = {n: pa.float64() for n in include if not (plan[n].column == "t_s" and plan[n].time_kind
                                                                 and plan[n].time_kind != "auto_num")}
    skipped: list[str] = []

    def on_invalid(row: Any) -> str:
        skipped.append(f"expected {row.expected_columns} fields, found {row.actual_columns}")
        return "skip"

    parse_opts = pacsv.ParseOptions(delimiter=delim, invalid_row_handler=on_invalid)
    conv_opts = pacsv.ConvertOptions(include_columns=include, column_types=types, null_values=NULL_VALUES,
                                     strings_can_be_null=True)
    # a block with a cell that is not a number is parsed again as text: convert() then rejects just those rows
    text_opts = pacsv.ConvertOptions(include_columns=include, column_types={n: pa.string() for n in include},
                                     strings_can_be_null=False)
    read_opts = pacsv.ReadOptions(column_names=names, block_size=max(1 << 20, block_bytes // 4))

    time_cols = {n for n in include if plan[n].column == "t_s"}
    text_cols: set[str] = set()  # columns that met a cell that is not a number: read as text, converted in Arrow
    opts_now = conv_opts

    def text_block(block: bytes, mark: int) -> Any:
        del skipped[mark:]  # the malformed rows of this block are reported again by the text parse
        return pacsv.read_csv(pa.BufferReader(block), read_options=read_opts, parse_options=parse_opts,
                              convert_options=text_opts)

    def blocks() -> Any:
        nonlocal opts_now
        from .csv_blocks import _text_to_float

        for block in line_blocks(path, skip, block_bytes):
            mark = len(skipped)
            table = None
            while table is None:
                del skipped[mark:]
                try:
                    table = pacsv.read_csv(pa.BufferReader(block), read_options=read_opts, parse_options=parse_opts,
                                           convert_options=opts_now)
                except pa.ArrowInvalid as exc:
                    msg = str(exc)
                    if "CSV parse error" in msg and "conversion" not in msg.lower():
                        from .csv_blocks import csv_parse_error

                        raise csv_parse_error(src, exc) from None
                    import re as _re

                    m = _re.search(r"column #(\d+)", msg)
                    name = names[int(m.group(1))] if m and int(m.group(1)) < len(names) else None
                    if name is None or name in text_cols or name in time_cols or name not in include:
                        table = text_block(block, mark)
                        yield table
                        table = "done"
                        break
                    text_cols.add(name)
                    opts_now = pacsv.ConvertOptions(
                        include_columns=include, null_values=NULL_VALUES, strings_can_be_null=False,
                        column_types={n: (pa.string() if n in text_cols else types[n]) for n in include if n in types})
            if isinstance(table, str):
                continue
            cols: list[Any] = []
            unit_seen = False
            for fname, col in zip(table.schema.names, table.columns, strict=True):
                if fname in text_cols and (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
                    vals, bad, unit = _text_to_float(col)
                    if unit:  # a unit in a cell sets the column's factor: this block takes the text path
                        unit_seen = True
                        break
                    vals[bad] = np.nan  # a cell that is not a number: NaN here is "bad" downstream (not missing)
                    na = np.isnan(vals) & ~bad
                    cols.append(pa.array(vals, mask=na, type=pa.float64()))
                    continue
                cols.append(col)
            if unit_seen:
                yield text_block(block, mark)
                continue
            yield pa.Table.from_arrays(cols, names=table.schema.names)

    return _stream_blocks(path, options, writer, schema, blocks(), skip, skipped, run_id, delim)


def _stream_blocks(path: Path, options: Any, writer: Any, schema: Any, blocks: Any, skip: int, skipped: list[str],
                   run_id: str | None, delim: str) -> StreamedRun:
    import pyarrow as pa

    from .csv_blocks import _arrow_to_numpy

    src = str(path)
    rid = run_id or run_id_for(path, options)
    role = getattr(options, "role", "") or ""
    strict = getattr(options, "strict", False)
    rows = 0
    source_rows = 0
    carry_step: float | None = None
    carry_t: float | None = None
    t_offset = 0.0
    start_abs: float | None = None
    rejected: list[Rejection] = []
    warnings: list[str] = []
    meta: dict[str, Any] = {}
    present: set[str] = set()
    epoch_state: dict[str, Any] = {}  # per-epoch step counters carried across batches
    missing: dict[str, dict[str, Any]] = {}  # bad auxiliary cells kept as missing, per column, over all batches
    first = True
    while True:
        try:
            batch = next(blocks)
        except StopIteration:
            break
        except pa.ArrowInvalid as exc:
            from .csv_blocks import csv_parse_error

            raise csv_parse_error(src, exc) from None
        n = batch.num_rows
        if n == 0:
            continue
        cols, nan_cells = _arrow_to_numpy(batch, True)
        del batch
        conv = convert(cols, options, source=src)
        for s, mask in nan_cells.items():
            c = conv.mapped.get(s.strip())
            if c:
                conv.invalid[c] = conv.invalid[c] | mask if c in conv.invalid else mask
        if "start_epoch_s" in conv.metadata and "t_s" in conv.columns:
            if start_abs is None:
                start_abs = conv.metadata["start_epoch_s"]
            conv.columns["t_s"] = conv.columns["t_s"] + (conv.metadata["start_epoch_s"] - start_abs)
        derived_t = "t_s" not in conv.columns and "step_time_s" in conv.columns
        lines = skip + 2 + source_rows  # line of the batch's first row
        run = build_run(conv.columns, path=path, run_id=rid, fmt="tabular/csv" if delim != "\t" else "tabular/tsv",
                        role=role, lines=lines, invalid=conv.invalid, metadata={}, strict=strict,
                        carry_step=carry_step, carry_t=carry_t, check_threshold=False, epoch_state=epoch_state)
        if derived_t:
            run.table["t_s"] = run.table["t_s"].to_numpy() + t_offset
        n_warn = len(run.warnings)
        apply_to_run(run, getattr(options, "batch_size", None), getattr(options, "tokens_per_step", None))
        derive_notes = run.warnings[n_warn:]
        if first:
            meta = {**conv.metadata, **run.metadata, "streamed": True}
            meta.pop("start_epoch_s", None)
            if start_abs is not None:
                meta["start_epoch_s"] = start_abs
            warnings += conv.warnings + derive_notes
            first = False
        rejected += run.rejected
        for c, info in (run.metadata.get("missing_cells") or {}).items():
            acc = missing.setdefault(c, {"count": 0, "first_lines": [], "first_reason": info["first_reason"]})
            acc["count"] += info["count"]
            acc["first_lines"] = (acc["first_lines"] + list(info["first_lines"]))[:MISSING_LINES_KEPT]
        source_rows += n
        if run.rows:
            tab = run.table
            present |= set(run.columns)
            carry_step = float(tab["step"].iloc[-1])
            tv = tab["t_s"].to_numpy(dtype="float64")
            if np.isfinite(tv).any():
                carry_t = float(np.nanmax(tv)) if carry_t is None else max(carry_t, float(np.nanmax(tv)))
                if derived_t:
                    t_offset = float(tv[-1])
            writer.write_table(_to_arrow(tab, schema))
            rows += run.rows
    total = source_rows + len(skipped)
    rejected += [Rejection(path=src, line=None, reason=f"malformed row: {why}") for why in skipped]
    if rejected and (strict or rows == 0 or too_many_bad(len(rejected), total)):
        first_bad = rejected[0]
        raise IngestError(f"{len(rejected)} of {total} rows are bad; first: {first_bad.reason}", path=first_bad.path,
                          line=first_bad.line, field=first_bad.field)
    if rows == 0:
        raise IngestError("no data rows", path=src)
    meta.pop("missing_cells", None)
    for c, info in missing.items():
        if too_many_bad(info["count"], total):
            raise IngestError(f"column {c}: {info['count']} of {total} cells are bad (a column may lose at most "
                              f"{MAX_BAD_FRACTION:.0%} of its cells); first: {info['first_reason']}",
                              path=src, line=info["first_lines"][0] if info["first_lines"] else None, field=c)
        where = f" (first on line {info['first_lines'][0]})" if info["first_lines"] else ""
        warnings.append(f"{src}: {c}: {info['count']} bad cell(s) kept as missing, rows kept{where}: {info['first_reason']}")
    if missing:
        meta["missing_cells"] = missing
    if epoch_state.get("restart_rows"):
        meta["epoch_steps"] = epoch_note(epoch_state)
        first_line = epoch_state["restart_lines"][0] if epoch_state["restart_lines"] else None
        warnings.append(f"{src}: the step counter restarts at {epoch_state['first']:g}"
                        + (f" on line {first_line}" if first_line else "")
                        + ": read as per-epoch steps (new epoch at each restart); Timeline step is the global step, "
                        "the original counter is kept in metadata epoch_steps")
    out = StreamedRun(run_id=rid, table=to_timeline(__import__("pandas").DataFrame(), rid, role), format="tabular/csv",
                      source=src, role=role, metadata=meta, rejected=rejected, warnings=warnings)
    out.n_rows = rows
    out.present = [c for c in TIMELINE_COLUMNS if c in present and c not in ("run_id", "role")]
    return out


class _BackgroundWriter:
    """Hands tables to a ``ParquetWriter`` on a thread of its own, so Parquet encoding (which releases the
    GIL) overlaps the parsing and conversion of the next batch. At most ``depth`` tables wait."""

    def __init__(self, writer: Any, depth: int = 2) -> None:
        import queue
        import threading

        self._writer = writer
        self._q: Any = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="costmodel-parquet-writer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            table = self._q.get()
            if table is None:
                return
            if self._error is None:
                try:
                    self._writer.write_table(table)
                except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
                    self._error = exc

    def write_table(self, table: Any) -> None:
        if self._error is not None:
            raise self._error
        self._q.put(table)

    def add_key_value_metadata(self, meta: dict[str, str]) -> None:
        self.flush()
        self._writer.add_key_value_metadata(meta)

    def flush(self) -> None:
        """Wait until every queued table is written; re-raise a write error."""
        if self._thread.is_alive():
            self._q.put(None)
            self._thread.join()
        if self._error is not None:
            raise self._error

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._writer.close()


def input_bytes(paths: Sequence[str | Path]) -> int:
    """Total size of the files (folders counted recursively)."""
    total = 0
    for p in paths:
        q = Path(p)
        if q.is_dir():
            total += sum(f.stat().st_size for f in q.rglob("*") if f.is_file())
        elif q.is_file():
            total += q.stat().st_size
    return total


def _has_gpu_telemetry(paths: Sequence[str | Path]) -> bool:
    """True when one of the (non-folder) inputs is GPU telemetry, to be merged onto a training run by time."""
    from ..foundation.errors import CostmodelError
    from .api import GPU_FORMATS, sniff_format

    for p in paths:
        if Path(p).is_dir() or not Path(p).is_file():
            continue
        try:
            if sniff_format(p) in (*GPU_FORMATS, "gpu"):
                return True
        except (CostmodelError, OSError):
            continue
    return False


def csv_stream_limit(paths: Sequence[str | Path], stream_bytes: int | None = None) -> int:
    """Size from which a CSV/TSV input among ``paths`` is streamed with -o."""
    if stream_bytes is not None:
        return stream_bytes
    return STREAM_BYTES if _has_gpu_telemetry(paths) else min(STREAM_BYTES, STREAM_CSV_BYTES)


def needs_streaming(paths: Sequence[str | Path], stream_bytes: int | None = None) -> bool:
    """True when ``-o`` should go through :func:`ingest_to_parquet` (a big CSV, or many files adding up)."""
    limit = STREAM_BYTES if stream_bytes is None else stream_bytes
    csv_limit = csv_stream_limit(paths, stream_bytes)
    return any(should_stream(p, csv_limit) for p in paths) or input_bytes(paths) >= limit


def _one_by_one(paths: Sequence[str | Path], options: Any, writer: Any, schema: Any) -> list[Run]:
    """Load and write each input in turn, keeping only a summary of each run (GPU telemetry is not merged here)."""
    from .api import expand_dir, load

    files: list[Path] = []
    notes: list[str] = []
    for p in paths:
        if Path(p).is_dir():
            found, skipped = expand_dir(Path(p), options)
            files += found
            notes += skipped
        else:
            files.append(Path(p))
    out: list[Run] = []
    seen: dict[str, int] = {}
    for f in files:
        if f.name.startswith("._") or f.name == ".DS_Store":
            notes.append(f"{f}: skipped (macOS metadata file, not a benchmark output)")
            continue
        for r in load(f, options):
            k = seen.get(r.run_id, 0) + 1
            seen[r.run_id] = k
            rid = r.run_id if k == 1 else f"{r.run_id}#{k}"
            writer.write_table(_to_arrow(to_timeline(r.table, rid, r.role), schema))
            summary = StreamedRun(run_id=rid, table=r.table.iloc[:0], format=r.format, source=r.source, role=r.role,
                                  metadata={**r.metadata, "written_one_file_at_a_time": True}, rejected=r.rejected,
                                  warnings=r.warnings + notes)
            notes = []
            summary.n_rows = r.rows
            summary.present = r.columns
            out.append(summary)
    return out


def ingest_to_parquet(
    paths: Sequence[str | Path], out: str | Path, options: Any, stream_bytes: int | None = None, block_bytes: int = BLOCK_BYTES
) -> Any:
    """Read ``paths`` into one Timeline Parquet at ``out``, streaming big CSV/TSV inputs. Returns an IngestResult."""
    import pyarrow.parquet as pq

    from ..foundation.timeline import METADATA_KEY
    from .api import IngestResult, load_many

    limit = STREAM_BYTES if stream_bytes is None else stream_bytes
    csv_limit = csv_stream_limit(paths, stream_bytes)
    big = [p for p in paths if should_stream(p, csv_limit)]
    small = [p for p in paths if p not in big]
    schema = _arrow_schema()
    runs: list[Run] = []
    # many files that together exceed the limit: one file at a time, tables released once written
    one_by_one = input_bytes(small) >= limit and len(small) > 1
    res_small = load_many(small, options) if small and not one_by_one else None
    with atomic_path(out) as tmp:
        # no dictionary attempts on float metrics; encoding on its own thread, overlapping the next batch
        writer = _BackgroundWriter(pq.ParquetWriter(tmp, schema, use_dictionary=["run_id", "role"]))
        try:
            if res_small is not None:
                for r in res_small.runs:
                    writer.write_table(_to_arrow(to_timeline(r.table, r.run_id, r.role), schema))
                runs += res_small.runs
            if one_by_one:
                runs += _one_by_one(small, options, writer, schema)
            seen = {r.run_id for r in runs}
            for p in big:
                base = run_id_for(Path(p), options)
                rid, k = base, 2
                while rid in seen:
                    rid, k = f"{base}#{k}", k + 1
                seen.add(rid)
                runs.append(stream_csv(Path(p), options, writer, schema, block_bytes=block_bytes, run_id=rid))
            meta = [
                {"run_id": r.run_id, "format": r.format, "source": r.source, "role": r.role,
                 "metadata": to_jsonable(r.metadata), "rejected": [x.to_dict() for x in r.rejected[:1000]],
                 "warnings": list(r.warnings)}
                for r in runs
            ]
            writer.add_key_value_metadata({METADATA_KEY.decode(): json.dumps(meta)})
        finally:
            writer.close()
    rejected = [x for r in runs for x in r.rejected]
    warnings = (res_small.warnings if res_small else []) + [w for r in runs if isinstance(r, StreamedRun) for w in r.warnings]
    warnings += [str(x) for x in rejected[:10] if res_small is None or x not in res_small.rejected]
    return IngestResult(runs=runs, rejected=rejected, warnings=warnings)
