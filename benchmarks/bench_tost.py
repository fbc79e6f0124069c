"""TOST at the 2 % margin on realistic pairs from two independent generators (issue 15).

Usage: ``PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_tost.py [--pairs N] [--jobs J] [--only GEN]``

Monte Carlo over co-located / remote pairs whose true ratio (remote / co-located steady level,
throughput-like) is known, from

- ``synth``: :func:`costmodel.synth_realistic.generate_realistic` (co-located ``flat`` vs a remote
  ``warmup`` / ``two_tier`` / ``overshoot`` run with the same stalls, noise and log granularity; the
  truth is the long-run plateau, work over time including the stalls);
- ``heldout``: ``benchmarks/heldout_logs.py`` (written independently: log-normal AR and Student-t
  noise, stragglers, multi-step stalls of random size; the remote log's rate is scaled so that the
  realised plateaus differ by exactly the ratio);
- ``textbook``: :func:`costmodel.synth.generate` AR(1) 0.8, CV 3 %, 2,500 steady steps (the cell the
  previous TOST was calibrated on).

Kinds: ``ar`` (AR noise, no stalls), ``checkpoint`` (a pause every ~1,000 steps), ``epoch`` (epoch
boundary stalls), ``short`` (4,000-step runs with checkpoints), ``long`` (50,000 steps with
checkpoints), ``coarse`` (a row every 10-50 steps), ``step_time_only`` (a log with a step time only).
Ratio cells: ``1.00`` (1.00, 0.99, 1.01 in turn), ``1.02`` (exactly on the margin: 1.02 or 1/1.02 in
turn; the false-equivalence rate must be <= 5 %), ``1.03`` and ``1.05`` (either way; <= 5 %).

Printed: the rate called equivalent per cell with a Wilson 95 % interval, the 90 % CI half-width of
the log ratio against its true error, and the distribution of ``min_detectable_margin``.
Deterministic: pair ``i`` of a cell uses seeds derived from (generator, kind, cell, i).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchstats import seed_of, wilson

CELLS = {"1.00": (1.0, 0.99, 1.01), "1.02": (1.02, 1 / 1.02), "1.03": (1.03, 1 / 1.03), "1.05": (1.05, 1 / 1.05)}
KINDS = {
    "synth": ("ar", "checkpoint", "epoch", "short", "long", "coarse", "step_time_only"),
    "heldout": ("ar", "checkpoint", "epoch", "short", "long", "coarse", "step_time_only"),
    "textbook": ("ar",),
}





def _synth_pair(kind: str, ratio: float, seed: int) -> tuple[Any, Any]:
    from costmodel.synthetic.training_logs import generate_realistic

    rng = np.random.default_rng(seed)
    common: dict[str, Any] = {"n": 10_000, "cv": float(rng.choice([0.01, 0.02, 0.04])),
                                  "ar": float(rng.choice([0.0, 0.5, 0.8, 0.9]))}
    if kind == "checkpoint":
        common.update(ckpt_every=1000, ckpt_steps=float(rng.uniform(5, 30)))
    elif kind == "epoch":
        common.update(epoch_steps=int(rng.choice([250, 500, 1000])), epoch_stall_steps=float(rng.uniform(1, 6)))
    elif kind == "short":
        common.update(n=4000, ckpt_every=1000, ckpt_steps=float(rng.uniform(5, 30)))
    elif kind == "long":
        common.update(n=50_000, ckpt_every=1000, ckpt_steps=float(rng.uniform(5, 30)))
    elif kind == "coarse":
        common.update(n=20_000, log_every=int(rng.choice([10, 20, 50])), epoch_steps=1000,
                      epoch_stall_steps=float(rng.uniform(1, 6)))
    elif kind == "step_time_only":
        common.update(step_time_only=True, ckpt_every=1000, ckpt_steps=float(rng.uniform(5, 30)))
    a = generate_realistic(kind="flat", plateau=1000.0, seed=seed, **common)
    b = generate_realistic(kind=str(rng.choice(["warmup", "two_tier", "overshoot"])), plateau=1000.0 * ratio,
                           warmup_frac=float(rng.uniform(0.05, 0.25)), seed=seed + 1, **common)
    return a.to_run("a", "colocated"), b.to_run("b", "remote")


def _heldout_pair(kind: str, ratio: float, seed: int) -> tuple[Any, Any]:
    import heldout_logs as h

    # "long" is a 50,000-step checkpointed log (heldout's own "long" kind grows the checkpoint cost by
    # half its size at every checkpoint: a drift, not a steady state to test equivalence on)
    hk, n = {"ar": ("two_tier", 6000), "checkpoint": ("checkpoint", 6000), "epoch": ("epoch", 6000),
             "short": ("checkpoint", 4000), "long": ("checkpoint", 50_000), "coarse": ("coarse", 6000),
             "step_time_only": ("step_time_only", 6000)}[kind]
    a, ta = h.make_log(seed, hk, n)
    b, tb = h.make_log(seed + 1, hk, n)
    f = ta["plateau"] / tb["plateau"] * ratio  # realised plateaus differ by exactly `ratio`
    if "samples_per_s" in b.columns:
        b["samples_per_s"] = b["samples_per_s"] * f
    else:
        b["step_time_s"] = b["step_time_s"] / f
        b["t_s"] = b["step_time_s"].cumsum()
    return a, b


def _textbook_pair(kind: str, ratio: float, seed: int) -> tuple[Any, Any]:
    from costmodel.synthetic.shapes import generate

    a = generate(n=2500, shape="flat", warmup_frac=0.0, plateau=1000.0, cv=0.03, ar=0.8, seed=seed)
    b = generate(n=3125, shape="exp", warmup_frac=0.2, plateau=1000.0 * ratio, cv=0.03, ar=0.8, seed=seed + 1)
    return a.to_run("a", "colocated"), b.to_run("b", "remote")


def one(task: tuple[str, str, str, int]) -> dict[str, Any]:
    """One pair: generate, compare at 2 %, return the call and the errors."""
    from costmodel.warmup import compare

    gen, kind, cell, i = task
    ratio = CELLS[cell][i % len(CELLS[cell])]
    seed = seed_of(gen, kind, cell, i) * 2
    make = {"synth": _synth_pair, "heldout": _heldout_pair, "textbook": _textbook_pair}[gen]
    a, b = make(kind, ratio, seed)
    c = compare([a], [b], margin=0.02)
    out = {"gen": gen, "kind": kind, "cell": cell, "ratio": ratio, "equivalent": bool(c.equivalent),
           "equivalence": c.equivalence, "est": c.ratio, "se": c.se_log_ratio, "df": c.df,
           "mdm": c.min_detectable_margin}
    if c.ratio is not None and c.se_log_ratio is not None:
        from scipy import stats

        out["err"] = abs(float(np.log(c.ratio / ratio)))
        out["hw90"] = float(stats.t.ppf(0.95, c.df) * c.se_log_ratio)
        # signed towards 1: a positive z pulls a pair at the margin towards "equivalent"
        sgn = -1.0 if ratio > 1 else 1.0
        out["z"] = sgn * float(np.log(c.ratio / ratio) / c.se_log_ratio) if c.se_log_ratio > 0 else None
    return out


def _fmt_rate(calls: list[bool]) -> str:
    k, n = sum(calls), len(calls)
    lo, hi = wilson(k, n)
    return f"{100 * k / max(n, 1):5.1f} % ({k}/{n}; {100 * lo:.1f}-{100 * hi:.1f} %)"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=200, help="pairs per (generator, ratio cell), spread over the kinds")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--only", choices=sorted(KINDS), action="append", help="generator(s) to run (default all)")
    ap.add_argument("--cells", nargs="+", default=list(CELLS), choices=list(CELLS))
    args = ap.parse_args(argv)
    gens = args.only or ["synth", "heldout", "textbook"]
    tasks = [(g, KINDS[g][i % len(KINDS[g])], cell, i // len(KINDS[g]))
             for g in gens for cell in args.cells for i in range(args.pairs)]
    t0 = time.perf_counter()
    if args.jobs > 1:
        from multiprocessing import Pool

        with Pool(args.jobs) as pool:
            rows = pool.map(one, tasks, chunksize=4)
    else:
        rows = [one(t) for t in tasks]
    dt = time.perf_counter() - t0
    print(f"bench_tost: {len(rows)} pairs in {dt:.0f} s ({args.jobs} worker(s)); margin 2 %, TOST 90 % CI")
    print("\n| generator | cell (true ratio) | called equivalent | target | inconclusive | different |")
    print("| --- | --- | --- | --- | --- | --- |")
    for g in gens:
        for cell in args.cells:
            r = [x for x in rows if x["gen"] == g and x["cell"] == cell]
            tgt = ">= 80 %" if cell == "1.00" else "<= 5 %"
            inc = sum(x["equivalence"] == "inconclusive" for x in r)
            dif = sum(x["equivalence"] == "different" for x in r)
            print(f"| {g} | {cell} | {_fmt_rate([x['equivalent'] for x in r])} | {tgt} | {inc} | {dif} |")
    print("\nper kind (called equivalent; 1.00 cell / 1.02 cell):")
    print("| generator | kind | 1.00 | 1.02 (margin) | 90 % half-width median | true error median / p90 | "
          "z mean / sd | min_detectable_margin p10 / p50 / p90 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for g in gens:
        for kind in KINDS[g]:
            r = [x for x in rows if x["gen"] == g and x["kind"] == kind]
            e1 = [x["equivalent"] for x in r if x["cell"] == "1.00"]
            e2 = [x["equivalent"] for x in r if x["cell"] == "1.02"]
            hw = [x["hw90"] for x in r if "hw90" in x]
            err = [x["err"] for x in r if "err" in x]
            zs = [x["z"] for x in r if x.get("z") is not None]
            md = [x["mdm"] for x in r if x.get("mdm") is not None]
            def q(v, p):
                return (100 * float(np.percentile(v, p)) if v else float("nan"))
            print(f"| {g} | {kind} | {_fmt_rate(e1) if e1 else '-'} | {_fmt_rate(e2) if e2 else '-'} | "
                  f"{q(hw, 50):.2f} % | {q(err, 50):.2f} / {q(err, 90):.2f} % | "
                  f"{float(np.mean(zs)) if zs else float('nan'):+.2f} / {float(np.std(zs)) if zs else float('nan'):.2f} | "
                  f"{q(md, 10):.2f} / {q(md, 50):.2f} / {q(md, 90):.2f} % |")
    nores = sum(x["est"] is None for x in rows)
    print(f"\npairs with no ratio (a side without a steady state): {nores}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
