"""The watched trial, validated on replays (issue 39).

Usage: ``PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_trial.py [--pairs N] [--cs-pairs N] [--jobs J]
[--skip-real] [--skip-generated] [--skip-full] [--cells margin,beyond] [--earliest] [--paired-mc] [--plug-in]``

1. **Real pairs** (``$COSTMODEL_REAL_FIXTURES/gpu_h200`` and ``tests/data/real_h200/{w8,w2,w4long}``): each
   remote log replayed 10 rows per look against its co-located run at a 5 % margin. Printed per pair: the
   warm-up-over call (step, the step of the look that made it) against the whole-log fit's end, within 10 %
   and within one stall period; the call and its step as a share of the run; the final call against
   ``compare`` on the whole log.
2. **CPU per update at 10 rows per second**: the h200 remote log written into a buffer 10 rows at a time,
   each update parsed by the ingest reader and looked at (``trial.follow.parse_parts`` + ``Watcher.look``),
   CPU seconds per update (``time.process_time``): median, 95th percentile, max.
3. **Generated pairs**, twice: ``--cs-pairs`` per cell with the warm-up end given (the truth's: the
   confidence sequence's error rates over many seeds, cheaply) and ``--pairs`` per cell replayed in full.
   Pairs from :func:`costmodel.synthetic.training_logs.generate_realistic` (seeded): a flat
   co-located run and a remote run with a warm-up (``warmup``, ``two_tier``), 3,000 steps, checkpoints every
   500 steps (5-30 steps' time each), CV 1-4 %, AR 0-0.8, replayed 25 rows per look; true ratio (of the
   effective plateaus, stalls in) 1.00 (``equal``), on the 5 % margin (``margin``: 1.05 or 1/1.05) or beyond it
   (``beyond``: 1.08 or 1/1.08). Printed per cell: the share called equivalent by the confidence sequence and
   in the end (with the final analysis), with a Wilson 95 % interval, the median step of the call as a share
   of the run, the warm-up call within 10 % of the truth's end.
4. ``--earliest``: how early any test could call the real pairs (``bench_earliest``, ``bench_oracle``: the
   information at each look against what the margin needs, with the whole log's variance as an oracle).
5. ``--paired-mc``: the watch's false "equivalent" rate when its variance is the paired stalls' own spread from
   few pairs (the real pairs' regime; Gaussian paths, ``paired_false_rate``).
Deterministic: pair i of a cell uses seeds derived from (cell, i).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchstats import seed_of, wilson

MARGIN = 0.05
CELLS = {"equal": (1.0, 0.99, 1.01), "margin": (1.05, 1 / 1.05), "beyond": (1.08, 1 / 1.08)}




def real_pairs() -> dict[str, Path]:
    real = Path(os.environ.get("COSTMODEL_REAL_FIXTURES", REPO.parent / "shared" / "fixtures" / "real"))
    out = {"gpu_h200": real / "gpu_h200"}
    out.update({k: REPO / "tests" / "data" / "real_h200" / k for k in ("w8", "w2", "w4long")})
    return {k: v for k, v in out.items() if (v / "remote.csv").is_file()}


def bench_real(studentize: bool = True) -> list[dict[str, Any]]:
    from costmodel import trial
    from costmodel.ingest import load
    from costmodel.warmup import analyze, compare

    rows = []
    for name, d in real_pairs().items():
        c, r = load(d / "colocated.csv")[0], load(d / "remote.csv")[0]
        ref = trial.reference_from_run(c)
        full = analyze(r)
        whole = compare([c], [r], margin=MARGIN).equivalence
        rp = trial.replay(ref, r, trial.Settings(margin=MARGIN, studentize_pairs=studentize), rows_per_look=10)
        w, f = rp.watcher, rp.final
        n_steps = float(r.table["step"].iloc[-1]) + 1
        wu = next((e for e in rp.events if e["event"] == "warmup_over"), None)
        end_full = full.warmup_end_step
        row = {"pair": name, "steps": n_steps, "period": ref.period_steps, "end_full": end_full,
               "end_called": w.warmup_end_step, "called_at": wu["step"] if wu else None,
               "call": f["call"], "by": f["decided_by"], "call_step": f.get("called_at_step"),
               "compare": whole,
               "cpu_max": max(rp.cpu_s), "cpu_med": statistics.median(rp.cpu_s)}
        row["within_10pct"] = (end_full is not None and w.warmup_end_step is not None
                               and abs(w.warmup_end_step - end_full) <= 0.1 * max(end_full, 1))
        row["latency"] = (row["called_at"] - end_full) if wu and end_full is not None else None
        row["call_share"] = (row["call_step"] + 1) / n_steps if row["call_step"] is not None else None
        rows.append(row)
        print(f"{name:9s} steps {n_steps:5.0f} period {ref.period_steps or 0:4.0f} | warm-up: whole log {end_full}, "
              f"called {w.warmup_end_step} at step {row['called_at']} (within 10 %: {row['within_10pct']}; "
              f"{row['latency']} steps after) | call {f['call']} by {f['decided_by']} at step {row['call_step']} "
              f"({(row['call_share'] or 0):.0%} of the run); whole-log compare {row['compare']} | "
              f"CPU per look median {row['cpu_med']:.3f} s, max {row['cpu_max']:.3f} s", flush=True)
    return rows


def bench_cpu_per_update() -> None:
    from costmodel import trial
    from costmodel.ingest import load
    from costmodel.trial.follow import parse_parts

    pairs = real_pairs()
    if "gpu_h200" not in pairs:
        return
    d = pairs["gpu_h200"]
    ref = trial.reference_from_run(load(d / "colocated.csv")[0])
    lines = (d / "remote.csv").read_bytes().splitlines(keepends=True)
    w = trial.Watcher(ref, trial.Settings(margin=MARGIN))
    buf = bytearray(lines[0])
    cpu = []
    for i in range(1, len(lines), 10):
        buf += b"".join(lines[i:i + 10])
        t0 = time.process_time()
        p = parse_parts([buf], str(d / "remote.csv"))
        if p.run is not None:
            w.look(p.run)
        cpu.append(time.process_time() - t0)
    cpu.sort()
    print(f"CPU per update, h200 remote written 10 rows per update ({len(cpu)} updates; parse + look): "
          f"median {statistics.median(cpu):.3f} s, p95 {cpu[int(0.95 * len(cpu))]:.3f} s, max {cpu[-1]:.3f} s "
          f"(budget 1 s per update at 10 rows/s)", flush=True)


def bench_earliest() -> None:
    """How early could any test call the real pairs? ``compare`` (the fixed-sample TOST, not valid under
    monitoring) on the first 30-100 % of each remote log, and at each interval of the watch (one per new stall)
    the half-width it has, the half-width the call needs, and the narrowest any mixing precision and any split
    of the 5 % between the reference and the sequence would give (chosen with hindsight: a lower limit).
    Then the information at 50 % of each log and the earliest look at which an oracle would call (below)."""
    from statistics import NormalDist

    from costmodel import trial
    from costmodel.ingest import load
    from costmodel.trial.boundary import one_sided_factor
    from costmodel.trial.watcher import prefix
    from costmodel.warmup import compare

    z = NormalDist().inv_cdf
    L = float(np.log1p(MARGIN))
    rs = np.exp(np.linspace(-3.0, 5.0, 400))
    # alpha of the reference's side (one-sided) -> the narrowest factor of the sequence at the rest of the 5 %
    b_min = {float(a): min(one_sided_factor(float(r), 0.05 - float(a)) for r in rs)
             for a in np.linspace(0.0005, 0.0495, 99)}
    for name, d in real_pairs().items():
        c, r = load(d / "colocated.csv")[0], load(d / "remote.csv")[0]
        ref = trial.reference_from_run(c)
        n = len(r.table)
        tost = []
        for f in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
            try:
                tost.append(f"{f:.0%} {compare([ref.fit], [prefix(r, int(f * n))], margin=MARGIN).equivalence}")
            except Exception as exc:  # noqa: BLE001 - a prefix too short to fit: say so
                tost.append(f"{f:.0%} ({type(exc).__name__})")
        print(f"{name}: compare (fixed-sample TOST) on the first share of the log: {'; '.join(tost)}", flush=True)
        w = trial.replay(ref, r, trial.Settings(margin=MARGIN), rows_per_look=10, final_analysis=False).watcher
        seen: set[int] = set()
        for h in w.history:
            if h.get("ratio") is None or h["stalls"] in seen:
                continue
            seen.add(h["stalls"])
            sr, sc, th = h["log_se_remote"], h["log_se_reference"], float(np.log(h["ratio"]))
            need = L - abs(th)
            cur = h["boundary_factor"] * sr + z(0.99) * sc
            best = min(b * sr + z(1 - a_ref) * sc for a_ref, b in b_min.items())
            fixed = z(0.95) * float(np.hypot(sr, sc))
            print(f"   step {h['step']:.0f} ({(h['step'] + 1) / n:.0%}), {h['stalls']} stalls: ratio {h['ratio']:.4f}; "
                  f"half-width needed <= {need:.4f}, watch {cur:.4f}, best rho and split {best:.4f} "
                  f"({1 - best / cur:.1%} narrower), fixed-sample one-sided 5 % {fixed:.4f}", flush=True)
    bench_oracle()


ORACLE_RULES = ("oracle, one look, any pairs", "oracle, one look, >= 3 pairs", "oracle variance, watch's boundary")


def bench_oracle() -> None:
    """The information each real log holds at each look, against what the margin needs, with the variance an
    oracle would know: the paired stalls' spread and the between-stall rate's error of the *whole* log (4-5
    pairs), not the few seen so far. theta at a look is the watch's (paired stalls, the whole log's warm-up
    end). Per look and pair: the half-width needed (``log 1.05 - |theta|``), the one-sided 5 % bound of a single
    fixed-sample look with that known variance (``z_0.95 sd``: no procedure valid at 5 % can be narrower at that
    look; repeating it at every look is not valid), and the watch's boundary with the same variance.
    Printed: the first look with each number of paired stalls, the look at 50 % of the log, and the earliest
    look at which each rule would call, with the median over the pairs."""
    from statistics import NormalDist

    from costmodel import trial
    from costmodel.ingest import load
    from costmodel.trial.boundary import one_sided_factor, r_at
    from costmodel.trial.levels import window_level
    from costmodel.trial.pairing import theta_of
    from costmodel.warmup import analyze, prepare

    z = NormalDist().inv_cdf
    L = float(np.log1p(MARGIN))
    earliest: dict[str, dict[str, float]] = {}
    for name, d in real_pairs().items():
        c, r = load(d / "colocated.csv")[0], load(d / "remote.csv")[0]
        ref = trial.reference_from_run(c)
        s = prepare(r, ref.metric)
        wu = analyze(r).warmup_end_step or 0
        i0, n = int(np.searchsorted(s.step, wu)), len(s.step)
        full = window_level(s.w[i0:], s.d[i0:], s.step[i0:], ref.period_steps, ref.stall_sd_s)
        thf = theta_of(full, ref.window, ref.steps_per_row) if full else None
        if full is None or thf is None or not thf.pairs:
            print(f"{name}: no paired stalls over the whole log: no oracle", flush=True)
            continue
        v_b_row = (full.between_share * full.between_rel_se) ** 2 * full.rows
        v_pair = (thf.var_monitored - (full.between_share * full.between_rel_se) ** 2) * thf.pairs
        sd_c = float(np.sqrt(thf.var_fixed))
        print(f"{name}: oracle (whole log, warm-up end {wu}, {thf.pairs} paired stalls): one paired stall's sd "
              f"{np.sqrt(v_pair):.4f}, between-stall rate's sd {np.sqrt(v_b_row / full.rows):.4f} over the log, "
              f"the reference's {sd_c:.4f} (log scale); whole-log ratio {np.exp(thf.theta):.4f}", flush=True)
        first: dict[str, float] = {}
        last_pairs, half_done = -1, False
        for k in [*range(i0 + 20, n, 10), n]:
            wl = window_level(s.w[i0:k], s.d[i0:k], s.step[i0:k], ref.period_steps, ref.stall_sd_s)
            th = theta_of(wl, ref.window, ref.steps_per_row, min_pairs=1) if wl else None
            if wl is None or th is None or not th.pairs:
                continue
            sd_m = float(np.sqrt(v_b_row / wl.rows + v_pair / th.pairs))
            sd = float(np.hypot(sd_m, sd_c))
            need = L - abs(th.theta)
            h = {ORACLE_RULES[0]: z(0.95) * sd, ORACLE_RULES[1]: z(0.95) * sd if th.pairs >= 3 else float("inf"),
                 ORACLE_RULES[2]: one_sided_factor(r_at(wl.rows, ref.steady_rows), 0.04) * sd_m + z(0.99) * sd_c}
            for rule, hw in h.items():
                if rule not in first and hw < need:
                    first[rule] = k / n
            at_half = not half_done and k >= n // 2
            if th.pairs != last_pairs or at_half:
                half_done = half_done or at_half
                own = (f"; the pairs' own sd {np.sqrt(th.var_monitored):.4f} ({th.pairs - 1} df)" if th.pairs >= 2
                       else "; no spread from one pair")
                print(f"   {'50 % of the log' if at_half else 'first look with'} {th.pairs} paired stall(s), step "
                      f"{s.step[k - 1]:.0f} ({k / n:.0%}): ratio {np.exp(th.theta):.4f}, half-width needed <= "
                      f"{need:.4f}; oracle sd {sd:.4f}{own}: multiplier allowed need / oracle sd {need / sd:.2f} "
                      f"(one fixed look: {z(0.95):.3f}); oracle single look {h[ORACLE_RULES[0]]:.4f}, watch's "
                      f"boundary {h[ORACLE_RULES[2]]:.4f}", flush=True)
                last_pairs = th.pairs
        earliest[name] = first
        print("   earliest call: " + "; ".join(f"{rule} {first.get(rule, 1.0):.0%}" for rule in ORACLE_RULES), flush=True)
    for rule in ORACLE_RULES:
        v = sorted(e.get(rule, 1.0) for e in earliest.values())
        if v:
            print(f"median over the pairs, {rule}: {statistics.median(v):.0%} ({', '.join(f'{x:.0%}' for x in v)})",
                  flush=True)


def paired_false_rate(stalls: int, first: int, ref_share: float, paths: int = 100_000, seed: int = 2,
                      studentize: bool = False) -> float:
    """The watch's false "equivalent" rate over all its looks when the noise is the paired stalls' (the real
    pairs' case): the truth on the margin, one look per new paired stall from the ``first``-th to the
    ``stalls``-th, each with the pairs' own spread (``first - 1`` df and up), the boundary tuned for ``stalls``
    pairs, and the reference's fixed error ``ref_share`` x the monitored sd at the end (Gaussian).
    ``studentize``: the spread times ``studentized_factor(k - 1)`` (``Settings.studentize_pairs``)."""
    from statistics import NormalDist

    from costmodel.trial.boundary import one_sided_factor, studentized_factor

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((paths, stalls))
    sd_c = ref_share / np.sqrt(stalls)
    ref = sd_c * rng.standard_normal(paths)
    z99 = NormalDist().inv_cdf(0.99)
    false = np.zeros(paths, dtype=bool)
    for k in range(first, stalls + 1):
        se = x[:, :k].std(axis=1, ddof=1) / np.sqrt(k) * (studentized_factor(k - 1) if studentize else 1.0)
        b = one_sided_factor(8.0 * k / stalls, 0.04)
        false |= x[:, :k].mean(axis=1) + ref + b * se + z99 * sd_c < 0.0
    return float(false.mean())


def bench_paired_mc() -> None:
    """:func:`paired_false_rate` over the stalls a trial sees, the first interval's stall count and the
    reference's share of the error (real pairs: 0.13 w8, 0.25 w4long, 0.38 w2, 1.0 gpu_h200)."""
    print("paired stalls, variance from the pairs themselves; false 'equivalent' rate (truth on the margin), "
          "100,000 Gaussian paths per cell; columns: the reference's sd / the monitored sd at the end", flush=True)
    shares = (0.0, 0.13, 0.25, 0.5, 1.0)
    for stalls in (4, 5, 10, 30):
        for first in (2, 3, 4):
            rates = [paired_false_rate(stalls, first, sh) for sh in shares]
            print(f"  {stalls:2d} stalls, first interval at {first}: "
                  + "; ".join(f"{sh}: {x:.1%}" for sh, x in zip(shares, rates, strict=True)), flush=True)
        rates = [paired_false_rate(stalls, 3, sh, studentize=True) for sh in shares]
        print(f"  {stalls:2d} stalls, first interval at 3, studentize_pairs: "
              + "; ".join(f"{sh}: {x:.1%}" for sh, x in zip(shares, rates, strict=True)), flush=True)


def bench_warmup_fit(pairs: int) -> None:
    """The whole-log fit (``warmup.analyze``) of the generated remote logs of the full replays against the
    generator's warm-up end: is a warm-up call's miss the watching or the estimator?"""
    from costmodel.warmup import analyze

    for cell in CELLS:
        ok = 0
        for i in range(pairs):
            b, te = _remote_of(cell, i)
            e = analyze(b.to_run("b", "remote")).warmup_end_step
            ok += int(e is not None and abs(e - te) <= 0.1 * max(te, 1))
            print(f"  {cell} {i}: generator's end {te}, whole-log fit {e}", flush=True)
        print(f"{cell}: whole-log fit within 10 % of the generator's end {ok}/{pairs}", flush=True)


def _remote_of(cell: str, i: int) -> tuple[Any, int]:
    """The remote log of pair ``i`` of ``cell`` (as :func:`one` makes it) and its true warm-up end."""
    from costmodel.synthetic.training_logs import generate_realistic

    seed = seed_of(cell, i)
    rng = np.random.default_rng(seed)
    common: dict[str, Any] = {"n": 3000, "cv": float(rng.choice([0.01, 0.02, 0.04])),
                              "ar": float(rng.choice([0.0, 0.5, 0.8])), "ckpt_every": 500,
                              "ckpt_steps": float(rng.uniform(5, 30))}
    b = generate_realistic(kind=str(rng.choice(["warmup", "two_tier"])), plateau=1000.0 * CELLS[cell][i % len(CELLS[cell])],
                           warmup_frac=float(rng.uniform(0.03, 0.1)), seed=seed + 1, **common)
    return b, int(b.truth.warmup_end_step)



def one(task: tuple[str, float, int, bool]) -> dict[str, Any]:
    from costmodel import trial
    from costmodel.synthetic.training_logs import generate_realistic

    cell, ratio, seed, cs_only = task
    rng = np.random.default_rng(seed)
    common: dict[str, Any] = {"n": 3000, "cv": float(rng.choice([0.01, 0.02, 0.04])),
                              "ar": float(rng.choice([0.0, 0.5, 0.8])), "ckpt_every": 500,
                              "ckpt_steps": float(rng.uniform(5, 30))}
    a = generate_realistic(kind="flat", plateau=1000.0, seed=seed, **common)
    b = generate_realistic(kind=str(rng.choice(["warmup", "two_tier"])), plateau=1000.0 * ratio,
                           warmup_frac=float(rng.uniform(0.03, 0.1)), seed=seed + 1, **common)
    truth = b.truth.plateau / a.truth.plateau
    ref = trial.reference_from_run(a.to_run("a", "colocated"))
    te = b.truth.warmup_end_step
    rp = trial.replay(ref, b.to_run("b", "remote"), trial.Settings(margin=MARGIN), rows_per_look=25,
                      until_decided=True, final_analysis=not cs_only, warmup_end_step=te if cs_only else None)
    w = rp.watcher
    return {"cell": cell, "ratio": truth, "cs_call": w.call, "final": rp.final["call"],
            "call_step": w.called_at_step, "n": 3000.0, "wu": w.warmup_end_step, "wu_true": te,
            "wu_at": w.warmup_called_at_step, "cpu_max": max(rp.cpu_s)}


def bench_generated(pairs: int, jobs: int, cs_only: bool = False, cells: tuple[str, ...] = tuple(CELLS),
                    first: int = 0) -> None:
    tasks = [(cell, CELLS[cell][i % len(CELLS[cell])], seed_of(cell, i), cs_only) for cell in cells
             for i in range(first, first + pairs)]
    t0 = time.time()
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as ex:
            res = list(ex.map(one, tasks, chunksize=2))
    else:
        res = [one(t) for t in tasks]
    what = ("the confidence sequence alone (warm-up end given: the truth's)" if cs_only
            else "full replays (warm-up called by the watch, final analysis at the end)")
    print(f"generated pairs {first}-{first + pairs - 1} per cell, {what}: {len(res)} in {time.time() - t0:.0f} s ({jobs} worker(s)); margin 5 %, "
          "3,000 steps, checkpoints every 500 steps, 25 rows per look", flush=True)
    for cell in CELLS:
        rr = [x for x in res if x["cell"] == cell]
        if not rr:
            continue
        k_cs = sum(x["cs_call"] == "equivalent" for x in rr)
        k_f = sum(x["final"] == "equivalent" for x in rr)
        lo, hi = wilson(k_cs, len(rr))
        flo, fhi = wilson(k_f, len(rr))
        dec = [x["call_step"] / x["n"] for x in rr if x["cs_call"] is not None]
        wu_ok = [abs(x["wu"] - x["wu_true"]) <= 0.1 * max(x["wu_true"], 1) for x in rr
                 if x["wu"] is not None and x["wu_true"]]
        lat = [x["wu_at"] - x["wu_true"] for x in rr if x["wu"] is not None and x["wu_true"] is not None]
        print(f"  {cell:6s} (true ratio {min(x['ratio'] for x in rr):.3f}-{max(x['ratio'] for x in rr):.3f}): "
              f"equivalent by the confidence sequence {k_cs}/{len(rr)} = {k_cs / len(rr):.1%} "
              f"[{lo:.1%}, {hi:.1%}]; in the end (with the final analysis) {k_f / len(rr):.1%} [{flo:.1%}, {fhi:.1%}]; "
              f"decided early {len(dec)}/{len(rr)}, median call at {statistics.median(dec) if dec else float('nan'):.0%} "
              f"of the run; warm-up call within 10 % of the true end {sum(wu_ok)}/{len(wu_ok)}, "
              f"median {statistics.median(lat) if lat else float('nan'):.0f} steps after it; "
              f"max CPU per look {max(x['cpu_max'] for x in rr):.2f} s", flush=True)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=20, help="generated pairs per cell, full replays")
    ap.add_argument("--cs-pairs", type=int, default=200, help="generated pairs per cell, confidence sequence alone")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--skip-real", action="store_true")
    ap.add_argument("--skip-generated", action="store_true")
    ap.add_argument("--earliest", action="store_true", help="real pairs: how early any test could call them")
    ap.add_argument("--plug-in", action="store_true",
                    help="real pairs replayed with Settings(studentize_pairs=False): the paired spread plugged in "
                         "as known (research only: not valid under few pairs)")
    ap.add_argument("--paired-mc", action="store_true",
                    help="the false 'equivalent' rate when the pairs' own spread is the variance (simulated)")
    ap.add_argument("--warmup-fit", type=int, default=0, metavar="N",
                    help="generated pairs: the whole-log fit's warm-up end against the truth, N pairs per cell")
    ap.add_argument("--first", type=int, default=0, help="generated pairs: the index of the first (seeds follow it)")
    ap.add_argument("--skip-full", action="store_true", help="generated pairs: the confidence sequence alone")
    ap.add_argument("--cells", default=",".join(CELLS), help="generated cells, comma-separated (equal,margin,beyond)")
    a = ap.parse_args(argv)
    cells = tuple(c for c in a.cells.split(",") if c)
    if not set(cells) <= set(CELLS):
        ap.error(f"--cells: one of {', '.join(CELLS)}")
    if a.earliest:
        bench_earliest()
    if a.paired_mc:
        bench_paired_mc()
    if a.warmup_fit:
        bench_warmup_fit(a.warmup_fit)
    if not a.skip_real:
        bench_real(studentize=not a.plug_in)
        bench_cpu_per_update()
    if not a.skip_generated:
        bench_generated(a.cs_pairs, a.jobs, cs_only=True, cells=cells, first=a.first)
        if not a.skip_full:
            bench_generated(a.pairs, a.jobs, cells=cells, first=a.first)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
