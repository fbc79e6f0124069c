"""Speed of `costmodel report` against the floor of the bare tools (issue 6).

Floor: what a user pays for the bare tools on a trivial notebook that only imports pandas, altair
and ipywidgets and draws one chart: ``papermill trivial.ipynb out.ipynb`` then
``jupyter nbconvert --to html out.ipynb``, two commands. Measured: ``costmodel report`` on the
bundled example (ingest, fit, compare, cost with 2,000 Monte Carlo draws, checklist, 8 charts as
inline SVG, HTML export, decision.json, ADR): by default in process, no kernel (issue 42 item 5), and with
``--via-kernel`` (papermill executes the notebook in a kernel, as before). They run alternately in the same
session, ``--repeat`` times each; the script prints the medians of wall time and of CPU time (user + sys of the
child processes, kernels included: less sensitive to other load on a shared machine) and the ratios, and checks
that both ways wrote the same report.html, decision.json and adr.md.
Targets: report / floor <= 1.0 (issue 6), <= 0.8 (issue 28), <= 0.3 without a kernel (issue 42 item 5).

Usage: ``.venv/bin/python benchmarks/bench_report.py [--repeat 3] [--no-kernel-run] [--before DIR]``
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
EX = REPO / "costmodel" / "data" / "examples"


#: ``costmodel`` with the early kernel start switched off (papermill starts the kernel itself): a benchmark's switch,
#: so it lives here and not in the package
LATE_KERNEL = [sys.executable, "-c", ("import sys; from costmodel.report import render; "
               "render.start_kernel = lambda cwd: None; from costmodel.cli import main; sys.exit(main(sys.argv[1:]))")]


def _trivial_notebook(path: Path) -> None:
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook(
        cells=[
            new_code_cell("import pandas as pd\nimport altair as alt\nimport ipywidgets as widgets"),
            new_code_cell(
                "df = pd.DataFrame({'x': range(100), 'y': [i * i for i in range(100)]})\n"
                "alt.Chart(df).mark_line().encode(x='x', y='y')"
            ),
        ]
    )
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))


def _timed(cmds: list[list[str]], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float]:
    """Run commands one after another; (wall s, child CPU s)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    for cmd in cmds:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False, env=env)
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr[-3000:])
            raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}")
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs of each (default 3)")
    ap.add_argument("--no-kernel-run", action="store_true", help="skip the --via-kernel runs (faster)")
    ap.add_argument("--late-kernel", action="store_true",
                    help="A/B: let papermill start the kernel (the report's early start switched off here, not in "
                         "the package)")
    ap.add_argument("--before", type=Path, default=None,
                    help="another code tree (e.g. `git archive` of the base commit): its `costmodel report` (no kernel) "
                         "is timed in the same rounds and its three files compared with ours")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_report.") as td:
        tmp = Path(td)
        _trivial_notebook(tmp / "trivial.ipynb")
        floor_cmds = [
            [str(BIN / "papermill"), "trivial.ipynb", "out.ipynb", "--no-progress-bar"],
            [str(BIN / "jupyter"), "nbconvert", "--to", "html", "out.ipynb"],
        ]
        report_cmd = [
            *(LATE_KERNEL if args.late_kernel else [str(BIN / "costmodel")]), "report",
            "--colocated", str(EX / "colocated_steps.csv"),
            "--remote", str(EX / "remote_steps.csv"),
            "--scenario", str(EX / "scenario.yaml"),
            "--answers", str(EX / "answers.yaml"),
            "--date", "2026-01-01", "--force",
        ]
        runs: dict[str, list[list[str]]] = {
            "floor": floor_cmds,
            "report": [[*report_cmd, "-o", str(tmp / "report")]],
        }
        envs: dict[str, dict[str, str] | None] = dict.fromkeys(runs)
        if not args.no_kernel_run:
            runs["report --via-kernel"] = [[*report_cmd, "-o", str(tmp / "kernel"), "--via-kernel"]]
            envs["report --via-kernel"] = None
        if args.before is not None:  # the same command, the other tree's code first on the path
            # its own copy of the example (decision.json names the inputs relative to the package's folder)
            theirs = [a.replace(str(EX), str(args.before.resolve() / "costmodel" / "data" / "examples")) for a in report_cmd]
            runs["report (before)"] = [[sys.executable, "-m", "costmodel", *theirs[1:], "-o", str(tmp / "before")]]
            envs["report (before)"] = dict(os.environ, PYTHONPATH=str(args.before.resolve()))
        for k, cmds in runs.items():  # one warm-up of each (page cache, .pyc files), not counted
            _timed(cmds, tmp, envs[k])
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in runs}
        for i in range(args.repeat):
            for k, cmds in (list(runs.items()) if i % 2 == 0 else list(runs.items())[::-1]):  # order alternated
                times[k].append(_timed(cmds, tmp, envs[k]))
            print(f"run {i + 1}: " + "; ".join(f"{k} {v[-1][0]:.2f} s wall / {v[-1][1]:.2f} s cpu"
                                                for k, v in times.items()), flush=True)
        med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in times.items()}
        html = (tmp / "report" / "report.html").stat().st_size
        fw, fc = med["floor"]
        print(f"floor (papermill + jupyter nbconvert, trivial notebook): median {fw:.2f} s wall, {fc:.2f} s cpu")
        for k in runs:
            if k == "floor":
                continue
            ow, oc = med[k]
            print(f"costmodel {k} (bundled example, {html / 1e6:.2f} MB HTML): median {ow:.2f} s wall, {oc:.2f} s cpu")
            print(f"ratio {k} / floor: {ow / fw:.2f}x wall, {oc / fc:.2f}x cpu")
        if "report (before)" in runs:
            bw, bc = med["report (before)"]
            ow, oc = med["report"]
            same = all((tmp / "report" / n).read_bytes() == (tmp / "before" / n).read_bytes()
                       for n in ("report.html", "decision.json", "adr.md"))
            print(f"ratio report / report (before): {ow / bw:.2f}x wall, {oc / bc:.2f}x cpu; report.html, "
                  f"decision.json, adr.md identical to the before tree's: {same}")
        if "report --via-kernel" in runs:
            same = all((tmp / "report" / n).read_bytes() == (tmp / "kernel" / n).read_bytes()
                       for n in ("report.html", "decision.json", "adr.md"))
            print(f"report.html, decision.json, adr.md identical with and without a kernel: {same}")
        print("targets: <= 0.8x (issue 28), <= 0.3x wall without a kernel (issue 42 item 5)")
        print(f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
