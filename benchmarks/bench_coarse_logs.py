"""Issue 38's done-when figures: the real two-site pairs logged every N steps, sampled and averaged, and cut short.

Usage::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_coarse_logs.py [--real ../shared/fixtures/real] [--every 10,50]

Each real pair (``gpu_h200`` and ``tests/data/real_h200/{w8,w2,w4long}``) is reduced the way log writers
reduce it (:mod:`costmodel.synthetic.coarse_logs`: the row of every Nth step as it is, or the mean over the N
steps since the last row), written as CSV and read back through ``ingest``, then fitted and compared. The
truth is the same pair's per-step answer. Printed per pair and variant: the remote steady level's error
against the per-step level (limit 3 %), compare's verdict at 2 % and 5 % against the per-step verdicts (never
``equivalent`` where per step it is ``different``), the remote warm-up end (or the interval stated) against
the per-step end (within one logging interval), the extra warm-up in seconds against the per-step one (> 0,
within 30 %); then each pair cut to its first 900 steps (no co-located warm-up, no negative extra warm-up).
Then one pair (``--writers``, default ``gpu_h200``) reduced as each writer reduces it: rows at
``(step + 1) % N == 0`` (Lightning ``log_every_n_steps``), ``step % N == 0`` (rows at 0, N, 2N, ...) or the HF
Trainer's 1-based ``global_step``; sampled or averaged; keeping the clock and the step time, the clock only,
the step time only (Lightning's ``CSVLogger``) or the rate only. ``--throughput-only 10,20,50``: a third table,
every pair without its data wait and cache columns (as Megatron or torchtitan log it), rows at ``end`` or
``start``, sampled or averaged, every N, judged against the same pair's per-step fit of the throughput alone.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
PAIRS = {"gpu_h200": "real:gpu_h200", "w8": "repo:tests/data/real_h200/w8", "w2": "repo:tests/data/real_h200/w2",
         "w4long": "repo:tests/data/real_h200/w4long"}


def pair_dir(name: str, real: Path) -> Path:
    kind, rel = PAIRS[name].split(":", 1)
    return (real / rel) if kind == "real" else (ROOT / rel)


def fit_pair(c_df: pd.DataFrame, r_df: pd.DataFrame, rows: str | None = None) -> dict[str, Any]:
    """Write both sides as CSV, read them through ingest, fit and compare at 2 % and 5 %."""
    from costmodel.ingest import IngestOptions, load_many
    from costmodel.warmup import analyze, compare

    with tempfile.TemporaryDirectory(prefix="coarse") as d:
        fits = []
        for side, df in (("colocated", c_df), ("remote", r_df)):
            p = Path(d) / f"{side}.csv"
            df.to_csv(p, index=False)
            opts = IngestOptions(rows=rows) if rows else IngestOptions()
            with contextlib.redirect_stderr(io.StringIO()):
                (run,) = load_many([p], opts).runs
            fits.append(analyze(run))
    c, r = fits
    return {"c": c, "r": r, "cmp2": compare([c], [r], margin=0.02), "cmp5": compare([c], [r], margin=0.05)}


def _pair_dirs(real: Path) -> list[tuple[str, Path]]:
    """The real pairs present (name, folder); an absent one is said on stderr and skipped."""
    found = []
    for name in PAIRS:
        d = pair_dir(name, real)
        if d.is_dir():
            found.append((name, d))
        else:
            print(f"{name}: {d} absent, skipped", file=sys.stderr)
    return found


def measure(real: Path, everies: list[int]) -> list[dict[str, Any]]:
    from costmodel.synthetic.coarse_logs import cut_steps, reduce_log

    out = []
    for name, d in _pair_dirs(real):
        c_df, r_df = pd.read_csv(d / "colocated.csv"), pd.read_csv(d / "remote.csv")
        truth = fit_pair(c_df, r_df)
        for every in everies:
            for rows in ("sampled", "averaged"):
                got = fit_pair(reduce_log(c_df, rows, every), reduce_log(r_df, rows, every))
                out.append(_row(name, f"{rows}/{every}", every, truth, got))
        thr = ["data_wait_s", "cache_hit_ratio"]
        short = fit_pair(cut_steps(c_df, 900), cut_steps(r_df, 900))
        out.append(_row(name, "cut 900", 1, truth, short))
        short = fit_pair(cut_steps(c_df, 900).drop(columns=thr, errors="ignore"),
                         cut_steps(r_df, 900).drop(columns=thr, errors="ignore"))
        out.append(_row(name, "cut 900, throughput only", 1, truth, short))
    return out


#: the per-step columns a throughput-only writer (Megatron, torchtitan) has no counterpart of
TELEMETRY = ["data_wait_s", "cache_hit_ratio", "cache_served_ratio", "cache_misses", "prefetch_concurrency",
             "prefetched_files"]


def measure_throughput_only(real: Path, everies: list[int]) -> list[dict[str, Any]]:
    """Every pair without its telemetry columns, reduced by rows at ``end`` / ``start``, sampled / averaged, every
    N; the truth is the per-step fit of the throughput alone."""
    from costmodel.synthetic.coarse_logs import reduce_log

    out = []
    for name, d in _pair_dirs(real):
        c_df, r_df = (pd.read_csv(d / f"{side}.csv").drop(columns=TELEMETRY, errors="ignore")
                      for side in ("colocated", "remote"))
        truth = fit_pair(c_df, r_df)
        for at in ("end", "start"):
            for rows in ("averaged", "sampled"):
                for every in everies:
                    got = fit_pair(reduce_log(c_df, rows, every, at), reduce_log(r_df, rows, every, at), rows)
                    row = _row(name, f"{at} {rows}/{every}", every, truth, got)
                    row["decided"] = got["r"].rules.get("warmup_end_by") if got["r"].rules else None
                    out.append(row)
    return out


def _row(name: str, variant: str, every: int, truth: dict[str, Any], got: dict[str, Any]) -> dict[str, Any]:
    tr, gr = truth["r"], got["r"]
    lvl_err = (gr.steady_mean / tr.steady_mean - 1.0) if gr.steady_mean and tr.steady_mean else None
    lo, hi = _end_interval(gr)
    t_end = tr.warmup_end_step
    end_ok = (lo is not None and hi is not None and lo - every <= t_end <= hi + every) if every > 1 else None
    x_t, x_g = truth["cmp2"].remote_extra_warmup_s, got["cmp2"].remote_extra_warmup_s
    x_err = (x_g / x_t - 1.0) if x_t and x_g is not None else None
    return {"pair": name, "variant": variant, "level_err": lvl_err,
            "verdict2": (truth["cmp2"].verdict, got["cmp2"].verdict),
            "verdict5": (truth["cmp5"].verdict, got["cmp5"].verdict),
            "end": (t_end, lo, hi), "end_ok": end_ok, "extra": (x_t, x_g), "extra_err": x_err,
            "coloc_end": got["c"].warmup_end_step, "classes": (got["c"].classification, gr.classification)}


def _end_interval(f: Any) -> tuple[int | None, int | None]:
    iv = getattr(f, "warmup_end_interval", None) or {}
    if iv.get("low_step") is not None:
        return int(iv["low_step"]), int(iv["high_step"])
    return f.warmup_end_step, f.warmup_end_step


def _f(x: Any, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def measure_writers(real: Path, everies: list[int], pair: str = "gpu_h200") -> list[dict[str, Any]]:
    """One pair reduced as each writer reduces it: which rows (``at``), sampled or averaged, and which columns the
    writer keeps (:data:`costmodel.synthetic.coarse_logs.COLUMN_SETS`: the clock, the step time, both, neither)."""
    from costmodel.synthetic.coarse_logs import keep_columns, reduce_log

    d = pair_dir(pair, real)
    if not d.is_dir():
        print(f"{pair}: {d} absent, skipped", file=sys.stderr)
        return []
    c_df, r_df = pd.read_csv(d / "colocated.csv"), pd.read_csv(d / "remote.csv")
    truth = fit_pair(c_df, r_df)
    out = []
    for at in ("end", "start", "hf"):
        for rows in ("sampled", "averaged"):
            for every in everies:
                for kept in (("all", "clock", "step_time", "rate") if at != "hf" else ("clock",)):
                    got = fit_pair(keep_columns(reduce_log(c_df, rows, every, at), kept),
                                   keep_columns(reduce_log(r_df, rows, every, at), kept))
                    row = _row(pair, f"{at} {rows}/{every} {kept}", every, truth, got)
                    row["level"] = got["r"].steady_mean
                    row["coloc_err"] = (got["c"].steady_mean / truth["c"].steady_mean - 1.0
                                        if got["c"].steady_mean and truth["c"].steady_mean else None)
                    out.append(row)
    return out


def _end_cell(r: dict[str, Any]) -> tuple[Any, str]:
    """(per-step warm-up end, the coarse log's end as a step or an interval 'lo-hi')."""
    t_end, lo, hi = r["end"]
    return t_end, (f"{_f(lo, 'd')}" if lo == hi else f"{_f(lo, 'd')}-{_f(hi, 'd')}")


def _table(head: list[str], rows: list[dict[str, Any]], cells: Any, gap: bool = True) -> None:
    """One markdown table (after a blank line when ``gap``): ``head`` the column titles, ``cells(row, end_cell)``
    each row's cells."""
    print(("\n" if gap else "") + "| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for r in rows:
        print("| " + " | ".join(str(c) for c in cells(r, _end_cell(r))) + " |")


def _verdicts_end_extra(r: dict[str, Any], end: tuple[Any, str]) -> list[str]:
    """The cells every table shares: the two verdicts, the warm-up end and the extra warm-up, per step -> here."""
    return [f"{r['verdict2'][0]} -> {r['verdict2'][1]}", f"{r['verdict5'][0]} -> {r['verdict5'][1]}",
            f"{end[0]} -> {end[1]}"]


def _extra(r: dict[str, Any]) -> list[str]:
    return [f"{_f(r['extra'][0], '.1f')} -> {_f(r['extra'][1], '.1f')}", _f(r['extra_err'], '+.0%')]


def print_writers(rows: list[dict[str, Any]]) -> None:
    _table(["writer (rows at, kind/every, columns kept)", "remote level", "error", "co-located error",
            "verdict 2 % (per step -> here)", "verdict 5 %", "remote end: per step -> here",
            "extra warm-up s: per step -> here", "error"], rows,
           lambda r, end: [r["variant"], _f(r["level"], ".1f"), _f(r["level_err"], "+.1%"), _f(r["coloc_err"], "+.1%"),
                           *_verdicts_end_extra(r, end), *_extra(r)])


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--real", default=str(ROOT.parent / "shared" / "fixtures" / "real"))
    ap.add_argument("--every", default="10,50")
    ap.add_argument("--writers", default="gpu_h200",
                    help="pair reduced as each writer does (rows at, columns kept); 'none' to skip")
    ap.add_argument("--throughput-only", default="",
                    help="every N for the table of the pairs without their telemetry columns (e.g. 10,20,50)")
    ap.add_argument("--skip-main", action="store_true", help="leave out the first table")
    a = ap.parse_args()
    everies = [int(x) for x in a.every.split(",")]
    if not a.skip_main:
        print_main(measure(Path(a.real), everies))
    if a.writers != "none":
        print_writers(measure_writers(Path(a.real), everies, a.writers))
    if a.throughput_only:
        print_throughput_only(measure_throughput_only(Path(a.real), [int(x) for x in a.throughput_only.split(",")]))


def print_throughput_only(rows: list[dict[str, Any]]) -> None:
    _table(["pair", "rows at, kind/every (throughput only)", "remote level err", "verdict 2 % (per step -> here)",
            "verdict 5 %", "remote end: per step -> here", "end ok", "end by", "extra warm-up s: per step -> here",
            "error"], rows,
           lambda r, end: [r["pair"], r["variant"], _f(r["level_err"], "+.1%"), *_verdicts_end_extra(r, end),
                           _f(r["end_ok"], ""), r["decided"], *_extra(r)])


def print_main(rows: list[dict[str, Any]]) -> None:
    _table(["pair", "variant", "remote level err", "verdict 2 % (per step -> here)", "verdict 5 %",
            "remote end: per step -> here (interval)", "end ok", "extra warm-up s: per step -> here", "error",
            "co-located end", "classes c/r"], rows,
           lambda r, end: [r["pair"], r["variant"], _f(r["level_err"], "+.1%"), *_verdicts_end_extra(r, end),
                           _f(r["end_ok"], ""), *_extra(r), r["coloc_end"], f"{r['classes'][0]}/{r['classes'][1]}"],
           gap=False)


if __name__ == "__main__":
    main()
