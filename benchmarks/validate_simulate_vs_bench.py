"""Validate the what-if simulator against real measurements: the client's page cache under a memory limit.

The Linux page cache is a real LRU-like cache. This script imposes a memory limit (a cgroup v1 memory
controller child of this process's own cgroup, or cgroup v2 ``memory.max``; without either it says so and
stops), writes file sets smaller and larger than the limit, runs ``costmodel.bench.run_bench`` on each
inside the limit, each run in a fresh cgroup so no earlier run's pages compete (cold first pass: the
client's pages are evicted), and compares each pass's measured
throughput and hit ratio with what ``costmodel.simulate`` predicts for the same files, passes and workers.
Sorted passes use ``costmodel.bench.run_bench``; reshuffled passes ("/shuf", the partial-hit regime) use a
minimal thread-pool read loop fed the exact file order the simulator generates (same seed).

Measured hit ratio of a pass: ``1 - read_bytes / rchar`` from ``/proc/self/io`` (bytes that had to come
from the block device over bytes the reads returned). The simulator's two speeds are calibrated on
separate file sets first: the miss speed (a set 1.5x the limit read twice: the second pass misses
everywhere), and the hit speed (a set 0.35x the limit read three times). Cache capacity = the limit
minus the reading process's peak resident memory (its read buffers are charged to the same cgroup).

Usage: .venv/bin/python benchmarks/validate_simulate_vs_bench.py [--limit-mib 384] [--workers 4]
       [--passes 3] [--dir /tmp/costmodel-validate-simulate] [--keep]
Disk use: about 7.2 x the limit (3.6 GiB for 512 MiB), removed afterwards unless --keep.
Throughput per pass is the median of ``--repeats`` runs (the machine is shared; single passes are noisy).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

MIB = 1 << 20
FILE_BYTES = 4 * MIB
REPO = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, os, sys
cg = sys.argv[1]
with open(os.path.join(cg, "cgroup.procs"), "w") as fh:
    fh.write(str(os.getpid()))
from costmodel.bench import run_bench

def io():
    d = {}
    for line in open("/proc/self/io"):
        k, v = line.split(":")
        d[k] = int(v)
    return d["rchar"], d["read_bytes"]

def rss(field="VmHWM:"):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
    return 0

snaps = [io()]
res = run_bench(sys.argv[2], passes=int(sys.argv[3]), workers=int(sys.argv[4]), max_files=100000,
                block_mib=8.0, evict=True, on_pass=lambda pr: snaps.append(io()))
out = []
for i, pr in enumerate(res.passes):
    d_rchar = snaps[i + 1][0] - snaps[i][0]
    d_read = snaps[i + 1][1] - snaps[i][1]
    out.append({"pass": pr.pass_no, "bytes": pr.bytes, "elapsed_s": pr.elapsed_s,
                "throughput_bytes_per_s": pr.throughput_bytes_per_s,
                "rchar": d_rchar, "read_bytes": d_read,
                "hit_ratio": max(0.0, 1.0 - d_read / d_rchar) if d_rchar else None,
                "resident_before": pr.residency_before.fraction if pr.residency_before else None})
print(json.dumps({"rss_bytes": rss(), "passes": out, "eviction": res.run.get("eviction_method")}))
"""


#: A minimal read loop for reshuffled passes (the bench client reads in sorted order only): the parent
#: passes the exact file order the simulator generates, so both see the same trace.
CHILD_SHUFFLED = r"""
import json, os, sys, time
from concurrent.futures import ThreadPoolExecutor
cg, root, order_path, workers = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
with open(os.path.join(cg, "cgroup.procs"), "w") as fh:
    fh.write(str(os.getpid()))
order = json.load(open(order_path))
files = sorted(os.path.join(root, f) for f in os.listdir(root))
for f in files:  # cold start: evict this client's pages of exactly these files
    fd = os.open(f, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)

def io():
    d = {}
    for line in open("/proc/self/io"):
        k, v = line.split(":")
        d[k] = int(v)
    return d["rchar"], d["read_bytes"]

def read(i):
    n = 0
    with open(files[i], "rb", buffering=0) as fh:
        while True:
            b = fh.read(8 << 20)
            if not b:
                return n
            n += len(b)

out = []
with ThreadPoolExecutor(workers) as ex:
    for p, ids in enumerate(order):
        r0, b0 = io()
        t0 = time.perf_counter()
        nbytes = sum(ex.map(read, ids))
        dt = time.perf_counter() - t0
        r1, b1 = io()
        out.append({"pass": p + 1, "bytes": nbytes, "elapsed_s": dt, "throughput_bytes_per_s": nbytes / dt,
                    "rchar": r1 - r0, "read_bytes": b1 - b0,
                    "hit_ratio": max(0.0, 1.0 - (b1 - b0) / (r1 - r0)) if r1 > r0 else None})
peak = 0
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        peak = int(line.split()[1]) * 1024
print(json.dumps({"rss_bytes": peak, "passes": out}))
"""


def own_memory_cgroup() -> tuple[str, str] | None:
    """(kind, path) of a writable memory cgroup directory to make children in, or None."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _id, ctrls, path = line.split(":", 2)
        if "memory" in ctrls.split(","):
            base = Path("/sys/fs/cgroup/memory") / path.lstrip("/")
            if (base / "memory.limit_in_bytes").exists() and os.access(base, os.W_OK):
                return "v1", str(base)
    for line in lines:
        if line.startswith("0::"):
            base = Path("/sys/fs/cgroup") / line[3:].lstrip("/")
            if (base / "cgroup.controllers").exists() and os.access(base, os.W_OK):
                return "v2", str(base)
    return None


def make_limit(kind: str, parent: str, limit_bytes: int) -> Path:
    cg = Path(parent) / f"costmodel-validate-{os.getpid()}-{time.monotonic_ns()}"
    cg.mkdir(exist_ok=True)
    (cg / ("memory.limit_in_bytes" if kind == "v1" else "memory.max")).write_text(str(limit_bytes))
    return cg


def write_set(root: Path, total_bytes: int, multiple: int = 1) -> int:
    """Files of 4 MiB (random bytes) totalling about ``total_bytes``, a multiple of ``multiple`` files
    (so a simulated step of ``workers`` files never straddles two passes); returns the file count."""
    root.mkdir(parents=True, exist_ok=True)
    n = max(multiple, round(total_bytes / FILE_BYTES / multiple) * multiple)
    chunk = os.urandom(FILE_BYTES)
    for i in range(n):
        p = root / f"part-{i:05d}.bin"
        if not p.exists() or p.stat().st_size != FILE_BYTES:
            with open(p, "wb") as fh:
                fh.write(chunk[i % 97:] + chunk[: i % 97])
    os.sync()
    return n


def bench_once(limit: tuple[str, str, int], root: Path, passes: int, workers: int,
               order_file: Path | None = None) -> dict:
    """One bench run in a fresh memory cgroup (so no page cache of an earlier run competes for the
    limit); the cgroup is removed afterwards (its remaining pages move to the parent, which has none).
    With ``order_file`` the minimal shuffled read loop runs instead of ``costmodel bench``."""
    kind, parent, limit_bytes = limit
    cg = make_limit(kind, parent, limit_bytes)
    if order_file is None:
        cmd = [sys.executable, "-c", CHILD, str(cg), str(root), str(passes), str(workers)]
    else:
        cmd = [sys.executable, "-c", CHILD_SHUFFLED, str(cg), str(root), str(order_file), str(workers)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=900, check=False)
    finally:
        for _ in range(20):
            try:
                cg.rmdir()
                break
            except OSError:
                time.sleep(0.1)
    if proc.returncode != 0:
        raise SystemExit(f"bench child failed: {proc.stderr.strip()[-500:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def bench_in_limit(cg: tuple[str, str, int], root: Path, passes: int, workers: int, repeats: int,
                   order_file: Path | None = None) -> dict:
    """``repeats`` bench runs (each a fresh process, cold first pass); per pass the median throughput and
    the mean hit ratio, with every repeat kept under ``repeats``."""
    import statistics

    runs = [bench_once(cg, root, passes, workers, order_file) for _ in range(repeats)]
    merged = []
    for i in range(passes):
        ps = [r["passes"][i] for r in runs]
        merged.append({"pass": i + 1,
                       "throughput_bytes_per_s": statistics.median(p["throughput_bytes_per_s"] for p in ps),
                       "throughput_min": min(p["throughput_bytes_per_s"] for p in ps),
                       "throughput_max": max(p["throughput_bytes_per_s"] for p in ps),
                       "hit_ratio": statistics.fmean(p["hit_ratio"] or 0.0 for p in ps),
                       "resident_before": statistics.fmean(p.get("resident_before") or 0.0 for p in ps)})
    return {"rss_bytes": max(r["rss_bytes"] for r in runs), "passes": merged, "repeats": runs}


def workload_doc(n_files: int, passes: int, workers: int, capacity_bytes: float, miss_bps: float,
                 hit_bps: float, pattern: str = "sequential") -> dict:
    return {"workload": {
        "name": "bench-pagecache",
        "dataset": {"samples": n_files, "sample_bytes": FILE_BYTES, "files": n_files, "block_bytes": 4096},
        "access": {"pattern": pattern, "epochs": passes},
        "step": {"samples_per_step": workers, "compute_s": 0.0, "loader_workers": workers, "prefetch_depth": 0},
        "link": {"rtt_s": 0.0, "origin_latency_s": 0.0, "bandwidth_bytes_per_s": miss_bps,
                 "parallel_streams": workers, "request_bytes": 8 * MIB},
        "local": {"read_latency_s": 0.0, "read_bytes_per_s": hit_bps},
        "cache": {"policy": "lru", "capacity_bytes": capacity_bytes},
    }}


def shuffled_order(n_files: int, passes: int, workers: int, seed: int) -> list[list[int]]:
    """The file order per pass that the simulator generates for a reshuffled workload (same seed)."""
    from costmodel.simulate.trace import sample_order
    from costmodel.simulate.workload import parse_workload

    w = parse_workload(workload_doc(n_files, passes, workers, 1e9, 1e9, 1e9, "shuffled")["workload"])
    ids = sample_order(w, n_files * passes, seed)
    return [ids[p * n_files:(p + 1) * n_files].tolist() for p in range(passes)]


def predict(n_files: int, passes: int, workers: int, capacity_bytes: float, miss_bps: float, hit_bps: float,
            pattern: str = "sequential", seed: int = 0):
    from costmodel.simulate import simulate

    doc = workload_doc(n_files, passes, workers, capacity_bytes, miss_bps, hit_bps, pattern)
    res = simulate(doc, seed=seed)
    t = res.runs[0].table
    out = []
    for e, g in t.groupby("epoch"):
        out.append({"pass": int(e) + 1,  # type: ignore[arg-type]  # the epoch key is a number (pandas-stubs: any scalar)
                    "throughput_bytes_per_s": float(g["bytes_read"].sum() / g["step_time_s"].sum()),
                    "hit_ratio": float((g["cache_hit_ratio"] * g["samples"]).sum() / g["samples"].sum())})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit-mib", type=int, default=512)
    ap.add_argument("--repeats", type=int, default=3, help="bench runs per set (median throughput per pass)")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/costmodel-validate-simulate")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--json-out", default=str(REPO / "benchmarks" / "out" / "validate_simulate.json"))
    args = ap.parse_args()
    found = own_memory_cgroup()
    if found is None:
        print("no writable memory cgroup here: cannot impose a page-cache limit; nothing validated")
        return 0
    kind, parent = found
    limit = args.limit_mib * MIB
    base = Path(args.dir)
    sets = {"calib_miss": 1.5, "calib_hit": 0.35, "smaller": 0.5, "fits": 0.7, "edge": 0.85, "near": 1.25,
            "larger": 2.0}
    cg = (kind, parent, limit)
    results: dict = {"limit_bytes": limit, "cgroup": kind, "workers": args.workers, "passes": args.passes,
                     "file_bytes": FILE_BYTES, "sets": {}}
    try:
        t0 = time.perf_counter()
        counts = {name: write_set(base / name, int(f * limit), args.workers) for name, f in sets.items()}
        print(f"memory limit {args.limit_mib} MiB (cgroup {kind}); file sets written in {time.perf_counter() - t0:.0f} s: "
              + ", ".join(f"{k} {v * FILE_BYTES / MIB:.0f} MiB" for k, v in counts.items()))
        miss = bench_in_limit(cg, base / "calib_miss", 2, args.workers, args.repeats)
        hit = bench_in_limit(cg, base / "calib_hit", 3, args.workers, args.repeats)
        miss_bps = miss["passes"][-1]["throughput_bytes_per_s"]
        hit_bps = hit["passes"][-1]["throughput_bytes_per_s"]
        rss = max(miss["rss_bytes"], hit["rss_bytes"])
        capacity = limit - rss
        print(f"calibration: miss speed {miss_bps / 1e9:.2f} GB/s (measured hit ratio "
              f"{miss['passes'][-1]['hit_ratio']:.3f}), hit speed {hit_bps / 1e9:.2f} GB/s (hit ratio "
              f"{hit['passes'][-1]['hit_ratio']:.3f}); cache capacity = limit - reader peak RSS "
              f"{rss / MIB:.0f} MiB = {capacity / MIB:.0f} MiB")
        results.update({"miss_bytes_per_s": miss_bps, "hit_bytes_per_s": hit_bps, "capacity_bytes": capacity,
                        "calibration": {"miss": miss, "hit": hit}})
        rows = []
        print(f"{'set':8s} {'size/limit':>10s} {'pass':>4s} {'meas GB/s':>9s} {'pred GB/s':>9s} {'err':>7s} "
              f"{'meas hit':>8s} {'pred hit':>8s} {'|err|':>6s}")
        for name in ("smaller", "fits", "edge", "near", "larger"):
            meas = bench_in_limit(cg, base / name, args.passes, args.workers, args.repeats)
            pred = predict(counts[name], args.passes, args.workers, capacity, miss_bps, hit_bps)
            results["sets"][name] = {"files": counts[name], "bytes": counts[name] * FILE_BYTES,
                                     "measured": meas, "predicted": pred}
            for m, p in zip(meas["passes"], pred, strict=False):
                err = p["throughput_bytes_per_s"] / m["throughput_bytes_per_s"] - 1
                herr = abs(p["hit_ratio"] - (m["hit_ratio"] or 0.0))
                rows.append((name, err, herr))
                print(f"{name:8s} {counts[name] * FILE_BYTES / limit:10.2f} {m['pass']:4d} "
                      f"{m['throughput_bytes_per_s'] / 1e9:9.2f} {p['throughput_bytes_per_s'] / 1e9:9.2f} "
                      f"{err:+7.1%} {m['hit_ratio']:8.3f} {p['hit_ratio']:8.3f} {herr:6.3f}")
        seed = 7
        for name in ("fits", "near", "larger"):
            label = f"{name}/shuf"
            order = shuffled_order(counts[name], args.passes, args.workers, seed)
            order_file = base / f"order-{name}.json"
            order_file.write_text(json.dumps(order))
            meas = bench_in_limit(cg, base / name, args.passes, args.workers, args.repeats, order_file)
            pred = predict(counts[name], args.passes, args.workers, capacity, miss_bps, hit_bps, "shuffled", seed)
            results["sets"][label] = {"files": counts[name], "bytes": counts[name] * FILE_BYTES,
                                      "measured": meas, "predicted": pred, "order": "reshuffled every pass"}
            for m, p in zip(meas["passes"], pred, strict=False):
                err = p["throughput_bytes_per_s"] / m["throughput_bytes_per_s"] - 1
                herr = abs(p["hit_ratio"] - (m["hit_ratio"] or 0.0))
                rows.append((label, err, herr))
                print(f"{label:12s} {counts[name] * FILE_BYTES / limit:6.2f} {m['pass']:4d} "
                      f"{m['throughput_bytes_per_s'] / 1e9:9.2f} {p['throughput_bytes_per_s'] / 1e9:9.2f} "
                      f"{err:+7.1%} {m['hit_ratio']:8.3f} {p['hit_ratio']:8.3f} {herr:6.3f}")
        errs = [abs(r[1]) for r in rows]
        herrs = [r[2] for r in rows]
        results["summary"] = {"throughput_abs_rel_error_mean": sum(errs) / len(errs),
                              "throughput_abs_rel_error_max": max(errs),
                              "hit_ratio_abs_error_mean": sum(herrs) / len(herrs),
                              "hit_ratio_abs_error_max": max(herrs)}
        print("throughput |error| mean {throughput_abs_rel_error_mean:.1%} max {throughput_abs_rel_error_max:.1%}; "
              "hit ratio |error| mean {hit_ratio_abs_error_mean:.3f} max {hit_ratio_abs_error_max:.3f}"
              .format(**results["summary"]))
        out = Path(args.json_out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2))
        print(f"details: {out}")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
