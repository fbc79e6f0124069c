"""Fleet-scale benchmark: rank logs of two synchronous jobs (colocated and remote, RANKS/2 ranks
each, STEPS steps) -> our ingest+aggregate stage (costmodel.jobs.load_side, DuckDB engine) against
DuckDB alone reading the same files and computing the per-step aggregate (GROUP BY step), in the
same run; then the whole ``costmodel report`` (wall time and peak RSS, kernel included).

Files are generated once by costmodel.jobs.generate (one straggler node of 8 ranks, a rank that
ends early, checkpoint stalls every 500 steps shared by all ranks) and cached under
benchmarks/out/fleet_<ranks>x<steps>/ (gitignored).

    .venv/bin/python benchmarks/bench_fleet.py [--ranks 1000] [--steps 100000] [--repeat 1] [--no-report]
        [--data DIR] [--rank-column]
    .venv/bin/python benchmarks/bench_fleet.py --ranks 10 --steps 100000 --verbs compare,fit,ingest [--before DIR]
        [--no-bytecode]
    .venv/bin/python benchmarks/bench_fleet.py --ranks 10 --steps 100000 --verbs report,report-duckdb,report-dask

"ours" is the fleet engine as ``auto`` runs it (one rank per file, clean CSV: the pyarrow + numpy fast
path of costmodel.jobs.arrowscan; ``--query`` measures the DuckDB query instead). The
report is written to benchmarks/out/<data folder name>_report (gitignored), wherever the data are.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PY = sys.executable

CHILD = r"""
import json, resource, sys, time, glob
kind, root = sys.argv[1], sys.argv[2]
import duckdb, pandas, numpy
if kind != "duckdb":
    from costmodel.jobs import load_side  # imports are not part of the timing (on both sides)
    if kind == "query":  # --query: the DuckDB query instead of the arrow fast path
        import costmodel.jobs.fleet
        costmodel.jobs.fleet.FAST_PATH = False
t = time.perf_counter()
if kind.startswith("duckdb"):  # duckdb: both jobs; duckdb-remote: the remote job only (what `fit` reads)
    files = sorted(glob.glob(root + ("/remote/*/*.csv" if kind == "duckdb-remote" else "/*/*/*.csv")))
    con = duckdb.connect(); con.execute("SET memory_limit='1GB'"); con.execute('SET enable_progress_bar=false')
    # explicit column types (no sniffing), like our engine: the strongest plain-DuckDB baseline
    types = "{'step': 'BIGINT', 't_s': 'DOUBLE', 'samples_per_s': 'DOUBLE', 'step_time_s': 'DOUBLE'"
    types += (", 'rank': 'BIGINT'}" if open(files[0]).readline().startswith("rank,") else "}")
    df = con.execute("SELECT step, count(*) AS n, sum(samples_per_s) AS thr, max(step_time_s) AS st FROM "
                     f"read_csv(?, header=true, delim=',', types={types}) GROUP BY step", [files]).fetch_df()
    out = {"groups": len(df)}
else:
    out = {}
    for role in ("colocated", "remote"):
        side = load_side([root + "/" + role], role, engine="duckdb")
        j = side.jobs[0]
        out[role] = {"reader": j.get("reader"), "steps": j["steps"], "ranks": j["ranks"], "stragglers": [s["rank"] for s in j["stragglers"]],
                     "incomplete": [x["rank"] for x in j["ranks_incomplete"]], "lost_s": j["straggler_lost_s"]}
wall = time.perf_counter() - t
out.update(kind=kind, wall_s=wall, peak_rss_bytes=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
print(json.dumps(out))
"""


def generate(root: Path, ranks: int, steps: int, rank_column: bool = False) -> dict:
    from costmodel.synthetic.rank_logs import generate_job

    done = root / "truth.json"
    if done.exists():
        return json.loads(done.read_text())
    truth = {}
    half = ranks // 2
    for role, seed, strag in (("colocated", 1, None), ("remote", 2, 3)):
        t = time.perf_counter()
        tr = generate_job(root / role / "job1", n_ranks=half, n_steps=steps, seed=seed, straggler_node=strag,
                          early_rank=5, warmup_excess=0.3 if role == "remote" else 0.02, warmup_tau_steps=steps / 50,
                          rank_column=rank_column)
        truth[role] = {"stragglers": tr["stragglers"], "lost_s": tr["straggler_lost_s"], "early_rank": tr["early_rank"]}
        print(f"generated {role}: {half} ranks x {steps} steps in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    done.write_text(json.dumps(truth))
    return truth


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def child(kind: str, root: Path) -> dict:
    """One measurement in a fresh process; ``cpu_s`` = user + system CPU seconds of the whole child
    (imports included, on both sides), less sensitive to the machine's load than wall time."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    c0 = _cpu_children()
    out = subprocess.run([PY, "-c", CHILD, kind, str(root)], capture_output=True, text=True, env=env, check=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["cpu_s"] = _cpu_children() - c0
    return res


def report(root: Path) -> dict:
    ex = ROOT / "costmodel" / "data" / "examples"
    out = HERE / "out" / (root.name + "_report")  # in this tree, wherever the data are
    cmd = [PY, "-m", "costmodel", "report", "--colocated", str(root / "colocated"), "--remote", str(root / "remote"),
           "--scenario", str(ex / "scenario.yaml"), "--answers", str(ex / "answers.yaml"), "-o", str(out), "--force",
           "--monte-carlo", "2000"]
    t, c0 = time.perf_counter(), _cpu_children()
    tv = ["/usr/bin/time", "-f", "%M"] if Path("/usr/bin/time").exists() else []
    p = subprocess.run(tv + cmd, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), check=False)
    wall, cpu = time.perf_counter() - t, _cpu_children() - c0
    if p.returncode != 0:
        raise SystemExit(p.stderr[-2000:])
    peak_kib = int(p.stderr.strip().splitlines()[-1]) if tv else None
    html = out / "report.html"
    return {"wall_s": wall, "cpu_s": cpu, "peak_rss_bytes_max_process": peak_kib * 1024 if peak_kib else None,
            "html_bytes": html.stat().st_size, "offline": "<script src=" not in html.read_text()}


def cli_process(verb: str, root: Path, code: Path, bytecode: bool = True) -> dict:
    """``costmodel VERB`` on the fleet as a whole process run from the code tree ``code``: CPU seconds (user + system)
    and peak RSS (``/usr/bin/time``), process start and imports included, like the DuckDB child's CPU. ``bytecode``:
    compiled modules cached in ``code`` as an installed package has them (``PYTHONDONTWRITEBYTECODE``, which this
    machine's shells set, dropped: without it every process compiles costmodel's modules again, 0.1-0.2 CPU-s here,
    while the baseline's libraries are compiled)."""
    env = dict(os.environ, PYTHONPATH=str(code))
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    ex = ROOT / "costmodel" / "data" / "examples"
    report_out = HERE / "out" / f"{root.name}_{verb}"  # report[-ENGINE]: the whole report with that --engine
    args = {"compare": ["compare", "--colocated", str(root / "colocated"), "--remote", str(root / "remote"), "--json"],
            "ingest": ["ingest", str(root / "colocated"), str(root / "remote"), "--json"],
            "fit": ["fit", str(root / "remote"), "--json"]}.get(verb) or [
        "report", "--colocated", str(root / "colocated"), "--remote", str(root / "remote"), "--scenario",
        str(ex / "scenario.yaml"), "--answers", str(ex / "answers.yaml"), "--date", "2026-01-01", "-o", str(report_out),
        "--force", "--json", "--quiet", *(["--engine", verb.split("-", 1)[1]] if "-" in verb else [])]
    t, c0 = time.perf_counter(), _cpu_children()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", PY, "-m", "costmodel", *args], capture_output=True, text=True,
                       env=env, cwd=str(code), check=False)  # cwd: `-m` imports from it
    wall, cpu = time.perf_counter() - t, _cpu_children() - c0
    if p.returncode != 0:
        raise SystemExit(p.stderr[-2000:])
    out = json.loads(p.stdout)
    answer = p.stdout
    if verb.startswith("report"):  # the answer is decision.json (the folder's name differs per engine)
        answer = (report_out / "decision.json").read_text(encoding="utf-8")
        out = json.loads(answer)
        out = {"jobs": out.get("jobs") or [], "ratio": (out.get("compare") or {}).get("ratio")}
    engines = sorted({str(j.get("reader")) for j in out.get("jobs", [])}) if isinstance(out, dict) else []
    import hashlib

    return {"wall_s": wall, "cpu_s": cpu, "peak_rss_mib": int(p.stderr.strip().splitlines()[-1]) / 1024,
            "readers": engines, "ratio": out.get("ratio") if isinstance(out, dict) else None,
            "answer_sha": hashlib.sha256(answer.encode()).hexdigest()[:12]}


def verbs_main(root: Path, verbs: list[str], before: Path | None, repeat: int, bytecode: bool = True) -> None:
    """Small-fleet fixed cost (issue 42): whole ``costmodel compare`` / ``fit`` / ``ingest`` processes against DuckDB
    alone (its child process: imports, read_csv + GROUP BY step over the same files: both jobs for ``compare`` and
    ``ingest``, the remote job for ``fit``), alternated in each round (the order reversed every other round);
    ``before`` = another code tree (e.g. ``git archive`` of the base commit) timed in the same rounds. Prints each
    verb's median CPU ratio to its baseline, the peak RSS, and whether every round printed the same answer.
    ``bytecode``: see :func:`cli_process`; then one discarded run of each verb and tree first writes the cache."""
    import statistics

    trees = [("ours", ROOT)] + ([("before", before)] if before else [])
    base_of = {"compare": "duckdb", "ingest": "duckdb", "fit": "duckdb-remote"}
    base_of.update({v: "duckdb" for v in verbs if v.startswith("report")})
    bases = sorted({base_of[v] for v in verbs})
    rows: dict[str, list[dict]] = {}
    print(f"{root.name}; load avg before: {os.getloadavg()}; compiled modules "
          f"{'cached (as installed; one discarded run first)' if bytecode else 'not cached (PYTHONDONTWRITEBYTECODE)'}",
          flush=True)
    if bytecode:
        for _label, code in trees:
            for verb in verbs:
                cli_process(verb, root, code)
    for rnd in range(repeat):
        jobs: list[tuple[str, Any]] = [(b, None) for b in bases]
        jobs += [(f"{verb} ({label})", (verb, code)) for label, code in trees for verb in verbs]
        for key, what in (jobs if rnd % 2 == 0 else jobs[::-1]):
            r = child(key, root) if what is None else cli_process(what[0], root, what[1], bytecode)
            rows.setdefault(key, []).append(r)
    med = {b: statistics.median(r["cpu_s"] for r in rows[b]) for b in bases}
    for b in bases:
        mib = max(r["peak_rss_bytes"] for r in rows[b]) / 2**20
        print(f"{b} alone (process, imports included): median {med[b]:.2f} CPU-s, peak RSS {mib:.0f} MiB; "
              f"CPU-s per round {[round(r['cpu_s'], 2) for r in rows[b]]}")
    for key, rs in rows.items():
        if key in bases:
            continue
        verb = key.split(" ")[0]
        dk = med[base_of[verb]]
        c = statistics.median(r["cpu_s"] for r in rs)
        same = len({r["answer_sha"] for r in rs}) == 1
        print(f"{key}: median {c:.2f} CPU-s (**{c / dk:.2f}x** {base_of[verb]}; per round "
              f"{[round(r['cpu_s'] / d['cpu_s'], 2) for r, d in zip(rs, rows[base_of[verb]], strict=True)]}), "
              f"{statistics.median(r['wall_s'] for r in rs):.1f} s wall, peak RSS {max(r['peak_rss_mib'] for r in rs):.0f} MiB, "
              f"readers {rs[-1]['readers']}, ratio {rs[-1]['ratio']}, answer {rs[-1]['answer_sha']} "
              f"({'same' if same else 'DIFFERENT'} in every round); CPU-s per round {[round(r['cpu_s'], 2) for r in rs]}")
    print(f"load avg after: {os.getloadavg()}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", type=int, default=1000)
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--query", action="store_true", help="time the DuckDB query instead of the arrow fast path")
    ap.add_argument("--rank-column", action="store_true",
                    help="logs with a rank column (folder fleet_<ranks>x<steps>_rank): the fast path reads the rank from it")
    ap.add_argument("--data", type=Path, default=None,
                    help="folder of already generated logs (colocated/, remote/, truth.json); default "
                         "benchmarks/out/fleet_<ranks>x<steps>, generated when absent")
    ap.add_argument("--verbs", default="",
                    help="comma list of CLI verbs (compare, fit, ingest, report, report-ENGINE: the report with "
                         "--engine ENGINE, e.g. report-duckdb, report-dask) timed as whole processes against DuckDB "
                         "alone (CPU-s, peak RSS), instead of the stage and report rows")
    ap.add_argument("--before", type=Path, default=None,
                    help="with --verbs: a second code tree (e.g. git archive of the base commit) timed in the same rounds")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="with --verbs: keep PYTHONDONTWRITEBYTECODE, as this machine's shells do (no cache is written: a "
                         "tree without __pycache__ compiles costmodel in every process); default: compiled modules "
                         "cached, as installed")
    a = ap.parse_args()
    root = a.data.resolve() if a.data else HERE / "out" / f"fleet_{a.ranks}x{a.steps}{'_rank' if a.rank_column else ''}"
    truth = generate(root, a.ranks, a.steps, a.rank_column)
    if a.verbs:
        verbs_main(root, [v.strip() for v in a.verbs.split(",") if v.strip()], a.before, a.repeat, not a.no_bytecode)
        return
    size = sum(f.stat().st_size for f in root.rglob("*.csv"))
    print(f"{a.ranks} rank logs x {a.steps} steps = {a.ranks * a.steps:,} rows, {size / 1e9:.2f} GB CSV; load avg {os.getloadavg()}")
    res: dict[str, list[dict]] = {"duckdb": [], "ours": []}
    for _ in range(a.repeat):
        for kind in ("duckdb", "query" if a.query else "ours"):
            res[kind].append(child(kind, root))
    for i in range(a.repeat):
        d, o = res["duckdb"][i], res["ours"][i]
        print(f"round {i + 1}: DuckDB alone {d['wall_s']:.1f} s wall / {d['cpu_s']:.1f} s CPU; ours {o['wall_s']:.1f} s wall / "
              f"{o['cpu_s']:.1f} s CPU; ratio {o['wall_s'] / d['wall_s']:.2f}x wall, {o['cpu_s'] / d['cpu_s']:.2f}x CPU")
    d = min(r["wall_s"] for r in res["duckdb"])
    o = min(r["wall_s"] for r in res["ours"])
    dc = min(r["cpu_s"] for r in res["duckdb"])
    oc = min(r["cpu_s"] for r in res["ours"])
    print(f"DuckDB alone (read_csv + GROUP BY step): best {d:.1f} s wall, {dc:.1f} s CPU, peak RSS "
          f"{max(r['peak_rss_bytes'] for r in res['duckdb']) / 2**30:.2f} GiB")
    import statistics

    def med(kind: str, key: str) -> float:
        return statistics.median(r[key] for r in res[kind])
    print(f"median of {a.repeat} round(s): DuckDB alone {med('duckdb', 'wall_s'):.1f} s wall / {med('duckdb', 'cpu_s'):.1f} s CPU; "
          f"ours {med('ours', 'wall_s'):.1f} s wall / {med('ours', 'cpu_s'):.1f} s CPU; ratio of medians "
          f"{med('ours', 'wall_s') / med('duckdb', 'wall_s'):.2f}x wall, {med('ours', 'cpu_s') / med('duckdb', 'cpu_s'):.2f}x CPU")
    print(f"ours (load_side both jobs: ingest + job series + stragglers): best {o:.1f} s wall, {oc:.1f} s CPU, peak RSS "
          f"{max(r['peak_rss_bytes'] for r in res['ours']) / 2**30:.2f} GiB; ratio {o / d:.2f}x wall, {oc / dc:.2f}x CPU "
          "(target <= 1.5x)")
    last = res["ours"][-1]
    print(f"ours read the files with: {last['colocated']['reader']} / {last['remote']['reader']}")
    print(f"found: remote stragglers {last['remote']['stragglers']} (truth {truth['remote']['stragglers']}), "
          f"lost {last['remote']['lost_s']:.1f} s (truth {truth['remote']['lost_s']:.1f} s), "
          f"incomplete {last['remote']['incomplete']} (truth [{truth['remote']['early_rank']}])")
    if not a.no_report:
        r = report(root)
        print(f"costmodel report: {r['wall_s']:.1f} s (target <= 60 s), {r['cpu_s']:.1f} s CPU (all processes), peak RSS of the largest process "
              f"{(r['peak_rss_bytes_max_process'] or 0) / 2**30:.2f} GiB (target <= 2 GiB), HTML {r['html_bytes'] / 1e6:.2f} MB "
              f"(target < 5 MB), offline {r['offline']}")
    print(f"load avg after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
