"""The disk cache of `costmodel place` (foundation.diskcache): a second run of the same file reads the what-if
predictions and the measured compare back instead of recomputing them, with the same answer to the byte; any
change of an input is a miss; a cache that cannot be used is a miss, never an error."""
from __future__ import annotations

import json
import shutil

import pytest

from costmodel.foundation import diskcache

TODAY = "2026-12-05"


@pytest.fixture()
def cache_on(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("COSTMODEL_CACHE", "1")
    monkeypatch.setenv("COSTMODEL_CACHE_DIR", str(d))
    return d


def _place(path, n=50):
    import datetime as dt

    from costmodel.place import place

    return place(path, monte_carlo_n=n, today=dt.date.fromisoformat(TODAY))


def _entries(d, kind):
    return sorted((d / kind).rglob("*.json")) if (d / kind).is_dir() else []


def test_a_second_run_reads_predictions_and_the_compare_back_with_the_same_answer(cache_on, examples_dir,
                                                                                  monkeypatch):
    first = _place(examples_dir / "placement.yaml")
    # the bundled example: 3 distinct links predicted (us-east-1, us-west-1, gcp), 1 measured compare
    assert len(_entries(cache_on, "prediction")) == 3
    assert len(_entries(cache_on, "compare")) == 1
    import costmodel.simulate
    import costmodel.warmup

    def boom(*a, **k):
        raise AssertionError("recomputed although cached")

    monkeypatch.setattr(costmodel.simulate, "simulate", boom)
    monkeypatch.setattr(costmodel.warmup, "compare", boom)
    second = _place(examples_dir / "placement.yaml")
    assert json.dumps(second, sort_keys=True) == json.dumps(first, sort_keys=True)
    kinds = {c["name"]: c["basis"]["kind"] for c in second["candidates"]}
    assert kinds["us-west-2 (measured)"] == "measured" and kinds["us-east-1"] == "predicted"


def test_the_cache_off_reads_and_writes_nothing(tmp_path, monkeypatch, examples_dir):
    monkeypatch.setenv("COSTMODEL_CACHE", "0")
    monkeypatch.setenv("COSTMODEL_CACHE_DIR", str(tmp_path / "c"))
    assert diskcache.cache_dir() is None
    diskcache.put("prediction", "ab" * 32, {"x": 1.0})
    assert not (tmp_path / "c").exists() and diskcache.get("prediction", "ab" * 32) is None


def test_a_changed_input_or_code_is_a_miss(cache_on):
    a = diskcache.key("prediction", {"doc": {"link": {"rtt_ms": 12}}, "seed": 0})
    assert a == diskcache.key("prediction", {"seed": 0, "doc": {"link": {"rtt_ms": 12}}})  # key order is not content
    assert a != diskcache.key("prediction", {"doc": {"link": {"rtt_ms": 12.5}}, "seed": 0})
    assert a != diskcache.key("prediction", {"doc": {"link": {"rtt_ms": 12}}, "seed": 1})
    assert a != diskcache.key("compare", {"doc": {"link": {"rtt_ms": 12}}, "seed": 0})
    diskcache.put("prediction", a, {"cache.warmup_lost_s": 0.1 + 0.2, "nan": float("nan")})
    back = diskcache.get("prediction", a)
    assert back["cache.warmup_lost_s"] == 0.1 + 0.2  # floats come back to the bit
    diskcache.code_fingerprint.cache_clear()
    real = diskcache.code_fingerprint()
    monkeypatch = pytest.MonkeyPatch()
    try:
        monkeypatch.setattr(diskcache, "LAYOUT", diskcache.LAYOUT + 1)
        diskcache.code_fingerprint.cache_clear()
        assert diskcache.code_fingerprint() != real
        assert diskcache.key("prediction", {"doc": {"link": {"rtt_ms": 12}}, "seed": 0}) != a
    finally:
        monkeypatch.undo()
        diskcache.code_fingerprint.cache_clear()


def test_an_edited_run_file_is_recompared(cache_on, examples_dir, tmp_path):
    work = tmp_path / "ex"
    shutil.copytree(examples_dir, work, ignore=shutil.ignore_patterns("*.ipynb"))
    first = _place(work / "placement.yaml", n=20)
    log = work / "remote_steps.csv"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:-40]))  # the last 40 steps of the remote run cut off
    second = _place(work / "placement.yaml", n=20)
    assert len(_entries(cache_on, "compare")) == 2
    w1, w2 = (next(r for r in out["ranking"] + out["not_ranked"] if r["id"].startswith("us-west-2")
                   and r["strategy"] == "cross_region") for out in (first, second))
    assert w1["cost_usd"] != w2["cost_usd"]  # priced on the new compare, not the cached one


def test_a_corrupt_or_unwritable_cache_is_a_miss(cache_on, examples_dir, monkeypatch):
    k = diskcache.key("prediction", {"x": 1})
    p = cache_on / "prediction" / k[:2] / f"{k}.json"
    p.parent.mkdir(parents=True)
    p.write_text('{"key": "' + k + '", "value": {"cache.warmup')  # half-written
    assert diskcache.get("prediction", k) is None
    p.write_text(json.dumps({"key": "other", "value": {}}))  # another key's entry under this name
    assert diskcache.get("prediction", k) is None
    blocker = cache_on.parent / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("COSTMODEL_CACHE_DIR", str(blocker))
    diskcache.put("prediction", k, {"x": 1.0})  # cannot be written: silently nothing
    assert diskcache.get("prediction", k) is None
