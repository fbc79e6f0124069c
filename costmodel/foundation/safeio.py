"""Opening inputs and writing outputs safely: the one place that decides what may be read and how an
operating-system error is told to the user.

Inputs: :func:`open_input` opens a path without blocking (``O_NONBLOCK``), checks what it opened
(``fstat`` on the open descriptor, so nothing can be swapped in between) and refuses anything that
is not a regular file: a named pipe (FIFO) would block forever, a device can be endless, a socket
cannot be opened at all, a symbolic link loop never resolves. The refusal is an :class:`InputRefused`
(an ``OSError``), so every reader's existing ``except OSError`` turns it into its own one-line
error naming the file. :func:`input_kind` says what a path is without opening it (folders walked
by the readers use it to note, never silently skip, what they leave out).

Outputs: :func:`os_error_message` turns ``ENOSPC``, ``EACCES``, ``EROFS``, ``ENAMETOOLONG``,
``EISDIR`` ... into ``cannot write PATH: no space left on device (ENOSPC)``; :func:`writing` wraps
a block that writes ``path`` so such an error becomes an :class:`~costmodel.foundation.errors.OutputError`
(exit 2) naming the file, even when the OS error itself carries no file name (``write()`` on a
full disk does not).
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

#: the largest text file :func:`read_input_text` reads whole unless told otherwise (bytes)
MAX_TEXT_BYTES = 256 * 1024 * 1024

#: OS errors that are about the environment (disk, permissions, names), never a bug: exit 2
ENVIRONMENT_ERRNOS = frozenset(
    getattr(errno, name)
    for name in (
        "ENOSPC", "EDQUOT", "EFBIG", "EACCES", "EPERM", "EROFS", "ENAMETOOLONG", "EISDIR", "ENOTDIR",
        "ENOENT", "ELOOP", "EEXIST", "ENOTEMPTY", "EMFILE", "ENFILE", "EIO", "EXDEV", "EBUSY", "ETXTBSY",
        "ENXIO", "ENODEV", "EMLINK",
    )
    if hasattr(errno, name)
)

_CAUSES = {
    "ENOSPC": "no space left on device",
    "EDQUOT": "disk quota exceeded",
    "EFBIG": "file too large for the file system",
    "EACCES": "permission denied",
    "EPERM": "operation not permitted",
    "EROFS": "read-only file system",
    "ENAMETOOLONG": "file name too long",
    "EISDIR": "is a folder",
    "ENOTDIR": "a part of the path is not a folder",
    "ENOENT": "no such file or folder",
    "ELOOP": "symbolic link loop (too many levels of symbolic links)",
    "EMFILE": "too many open files in this process",
    "ENFILE": "too many open files on this system",
    "EIO": "input/output error",
}


class InputRefused(OSError):
    """An input that is not a regular file (FIFO, device, socket, folder where a file is expected,
    symbolic link loop) or is too large. ``str()`` is the reason, without the path (callers add it)."""

    def __init__(self, reason: str, path: str | os.PathLike[str] | None = None, code: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.filename = os.fspath(path) if path is not None else None
        self.errno = code

    def __str__(self) -> str:
        return self.reason


def _kind_of_mode(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISFIFO(mode):
        return "named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def input_kind(path: str | os.PathLike[str]) -> str:
    """What ``path`` is, following symbolic links: ``file``, ``folder``, ``named pipe (FIFO)``,
    ``character device``, ``block device``, ``socket``, ``symbolic link loop``, ``missing`` (also a
    dangling link) or ``unreadable``. Never opens the path, never blocks."""
    try:
        return _kind_of_mode(os.stat(path).st_mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symbolic link loop"
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return "missing"
        return "unreadable"


def refusal(path: str | os.PathLike[str], allow_dir: bool = False) -> str | None:
    """Why ``path`` cannot be read as an input (None when it is a regular file, or a folder with
    ``allow_dir``). Follows symbolic links; never opens the path."""
    kind = input_kind(path)
    if kind == "file" or (kind == "folder" and allow_dir):
        return None
    if kind == "missing":
        return "no such file"
    if kind == "symbolic link loop":
        return "symbolic link loop (the link points back at itself); expected a regular file"
    if kind == "unreadable":
        try:
            os.stat(path)
        except OSError as exc:
            return f"cannot read: {exc.strerror or exc}"
        return "cannot read"  # pragma: no cover - raced
    if kind == "folder":
        return "is a folder; expected a regular file"
    return f"is a {kind}, not a regular file; costmodel reads regular files only (a pipe or device could block or never end)"


def check_input(path: str | os.PathLike[str], allow_dir: bool = False) -> Path:
    """``path`` as a Path when it is a regular file (or a folder with ``allow_dir``); raises
    :class:`InputRefused` saying what it is otherwise (missing, FIFO, device, socket, link loop)."""
    why = refusal(path, allow_dir)
    if why is not None:
        code = errno.ENOENT if why == "no such file" else None
        raise InputRefused(why, path, code)
    return Path(path)


def open_input(path: str | os.PathLike[str], mode: str = "rb", *, encoding: str | None = None,
               errors: str | None = None, newline: str | None = None) -> IO[Any]:
    """Open ``path`` for reading, refusing what is not a regular file.

    The path is opened with ``O_NONBLOCK`` (a FIFO without writer opens at once instead of hanging)
    and ``O_NOCTTY``; the open descriptor is checked with ``fstat`` and then switched back to
    blocking reads. Raises :class:`InputRefused` for a FIFO, device, socket, folder or symbolic
    link loop, and the usual ``OSError`` (``FileNotFoundError``, ``PermissionError``) otherwise.
    """
    if any(c in mode for c in "wax+"):
        raise ValueError(f"open_input opens for reading only, not mode {mode!r}")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputRefused("symbolic link loop (the link points back at itself); expected a regular file",
                               path, errno.ELOOP) from None
        if exc.errno in (errno.ENXIO, errno.ENODEV, errno.EOPNOTSUPP):
            why = refusal(path) or f"cannot open: {exc.strerror}"
            raise InputRefused(why, path, exc.errno) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = _kind_of_mode(st.st_mode)
            if kind == "folder":
                raise InputRefused("is a folder; expected a regular file", path, errno.EISDIR)
            raise InputRefused(
                f"is a {kind}, not a regular file; costmodel reads regular files only "
                "(a pipe or device could block or never end)", path)
        fl = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, fl & ~getattr(os, "O_NONBLOCK", 0))
        binary = "b" in mode
        raw = os.fdopen(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise
    if binary:
        return raw
    return io.TextIOWrapper(raw, encoding=encoding or "utf-8", errors=errors, newline=newline)


def read_input_bytes(path: str | os.PathLike[str], max_bytes: int | None = MAX_TEXT_BYTES) -> bytes:
    """The bytes of the regular file ``path`` (see :func:`open_input`); :class:`InputRefused` when it
    holds more than ``max_bytes`` (None: no bound)."""
    with open_input(path, "rb") as fh:
        if max_bytes is None:
            return fh.read()
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputRefused(f"larger than {max_bytes:,} bytes; refused (expected a small text file)", path)
    return data


def read_input_text(path: str | os.PathLike[str], *, encoding: str = "utf-8", errors: str = "strict",
                    max_bytes: int | None = MAX_TEXT_BYTES) -> str:
    """The text of the regular file ``path``; ``UnicodeDecodeError`` with ``errors='strict'`` when it
    is not ``encoding``, :class:`InputRefused` for what :func:`read_input_bytes` refuses."""
    return read_input_bytes(path, max_bytes).decode(encoding, errors)


def errno_name(exc: OSError) -> str:
    """``ENOSPC`` for errno 28 (empty when the error has no errno)."""
    return errno.errorcode.get(exc.errno or -1, "") if isinstance(exc.errno, int) else ""


def _cause(exc: OSError) -> str:
    name = errno_name(exc)
    cause = _CAUSES.get(name) or (exc.strerror or str(exc)).rstrip(".").lower()
    return f"{cause} ({name})" if name else cause


def os_error_message(exc: OSError, path: str | os.PathLike[str] | None = None, action: str = "write") -> str:
    """One line for an OS error: ``cannot write PATH: no space left on device (ENOSPC)``.

    ``path`` is the file being written (used when the error names none, as ``write()`` on a full
    disk does); ``exc.filename`` wins when it is set and differs only by being more precise."""
    name = errno_name(exc)
    cause = _CAUSES.get(name) or (exc.strerror or str(exc)).rstrip(".").lower()
    where = exc.filename if getattr(exc, "filename", None) else path
    if name == "EEXIST" and where is not None and os.path.lexists(where) and not os.path.isdir(where):
        cause = "exists and is not a folder"  # mkdir of a path whose part is a file
    target = f" {os.fsdecode(where)}" if where is not None else ""
    code = f" ({name})" if name else ""
    return f"cannot {action}{target}: {cause}{code}"


@contextlib.contextmanager
def writing(path: str | os.PathLike[str], action: str = "write", rename: dict[str, str] | None = None) -> Iterator[None]:
    """Run a block that writes ``path``; an ``OSError`` from it becomes an
    :class:`~costmodel.foundation.errors.OutputError` (exit 2) with :func:`os_error_message`. ``rename`` maps
    temporary path prefixes to the names the user gave (a temporary folder is not what they asked for)."""
    from .errors import OutputError

    try:
        yield
    except (InputRefused, OutputError):
        raise
    except OSError as exc:
        msg = os_error_message(exc, path, action)
        for old, new in (rename or {}).items():
            msg = msg.replace(old, new)
        raise OutputError(msg, path=os.fspath(path), errno=exc.errno, cause=_cause(exc)) from None


def refuse_existing(path: str | os.PathLike[str], option: str, force: bool) -> None:
    """The one output rule: an existing file at ``path`` is never replaced without ``--force`` (a folder never is).
    Raises :class:`~costmodel.foundation.errors.OutputError` (exit 2) naming ``option`` and the path."""
    from .errors import OutputError
    from .names import shown

    if force or not os.path.lexists(path) or os.path.isdir(path):
        return  # a folder is never replaced by a file: the writer's EISDIR line says so, --force or not
    raise OutputError(f"{option} {shown(os.fspath(path))}: a file of that name exists; not replaced (give --force "
                      "to replace it)", path=os.fspath(path), errno=errno.EEXIST, cause="exists")
