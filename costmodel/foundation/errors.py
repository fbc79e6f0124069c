"""The one error hierarchy of costmodel.

Every error a user can cause (bad input file, bad scenario, bad answers, bad
options) is a :class:`CostmodelError`. The CLI prints ``str(error)`` on one line
and exits 2; anything else escaping is a bug.
"""
from __future__ import annotations

from typing import Any


class CostmodelError(Exception):
    """Base class: a problem the user can act on. ``str()`` is the whole message."""

    exit_code = 2

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.message


class IngestError(CostmodelError):
    """A benchmark output could not be read; names the file, line or field, and what was expected."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        where = ""
        if path is not None:
            where = str(path)
            if line is not None:
                where += f":{line}"
            if field is not None:
                where += f" [{field}]"
            where += ": "
        elif field is not None:
            where = f"[{field}]: "
        super().__init__(where + message, path=path, line=line, field=field)
        self.path = path
        self.line = line
        self.field = field


class AnalysisError(CostmodelError):
    """A series cannot be analysed as asked (missing metric, all NaN, ...)."""


class ScenarioError(CostmodelError):
    """A cost scenario (YAML or overrides) is invalid; names the key path and what was expected."""

    def __init__(self, message: str, *, key: str | None = None, path: str | None = None) -> None:
        prefix = ""
        if path:
            prefix += f"{path}: "
        if key:
            prefix += f"{key}: "
        super().__init__(prefix + message, key=key, path=path)
        self.key = key
        self.path = path


class PriceError(ScenarioError):
    """No price is known for what the scenario asks (suggests the closest known)."""


class ChecklistError(CostmodelError):
    """An answers file is invalid; names the item."""


class ReportError(CostmodelError):
    """A report could not be rendered (bad parameters, existing output folder, ...)."""


class BenchError(CostmodelError):
    """The benchmark client cannot run (missing root, no files, ...)."""


class SimulateError(CostmodelError):
    """A what-if workload is invalid; names the key."""


__all__ = [
    "AnalysisError",
    "BenchError",
    "ChecklistError",
    "CostmodelError",
    "IngestError",
    "PriceError",
    "ReportError",
    "ScenarioError",
    "SimulateError",
]


#: The name costmodel is published under on the package index (``costmodel`` there is someone else's project);
#: the import package and the command stay ``costmodel``.
DISTRIBUTION = "xregion-costmodel"


def pip_install_hint(extra: str | None = None) -> str:
    """The command that installs costmodel with ``extra``: ``pip install "xregion-costmodel[report]"``."""
    return f'pip install "{DISTRIBUTION}[{extra}]"' if extra else f"pip install {DISTRIBUTION}"


class MissingExtraError(CostmodelError):
    """An optional dependency is not installed; the message names the ``pip install "xregion-costmodel[extra]"``."""


class OutputError(CostmodelError, OSError):
    """An output could not be written (disk full, permission denied, read-only file system, name too
    long, a folder in the way, output folder taken by another run); the message names the file.

    Also an ``OSError`` (``errno``, ``strerror`` = the cause, ``filename``), so code that caught the
    OS error of a write before it was mapped still catches it."""

    def __init__(self, message: str, *, path: str | None = None, errno: int | None = None,
                 cause: str | None = None) -> None:
        CostmodelError.__init__(self, message, path=path, errno=errno)
        self.errno = errno
        self.strerror = cause or message
        self.filename = path

    def __str__(self) -> str:
        return self.message


__all__ += ["OutputError"]


class PlacementError(ScenarioError):
    """A placement file (``costmodel place``) is invalid: names the file and the key path."""
