"""What is generated from the one parameter model (:class:`costmodel.report.params.ReportParams`): the flags of
``costmodel report`` (:func:`add_arguments`, :func:`values_from`) and the report notebook's ``parameters`` cell
(:func:`parameters_cell`; tests/report checks the stored notebook against it). Light: no pydantic, no pandas, so
``costmodel --help`` stays fast."""
from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from .params import PARAMETERS, Param

#: argparse ``type`` per parameter kind (the model validates ranges and choices once, after parsing)
_TYPES: dict[str, Any] = {"float": float, "int": int}


def flag_of(name: str, p: Param) -> str:
    """The parameter's long flag: :attr:`Param.flag`, else ``--`` and the name with dashes."""
    return p.flag or "--" + name.replace("_", "-")


def _help(p: Param) -> str:
    text = p.help + (f" [{p.unit}]" if p.unit else "")
    return text.replace("%", "%%")  # argparse formats help with %


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per parameter of the model that has one (``flag`` not None), in the model's order: its kind
    decides the action (a list: ``nargs="+"`` or once per value with ``repeat``; ``bool``: a switch), its
    choices, metavar, default (:attr:`Param.on_cli`) and help (with the unit)."""
    for name, p in PARAMETERS.items():
        if p.flag is None:
            continue
        names = [flag_of(name, p), *([p.short] if p.short else [])]
        kw: dict[str, Any] = {"dest": name, "help": _help(p)}
        if p.kind == "bool":
            kw["action"] = "store_true"
        else:
            if p.metavar:
                kw["metavar"] = p.metavar
            if p.choices:
                kw["choices"] = list(p.choices)
            if p.kind in _TYPES:
                kw["type"] = _TYPES[p.kind]
            if p.required:
                kw["required"] = True
            else:
                default = p.on_cli
                kw["default"] = list(default) if isinstance(default, (list, tuple)) else default
            if p.kind in ("paths", "strs"):
                kw["action" if p.repeat else "nargs"] = "append" if p.repeat else "+"
        parser.add_argument(*names, **kw)


def values_from(args: argparse.Namespace) -> dict[str, Any]:
    """The parameters a parsed command line gives (every parameter with a flag), for
    :func:`costmodel.report.params.validate_parameters`."""
    return {name: getattr(args, name) for name, p in PARAMETERS.items() if p.flag is not None and hasattr(args, name)}


#: the annotation each kind is written with in the notebook
_ANNOTATIONS = {"paths": "list", "strs": "list", "path": "str", "str": "str", "float": "float", "int": "int",
                "bool": "bool"}


def _literal(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def parameters_cell(spec: Mapping[str, Param] = PARAMETERS, width: int = 118) -> str:
    """The report notebook's ``parameters`` cell: one annotated literal per parameter with its help as the comment
    (papermill's ``inspect_notebook`` reads both; a long help goes on in comment lines below, lines <= ``width``)."""
    import textwrap

    lines = ["# Parameters, generated from costmodel.report.params.ReportParams (`make reference`): papermill injects",
             "# overrides after this cell, the next cell validates them."]
    for name, p in spec.items():
        unit = f" [{p.unit}]" if p.unit else ""
        head = f"{name}: {_ANNOTATIONS[p.kind]} = {_literal(p.default)}  # "
        wrapped = textwrap.wrap(p.help + unit, width=max(40, width - len(head)), break_on_hyphens=False)
        lines.append(head + wrapped[0])
        lines += [" " * (len(head) - 2) + "# " + more for more in wrapped[1:]]  # comment lines: papermill skips them
    return "\n".join(lines)
