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
from __future__ import annotations

from .api import IngestOptions, IngestResult, load, load_many, sniff_format
from .registry import available_formats

__all__ = ["IngestOptions", "IngestResult", "load", "load_many", "sniff_format", "available_formats"]
