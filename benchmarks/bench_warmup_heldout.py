"""Issue 15's table on held-out realistic logs, through the real ``costmodel fit`` ingest path.

Usage::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_warmup_heldout.py [--per-kind N] [--pairs N]
        [--suite heldout|synth_realistic|both] [--kinds k1,k2] [--no-baselines] [--show-wrong]

Held-out suite: :mod:`benchmarks.heldout_logs` (an independent generator, written without reading
:mod:`costmodel.synth_realistic`), ``N`` logs of every kind (default 13 x 12 kinds = 156 logs):
checkpoint pauses, slow drift that never settles, overshoot, epoch-boundary stalls, step-time-only
logs without and with a batch size, two-tier caches, coarse logs, 50 k-step runs with checkpoint dips,
clean warm-ups, flat runs, ISO ``wall_time`` logs. ``--suite synth_realistic`` runs the same figures on
:func:`costmodel.synth_realistic.realistic_suite`.

Every log is written to a CSV file and read back by ``costmodel fit --json FILE`` (``costmodel.cli.main``;
``--batch-size`` where the log's truth gives one): a non-zero exit is a file refused. Figures, each
with a 95 % Wilson interval:

- warm-up end within 5 % of n (steps): |ours - truth| <= 0.05 n; a drifting log (no truth end) counts
  as right only when no warm-up end and no level are claimed; a refused file counts as wrong;
- class accuracy: drift -> ``no_steady_state``; otherwise ``flat`` (truth end 0) or ``warmup``, and
  a log with recurring stalls may also be ``dips`` whose ``evidence.underlying`` is that class;
- plateau error: |steady_mean / truth - 1| (truth = work over time from the warm-up end, stalls
  included; in seconds per step for step-time logs read without a batch size); p90;
- files refused;
- TOST at 2 % (public :func:`costmodel.warmup.compare`) on held-out pairs (``heldout_logs.pair``) with a
  true ratio of 1, and 3-5 % apart.

Beside the product, on the same series (the per-row rate read from the file): MSER-5 (raw rows) and
ruptures PELT (l2, penalty 15 sigma^2 log n, on <= 500 block means, the 1 % walk back from the last
segment), warm-up end within 5 % of n.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import heldout_logs as hl
from bench_warmup import rate, rpt_warmup_end

from costmodel.warmup.detect import block_size, mser


def fit_file(path: Path, batch_size: float | None = None) -> tuple[int, dict | None, str]:
    """Run ``costmodel fit --json`` on one file; (exit code, the first run's object, stderr)."""
    from costmodel.cli import main

    argv = ["fit", "--json", str(path)]
    if batch_size is not None:
        argv += ["--batch-size", f"{batch_size:g}"]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:  # argparse errors
            rc = int(e.code or 0)
    if rc != 0:
        return rc, None, err.getvalue().strip()
    fits = json.loads(out.getvalue())
    return 0, (fits[0] if fits else None), err.getvalue().strip()


def expected_classes(tr: dict) -> tuple[set[str], str | None]:
    """Accepted classes and, for ``dips``, the underlying class it must keep."""
    if tr.get("drift"):
        return {"no_steady_state"}, None
    base = "flat" if (tr["warmup_end_step"] or 0) == 0 else "warmup"
    if tr.get("stalls"):
        return {base, "dips"}, base
    return {base}, None


def _file_rate(df: pd.DataFrame) -> np.ndarray:
    if "samples_per_s" in df.columns:
        return df["samples_per_s"].to_numpy(dtype=float)
    return 1.0 / df["step_time_s"].to_numpy(dtype=float)


def heldout_cases(per_kind: int, kinds: list[str] | None):
    for i, kind in enumerate(hl.KINDS):
        if kinds and kind not in kinds:
            continue
        for j in range(per_kind):
            df, tr = hl.make_log(15 * 1000 + i * 100 + j, kind)
            yield kind, df, tr


def synth_cases(n_logs: int):
    from costmodel.synthetic.training_logs import realistic_suite

    for p, log in realistic_suite(n_logs):
        t = log.truth
        tr = {"kind": p["kind"], "n_steps": t.n_steps, "warmup_end_step": t.warmup_end_step,
              "plateau": t.plateau, "plateau_step_time_s": t.plateau_step_time_s,
              "drift": t.classification == "no_steady_state", "classification": t.classification,
              "stalls": t.period_steps is not None}
        yield p["kind"], log.table, tr


def run_suite(cases, tmp: Path, baselines: bool, show_wrong: bool) -> dict:
    end_ok, cls_ok, perr, refused = [], [], [], []
    mser_ok, pelt_ok = [], []
    per_kind: dict[str, dict[str, list]] = {}
    confusion: Counter = Counter()
    t0 = time.perf_counter()
    n = 0
    for kind, df, tr in cases:
        n += 1
        path = tmp / f"log{n:04d}.csv"
        df.to_csv(path, index=False)
        rc, fit, err = fit_file(path, tr.get("batch_size"))
        pk = per_kind.setdefault(kind, {"end": [], "cls": [], "perr": []})
        refused.append(rc != 0 or fit is None)
        if rc != 0 or fit is None:
            end_ok.append(False)
            cls_ok.append(False)
            pk["end"].append(False)
            pk["cls"].append(False)
            if show_wrong:
                print(f"  REFUSED {kind}: {err}")
            continue
        nst = tr["n_steps"]
        w_true = tr["warmup_end_step"]
        got = fit.get("warmup_end_step")
        if w_true is None:
            eok = got is None and fit.get("steady_mean") is None
        else:
            eok = got is not None and abs(got - w_true) <= 0.05 * nst
        end_ok.append(eok)
        pk["end"].append(eok)
        if tr.get("classification") is not None:  # synth_realistic states the class
            acc, under = {tr["classification"]}, None
        else:
            acc, under = expected_classes(tr)
        cl = fit["classification"]
        cok = cl in acc and (cl != "dips" or under is None or fit["evidence"].get("underlying") == under)
        cls_ok.append(cok)
        pk["cls"].append(cok)
        confusion[("/".join(sorted(acc)), cl)] += 0 if cok else 1
        pe = None
        if tr.get("plateau") is not None and not tr.get("drift"):
            ref = tr["plateau"]
            if fit["metric"] == "step_time_s":
                ref = tr.get("plateau_step_time_s") or hl.BATCH / tr["plateau"]
            pe = 1.0 if fit.get("steady_mean") is None else abs(fit["steady_mean"] / ref - 1.0)
            perr.append(pe)
            pk["perr"].append(pe)
        if show_wrong and (not eok or not cok or (pe is not None and pe > 0.005)):
            print(f"  {kind:15s} n={nst} end true {w_true} ours {got}; class {cl} "
                  f"({fit['evidence'].get('underlying')}); plateau err {pe if pe is None else f'{pe:.3%}'}; "
                  f"period {fit.get('period_steps')}; rule: {str(fit['evidence'].get('rule'))[:110]}")
        if baselines:
            y = _file_rate(df)
            steps = df["step"].to_numpy()
            d5, _ = mser(y, 5)
            e_rp = rpt_warmup_end(y, jump=2, block=block_size(len(y)))
            for g, lst in ((d5, mser_ok), (e_rp, pelt_ok)):
                if w_true is None:
                    lst.append(False)  # a drift has no end: any truncation point claims one
                else:
                    lst.append(abs(int(steps[min(g, len(steps) - 1)]) - w_true) <= 0.05 * nst)
    return {"end_ok": end_ok, "cls_ok": cls_ok, "perr": np.array(perr), "refused": refused, "mser_ok": mser_ok,
            "pelt_ok": pelt_ok, "per_kind": per_kind, "confusion": confusion, "t_s": time.perf_counter() - t0}


def tost_pairs(n_pairs: int, seed: int = 91_000) -> tuple[list[bool], list[bool]]:
    """TOST at 2 % through the public compare API on held-out pairs (heldout_logs.pair)."""
    from costmodel.warmup import compare

    rng = np.random.default_rng(seed)
    eq_true, eq_apart = [], []
    for i in range(n_pairs):
        a, b, _ = hl.pair(seed + 10 * i, 1.0)
        eq_true.append(bool(compare([a], [b], margin=0.02).equivalent))
        r = float(rng.uniform(1.03, 1.05)) ** (1 if i % 2 == 0 else -1)
        a, b, _ = hl.pair(seed + 10 * i + 5, r)
        eq_apart.append(bool(compare([a], [b], margin=0.02).equivalent))
    return eq_true, eq_apart


def report(name: str, r: dict, eq: tuple[list[bool], list[bool]] | None, baselines: bool) -> None:
    k = len(r["end_ok"])
    print(f"\n== {name}: {k} logs through `costmodel fit --json FILE` ({r['t_s']:.0f} s) ==")
    print(f"warm-up end within 5 % of n: {rate(r['end_ok'])}   [target >= 95 %]")
    if baselines and r["mser_ok"]:
        print(f"   same series: MSER-5 {rate(r['mser_ok'])};  ruptures PELT (block means) {rate(r['pelt_ok'])}")
    print(f"class accuracy: {rate(r['cls_ok'])}   [target >= 95 %]")
    pa = r["perr"]
    print(f"plateau error (work over time incl. stalls): median {np.median(pa):.3%}  p90 "
          f"{np.percentile(pa, 90):.3%}  max {np.max(pa):.3%}   [target p90 <= 0.5 %]  (n={len(pa)})")
    print(f"files refused: {int(np.sum(r['refused']))} of {k}   [target 0]")
    if eq is not None:
        print(f"TOST at 2 % (public compare), true ratio 1: called equivalent {rate(eq[0])}   [target >= 80 %]")
        print(f"TOST at 2 % (public compare), 3-5 % apart: called equivalent {rate(eq[1])}   [target <= 5 %]")
    print("per kind (end ok / class ok / plateau p90):")
    for kind, v in r["per_kind"].items():
        p90 = f"{np.percentile(v['perr'], 90):.2%}" if v["perr"] else "-"
        print(f"   {kind:15s} n={len(v['end']):3d}  end {np.mean(v['end']):6.1%}  class {np.mean(v['cls']):6.1%}  "
              f"plateau p90 {p90}")
    wrong = {f"{a}->{b}": c for (a, b), c in r["confusion"].items() if c}
    if wrong:
        print(f"   class confusions (expected->ours): {wrong}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per-kind", type=int, default=13)
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--synth-logs", type=int, default=160)
    ap.add_argument("--suite", choices=["heldout", "synth_realistic", "both"], default="both")
    ap.add_argument("--kinds", default="")
    ap.add_argument("--no-baselines", action="store_true")
    ap.add_argument("--show-wrong", action="store_true")
    a = ap.parse_args(argv)
    kinds = [k for k in a.kinds.split(",") if k]
    base = not a.no_baselines
    with tempfile.TemporaryDirectory(prefix="heldout") as d:
        tmp = Path(d)
        if a.suite in ("heldout", "both"):
            r = run_suite(heldout_cases(a.per_kind, kinds), tmp, base, a.show_wrong)
            eq = tost_pairs(a.pairs) if a.pairs > 0 else None
            report(f"held-out logs (benchmarks/heldout_logs.py, {a.per_kind} per kind)", r, eq, base)
        if a.suite in ("synth_realistic", "both"):
            r = run_suite(synth_cases(a.synth_logs), tmp, base, a.show_wrong)
            report("costmodel.synth_realistic.realistic_suite", r, None, base)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
