"""The report's output folder: refused when it holds anything but an earlier report (unless ``--force``),
claimed against a concurrent run, and the finished folder renamed into place with the usual permissions."""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ..foundation.errors import ReportError

#: Output files of ``costmodel report``.
OUTPUT_FILES = ("report.ipynb", "report.html", "decision.json", "adr.md")


#: Entries a previous report folder may hold besides :data:`OUTPUT_FILES`, all made by tools rather
#: than by a person: JupyterLab's checkpoints of an opened report, and file managers' metadata.
REPORT_BYPRODUCTS = (".ipynb_checkpoints", ".DS_Store", "Thumbs.db", "desktop.ini")


def _report_entry(name: str) -> bool:
    """True for what a previous report folder may hold (:data:`OUTPUT_FILES`, :data:`REPORT_BYPRODUCTS`,
    macOS ``._`` companions of the report files): ``--force`` may replace such a folder."""
    if name in OUTPUT_FILES or name in REPORT_BYPRODUCTS:
        return True
    return name.startswith("._") and name[2:] in OUTPUT_FILES


def check_output_dir(out_dir: str | os.PathLike[str], force: bool, inputs: Sequence[str] = ()) -> Path:
    """The output folder, checked before anything runs.

    Refused: a file; the current folder or one above it; a folder that contains an input file; a
    folder holding anything but a previous report (:data:`OUTPUT_FILES`, JupyterLab checkpoints,
    file-manager metadata), with or without ``force`` (``force`` replaces a report, never a folder
    of other files); a previous report without ``force``. The messages agree: a folder that
    ``--force`` would not replace is never answered with "pass --force".
    """
    d = Path(out_dir)
    if d.exists() and not d.is_dir():
        raise ReportError(f"output {d} exists and is not a folder")
    full = d.resolve()
    cwd = Path.cwd().resolve()
    if full == cwd or full in cwd.parents:
        raise ReportError(f"output folder {d} is the current folder or above it; name a new folder, e.g. -o reports")
    for path in inputs:
        if full in Path(path).resolve().parents:
            raise ReportError(f"output folder {d} contains the input {path}; write the report elsewhere")
    if d.is_dir():
        entries = sorted(p.name for p in d.iterdir())
        foreign = [e for e in entries if not _report_entry(e)]
        if foreign:
            shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
            raise ReportError(
                f"output folder {d} exists and holds files that are not part of a report ({shown}); "
                "--force only replaces a previous report: choose another folder"
            )
        if entries and not force:
            raise ReportError(f"output folder {d} exists and is not empty (a previous report); pass --force to replace it")
    return d


class OutputClaim:
    """An exclusive claim on an output folder while a report is made: ``.NAME.lock`` beside it, held
    with ``flock``. Exactly one of several concurrent ``costmodel report -o NAME`` gets it; the others
    get an :class:`~costmodel.foundation.errors.OutputError` saying the folder is taken (by which process).

    The kernel drops a ``flock`` when its holder dies (even by SIGKILL), so a lock file left by a
    killed run never blocks the next one; the file is removed on release. ``acquire`` re-checks that
    the locked file is still the one at the path (a release may have removed it meanwhile).
    """

    def __init__(self, dest: Path) -> None:
        self.dest = dest
        self.path = dest.parent / f".{dest.name}.lock"
        self.fd: int | None = None

    def acquire(self) -> OutputClaim:
        import fcntl

        from ..foundation.errors import OutputError
        from ..foundation.safeio import writing

        for _attempt in range(100):
            with writing(self.dest, action="create the output folder"):
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0),
                             0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = ""
                with contextlib.suppress(OSError, ValueError, IndexError):  # empty: the holder has not written it yet
                    pid = int(os.pread(fd, 32, 0).decode().split()[0])
                    holder = f" (pid {pid})"
                os.close(fd)
                raise OutputError(
                    f"output folder {self.dest} is taken: another costmodel report{holder} is writing it "
                    "right now; wait for it to finish or choose another folder", path=str(self.dest)) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path, follow_symlinks=False).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # released and removed between our open and our lock: try again
                os.close(fd)
                continue
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            except OSError as exc:  # a full disk: no lock file left behind, one line naming the folder
                from ..foundation.safeio import os_error_message

                with contextlib.suppress(OSError):
                    os.unlink(self.path)
                os.close(fd)
                raise OutputError(os_error_message(exc, self.dest.parent, "create the output folder in"),
                                  path=str(self.dest), errno=exc.errno) from None
            self.fd = fd
            return self
        raise OutputError(f"output folder {self.dest}: could not take its lock {self.path}")  # pragma: no cover

    def release(self) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)  # while still holding it: nobody can lock this inode and think it is theirs
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> OutputClaim:  # noqa: PYI034  no typing.Self on 3.10
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _usual_permissions(folder: Path) -> None:
    """mkdtemp/mkstemp create private (0700/0600) entries: give the output the umask's usual modes."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(folder, 0o777 & ~umask)
    for f in folder.iterdir():
        os.chmod(f, 0o666 & ~umask)


def _swap_into_place(tmp: Path, dest: Path) -> None:
    """Rename ``tmp`` onto ``dest``; an existing ``dest`` is moved aside first and removed after."""
    old = None
    if dest.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old.", dir=dest.parent))
        os.rmdir(old)
        os.replace(dest, old)
    try:
        os.replace(tmp, dest)
    except BaseException:
        if old is not None:
            os.replace(old, dest)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
