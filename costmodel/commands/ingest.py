"""`costmodel ingest`: read benchmark outputs into one validated Timeline."""
from __future__ import annotations

import argparse

from ._common import add_ingest_arguments

HELP = "read benchmark outputs (read client, training logs, fio, DLIO/MLPerf Storage, GPU telemetry) into a Timeline"
DESCRIPTION = HELP + """

Formats are sniffed from the content; --format overrides. Each file makes one or more runs.
Units are converted to SI (bytes, seconds, bytes/s, fractions 0..1). A bad cell (text, NaN/inf, a
negative rate, a fraction above 1) in step, t_s or the run's primary metric rejects its row (counted,
first 10 reported with line numbers); in any other column it becomes missing and the row stays
(per-run missing_cells: count and first lines per column). A file with more than 10 % bad rows, or a
column with more than 10 % bad cells, is a bad file (exit 2, nothing written); --strict makes any
rejected row or bad cell fatal. Empty or N/A cells are kept as missing (counted in a warning).
--batch-size N / --tokens-per-step N derive samples_per_s / tokens_per_s from step_time_s.
A step counter that restarts at
its first value (0 or 1) each epoch, or whose epoch column increases, becomes a global step (epoch
filled, original counter in metadata epoch_steps).
With -o, CSV/TSV inputs of 64 MiB or more (COSTMODEL_STREAM_CSV_BYTES; 512 MiB, COSTMODEL_STREAM_BYTES,
when GPU telemetry comes with them) are streamed batch by batch into the Parquet file, so inputs larger
than memory work (bad rows and cells handled the same way there too). GPU telemetry given with a training run is
merged onto it by time (gpu_util, gpu_power_w).
Formats (--format): timeline, tfevents, bench_jsonl, benchtext, trainlog (megatron, nemo, deepspeed,
torchtitan, hf_trainer), torch_trace, fio_json, fio_log (fio_bw, fio_iops, fio_lat, fio_clat_hist), dlio
(dlio_summary, dlio_epochs, dlio_output, mlperf_storage_report, dlio_log, iostat), gpu (nvidia_smi, dcgmi,
dcgm_exporter), sysstat (iostat_x, sar_d, nvidia_smi_dmon, dstat), mlflow, cumclock (step:N ... train_time:Xms),
freeform (mllog, speed, tf,
throughput, superbench, elbencho, pattern), tabular (csv, tsv, jsonl, parquet, kv).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="benchmark outputs to read (a folder is read recursively)")
    parser.add_argument("-o", "--output", metavar="TIMELINE.parquet", help="write the Timeline as Parquet (atomically)")
    parser.add_argument("--force", action="store_true", help="replace an existing -o file")
    parser.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    parser.add_argument("--run-id", help="run id (default: derived from the file name)")
    parser.add_argument("--role", choices=["colocated", "remote"], help="which side of the comparison these runs are")
    add_ingest_arguments(parser, strict=True)


def run(args: argparse.Namespace) -> int:
    from ..foundation.names import shown
    from ..foundation.safeio import refuse_existing
    from ..foundation.timeline import write_runs
    from ..ingest import load_many
    from ..ingest.stream import ingest_to_parquet, needs_streaming
    from ..jobs.discover import with_ranks
    from ..jobs.storage import LocalCopies
    from ._common import emit_json, ingest_options, progress, summary_lines

    if args.output:
        refuse_existing(args.output, "-o", args.force)
    opts = with_ranks(ingest_options(args, args.role or ""))  # each run's rank and job (ingest imports no jobs)
    with LocalCopies() as copies:  # s3:// gs:// az:// inputs read like fit reads them
        files = copies.localize(args.files)
        if args.output and needs_streaming(files):
            # inputs too big to hold: big CSV/TSV batch by batch, many files one at a time, straight into the Parquet file
            result = ingest_to_parquet(files, args.output, opts)
        else:
            result = load_many(files, opts)
            if args.output:
                write_runs(result.runs, args.output)
        for r in result.runs:
            r.source = copies.url_of(r.source)
        result.warnings = [copies.in_text(w) for w in result.warnings]
    if args.json:
        emit_json(result.to_dict())
    else:
        lines = [f"{shown(r.run_id)}\t{r.format}\t{r.rows} rows\t{','.join(r.columns)}\t{shown(r.source, 10_000)}"
                 for r in result.runs]
        if len(lines) > 20:  # a summary first: how many runs, rows and formats
            from collections import Counter

            formats = ", ".join(f"{f} {n:,}" for f, n in sorted(Counter(r.format for r in result.runs).items()))
            print(f"{len(result.runs):,} runs, {sum(r.rows for r in result.runs):,} rows ({formats})")
        for line in summary_lines(lines, "runs"):
            print(line)
        if result.rejected_rows:
            progress(f"rejected {result.rejected_rows} row(s)")
        for w in summary_lines(list(result.warnings), "warnings", shown=10):
            progress(f"warning: {w}")
    return 0
