"""Adapters (floor 0: no costmodel imports): where costmodel leans on a dependency beyond its documented API.

One module per dependency (``<name>_adapter.py``), each with ``TESTED`` (distribution -> the half-open version
range its behaviour was checked on); ``tests/packaging/test_dependency_adapters.py`` fails loudly when an installed
version leaves that range. Nothing else in the package may reach into a
dependency's private parts (same test)."""
from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version


def _release(text: str) -> tuple[int, ...]:
    """``"2.7.0"`` -> ``(2, 7, 0)``; pre-release and local tails (``rc1``, ``+cpu``) dropped."""
    import re

    out = []
    for part in text.split("+")[0].split("."):
        m = re.match(r"\d+", part)
        if m is None:
            break
        out.append(int(m.group(0)))
        if m.end() < len(part):  # "0rc1": the release ends here
            break
    return tuple(out)


def in_tested_range(dependency: str, tested: tuple[str, str]) -> tuple[bool, str | None]:
    """(whether the installed ``dependency`` lies in ``tested`` = [low, high), its version or None when absent)."""
    try:
        have = version(dependency)
    except PackageNotFoundError:
        return True, None  # not installed: nothing of it is used
    low, high = (_release(v) for v in tested)
    return low <= _release(have) < high, have


@contextlib.contextmanager
def refused_imports(names: tuple[str, ...], unless_loaded: str) -> Iterator[None]:
    """While the block runs, ``import NAME`` raises ImportError for each of ``names`` not imported yet (``None`` in
    ``sys.modules``, Python's documented way); nothing is refused once ``unless_loaded`` is imported (its imports are
    done). Lifted on exit, also on error, so a later explicit import works as usual."""
    if unless_loaded in sys.modules:
        yield
        return
    blocked = [n for n in names if n not in sys.modules]
    for n in blocked:
        sys.modules[n] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        for n in blocked:
            if n in sys.modules and sys.modules[n] is None:
                del sys.modules[n]
