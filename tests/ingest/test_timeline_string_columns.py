"""to_timeline's run_id and role columns: the same Series, down to the Arrow buffers, as a list of n strings gives."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from costmodel.foundation.schema import _constant_strings, to_timeline


def _arrow(s: pd.Series) -> list[bytes | None]:
    arr = pa.array(s.array)
    return [str(arr.type).encode(), *(b.to_pybytes() if b is not None else None for b in arr.buffers())]


@pytest.mark.parametrize("value", ["job1", "", "rémote 東京", "x" * 300])
@pytest.mark.parametrize("n", [0, 1, 2, 100_000])
def test_constant_strings_are_the_list_built_series(value: str, n: int):
    index = pd.RangeIndex(n) if n != 2 else pd.Index([7, 3])
    got = _constant_strings(value, index)
    want = pd.Series([value] * n, dtype="string", index=index)
    assert got.dtype == want.dtype and got.index.equals(want.index) and got.equals(want)
    assert _arrow(got) == _arrow(want)  # no validity buffer added, the same offsets and bytes


def test_to_timeline_string_columns_hold_the_run_and_role():
    df = pd.DataFrame({"step": np.arange(5), "samples_per_s": np.linspace(1.0, 2.0, 5)})
    t = to_timeline(df, "run-a", "remote")
    assert t["run_id"].tolist() == ["run-a"] * 5 and t["role"].tolist() == ["remote"] * 5
    assert str(t["run_id"].dtype) == "string" and list(t.index) == list(range(5))
