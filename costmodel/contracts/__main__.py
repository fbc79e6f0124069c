"""``python -m costmodel.contracts [DIR]``: write every JSON Schema to DIR (default docs/schema)."""
from __future__ import annotations

import sys

from .schema import write_all

if __name__ == "__main__":  # pragma: no cover - a shell
    for p in write_all(sys.argv[1] if len(sys.argv) > 1 else "docs/schema"):
        print(p)
