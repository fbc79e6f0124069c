"""``costmodel bench``: an honest multi-pass read benchmark for training nodes.

Public API::

    from costmodel.bench import run_bench
    result = run_bench("/mnt/dataset", passes=3, workers=16, out="run.jsonl")
    result.to_dict()["passes"]      # per pass: bytes, elapsed_s, throughput, latency, page cache state
    print("\n".join(result.lines()))  # the familiar client's text output

Standard library only (it runs on training nodes); the JSONL it writes is read back by
``costmodel.ingest`` (format ``bench_jsonl``).
"""
from .pagecache import Eviction as Eviction
from .pagecache import Residency as Residency
from .pagecache import direct_support as direct_support
from .pagecache import evict as evict
from .pagecache import residency as residency
from .record import SCHEMA as SCHEMA
from .result import BenchResult as BenchResult
from .result import FileRead as FileRead
from .result import PassResult as PassResult
from .result import Sample as Sample
from .result import format_header as format_header
from .result import format_pass_line as format_pass_line
from .runner import run_bench as run_bench
from .runner import validate_options as validate_options
from .walk import FileEntry as FileEntry
from .walk import Manifest as Manifest
from .walk import manifest_sha256 as manifest_sha256
from .walk import walk_files as walk_files
