"""costmodel bench: the read client, really run on temporary directories."""
from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
from pathlib import Path

import pytest
from support.bench_tree import GIB, LINE_RE, SIZES, make_tree

from costmodel.bench import (
    format_header,
    format_pass_line,
    pagecache,
    run_bench,
    walk_files,
)
from costmodel.bench.runner import _filesystem
from costmodel.foundation.errors import BenchError


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "data", SIZES)


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# --- the walk -----------------------------------------------------------------------------------

def test_walk_order_is_sorted_pathlib_order_and_capped(tree: Path):
    m = walk_files(tree, max_files=1000)
    expected = [p.relative_to(tree).as_posix() for p in sorted(tree.rglob("*")) if p.is_file()]
    assert [e.relpath for e in m.entries] == expected
    # component order: "a/b.bin" (parts a, b.bin) sorts before "a-c.bin" although '/' > '-' as characters
    assert expected.index("a/b.bin") < expected.index("a-c.bin")
    assert m.total_bytes == sum(SIZES.values())
    capped = walk_files(tree, max_files=2)
    assert [e.relpath for e in capped.entries] == expected[:2]
    assert capped.total_files_under_root == len(SIZES)


def test_file_list_sha256_is_hand_computable_and_independent_of_root(tree: Path, tmp_path: Path):
    m = walk_files(tree, max_files=3)
    text = "".join(f"{e.relpath}\t{e.size_bytes}\n" for e in m.entries)
    assert m.sha256 == hashlib.sha256(text.encode()).hexdigest()
    other = make_tree(tmp_path / "elsewhere", SIZES, seed=99)  # same names and sizes, other bytes and root
    assert walk_files(other, max_files=3).sha256 == m.sha256
    (other / "m.bin").write_bytes(b"x")  # one size differs -> another hash
    assert walk_files(other, max_files=1000).sha256 != walk_files(tree, max_files=1000).sha256


def test_walk_bad_roots(tmp_path: Path):
    with pytest.raises(BenchError, match="no such directory"):
        walk_files(tmp_path / "missing")
    (tmp_path / "f").write_text("x")
    with pytest.raises(BenchError, match="not a directory"):
        walk_files(tmp_path / "f")
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    with pytest.raises(BenchError, match=r"^No files found under .*empty$"):
        walk_files(tmp_path / "empty")


# --- the familiar lines -----------------------------------------------------------------------

def test_familiar_lines_format():
    assert format_header(400, 8) == "files=400 workers=8"
    # 0.784 GiB in 0.448 s = 1.75 GiB/s; printed with two decimals like the familiar client
    assert format_pass_line(1, int(0.784 * GIB), 0.448) == "pass=1 data=0.78 GiB time=0.45s throughput=1.75 GiB/s"
    assert format_pass_line(2, 3 * GIB, 1.5) == "pass=2 data=3.00 GiB time=1.50s throughput=2.00 GiB/s"


# --- runs ---------------------------------------------------------------------------------------

def test_run_reads_every_byte_every_pass_and_records_it(tree: Path, tmp_path: Path):
    out = tmp_path / "run.jsonl"
    total = sum(SIZES.values())
    res = run_bench(tree, passes=3, workers=3, block_mib=0.25, out=out, sample_interval_s=0.01, run_id="r1")
    assert res.status == "complete"
    assert [p.bytes for p in res.passes] == [total] * 3
    assert [p.files_read for p in res.passes] == [len(SIZES)] * 3
    assert all(p.files_failed == 0 and p.files_changed == 0 for p in res.passes)
    lines = res.lines()
    assert lines[0] == f"files={len(SIZES)} workers=3"
    for i, line in enumerate(lines[1:], start=1):
        m = LINE_RE.match(line)
        assert m and int(m.group(1)) == i and m.group(2) == f"{total / GIB:.2f}"
    # pass 1 cold (evicted), later passes as found
    assert [p.page_cache for p in res.passes] == ["evicted", "as_found", "as_found"]
    # per-pass latency percentiles are ordered and bounded by the pass time
    for p in res.passes:
        lat = p.latency_s
        assert 0 <= lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["max"] <= p.elapsed_s + 1e-6

    recs = _records(out)
    assert recs[0]["type"] == "run" and recs[0]["schema"] == "costmodel.bench/1" and recs[0]["run_id"] == "r1"
    assert recs[0]["file_count"] == len(SIZES) and recs[0]["total_bytes"] == total
    assert recs[0]["file_list_sha256"] == walk_files(tree).sha256
    assert recs[0]["options"]["block_bytes"] == 262144 and recs[0]["options"]["workers"] == 3
    assert recs[0]["eviction_method"] == "posix_fadvise_dontneed"
    assert recs[1]["type"] == "manifest" and len(recs[1]["files"]) == len(SIZES)
    assert recs[-1]["type"] == "end" and recs[-1]["status"] == "complete" and recs[-1]["passes_completed"] == 3
    files = [r for r in recs if r["type"] == "file"]
    assert len(files) == 3 * len(SIZES)
    sizes_by_index = {f["index"]: f["bytes"] for f in recs[1]["files"]}
    for p in (1, 2, 3):
        mine = [r for r in files if r["pass"] == p]
        assert sorted(r["index"] for r in mine) == list(range(len(SIZES)))
        assert all(r["bytes"] == sizes_by_index[r["index"]] and r["end_s"] >= r["start_s"] for r in mine)
        slices = [r for r in recs if r["type"] == "sample" and r["pass"] == p]
        assert sum(s["bytes"] for s in slices) == total
        for a, b in itertools.pairwise(slices):  # contiguous slices
            assert a["t_end_s"] == pytest.approx(b["t_start_s"], abs=1e-6)
    assert not (tmp_path / "run.jsonl.partial").exists()


def test_eviction_makes_pass_one_cold_and_says_whether_it_worked(tree: Path):
    paths = walk_files(tree).paths()
    for p in paths:  # warm the page cache
        Path(p).read_bytes()
    warm = pagecache.residency(paths)
    res = run_bench(tree, passes=2, workers=2)
    ev = res.passes[0].eviction
    assert ev is not None and ev.method == "posix_fadvise_dontneed" and ev.files == len(SIZES)
    if _filesystem(str(tree)) == "tmpfs":  # tmpfs keeps its data in memory: eviction cannot work
        assert ev.worked is False and ev.notes
    else:
        assert warm.fraction == pytest.approx(1.0, abs=0.01)
        assert ev.worked is True and ev.after.fraction <= 0.02
        # pass 2 follows pass 1's reads: everything is cached again
        assert res.passes[1].residency_before.fraction == pytest.approx(1.0, abs=0.01)
        assert res.passes[0].residency_after.fraction == pytest.approx(1.0, abs=0.01)
    assert res.passes[0].direct_verified is None
    assert res.passes[1].eviction is None and res.passes[1].cold is False


def test_residency_counts_pages_of_a_half_read_file(tmp_path: Path):
    f = make_tree(tmp_path, {"f.bin": 64 * 4096}) / "f.bin"
    if _filesystem(str(f)) == "tmpfs":
        pytest.skip("tmpfs pages are always resident")
    ev = pagecache.evict([str(f)])
    assert ev.worked is True and pagecache.resident_bytes(str(f)) == 0
    with open(f, "rb", buffering=0) as fh:
        os.posix_fadvise(fh.fileno(), 0, 0, os.POSIX_FADV_RANDOM)  # no read-ahead: exactly what we read
        fh.read(16 * 4096)
    assert pagecache.resident_bytes(str(f)) == 16 * 4096


def test_cold_every_pass_and_no_evict(tree: Path):
    res = run_bench(tree, passes=3, workers=2, cold_every_pass=True)
    assert [p.page_cache for p in res.passes] == ["evicted"] * 3
    assert all(p.eviction is not None for p in res.passes)
    res = run_bench(tree, passes=2, workers=2, evict=False)
    assert res.run["eviction_method"] == "none"
    assert [p.page_cache for p in res.passes] == ["as_found", "as_found"]
    assert all(p.eviction is None and p.residency_before is not None for p in res.passes)


def test_direct_reads_every_byte_or_falls_back_with_a_note(tree: Path):
    res = run_bench(tree, passes=2, workers=2, direct=True, block_mib=0.5)
    total = sum(SIZES.values())
    assert [p.bytes for p in res.passes] == [total, total]  # tails not multiple of 4 KiB included
    ok, why = pagecache.direct_support(walk_files(tree).path(0))
    if ok:
        assert res.run["eviction_method"] == "o_direct"
        assert [p.page_cache for p in res.passes] == ["bypassed", "bypassed"]
        # checked with mincore: the O_DIRECT passes left the page cache as it was
        assert [p.direct_verified for p in res.passes] == [True, True]
        for p in res.passes:
            assert p.residency_after.resident_bytes - p.residency_before.resident_bytes <= 0.02 * total
    else:
        assert res.run["eviction_method"] == "posix_fadvise_dontneed"
        assert any("fell back" in n for n in res.notes) and why


def test_unreadable_files_are_counted_and_listed_not_fatal(tree: Path, tmp_path: Path):
    manifest = walk_files(tree)
    victim = manifest.entries[2]
    os.unlink(manifest.path(2))  # vanished between the walk and the reads
    out = tmp_path / "u.jsonl"
    res = run_bench(tree, passes=2, workers=2, manifest=manifest, out=out)
    assert [p.files_failed for p in res.passes] == [1, 1]
    assert [p.files_read for p in res.passes] == [len(SIZES) - 1] * 2
    assert res.passes[0].bytes == sum(SIZES.values()) - victim.size_bytes
    assert res.unreadable == [{"index": 2, "path": victim.relpath, "error": res.unreadable[0]["error"], "passes": [1, 2]}]
    assert "FileNotFoundError" in res.unreadable[0]["error"]
    end = _records(out)[-1]
    assert end["unreadable"][0]["path"] == victim.relpath


def test_every_file_unreadable_is_an_error_and_writes_nothing(tmp_path: Path):
    tree = make_tree(tmp_path / "d", {"a": 10, "b": 20})
    manifest = walk_files(tree)
    for p in manifest.paths():
        os.unlink(p)
    out = tmp_path / "never.jsonl"
    with pytest.raises(BenchError, match=r"all 2 files under .* were unreadable; first: a: FileNotFoundError"):
        run_bench(tree, manifest=manifest, out=out)
    assert not out.exists() and not (tmp_path / "never.jsonl.partial").exists()


def test_files_changing_size_are_flagged(tree: Path):
    manifest = walk_files(tree)
    idx = next(e.index for e in manifest.entries if e.relpath == "m.bin")
    with open(manifest.path(idx), "ab") as fh:
        fh.write(b"z" * 1000)
    res = run_bench(tree, passes=2, workers=2, manifest=manifest)
    assert res.changed == [
        {"index": idx, "path": "m.bin", "pass": 1, "expected_bytes": 4096, "read_bytes": 5096, "reason": "size"},
        {"index": idx, "path": "m.bin", "pass": 2, "expected_bytes": 4096, "read_bytes": 5096, "reason": "size"},
    ]
    assert [p.files_changed for p in res.passes] == [1, 1]


def test_files_rewritten_in_place_with_the_same_size_are_flagged(tree: Path):
    manifest = walk_files(tree)
    idx = next(e.index for e in manifest.entries if e.relpath == "a/b.bin")
    st = os.stat(manifest.path(idx))
    with open(manifest.path(idx), "r+b") as fh:
        fh.write(b"new bytes")
    os.utime(manifest.path(idx), ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # coarse clocks
    out = tree.parent / "changed.jsonl"
    res = run_bench(tree, passes=1, workers=2, manifest=manifest, out=out)
    assert res.changed == [{"index": idx, "path": "a/b.bin", "pass": 1, "expected_bytes": 300_000,
                            "read_bytes": 300_000, "reason": "mtime"}]
    from costmodel.ingest import load

    [run] = load(out)
    assert run.metadata["changed"] == res.changed
    assert any("1 read(s) found a file changed since the walk" in w for w in run.warnings)


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        ({"passes": 0}, "--passes must be at least 1"),
        ({"workers": 0}, "--workers must be at least 1"),
        ({"block_mib": 0}, "--block-mib must be positive"),
        ({"block_mib": 0.001}, "whole number of 4 KiB pages"),
        ({"sample_interval_s": 0}, "--sample-interval-s must be at least"),
        ({"evict": False, "direct": True}, "--no-evict contradicts"),
        ({"evict": False, "cold_every_pass": True}, "--no-evict contradicts"),
        ({"role": "spoke"}, "--role must be"),
        ({"max_files": 0}, "--max-files must be at least 1"),
    ],
)
def test_bad_options_raise_bench_error(tree: Path, kwargs, msg):
    with pytest.raises(BenchError, match=re.escape(msg)):
        run_bench(tree, **kwargs)


def test_to_dict_has_per_pass_results_and_is_strict_json(tree: Path):
    res = run_bench(tree, passes=2, workers=2)
    d = json.loads(json.dumps(res.to_dict(), allow_nan=False))
    for key in ("status", "run_id", "files", "total_bytes", "file_list_sha256", "workers", "block_bytes",
                "eviction_method", "passes", "passes_completed", "cold_to_warm_throughput_ratio", "samples",
                "unreadable", "changed", "run"):
        assert key in d
    assert d["files"] == len(SIZES) and d["passes_completed"] == 2
    p1 = d["passes"][0]
    for key in ("pass", "cold", "page_cache", "bytes", "elapsed_s", "throughput_bytes_per_s", "latency_s",
                "residency_before", "eviction", "files_read"):
        assert key in p1
    assert p1["throughput_bytes_per_s"] == pytest.approx(p1["bytes"] / p1["elapsed_s"])
    assert set(p1["latency_s"]) >= {"p50", "p95", "p99", "max"}


def test_direct_falls_back_to_eviction_before_every_pass(tree: Path, monkeypatch):
    monkeypatch.setattr(pagecache, "direct_support", lambda path: (False, "the file system does not support O_DIRECT"))
    res = run_bench(tree, passes=2, workers=2, direct=True)
    assert res.run["eviction_method"] == "posix_fadvise_dontneed"
    assert res.run["options"]["cold_every_pass"] is True
    assert [p.page_cache for p in res.passes] == ["evicted", "evicted"]
    assert res.notes == ["--direct: the file system does not support O_DIRECT; fell back to posix_fadvise(DONTNEED) before every pass"]


def test_eviction_that_does_not_work_is_reported_and_ingest_warns(tree: Path, tmp_path: Path, monkeypatch):
    from costmodel.ingest import load

    monkeypatch.setattr(pagecache, "resident_bytes", os.path.getsize)  # pages stay (tmpfs-like)
    out = tmp_path / "r.jsonl"
    msgs: list[str] = []
    res = run_bench(tree, passes=2, workers=2, out=out, on_progress=msgs.append)
    ev = res.passes[0].eviction
    assert ev.worked is False and ev.after.fraction == 1.0
    assert any("still in the page cache" in n for n in ev.notes)
    assert any(m.startswith("pass 1: eviction did not work") for m in msgs)
    [run] = load(out)
    assert run.metadata["passes"][0]["eviction_worked"] is False
    assert any("pass 1: eviction did not work (100% of the data still cached)" in w for w in run.warnings)


def test_progress_lines_during_a_long_pass(tmp_path: Path):
    tree = make_tree(tmp_path / "d", {f"f{i}": 1_000_000 for i in range(8)})
    msgs: list[str] = []
    # 4 KiB O_DIRECT reads of 8 MB from a cold cache: far longer than the 5 ms progress interval
    res = run_bench(tree, passes=1, workers=1, block_mib=4096 / 2**20, direct=True, sample_interval_s=0.01,
                    on_progress=msgs.append, progress_interval_s=0.005)
    assert res.passes[0].elapsed_s > 0.02, "the pass was too fast to show progress"
    prog = [m for m in msgs if m.startswith("pass 1: ")]
    assert prog, msgs
    m = re.match(r"pass 1: (\d+)/8 files, (\d+\.\d\d)/0\.01 GiB, (\d+\.\d\d) GiB/s over the last \d+\.\d s$", prog[0])
    assert m, prog[0]
    assert len(res.samples) >= 2  # several 10 ms slices in one pass


def test_direct_that_fills_the_page_cache_is_flagged(tree: Path, tmp_path: Path, monkeypatch):
    from costmodel.ingest import load

    if not pagecache.direct_support(walk_files(tree).path(0))[0]:
        pytest.skip("no O_DIRECT on this file system")
    total = sum(SIZES.values())
    calls = []

    def fake_residency(paths, sizes=None):  # before each pass: nothing cached; after it: everything
        calls.append(1)
        return pagecache.Residency(len(paths), total, 0 if len(calls) % 2 else total)

    monkeypatch.setattr(pagecache, "residency", fake_residency)
    msgs: list[str] = []
    out = tmp_path / "d.jsonl"
    res = run_bench(tree, passes=2, workers=2, direct=True, out=out, on_progress=msgs.append)
    assert [p.direct_verified for p in res.passes] == [False, False]
    assert any("does not honour O_DIRECT" in m for m in msgs)
    [run] = load(out)
    assert any("O_DIRECT reads filled the page cache" in w for w in run.warnings)
