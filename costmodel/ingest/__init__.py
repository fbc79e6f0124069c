"""Ingestion: read benchmark outputs of many kinds into validated Timeline Runs.

Public API::

    from costmodel.ingest import load, load_many, IngestOptions
    runs = load("train.csv", IngestOptions(role="remote"))
    result = load_many(["a.csv", "b.txt"])  # IngestResult(runs, rejected_rows, warnings)

Each reader module in :data:`costmodel.ingest.registry.READERS` exposes
``FORMAT`` (its name), ``sniff(head: str, path: Path) -> bool`` (content-based;
``head`` is the first 64 KiB decoded as UTF-8 with replacement) and
``read(path: Path, options: IngestOptions) -> list[Run]``.
"""
from .api import IngestOptions as IngestOptions
from .api import IngestResult as IngestResult
from .api import load as load
from .api import load_many as load_many
from .api import sniff_format as sniff_format
from .registry import available_formats as available_formats
