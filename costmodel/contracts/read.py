"""Results read back from JSON (``decide --compare/--cost/--fit``, ``cost --from-compare``, the checklist
walk-through): one reader, validated by the result models, one wording of the errors.

Accepted: the object the verb prints, a one-element list of it, or a report's ``decision.json`` (its
``compare`` / ``cost`` / ``fit`` key). The keys of :data:`~.results.READ_REQUIRED` must be present (null
allowed); every modelled key must have its type (``ratio: "fast"`` is an error naming the key).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..foundation.errors import CostmodelError
from .errors import raise_validation_error
from .results import READ_REQUIRED, RESULT_MODELS, CompareRecord, CostRecord, FitRecord

__all__ = ["load_result", "looks_like", "read_compare", "read_cost", "read_fits", "read_json_file", "read_lenient",
           "read_result"]

M = TypeVar("M", bound=BaseModel)


def read_json_file(path: str | os.PathLike[str], where: str, error: type[CostmodelError]) -> Any:
    """The parsed JSON of the regular file ``path`` (a FIFO, device or folder is refused, never waited on),
    or of standard input when ``path`` is ``-`` (a pipe: ``costmodel compare ... --json | costmodel decide
    --compare - ...``). ``where`` starts every message (``--compare c.json``); ``error`` is the class raised:
    no such file, unreadable, not UTF-8, not valid JSON (with its line), nested too deeply."""
    import json

    from ..foundation.safeio import read_input_text

    try:
        if os.fspath(path) == "-":
            from ..foundation import stdin
            from ..foundation.safeio import MAX_TEXT_BYTES

            raw = stdin.read_bytes(MAX_TEXT_BYTES)  # bounded as a file is; its SHA-256 kept for the ADR's inputs
            if len(raw) > MAX_TEXT_BYTES:
                named = where[:-1] + stdin.NAME if where.endswith(" -") else where
                raise error(f"{named}: more than {MAX_TEXT_BYTES:,} bytes on standard input; refused (a verb's "
                            "--json output is a few KiB)")
            text = raw.decode("utf-8")
            if not text.strip():
                raise error(f"{where}: standard input is empty (pipe a verb's --json output into it)")
        else:
            text = read_input_text(Path(path))
    except FileNotFoundError:
        raise error(f"{where}: file does not exist") from None
    except OSError as exc:
        raise error(f"{where}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise error(f"{where}: cannot read: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{where}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise error(f"{where}: nested too deeply to be a costmodel JSON output") from None


def load_result(path: str | os.PathLike[str], verb: str, where: str, error: type[CostmodelError]) -> Any:
    """:func:`read_json_file` then :func:`read_result`: the result of ``verb`` in the file ``path``."""
    return read_result(read_json_file(path, where, error), verb, where, error)


def looks_like(data: Any) -> str:
    """Which verb's output ``data`` looks like ('' when none), for error messages."""
    items = data if isinstance(data, list) else [data]
    for verb, keys in READ_REQUIRED.items():
        if items and all(isinstance(d, Mapping) and all(k in d for k in keys) for d in items):
            return verb
    return ""


def _unwrap(data: Any, verb: str) -> Any:
    """The verb's part of ``data``: a one-element list's element, or a report's decision.json's key."""
    if verb == "fit":
        if isinstance(data, Mapping) and "checklist" in data and isinstance(data.get("fit"), list):
            return data["fit"]
        return data
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if isinstance(data, Mapping) and isinstance(data.get(verb), Mapping) and \
            not all(k in data for k in READ_REQUIRED[verb]):
        return data[verb]
    return data


def read_result(data: Any, verb: str, where: str, error: type[CostmodelError]) -> Any:
    """``data`` (parsed JSON) as the model of ``verb`` ('compare', 'cost'; 'fit' gives a list of
    FitRecord). ``where`` starts every message (``--compare c.json``); ``error`` is the class raised."""
    data = _unwrap(data, verb)
    keys = READ_REQUIRED[verb]
    model = RESULT_MODELS[verb]

    def fail(text: str) -> CostmodelError:
        return error(f"{where}: {text}")

    if verb == "fit":
        items = data if isinstance(data, list) else [data]
        out = []
        for i, f in enumerate(items):
            missing = [k for k in keys if not isinstance(f, Mapping) or k not in f]
            if missing:
                like = looks_like(data)
                got = f" (this looks like `costmodel {like} --json` output)" if like else ""
                raise fail(f"item {i}: expected a fit from `costmodel fit --json` (keys {', '.join(keys)}); "
                           f"missing key(s) {', '.join(missing)}{got}")
            out.append(validate_result(FitRecord, f, f"{where}: item {i}", error))
        return out
    expected = f"the JSON object printed by `costmodel {verb} --json` (keys {', '.join(keys)})"
    if not isinstance(data, Mapping):
        like = looks_like(data)
        got = f"`costmodel {like} --json` output" if like else (
            f"a list of {len(data)} items" if isinstance(data, list) else type(data).__name__)
        raise fail(f"expected {expected}, got {got}")
    missing = [k for k in keys if k not in data]
    if missing:
        like = looks_like(data)
        got = f" (this looks like `costmodel {like} --json` output)" if like else ""
        raise fail(f"expected {expected}; missing key(s) {', '.join(missing)}{got}")
    return validate_result(model, data, where, error)


def validate_result(model: Any, data: Any, where: str, error: type[CostmodelError]) -> Any:
    """``data`` validated by the result ``model``; ``error`` ``WHERE: KEY: what; expected ...`` otherwise."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise_validation_error(exc, error, source=where, model=model)
        raise  # pragma: no cover - raise_validation_error always raises


def read_compare(data: Any, where: str, error: type[CostmodelError]) -> CompareRecord:
    """A compare result (see :func:`read_result`)."""
    return read_result(data, "compare", where, error)


def read_cost(data: Any, where: str, error: type[CostmodelError]) -> CostRecord:
    """A cost result (see :func:`read_result`)."""
    return read_result(data, "cost", where, error)


def read_fits(data: Any, where: str, error: type[CostmodelError]) -> list[FitRecord]:
    """The fits of ``costmodel fit --json`` (a list, one object, or decision.json's ``fit``)."""
    return read_result(data, "fit", where, error)


_GONE = object()  # marks a value read_lenient leaves out


def read_lenient(model: type[M], data: Any,
                 prepare: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None) -> M | None:
    """``data`` as ``model``, for a reader that is tolerant by design (the checklist's evidence: partial or
    garbled results mean less evidence, never an error). A ``model`` instance is used as it is; a mapping,
    or an object with ``to_json_dict()`` / ``to_dict()``, is validated once, and a value that does not
    validate is left out as if absent (a key, or a list element) while the rest is kept. A missing required
    key reads as null, else as empty text; None when even that does not validate, or for anything else.
    ``prepare`` rewrites the mapping first (older shapes the reader still accepts)."""
    from ..foundation.util import to_jsonable

    if isinstance(data, model):
        return data
    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json", by_alias=True, exclude_unset=True)
    elif not isinstance(data, Mapping):
        to_dict = getattr(data, "to_json_dict", None) or getattr(data, "to_dict", None)
        if isinstance(data, type) or not callable(to_dict):
            return None
        try:
            data = to_dict()
        except Exception:  # noqa: BLE001 - tolerant: an object that cannot say what it holds is no result
            return None
        if not isinstance(data, Mapping):
            return None
    doc = to_jsonable(prepare(data) if prepare else data)  # a copy in JSON types (NaN and inf are null)
    filled: set[tuple[Any, ...]] = set()
    while True:
        try:
            return model.model_validate(doc)
        except ValidationError as exc:
            if not all(_leave_out(doc, tuple(e["loc"]), e["type"] == "missing", filled) for e in exc.errors()):
                return None
            doc = _without_gone(doc)


def _leave_out(doc: Any, loc: tuple[Any, ...], missing: bool, filled: set[tuple[Any, ...]]) -> bool:
    """Mark the value at ``loc`` left out (for a missing key: fill it with null, then empty text, then leave
    out the object that lacks it); False when the whole document would go."""
    parent: Any = None
    at: Any = None
    cur = doc
    walked: list[Any] = []
    for part in loc:  # as deep as the document goes (a union member's name in loc is not a key)
        if (isinstance(cur, dict) and part in cur) or (
                isinstance(cur, list) and isinstance(part, int) and 0 <= part < len(cur)):
            parent, at, cur = cur, part, cur[part]
            walked.append(part)
        else:
            break
    if missing and len(walked) == len(loc) - 1 and isinstance(cur, dict):
        for fill in (None, ""):
            if (*loc, fill) not in filled:
                filled.add((*loc, fill))
                cur[loc[-1]] = fill
                return True
        if parent is None:
            return False
        parent[at] = _GONE
        return True
    if parent is None:
        return False
    parent[at] = _GONE
    return True


def _without_gone(doc: Any) -> Any:
    if isinstance(doc, dict):
        return {k: _without_gone(v) for k, v in doc.items() if v is not _GONE}
    if isinstance(doc, list):
        return [_without_gone(v) for v in doc if v is not _GONE]
    return doc
