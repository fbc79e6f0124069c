"""jsonschema: import heavy libraries (Altair, nbformat, papermill) without jsonschema's optional ``rfc3987_syntax``.

``jsonschema._format`` imports ``rfc3987_syntax`` when it is installed, to check the ``iri`` string format; the
module builds a parser grammar at import (seconds on a busy machine), and neither Altair nor nbformat checks that
format. jsonschema offers no switch for it, so the import is refused while the libraries load (``None`` in
``sys.modules``: Python's documented way to make ``import`` raise ``ImportError``, which jsonschema catches and
leaves the format unchecked). Tested on the versions in :data:`TESTED`; a floor-0 helper (no costmodel imports)."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

from . import refused_imports

#: distribution -> the versions [low, high) this adapter's behaviour was checked on
TESTED = {"jsonschema": ("4.26", "4.27")}

_OPTIONAL = "rfc3987_syntax"
_LOADER = "jsonschema._format"  # the jsonschema module that tries the import (already imported: too late to skip)


@contextlib.contextmanager
def lean_imports() -> Iterator[None]:
    """Import heavy libraries without jsonschema's optional ``rfc3987_syntax``; the block is lifted on exit, so a
    later explicit ``import rfc3987_syntax`` works as usual."""
    with refused_imports((_OPTIONAL,), unless_loaded=_LOADER):
        yield

