"""What every price importer shares: the error, the per-file summary, the catalog row and reading helpers
(exact decimals, dates, streaming JSON with byte offsets). The importers are :mod:`.import_aws`,
:mod:`.import_gcp` and :mod:`.import_azure`; :mod:`.importers` detects the format and writes the catalog."""
from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..foundation.errors import PriceError
from ..foundation.fields_json import FieldsJson

HEAD_BYTES = 65536  # how much of a file the format sniffers and the AWS offer header read


class PriceImportError(PriceError):
    """A price file that cannot be read: the message names the file and the position."""

    def __init__(self, message: str, *, path: str | None = None, key: str | None = None) -> None:
        super().__init__(message)
        self.file = path


@dataclass
class FileSummary(FieldsJson):
    """What one input file gave: ``rows`` written, ``skipped`` records that are not catalog items (counted,
    never silently dropped), the detected ``format`` and ``as_of`` range."""

    path: str
    format: str
    output: str = ""
    rows: int = 0
    skipped: int = 0
    as_of_min: str | None = None
    as_of_max: str | None = None
    items: dict[str, int] = field(default_factory=dict)
    skip_reasons: dict[str, int] = field(default_factory=dict)
    #: the date stated with ``--as-of`` for files that carry none (SkyPilot catalogs); '' = undated
    as_of_stated: str = ""
    #: which row was kept where an imported row met a catalog row of the same item and region (older never wins)
    kept: list[str] = field(default_factory=list)

    def skip(self, reason: str = "not a catalog item", n: int = 1) -> None:
        """Count ``n`` records that give no catalog row, under ``reason`` (printed; never silently dropped)."""
        if n > 0:
            self.skipped += n
            self.skip_reasons[reason] = self.skip_reasons.get(reason, 0) + n


Row = dict[str, str]


# ----------------------------------------------------------------------------------------- helpers
def _decimal_text(text: Any) -> str:
    """A price or bound as a plain decimal string (no exponent, trailing zeros trimmed)."""
    d = Decimal(str(text))
    s = format(d.normalize(), "f")
    return s if s != "-0" else "0"


def _row(provider: str, item: str, src: str, dst: str, unit: str, usd: Any, source: str, as_of: str,
         notes: str = "", tier_start: Any = "", tier_end: Any = "") -> Row:
    return {
        "provider": provider, "item": item, "src_region": src, "dst_region": dst, "unit": unit, "usd": _decimal_text(usd),
        "source": source, "as_of": as_of, "verified": "yes", "notes": notes,
        "tier_start": "" if tier_start in ("", None) or Decimal(str(tier_start)) == 0 else _decimal_text(tier_start),
        "tier_end": "" if tier_end in ("", None, "Inf", "inf") else _decimal_text(tier_end),
    }


def _date(text: Any) -> str:
    """``YYYY-MM-DD`` from an ISO timestamp (``2023-03-22T14:56:51Z``); '' when absent."""
    m = re.match(r"\s*(\d{4}-\d{2}-\d{2})", str(text or ""))
    return m.group(1) if m else ""


def _norm(key: str) -> str:
    """Attribute names of the JSON and CSV offers in one key space: ``Instance Type`` == ``instanceType``."""
    return re.sub(r"[^a-z0-9]", "", key.lower())


class _CountingReader(io.RawIOBase):
    """A binary reader that remembers how many bytes were handed out (the parse position for errors)."""

    def __init__(self, fh: Any) -> None:
        self._fh = fh
        self.pos = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        data = self._fh.read(len(b))
        n = len(data)
        b[:n] = data
        self.pos += n
        return n


def _require_ijson() -> Any:
    try:
        import ijson  # imported where the JSON formats need it
    except ImportError:  # pragma: no cover - ijson is a core dependency
        raise PriceImportError("reading JSON price files needs ijson: pip install ijson") from None
    return ijson


class _UniqueKeysIjson:
    """ijson whose ``items``/``kvitems`` refuse an object with a key given twice (``{"rate": "36.42", "rate":
    "0.0001"}`` is an error, never the last value). The objects are built as
    :class:`~costmodel.foundation.numbers.NotedKeys` (the C backend ignores an error raised while it builds one)."""

    def __init__(self, ijson: Any) -> None:
        self._ij = ijson

    def items(self, f: Any, prefix: str, **kw: Any) -> Any:
        from ..foundation.numbers import DuplicateKey, NotedKeys, first_duplicate

        for obj in self._ij.items(f, prefix, map_type=NotedKeys, **kw):
            dup = first_duplicate(obj)
            if dup is not None:
                raise DuplicateKey(dup)
            yield obj

    def kvitems(self, f: Any, prefix: str, **kw: Any) -> Any:
        from ..foundation.numbers import DuplicateKey, NotedKeys, first_duplicate

        for key, obj in self._ij.kvitems(f, prefix, map_type=NotedKeys, **kw):
            dup = first_duplicate(obj)
            if dup is not None:
                raise DuplicateKey(dup)
            yield key, obj


def _stream(path: Path, fn: Callable[[Any, Any], Iterator[Any]]) -> Iterator[Any]:
    from ..foundation.numbers import DuplicateKey

    ijson = _require_ijson()
    with open(path, "rb") as raw:
        reader = _CountingReader(raw)
        buffered = io.BufferedReader(reader, buffer_size=1 << 16)
        try:
            yield from fn(_UniqueKeysIjson(ijson), buffered)
        except DuplicateKey as exc:
            raise PriceImportError(f"{path.name}: near byte {reader.pos}: {exc}", path=str(path)) from None
        except (RecursionError, MemoryError):
            raise PriceImportError(f"{path.name}: JSON nested too deeply (or too large) to read, near byte "
                                   f"{reader.pos}; a price listing nests a few levels", path=str(path)) from None
        except ijson.JSONError as exc:
            msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise PriceImportError(f"{path.name}: invalid JSON near byte {reader.pos}: {msg}", path=str(path)) from None
