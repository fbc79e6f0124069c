"""Compare co-located and remote runs: ratio of steady states, TOST equivalence, extra warm-up.

theta = log(remote level / co-located level). With one run per side its standard error comes from
the runs' long-run standard errors (delta method on the log levels); with >= 2 runs on a side, that
side's run levels are the unit (run-to-run spread), floored by the within-run error. TOST (Schuirmann 1987) at
margin m: equivalent iff the 90 % CI of theta lies inside (-log(1+m), log(1+m)); the ratio's 95 % CI
is reported beside it.

A single run's standard error is its long-run one (``FitResult.steady_se_lr``,
:func:`costmodel.warmup.stats.longrun_ratio_se`): the continuous autocorrelated noise by overlapping
batch means (batch of twenty integrated autocorrelation times, bias-corrected, floored by the
AR(1)-implied error), plus the stalls counted apart (:mod:`costmodel.warmup.longrun_var`): periodic
stalls by their amplitude spread (their number is fixed by a window of whole periods, up to its phase),
random jumps (stragglers) as a compound-Poisson count; plus any residual warm-up bias the curve could
not rule out. Degrees of freedom: Welch-Satterthwaite over those parts, then over the two sides. (The
earlier rules, the larger of 10-long-batch and 10-30-batch errors with Hsu's df = 9, and then OBM over
the stalls, made the 90 % interval two to three times wider than the true error on realistic logs,
so equivalent pairs came out "inconclusive".) Runs without ``steady_se_lr`` fall back to that rule.
With >= 2 runs on a side the run levels are the unit: the spread of their logs (k - 1 df) estimates
between- plus within-run variance; when it is below what the runs' own errors imply, those errors
are used (Welch-Satterthwaite df over the runs).

Direction: the ratio is always "higher is better", remote over co-located for throughput; for
lower-is-better metrics (step time) it is co-located time over remote time, so a ratio below 1 always
means the remote side is slower and ``cost --from-compare`` reads it the same way round.

Power (both are fractions, 0.01 = 1 %): ``min_detectable_margin`` is the smallest margin this
comparison would show equivalent with 80 % probability if the true ratio were 1,
``exp((t_0.95,df + t_0.90,df) * se) - 1``; ``smallest_equivalent_margin`` is the smallest margin at
which these data are called equivalent (the 90 % CI's furthest bound from 1, in ratio terms),
``exp(|log ratio| + t_0.95,df * se) - 1``. An inconclusive result's note gives the standard error that
would settle it and the steady-window length (or number of runs) that gives it.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ..foundation.errors import AnalysisError
from ..foundation.fields_json import FieldsJson, JsonKeys
from .analyze import FitResult, analyze
from .coldphase import TELEMETRY
from .stallsplit import split_se


@dataclass
class CompareResult(FieldsJson):
    """Result of :func:`compare`; ``to_dict()`` is the JSON contract of ``costmodel compare``."""

    metric: str
    margin: float
    metric_direction: str
    ratio: float | None
    ratio_ci_low: float | None
    ratio_ci_high: float | None
    ratio_ci90_low: float | None
    ratio_ci90_high: float | None
    equivalent: bool
    verdict: str
    p_tost: float | None
    df: float | None
    se_log_ratio: float | None
    steady_slowdown_fraction: float | None
    remote_extra_warmup_s: float | None
    remote_extra_warmup_steps: float | None
    remote_lost_s: float | None
    colocated_lost_s: float | None
    remote_steady_hit_ratio: float | None
    remote_steady_read_bytes_per_s: float | None
    pooled: dict[str, Any]
    colocated: list[dict[str, Any]]
    remote: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    min_detectable_margin: float | None = None
    smallest_equivalent_margin: float | None = None
    ratio_definition: str = "remote / co-located steady level (higher is better)"
    #: the shared vocabulary (costmodel.foundation.equivalence): equivalent | different | inconclusive | no_steady_state
    equivalence: str = "no_steady_state"
    equivalence_direction: str | None = None
    #: one run per side with periodic stalls on both: the ratio from between-stall rates and stall costs,
    #: with the error of each part (costmodel.warmup.stallsplit.split_se); None otherwise
    stall_split: dict[str, Any] | None = None
    #: cold vs warm telemetry per side (GPU utilisation, data wait, cache hit ratio, read bytes; run means)
    telemetry: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        from ..foundation.equivalence import outcome

        self.equivalence, self.equivalence_direction = outcome(
            self.ratio, self.ratio_ci_low, self.ratio_ci_high, self.margin, self.equivalent)

    JSON = JsonKeys(jsonable=True)


def _side(fits: list[FitResult]) -> dict[str, Any]:
    ok = [f for f in fits if f.steady_mean is not None and f.steady_mean > 0 and f.steady_se is not None]
    out: dict[str, Any] = {"n_runs": len(fits), "n_steady": len(ok)}
    if not ok:
        return out
    logs = np.log([cast(float, f.steady_mean) for f in ok])
    # residual warm-up bias the curve could not rule out counts as uncertainty too
    lr = all(f.steady_se_lr is not None and f.steady_df_lr for f in ok)
    if lr:
        rel_se = np.array([np.hypot(cast(float, f.steady_se_lr), f.steady_bias_bound or 0.0) / cast(float, f.steady_mean)
                           for f in ok])
        dfs = np.array([max(float(cast(float, f.steady_df_lr)), 1.0) for f in ok], dtype=float)
    else:
        rel_se = np.array([np.hypot(max(cast(float, f.steady_se), f.steady_se_10 or 0.0), f.steady_bias_bound or 0.0)
                           / cast(float, f.steady_mean) for f in ok])
        dfs = np.array([max(f.steady_df_10 or f.steady_df or 1, 1) for f in ok], dtype=float)
    k = len(ok)
    within = float(np.sqrt(np.sum(rel_se**2)) / k)
    if k >= 2:
        # the spread of the run levels estimates between- plus within-run variance (k - 1 df); when it
        # is below what the runs' own errors imply, the between-run part is estimated as 0 and the
        # within-run error (Welch-Satterthwaite df over the runs) is used instead
        between = float(np.std(logs, ddof=1) / np.sqrt(k))
        se = max(between, within)
        v = rel_se**2
        df_within = float(np.sum(v) ** 2 / np.sum(v * v / dfs)) if np.sum(v) > 0 else float(np.sum(dfs))
        df = float(k - 1) if between >= within else df_within
    else:
        se = within
        df = float(dfs[0])
    out["se_method"] = "long-run (overlapping batch means, stall-aware)" if lr else "max(10-30, 10-long) batch means"
    levels = [cast(float, f.steady_mean) for f in ok]
    out.update({
        "mean": float(np.exp(logs.mean())),
        "log_mean": float(logs.mean()),
        "se_log": se,
        "df": df,
        "run_levels": levels,
        "run_cv": float(np.std(levels, ddof=1) / np.mean(levels)) if k >= 2 else None,
        "min": float(min(levels)),
        "max": float(max(levels)),
        "unit_of_replication": "runs" if k >= 2 else "batches within the single run",
    })
    return out


def _inconclusive_note(theta: float, se: float, df: float, L: float, margin: float, fc: list[FitResult],
                       fr: list[FitResult], A: dict[str, Any], B: dict[str, Any]) -> str:
    """What would make an inconclusive comparison conclusive: the standard error needed for 80 % power
    at a true ratio of 1 (normal quantiles: the df grow with the data) and the steady-window length or
    number of runs per side that gives it (the error falls as 1 / sqrt(length) or 1 / sqrt(runs))."""
    need = L / (1.6449 + 1.2816)
    f = (se / need) ** 2 if need > 0 else float("inf")
    msg = (f"inconclusive: the 90 % CI of the ratio straddles the +-{margin:.1%} band; to show equivalence at "
           f"{margin:.1%} with 80 % power (true ratio 1) the standard error of the log ratio must fall from "
           f"{se:.4f} to <= {need:.4f}")
    if abs(theta) < L:
        msg += f" (to confirm this estimate, {abs(theta):.2%} from 1: <= {(L - abs(theta)) / 1.6449:.4f})"
    if np.isfinite(f) and f > 1:
        durs = []
        for name, fits in (("co-located", fc), ("remote", fr)):
            d = [x.steady_duration_s for x in fits if x.steady_duration_s]
            if d:
                durs.append(f"{name} {float(np.mean(d)):,.0f} s -> {f * float(np.mean(d)):,.0f} s")
        runs = int(np.ceil(f * max(A.get("n_steady", 1), B.get("n_steady", 1))))
        msg += (f": steady windows about {f:.1f}x longer per run ({'; '.join(durs)}), or about {runs} runs per "
                f"side of the present length (more if the runs differ from one another)")
    return msg


def one_view_per_run(runs: Sequence[Any]) -> tuple[list[Any], list[str]]:
    """Keep one view of each training run: runs whose ``metadata['view_of']`` names the same file are views
    of one run (MXNet's per-batch ``Speed:`` lines and MLLOG's per-epoch throughput in one console log), so
    they count as one repetition: the view with the most rows is kept. Returns (runs, notes)."""
    groups: dict[str, list[Any]] = {}
    for r in runs:
        v = (getattr(r, "metadata", None) or {}).get("view_of")
        if v:
            groups.setdefault(str(v), []).append(r)
    if not any(len(g) > 1 for g in groups.values()):
        return list(runs), []
    drop: set[int] = set()
    notes = []
    for src, g in groups.items():
        if len(g) < 2:
            continue
        best = max(g, key=lambda r: (int(getattr(r, "rows", 0) or len(getattr(r, "table", ()))), -g.index(r)))
        others = [r for r in g if r is not best]
        drop |= {id(r) for r in others}
        notes.append(f"{src}: {len(g)} views of one run ({', '.join(str(r.run_id) for r in g)}); one repetition, "
                     f"from {best.run_id} (the most rows); the others are not pooled as repetitions")
    return [r for r in runs if id(r) not in drop], notes


def _telemetry(fc: list[FitResult], fr: list[FitResult]) -> dict[str, Any]:
    """Cold-phase and steady telemetry of each side (the mean over its runs of each fit's value)."""
    out: dict[str, Any] = {}
    for side, fits in (("colocated", fc), ("remote", fr)):
        out[side] = {ph: {c: _mean_or_none([(f.telemetry.get(ph) or {}).get(c) for f in fits])
                          for c in TELEMETRY} for ph in ("cold", "steady")}
    return out


def _mean_or_none(vals: list[float | None]) -> float | None:
    v = [x for x in vals if x is not None and np.isfinite(x)]
    return float(np.mean(v)) if v else None


def _tost(fc: list[FitResult], fr: list[FitResult], A: dict[str, Any], B: dict[str, Any], direction: str,
          margin: float, notes: list[str]) -> dict[str, Any]:
    """The ratio, its CIs, TOST at ``margin`` and the verdict from the two sides' pooled levels (notes appended)."""
    from ..numeric import stats

    mdm = sem = None
    ratio = lo = hi = lo90 = hi90 = p = df = se = None
    split: dict[str, Any] | None = None
    equivalent = False
    verdict = "no_steady_state"
    if "mean" in A and "mean" in B:
        # higher-is-better ratio: remote/co-located levels, or co-located/remote times
        theta = B["log_mean"] - A["log_mean"]
        if direction == "lower_is_better":
            theta = -theta
        se = float(np.hypot(A["se_log"], B["se_log"]))
        lr_both = A.get("se_method", "").startswith("long-run") and B.get("se_method", "").startswith("long-run")
        split = None
        if (len(fc) == 1 and len(fr) == 1 and fc[0].stall_split and fr[0].stall_split
                and direction == "higher_is_better"):
            split = split_se(fc[0].stall_split, fr[0].stall_split)
        if split is not None:
            # periodic stalls on both sides: between-stall rate and stall cost, each with its own error
            theta, se, df = split["theta"], split["se"], split["df"]
            k_c, k_r = (len((f.stall_split or {}).get("stall_steps", [])) for f in (fc[0], fr[0]))
            notes.append(f"ratio from between-stall rates and stall costs ({k_c} and {k_r} stalls, "
                         f"{split['stall_pairing']}); standard error "
                         f"of the log ratio {split['se_between_log']:.4f} between stalls, {split['se_stall_log']:.4f} "
                         f"from the stall costs")
        else:
            if len(fc) == 1 and len(fr) == 1 and (fc[0].period_steps is None) != (fr[0].period_steps is None):
                side, other = ("co-located", fc[0]) if fc[0].period_steps is not None else ("remote", fr[0])
                notes.append(f"recurring stalls (every {other.period_steps:g} steps) were found on the {side} side "
                             "only: its steady window spans whole periods, the other's does not, so the two levels "
                             "may count stalls differently; check both fits (a run with fewer than 4 stalls has no "
                             "period)")
            if se <= 0:
                df = float("inf")
            elif lr_both:
                # Welch-Satterthwaite
                va, vb = A["se_log"] ** 2, B["se_log"] ** 2
                df = float((va + vb) ** 2 / (va * va / A["df"] + vb * vb / B["df"]))
            else:
                df = float(min(A["df"], B["df"]))
        L = np.log1p(margin)
        t95 = float(stats.t.ppf(0.975, df))
        t90 = float(stats.t.ppf(0.95, df))
        ratio = float(np.exp(theta))
        lo, hi = float(np.exp(theta - t95 * se)), float(np.exp(theta + t95 * se))
        lo90, hi90 = float(np.exp(theta - t90 * se)), float(np.exp(theta + t90 * se))
        if se > 0:
            p = float(max(stats.t.sf((theta + L) / se, df), stats.t.sf((L - theta) / se, df)))
        else:
            p = 0.0 if abs(theta) < L else 1.0
        equivalent = bool(theta - t90 * se > -L and theta + t90 * se < L)
        t80 = float(stats.t.ppf(0.90, df))
        mdm = float(np.expm1((t90 + t80) * se))
        sem = float(np.expm1(abs(theta) + t90 * se))
        differs = bool(lo > 1.0 or hi < 1.0)
        if equivalent:
            verdict = "equivalent_but_different" if differs else "equivalent"
        elif differs:
            verdict = "different"
        else:
            verdict = "inconclusive"
            notes.append(_inconclusive_note(theta, se, df, L, margin, fc, fr, A, B))
        if len(fc) == 1 or len(fr) == 1:
            notes.append("one run on a side: run-to-run variance cannot be separated from the region "
                         "effect; repeat each configuration at least 3 times")
    else:
        missing = [side for side, X in (("co-located", A), ("remote", B)) if "mean" not in X]
        notes.append(f"no steady state on the {' and '.join(missing)} side: no ratio or equivalence can be given")
    return {"mdm": mdm, "sem": sem, "ratio": ratio, "lo": lo, "hi": hi, "lo90": lo90, "hi90": hi90, "p": p, "df": df,
            "se": se, "split": split, "equivalent": equivalent, "verdict": verdict}

def _warmup_end_times(fc: list[FitResult], fr: list[FitResult], blind: list[str],
                      notes: list[str]) -> tuple[float | None, float | None]:
    """(remote, co-located) mean warm-up end in seconds, the remote one None where the seconds are not the run's:
    sampled rows without a clock, or rows with neither clock nor step time (a note says which)."""
    rem_end = _mean_or_none([f.warmup_end_t_s for f in fr])
    col_end = _mean_or_none([f.warmup_end_t_s for f in fc])
    timeless = [f.run_id for f in fc + fr if f.time_source == "constant_work" and f.metric_direction != "lower_is_better"]
    sampled_blind = [f.run_id for f in fc + fr if (f.evidence.get("log_rows") or {}).get("stalls_between_rows_invisible")
                     and (f.evidence.get("log_rows") or {}).get("rows") == "sampled"]
    if sampled_blind and rem_end is not None:
        # sampled rows without a clock: the warm-up's seconds are the logged steps' pace times the steps between rows,
        # which misses or inflates a bursty cold phase (-100 % to +117 % on the real pairs): not given
        notes.append(f"{', '.join(sampled_blind)}: sampled rows without a clock, so the time of the steps between rows "
                     "is unknown; remote_extra_warmup_s is not given (log a wall clock or elapsed time)")
        rem_end = None
    elif blind and rem_end is not None:
        notes.append(f"{', '.join(blind)}: rows without a clock, taken as interval means (k steps x the row's step "
                     "time): remote_extra_warmup_s holds only if they are; pass --rows sampled if each row is one "
                     "step's own figures (then it is not given)")
    if timeless and rem_end is not None:
        # no clock and no step time: "time" is each row's 1 / rate (one unit of work per row), not the run's seconds
        notes.append(f"{', '.join(timeless)}: no clock and no step time, so the warm-up's seconds are unknown (each row "
                     "is taken as the same work); remote_extra_warmup_s is not given: log a time stamp or the step time")
        rem_end = None
    return rem_end, col_end



def compare(colocated: Sequence[Any], remote: Sequence[Any], metric: str | None = None,
            margin: float = 0.02, axis: str = "step") -> CompareResult:
    """Compare runs (Runs, Timeline DataFrames or FitResults) of the two sides.

    ``margin`` is the equivalence margin as a fraction (0.02 = 2 %). ``colocated`` and ``remote`` in
    the result are always lists of fit dictionaries. Raises AnalysisError when a side is empty or the
    margin is not in (0, 1).
    """

    if not colocated or not remote:
        raise AnalysisError("compare needs at least one co-located and one remote run")
    if not (0 < margin < 1):
        raise AnalysisError(f"margin must be a fraction in (0, 1), e.g. 0.02 for 2 %; got {margin}")
    colocated, view_notes_c = one_view_per_run(colocated)
    remote, view_notes_r = one_view_per_run(remote)
    fc = [r if isinstance(r, FitResult) else analyze(r, metric, axis) for r in colocated]
    fr = [r if isinstance(r, FitResult) else analyze(r, metric, axis) for r in remote]
    mets = {f.metric for f in fc + fr}
    if len(mets) > 1:
        raise AnalysisError(f"the runs were analysed on different metrics ({', '.join(sorted(mets))}); pass --metric")
    met = mets.pop()
    dirs = {f.metric_direction for f in fc + fr}
    direction = dirs.pop() if len(dirs) == 1 else "higher_is_better"
    A, B = _side(fc), _side(fr)
    notes: list[str] = [f"co-located: {n}" for n in view_notes_c] + [f"remote: {n}" for n in view_notes_r]
    t = _tost(fc, fr, A, B, direction, margin, notes)
    mdm, sem, ratio, lo, hi, lo90, hi90 = t["mdm"], t["sem"], t["ratio"], t["lo"], t["hi"], t["lo90"], t["hi90"]
    p, df, se, split, equivalent, verdict = t["p"], t["df"], t["se"], t["split"], t["equivalent"], t["verdict"]
    blind = [f.run_id for f in fc + fr if (f.evidence.get("log_rows") or {}).get("stalls_between_rows_invisible")]
    if blind:
        # sampled rows every N steps without a clock: the stalls between rows are not in either level
        notes.append(f"rows every N steps without a clock in {', '.join(blind)}: stalls between rows (checkpoints, "
                     "epoch ends) are invisible, so the levels may leave them out unequally; equivalence is not called "
                     "on such rows (log a wall clock or elapsed time, or every step)")
        if equivalent:
            equivalent, verdict = False, "inconclusive"
    split_dict = split if "mean" in A and "mean" in B else None
    rem_end, col_end = _warmup_end_times(fc, fr, blind, notes)
    rem_steps = _mean_or_none([f.warmup_end_step for f in fr])
    col_steps = _mean_or_none([f.warmup_end_step for f in fc])
    if direction == "lower_is_better":
        notes.append(f"{met} is lower-is-better: ratio = co-located / remote mean {met} (a throughput-like ratio, "
                     "below 1 when the remote side is slower)")
    return CompareResult(
        metric=met,
        margin=margin,
        metric_direction=direction,
        min_detectable_margin=mdm,
        smallest_equivalent_margin=sem,
        ratio_definition=("co-located / remote mean step time (higher is better)" if direction == "lower_is_better"
                          else "remote / co-located steady level (higher is better)"),
        ratio=ratio,
        ratio_ci_low=lo,
        ratio_ci_high=hi,
        ratio_ci90_low=lo90,
        ratio_ci90_high=hi90,
        equivalent=equivalent,
        verdict=verdict,
        p_tost=p,
        df=df,
        se_log_ratio=se,
        steady_slowdown_fraction=None if ratio is None else max(0.0, 1.0 - ratio),
        remote_extra_warmup_s=None if rem_end is None or col_end is None else rem_end - col_end,
        remote_extra_warmup_steps=None if rem_steps is None or col_steps is None else rem_steps - col_steps,
        remote_lost_s=_mean_or_none([f.lost_s for f in fr]),
        colocated_lost_s=_mean_or_none([f.lost_s for f in fc]),
        remote_steady_hit_ratio=_mean_or_none([f.steady_aux.get("cache_hit_ratio") for f in fr]),
        remote_steady_read_bytes_per_s=_mean_or_none([f.steady_aux.get("read_bytes_per_s") for f in fr]),
        pooled={"colocated": A, "remote": B},
        stall_split=split_dict,
        telemetry=_telemetry(fc, fr),
        colocated=[f.to_dict() for f in fc],
        remote=[f.to_dict() for f in fr],
        notes=notes,
    )
