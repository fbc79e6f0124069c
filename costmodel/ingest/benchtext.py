"""The multi-pass read client's text output (validation.md), also printed by ``costmodel bench``::

    files=400 workers=8
    pass=1 data=0.78 GiB time=0.45s throughput=1.75 GiB/s
    pass=2 data=0.78 GiB time=0.18s throughput=4.33 GiB/s

One row per pass: ``step`` = pass number, ``bytes_read``, ``step_time_s``, ``t_s`` (cumulative elapsed),
``read_bytes_per_s``. GiB = 2^30 bytes. The header's counts go into the run metadata.
``No files found under ROOT`` is an error that says so; other lines are reported as warnings.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from ..foundation.errors import IngestError
from ..foundation.schema import Run
from .units import UNIT_FACTORS
from .validate import build_run, read_text, run_id_for

FORMAT = "benchtext"

_SIZE = r"([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*([KMGT]i?B|B)"
PASS_RE = re.compile(
    rf"^\s*pass=(\d+)\s+data={_SIZE}\s+time=([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*s\s+throughput={_SIZE}/s\b(.*)$"
)
HEADER_RE = re.compile(r"^\s*files=(\d+)\s+workers=(\d+)\b(.*)$")
NOFILES_RE = re.compile(r"No files found under (.*)$")


def sniff(head: str, path: Path) -> bool:
    return any(PASS_RE.match(line) or HEADER_RE.match(line) or NOFILES_RE.search(line) for line in head.splitlines()[:50])


def _bytes(value: str, unit: str) -> float:
    return float(value) * UNIT_FACTORS[unit.lower()]


def read(path: Path, options: Any) -> list[Run]:
    src = str(path)
    steps: list[int] = []
    data_b: list[float] = []
    time_s: list[float] = []
    rate: list[float] = []
    lines: list[int] = []
    meta: dict[str, Any] = {}
    warnings: list[str] = []
    text = read_text(path)
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        m = NOFILES_RE.search(line)
        if m:
            raise IngestError(
                f"the read client found no files under {m.group(1).strip()} (its output says 'No files found'); "
                "expected one line per pass: check the dataset path it was given",
                path=src,
                line=i,
            )
        m = HEADER_RE.match(line)
        if m:
            meta["files"] = int(m.group(1))
            meta["workers"] = int(m.group(2))
            rest = m.group(3).strip()
            meta.update(re.findall(r"(\w+)=(\S+)", rest))
            continue
        m = PASS_RE.match(line)
        if m:
            steps.append(int(m.group(1)))
            data_b.append(_bytes(m.group(2), m.group(3)))
            time_s.append(float(m.group(4)))
            rate.append(_bytes(m.group(5), m.group(6)))
            lines.append(i)
            continue
        warnings.append(f"{src}:{i}: line not recognised, not imported: {line.strip()[:120]!r}")
    if not steps:
        raise IngestError("no 'pass=N data=X GiB time=Ys throughput=Z GiB/s' line found", path=src)
    st = np.asarray(time_s)
    run = build_run(
        {
            "step": np.asarray(steps, dtype="float64"),
            "bytes_read": np.asarray(data_b),
            "step_time_s": st,
            "t_s": np.cumsum(st),
            "read_bytes_per_s": np.asarray(rate),
        },
        path=path,
        run_id=run_id_for(path, options),
        fmt=FORMAT,
        role=getattr(options, "role", "") or "",
        lines=np.asarray(lines),
        metadata={**meta, "units": "GiB = 2^30 bytes", "t_s_from": "cumsum(time)"},
        warnings=warnings,
        strict=getattr(options, "strict", False),
    )
    return [run]
