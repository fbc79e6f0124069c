"""Issue 42 item 4: CSV blocks parsed concurrently give the same run as one block parsed alone: the same rows,
the same rejected lines in file order, the same missing cells, also when a column turns to text mid-file."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from costmodel.ingest import csv_blocks, load

MALFORMED = (1_000, 30_000, 55_000)  # data rows written with an extra field
LITERAL_NAN = 20_000  # samples_per_s (the primary metric) written as "nan": rejects its row
TEXT_CELL = 40_000  # gpu_util_pct written as "err": the column turns to text from that block on; the cell is missing


def _csv(tmp_path: Path, n: int = 60_000) -> Path:
    rows = ["step,t_s,samples_per_s,gpu_util_pct"]
    for i in range(n):
        sps = "nan" if i == LITERAL_NAN else f"{380 + (i % 7) * 0.5:.1f}"
        util = "err" if i == TEXT_CELL else f"{90 + i % 9}"
        extra = ",1" if i in MALFORMED else ""
        rows.append(f"{i},{0.28 * (i + 1):.3f},{sps},{util}{extra}")
    p = tmp_path / "steps.csv"
    p.write_text("\n".join(rows) + "\n")
    return p


def _summary(path: Path) -> tuple:
    (run,) = load(path)
    tab = run.table
    return (run.rows, [(r.line, r.reason) for r in run.rejected], run.metadata.get("missing_cells"),
            tab["step"].to_numpy().tolist(), np.nan_to_num(tab["gpu_util"].to_numpy(), nan=-1).tolist())


@pytest.mark.parametrize("ahead", [0, 3])
def test_small_concurrent_blocks_give_the_one_block_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           ahead: int) -> None:
    p = _csv(tmp_path)
    assert p.stat().st_size > 1 << 20  # one default block ...
    whole = _summary(p)
    monkeypatch.setattr(csv_blocks, "STREAM_BLOCK_BYTES", 64 << 10)  # ... or ~25 blocks, parsed `ahead` at once
    monkeypatch.setattr(csv_blocks, "BLOCKS_AHEAD", ahead)
    assert _summary(p) == whole
    rows, rejected, missing, steps, util = whole
    # line = data row + 2 (header on line 1), in file order: the malformed rows and the literal NaN
    assert [line for line, _why in rejected] == [1_002, 20_002, 30_002, 55_002]
    assert [why for _line, why in rejected] == ["malformed row: expected 4 fields, found 5",
                                                "samples_per_s: not a number (expected a finite number)"] + \
        ["malformed row: expected 4 fields, found 5"] * 2
    assert rows == 60_000 - 4 and len(steps) == rows
    assert missing["gpu_util"]["count"] == 1 and missing["gpu_util"]["first_lines"] == [TEXT_CELL + 2]
    assert util[steps.index(TEXT_CELL)] == -1
    assert util[steps.index(TEXT_CELL + 1)] == pytest.approx((90 + (TEXT_CELL + 1) % 9) / 100)
