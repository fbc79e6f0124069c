"""``costmodel bench``: an honest multi-pass read benchmark for training nodes.

Public API::

    from costmodel.bench import run_bench
    result = run_bench("/mnt/dataset", passes=3, workers=16, out="run.jsonl")
    result.to_dict()["passes"]      # per pass: bytes, elapsed_s, throughput, latency, page cache state
    print("\\n".join(result.lines()))  # the familiar client's text output

Standard library only (it runs on training nodes); the JSONL it writes is read back by
``costmodel.ingest`` (format ``bench_jsonl``).
"""
from __future__ import annotations

from .pagecache import Eviction, Residency, direct_support, evict, residency
from .record import SCHEMA
from .result import BenchResult, FileRead, PassResult, Sample, format_header, format_pass_line
from .runner import run_bench, validate_options
from .walk import FileEntry, Manifest, manifest_sha256, walk_files

__all__ = [
    "run_bench",
    "validate_options",
    "walk_files",
    "Manifest",
    "FileEntry",
    "manifest_sha256",
    "BenchResult",
    "PassResult",
    "Sample",
    "FileRead",
    "format_header",
    "format_pass_line",
    "evict",
    "residency",
    "direct_support",
    "Eviction",
    "Residency",
    "SCHEMA",
]
