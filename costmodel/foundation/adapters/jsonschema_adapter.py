"""jsonschema: import heavy libraries (Altair, nbformat, papermill) without jsonschema's optional format checkers.

``jsonschema._format`` imports the libraries that check string formats when they are installed: ``rfc3987_syntax``
(the ``iri`` format) builds a parser grammar at import (seconds on a busy machine), and the others (``isoduration``
brings ``arrow``; ``webcolors``, ``rfc3986_validator``...) cost ~0.06 CPU-s more. Neither Altair, nbformat nor
nbconvert checks formats. jsonschema offers no switch for them, so their imports are refused while the libraries
load (``None`` in ``sys.modules``: Python's documented way to make ``import`` raise ``ImportError``, which jsonschema
catches and leaves the format unchecked). Tested on the versions in :data:`TESTED`; a floor-0 helper (no costmodel
imports)."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

from . import refused_imports

#: distribution -> the versions [low, high) this adapter's behaviour was checked on
TESTED = {"jsonschema": ("4.26", "4.27")}

#: what ``jsonschema._format`` imports when installed, to check string formats (iri, uri, date-time, color,
#: uri-template, duration, hostname), neither Altair, nbformat nor nbconvert checks formats; not ``idna`` and
#: ``jsonpointer``, which other libraries loaded in the block import for their own use (papermill's ``requests``)
_OPTIONAL = ("rfc3987_syntax", "rfc3987", "rfc3986_validator", "rfc3339_validator", "webcolors", "uri_template",
             "isoduration", "fqdn")
_LOADER = "jsonschema._format"  # the jsonschema module that tries the import (already imported: too late to skip)


@contextlib.contextmanager
def lean_imports() -> Iterator[None]:
    """Import heavy libraries without jsonschema's optional format checkers; the block is lifted on exit, so a later
    explicit ``import webcolors`` (or any of them) works as usual."""
    with refused_imports(_OPTIONAL, unless_loaded=_LOADER):
        yield

