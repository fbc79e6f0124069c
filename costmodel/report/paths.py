"""Paths in the report's records: never the author's machine.

``decision.json`` and ``adr.md`` name every input. The kernel works with absolute paths (it may run in
another folder), but a record that kept them would differ between two checkouts of the same inputs and
would carry the user's home folder. So every path in a record is written as:

* an object-store or web URL: as given;
* a file bundled with costmodel (the example): ``costmodel/<path inside the package>``, the same in a
  clone and in any installed copy;
* any other local file or folder: relative to the folder the record is written to, with ``/``
  separators (``../ex/scenario.yaml``), so the link opens from there and two folders laid out alike give
  the same bytes.

:func:`relocate` rewrites every string of a JSON-like object (the absolute path of each input, and
of the package folder, wherever it appears: provenance lines, run sources, price sources).
"""
from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..foundation.resources import PACKAGE_DIR

#: How a file inside the installed package is named in a record.
PACKAGE_PREFIX = "costmodel"


def _is_url(path: str) -> bool:
    from ..jobs.storage import is_url

    return is_url(path) or path.startswith(("http://", "https://"))


def display_path(path: str | os.PathLike[str], base_dir: str | os.PathLike[str] | None) -> str:
    """``path`` as a record names it (see the module docstring): a URL as given, a bundled file as
    ``costmodel/...``, anything else relative to ``base_dir`` (as given when ``base_dir`` is None or the
    path is on another drive)."""
    text = os.fspath(path)
    if _is_url(text):
        return text
    full = os.path.abspath(text)
    package = os.path.abspath(PACKAGE_DIR)
    full_key, package_key = os.path.normcase(full), os.path.normcase(package)  # Windows: case-insensitive
    if full_key == package_key or full_key.startswith(package_key + os.sep):
        inside = full[len(package) + 1:].replace(os.sep, "/")
        return f"{PACKAGE_PREFIX}/{inside}" if inside else PACKAGE_PREFIX
    if base_dir is None:
        return text
    try:
        return os.path.relpath(full, os.path.abspath(base_dir)).replace(os.sep, "/")
    except ValueError:  # another drive (Windows)
        return text


def path_map(paths: Iterable[str | os.PathLike[str]], base_dir: str | os.PathLike[str] | None) -> dict[str, str]:
    """Absolute path (as given and with links resolved) -> its display form, for :func:`relocate`; the
    package folder is always in it. Longest first, so a folder never shadows a file inside it."""
    out: dict[str, str] = {}
    for p in [*paths, PACKAGE_DIR]:
        text = os.fspath(p)
        if _is_url(text) or not os.path.isabs(text):
            continue
        shown = display_path(text, base_dir)
        for variant in {text, os.path.abspath(text), os.path.realpath(text)}:
            if variant not in ("/", "") and variant != shown:
                out.setdefault(variant, shown)
    return dict(sorted(out.items(), key=lambda kv: -len(kv[0])))


def placement_paths(placement: str | os.PathLike[str]) -> list[str]:
    """The placement file and its folder, whose base scenario and measured runs it names relative to
    itself, as paths a record may name; nothing when no placement file is given."""
    if not placement:
        return []
    return [os.fspath(placement), os.path.dirname(os.path.abspath(os.fspath(placement)))]


def relocate(obj: Any, mapping: Mapping[str, str]) -> Any:
    """``obj`` (JSON-like: dicts, lists, strings, numbers) with every occurrence of a ``mapping`` key in
    its strings replaced by the key's display form (a new object; ``obj`` is not changed). A key is
    replaced only where it is a whole path: followed by the end, ``/``, a space or punctuation, never
    by more characters of a name (``/a/b`` in ``/a/bc`` stays)."""
    if not mapping:
        return obj
    pattern = _whole_paths_pattern(tuple(mapping))

    def fix(value: Any) -> Any:
        if isinstance(value, str):
            return pattern.sub(lambda m: mapping[m.group(0)], value) if value else value
        if isinstance(value, Mapping):
            return {k: fix(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [fix(v) for v in value]
        return value

    return fix(obj)


_WHOLE_PATH_END = r"(?![\w.-])"


@functools.lru_cache(maxsize=8)
def _whole_paths_pattern(keys: tuple[str, ...]) -> re.Pattern[str]:
    """A pattern that finds any of ``keys`` where it is a whole path (not followed by more characters of a name),
    the longest first where one key begins another. Built as a trie (each shared prefix written once): the flat
    alternation of 1,000 rank logs' paths took 0.6 CPU-s to compile, the trie ~0.03."""
    trie: dict[str, Any] = {}
    for key in keys:
        node = trie
        for ch in key:
            node = node.setdefault(ch, {})
        node[""] = True  # a key ends here

    def emit(node: dict[str, Any]) -> str:
        # runs of single-child nodes are written as one literal (no recursion per character)
        parts: list[str] = []
        while len(node) == 1 and "" not in node:
            (ch, node), = node.items()
            parts.append(re.escape(ch))
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]  # longer keys first
        if "" in node:
            branches.append(_WHOLE_PATH_END)
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return "".join(parts) + body

    return re.compile(emit(trie))


def local_path(shown: str, base_dir: str | os.PathLike[str]) -> str:
    """The file a record's path names (the inverse of :func:`display_path`): a URL as it is, ``costmodel/...``
    inside the package, a relative path against ``base_dir``."""
    if _is_url(shown) or os.path.isabs(shown):
        return shown
    if shown == PACKAGE_PREFIX or shown.startswith(PACKAGE_PREFIX + "/"):
        return os.path.join(os.fspath(PACKAGE_DIR), shown[len(PACKAGE_PREFIX) + 1:])
    return os.path.normpath(os.path.join(os.fspath(base_dir), shown))


def record_base_dir(decision_path: str | os.PathLike[str] | None) -> str:
    """The folder a record's paths are relative to: that of ``decision_path`` when given, else the
    current folder."""
    if decision_path:
        return os.path.dirname(os.path.abspath(os.fspath(decision_path)))
    return os.getcwd()
