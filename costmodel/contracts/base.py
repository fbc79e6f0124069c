"""The base of every result model: a figure (``Num``), an open object (``Obj``), :class:`Result` (reads leniently,
publishes strictly) and :class:`OpenSection` (an open object with typed keys, written back in its keys' order)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    Strict,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)

#: a figure: a JSON number or null. Strict: text ("0.5") and true/false are not figures (a bool is no
#: measurement), so a result written by another tool with a quoted number is refused naming the key.
Num = Annotated[float, Strict()] | None
Obj = dict[str, Any]


def _strict_schema(schema: dict[str, Any], cls: type[BaseModel]) -> None:
    """The published schema: no undeclared key, the contract keys required."""
    schema["additionalProperties"] = False
    contract = getattr(cls, "CONTRACT_KEYS", ())
    if contract:
        schema["required"] = sorted(set(schema.get("required", [])) | set(contract))


class Result(BaseModel):
    """Base of every result model: reads leniently (extra keys kept), publishes strictly."""

    model_config = ConfigDict(extra="allow", json_schema_extra=_strict_schema, populate_by_name=True, defer_build=True)
    #: keys the published schema requires (the contract in docs/contracts.md)
    CONTRACT_KEYS: ClassVar[tuple[str, ...]] = ()

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON object (every key as read or computed, extras included)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)

    def given(self, name: str) -> Any:
        """The field ``name`` as given (read or computed), None when it was absent: a default is not data."""
        return getattr(self, name) if name in self.model_fields_set else None


class OpenSection(Result):
    """A typed view of an object that is open today (``dict`` in the schema): the modelled keys get their
    types, any other key is kept and published as allowed (``additionalProperties`` stays open). Written
    back in the order its keys were read, so typing a key does not move it in the JSON."""

    model_config = ConfigDict(extra="allow", json_schema_extra=None, populate_by_name=True, defer_build=True)
    _key_order: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _remember_key_order(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        model = handler(data)
        if isinstance(data, Mapping) and isinstance(model, OpenSection):
            model._key_order = tuple(data)
        return model

    @model_serializer(mode="wrap")
    def _in_key_order(self, handler: SerializerFunctionWrapHandler) -> Any:
        out = handler(self)
        if not self._key_order or not isinstance(out, dict):
            return out
        rank = {k: i for i, k in enumerate(self._key_order)}
        return dict(sorted(out.items(), key=lambda kv: rank.get(kv[0], len(rank))))
