"""One side of a comparison (or the inputs of ``fit``) read as jobs: rank logs -> job-level Runs.

``load_side(paths, role)`` is what ``fit``, ``compare`` and the report call. Each path may be a
file, a folder, or an object-store URL (file or prefix). Rank logs found in one folder (or named by
``--job NAME=GLOB``) become one job: one job-level Run (``format`` ``job``, ``job_id`` set,
``rank`` -1) whose table is the per-step job series of :func:`costmodel.jobs.aggregate.job_series`.
Other runs stay as they are. Several jobs of one role are its repetitions.
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..foundation.errors import IngestError
from ..foundation.schema import Run, to_timeline
from .aggregate import (
    JobTables,
    detect_throughput_mode,
    incomplete_ranks,
    job_series,
    tables_from_runs,
)
from .discover import JobSpec, expand_job_spec, group_runs
from .stragglers import find_stragglers


@dataclass
class Side:
    """Runs to analyse (job-level and single), job summaries, reduced tables, per-file provenance."""

    runs: list[Run] = field(default_factory=list)
    jobs: list[dict[str, Any]] = field(default_factory=list)
    tables: dict[str, JobTables] = field(default_factory=dict)
    #: per input file: path (URL for object-store inputs), format, run_ids, job_id, sha256, size_bytes
    files: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    rejected_rows: int = 0


def job_summary(tabs: JobTables, mode: str, mode_evidence: str, facts: dict[str, Any],
                strag: dict[str, Any]) -> dict[str, Any]:
    """The ``jobs`` element of ``fit``/``compare --json`` for one job."""
    return {
        "job_id": tabs.job_id,
        "role": tabs.role,
        "ranks": len(tabs.ranks_all),
        "rank_ids": [int(r) for r in tabs.ranks_all],
        "ranks_incomplete": incomplete_ranks(tabs),
        "steps": len(tabs.steps),
        "steps_scaled": int(facts.get("steps_scaled", 0)),
        "throughput_column": tabs.throughput_column,
        "rank_throughput": mode,
        "rank_throughput_evidence": mode_evidence,
        # one model: a synchronous job steps at its slowest rank (global samples over that step time);
        # the sum of the ranks' own figures is the evidence beside it (costmodel.jobs.aggregate)
        "rank_clock": facts.get("rank_clock"),
        "rank_clock_evidence": facts.get("rank_clock_evidence"),
        "job_throughput": facts.get("job_throughput"),
        "ranks_throughput_sum": facts.get("ranks_throughput_sum"),
        "stragglers": [dict(s) for s in strag["stragglers"]],
        "straggler_lost_s": float(strag["straggler_lost_s"]),
        "straggler_lost_fraction": float(strag["straggler_lost_fraction"]),
        "held_back_steps": int(strag["held_back_steps"]),
        "held_back_by": strag["held_back_by"],
        "straggler_rule": {"threshold": strag["threshold"], "persistence": strag["persistence"],
                           "hold_threshold": strag["hold_threshold"], "bin_steps": tabs.bin_steps},
        "rejected_rows": int(tabs.rejected_rows),
        "engine": tabs.engine,
        "reader": tabs.reader or tabs.engine,
        "notes": list(strag["notes"]) + list(tabs.warnings),
    }


def finish_job(tabs: JobTables, rank_throughput: str | None = None) -> tuple[Run, dict[str, Any]]:
    """The job-level Run and the job summary from a job's reduced tables."""
    mode, ev = detect_throughput_mode(tabs, rank_throughput)
    table, facts = job_series(tabs, mode)
    try:
        strag = find_stragglers(tabs)
    finally:
        if tabs.close is not None:
            tabs.close()
        tabs.others_max = tabs.close = None  # release the rows (the report keeps only the small tables)
    summary = job_summary(tabs, mode, ev, facts, strag)
    run = Run(run_id=tabs.job_id, table=to_timeline(table, tabs.job_id, tabs.role), format="job",
              source=os.path.commonpath(list(tabs.sources.values())) if tabs.sources else tabs.job_id,
              role=tabs.role, job_id=tabs.job_id, rank=-1,
              metadata={"job": {k: summary[k] for k in ("ranks", "steps", "steps_scaled", "rank_throughput",
                                                        "straggler_lost_s", "held_back_steps")},
                        "rank_sources": {str(k): v for k, v in sorted(tabs.sources.items())[:20]}})
    return run, summary


def _files_under(path: str) -> list[str]:
    p = Path(path)
    if p.is_dir():
        return sorted(str(f) for f in p.rglob("*") if f.is_file() and not f.name.startswith("._") and f.name != ".DS_Store")
    return [str(p)]


def _skip_reason(f: Path, opts: Any) -> str | None:
    """Why ``ingest`` would skip file ``f`` in a folder (as costmodel.ingest.api.expand_dir), else None."""
    from ..ingest.api import _head, not_an_output
    from ..ingest.registry import reader_modules

    if opts.fmt or opts.pattern:
        return None
    try:
        head = _head(f)
    except OSError as exc:
        return f"unreadable: {exc}"
    why = "empty" if not head.strip() else not_an_output(head, f)
    if why:
        return why.split(";")[0]
    if not any(mod.sniff(head, f) for _n, mod in reader_modules()):
        return "not a known benchmark output format"
    return None


def _fleet_groups(
    paths: Sequence[str], opts: Any, force: bool = False
) -> tuple[dict[str, tuple[list[str], dict]], list[str], list[str]]:
    """Groups of plain per-step CSV rank logs that the DuckDB engine takes (big, or with a rank column,
    or every group when ``force``): job name -> (files, plan); the files left for the ordinary readers;
    notes on skipped files."""
    from ..foundation.safeio import refusal
    from . import fleet

    if not force and not fleet.duckdb_available():
        return {}, list(paths), []
    groups: dict[str, tuple[list[str], dict]] = {}
    rest: list[str] = []
    notes: list[str] = []
    for p in paths:
        if Path(p).is_dir():
            # cheap listing first: only the files no fleet group takes are sniffed like `ingest` does
            files = sorted(str(f) for f in Path(p).rglob("*") if f.is_file())
        elif refusal(p) is not None:
            rest.append(str(p))  # a FIFO, device, link loop or missing file: never opened here, the readers refuse it
            continue
        else:
            files = [str(p)]
        by_dir: dict[str, list[str]] = {}
        for f in files:
            if Path(f).name.startswith("._") or Path(f).name == ".DS_Store":
                continue
            by_dir.setdefault(str(Path(f).parent), []).append(f)
        claimed: set[str] = set()
        for d, fs in by_dir.items():
            plan = fleet.usable(fs)
            if plan is None:
                continue
            size = sum(os.path.getsize(f) for f in fs)
            ranked = "rank" in plan or len(fs) >= 2
            big = size >= fleet.FLEET_BYTES_ALWAYS or (size >= fleet.FLEET_BYTES and not plan.get("unused"))
            if ranked and (force or big or "rank" in plan):
                if plan.get("unused"):
                    notes.append(f"{d}: columns {', '.join(plan['unused'])} not aggregated by the DuckDB engine "
                                 "(--engine pandas aggregates them)")
                name = Path(d).name if len(fs) > 1 or "rank" not in plan else Path(fs[0]).stem
                base, n = name, 2
                while name in groups:
                    name, n = f"{base}#{n}", n + 1
                groups[name] = (fs, plan)
                claimed.update(fs)
        if not Path(p).is_dir():
            rest.extend(f for f in files if f not in claimed)
        elif not claimed:
            rest.append(str(p))  # the folder as a whole: ingest's own folder rules
        else:
            from ..ingest.api import linked_folders

            notes += linked_folders(Path(p))
            for f in files:
                if f in claimed:
                    continue
                why = _skip_reason(Path(f), opts)
                if why:
                    notes.append(f"{f}: skipped ({why})")
                else:
                    rest.append(f)
    return groups, rest, notes


#: the engines ``load_side`` knows (``--engine``, ``COSTMODEL_ENGINE``)
ENGINES = ("auto", "pandas", "duckdb", "dask")


def _digest(hashes: dict[str, Any], f: str) -> str:
    """The file's SHA-256: computed in the engine's reading pass, on the pool, or now."""
    from ..foundation.util import sha256_file

    h = hashes.get(f)
    if h is None:
        return sha256_file(f)
    return h if isinstance(h, str) else h.result()


_SKIPPED = re.compile(r"^(?P<path>.+?): skipped \((?P<why>.*)\)$")


def skipped_files(warnings: Sequence[str]) -> list[dict[str, str]]:
    """Every input file a side left out, as ``{path, reason}``, from its ``<path>: skipped (<why>)`` notes."""
    out = []
    for w in warnings:
        m = _SKIPPED.match(w)
        if m:
            out.append({"path": m.group("path"), "reason": m.group("why")})
    return out


def attach_skipped(side: Side) -> None:
    """Give each job summary the files left out of its folder (a binary or empty rank log, or a corrupt
    one, vanished from a 400-rank job without a word): ``skipped_files`` (every one, path and reason) and
    ``skipped_count``."""
    skipped = skipped_files(side.warnings)
    for summary in side.jobs:
        tabs = side.tables.get(summary.get("job_id", ""))
        sources = list(tabs.sources.values()) if tabs is not None and tabs.sources else []
        if not sources:
            continue
        folder = os.path.commonpath([os.path.dirname(str(x)) for x in sources]) if len(sources) > 1 else \
            os.path.dirname(str(sources[0]))
        mine = [x for x in skipped if os.path.dirname(x["path"]) == folder
                or os.path.dirname(x["path"]).startswith(folder.rstrip("/") + "/")]
        summary["skipped_files"] = mine
        summary["skipped_count"] = len(mine)


def all_failures(failed: list[IngestError], shown_at_most: int = 10) -> IngestError:
    """One IngestError naming every file that could not be read (the first ``shown_at_most`` with their reasons, then
    how many more): three corrupt rank logs among 2,000 are named at once, not one per rerun."""
    if len(failed) == 1:
        return failed[0]
    first = "; ".join(str(e) for e in failed[:shown_at_most])
    more = f"; and {len(failed) - shown_at_most:,} more" if len(failed) > shown_at_most else ""
    return IngestError(f"{len(failed):,} files cannot be read: {first}{more}")


def load_side(paths: Sequence[str], role: str = "", options: Any = None, job_specs: Sequence[JobSpec] = (),
              rank_throughput: str | None = None, engine: str = "auto", hash_files: bool = False) -> Side:
    """Read one side's inputs as jobs and single runs (see the module docstring).

    ``engine``: ``auto`` (DuckDB for big CSV rank logs when installed, pandas otherwise), ``pandas``,
    ``duckdb`` or ``dask``. ``hash_files`` fills each file's SHA-256 (the report's provenance; '' otherwise).
    Raises IngestError for unreadable inputs and AnalysisError when a job's
    throughput mode is ambiguous without ``rank_throughput``.
    """
    from ..ingest import IngestOptions, load
    from ..ingest.api import expand_dir, merge_gpu, unique_run_ids
    from .storage import LocalCopies

    opts = options or IngestOptions(role=role)
    side = Side()
    if engine == "auto":  # the environment may send the fleet to a cluster (the report's kernel reads it)
        engine = os.environ.get("COSTMODEL_ENGINE", "auto") or "auto"
        if engine not in ENGINES:
            raise IngestError(f"COSTMODEL_ENGINE={engine!r}: expected one of {', '.join(ENGINES)}",
                              field="COSTMODEL_ENGINE")
    url_groups: dict[str, tuple[list[str], dict]] = {}
    if engine == "dask":
        # object-store prefixes of rank logs are read by the workers themselves: listed here, never downloaded
        from .distributed import url_fleet_groups
        from .storage import is_url

        url_groups, url_rest = url_fleet_groups([p for p in paths if is_url(p)])
        paths = [p for p in paths if not is_url(p)] + url_rest
    with LocalCopies() as copies:
        spec_files: dict[str, str] = {}
        for spec in job_specs:
            for f in copies.localize(expand_job_spec(spec)):
                spec_files[f] = spec.name
        local = copies.localize(list(paths))
        if engine in ("auto", "duckdb", "dask"):
            fleet_groups, rest, skipped = _fleet_groups(local, opts, force=engine != "auto")
            side.warnings += skipped
        else:
            fleet_groups, rest = {}, list(local)
        for name, grp in url_groups.items():
            key, n = name, 2
            while key in fleet_groups:
                key, n = f"{name}#{n}", n + 1
            fleet_groups[key] = grp
        # the fleet engine's fast path hashes each file in its reading pass (JobTables.sha256); files it did
        # not read (the DuckDB query, Dask) are hashed on a thread pool (hashlib releases the GIL)
        from concurrent.futures import Future, ThreadPoolExecutor

        from ..foundation.util import sha256_file

        pool = ThreadPoolExecutor(max_workers=2) if hash_files else None
        hashes: dict[str, str | Future[str]] = {}
        sizes: dict[str, int] = {}
        try:
            runs: list[Run] = []
            per_file: list[tuple[str, list[Run]]] = []
            failed: list[IngestError] = []
            for p in rest:
                if Path(p).is_dir():
                    found, notes = expand_dir(Path(p), opts)
                    side.warnings += notes
                    targets = [str(f) for f in found]
                else:
                    targets = [p]
                for f in targets:
                    try:
                        rs = load(f, opts)
                    except IngestError as exc:  # every unreadable file is named at once, not only the first
                        failed.append(exc)
                        continue
                    runs.extend(rs)
                    per_file.append((f, rs))
            for f in spec_files:
                try:
                    rs = load(f, opts)
                except IngestError as exc:
                    failed.append(exc)
                    continue
                runs.extend(rs)
                per_file.append((f, rs))
            if failed:
                raise all_failures(failed)
            runs, merge_notes = merge_gpu(runs) if runs else (runs, [])
            side.warnings += merge_notes
            for r in runs:
                r.source = copies.url_of(r.source)
            explicit = {copies.url_of(f): n for f, n in spec_files.items()}
            grouping = group_runs(runs, explicit)
            side.warnings += grouping.notes
            job_runs: list[Run] = []
            for name, members in grouping.jobs.items():
                tabs = tables_from_runs(name, members, role=role)
                jr, summary = finish_job(tabs, rank_throughput)
                job_runs.append(jr)
                side.jobs.append(summary)
                side.tables[name] = tabs
            for name, (files, plan) in fleet_groups.items():
                if engine == "dask":
                    from .distributed import tables_from_csv_dask

                    tabs = tables_from_csv_dask(name, files, plan, role=role, hash_files=hash_files)
                else:
                    from .fleet import tables_from_csv

                    tabs = tables_from_csv(name, files, plan, role=role, hash_files=hash_files)
                if pool is not None:
                    hashes.update({f: tabs.sha256.get(f) or pool.submit(sha256_file, f) for f in files})
                sizes.update(tabs.file_bytes)
                tabs.sources = {r: copies.url_of(f) for r, f in tabs.sources.items()}
                side.warnings += tabs.warnings
                jr, summary = finish_job(tabs, rank_throughput)
                job_runs.append(jr)
                side.jobs.append(summary)
                side.tables[name] = tabs
                side.rejected_rows += tabs.rejected_rows
                for f in files:
                    per_file.append((f, [jr]))  # noqa: PERF401  kept as a readable loop
            side.runs = job_runs + grouping.singles
            unique_run_ids(side.runs)
            for f, rs in per_file:
                side.files.append({"path": copies.url_of(f), "format": ",".join(sorted({r.format for r in rs})),
                                   "run_ids": [r.run_id for r in rs], "job_id": rs[0].job_id if rs else "",
                                   "sha256": _digest(hashes, f) if hash_files else "",
                                   "size_bytes": sizes[f] if f in sizes else os.path.getsize(f),
                                   "predicted": any(bool(r.metadata.get("predicted")) for r in rs)})
        except BaseException:
            if pool is not None:  # do not keep hashing gigabytes for a command that failed
                pool.shutdown(wait=False, cancel_futures=True)
            raise
        if pool is not None:
            pool.shutdown(wait=True)
        side.rejected_rows += sum(len(r.rejected) for r in runs)
        side.warnings += [w for r in runs for w in r.warnings]
        side.warnings = [copies.in_text(w) for w in side.warnings]
    attach_skipped(side)
    if not side.runs:
        raise IngestError("no benchmark output among the files given", path=str(paths[0]) if paths else None)
    return side
