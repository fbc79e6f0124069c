"""A result's JSON object generated from its fields: the one serializer of the results that are dataclasses.

A result declares how its fields become its JSON object (:class:`JsonKeys`) and inherits :class:`FieldsJson`,
whose one ``to_dict`` builds the object; no result writes the keys out by hand. The declaration covers what
the contracts need: the fields in declaration order (less ``exclude``, with ``rename``), or an explicit key
list when the published order is not the fields' order, keys taken from a nested attribute (``id=item.id``),
derived keys (a property or a method without arguments, called), a mapping spread at the top level
(``**summary``), keys left out when ``None`` and tuples as lists. Values are copied as
:func:`costmodel.foundation.util.dataclass_dict` copies them (a nested result gives its own ``to_dict``);
the published rounding is applied where the object becomes text (:func:`costmodel.foundation.util.dumps`).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True)
class JsonKeys:
    """How a dataclass result's fields become its JSON object.

    ``keys``: the object's keys in order, when they are not the fields in declaration order. Each entry is
    ``"name"`` (the attribute of that name), ``"key=path"`` (the attribute at the dotted ``path``: each step an
    attribute, or a key of a mapping; a method on the way is called without arguments) or ``"**path"`` (the
    mapping at ``path`` spread at that place; a later key of the same name replaces its value in place, as
    :meth:`dict.update` does). Without ``keys``: the fields in declaration order less ``exclude``, renamed by
    ``rename`` (field -> key), then the entries of ``extra`` (same syntax as ``keys``).
    ``omit_none``: keys left out when their value is None (or empty text). ``lists``: tuples become lists (JSON
    and papermill's YAML have no tuples). ``jsonable``: the object passed through
    :func:`costmodel.foundation.util.to_jsonable` (numpy scalars, paths and NaN made JSON types).
    """

    keys: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    rename: Mapping[str, str] = field(default_factory=dict)
    extra: tuple[str, ...] = ()
    omit_none: tuple[str, ...] = ()
    lists: bool = False
    jsonable: bool = False


class FieldsJson:
    """Mixin of a dataclass result: ``to_dict()`` is its JSON object, generated from its :data:`JSON`
    declaration (the fields in order when it declares nothing)."""

    JSON: ClassVar[JsonKeys] = JsonKeys()

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this result (its contract: keys and their order as declared)."""
        return fields_json(self, type(self).JSON)


def fields_json(obj: Any, spec: JsonKeys) -> dict[str, Any]:
    """The JSON object of dataclass ``obj`` as ``spec`` declares it. Raises TypeError when ``obj`` is no
    dataclass instance and ``spec`` lists no keys; AttributeError naming the path when an entry names none."""
    from .util import _field_value, dataclass_dict, to_jsonable

    if spec.keys:
        entries = spec.keys
        out: dict[str, Any] = {}
    else:
        out = dataclass_dict(obj, exclude=spec.exclude, rename=spec.rename, lists=spec.lists)
        entries = spec.extra
    for entry in entries:
        if entry.startswith("**"):
            out.update(_field_value(dict(_resolve(obj, entry[2:])), spec.lists))
            continue
        key, _, path = entry.partition("=")
        out[key] = _field_value(_resolve(obj, path or key), spec.lists)
    for key in spec.omit_none:
        if key in out and (out[key] is None or out[key] == ""):
            del out[key]
    return to_jsonable(out) if spec.jsonable else out


def _resolve(obj: Any, path: str) -> Any:
    cur = obj
    for step in path.split("."):
        if isinstance(cur, Mapping):
            cur = cur.get(step)
        else:
            cur = getattr(cur, step)
            if callable(cur) and not isinstance(cur, type) and not dataclasses.is_dataclass(cur):
                cur = cur()
    return cur


__all__ = ["FieldsJson", "JsonKeys", "fields_json"]
