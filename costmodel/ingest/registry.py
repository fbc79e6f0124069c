"""The reader registry: format name -> module. Order is the sniffing order (most specific first)."""
from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from ..foundation.errors import IngestError

#: (format name, module path). Sniffing tries them in this order.
READERS: list[tuple[str, str]] = [
    ("timeline", "costmodel.ingest.timeline_reader"),
    ("tfevents", "costmodel.ingest.tfevents"),
    ("bench_jsonl", "costmodel.ingest.benchjsonl"),
    ("benchtext", "costmodel.ingest.benchtext"),
    ("trainlog", "costmodel.ingest.trainlogs"),
    ("progress_bar", "costmodel.ingest.progressbar"),
    ("torch_trace", "costmodel.ingest.torchprof"),
    ("fio_json", "costmodel.ingest.fio"),
    ("fio_log", "costmodel.ingest.fiolog"),
    ("dlio", "costmodel.ingest.dlio"),
    ("gpu", "costmodel.ingest.gpu"),
    ("sysstat", "costmodel.ingest.sysstat"),
    ("blockcache", "costmodel.ingest.blockcache"),
    ("mlflow", "costmodel.ingest.mlflow"),
    ("cumclock", "costmodel.ingest.cumclock"),
    ("freeform", "costmodel.ingest.freeform"),
    ("tabular", "costmodel.ingest.tabular"),
]


def _module(modpath: str) -> ModuleType | None:
    if importlib.util.find_spec(modpath) is None:
        return None
    return importlib.import_module(modpath)


def reader_modules() -> list[tuple[str, ModuleType]]:
    """The reader modules that exist, in sniffing order."""
    out = []
    for name, modpath in READERS:
        mod = _module(modpath)
        if mod is not None:
            out.append((name, mod))
    return out


def available_formats() -> list[str]:
    """Names accepted by ``--format`` (a module may offer several sub-formats via ``FORMATS``)."""
    names: list[str] = []
    for name, mod in reader_modules():
        names.extend(getattr(mod, "FORMATS", [name]))
    return names


def reader_for(fmt: str) -> ModuleType:
    """The reader module for format ``fmt``; raises IngestError listing valid names."""
    for name, mod in reader_modules():
        if fmt == name or fmt in getattr(mod, "FORMATS", ()):
            return mod
    raise IngestError(f"unknown format {fmt!r}; expected one of: {', '.join(available_formats())}", field="--format")
