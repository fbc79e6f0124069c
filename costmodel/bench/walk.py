"""The file walk of the familiar read client: every regular file under ROOT, sorted, capped at N.

The order is the order of ``sorted(Path(ROOT).rglob("*"))`` (paths compared component by component),
so a capped walk picks the same N files the familiar client picks. Symbolic links to files are
followed; symbolic links to directories are not descended (no cycles).
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from typing import Any

from ..foundation.errors import BenchError
from ..foundation.fields_json import FieldsJson, JsonKeys
from ..foundation.safeio import refusal


@dataclass(frozen=True)
class FileEntry:
    """One file of the walk: its path relative to ROOT ('/'-separated), size in bytes and mtime (ns) at walk time."""

    index: int
    relpath: str
    size_bytes: int
    mtime_ns: int | None = None


@dataclass
class Manifest(FieldsJson):
    """The sorted, capped file list a run reads, with sizes; ``sha256`` proves two runs read the same files."""

    root: str
    entries: list[FileEntry]
    total_files_under_root: int = 0
    skipped: list[str] = field(default_factory=list)
    #: files found under ROOT but not read because ``--max-files`` was reached
    beyond_max_files: int = 0

    @property
    def file_count(self) -> int:
        return len(self.entries)

    @property
    def total_bytes(self) -> int:
        return sum(e.size_bytes for e in self.entries)

    @property
    def sha256(self) -> str:
        """Hex SHA-256 of ``"relpath\\tsize\\n"`` for every entry, in order (independent of ROOT)."""
        return manifest_sha256((e.relpath, e.size_bytes) for e in self.entries)

    @property
    def files_beyond_max_files(self) -> int:
        """Files under ROOT the walk found but left out because of ``--max-files`` (0 when all are read)."""
        return self.beyond_max_files

    def truncation_note(self) -> str | None:
        """The warning for a capped walk (``None`` when every file under ROOT is read)."""
        n = self.files_beyond_max_files
        if n <= 0:
            return None
        return (f"--max-files {self.file_count:,}: reading {self.file_count:,} of {self.total_files_under_root:,} files "
                f"under {self.root} ({n:,} not read); raise --max-files to read them all")

    def path(self, index: int) -> str:
        """The absolute path of entry ``index``."""
        return os.path.join(self.root, *self.entries[index].relpath.split("/"))

    def paths(self) -> list[str]:
        return [self.path(i) for i in range(len(self.entries))]

    JSON = JsonKeys(keys=("root", "file_count", "total_bytes", "file_list_sha256=sha256", "total_files_under_root",
                          "skipped_count", "skipped=skipped_shown", "files_beyond_max_files"))

    @property
    def skipped_count(self) -> int:
        return len(self.skipped)

    @property
    def skipped_shown(self) -> list[str]:
        """The first 100 skipped paths (what the JSON lists; ``skipped_count`` counts them all)."""
        return list(self.skipped[:100])


def manifest_sha256(items: Any) -> str:
    """SHA-256 of an iterable of ``(relpath, size_bytes)`` pairs, as in :attr:`Manifest.sha256`."""
    h = hashlib.sha256()
    for relpath, size in items:
        h.update(f"{relpath}\t{int(size)}\n".encode("utf-8", errors="surrogateescape"))
    return h.hexdigest()


def walk_files(root: str | os.PathLike[str], max_files: int = 1000) -> Manifest:
    """Every regular file under ``root`` in sorted order, the first ``max_files`` of them.

    Raises :class:`BenchError` when ``root`` is missing or not a directory, ``max_files < 1``, or no
    file is found (message ``No files found under ROOT``, as the familiar client says).
    """
    if max_files < 1:
        raise BenchError(f"--max-files must be at least 1; got {max_files}")
    root_s = os.fspath(root)
    if not os.path.exists(root_s):
        raise BenchError(f"{root_s}: no such directory (ROOT must be the dataset directory to read)")
    if not os.path.isdir(root_s):
        raise BenchError(f"{root_s}: not a directory (ROOT must be the dataset directory to read)")
    root_abs = os.path.abspath(root_s)
    found: list[tuple[tuple[str, ...], str]] = []
    skipped: list[str] = []

    def _onerror(err: OSError) -> None:
        skipped.append(f"{err.filename}: {err.strerror or err}")

    for dirpath, _dirnames, filenames in os.walk(root_abs, onerror=_onerror, followlinks=False):
        rel_dir = os.path.relpath(dirpath, root_abs)
        parts = () if rel_dir == "." else tuple(rel_dir.split(os.sep))
        for name in filenames:
            full = os.path.join(dirpath, name)
            if os.path.isfile(full):
                found.append(((*parts, name), full))
            else:  # a FIFO, device, socket, link loop or dangling link: never opened, but named
                skipped.append(f"{full}: {refusal(full)}")
    if not found:
        raise BenchError(f"No files found under {root_s}")
    found.sort(key=lambda x: x[0])
    entries: list[FileEntry] = []
    beyond = 0
    for k, (parts, full) in enumerate(found):
        if len(entries) >= max_files:
            beyond = len(found) - k
            break
        try:
            st = os.stat(full)
        except OSError as exc:
            skipped.append(f"{full}: {exc.strerror or exc}")
            continue
        entries.append(FileEntry(index=len(entries), relpath="/".join(parts), size_bytes=int(st.st_size),
                                 mtime_ns=int(st.st_mtime_ns)))
    if not entries:
        raise BenchError(f"No files found under {root_s}")
    return Manifest(root=root_abs, entries=entries, total_files_under_root=len(found), skipped=skipped,
                    beyond_max_files=beyond)
