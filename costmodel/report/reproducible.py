"""The executed report notebook without what differs between two runs of the same inputs: papermill's and
the kernel's timestamps and durations, the kernel's version, the random id of the injected-parameters cell,
and the machine paths in the parameters (the temporary folder, the user's folders). Two renders of the same
inputs then give byte-identical ``report.ipynb`` and ``report.html`` (tests/report/test_report_reproducible.py).

Paths in the parameters are written as :mod:`.paths` writes them in ``decision.json``, with one difference:
a bundled file is named relative to the package (``data/examples/scenario.yaml``), the form the notebook's
parameters resolve, so the saved notebook runs again with papermill from its own folder.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..foundation.resources import PACKAGE_DIR

#: Cell metadata that only records when and how long a cell ran.
_TIMING_KEYS = ("papermill", "execution")
#: papermill's notebook metadata that records the run, not its result.
_RUN_KEYS = ("start_time", "end_time", "duration", "exception")
#: The id of papermill's injected-parameters cell (papermill makes a random one).
INJECTED_ID = "injected-parameters"


def parameter_path(path: str, out_dir: str | os.PathLike[str]) -> str:
    """A parameter's path as the saved notebook names it: a bundled file relative to the package, a local
    file relative to ``out_dir`` (``/`` separators), a URL or a relative path as given."""
    from .paths import _is_url

    if not path or _is_url(path) or not os.path.isabs(path):
        return path
    full = Path(os.path.abspath(path))
    package = Path(os.path.abspath(PACKAGE_DIR))
    if package in full.parents:
        return full.relative_to(package).as_posix()
    try:
        return Path(os.path.relpath(full, os.path.abspath(out_dir))).as_posix()
    except ValueError:  # another drive
        return path


def portable_parameters(params: Mapping[str, Any], work_dir: str | os.PathLike[str],
                        out_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """``params`` with every path relative to the output folder (the temporary ``work_dir`` the run wrote
    into counts as the output folder)."""
    work = os.path.abspath(work_dir)

    def fix(v: Any) -> Any:
        if isinstance(v, str):
            if v == work or v.startswith(work + os.sep):
                return Path(os.path.relpath(v, work)).as_posix()
            return parameter_path(v, out_dir)
        if isinstance(v, list):
            return [fix(x) for x in v]
        return v

    return {k: fix(v) for k, v in params.items()}


def reproducible(nb: Any, params: Mapping[str, Any], work_dir: str | os.PathLike[str],
                 out_dir: str | os.PathLike[str], notebook: str | os.PathLike[str],
                 inputs: Sequence[str] = ()) -> Any:
    """``nb`` (the executed NotebookNode, changed in place and returned) made the same for the same inputs:
    no timing metadata, the kernel's ``language_info`` reduced to the language name, the injected cell with
    a fixed id and its parameters (and papermill's copy of them) free of machine paths, every output
    (tables, charts, text) naming ``inputs`` and the package as ``decision.json`` does (:mod:`.paths`), and the
    figures in the charts' JSON rounded to their published precision (6 significant digits)."""
    from nbformat import from_dict

    from .paths import display_path, path_map, relocate

    portable = portable_parameters(params, work_dir, out_dir)
    names = {**path_map(inputs, out_dir), os.path.abspath(work_dir): "."}
    names = dict(sorted(names.items(), key=lambda kv: -len(kv[0])))
    for cell in nb.cells:
        for key in _TIMING_KEYS:
            cell.metadata.pop(key, None)
        for out in cell.get("outputs") or []:
            if "data" in out:
                out["data"] = from_dict(_published_json(relocate(dict(out["data"]), names)))
            if isinstance(out.get("text"), str):
                out["text"] = relocate(out["text"], names)
        if "injected-parameters" in (cell.metadata.get("tags") or []):
            cell["id"] = INJECTED_ID
            cell.source = _codify(portable)
    nb.metadata["language_info"] = {"name": str((nb.metadata.get("language_info") or {}).get("name") or "python")}
    pm = nb.metadata.get("papermill")
    if isinstance(pm, dict):
        for key in _RUN_KEYS:
            pm.pop(key, None)
        pm["parameters"] = portable
        pm["input_path"] = display_path(os.fspath(notebook), out_dir)
        pm["output_path"] = "report.ipynb"
    return nb


def _published_json(data: dict[str, Any]) -> dict[str, Any]:
    """An output's mime bundle with the floats of its JSON outputs (the charts' Vega-Lite specs and their data)
    rounded as every published figure is (:mod:`costmodel.foundation.published`): the same HTML bytes on
    every machine."""
    from ..foundation.published import published

    return {mime: published(v) if mime.endswith("json") and isinstance(v, (dict, list)) else v
            for mime, v in data.items()}


def _literal(value: Any) -> str:
    """One value as papermill's Python translator writes it (``PythonTranslator.translate``), without importing
    papermill (a second or more at start-up): strings double-quoted with ``unicode_escape`` and escaped quotes,
    numbers and booleans as Python prints them, lists element by element, mappings with string keys."""
    import math

    if value is None or isinstance(value, (bool, int)):
        return f"{value}"
    if isinstance(value, float):
        if math.isfinite(value):
            return f"{value}"
        return "float('nan')" if math.isnan(value) else ("float('-inf')" if value < 0 else "float('inf')")
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_literal(str(k))}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    text = str(value).encode("unicode_escape").decode("utf-8").replace('"', r'\"')
    return f'"{text}"'


def _codify(params: Mapping[str, Any]) -> str:
    """The injected-parameters cell's source as papermill writes it for a Python kernel (without black installed:
    ``# Parameters`` and one assignment per line); tests/report compares it with papermill's own."""
    return "# Parameters\n" + "".join(f"{name} = {_literal(value)}\n" for name, value in params.items())
