"""``load`` / ``load_many``: sniff the format, call the reader, validate, apply run id and role.

``load(path)`` reads one file (every reader validates through :func:`costmodel.ingest.validate.build_run`).
``load_many(paths)`` also reads folders recursively (:func:`expand_dir`), skips macOS metadata files,
merges GPU telemetry onto the training runs by time weighting (:func:`costmodel.ingest.gpumerge.merge_gpu`),
makes run ids unique, runs ``options.annotate`` (each run's rank and job, when ``costmodel.jobs.with_ranks`` gave it)
and collects rejections and warnings. Any failure is an
:class:`~costmodel.foundation.errors.IngestError` naming the file (and line or field): readers meeting content
they do not expect still fail that way.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..foundation import limits
from ..foundation.errors import IngestError
from ..foundation.safeio import input_kind, open_input, refusal
from ..foundation.schema import ROLES, Rejection, Run
from .gpumerge import GPU_FORMATS as GPU_FORMATS
from .gpumerge import merge_gpu as merge_gpu
from .registry import reader_for, reader_modules

SNIFF_BYTES = 64 * 1024


@dataclass
class IngestOptions:
    """Options shared by every reader.

    ``mapping``: source column -> (timeline column, unit or None), from ``--map``.
    ``pattern``: a regex with named groups for free-form logs (``--pattern``).
    ``strict``: a rejected row (or bad cell) is fatal instead of counted.
    ``batch_size`` / ``tokens_per_step``: derive throughput from step time (:mod:`costmodel.ingest.derive`).
    """

    fmt: str | None = None
    run_id: str | None = None
    role: str = ""
    mapping: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    pattern: str | None = None
    strict: bool = False
    #: samples per step (global batch, all ranks): samples_per_s = batch_size / step_time_s (``--batch-size``)
    batch_size: float | None = None
    #: tokens per step: tokens_per_s = tokens_per_step / step_time_s (``--tokens-per-step``)
    tokens_per_step: float | None = None
    #: what a row is when rows are every N steps: ``sampled`` (that step's own figures) or ``averaged`` (means
    #: over the steps since the last row); None: from the format or the clock (:mod:`costmodel.ingest.cadence`)
    rows: str | None = None
    #: a step run on the runs of :func:`load_many` once GPU telemetry is merged and run ids are unique, returning
    #: notes for the warnings; ``costmodel.jobs.with_ranks`` sets it to each run's rank and job (ingest imports no jobs)
    annotate: Callable[[list[Run]], list[str]] | None = None


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
        runs = []
        for r in self.runs:
            d = r.to_dict()
            # per column: bad cells kept as missing (count, first lines, first reason), beside rejected_rows
            d["missing_cells"] = dict(r.metadata.get("missing_cells") or {})
            runs.append(d)
        return {
            "runs": runs,
            "rejected_rows": self.rejected_rows,
            "warnings": self.warnings,
        }


#: a log may open with a long preamble (a modded-nanogpt speedrun log prints its whole training script first):
#: readers that set ``DEEP_SNIFF = True`` are tried on this much of the file when its head matched no reader
DEEP_SNIFF_BYTES = 4 << 20


def _head(path: Path, size: int = SNIFF_BYTES) -> str:
    with open_input(path, "rb") as fh:  # refuses FIFOs, devices, sockets, link loops (never blocks)
        raw = fh.read(size)
    return raw.decode("utf-8-sig", errors="replace")  # a byte-order mark is not content


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
    why = not_an_output(head, p)
    if why:
        raise IngestError(why, path=str(p))
    for name, mod in reader_modules():
        if mod.sniff(head, p):
            if name == "tabular":  # a JSON document cut short must not be read as a one-column CSV
                truncated = truncated_json(head, p)
                if truncated:
                    raise IngestError(truncated, path=str(p))
            sniffed = getattr(mod, "sniffed_format", None)
            return sniffed(head, p) if sniffed is not None else name
    if p.stat().st_size > SNIFF_BYTES:
        deep = _head(p, DEEP_SNIFF_BYTES)
        for name, mod in reader_modules():
            if getattr(mod, "DEEP_SNIFF", False) and mod.sniff(deep, p):
                return name
    truncated = truncated_json(head, p)
    if truncated:
        raise IngestError(truncated, path=str(p))
    raise IngestError(
        "unknown format: not the read client's text, a training log (CSV/TSV/JSONL/Parquet/key=value), "
        "fio JSON or log, DLIO/MLPerf Storage, GPU or system telemetry or a known framework log; "
        + unknown_format_hint(head),
        path=str(p),
    )


#: words in a file -> the known formats they suggest (closest formats for the "unknown format" error)
_FORMAT_WORDS: list[tuple[str, str]] = [
    ("iteration", "megatron"), ("elapsed time per iteration", "megatron"), ("global batch size", "megatron"),
    ("train_step_timing", "nemo"), ("samplespersec", "deepspeed"), ("global_step", "deepspeed"), ("tps", "torchtitan"),
    ("mfu", "torchtitan"), ("log_history", "hf_trainer"), ("traceevents", "torch_trace"), ("speed:", "speed"),
    ("samples/sec", "speed"), ("throughput", "throughput"), ("global_step/sec", "tf"), (":::mllog", "mllog"),
    ("fio", "fio_json"), ("clat", "fio_json"), ("rkb/s", "iostat_x"), ("r_await", "iostat_x"), ("dev", "sar_d"),
    ("pwr", "nvidia_smi_dmon"), ("utilization.gpu", "nvidia_smi"), ("dsk/", "dstat"), ("au_percentage", "dlio"),
    ("step", "tabular"), ("loss", "tabular"), ("epoch", "tabular"),
]


def unknown_format_hint(head: str) -> str:
    """What to try for a file of no known format: the closest known formats (by the words it holds) and a
    ``--map`` or ``--pattern`` built from its own first lines."""

    low = head[:65536].lower()
    scores: dict[str, int] = {}
    for word, fmt in _FORMAT_WORDS:
        if word in low:
            scores[fmt] = scores.get(fmt, 0) + 1
    lines = [ln.strip() for ln in head.splitlines() if ln.strip() and not ln.lstrip().startswith("#")][:50]
    first = lines[0] if lines else ""
    stripped = head.lstrip()
    if stripped.startswith(("{", "[")):
        for fmt in ("hf_trainer", "torch_trace", "fio_json", "superbench", "jsonl"):
            scores.setdefault(fmt, 0)
    closest = sorted(scores, key=lambda f: -scores[f])[:4] or ["tabular", "freeform"]
    parts = [f"closest known formats: {', '.join(closest)} (try --format NAME)"]
    delim = next((d for d in (",", "\t", ";", "|") if first.count(d) >= 1), None)
    if delim and not stripped.startswith(("{", "[")):
        cols = [c.strip().strip('"') for c in first.split(delim) if c.strip()][:6]
        if cols:
            parts.append("a table whose columns have other names: name them with --map, e.g. "
                         + " ".join(f"--map '{c}=COLUMN[:UNIT]'" for c in cols[:2])
                         + " (COLUMN: step, t_s, samples_per_s, tokens_per_s, step_time_s, ...)")
    numeric = next((ln for ln in lines if re.search(r"\d", ln) and re.search(r"[A-Za-z]{3,}", ln)), None)
    if numeric and not stripped.startswith(("{", "[")):
        example = _pattern_from_line(numeric)
        if example:
            parts.append(f"a log line such as {numeric[:80]!r}: read it with --pattern '{example}' "
                         "(rename the groups to what the numbers are: step, samples_per_s, step_time_ms, ...)")
    if len(parts) == 1:
        parts.append("or give --pattern with named groups (step, samples_per_s, step_time_ms, ...) or --map SRC=COLUMN")
    return "; ".join(parts)


def _pattern_from_line(line: str) -> str | None:
    """A --pattern for ``line``: its text with the first number as (?P<step>...) and the last as (?P<samples_per_s>...)."""
    nums = list(re.finditer(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", line))
    if len(nums) < 2:
        return None
    step_k = next((k for k, m in enumerate(nums) if "." not in m.group(0)
                   and re.search(r"(?:step|iter|iteration|it|batch)\W*$", line[:m.start()], re.IGNORECASE)),
                  next((k for k, m in enumerate(nums) if "." not in m.group(0)), 0))
    out, pos = [], 0
    for k, m in enumerate(nums):
        out.append(re.escape(line[pos:m.start()]).replace("\\ ", " "))
        if k == step_k:
            out.append(r"(?P<step>\d+)")
        elif k == len(nums) - 1:
            out.append(r"(?P<samples_per_s>[\d.]+)")
        else:
            out.append(r"[-\d.eE+]+")
        pos = m.end()
    return "".join(out)


#: files up to this size that look like JSON are parsed whole to tell truncated JSON from other formats
JSON_CHECK_BYTES = 64 * 1024 * 1024


def truncated_json(head: str, path: Path) -> str | None:
    """A message when ``path`` is a JSON document cut short (the parser runs out of text), else None.

    Only text starting with ``{`` or ``[`` is checked; JSON Lines and JSON followed by other text are not
    truncated (their parse fails before the end), so their readers still get them.
    """
    import json

    text = head.lstrip()
    if not text.startswith(("{", "[")):
        return None
    try:
        if path.stat().st_size > JSON_CHECK_BYTES:
            return None
        full = path.read_bytes().decode("utf-8-sig", errors="replace") if path.stat().st_size > SNIFF_BYTES else head
    except OSError:
        return None
    body = full.rstrip()
    try:
        limits.loads(body)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(body) - 1 or (exc.msg.startswith("Unterminated string") and "\n" not in body[exc.pos:]):
            return (f"truncated JSON: the document ends at line {exc.lineno} column {exc.colno} before it is closed "
                    f"({exc.msg}); expected a complete JSON document")
        return None
    except RecursionError:
        return None
    return None


def not_an_output(head: str, path: Path) -> str | None:
    """Why ``path`` is not a benchmark output (a config or metadata file), or None when it may be one."""
    name = path.name
    if name.startswith("._"):
        return "a macOS AppleDouble metadata file ('._' prefix), not a benchmark output; skip it"
    if name == ".DS_Store":
        return "a macOS folder metadata file, not a benchmark output"
    if "\x00" in head or head.count("\ufffd") > max(2, len(head) // 100):
        if head.startswith("PAR1"):
            return None
        from .tfevents import sniff as is_tfevents

        if is_tfevents(head, path):
            return None
        return "binary data, not a benchmark output (expected text, JSON or Parquet)"
    lines = [ln.strip() for ln in head.splitlines() if ln.strip() and not ln.strip().startswith(("#", ";"))]
    if lines and re.match(r"^\[[^\]]+\]$", lines[0]) and any(
            re.match(r"^(rw|ioengine|bs|blocksize|size|runtime|numjobs|filename|direct)\s*=", ln) for ln in lines):
        return ("a fio job file (the input of fio), not its output; run fio with --output-format=json "
                "and ingest that JSON (or its --write_bw_log logs)")
    if path.suffix.lower() in (".md", ".markdown", ".rst"):
        return "a document (Markdown or reStructuredText), not a benchmark output"
    if path.suffix.lower() in (".yaml", ".yml") or (
            lines and re.match(r"^[A-Za-z_][\w.-]*:\s*$", lines[0]) and not any("," in ln for ln in lines[:3])):
        return ("a YAML configuration file, not a benchmark output (DLIO/hydra configs are read automatically "
                "beside the outputs they describe); ingest summary.json, per_epoch_stats.json or {rank}_output.json")
    return None


def linked_folders(root: Path) -> list[str]:
    """Notes on the symbolic links to folders under ``root``: not followed (a link may loop or lead anywhere), and
    never silently: each is named with its target."""
    return [f"{x}: skipped (a symbolic link to a folder, not followed; give its target {x.resolve()} to read it)"
            for x in sorted(root.rglob("*")) if x.is_symlink() and x.is_dir()]


def expand_dir(root: Path, options: IngestOptions) -> tuple[list[Path], list[str]]:
    """The benchmark outputs under folder ``root`` (recursive, sorted), and notes on the files skipped.

    Skipped, each with a note: macOS metadata, configs (YAML, fio job files), empty files, and files of
    no known format (unless ``--format``/``--pattern`` says how to read them). Nothing else is skipped.
    """
    from .mlflow import metrics_dir

    found: list[Path] = []
    notes: list[str] = []
    mlflow_runs: set[Path] = set()  # an MLflow run is read once, from any one of its metric files
    notes += linked_folders(root)
    for f in sorted(x for x in root.rglob("*") if x.is_file() or input_kind(x) not in ("file", "folder")):
        if input_kind(f) != "file":  # FIFO, device, socket, link loop, dangling link: noted, never opened
            notes.append(f"{f}: skipped ({refusal(f)})")
            continue
        mdir = metrics_dir(f)
        if mdir is not None and mdir in mlflow_runs:
            continue
        if options.fmt or options.pattern:
            found.append(f)
            continue
        try:
            head = _head(f)
        except OSError as exc:
            notes.append(f"{f}: skipped (unreadable: {exc})")
            continue
        why = "empty" if not head.strip() else not_an_output(head, f)
        if why:
            notes.append(f"{f}: skipped ({why.split(';')[0]})")
            continue
        if not any(mod.sniff(head, f) for _n, mod in reader_modules()):
            notes.append(f"{f}: skipped (not a known benchmark output format)")
            continue
        if mdir is not None:
            mlflow_runs.add(mdir)
        found.append(f)
    if not found:
        raise IngestError("no benchmark output found in the folder", path=str(root))
    return found, notes


def load(path: str | Path, options: IngestOptions | None = None) -> list[Run]:
    """Read one file into one or more Runs. Raises IngestError on unusable input."""
    opts = options or IngestOptions()
    if opts.role not in ROLES:
        raise IngestError(f"role must be one of colocated, remote; got {opts.role!r}", field="--role")
    p = Path(path)
    why = refusal(p)  # missing, a folder, a FIFO, device, socket or symbolic link loop: one clear line, never a hang
    if why:
        raise IngestError("is a directory; pass the files inside it" if why.startswith("is a folder") else why, path=str(p))
    fmt = opts.fmt or ("freeform" if opts.pattern else sniff_format(p))
    mod = reader_for(fmt)
    try:
        runs = mod.read(p, opts)
    except IngestError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, OverflowError, UnicodeError, RecursionError) as exc:
        # a reader met content it does not expect: still the user's file, still one clear line (--debug shows the cause)
        raise IngestError(
            f"could not be read as {fmt}: {type(exc).__name__}: {str(exc)[:200]}; expected a well-formed {fmt} output",
            path=str(p),
        ) from exc
    if not runs:
        raise IngestError("no run could be read from the file", path=str(p))
    from .cadence import ROW_KINDS, describe_rows
    from .derive import apply_to_run

    if opts.rows is not None and opts.rows not in ROW_KINDS:
        raise IngestError(f"rows must be one of {', '.join(ROW_KINDS)}; got {opts.rows!r}", field="--rows")
    for r in runs:
        apply_to_run(r, opts.batch_size, opts.tokens_per_step)
        r.warnings.extend(describe_rows(r, opts.rows))
        if opts.role and (r.role != opts.role or (r.rows and str(r.table["role"].iloc[0]) != opts.role)):
            r.role = opts.role
            r.table["role"] = pd.Categorical.from_codes(np.zeros(r.rows, dtype=np.int8), categories=pd.Index([opts.role]))
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
    notes: list[str] = []
    for p in paths:
        name = Path(p).name
        if Path(p).is_dir():
            found, skipped = expand_dir(Path(p), opts)
            notes += skipped
            for f in found:
                runs.extend(load(f, opts))
            continue
        if len(paths) > 1 and (name.startswith("._") or name == ".DS_Store"):
            notes.append(f"{p}: skipped (macOS metadata file, not a benchmark output)")
            continue
        runs.extend(load(p, opts))
    if not runs:
        raise IngestError("no benchmark output among the files given", path=str(paths[0]) if paths else None)
    runs, merge_notes = merge_gpu(runs)
    notes += merge_notes
    unique_run_ids(runs)
    if opts.annotate is not None:  # ranks and jobs (costmodel.jobs.with_ranks), given by the caller
        notes += opts.annotate(runs)
    rejected = [x for r in runs for x in r.rejected]
    warnings = notes + [w for r in runs for w in r.warnings]
    warnings += [str(x) for x in rejected[:10]]
    sources = {r.source for r in runs} | {str(p) for p in paths}
    return IngestResult(runs=runs, rejected=rejected, warnings=fold_warnings(warnings, sources))


def fold_warnings(warnings: Sequence[str], sources: set[str] | None = None) -> list[str]:
    """Identical warnings about several files folded into one: ``x8 files: <message> (a.csv, b.csv, c.csv, ...)``.

    A warning is ``<file>: <message>``; two are identical when their messages are. Order of first appearance is kept;
    a warning seen once (or for one file) stays as it was. Exact repeats of a whole warning are kept once, with
    ``x3: `` in front."""
    known = sorted(sources or set(), key=len, reverse=True)
    order: list[str] = []
    groups: dict[str, list[str]] = {}
    plain: dict[str, int] = {}
    for w in warnings:
        src = next((s for s in known if s and w.startswith(s + ": ")), None)
        if src is None:
            m = re.match(r"^(?P<src>[^\s:][^:]*?\.[A-Za-z0-9]+|[^\s:]+/[^\s:]+): (?P<msg>.+)$", w)
            src = m.group("src") if m else None
        if src is None:
            if w not in plain:
                order.append("\0" + w)
            plain[w] = plain.get(w, 0) + 1
            continue
        msg = w[len(src) + 2:]
        if msg not in groups:
            order.append(msg)
            groups[msg] = []
        groups[msg].append(src)
    out = []
    for key in order:
        if key.startswith("\0"):
            w = key[1:]
            out.append(w if plain[w] == 1 else f"x{plain[w]}: {w}")
            continue
        srcs = groups[key]
        uniq = list(dict.fromkeys(srcs))
        if len(srcs) == 1:
            out.append(f"{srcs[0]}: {key}")
        elif len(uniq) == 1:
            out.append(f"x{len(srcs)}: {uniq[0]}: {key}")
        else:
            shown = ", ".join(uniq[:3]) + (f", ... ({len(uniq) - 3} more)" if len(uniq) > 3 else "")
            out.append(f"x{len(uniq)} files: {key} ({shown})")
    return out


def unique_run_ids(runs: Sequence[Run]) -> None:
    """Make run ids unique in place: the second ``x`` becomes ``x#2``, the third ``x#3``, ...

    The table's ``run_id`` column follows the new id. Used by :func:`load_many` and by the report,
    so the same inputs get the same ids everywhere.
    """
    seen: dict[str, int] = {}
    for r in runs:
        n = seen.get(r.run_id, 0) + 1
        seen[r.run_id] = n
        if n > 1:
            r.run_id = f"{r.run_id}#{n}"
            r.table["run_id"] = pd.Categorical.from_codes(np.zeros(r.rows, dtype=np.int8), categories=pd.Index([r.run_id]))


