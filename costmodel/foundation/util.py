"""Small shared helpers: atomic writes, hashing, strict JSON, dataclass fields as a dict, finite numbers,
numbers from the environment."""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import errno
import hashlib
import json
import math
import os
import sys
from collections.abc import Collection, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
    import numpy as np


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` only if the block succeeds.

    Nothing half-written is ever left at ``path``: on any exception (a signal included) the temporary
    file is removed. An OS error while writing (disk full, permission denied, read-only file system,
    name too long, a folder in the way) becomes an :class:`~costmodel.foundation.errors.OutputError` naming
    ``path`` and the cause.
    """
    from .safeio import writing

    target = Path(path)
    with writing(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        from .leftovers import owned_tempname

        tmp_path = owned_tempname(target)  # named by this process: a killed run's is swept by the next one
    try:
        with writing(target, rename={str(tmp_path): str(target)}):
            # made inside the try: a signal the moment after it exists still removes it (the name is ours)
            while True:
                try:
                    os.close(os.open(tmp_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                    break
                except FileExistsError:
                    tmp_path = owned_tempname(target)
            yield tmp_path
            if target.is_dir():
                raise IsADirectoryError(errno.EISDIR, "Is a directory", str(target))
            os.replace(tmp_path, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def sha256_file(path: str | os.PathLike[str], chunk_bytes: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(chunk_bytes), b""):
            h.update(chunk)
    return h.hexdigest()


#: exact types :func:`to_jsonable` returns as they are (none of them has a ``to_dict``; subclasses, e.g. an
#: enum, take the general path)
_JSON_SAME = frozenset({str, int, bool, type(None)})


def to_jsonable(obj: Any) -> Any:
    """Convert numpy/pandas scalars, dataclasses with ``to_dict``, paths, NaN/inf (-> None) to JSON types."""
    t = type(obj)
    if t is dict:  # the plain containers and leaves first, in loops (results hold thousands of numbers)
        return _jsonable_dict(obj)
    if t is list or t is tuple:
        return _jsonable_list(obj)
    if t in _JSON_SAME:
        return obj
    if t is float:
        return obj if math.isfinite(obj) else None
    return _to_jsonable_other(obj)


def _jsonable_dict(obj: dict[Any, Any]) -> dict[str, Any]:
    out = {}
    for k, v in obj.items():
        t = type(v)
        if t is float:
            out[k if type(k) is str else str(k)] = v if math.isfinite(v) else None
        elif t in _JSON_SAME:
            out[k if type(k) is str else str(k)] = v
        else:
            out[k if type(k) is str else str(k)] = to_jsonable(v)
    return out


def _jsonable_list(obj: list[Any] | tuple[Any, ...]) -> list[Any]:
    out = []
    for v in obj:
        t = type(v)
        if t is float:
            out.append(v if math.isfinite(v) else None)
        elif t in _JSON_SAME:
            out.append(v)
        else:
            out.append(to_jsonable(v))
    return out


def _to_jsonable_other(obj: Any) -> Any:
    if hasattr(obj, "to_dict") and not isinstance(obj, type) and not _is_pandas(obj):
        return to_jsonable(obj.to_dict())
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set)):
        return [to_jsonable(v) for v in obj]
    # numpy is not imported for this: no numpy object exists before someone imported it (start-up of the CLI)
    np_ = sys.modules.get("numpy")
    if np_ is not None and isinstance(obj, np_.ndarray):
        return _jsonable_list(obj.tolist())
    if isinstance(obj, bool) or (np_ is not None and isinstance(obj, np_.bool_)):
        return bool(obj)
    if np_ is not None and isinstance(obj, np_.integer):
        return int(obj)
    if isinstance(obj, float) or (np_ is not None and isinstance(obj, np_.floating)):
        f = float(obj)
        return f if math.isfinite(f) else None
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    if obj is None or isinstance(obj, (str, int)):
        return obj
    if _is_pandas(obj):
        import pandas as pd

        if isinstance(obj, pd.DataFrame):
            return to_jsonable(obj.to_dict(orient="records"))
        if isinstance(obj, pd.Series):
            return to_jsonable(obj.tolist())
    if hasattr(obj, "isoformat"):
        return obj.isoformat()
    return str(obj)


def jsonable_dicts(objs: Iterable[Any]) -> list[dict[str, Any]]:
    """Results with a ``to_dict`` (or mappings) as JSON-able dicts (:func:`to_jsonable` of each)."""
    return [to_jsonable(o.to_dict() if hasattr(o, "to_dict") else dict(o)) for o in objs]


def dataclass_dict(obj: Any, *, exclude: Collection[str] = (), rename: Mapping[str, str] | None = None,
                   lists: bool = False) -> dict[str, Any]:
    """The fields of dataclass ``obj`` as a dict, in declaration order: what a ``to_dict`` that lists its
    fields returns, written once.

    Values are copied like :func:`dataclasses.asdict` copies them (containers rebuilt, other values deep-copied),
    except that a nested object with its own ``to_dict`` gives that (its JSON contract, renamed keys included).
    ``exclude`` leaves fields out, ``rename`` maps a field name to its key (``{"after": "residency_after"}``),
    ``lists=True`` turns tuples into lists (JSON and papermill's YAML have no tuples).
    Raises TypeError when ``obj`` is no dataclass instance.
    """
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        raise TypeError(f"dataclass_dict() needs a dataclass instance, got {type(obj).__name__}")
    names = rename or {}
    return {names.get(f.name, f.name): _field_value(getattr(obj, f.name), lists)
            for f in dataclasses.fields(obj) if f.name not in exclude}


#: immutable leaves: returned as they are (what ``copy.deepcopy`` would return for them, without its cost)
_ATOMS = (str, int, float, bool, type(None))


def _field_value(v: Any, lists: bool) -> Any:
    if type(v) in _ATOMS:
        return v
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        own = getattr(v, "to_dict", None)
        return own() if callable(own) else dataclass_dict(v, lists=lists)
    if isinstance(v, tuple) and hasattr(v, "_fields"):  # a namedtuple keeps its type, as in asdict
        return type(v)(*[_field_value(x, lists) for x in v])
    if isinstance(v, (list, tuple)):
        items = [_field_value(x, lists) for x in v]
        return items if lists or isinstance(v, list) else tuple(items)
    if isinstance(v, dict):
        return {k: _field_value(x, lists) for k, x in v.items()}
    return copy.deepcopy(v)


def _is_pandas(obj: Any) -> bool:
    mod = type(obj).__module__
    return mod.startswith("pandas")


def dumps(obj: Any, indent: int | None = 2, *, exact: bool = False) -> str:
    """Strict JSON (no NaN tokens) of ``obj`` after :func:`to_jsonable`, every float rounded to its published
    precision (:func:`costmodel.foundation.published.published`: 6 significant digits, USD to the cent at
    least), so that the same inputs give the same bytes on every machine. ``exact=True`` keeps every bit."""
    from .published import published

    data = to_jsonable(obj)
    return json.dumps(data if exact else published(data), indent=indent, allow_nan=False, sort_keys=False)


def yaml_problem(exc: BaseException) -> str:
    """A one-line description of a YAML syntax error: ``not valid YAML at line N: problem``.

    Every loader of a user's YAML (scenario, workload, answers) raises its own error class with it.
    """
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or ["syntax error"])[0]
    from .safeyaml import YamlRefused

    if isinstance(exc, YamlRefused):  # a bound or a non-regular input, not a syntax error
        return f"{'line ' + str(mark.line + 1) + ': ' if mark is not None else ''}{problem}"
    return f"not valid YAML{where}: {problem}"


def is_seed(value: object) -> TypeGuard[int | np.integer]:
    """True for a whole number >= 0, what ``numpy.random.default_rng`` accepts (a bool is not a seed)."""
    np_ = sys.modules.get("numpy")  # a numpy integer exists only once numpy is imported: not imported here
    whole = isinstance(value, int) or (np_ is not None and isinstance(value, np_.integer))
    return not isinstance(value, bool) and whole and bool(value >= 0)  # type: ignore[operator]


def finite_float(value: Any) -> float | None:
    """``value`` as a finite float, or None when it is missing, text, NaN or infinite."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def finite_number(value: Any) -> float | None:
    """:func:`finite_float` for a figure read from a result (JSON): a bool is None too, as a yes/no is no
    measurement (``True`` is not 1.0 USD)."""
    return None if isinstance(value, bool) else finite_float(value)


def env_int(name: str, default: int) -> int:
    """The positive integer in environment variable ``name`` (at least 1), ``default`` when unset or not an integer."""
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


def require(module: str, extra: str, feature: str) -> Any:
    """Import and return the optional dependency ``module`` (dotted name).

    Raises :class:`~costmodel.foundation.errors.MissingExtraError` when it is not installed, naming the
    ``pip install "xregion-costmodel[extra]"`` that brings it, e.g. ``require("duckdb", "fleet", "fleet aggregation")``.
    """
    import importlib

    from .errors import MissingExtraError, pip_install_hint

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        raise MissingExtraError(
            f"{feature} needs {top} ({exc.name or top} is not installed): {pip_install_hint(extra)}"
        ) from None


#: The modules each extra brings that the code imports (checked by :func:`require_extra`).
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "report": ("papermill", "nbformat", "nbconvert", "mistune", "bs4", "ipykernel", "altair", "vl_convert"),
    "lab": ("ipywidgets", "jupyterlab"),
    "sim": ("numba",),
    "fleet": ("duckdb",),
    "distributed": ("dask", "distributed"),
    "cloud": ("fsspec",),
}


def require_extra(extra: str, feature: str, modules: tuple[str, ...] | None = None) -> None:
    """Check, without importing them, that the modules of ``extra`` (default :data:`EXTRA_MODULES`) are
    installed; raise :class:`~costmodel.foundation.errors.MissingExtraError` naming the first missing one and the
    ``pip install "xregion-costmodel[extra]"`` that brings it. Cheap: used before a verb starts any work."""
    import importlib.util

    from .errors import MissingExtraError, pip_install_hint

    for module in modules if modules is not None else EXTRA_MODULES[extra]:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise MissingExtraError(
                f"{feature} needs {module} (not installed): {pip_install_hint(extra)}"
            )
