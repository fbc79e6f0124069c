"""A folder of files with known sizes and pseudo-random content for the ``costmodel bench`` tests, and the
pattern of the familiar client's per-pass line."""
from __future__ import annotations

import os
import re
from pathlib import Path

LINE_RE = re.compile(r"^pass=(\d+) data=(\d+\.\d\d) GiB time=(\d+\.\d\d)s throughput=(\d+\.\d\d) GiB/s$")
GIB = 2**30


def make_tree(root: Path, sizes: dict[str, int], seed: int = 7) -> Path:
    """Files with pseudo-random content, flushed to disk (so eviction can drop clean pages)."""
    import random

    rnd = random.Random(seed)
    for rel, size in sizes.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "wb") as fh:
            fh.write(rnd.randbytes(size))
            fh.flush()
            os.fsync(fh.fileno())
    return root


SIZES = {"a/b.bin": 300_000, "a-c.bin": 1_000_001, "z/y/x.bin": 50_000, "m.bin": 4096, "e.bin": 0, "big.bin": 2_500_000}
