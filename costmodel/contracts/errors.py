"""One way to turn a pydantic ValidationError into costmodel's errors, and one did-you-mean.

The message keeps what the hand-written validators said: the file, the key path (pydantic's ``loc``
joined with ``.``), what was expected, and for an unknown key the closest allowed one.
"""
from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

from ..foundation.errors import CostmodelError

__all__ = ["closest", "describe_error", "did_you_mean", "key_path", "raise_validation_error"]


def closest(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The choice closest to ``word``: (3+ letters) the first choice that starts with ``word``, else
    difflib's best with ratio >= ``cutoff``, else (3+ letters) the first choice containing ``word``; None
    when nothing is close."""
    options = [str(c) for c in choices]
    w = str(word)
    if len(w) >= 3:
        for c in options:
            if c.startswith(w) and c != w:
                return c
    close = difflib.get_close_matches(w, options, n=1, cutoff=cutoff)
    if close:
        return close[0]
    if len(w) >= 3:
        for c in options:
            if w in c:
                return c
    return None


def did_you_mean(word: str, choices: Iterable[str], cutoff: float = 0.6, *, paren: bool = False) -> str:
    """The one did-you-mean of costmodel: ``"; did you mean 'x'?"`` (``paren``: ``" (did you mean 'x'?)"``)
    for the :func:`closest` choice, '' when none is close."""
    c = closest(word, choices, cutoff)
    if c is None:
        return ""
    return f" (did you mean {c!r}?)" if paren else f"; did you mean {c!r}?"


def key_path(loc: Sequence[int | str]) -> str:
    """pydantic's ``loc`` as our key path: ``("dataset", "size_gb")`` -> ``dataset.size_gb``,
    list positions as ``[i]`` (``items[3].id``)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _model_at(model: type[BaseModel] | None, loc: Sequence[int | str]) -> type[BaseModel] | None:
    """The model class whose field the last element of ``loc`` names (for the allowed keys)."""
    cur: Any = model
    for part in loc[:-1]:
        if isinstance(part, int) or cur is None:
            continue
        fields = getattr(cur, "model_fields", {})
        f = fields.get(part) or next((v for v in fields.values() if v.alias == part), None)
        if f is None:
            return None
        cur = _inner_model(f.annotation)
    from pydantic import BaseModel

    return cur if isinstance(cur, type) and issubclass(cur, BaseModel) else None


def _inner_model(tp: Any) -> Any:
    from pydantic import BaseModel

    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return tp
    for arg in getattr(tp, "__args__", ()) or ():
        m = _inner_model(arg)
        if m is not None:
            return m
    return None


_KIND_WORDS = {"int": "a whole number", "float": "a number", "bool": "true or false", "string": "text",
               "dict": "a mapping of keys", "list": "a list", "model": "a mapping of keys"}


def _type_words(tp: Any) -> str:
    """Plain words for a field's type: ``int`` -> 'a whole number', a model -> 'a mapping of keys'."""
    inner = getattr(tp, "__origin__", None)
    if inner is not None and getattr(tp, "__metadata__", None) is not None:  # Annotated[...]
        tp = tp.__origin__
    if tp is int:
        return "a whole number"
    if tp is float:
        return "a number"
    if tp is str:
        return "text"
    if tp is bool:
        return "true or false"
    from pydantic import BaseModel

    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return f"a mapping of keys ({', '.join(allowed_keys(tp))})"
    return "a value"


def allowed_keys(model: type[BaseModel]) -> list[str]:
    """The keys a model accepts (aliases where they are set)."""
    return [f.alias or name for name, f in model.model_fields.items()]


def describe_error(err: dict[str, Any], model: type[BaseModel] | None = None) -> tuple[str, str]:
    """(key path, what was wrong and what was expected) for one pydantic error dict."""
    loc = tuple(err.get("loc", ()))
    path = key_path(loc)
    kind = err.get("type", "")
    got = err.get("input")
    if kind == "extra_forbidden":
        leaf = str(loc[-1]) if loc else ""
        owner = _model_at(model, loc)
        allowed = allowed_keys(owner) if owner is not None else []
        tail = f"{did_you_mean(leaf, allowed)}; allowed here: {', '.join(allowed)}" if allowed else ""
        return path, f"unknown key{tail}"
    if kind == "missing":
        owner = _model_at(model, loc)
        f = owner.model_fields.get(str(loc[-1])) if owner is not None and loc else None
        want = _type_words(f.annotation) if f is not None else "a value"
        desc = f" ({f.description})" if f is not None and f.description else ""
        return path, f"missing; expected {want}{desc}"
    ctx = err.get("ctx") or {}
    base = kind.split("_")[0] if kind.endswith(("_type", "_parsing", "_from_float")) else ""
    words = _KIND_WORDS.get(base)
    expected = words or ctx.get("expected") or str(err.get("msg", "a valid value")).replace("Input should be ", "")
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        sym = {"greater_than_equal": ">=", "greater_than": ">", "less_than_equal": "<=", "less_than": "<"}[kind]
        bound = next(iter(ctx.values()), "")
        bound_s = f"{bound:g}" if isinstance(bound, (int, float)) else str(bound)
        expected = f"a number {sym} {bound_s}"
    elif kind.startswith("literal_error") or kind == "enum":
        expected = f"one of {expected}"
        if isinstance(got, str):
            choices = [c.strip(" '\"") for c in str(ctx.get("expected", "")).replace(" or ", ", ").split(",")]
            expected += did_you_mean(got, [c for c in choices if c])
    elif kind.startswith("value_error") or kind == "assertion_error":
        expected = str(err.get("msg", "")).removeprefix("Value error, ")
        return path, f"got {got!r}; {expected}" if "got" not in expected else expected
    return path, f"got {got!r}; expected {expected}"



def raise_validation_error(
    exc: ValidationError,
    error: type[CostmodelError],
    *,
    source: str | None = None,
    model: type[BaseModel] | None = None,
    prefix: Sequence[str] = (),
    key_format: str = "{}",
    **extra: Any,
) -> NoReturn:
    """Raise ``error`` for the first problem in ``exc``: ``SOURCE: KEY.PATH: what; expected ...`` (plus
    ``(N more problems)`` when pydantic found several). ``prefix`` is prepended to the key path (the
    section the model was validated for); ``key_format`` writes the key in the message (``"parameter {}"``).
    ScenarioError gets ``key=``/``path=``; others the whole text."""
    errs = exc.errors(include_url=False)
    first = dict(errs[0]) if errs else {"loc": (), "msg": str(exc)}
    path, what = describe_error(first, model)
    path = ".".join([*prefix, path]) if prefix and path else (".".join(prefix) or path)
    label = key_format.format(path) if path else ""
    if len(errs) > 1:
        what += f" ({len(errs) - 1} more problem{'s' if len(errs) > 2 else ''} after this one)"
    from ..foundation.errors import ScenarioError

    if issubclass(error, ScenarioError):
        raise error(what, key=path or None, path=source, **extra) from None
    where = f"{source}: " if source else ""
    raise error(f"{where}{label + ': ' if label else ''}{what}", key=path, **extra) from None
