"""Score ``fit`` and ``compare`` on every real fixture with a stated truth, and print each error.

Usage::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_real_runs.py [--real ../shared/fixtures/real]

Runs with a truth (each run's README states it): ``gpu_h200`` (remote warm-up ~95 steps, steady ratio
0.980, checkpoints every 400 steps, equivalent at 5 %) and ``tests/data/real_h200/{w8,w2,w4long}``
(the data wait back from ~80, ~110, ~80 and every step's hit ratio >= 0.9 from 168, 148, 82, so by issue 24's
rule, both, warm-ups of 168, 148, 82; ratios 0.991, 0.985, 1.033; checkpoints every 300, 250, 500; each pair
equivalent at 5 %). For each: the remote warm-up end with the evidence columns (against the rule's truth)
and from the throughput alone (the data wait and hit ratio dropped; against the data wait's end, the most a
throughput can see: the loader's queue hides the last misses), its error, the co-located warm-up end
(truth 0), the period (truth: the checkpoint interval), the ratio and its error, and compare's verdict at
5 %. Public logs without a stated warm-up (MLPerf, DLIO, other training logs) are checked for the one
property the issue states for all runs: no run classed ``warmup`` with a negative ``lost_s``.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRUTH = {  # run -> (folder relative to the real dir or the repo, warm-up end, data wait's end, ratio, period)
    "gpu_h200": ("real:gpu_h200", 95, 92, 0.980, 400),
    "w8": ("repo:tests/data/real_h200/w8", 168, 80, 0.991, 300),
    "w2": ("repo:tests/data/real_h200/w2", 148, 110, 0.985, 250),
    "w4long": ("repo:tests/data/real_h200/w4long", 82, 80, 1.033, 500),
}


def _fit(files: list[Path], drop: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    from costmodel.ingest import load_many
    from costmodel.warmup import analyze

    (run,) = load_many(files).runs
    if drop:
        run.table = run.table.drop(columns=[c for c in drop if c in run.table.columns])
    return analyze(run)


def score_pairs(real: Path) -> list[dict]:  # type: ignore[type-arg]
    from costmodel.warmup import compare

    rows = []
    for name, (where, end, wait_end, ratio, period) in TRUTH.items():
        kind, rel = where.split(":", 1)
        d = (real / rel) if kind == "real" else (ROOT / rel)
        if not d.is_dir():
            print(f"{name}: {d} absent, skipped")
            continue
        t0 = time.perf_counter()
        c = _fit([d / "colocated.csv", d / "colocated_dmon_DT.txt"])
        r = _fit([d / "remote.csv", d / "remote_dmon_DT.txt"])
        r_thr = _fit([d / "remote.csv"], drop=("data_wait_s", "cache_hit_ratio"))
        cmp = compare([c], [r], margin=0.05)
        dt = time.perf_counter() - t0
        def err(x, t):  # type: ignore[no-untyped-def]
            return None if x is None else (x - t) / t

        row = {
            "run": name, "truth_end": end, "end": r.warmup_end_step, "end_err": err(r.warmup_end_step, end),
            "decided_by": getattr(r, "warmup_end_decided_by", None), "end_thr": r_thr.warmup_end_step,
            "truth_wait_end": wait_end, "end_thr_err": err(r_thr.warmup_end_step, wait_end),
            "coloc_end": c.warmup_end_step,
            "period": (c.period_steps, r.period_steps), "truth_period": period,
            "ratio": cmp.ratio, "truth_ratio": ratio, "ratio_err": cmp.ratio / ratio - 1 if cmp.ratio else None,
            "ci90": (cmp.ratio_ci90_low, cmp.ratio_ci90_high), "verdict": cmp.verdict, "mdm": cmp.min_detectable_margin,
            "classes": (c.classification, r.classification), "seconds": dt,
        }
        rows.append(row)
    return rows


def public_logs(real: Path) -> tuple[int, list[str]]:
    """Every file of the public-log fixtures fitted; the runs classed warmup with a negative lost_s."""
    from costmodel.foundation.errors import CostmodelError
    from costmodel.ingest import load_many
    from costmodel.warmup import analyze

    bad: list[str] = []
    n = 0
    for sub in ("training_logs", "mlperf_storage", "dlio"):
        for p in sorted((real / sub).rglob("*")):
            if not p.is_file() or p.suffix == ".md":
                continue
            try:
                with contextlib.redirect_stderr(io.StringIO()):
                    runs = load_many([p]).runs
            except (CostmodelError, ValueError, OSError):
                continue
            for run in runs:
                try:
                    f = analyze(run)
                except CostmodelError:
                    continue
                n += 1
                if f.classification == "warmup" and (f.lost_s or 0.0) < 0:
                    bad.append(f"{p.relative_to(real)}:{run.run_id} lost_s={f.lost_s:.3g}")
    return n, bad


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--real", default=str(ROOT.parent / "shared" / "fixtures" / "real"))
    ap.add_argument("--no-public", action="store_true", help="skip the public-log property check")
    a = ap.parse_args()
    real = Path(a.real)
    print("| run | remote end (truth) | error | decided by | throughput alone (wait truth, error) | co-located end | "
          "period c/r (truth) | ratio (truth) | error | 90 % CI | verdict at 5 % | classes c/r |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    def f(x, spec: str) -> str:  # type: ignore[no-untyped-def]
        return "-" if x is None else format(x, spec)

    for r in score_pairs(real):
        print(f"| {r['run']} | {f(r['end'], 'd')} ({r['truth_end']}) | {f(r['end_err'], '+.1%')} | {r['decided_by'] or '-'} | "
              f"{f(r['end_thr'], 'd')} ({r['truth_wait_end']}, {f(r['end_thr_err'], '+.1%')}) | {f(r['coloc_end'], 'd')} | "
              f"{f(r['period'][0], 'g')}/{f(r['period'][1], 'g')} ({r['truth_period']}) | {f(r['ratio'], '.3f')} "
              f"({r['truth_ratio']}) | {f(r['ratio_err'], '+.1%')} | {f(r['ci90'][0], '.3f')}-{f(r['ci90'][1], '.3f')} | "
              f"{r['verdict']} | {r['classes'][0]}/{r['classes'][1]} |")
    if not a.no_public:
        n, bad = public_logs(real)
        print(f"\npublic logs fitted: {n}; classed warmup with a negative lost_s: {len(bad)}")
        for b in bad:
            print("  ", b)


if __name__ == "__main__":
    main()
