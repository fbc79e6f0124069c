"""The column mapping of ``--map source_col=timeline_col[:unit]`` (CLI) and the report's ``map`` parameter."""
from __future__ import annotations

from ..foundation.errors import IngestError


def parse_map(items: list[str]) -> dict[str, tuple[str, str | None]]:
    """Parse ``source_col=timeline_col[:unit]`` items into ``{source_col: (timeline_col, unit or None)}``.

    Raises :class:`~costmodel.foundation.errors.IngestError` (field ``--map``) for an item without ``=`` or with an
    empty side."""
    out: dict[str, tuple[str, str | None]] = {}
    for item in items:
        if "=" not in item:
            raise IngestError(f"--map expects source_col=timeline_col[:unit], got {item!r}", field="--map")
        src, dst = item.split("=", 1)
        unit = None
        if ":" in dst:
            dst, unit = dst.split(":", 1)
        if not src or not dst:
            raise IngestError(f"--map expects source_col=timeline_col[:unit], got {item!r}", field="--map")
        out[src] = (dst, unit or None)
    return out
