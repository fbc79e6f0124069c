"""Soak test of `costmodel report` (issue 19): N runs back to back and M parallel pairs on one machine,
checking that nothing leaks: temporary folders and locks beside the output, kernel processes, kernel
connection files, open files and threads (of a process that renders repeatedly), memory.

Phases:
1. ``--runs N`` CLI runs one after another (``costmodel report ... --monte-carlo K``), each a fresh
   process. After each: the exit status, the four files, nothing beside the output but the output
   folders, no kernel process left, no kernel connection file left (the children get their own
   ``TMPDIR``, where papermill writes the connection files, so other users' kernels are not
   counted), the child's peak RSS (``wait4``, kernel included) and wall time.
2. ``--pairs M`` pairs started at once: even pairs write two different folders (both must succeed),
   odd pairs the same folder (exactly one must succeed, the other exit 2 "taken"/"exists").
3. ``--inproc R`` calls of ``costmodel.report.render_report`` in this one process (library use, as
   from a notebook): open file descriptors, threads, child processes and RSS after each call must
   not grow.

Baseline: the first quarter of the back-to-back runs; the script prints the last quarter's median
wall time and peak RSS as ratios of it (a leak grows them), and the in-process growth of fds,
threads and RSS from call 1 to call R. Exit status 1 when any check fails.

Usage: ``python benchmarks/soak_report.py --runs 200 --pairs 20 --inproc 20`` (the issue's size);
``--runs 20 --pairs 4 --inproc 5`` on a shared machine.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EX = REPO / "costmodel" / "data" / "examples"
OUTPUT_FILES = {"report.ipynb", "report.html", "decision.json", "adr.md"}


def _argv(out: Path, mc: int) -> list[str]:
    return [sys.executable, "-m", "costmodel", "report", "--colocated", str(EX / "colocated_steps.csv"),
            "--remote", str(EX / "remote_steps.csv"), "--scenario", str(EX / "scenario.yaml"),
            "--answers", str(EX / "answers.yaml"), "-o", str(out), "--monte-carlo", str(mc)]


def _kernels_using(tmpdir: Path) -> list[int]:
    """Live kernel processes whose connection file is under ``tmpdir`` (ours only)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            argv = Path(f"/proc/{name}/cmdline").read_bytes().decode("utf-8", "replace").split("\0")
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if state != "Z" and any("ipykernel" in a for a in argv) and any(a.startswith(str(tmpdir)) for a in argv):
            found.append(int(name))
    return found


def _start(argv: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=REPO)


def _finish(p: subprocess.Popen) -> tuple[int, float, str]:
    """(exit status, peak RSS MiB of the child and its reaped descendants, stderr)."""
    err = p.stderr.read().decode("utf-8", "replace") if p.stderr else ""
    _pid, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, ru.ru_maxrss / 1024.0, err


def _leftovers(parent: Path, outs: set[str]) -> list[str]:
    return sorted(n for n in os.listdir(parent) if n not in outs)


def _check_run(rc: int, out: Path, err: str, problems: list[str], label: str) -> None:
    if rc != 0:
        problems.append(f"{label}: exit {rc}: {err.strip().splitlines()[-1:]}")
    elif set(os.listdir(out)) != OUTPUT_FILES:
        problems.append(f"{label}: files {sorted(os.listdir(out))}")


def soak(runs: int, pairs: int, inproc: int, mc: int, keep: bool) -> dict:
    work = Path(tempfile.mkdtemp(prefix="costmodel-soak-"))
    ktmp = work / "tmp"
    ktmp.mkdir()
    parent = work / "out"
    parent.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(ktmp)}
    problems: list[str] = []
    walls: list[float] = []
    rss: list[float] = []
    outs: set[str] = set()

    def after(label: str) -> None:
        left = _leftovers(parent, outs)
        if left:
            problems.append(f"{label}: left beside the output: {left}")
        kernels = _kernels_using(ktmp)
        if kernels:
            problems.append(f"{label}: kernel processes still running: {kernels}")
        conn = [n for n in os.listdir(ktmp) if n.endswith(".json")]
        if conn:
            problems.append(f"{label}: kernel connection files left: {conn[:3]}")

    for i in range(runs):
        out = parent / f"run-{i:03d}"
        t0 = time.perf_counter()
        rc, peak, err = _finish(_start(_argv(out, mc), env))
        walls.append(time.perf_counter() - t0)
        rss.append(peak)
        outs.add(out.name)
        _check_run(rc, out, err, problems, f"run {i}")
        after(f"run {i}")
        if not keep:
            shutil.rmtree(out, ignore_errors=True)
        print(f"run {i + 1}/{runs}: exit {rc}, {walls[-1]:.1f} s, peak RSS {peak:.0f} MiB", file=sys.stderr, flush=True)

    pair_walls = []
    for j in range(pairs):
        same = j % 2 == 1
        a, b = parent / f"pair-{j:02d}-a", parent / (f"pair-{j:02d}-a" if same else f"pair-{j:02d}-b")
        t0 = time.perf_counter()
        pa, pb = _start(_argv(a, mc), env), _start(_argv(b, mc), env)
        (ra, _ma, ea), (rb, _mb, eb) = _finish(pa), _finish(pb)
        pair_walls.append(time.perf_counter() - t0)
        outs.update({a.name, b.name})
        if same:
            codes = sorted([ra, rb])
            loser_err = ea if ra else eb
            if codes != [0, 2]:
                problems.append(f"pair {j} (same folder): exits {ra}, {rb} (expected one 0 and one 2)")
            elif "is taken" not in loser_err and "exists and is not empty" not in loser_err:
                problems.append(f"pair {j} (same folder): the loser said {loser_err.strip().splitlines()[-1:]}")
            elif set(os.listdir(a)) != OUTPUT_FILES:
                problems.append(f"pair {j} (same folder): files {sorted(os.listdir(a))}")
        else:
            _check_run(ra, a, ea, problems, f"pair {j} a")
            _check_run(rb, b, eb, problems, f"pair {j} b")
        after(f"pair {j}")
        if not keep:
            shutil.rmtree(a, ignore_errors=True)
            shutil.rmtree(b, ignore_errors=True)
        print(f"pair {j + 1}/{pairs} ({'same folder' if same else 'two folders'}): exits {ra}, {rb}, "
              f"{pair_walls[-1]:.1f} s", file=sys.stderr, flush=True)

    inproc_rows = []
    if inproc:
        os.environ["TMPDIR"] = str(ktmp)
        tempfile.tempdir = None
        from costmodel import report

        for k in range(inproc):
            out = parent / f"inproc-{k:02d}"
            report.render_report([EX / "colocated_steps.csv"], [EX / "remote_steps.csv"], EX / "scenario.yaml",
                                 EX / "answers.yaml", out, monte_carlo_n=mc)
            outs.add(out.name)
            after(f"in-process call {k}")
            if not keep:
                shutil.rmtree(out, ignore_errors=True)
            row = {"fds": len(os.listdir("/proc/self/fd")), "threads": threading.active_count(),
                   "children": len(_children()), "rss_mib": _rss_mib()}
            inproc_rows.append(row)
            print(f"in-process call {k + 1}/{inproc}: {row}", file=sys.stderr, flush=True)
        if len(inproc_rows) >= 2:
            first, last = inproc_rows[0], inproc_rows[-1]
            if last["fds"] > first["fds"] + 2:
                problems.append(f"in-process: open files grew {first['fds']} -> {last['fds']}")
            if last["threads"] > first["threads"] + 1:
                problems.append(f"in-process: threads grew {first['threads']} -> {last['threads']}")
            if last["children"] > 0:
                problems.append(f"in-process: {last['children']} child process(es) left")

    q = max(1, len(walls) // 4)
    summary: dict[str, Any] = {
        "runs": runs, "pairs": pairs, "inproc_calls": inproc, "monte_carlo": mc,
        "wall_s_first_quarter_median": statistics.median(walls[:q]) if walls else None,
        "wall_s_last_quarter_median": statistics.median(walls[-q:]) if walls else None,
        "peak_rss_mib_first_quarter_median": statistics.median(rss[:q]) if rss else None,
        "peak_rss_mib_last_quarter_median": statistics.median(rss[-q:]) if rss else None,
        "pair_wall_s_median": statistics.median(pair_walls) if pair_walls else None,
        "inproc": inproc_rows,
        "problems": problems,
    }
    if walls:
        summary["wall_ratio_last_vs_first"] = summary["wall_s_last_quarter_median"] / summary["wall_s_first_quarter_median"]
        summary["rss_ratio_last_vs_first"] = (summary["peak_rss_mib_last_quarter_median"]
                                              / summary["peak_rss_mib_first_quarter_median"])
    if inproc_rows:
        summary["inproc_rss_growth_mib"] = inproc_rows[-1]["rss_mib"] - inproc_rows[0]["rss_mib"]
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return summary


def _children() -> list[int]:
    me = str(os.getpid())
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[-1].split()
            except OSError:
                continue
            if fields[1] == me and fields[0] != "Z":
                out.append(int(name))
    return out


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200, help="back-to-back CLI runs (default 200)")
    ap.add_argument("--pairs", type=int, default=20, help="parallel pairs (default 20; odd ones share a folder)")
    ap.add_argument("--inproc", type=int, default=20, help="render_report calls in this process (default 20)")
    ap.add_argument("--monte-carlo", type=int, default=0, help="Monte Carlo draws per report (default 0)")
    ap.add_argument("--keep", action="store_true", help="keep the reports (default: each is removed after its checks)")
    ap.add_argument("--json", metavar="FILE", help="also write the summary as JSON here")
    a = ap.parse_args()
    s = soak(a.runs, a.pairs, a.inproc, a.monte_carlo, a.keep)
    print(f"runs {s['runs']} back to back, {s['pairs']} parallel pairs, {s['inproc_calls']} in-process calls "
          f"(--monte-carlo {s['monte_carlo']}; load average {os.getloadavg()[0]:.1f} at the end)")
    if s["runs"]:
        print(f"wall s (median): first quarter {s['wall_s_first_quarter_median']:.2f}, last quarter "
              f"{s['wall_s_last_quarter_median']:.2f}, ratio {s['wall_ratio_last_vs_first']:.2f}")
        print(f"peak RSS MiB (median, kernel included): first quarter {s['peak_rss_mib_first_quarter_median']:.0f}, "
              f"last quarter {s['peak_rss_mib_last_quarter_median']:.0f}, ratio {s['rss_ratio_last_vs_first']:.2f}")
    if s["pairs"]:
        print(f"pair wall s (median): {s['pair_wall_s_median']:.2f}")
    if s["inproc"]:
        first, last = s["inproc"][0], s["inproc"][-1]
        print(f"in-process: fds {first['fds']} -> {last['fds']}, threads {first['threads']} -> {last['threads']}, "
              f"children {last['children']}, RSS {first['rss_mib']:.0f} -> {last['rss_mib']:.0f} MiB")
    print("leaks / failures: " + ("none" if not s["problems"] else f"{len(s['problems'])}"))
    for p in s["problems"][:20]:
        print(f"  {p}")
    if a.json:
        Path(a.json).write_text(json.dumps(s, indent=2) + "\n", encoding="utf-8")
    return 1 if s["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
