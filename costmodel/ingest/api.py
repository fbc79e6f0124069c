"""``load`` / ``load_many``: sniff the format, call the reader, validate, apply run id and role."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..errors import IngestError
from ..schema import ROLES, Rejection, Run
from .registry import reader_for, reader_modules

SNIFF_BYTES = 64 * 1024


@dataclass
class IngestOptions:
    """Options shared by every reader.

    ``mapping``: source column -> (timeline column, unit or None), from ``--map``.
    ``pattern``: a regex with named groups for free-form logs (``--pattern``).
    ``strict``: a rejected row is fatal instead of counted.
    """

    fmt: str | None = None
    run_id: str | None = None
    role: str = ""
    mapping: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    pattern: str | None = None
    strict: bool = False


@dataclass
class IngestResult:
    runs: list[Run]
    rejected: list[Rejection]
    warnings: list[str]

    @property
    def rejected_rows(self) -> int:
        return len(self.rejected)

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of ``costmodel ingest --json``."""
        return {
            "runs": [r.to_dict() for r in self.runs],
            "rejected_rows": self.rejected_rows,
            "warnings": self.warnings,
        }


def _head(path: Path) -> str:
    with open(path, "rb") as fh:
        raw = fh.read(SNIFF_BYTES)
    return raw.decode("utf-8", errors="replace")


def sniff_format(path: str | Path) -> str:
    """The format name of ``path``, judged by content; raises IngestError when nothing matches."""
    p = Path(path)
    if not p.exists():
        raise IngestError("no such file", path=str(p))
    if p.is_dir():
        raise IngestError("is a directory; pass the files inside it", path=str(p))
    head = _head(p)
    if not head.strip():
        raise IngestError("file is empty; expected a benchmark output", path=str(p))
    for name, mod in reader_modules():
        if mod.sniff(head, p):
            return getattr(mod, "sniffed_format", lambda h, pth: name)(head, p)
    raise IngestError(
        "unknown format: not the read client's text, a training log (CSV/TSV/JSONL/Parquet/key=value), "
        "fio JSON or log, DLIO/MLPerf Storage, GPU telemetry or a known framework log; "
        "use --format, or --pattern with named groups",
        path=str(p),
    )


def load(path: str | Path, options: IngestOptions | None = None) -> list[Run]:
    """Read one file into one or more Runs. Raises IngestError on unusable input."""
    opts = options or IngestOptions()
    if opts.role not in ROLES:
        raise IngestError(f"role must be one of colocated, remote; got {opts.role!r}", field="--role")
    p = Path(path)
    if not p.exists():
        raise IngestError("no such file", path=str(p))
    fmt = opts.fmt or ("freeform" if opts.pattern else sniff_format(p))
    mod = reader_for(fmt)
    runs = mod.read(p, opts)
    if not runs:
        raise IngestError("no run could be read from the file", path=str(p))
    for r in runs:
        if opts.role:
            r.role = opts.role
            r.table["role"] = opts.role
        if opts.strict and r.rejected:
            first = r.rejected[0]
            raise IngestError(
                f"{len(r.rejected)} bad row(s) and --strict is set; first: {first.reason}",
                path=first.path,
                line=first.line,
                field=first.field,
            )
    return runs


def load_many(paths: Sequence[str | Path], options: IngestOptions | None = None) -> IngestResult:
    """Read several files; each makes one or more runs. Run ids are made unique (suffix ``#2``...)."""
    opts = options or IngestOptions()
    runs: list[Run] = []
    for p in paths:
        runs.extend(load(p, opts))
    seen: dict[str, int] = {}
    for r in runs:
        n = seen.get(r.run_id, 0) + 1
        seen[r.run_id] = n
        if n > 1:
            r.run_id = f"{r.run_id}#{n}"
            r.table["run_id"] = r.run_id
    rejected = [x for r in runs for x in r.rejected]
    warnings = [w for r in runs for w in r.warnings]
    warnings += [str(x) for x in rejected[:10]]
    return IngestResult(runs=runs, rejected=rejected, warnings=warnings)
