"""Accuracy and speed of costmodel.warmup against known truth, beside ruptures PELT and MSER-5.

Usage: ``.venv/bin/python benchmarks/bench_warmup.py [--quick] [--no-slow-baseline] [--tost-pairs N]
[--tost-only] [--realistic-only] [--realistic N]``

Realistic suite (issue 15): ``N`` (default 160) seeded logs from :mod:`costmodel.synth_realistic`
(checkpoint pauses, epoch stalls, slow drift, overshoot, two-tier caches, step-time-only and coarse
logs, 50 k-step runs, AR noise up to 0.9), analysed by the product and, on the same series, by MSER-5
and ruptures PELT (block means); figures against the issue's targets: warm-up end within 5 % of n,
class accuracy, plateau error p90, files refused, and TOST at 2 % on realistic pairs (truly
equivalent, and 3-5 % apart).

Generates >= 500 seeded series with :func:`costmodel.synth.generate` (shapes exp, power, logistic,
ramp, step; CV 0.5-4 %; AR(1) 0-0.8; 1 % slow-step outliers; slow drift; periodic dips; slowdowns;
invalidations; runs with no steady state), analyses each one and prints, against the issue's targets:
warm-up-end error (share of n), plateau error, 95 % CI coverage, TOST equivalence calls,
classification accuracy, dips found / false. All the monotone series are given to MSER-5 (raw
series) and to ``ruptures.Pelt`` on the same <= 500 block means our segmentation uses (raw series
take it 0.5-5 s each); a 22-series subset also runs ruptures on the raw points. Their warm-up-end
accuracy and time are printed beside ours on exactly the same series, and the speed at n = 10,000
and n = 1,000,000. Rates of yes/no calls carry a 95 % Wilson interval.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

from costmodel.synthetic.shapes import generate
from costmodel.synthetic.training_logs import generate_realistic, realistic_suite
from costmodel.warmup import analyze, compare
from costmodel.warmup.detect import mser

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchstats import wilson

SHAPES = ("exp", "power", "logistic", "ramp", "step")


def pct(a: np.ndarray, q: float) -> float:
    return float(np.percentile(a, q)) if len(a) else float("nan")


def monotone_params(rng: np.random.Generator, i: int) -> dict:
    return {
        "n": int(rng.choice([2000, 5000])),
        "shape": SHAPES[i % len(SHAPES)],
        "warmup_frac": float(rng.uniform(0.05, 0.5)),
        "cv": float(rng.choice([0.005, 0.01, 0.02, 0.04])),
        "ar": float(rng.choice([0.0, 0.5, 0.8])),
        "outlier_frac": float(rng.choice([0.0, 0.01])),
        "drift": float(rng.choice([0.0, 0.0, -0.003, 0.003])),
        "alpha": float(rng.choice([1.0, 2.0])),
        "seed": 10_000 + i,
    }




def rate(v: list[bool]) -> str:
    """'4.1 % (41/1000, 95 % CI 3.0-5.5 %)'."""
    k, n = int(np.sum(v)), len(v)
    lo, hi = wilson(k, n)
    return f"{k / n:.1%} ({k}/{n}, 95 % CI {lo:.1%}-{hi:.1%})"


def rpt_warmup_end(y: np.ndarray, jump: int = 5, block: int = 1) -> int:
    """Warm-up end by ruptures PELT (l2, penalty 15 sigma^2 log n) + the same 1 % equivalence walk.

    ``block > 1``: PELT runs on the means of consecutive blocks of ``block`` points (as our
    segmentation does, :func:`costmodel.warmup.detect.block_means`) and the end is mapped back to a
    point index (start of the block).
    """
    import ruptures as rpt

    from costmodel.warmup.detect import block_means

    n = len(y)
    if block > 1:
        y, _ = block_means(np.asarray(y, dtype=float), block)
    sig = 1.4826 * np.median(np.abs(np.diff(y) - np.median(np.diff(y)))) / np.sqrt(2)
    pen = 15 * sig**2 * np.log(len(y))
    bk = rpt.Pelt(model="l2", min_size=2, jump=jump).fit(y.reshape(-1, 1)).predict(pen=pen)
    starts = [0, *bk[:-1]]
    levels = [float(np.mean(y[a:b])) for a, b in zip(starts, bk, strict=True)]
    f = levels[-1]
    start = starts[-1]
    for a, lv in zip(reversed(starts[:-1]), reversed(levels[:-1]), strict=True):
        if abs(lv - f) <= 0.01 * abs(f):
            start = a
        else:
            break
    return int(min(start * block, n - 1))


def pair(ratio: float, ar: float, cv: float, steady: int, seed: int) -> bool:
    """One TOST call: a flat co-located run vs a remote run with a 20 % exp warm-up, same steady length."""
    a = generate(n=steady, shape="flat", warmup_frac=0.0, plateau=1000.0, cv=cv, ar=ar, seed=seed)
    wf = 0.2
    b = generate(n=int(steady / (1 - wf)), shape="exp", warmup_frac=wf, plateau=1000.0 * ratio, cv=cv, ar=ar,
                 seed=seed + 1)
    return compare([a.to_run("a", "colocated")], [b.to_run("b", "remote")], margin=0.02).equivalent


def tost_pairs(n_margin: int, n_equal: int) -> tuple[list[bool], list[bool]]:
    """Equivalence calls at a true ratio of 1.02 (AR 0.8, 2,500 steady steps; seeds 50000 + 2i) and at
    1.00 (AR 0.5, 1,000 steady steps; seeds 60000 + 2i); CV 3 % both."""
    eq_margin = [pair(1.02, 0.8, 0.03, 2500, 50_000 + 2 * i) for i in range(n_margin)]
    eq_equal = [pair(1.00, 0.5, 0.03, 1000, 60_000 + 2 * i) for i in range(n_equal)]
    return eq_margin, eq_equal


def _rate_series(log) -> np.ndarray:
    """The per-row rate a baseline sees: samples/s, or steps/s for a step-time-only log."""
    t = log.table
    return t["samples_per_s"].to_numpy() if "samples_per_s" in t.columns else 1.0 / t["step_time_s"].to_numpy()


def realistic(n_logs: int, n_pairs: int) -> None:
    """The realistic suite of issue 15 (see the module docstring); prints the figures."""
    from costmodel.foundation.errors import AnalysisError
    from costmodel.warmup.detect import block_size

    suite = realistic_suite(n_logs)
    t0 = time.perf_counter()
    end_ok, cls_ok, perr, refused = [], [], [], 0
    mser_ok, pelt_ok = [], []
    per_kind: dict[str, list[bool]] = {}
    confusion: Counter = Counter()
    for p, log in suite:
        tr = log.truth
        try:
            r = analyze(log.to_run())
        except AnalysisError:
            refused += 1
            end_ok.append(False)
            cls_ok.append(False)
            continue
        ok = r.classification == tr.classification
        cls_ok.append(ok)
        per_kind.setdefault(p["kind"], []).append(ok)
        confusion[(tr.classification, r.classification)] += 1
        n = tr.n_steps
        if tr.warmup_end_step is None:
            e = 0.0 if r.warmup_end_step is None else 1.0
        else:
            e = 1.0 if r.warmup_end_step is None else abs(r.warmup_end_step - tr.warmup_end_step) / n
        end_ok.append(e <= 0.05)
        if tr.plateau is not None:
            ref = tr.plateau_step_time_s if r.metric == "step_time_s" else tr.plateau
            perr.append(1.0 if r.steady_mean is None else abs(r.steady_mean / ref - 1.0))
        # baselines on the same series (row index -> step)
        y = _rate_series(log)
        steps = log.table["step"].to_numpy()
        d5, _ = mser(y, 5)
        e_rp = rpt_warmup_end(y, jump=2, block=block_size(len(y)))
        for got, lst in ((d5, mser_ok), (e_rp, pelt_ok)):
            if tr.warmup_end_step is None:
                lst.append(False)  # a drift has no end; a truncation point is always wrong there
            else:
                lst.append(abs(int(steps[min(got, len(steps) - 1)]) - tr.warmup_end_step) / n <= 0.05)
    t_suite = time.perf_counter() - t0
    perr_a = np.array(perr)
    eq_true, eq_apart = realistic_pairs(n_pairs)
    print(f"\n== realistic logs (costmodel.synth_realistic, {len(suite)} logs, {time.perf_counter() - t0:.0f} s "
          f"with baselines and pairs) ==")
    print(f"warm-up end within 5 % of n: ours {rate(end_ok)}   [target >= 95 %]")
    print(f"   MSER-5 {rate(mser_ok)};  ruptures PELT (block means) {rate(pelt_ok)}  (same series)")
    print(f"class accuracy: {rate(cls_ok)}   [target >= 95 %]")
    for kind, v in per_kind.items():
        print(f"   {kind:10s}: {np.mean(v):.1%} (n={len(v)})")
    wrong = {k: v for k, v in confusion.items() if k[0] != k[1]}
    if wrong:
        print(f"   confusions (truth, ours): {dict(wrong)}")
    print(f"plateau error (work over time incl. stalls): median {np.median(perr_a):.3%}  p90 {pct(perr_a, 90):.3%}"
          f"   [target p90 <= 0.5 %]  (n={len(perr_a)})")
    print(f"files refused: {refused} of {len(suite)}   [target 0]")
    print(f"TOST at 2 %, realistic pairs: truly equivalent called equivalent {rate(eq_true)}   [target >= 80 %]")
    print(f"TOST at 2 %, realistic pairs 3-5 % apart called equivalent {rate(eq_apart)}   [target <= 5 %]")
    print(f"(suite analysis + baselines {t_suite:.0f} s)")


def realistic_pairs(n_pairs: int, seed: int = 70_000) -> tuple[list[bool], list[bool]]:
    """TOST calls at 2 % on realistic pairs: a flat co-located log vs a warming remote one with the same
    stalls (checkpoints or epoch stalls or none), noise and log granularity; true ratio 1.00, or
    1.03-1.05 (remote slower or faster). Lengths 5,000-20,000 steps."""
    rng = np.random.default_rng(seed)
    eq_true, eq_apart = [], []
    for i in range(2 * n_pairs):
        common = {"n": int(rng.choice([5000, 10_000, 20_000])), "cv": float(rng.choice([0.01, 0.02, 0.04])),
                      "ar": float(rng.choice([0.0, 0.5, 0.8, 0.9])), "log_every": int(rng.choice([1, 1, 10])),
                      "step_time_only": bool(rng.random() < 0.2)}
        extra = rng.random()
        if extra < 0.35:
            common.update(ckpt_every=int(rng.choice([500, 1000])), ckpt_steps=float(rng.uniform(5, 30)))
        elif extra < 0.7:
            common.update(epoch_steps=int(rng.choice([250, 500, 1000])), epoch_stall_steps=float(rng.uniform(1, 6)))
        apart = i % 2 == 1
        ratio = 1.0 if not apart else float(rng.uniform(1.03, 1.05)) ** (1 if rng.random() < 0.5 else -1)
        a = generate_realistic(kind="flat", plateau=1000.0, seed=seed + 3 * i, **common)
        b = generate_realistic(kind=str(rng.choice(["warmup", "two_tier", "overshoot"])), plateau=1000.0 * ratio,
                               warmup_frac=float(rng.uniform(0.05, 0.25)), seed=seed + 3 * i + 1, **common)
        c = compare([a.to_run("a", "colocated")], [b.to_run("b", "remote")], margin=0.02)
        (eq_apart if apart else eq_true).append(bool(c.equivalent))
    return eq_true, eq_apart


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="a smaller grid (about a fifth)")
    ap.add_argument("--no-slow-baseline", action="store_true", help="skip ruptures at n = 10,000 (about a minute)")
    ap.add_argument("--tost-pairs", type=int, default=None,
                    help="TOST pairs at the margin (default 300, --quick 60); 1.00 pairs are a third of it")
    ap.add_argument("--tost-only", action="store_true", help="run only the TOST equivalence part")
    ap.add_argument("--realistic-only", action="store_true", help="run only the realistic suite (issue 15)")
    ap.add_argument("--realistic", type=int, default=None, metavar="N",
                    help="realistic logs (default 160, --quick 48); pairs: N / 2 of each kind")
    args = ap.parse_args(argv)
    n_real = args.realistic or (48 if args.quick else 160)
    if args.realistic_only:
        realistic(n_real, max(n_real // 2, 20))
        return 0
    k = 5 if args.quick else 1
    n_margin = args.tost_pairs or 300 // k
    n_equal = max(n_margin // 3, 20)
    if args.tost_only:
        t0 = time.perf_counter()
        eq_margin, eq_equal = tost_pairs(n_margin, n_equal)
        print(f"TOST at 2 %, {n_margin + n_equal} pairs in {time.perf_counter() - t0:.0f} s")
        print(f"true ratio 1.02, AR 0.8: called equivalent {rate(eq_margin)}   [target <= 6 %]")
        print(f"true ratio 1.00, 1,000 steady steps: called equivalent {rate(eq_equal)}   [target >= 95 %]")
        return 0
    rng = np.random.default_rng(2026)
    n_series = 0
    t_ours = 0.0

    def run(series):
        nonlocal n_series, t_ours
        t0 = time.perf_counter()
        r = analyze(series.to_run())
        t_ours += time.perf_counter() - t0
        n_series += 1
        return r

    # --- A: monotone warm-ups ----------------------------------------------------------------
    end_err, end_err_shape, mser_err, plateau_err, covered, cls_ok = [], {}, [], [], [], []
    false_dips = 0
    n_nondip = 0
    mono = []
    nA = 300 // k
    t_mono0 = t_ours
    for i in range(nA):
        p = monotone_params(rng, i)
        s = generate(**p)
        r = run(s)
        mono.append((s, p))
        tr = s.truth
        cls_ok.append(r.classification == tr.classification)
        n_nondip += 1
        false_dips += r.classification == "dips"
        if r.warmup_end_step is not None and tr.warmup_end_step is not None:
            e = abs(r.warmup_end_step - tr.warmup_end_step) / p["n"]
        else:
            e = 1.0
        end_err.append(e)
        end_err_shape.setdefault(p["shape"], []).append(e)
        d5, _ = mser(s.table["samples_per_s"].to_numpy(), 5)
        mser_err.append(abs(d5 - tr.warmup_end_step) / p["n"])
        if r.steady_mean is not None:
            plateau_err.append(abs(r.steady_mean / tr.plateau_effective - 1))
            if p["drift"] == 0:
                covered.append(r.steady_ci_low <= tr.plateau_effective <= r.steady_ci_high)
        else:
            plateau_err.append(1.0)
    t_ours_mono = t_ours - t_mono0
    end_err = np.array(end_err)
    mser_err = np.array(mser_err)
    plateau_err = np.array(plateau_err)

    # --- B: plateau precision at CV 2 %, 2,500 steady steps -----------------------------------
    prec = []
    cov_b = []
    for i in range(60 // k):
        wf = 0.2
        s = generate(n=3125, shape=SHAPES[i % 5], warmup_frac=wf, cv=0.02, ar=0.5, seed=20_000 + i)
        r = run(s)
        prec.append(abs(r.steady_mean / s.truth.plateau_effective - 1) if r.steady_mean else 1.0)
        cov_b.append(r.steady_ci_low is not None and r.steady_ci_low <= s.truth.plateau_effective <= r.steady_ci_high)
        cls_ok.append(r.classification == s.truth.classification)
        n_nondip += 1
        false_dips += r.classification == "dips"
    prec = np.array(prec)

    # --- C: coverage under AR(1) 0.8 ---------------------------------------------------------
    cov_c = []
    for i in range(120 // k):
        s = generate(n=5000, shape=("exp", "logistic", "ramp", "step")[i % 4], warmup_frac=float(rng.uniform(0.05, 0.4)),
                     cv=0.02, ar=0.8, seed=30_000 + i)
        r = run(s)
        cov_c.append(r.steady_ci_low is not None and r.steady_ci_low <= s.truth.plateau_effective <= r.steady_ci_high)
        cls_ok.append(r.classification == s.truth.classification)
        n_nondip += 1
        false_dips += r.classification == "dips"

    # --- D/E: flat, slowdown, invalidation, no steady state, dips ---------------------------------
    per_kind: dict[str, list[bool]] = {}
    confusion: Counter = Counter()
    dips_found = []
    for i in range(200 // k):
        kind = ("flat", "slowdown", "invalidation", "no_steady_state", "dips")[i % 5]
        p = {"n": int(rng.choice([2000, 5000])), "cv": float(rng.choice([0.01, 0.02, 0.03])),
                 "ar": float(rng.choice([0.0, 0.5, 0.8])), "seed": 40_000 + i}
        if kind == "flat":
            s = generate(shape="flat", warmup_frac=0.0, **p)
        elif kind == "dips":
            per = int(rng.choice([100, 250, 500]))
            s = generate(shape="exp", warmup_frac=float(rng.uniform(0.05, 0.3)), kind="dips",
                         dips=(per, int(rng.integers(3, 11)), float(rng.uniform(0.2, 0.5))), **p)
        else:
            s = generate(shape=str(rng.choice(["exp", "logistic", "ramp"])), warmup_frac=float(rng.uniform(0.05, 0.3)),
                         kind=kind, **p)
        r = run(s)
        ok = r.classification == s.truth.classification
        per_kind.setdefault(kind, []).append(ok)
        confusion[(s.truth.classification, r.classification)] += 1
        cls_ok.append(ok)
        if kind == "dips":
            dips_found.append(r.classification == "dips")
        else:
            n_nondip += 1
            false_dips += r.classification == "dips"

    # --- F: TOST equivalence ---------------------------------------------------------------
    t0 = time.perf_counter()
    eq_margin, eq_equal = tost_pairs(n_margin, n_equal)
    t_ours += time.perf_counter() - t0
    n_series += 2 * (len(eq_margin) + len(eq_equal))

    # --- baselines on the same monotone series -------------------------------------------------
    import ruptures  # noqa: F401  (dev dependency)

    from costmodel.warmup.detect import block_size

    rpb_err, t_rpb = [], 0.0
    for s, p in mono:
        y = s.table["samples_per_s"].to_numpy()
        t0 = time.perf_counter()
        e_rp = rpt_warmup_end(y, jump=2, block=block_size(len(y)))
        t_rpb += time.perf_counter() - t0
        rpb_err.append(abs(e_rp - s.truth.warmup_end_step) / p["n"])
    rpb_err = np.array(rpb_err)

    sub = [(s, p) for s, p in mono if p["n"] == 2000][: 20 // k + 2]
    rp_err, our_sub, mser_sub = [], [], []
    t_rp = 0.0
    t_our_sub = 0.0
    for s, p in sub:
        y = s.table["samples_per_s"].to_numpy()
        t0 = time.perf_counter()
        e_rp = rpt_warmup_end(y)
        t_rp += time.perf_counter() - t0
        rp_err.append(abs(e_rp - s.truth.warmup_end_step) / p["n"])
        t0 = time.perf_counter()
        r = analyze(s.to_run())
        t_our_sub += time.perf_counter() - t0
        our_sub.append(abs((r.warmup_end_step if r.warmup_end_step is not None else p["n"]) - s.truth.warmup_end_step) / p["n"])
        mser_sub.append(abs(mser(y, 5)[0] - s.truth.warmup_end_step) / p["n"])

    # --- speed ---------------------------------------------------------------------------------
    s10k = generate(n=10_000, shape="exp", warmup_frac=0.2, cv=0.02, ar=0.5, seed=7)
    reps = 5
    t0 = time.perf_counter()
    for _ in range(reps):
        analyze(s10k.to_run())
    t_ours_10k = (time.perf_counter() - t0) / reps
    t_rp_10k = None
    if not args.no_slow_baseline:
        t0 = time.perf_counter()
        rpt_warmup_end(s10k.table["samples_per_s"].to_numpy())
        t_rp_10k = time.perf_counter() - t0
    s1m = generate(n=1_000_000, shape="exp", warmup_frac=0.2, cv=0.02, ar=0.5, outlier_frac=0.01, seed=8)
    run1m = s1m.to_run()
    t0 = time.perf_counter()
    r1m = analyze(run1m)
    t_1m = time.perf_counter() - t0
    t0 = time.perf_counter()
    mser(s10k.table["samples_per_s"].to_numpy(), 5)
    t_mser_10k = time.perf_counter() - t0

    # --- report ----------------------------------------------------------------------------------
    cov_all = np.array(covered + cov_b + cov_c, dtype=bool)
    print(f"series analysed: {n_series} (monotone {nA}, precision {len(prec)}, AR 0.8 coverage {len(cov_c)}, "
          f"other classes {sum(len(v) for v in per_kind.values())}, TOST pairs {len(eq_margin) + len(eq_equal)})")
    print(f"mean analysis time per series: {t_ours / n_series * 1000:.0f} ms")
    print("\n== warm-up end error (share of n), monotone warm-ups ==")
    print(f"ours   : median {np.median(end_err):.2%}  p90 {pct(end_err, 90):.2%}  within 5 %: {np.mean(end_err <= 0.05):.1%}"
          f"   [target: median <= 1.5 %, within 5 % >= 95 %]")
    for sh, errs in end_err_shape.items():
        v = np.array(errs)
        print(f"   {sh:9s}: median {np.median(v):.2%}  p90 {pct(v, 90):.2%}  within 5 %: {np.mean(v <= 0.05):.1%}  (n={len(v)})")
    print(f"MSER-5 : median {np.median(mser_err):.2%}  p90 {pct(mser_err, 90):.2%}  within 5 %: {np.mean(mser_err <= 0.05):.1%}")
    print(f"ruptures PELT on the same block means (<= 500, l2, jump 2, min_size 2, pen 15 sigma_b^2 log n_b): "
          f"median {np.median(rpb_err):.2%}  p90 {pct(rpb_err, 90):.2%}  within 5 %: {np.mean(rpb_err <= 0.05):.1%}"
          f"  time/series {t_rpb / len(mono) * 1000:.0f} ms")
    print(f"   (all three on the same {len(mono)} monotone series; ours {t_ours_mono / len(mono) * 1000:.0f} ms/series, "
          f"whole analysis)")
    print(f"subset of {len(sub)} series (n = 2000) for ruptures PELT (l2, jump 5, pen 15 sigma^2 log n + 1 % walk):")
    for name, errs, t in (("ours", our_sub, t_our_sub), ("ruptures", rp_err, t_rp), ("MSER-5", mser_sub, None)):
        v = np.array(errs)
        ts = f"  time/series {t / len(sub) * 1000:.0f} ms" if t is not None else ""
        print(f"   {name:8s}: median {np.median(v):.2%}  p90 {pct(v, 90):.2%}  within 5 %: {np.mean(v <= 0.05):.1%}{ts}")
    print("\n== plateau (steady_mean vs effective truth) ==")
    print(f"CV 2 %, 2,500 steady steps: median {np.median(prec):.3%}  p90 {pct(prec, 90):.3%}   [target p90 <= 0.3 %]")
    print(f"monotone grid: within 1 %: {np.mean(plateau_err <= 0.01):.1%}   [target >= 95 %]")
    print("\n== 95 % CI coverage ==")
    print(f"all: {np.mean(cov_all):.1%} (n={len(cov_all)});  AR 0.8: {np.mean(cov_c):.1%} (n={len(cov_c)});  "
          f"CV 2 % precision cell: {np.mean(cov_b):.1%}   [target 92-97 %]")
    print("\n== TOST at 2 % ==")
    print(f"true ratio 1.02, AR 0.8: called equivalent {rate(eq_margin)}   [target <= 6 %]")
    print(f"true ratio 1.00, 1,000 steady steps: called equivalent {rate(eq_equal)}   [target >= 95 %]")
    print("\n== classification ==")
    print(f"accuracy: {np.mean(cls_ok):.1%} (n={len(cls_ok)})   [target >= 97 %]")
    for kind, v in per_kind.items():
        print(f"   {kind:16s}: {np.mean(v):.1%} (n={len(v)})")
    wrong = {k: v for k, v in confusion.items() if k[0] != k[1]}
    if wrong:
        print(f"   confusions (truth, ours): {dict(wrong)}")
    print(f"dips found: {np.mean(dips_found):.1%} (n={len(dips_found)})   [target >= 95 %]")
    print(f"false dips: {false_dips / max(n_nondip, 1):.1%} (n={n_nondip})   [target <= 2 %]")
    print("\n== speed ==")
    print(f"n = 10,000: ours {t_ours_10k * 1000:.0f} ms (whole analysis); MSER-5 {t_mser_10k * 1000:.1f} ms; "
          + (f"ruptures PELT {t_rp_10k:.1f} s -> ours is {t_rp_10k / t_ours_10k:.0f}x faster   [target >= 100x]"
             if t_rp_10k else "ruptures skipped"))
    print(f"n = 1,000,000: whole analysis {t_1m:.2f} s ({r1m.classification}, end step {r1m.warmup_end_step}, "
          f"truth {s1m.truth.warmup_end_step})   [target <= 5 s]")
    realistic(n_real, max(n_real // 2, 20))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
