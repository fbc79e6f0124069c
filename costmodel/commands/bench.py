"""`costmodel bench`: the multi-pass read benchmark for training nodes (thin shell over costmodel.bench)."""
from __future__ import annotations

import argparse
import signal
import sys

HELP = "honest multi-pass read benchmark for training nodes (cold, warm and in-pass throughput)"

DESCRIPTION = """\
Read every file under ROOT (sorted, first --max-files) --passes times with --workers threads, in
--block-mib reads, and print the familiar client's lines on stdout:

    files=400 workers=8
    pass=1 data=0.78 GiB time=0.45s throughput=1.75 GiB/s

(GiB = 2^30 bytes, two decimals). Pass 1 is made cold without root: this client's cached pages of
exactly these files are dropped with posix_fadvise(DONTNEED) and the drop is verified with mincore;
--cold-every-pass does it before every pass (cache invalidation), --direct reads with O_DIRECT
instead, --no-evict reads the page cache as found (the familiar client's behaviour).
--out FILE.jsonl records run metadata, the file list's SHA-256, every file read, every pass and
throughput per time slice; `costmodel ingest` / `costmodel fit` read it. Ctrl-C keeps what was
measured (record status "interrupted", exit 130). Exit 2 on bad input (missing ROOT, no files,
every file unreadable), with one line on stderr.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("root", metavar="ROOT", help="dataset directory to read (walked recursively, sorted)")
    parser.add_argument("--passes", type=int, default=5,
                        help="passes over the file list (default 5: one cold and four warm, what `fit` needs to "
                             "judge the warm level)")
    parser.add_argument("--workers", type=int, default=16, help="reader threads (default 16)")
    parser.add_argument("--max-files", type=int, default=1000, help="read the first N files of the sorted walk (default 1000)")
    parser.add_argument("--block-mib", type=float, default=8.0, help="read size in MiB (2^20 bytes; default 8)")
    parser.add_argument("--out", "-o", metavar="FILE.jsonl", help="write the structured JSONL record here")
    parser.add_argument("--force", action="store_true", help="replace an existing --out file")
    parser.add_argument("--sample-interval-s", type=float, default=0.5,
                        help="length of a throughput time slice in seconds (default 0.5)")
    parser.add_argument("--direct", action="store_true",
                        help="read with O_DIRECT (page cache bypassed every pass); falls back to eviction where unsupported")
    parser.add_argument("--cold-every-pass", action="store_true",
                        help="evict this client's cached pages of the files before every pass, not only pass 1")
    parser.add_argument("--no-evict", action="store_true",
                        help="never evict: read the page cache as found (the familiar client's behaviour)")
    parser.add_argument("--run-id", help="run id recorded in the JSONL (default bench-HOST-UTCTIME)")
    parser.add_argument("--role", choices=["colocated", "remote"], default="",
                        help="which side this node is: colocated (next to the data) or remote")
    parser.add_argument("--progress-interval-s", type=float, default=5.0,
                        help="seconds between progress lines on stderr during a pass (0: none; default 5)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress or notes on stderr")
    parser.add_argument("--json", action="store_true",
                        help="print the result as one JSON object instead of the familiar lines")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    from ..bench import run_bench, validate_options, walk_files
    from ..bench.record import check_out_path
    from ..bench.result import format_header
    from ._common import emit_json, progress

    validate_options(
        passes=args.passes, workers=args.workers, max_files=args.max_files, block_mib=args.block_mib,
        sample_interval_s=args.sample_interval_s, direct=args.direct, cold_every_pass=args.cold_every_pass,
        evict=not args.no_evict, role=args.role,
    )
    if args.out:
        check_out_path(args.out)
        from ..foundation.safeio import refuse_existing

        refuse_existing(args.out, "--out", args.force)
    manifest = walk_files(args.root, args.max_files)
    if manifest.truncation_note():  # loud, even with -q: the run does not read the whole dataset
        progress(f"costmodel bench: warning: {manifest.truncation_note()}")
    say = (lambda msg: None) if args.quiet else (lambda msg: progress(f"costmodel bench: {msg}"))
    if not args.json:
        sys.stdout.write(format_header(manifest.file_count, args.workers) + "\n")
        sys.stdout.flush()

    def on_pass(p) -> None:
        if not args.json:
            sys.stdout.write(p.line() + "\n")
            sys.stdout.flush()
        if p.eviction is not None and p.eviction.after is not None and p.eviction.after.fraction is not None:
            verdict = "worked" if p.eviction.worked else "DID NOT WORK"
            say(f"pass {p.pass_no}: evicted {p.eviction.files} files with posix_fadvise(DONTNEED); "
                f"{p.eviction.after.fraction:.1%} resident afterwards (mincore): {verdict}")
        if p.files_failed:
            say(f"pass {p.pass_no}: {p.files_failed} file(s) unreadable")
        if p.files_changed:
            say(f"pass {p.pass_no}: {p.files_changed} file(s) changed since the walk")

    old_term = signal.getsignal(signal.SIGTERM)
    try:
        signal.signal(signal.SIGTERM, _interrupt)
    except ValueError:  # not the main thread
        old_term = None
    try:
        result = run_bench(
            args.root, passes=args.passes, workers=args.workers, max_files=args.max_files,
            block_mib=args.block_mib, out=args.out, sample_interval_s=args.sample_interval_s,
            direct=args.direct, cold_every_pass=args.cold_every_pass, evict=not args.no_evict,
            run_id=args.run_id, role=args.role, manifest=manifest, on_pass=on_pass,
            on_progress=None if args.quiet else say, progress_interval_s=args.progress_interval_s,
        )
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
    for note in result.notes:
        if note != manifest.truncation_note():
            say(note)
    for u in result.unreadable[:20]:
        say(f"unreadable: {u['path']}: {u['error']}")
    for c in result.changed[:20]:
        if c.get("reason") == "mtime":
            say(f"changed: {c['path']} (pass {c['pass']}): modified since the walk (same size, new mtime)")
        else:
            say(f"changed: {c['path']} (pass {c['pass']}): walk said {c['expected_bytes']} bytes, read {c['read_bytes']}")
    if args.json:
        emit_json(result.to_dict())
    if result.interrupted:
        done = sum(1 for p in result.passes if not p.interrupted)
        where = f"; record in {args.out}" if args.out else ""
        progress(f"costmodel bench: interrupted: kept {done} complete pass(es){where}")
        return 130
    if args.out:
        say(f"wrote {args.out}")
    return 0
