"""Scale benchmark for ingestion: a 10-million-row per-step CSV, ``costmodel.ingest.load`` against
``pyarrow.csv.read_csv`` of the same file, in the same run.

Each measurement runs in a fresh subprocess (so peak RSS is that reader's alone) and is repeated;
the median wall time and CPU time (user + system, all threads) and the peak RSS are reported, with the ratios
the issue targets (issue 42: load wall <= 1.3 x pyarrow wall on a busy 2-core machine, load peak RSS <= 2 x the
Arrow table's size).
Also timed: the CLI (``costmodel ingest FILE --json``, process start and imports included) and the
streaming path (``-o`` with streaming forced) whose memory does not grow with the file, and ``costmodel ingest FILE -o
t.parquet`` (streamed, as CSV inputs from 64 MiB are) against pyarrow processes (``--only-o`` for that row alone).

    .venv/bin/python benchmarks/bench_ingest_scale.py [--rows 10000000] [--repeat 3]

The children import ``costmodel`` from their working directory first (``python -c``): to time another code
tree, run from outside this one, e.g. ``cd /tmp && PYTHONPATH=/tmp/base python /path/to/bench_ingest_scale.py``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
PY = sys.executable

CHILD = r"""
import json, resource, sys, time
kind, path = sys.argv[1], sys.argv[2]
import numpy, pandas, pyarrow, pyarrow.csv  # imports are not part of the timing
from costmodel.ingest import load
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
r0 = resource.getrusage(resource.RUSAGE_SELF)
t = time.perf_counter()
missing = None
if kind == "pyarrow":
    table = pyarrow.csv.read_csv(path)
    rows, nbytes = table.num_rows, table.nbytes
else:
    (run,) = load(path)
    rows, nbytes = run.rows, None
    missing = {c: v["count"] for c, v in (run.metadata.get("missing_cells") or {}).items()}
wall = time.perf_counter() - t
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)  # all threads of the process
peak = r1.ru_maxrss * 1024
print(json.dumps({"wall_s": wall, "cpu_s": cpu, "peak_rss_bytes": peak, "rss_after_imports_bytes": base, "rows": rows, "table_bytes": nbytes,
                  "missing_cells": missing if kind != "pyarrow" else None}))
"""


def generate(path: Path, rows: int, seed: int = 7, bad_aux_pct: float = 0.0, bad_aux_kind: str = "range") -> None:
    """Write the per-step CSV in 1 M-row chunks (deterministic). ``bad_aux_pct``: share (in %) of the
    ``gpu_util_pct`` cells set out of range (100.1-101 %; ``bad_aux_kind="text"``: the text ``err``), the auxiliary
    bad cells of issue 17."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv

    rng = np.random.default_rng(seed)
    tmp = path.with_suffix(".tmp")
    chunk = 1_000_000
    t_s = 0.0
    util_type = pa.string() if bad_aux_kind == "text" and bad_aux_pct else pa.float64()
    with pacsv.CSVWriter(tmp, pa.schema([("step", pa.int64()), ("t_s", pa.float64()), ("samples_per_s", pa.float64()),
                                         ("step_time_ms", pa.float64()), ("gpu_util_pct", util_type),
                                         ("read_MBps", pa.float64())]),
                         write_options=pacsv.WriteOptions(quoting_style="none" if util_type == pa.string() else "needed")) as w:
        for start in range(0, rows, chunk):
            n = min(chunk, rows - start)
            step = np.arange(start, start + n, dtype="int64")
            st_ms = np.round(rng.normal(280.0, 10.0, n).clip(200, 400), 3)
            t = t_s + np.cumsum(st_ms) / 1e3
            t_s = float(t[-1])
            util = np.round(rng.uniform(85, 100, n), 1)
            if bad_aux_pct:
                bad = rng.random(n) < bad_aux_pct / 100.0
                util[bad] = np.round(rng.uniform(100.1, 101.0, int(bad.sum())), 1)
                if bad_aux_kind == "text":
                    util = pa.array(np.where(bad, "err", util.astype(str)))
            w.write_table(pa.table({
                "step": step,
                "t_s": np.round(t, 3),
                "samples_per_s": np.round(24 * 16 / (st_ms / 1e3), 2),
                "step_time_ms": st_ms,
                "gpu_util_pct": util,
                "read_MBps": np.round(rng.normal(1100, 80, n).clip(0), 1),
            }))
    os.replace(tmp, path)


def child(kind: str, path: Path) -> dict:
    out = subprocess.run([PY, "-c", CHILD, kind, str(path)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def timed_cmd(cmd: list[str]) -> tuple[float, int]:
    """Wall time and peak RSS (bytes) of a command run as a child process."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, after * 1024 if after > before else -1


def proc_peak(cmd: list[str], env: dict | None = None) -> tuple[float, int]:
    """Wall time and peak RSS (bytes) of ``cmd`` alone (measured by a wrapper process, like /usr/bin/time -v)."""
    t = time.perf_counter()
    proc = subprocess.run([PY, "-c", ("import resource,subprocess,sys; subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL);print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"), *cmd],
                          capture_output=True, text=True, check=True, env=env)
    return time.perf_counter() - t, int(proc.stdout.strip()) * 1024


def cli_output_rows(path: Path, repeat: int) -> dict:
    """``costmodel ingest FILE -o t.parquet`` (streamed: CSV from 64 MiB) against pyarrow in processes of their own."""
    out = OUT / "steps_o.parquet"
    cli = [str(Path(PY).parent / "costmodel"), "ingest", str(path), "-o", str(out)]
    read_only = [PY, "-c", "import sys, pyarrow.csv as c; c.read_csv(sys.argv[1])", str(path)]
    read_write = [PY, "-c", "import sys, pyarrow.csv as c, pyarrow.parquet as pq; pq.write_table(c.read_csv(sys.argv[1]), sys.argv[2])",
                  str(path), str(OUT / "steps_pyarrow.parquet")]
    cli_json = [*cli[:3], "--json"]
    res: dict[str, list[tuple[float, int]]] = {"cli_o": [], "cli_json": [], "pyarrow_read": [], "pyarrow_read_write": []}
    for _ in range(repeat):  # interleaved
        res["pyarrow_read"].append(proc_peak(read_only))
        res["cli_json"].append(proc_peak(cli_json))
        res["cli_o"].append(proc_peak(cli))
        res["pyarrow_read_write"].append(proc_peak(read_write))
    med = {k: statistics.median(w for w, _p in v) for k, v in res.items()}
    peak = {k: max(p for _w, p in v) for k, v in res.items()}
    return {
        "cli_o_wall_s": round(med["cli_o"], 3),
        "cli_o_peak_rss_mib": round(peak["cli_o"] / 2**20, 1),
        "pyarrow_read_process_wall_s": round(med["pyarrow_read"], 3),
        "pyarrow_read_write_process_wall_s": round(med["pyarrow_read_write"], 3),
        "pyarrow_read_write_peak_rss_mib": round(peak["pyarrow_read_write"] / 2**20, 1),
        "wall_ratio_cli_o_over_pyarrow_read": round(med["cli_o"] / med["pyarrow_read"], 3),
        "cli_json_process_wall_s": round(med["cli_json"], 3),
        "cli_json_peak_rss_mib": round(peak["cli_json"] / 2**20, 1),
        "pyarrow_read_peak_rss_mib": round(peak["pyarrow_read"] / 2**20, 1),
        "wall_ratio_cli_json_over_pyarrow_read_process": round(med["cli_json"] / med["pyarrow_read"], 3),
        "wall_ratio_cli_o_over_pyarrow_read_write": round(med["cli_o"] / med["pyarrow_read_write"], 3),
        "all_cli_o_wall_s": [round(w, 3) for w, _p in res["cli_o"]],
        "all_pyarrow_read_wall_s": [round(w, 3) for w, _p in res["pyarrow_read"]],
    }


def stream_only(rows: int) -> int:
    """Stream a CSV bigger than the machine's spare memory would allow as one Arrow table into Parquet."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"steps_{rows}.csv"
    if not path.exists():
        t = time.perf_counter()
        generate(path, rows)
        print(f"generated {path} ({path.stat().st_size / 2**30:.2f} GiB) in {time.perf_counter() - t:.1f} s")
    out = OUT / f"steps_{rows}.parquet"
    cmd = [str(Path(PY).parent / "costmodel"), "ingest", str(path), "-o", str(out), "--json"]
    t = time.perf_counter()
    proc = subprocess.run([PY, "-c", ("import resource,subprocess,sys; r=subprocess.run(sys.argv[1:], capture_output=True, text=True, check=True);print(r.stdout.split('\"rows\": ')[1].split(',')[0]); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"), *cmd],
                          capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t
    n, peak_kib = proc.stdout.split()
    report = {"rows": int(n), "csv_gib": round(path.stat().st_size / 2**30, 2), "stream_wall_s": round(wall, 1),
              "stream_peak_rss_mib": round(int(peak_kib) / 1024, 1), "parquet_mib": round(out.stat().st_size / 2**20, 1),
              "full_float64_columns_would_be_mib": round(int(n) * 6 * 8 / 2**20, 1)}
    print(json.dumps(report, indent=2))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-cli", action="store_true")
    ap.add_argument("--stream-rows", type=int, default=0,
                    help="only the streaming check: generate this many rows (e.g. 100000000, 4.5 GB) and time -o")
    ap.add_argument("--only-o", action="store_true", help="only time `costmodel ingest FILE -o` against pyarrow")
    ap.add_argument("--bad-aux-kind", choices=["range", "text"], default="range",
                    help="bad cells out of range (100.1-101 %%, default) or the text 'err'")
    ap.add_argument("--bad-aux-pct", type=float, default=0.0,
                    help="set this share (%%) of gpu_util_pct cells out of range (100.1-101 %%): kept rows, missing cells")
    args = ap.parse_args()
    if args.stream_rows:
        return stream_only(args.stream_rows)
    OUT.mkdir(parents=True, exist_ok=True)
    kind = "" if args.bad_aux_kind == "range" else "_text"
    path = OUT / (f"steps_{args.rows}.csv" if not args.bad_aux_pct else f"steps_{args.rows}_bad{args.bad_aux_pct:g}pct{kind}.csv")
    if not path.exists():
        t = time.perf_counter()
        generate(path, args.rows, bad_aux_pct=args.bad_aux_pct, bad_aux_kind=args.bad_aux_kind)
        print(f"generated {path} ({path.stat().st_size / 2**20:.0f} MiB) in {time.perf_counter() - t:.1f} s")
    size_mib = path.stat().st_size / 2**20
    if args.only_o:
        report = {"rows": args.rows, "csv_mib": round(size_mib, 1), **cli_output_rows(path, args.repeat)}
        print(json.dumps(report, indent=2))
        return 0
    res: dict[str, list[dict]] = {"pyarrow": [], "load": []}
    for _ in range(args.repeat):  # interleaved so both see the same machine load
        res["pyarrow"].append(child("pyarrow", path))
        res["load"].append(child("load", path))
    pa_wall = statistics.median(r["wall_s"] for r in res["pyarrow"])
    ld_wall = statistics.median(r["wall_s"] for r in res["load"])
    pa_cpu = statistics.median(r["cpu_s"] for r in res["pyarrow"])
    ld_cpu = statistics.median(r["cpu_s"] for r in res["load"])
    table_bytes = res["pyarrow"][0]["table_bytes"]
    pa_peak = max(r["peak_rss_bytes"] for r in res["pyarrow"])
    ld_peak = max(r["peak_rss_bytes"] for r in res["load"])
    ld_base = statistics.median(r["rss_after_imports_bytes"] for r in res["load"])
    report = {
        "rows": args.rows,
        "bad_aux_pct": args.bad_aux_pct,
        "bad_aux_kind": args.bad_aux_kind,
        "load_rows_kept": res["load"][0]["rows"],
        "load_missing_cells": res["load"][0].get("missing_cells"),
        "csv_mib": round(size_mib, 1),
        "arrow_table_mib": round(table_bytes / 2**20, 1),
        "pyarrow_read_csv_wall_s": round(pa_wall, 3),
        "load_wall_s": round(ld_wall, 3),
        "wall_ratio_load_over_pyarrow": round(ld_wall / pa_wall, 3),
        "pyarrow_read_csv_cpu_s": round(pa_cpu, 3),
        "load_cpu_s": round(ld_cpu, 3),
        "cpu_ratio_load_over_pyarrow": round(ld_cpu / pa_cpu, 3),
        "wall_ratios_per_pair": [round(b["wall_s"] / a["wall_s"], 3) for a, b in zip(res["pyarrow"], res["load"],
                                                                                    strict=True)],
        "load_avg_1min": round(os.getloadavg()[0], 2),
        "pyarrow_peak_rss_mib": round(pa_peak / 2**20, 1),
        "load_peak_rss_mib": round(ld_peak / 2**20, 1),
        "load_rss_after_imports_mib": round(ld_base / 2**20, 1),
        "peak_ratio_load_over_table": round(ld_peak / table_bytes, 3),
        "peak_ratio_load_minus_imports_over_table": round((ld_peak - ld_base) / table_bytes, 3),
        "all_wall_s": {k: [round(r["wall_s"], 3) for r in v] for k, v in res.items()},
    }
    if not args.skip_cli:
        report.update(cli_output_rows(path, args.repeat))
        report["peak_ratio_cli_o_over_table"] = round(report["cli_o_peak_rss_mib"] * 2**20 / table_bytes, 3)
        cli = [str(Path(PY).parent / "costmodel"), "ingest", str(path), "--json"]
        w, _ = timed_cmd(cli)
        report["cli_ingest_json_wall_s"] = round(w, 3)
        pq_out = OUT / "steps_stream.parquet"
        env_cmd = ["env", "COSTMODEL_STREAM_BYTES=0", *cli[:3], "-o", str(pq_out)]
        t = time.perf_counter()
        proc = subprocess.run([PY, "-c", ("import resource,subprocess,sys; subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL);print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"), *env_cmd],
                              capture_output=True, text=True, check=True)
        report["cli_stream_to_parquet_wall_s"] = round(time.perf_counter() - t, 3)
        report["cli_stream_peak_rss_mib"] = round(int(proc.stdout.strip()) / 1024, 1)
    print(json.dumps(report, indent=2))
    ok = report["wall_ratio_load_over_pyarrow"] <= 1.3 and report["peak_ratio_load_over_table"] <= 2.0
    print(f"targets (wall <= 1.3x pyarrow, peak <= 2x table): {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
