"""The Dask engine against the single-process fleet engine on the same rank logs (issue 28: on a
2-worker LocalCluster within 1.5x of one process), and how its time falls as workers are added.

Data: benchmarks/bench_fleet.py's logs (two jobs, RANKS/2 ranks each; generated there, reused here).
Each configuration runs in a fresh process, imports and the cluster's start outside the timing:
``single`` = ``load_side(..., engine="duckdb")`` (the fleet engine's fast path, 2 threads); ``dask-W`` =
``load_side(..., engine="dask")`` on a ``LocalCluster`` of W worker processes of one thread each (files
read by the workers). Rounds alternate the configurations; medians and ratios to ``single`` are printed,
with a fitted model ``T(W) = T0 + T1 / W`` (T0 = set-up, plans, candidates, merges and the job
series in the client; T1 = the reading and folding the workers share) for larger clusters.

Each run also reports CPU seconds (user + system) of every process involved (client, scheduler, workers:
psutil over the child and its descendants); ``--threads`` runs the workers as threads of the client's process
(the cluster ``--engine dask`` starts when no scheduler is given) instead of nanny-started processes.

    .venv/bin/python benchmarks/bench_dask.py [--data benchmarks/out/fleet_200x100000] [--workers 1 2 4] [--repeat 1] [--threads]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

CHILD = r"""
import json, sys, time, resource
kind, root, w, procs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "processes"
from costmodel.jobs import load_side
import costmodel.jobs.arrowscan, costmodel.jobs.fleet, pyarrow.csv, pandas  # imports outside the timing
import psutil
def cpu():  # user + system CPU seconds of this process and every live descendant (the Dask workers)
    me = psutil.Process()
    tot = 0.0
    for p in [me] + me.children(recursive=True):
        try:
            c = p.cpu_times()
            tot += c.user + c.system
        except psutil.Error:
            pass
    return tot
if kind == "dask":
    import distributed, costmodel.jobs.distributed
    if procs:  # worker processes started by nannies, as on a real cluster (Dask's default configuration)
        lc = distributed.LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=None,
                                      memory_limit="2GiB")
    else:  # what `--engine dask` starts when no scheduler is given: worker threads in this process
        import dask
        from costmodel.jobs.distributed import LOCAL_CONFIG, local_cluster_kwargs
        dask.config.set(LOCAL_CONFIG)
        lc = distributed.LocalCluster(n_workers=w, **local_cluster_kwargs())
    c = distributed.Client(lc)
    c.run(lambda: __import__("costmodel.jobs.arrowscan") and __import__("pyarrow.csv") and 1)  # warm the workers
t, c0 = time.perf_counter(), cpu()
out = {}
for role in ("colocated", "remote"):
    side = load_side([root + "/" + role], role, engine="duckdb" if kind == "single" else "dask", hash_files=True)
    j = side.jobs[0]
    out[role] = {"engine": j["engine"], "stragglers": sorted(s["rank"] for s in j["stragglers"]),
                 "lost_s": j["straggler_lost_s"], "thr": j["job_throughput"]}
out["wall_s"], out["cpu_s"] = time.perf_counter() - t, cpu() - c0
print(json.dumps(out))
"""


def run(kind: str, root: Path, w: int, processes: bool = True) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), COSTMODEL_PROGRESS="0")
    p = subprocess.run([sys.executable, "-c", CHILD, kind, str(root), str(w), "processes" if processes else "threads"],
                       capture_output=True, text=True,
                       env=env, check=False)
    if p.returncode:
        raise SystemExit(p.stderr[-3000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=HERE / "out" / "fleet_200x100000")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--threads", action="store_true",
                    help="workers as threads of the client's process (what `--engine dask` starts without a scheduler) "
                         "instead of nanny-started worker processes")
    a = ap.parse_args()
    root = a.data.resolve()
    if not (root / "truth.json").exists():
        raise SystemExit(f"{root}: no logs; generate them with benchmarks/bench_fleet.py --ranks R --steps S --no-report")
    size = sum(f.stat().st_size for f in root.rglob("*.csv"))
    print(f"{root.name}: {size / 1e9:.2f} GB CSV; workers as {'threads' if a.threads else 'processes'}; "
          f"load avg {os.getloadavg()[0]:.2f}", flush=True)
    confs = [("single", 0)] + [("dask", w) for w in a.workers]
    res: dict[str, list[dict]] = {f"{k}-{w}" if k == "dask" else k: [] for k, w in confs}
    for rnd in range(a.repeat):
        for k, w in (confs if rnd % 2 == 0 else confs[::-1]):  # alternated: the order reversed every other round
            name = f"{k}-{w}" if k == "dask" else k
            d = run(k, root, w, not a.threads)
            res[name].append(d)
            print(f"round {rnd + 1} {name:<8} {d['wall_s']:6.2f} s  {d['cpu_s']:6.2f} CPU-s  engine {d['remote']['engine']}  stragglers "
                  f"{d['remote']['stragglers']}  lost {d['remote']['lost_s']:.3f} s  load {os.getloadavg()[0]:.2f}",
                  flush=True)
    single = statistics.median(d["wall_s"] for d in res["single"])
    single_cpu = statistics.median(d["cpu_s"] for d in res["single"])
    same = all(d["remote"] == res["single"][0]["remote"] | {"engine": d["remote"]["engine"]}
               and d["colocated"]["lost_s"] == res["single"][0]["colocated"]["lost_s"] for v in res.values() for d in v)
    print(f"\nsingle process (fleet engine, 2 threads): {single:.2f} s wall, {single_cpu:.2f} CPU-s; same stragglers, "
          f"lost time and throughput in every configuration: {same}")
    times = {}
    for w in a.workers:
        t = statistics.median(d["wall_s"] for d in res[f"dask-{w}"])
        c = statistics.median(d["cpu_s"] for d in res[f"dask-{w}"])
        times[w] = t
        per = [round(d["wall_s"] / s_["wall_s"], 2) for d, s_ in zip(res[f"dask-{w}"], res["single"], strict=True)]
        print(f"dask, {w} worker(s): {t:.2f} s = {t / single:.2f}x the single process's wall (per round {per}), "
              f"{c:.2f} CPU-s = {c / single_cpu:.2f}x its CPU"
              + ("  (target <= 1.3x at 2 workers: " + ("met)" if t / single <= 1.3 else "NOT met)") if w == 2 else ""))
    if 1 in times and 2 in times:
        t1 = 2 * (times[1] - times[2])
        t0 = times[1] - t1
        print(f"model T(W) = T0 + T1 / W from 1 and 2 workers: T0 = {t0:.2f} s, T1 = {t1:.2f} s; "
              + ", ".join(f"W={w}: {t0 + t1 / w:.2f} s" + (f" (measured {times[w]:.2f} s)" if w in times else "")
                          for w in (4, 8, 16, 64)))
    print(f"load avg after: {os.getloadavg()[0]:.2f}")

if __name__ == "__main__":
    main()
