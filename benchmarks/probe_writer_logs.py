"""The real two-site pairs written again by each trainer's own log writer, read back and judged against per step.

Usage::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/probe_writer_logs.py [--real ../shared/fixtures/real] [--every 10,50]
        [--pairs gpu_h200,w8,w2,w4long] [--writers lightning,...] [--cut 900]

An outside probe, independent of :mod:`costmodel.synthetic.coarse_logs`: ``tests/support/writer_logs.py`` writes
each writer's own file (Lightning ``metrics.csv`` rows from the run's real Lightning log, an HF Trainer
``trainer_state.json``, Megatron-LM and torchtitan console lines, each with and without its clock) from the real
per-step runs, and ingest reads them as a user's files. Per pair, writer and N: the remote steady level against the
per-step level (limit 3 %; tokens for torchtitan), compare's verdict at 2 % and 5 % (never ``equivalent`` where
per step it is ``different``), the remote warm-up end or the stated interval against the per-step end (within one
logging interval), the extra warm-up in seconds (> 0, within 30 %). For writers that log neither the data wait nor
the cache hit ratio (Megatron, torchtitan, HF), the warm-up end and extra warm-up are judged against the per-step
answer from the throughput alone (the waits' end: the cache can still be filling behind a deep loader queue). ``cut``: the first 900 steps at every 10
(no co-located warm-up, no negative extra warm-up). ``ok`` lists the criteria missed (``-`` when none).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

# the table cells as the coarse-log benchmark writes them (formatting only: the reduction here stays its own)
from bench_coarse_logs import _end_cell, _f

PAIRS = {"gpu_h200": "real:gpu_h200", "w8": "repo:tests/data/real_h200/w8", "w2": "repo:tests/data/real_h200/w2",
         "w4long": "repo:tests/data/real_h200/w4long"}
SEQ = 1024


def pair_dir(name: str, real: Path) -> Path:
    kind, rel = PAIRS[name].split(":", 1)
    return (real / rel) if kind == "real" else (ROOT / rel)


def _fit_paths(paths: list[Path]) -> dict[str, Any]:
    from costmodel.ingest import load_many
    from costmodel.warmup import analyze, compare

    fits, warns = [], []
    for p in paths:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            res = load_many([p])
        run = res.runs[0]
        fits.append(analyze(run))
        warns += list(getattr(res, "warnings", []) or []) + fits[-1].warnings
    c, r = fits
    return {"c": c, "r": r, "cmp2": compare([c], [r], margin=0.02), "cmp5": compare([c], [r], margin=0.05),
            "warnings": warns}


#: the per-step columns a throughput-only writer (Megatron, torchtitan, HF) has no counterpart of
TELEMETRY = ["data_wait_s", "cache_hit_ratio", "cache_served_ratio", "cache_misses", "prefetch_concurrency",
             "prefetched_files"]


def truth_of(d: Path) -> dict[str, Any]:
    """The per-step answer, and the per-step answer from the throughput alone (``thr``: data wait and cache
    columns dropped): a writer that logs neither can only show where the waits end, not where the cache is warm."""
    import pandas as pd

    truth = _fit_paths([d / "colocated.csv", d / "remote.csv"])
    with tempfile.TemporaryDirectory(prefix="truth") as t:
        paths = []
        for side in ("colocated", "remote"):
            p = Path(t) / f"{side}.csv"
            pd.read_csv(d / f"{side}.csv").drop(columns=TELEMETRY, errors="ignore").to_csv(p, index=False)
            paths.append(p)
        truth["thr"] = _fit_paths(paths)
    return truth


def probe(writer: str, d: Path, every: int, truth: dict[str, Any], cut: int | None = None) -> dict[str, Any]:
    from support.writer_logs import write_log

    with tempfile.TemporaryDirectory(prefix="probe") as t:
        paths = [write_log(writer, d, side, every, Path(t), cut) for side in ("colocated", "remote")]
        try:
            got = _fit_paths(paths)
        except Exception as exc:  # noqa: BLE001 - a refusal is a result of the probe
            return {"refused": f"{type(exc).__name__}: {str(exc)[:120]}"}
    telemetry = writer.startswith("lightning")  # Lightning's metrics.csv of these runs logs the data wait and hits
    return judge(truth if telemetry else {**truth["thr"], "full": truth}, got, every, cut)


def _interval(f: Any) -> tuple[int | None, int | None]:
    iv = getattr(f, "warmup_end_interval", None) or {}
    if iv.get("low_step") is not None:
        return int(iv["low_step"]), int(iv["high_step"])
    return f.warmup_end_step, f.warmup_end_step


def judge(truth: dict[str, Any], got: dict[str, Any], every: int, cut: int | None) -> dict[str, Any]:
    tr, gr = truth["r"], got["r"]
    full = truth.get("full", truth)  # level and verdicts are judged against the full per-step answer
    lv = full["r"]
    scale = SEQ if gr.metric == "tokens_per_s" and tr.metric == "samples_per_s" else 1.0
    lvl = (gr.steady_mean / (lv.steady_mean * scale) - 1.0) if gr.steady_mean and lv.steady_mean else None
    lo, hi = _interval(gr)
    t_end = tr.warmup_end_step
    x_t, x_g = truth["cmp2"].remote_extra_warmup_s, got["cmp2"].remote_extra_warmup_s
    xe = (x_g / x_t - 1.0) if x_t and x_g is not None else None
    v2, v5 = (full["cmp2"].verdict, got["cmp2"].verdict), (full["cmp5"].verdict, got["cmp5"].verdict)
    miss = []
    invisible = any("invisible" in w for w in got["warnings"])
    if cut is None:
        if lvl is None or abs(lvl) > 0.03:
            miss.append("level")
        if any(a == "different" and b == "equivalent" for a, b in (v2, v5)):
            miss.append("verdict")
        if lo is None or hi is None or not (lo - every <= t_end + 1 <= hi + every + 1):
            miss.append("end")
        if xe is None or x_g is None or x_g <= 0 or abs(xe) > 0.30:
            miss.append("extra")
    else:
        if got["c"].warmup_end_step not in (None, 0):
            miss.append("coloc warm-up")
        if x_g is not None and x_g < 0:
            miss.append("negative extra")
    notes = " ".join(got["cmp2"].notes)
    if "extra" in miss and x_g is None and ("seconds are unknown" in notes or "steps between rows is unknown" in notes):
        miss[miss.index("extra")] = "extra (not given: no time base, said)"
    if gr.classification == "too_short":
        miss = [f"{m} (one throughput figure per run: said)" if m == "level" else m for m in miss]
    return {"level_err": lvl, "v2": v2, "v5": v5, "end": (t_end, lo, hi), "extra": (x_t, x_g), "extra_err": xe,
            "coloc_end": got["c"].warmup_end_step, "miss": miss, "invisible": invisible,
            "metric": gr.metric, "time_source": gr.time_source}


def row(pair: str, writer: str, variant: str, r: dict[str, Any]) -> str:
    if "refused" in r:
        return f"| {pair} | {writer} | {variant} | refused: {r['refused']} | | | | | | |"
    t_end, iv = _end_cell(r)
    return (f"| {pair} | {writer} | {variant} | {_f(r['level_err'], '+.1%')} | {r['v2'][0]} -> {r['v2'][1]} | "
            f"{r['v5'][0]} -> {r['v5'][1]} | {t_end} -> {iv} | {_f(r['extra'][0], '.1f')} -> {_f(r['extra'][1], '.1f')}"
            f" ({_f(r['extra_err'], '+.0%')}) | {r['coloc_end']} | {', '.join(r['miss']) or '-'}"
            f"{' (stalls invisible: warned)' if r['invisible'] else ''} |")


def main() -> None:
    from support.writer_logs import WRITERS

    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--real", default=str(ROOT.parent / "shared" / "fixtures" / "real"))
    ap.add_argument("--every", default="10,50")
    ap.add_argument("--pairs", default=",".join(PAIRS))
    ap.add_argument("--writers", default=",".join(WRITERS))
    ap.add_argument("--cut", type=int, default=900)
    a = ap.parse_args()
    print("| pair | writer | rows | remote level err | verdict 2 % (per step -> here) | verdict 5 % | remote end: per "
          "step -> here | extra warm-up s: per step -> here (err) | co-located end | missed |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for pair in a.pairs.split(","):
        d = pair_dir(pair, Path(a.real))
        if not d.is_dir():
            print(f"{pair}: {d} absent, skipped", file=sys.stderr)
            continue
        truth = truth_of(d)
        for writer in a.writers.split(","):
            for every in (int(x) for x in a.every.split(",")):
                print(row(pair, writer, f"every {every}", probe(writer, d, every, truth)), flush=True)
            if a.cut:
                print(row(pair, writer, f"cut {a.cut}, every 10", probe(writer, d, 10, truth, a.cut)), flush=True)


if __name__ == "__main__":
    main()
