"""Property-based tests (hypothesis) of the issue-27 guards, per reader and per YAML input they touch:

- the naming rule: any listed key either lands inside the copy folder or is refused (never outside, never another
  exception);
- the linear DLIO step pattern finds exactly what the former backtracking pattern found, on any line;
- the JSON depth bound agrees with the real nesting of any generated document;
- per-cell units: a column whose every cell states a byte-rate or time unit is converted cell by cell;
- the price catalog reader and the placement YAML loader raise only their own errors on any cell / any text.
Derandomised (same examples every run); more with FUZZ_EXAMPLES=N."""
from __future__ import annotations

import csv
import io
import json
import os
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from costmodel.foundation.errors import CostmodelError, IngestError, PriceError
from costmodel.foundation.limits import json_depth_exceeds
from costmodel.ingest.dlio import STEP_RE
from costmodel.ingest.frame import _convert_per_cell, cell_units, numeric_cells
from costmodel.jobs.storage import local_targets
from costmodel.prices.catalog import COLUMNS, read_price_csv

N = int(os.environ.get("FUZZ_EXAMPLES", "80"))
SETTINGS = settings(max_examples=N, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

KEY_PARTS = st.sampled_from(["..", ".", "", "a", "b.csv", "\\", "/", "\x00", "\x1b[2J", "C:", "x" * 260, "é", " "])


@SETTINGS
@given(parts=st.lists(KEY_PARTS, min_size=1, max_size=8), sep=st.sampled_from(["/", "", "\\"]))
def test_any_listed_key_lands_inside_or_is_refused(parts, sep):
    rel = sep.join(parts)
    with tempfile.TemporaryDirectory() as d:
        top = Path(d) / "000000"
        try:
            pairs, here = local_targets([f"s3://b/job/{rel}"], "s3://b/job", top, single=False)
        except IngestError as exc:
            assert "\n" not in str(exc) and "\x1b" not in str(exc) and "\x00" not in str(exc)
            return
        (_, dst), = pairs
        assert Path(dst).resolve().is_relative_to(Path(here).resolve())
        assert Path(here).resolve().is_relative_to(top.resolve())


_OLD_STEP = re.compile(
    r"(?:\[(?P<level>\w+)\]\s+)?(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)?.*?Rank (?P<rank>\d+) step (?P<step>\d+)"
    r"(?::| processed)\s*(?:loaded\s+)?(?P<n>\d+) samples in (?P<t>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*s")
PIECES = st.sampled_from(["[INFO] ", "[", "]", "2024-01-02T03:04:05.25 ", "2024-01-02T03:04:05 ", "Rank ", "3", "12",
                          " step ", ":", " processed ", "loaded ", " samples in ", "0.25", "1e-3", ".5", " s", "s", " ",
                          "x", "Rank 1 step 2 processed 32 samples in 0.5 s"])


@SETTINGS
@given(line=st.lists(PIECES, max_size=24).map("".join))
def test_linear_dlio_pattern_matches_the_former_one(line):
    old, new = _OLD_STEP.search(line), STEP_RE.search(line)
    assert (old is None) == (new is None), line
    if old is not None:
        for g in ("rank", "step", "n", "t", "level", "ts"):
            assert new.group(g) == old.group(g), (g, line)


def _nested(depth: int, obj: bool) -> str:
    if depth == 0:
        return '"]["'
    inner = _nested(depth - 1, not obj)
    return '{"k": ' + inner + "}" if obj else "[1, " + inner + "]"


@SETTINGS
@given(depth=st.integers(0, 60), limit=st.integers(1, 60), obj=st.booleans())
def test_json_depth_bound_agrees_with_the_real_nesting(depth, limit, obj):
    text = _nested(depth, obj)
    json.loads(text)  # a valid document (brackets inside strings do not count)
    assert (json_depth_exceeds(text, limit) is not None) == (depth > limit)


RATE_UNITS = {"B/s": 1.0, "KiB/s": 2.0**10, "MiB/s": 2.0**20, "GiB/s": 2.0**30, "MB/s": 1e6, "GB/s": 1e9}
TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "min": 60.0}


@SETTINGS
@given(cells=st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(sorted(RATE_UNITS))), min_size=2, max_size=30),
       time=st.booleans())
def test_per_cell_units_convert_each_cell(cells, time):
    units = TIME_UNITS if time else RATE_UNITS
    cells = [(v, sorted(units)[sorted(RATE_UNITS).index(u) % len(units)] if time else u) for v, u in cells]
    texts = [f"{v} {u}" for v, u in cells]
    per = cell_units(texts)
    if len({u for _, u in cells}) == 1:
        assert per is None
        return
    a, _bad, _u = numeric_cells(texts)
    out, note = _convert_per_cell(a, per, "c", "step_time_s" if time else "read_bytes_per_s", "f.csv")
    assert np.allclose(out, [v * units[u] for v, u in cells]) and "each cell converted" in note
    with pytest.raises(IngestError, match="mixes units"):
        texts2 = [*texts, "7"]
        _convert_per_cell(numeric_cells(texts2)[0], cell_units(texts2), "c", "read_bytes_per_s", "f.csv")


CELL = st.one_of(st.text(max_size=12), st.sampled_from(["nan", "inf", "-1", "1e400", "0.1", "", "USD", "EUR", "yes"]))


@SETTINGS
@given(usd=CELL, currency=CELL, as_of=CELL, verified=CELL)
def test_price_rows_read_or_refused_by_price_errors_only(tmp_path, usd, currency, as_of, verified):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([*COLUMNS, "currency"])
    row = {"provider": "aws", "item": "inter_region", "src_region": "us-east-2", "dst_region": "us-west-2",
           "unit": "GB", "usd": usd, "source": "s", "as_of": as_of, "verified": verified, "notes": ""}
    w.writerow([row[c] for c in COLUMNS] + [currency])
    p = tmp_path / "t.csv"
    p.write_text(buf.getvalue(), encoding="utf-8")
    try:
        (r,) = read_price_csv(p)
    except PriceError as exc:
        assert "t.csv:2" in str(exc)
        return
    assert np.isfinite(r.usd) and r.usd >= 0 and currency.strip().upper() in ("", "USD")


YAMLISH = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=8)),
                       lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(st.text(max_size=6), c, max_size=3)),
                       max_leaves=12)


@SETTINGS
@given(edit=st.dictionaries(st.sampled_from(["candidates", "workload", "dataset", "prices", "horizon_months", "x"]),
                            YAMLISH, max_size=3))
def test_placement_yaml_raises_only_placement_errors(tmp_path, edit):
    import yaml
    from support.paths import EXAMPLES

    from costmodel.place.model import load_placement

    doc = yaml.safe_load((EXAMPLES / "placement.yaml").read_text())
    doc.update(edit)
    p = tmp_path / "placement.yaml"
    p.write_text(yaml.safe_dump(doc))
    try:
        load_placement(p)
    except CostmodelError as exc:
        assert "\n" not in str(exc).strip()
