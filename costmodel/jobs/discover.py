"""Which logs are ranks of which job: ranks from file names and content, jobs from folders or ``--job``.

Pure functions on paths and Runs. A *job* is the set of rank (or node) logs of one synchronous
training job; ranks of one job are never repetitions of each other (see :mod:`costmodel.jobs.aggregate`).

Rank of a log, first match wins:

1. the reader's ``metadata["rank"]`` (DLIO ``{rank}_output.json``, ``Rank R step S ...`` log lines);
2. the file name: ``rank7``, ``rank_7``, ``rank-7``; DLIO ``7_output.json``; ``node007``, ``worker7``,
   ``host7`` (in the file name, else in the parent folder's name);
3. a ``rank`` / ``node_rank`` / ``global_rank`` column in a CSV (read by the fleet engine).

Job of a ranked log: an explicit ``--job NAME=GLOB`` wins; otherwise the folder holding the file
(a file that holds several ranks, like a DLIO log, is its own job). A group becomes a job when it
holds at least two distinct ranks; a rank seen twice in one job is an error naming both files.
"""
from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ..foundation.errors import IngestError

_NAME_PATTERNS = (
    re.compile(r"(?:^|[^a-z0-9])(?:global_?)?rank[_-]?(\d+)(?:[^0-9]|$)", re.IGNORECASE),
    re.compile(r"^(\d+)_output\b", re.IGNORECASE),  # DLIO {rank}_output.json
    re.compile(r"(?:^|[^a-z0-9])node[_-]?(\d+)(?:[^0-9]|$)", re.IGNORECASE),
    re.compile(r"(?:^|[^a-z0-9])worker[_-]?(\d+)(?:[^0-9]|$)", re.IGNORECASE),
    re.compile(r"(?:^|[^a-z0-9])host[_-]?(\d+)(?:[^0-9]|$)", re.IGNORECASE),
)
#: CSV columns that name the rank of each row
RANK_COLUMNS = ("rank", "global_rank", "node_rank", "node", "worker", "host_rank")


def rank_from_name(path: str) -> int | None:
    """The rank in a file name (``rank7.csv``, ``7_output.json``, ``node007.log``), else in its folder's
    name (``node007/steps.csv``); None when neither names one."""
    p = PurePosixPath(str(path).replace("\\", "/"))
    for part in (p.name, p.parent.name):
        for pat in _NAME_PATTERNS:
            m = pat.search(part)
            if m:
                return int(m.group(1))
    return None


def rank_of_run(run: Any) -> int | None:
    """The rank of a Run: ``metadata['rank']`` from its reader, else from its source's file name."""
    r = run.metadata.get("rank") if isinstance(run.metadata, dict) else None
    if r is not None:
        try:
            return int(r)
        except (TypeError, ValueError):
            pass
    if getattr(run, "format", "") in ("nvidia_smi", "dcgmi", "dcgm_exporter"):
        return None  # a GPU index is not a rank
    return rank_from_name(run.source)


@dataclass
class JobSpec:
    """``--job [ROLE:]NAME=GLOB``: the files matching GLOB are the ranks of job NAME."""

    name: str
    pattern: str
    role: str = ""

    def matches(self, path: str) -> bool:
        return fnmatch.fnmatch(str(path), self.pattern) or fnmatch.fnmatch(PurePosixPath(str(path)).name, self.pattern)


def parse_job_spec(text: str) -> JobSpec:
    """Parse ``[ROLE:]NAME=GLOB`` (ROLE colocated or remote). Raises IngestError naming ``--job``."""
    if "=" not in text:
        raise IngestError(f"--job expects [ROLE:]NAME=GLOB (e.g. remote:run1='logs/run1/rank*.csv'), got {text!r}",
                          field="--job")
    head, pattern = text.split("=", 1)
    role = ""
    if ":" in head and head.split(":", 1)[0] in ("colocated", "remote"):
        role, head = head.split(":", 1)
    if not head or not pattern:
        raise IngestError(f"--job expects [ROLE:]NAME=GLOB with a name and a pattern, got {text!r}", field="--job")
    return JobSpec(name=head, pattern=pattern, role=role)


def expand_job_spec(spec: JobSpec) -> list[str]:
    """The files a ``--job`` pattern names (local glob, or an object-store glob via fsspec), sorted.
    Raises IngestError when nothing matches."""
    from .storage import glob_paths

    files = glob_paths(spec.pattern)
    if not files:
        raise IngestError(f"--job {spec.name}: no file matches {spec.pattern!r}", field="--job")
    return files


def _group_key(run: Any) -> str:
    p = PurePosixPath(str(run.source).replace("\\", "/"))
    return str(p.parent)


@dataclass
class Grouping:
    """Runs split into jobs (job_id -> ranked runs, in rank order) and runs that are not ranks of a job."""

    jobs: dict[str, list[Any]] = field(default_factory=dict)
    singles: list[Any] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _job_name(key: str, taken: set[str]) -> str:
    parts = [x for x in PurePosixPath(key).parts if x not in ("/", ".")]
    for k in range(1, len(parts) + 1):
        name = "/".join(parts[-k:])
        if name not in taken:
            return name
    name, n = key or "job", 2
    while f"{name}#{n}" in taken:
        n += 1
    return f"{name}#{n}"


def group_runs(runs: Sequence[Any], explicit: dict[str, str] | None = None) -> Grouping:
    """Split ``runs`` into jobs and single runs, and set each Run's ``rank`` and ``job_id`` in place.

    ``explicit`` maps a source path to a job name (from ``--job``); those runs form that job whatever
    their folder. A group (same folder, or same multi-rank file) with two or more distinct ranks is a
    job named after the folder (its last path parts, made unique). Raises IngestError when one job holds
    the same rank twice.
    """
    explicit = explicit or {}
    out = Grouping()
    groups: dict[str, list[Any]] = {}
    by_source: dict[str, int] = {}
    for r in runs:
        by_source[r.source] = by_source.get(r.source, 0) + 1
    for r in runs:
        rank = rank_of_run(r)
        if rank is not None:
            r.rank = rank
        if r.source in explicit:
            groups.setdefault("\0" + explicit[r.source], []).append(r)
        elif rank is not None:
            key = r.source if by_source[r.source] > 1 else _group_key(r)
            groups.setdefault(key, []).append(r)
        else:
            out.singles.append(r)
    taken: set[str] = set()
    for key, members in groups.items():
        is_explicit = key.startswith("\0")
        ranks = [m.rank for m in members]
        if not is_explicit and len(set(ranks)) < 2:
            out.singles.extend(members)
            continue
        if is_explicit:
            unranked = [m for m in members if m.rank < 0]
            if unranked:
                used = {m.rank for m in members if m.rank >= 0}
                nxt = 0
                for m in unranked:
                    while nxt in used:
                        nxt += 1
                    m.rank = nxt
                    used.add(nxt)
                out.notes.append(f"job {key[1:]}: no rank in the name or content of {len(unranked)} file(s); "
                                 f"ranks given in file order ({', '.join(m.source for m in unranked[:3])}"
                                 f"{' ...' if len(unranked) > 3 else ''})")
        seen: dict[int, Any] = {}
        for m in members:
            if m.rank in seen:
                raise IngestError(f"rank {m.rank} appears twice in one job ({seen[m.rank].source} and {m.source}); "
                                  "put each job's rank logs in its own folder, or name jobs with --job NAME=GLOB",
                                  path=m.source)
            seen[m.rank] = m
        name = key[1:] if is_explicit else _job_name(key, taken)
        taken.add(name)
        for m in members:
            m.job_id = name
        out.jobs[name] = sorted(members, key=lambda m: m.rank)
    others = [r.source for r in out.singles if r.rank >= 0]
    if others:
        out.notes.append(f"{len(others)} run(s) carry a rank but no other rank of their job was given; "
                         f"each is analysed as its own run: {', '.join(others[:3])}{' ...' if len(others) > 3 else ''}")
    return out


def assign_ranks(runs: Sequence[Any]) -> list[str]:
    """Set ``rank`` and ``job_id`` on Runs in place (as :func:`group_runs` would) without failing:
    for ``ingest``, where a rank seen twice in one folder leaves those runs without a job (noted)."""
    try:
        return group_runs(runs).notes
    except IngestError as exc:
        for r in runs:
            r.job_id = ""
            rk = rank_of_run(r)
            r.rank = -1 if rk is None else rk
        return [f"runs not grouped into jobs: {exc}"]


def with_ranks(options: Any = None) -> Any:
    """``options`` (an :class:`~costmodel.ingest.IngestOptions`, default ones when None) with ``annotate`` set to
    :func:`~costmodel.jobs.discover.assign_ranks`: ``ingest.load_many`` (and the streamed ingest) then give each run
    its rank and job, as ``costmodel ingest`` shows them. Rank assignment is called from here: ingest imports no jobs."""
    import dataclasses

    from ..ingest import IngestOptions

    return dataclasses.replace(options or IngestOptions(), annotate=assign_ranks)


def load_many(paths: Sequence[str | Path], options: Any = None) -> Any:
    """:func:`costmodel.ingest.load_many` with each run's rank and job (:func:`with_ranks`); an IngestResult."""
    from ..ingest import load_many as ingest_many

    return ingest_many(paths, with_ranks(options))
