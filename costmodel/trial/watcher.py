"""A trial watched as it runs: each look at the log so far updates the state and returns what changed.

Phases: ``waiting`` (too few rows), ``cold`` (warm-up in progress: the evidence says so), ``warm`` (the
warm-up is over: called once the estimate of its end holds, :func:`_warmup_call`), ``steady`` (a
confidence sequence of the ratio exists, not yet decided), then the call: ``equivalent`` (the whole
sequence lies inside the margin's band) or ``different`` (entirely outside it).

The ratio's confidence sequence (see :mod:`costmodel.trial.boundary`): theta = log(remote level /
co-located level), levels between-stall rate plus stall cost, stalls paired by step when both sides
stall on one schedule (:mod:`costmodel.trial.levels`, :mod:`costmodel.trial.pairing`). Each bound of the
interval puts the remote side's error (the part that grows with the trial) under the one-sided
normal-mixture boundary at ``alpha_remote`` (valid over all looks at once) and adds the co-located side's
error (a finished run: fixed) at a two-sided ``alpha_reference`` interval (a union bound). A false
"equivalent" (or "different") needs the bound on the truth's side to be wrong at some look: probability at
most ``alpha_remote + alpha_reference / 2`` = 0.05 by default, however often the trial is looked at (the
interval is a 90 % confidence sequence, as TOST's is a 90 % interval).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..foundation.errors import AnalysisError
from .boundary import one_sided_factor, r_at, studentized_factor, z_two_sided
from .levels import steps_per_row, window_level
from .pairing import theta_of
from .reference import Reference
from .warmcheck import later_end

PHASES = ("waiting", "cold", "warm", "steady", "equivalent", "different")
EXIT_CODES = {"equivalent": 0, "different": 3}
UNDECIDED_EXIT = 4


@dataclass(frozen=True)
class Settings:
    """How a trial is called (fractions; rows of the remote log)."""

    margin: float = 0.05
    alpha_remote: float = 0.04
    alpha_reference: float = 0.02
    plan_rows: int | None = None  # the boundary is tightest here (default: the reference's steady rows)
    min_rows: int = 50  # steady rows before a first interval
    min_stalls: int = 2  # stalls seen after the warm-up before a first interval (when the reference has them)
    min_after_rows: int = 30  # rows after an estimated warm-up end before it can be called
    heavy_growth: float = 0.05  # the warm-up estimate is redone when the log grew by this fraction
    warmup_tol: float = 0.10  # consecutive estimates of the warm-up end agree within this fraction
    # the paired stall costs' standard error times t_(pairs-1)(0.95) / z(0.95): their spread is estimated from
    # 3-5 pairs; plugged in as known (False: research only, NOT valid under few pairs) it lets the false
    # "equivalent" rate reach ~7 % when the reference's error is negligible (docs/trial.md, "How early can a
    # call be?"); on (the default) 2.5-3.9 %, and calls come one checkpoint or more later
    studentize_pairs: bool = True

    def __post_init__(self) -> None:
        if not (0 < self.margin < 1):
            raise AnalysisError(f"margin must be a fraction in (0, 1), e.g. 0.05 for 5 %; got {self.margin}")
        if not (0 < self.alpha_remote < 1 and 0 < self.alpha_reference < 1
                and self.alpha_remote + self.alpha_reference < 0.5):
            raise AnalysisError("alpha_remote and alpha_reference must be in (0, 1) and sum to less than 0.5")


@dataclass
class Interval:
    """The ratio's confidence sequence at one look."""

    theta: float
    half_width: float
    log_se_remote: float
    log_se_reference: float
    factor: float  # B(r, alpha_remote): the boundary's half-width in standard errors
    rows: int
    stalls: int
    pairs: int = 0
    how: str = ""

    @property
    def ratio(self) -> float:
        return math.exp(self.theta)

    @property
    def low(self) -> float:
        return math.exp(self.theta - self.half_width)

    @property
    def high(self) -> float:
        return math.exp(self.theta + self.half_width)


def call_of(iv: Interval, margin: float) -> str:
    """``equivalent`` / ``different`` / ``steady`` (undecided) for an interval at ``margin``."""
    L = math.log1p(margin)
    lo, hi = iv.theta - iv.half_width, iv.theta + iv.half_width
    if -L < lo and hi < L:
        return "equivalent"
    if lo > L or hi < -L:
        return "different"
    return "steady"


@dataclass
class Watcher:
    """The state of one watched trial; :meth:`look` takes the whole log so far (a Run or Timeline table)."""

    ref: Reference
    settings: Settings = field(default_factory=Settings)
    phase: str = "waiting"
    warmup_end_step: int | None = None
    warmup_called_at_step: float | None = None
    warmup_estimates: list[tuple[float, int | None]] = field(default_factory=list)  # (step of the look, end)
    cold_evidence: dict[str, Any] | None = None
    interval: Interval | None = None
    call: str | None = None
    called_at_step: float | None = None
    called_at_t_s: float | None = None
    last_step: float = float("nan")
    last_t_s: float = float("nan")
    rows: int = 0
    looks: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    _last_heavy_rows: int = 0
    warmup_vetoes: int = 0
    _estimates_rows: list[tuple[int, int | None]] = field(default_factory=list)  # (rows seen, end)

    # -- one look -------------------------------------------------------------------------------------
    def look(self, run: Any) -> list[dict[str, Any]]:
        """Update the state from the log so far; return the events (state changes), oldest first."""
        from ..warmup import prepare

        self.looks += 1
        try:
            s = prepare(run, self.ref.metric)
        except AnalysisError:
            return []
        n = len(s.step)
        self.rows = n
        if n == 0:
            return []
        self.last_step = float(s.step[-1])
        self.last_t_s = float(np.sum(s.d))
        events: list[dict[str, Any]] = []
        if self.warmup_end_step is None:
            # a log that grew by much since the last look (a watch started on a log already written, a
            # writer that flushes rarely) is caught up on at the looks it would have had
            k = self._last_heavy_rows or self.settings.min_after_rows
            while k and self.warmup_end_step is None:
                k = int(k * (1 + self.settings.heavy_growth)) + 6
                if k >= n:
                    break
                sub = prefix(run, k)
                events += self._warmup_look(sub, prepare(sub, self.ref.metric), at_step=float(s.step[k - 1]))
        if self.warmup_end_step is None:
            events += self._warmup_look(run, s)
        if self.warmup_end_step is not None:
            events += self._steady_look(s)
        self.history.append(self.status())
        return events

    def event(self, kind: str, **kw: Any) -> dict[str, Any]:
        return {"event": kind, "step": _num(self.last_step), "t_s": _num(self.last_t_s), "rows": self.rows, **kw}

    def _warmup_look(self, run: Any, s: Any, at_step: float | None = None) -> list[dict[str, Any]]:
        from ..warmup import analyze

        n = len(s.step)
        st = self.settings
        if self._last_heavy_rows and n < self._last_heavy_rows * (1 + st.heavy_growth) + 5:
            return []
        self._last_heavy_rows = n
        try:
            fit = analyze(run, self.ref.metric)
        except AnalysisError:
            return []
        end = fit.warmup_end_step
        settled = fit.classification not in ("too_short", "no_steady_state") and end is not None
        look_step = self.last_step if at_step is None else at_step
        self.warmup_estimates.append((look_step, int(end) if settled and end is not None else None))
        events: list[dict[str, Any]] = []
        if fit.classification == "too_short":
            return events
        level_so_far = float(np.sum(s.w) / np.sum(s.d)) if np.sum(s.d) > 0 else None
        if not settled or end is None:
            self._estimates_rows.append((n, None))
            if self.phase == "waiting":
                self.phase = "cold"
                self.cold_evidence = _cold_evidence(fit, level_so_far, self.ref)
                events.append(self.event("cold_phase", **self.cold_evidence))
            return events
        end_i = int(np.searchsorted(s.step, end))
        spr = steps_per_row(s.step)
        tol = max(st.warmup_tol * end, 2 * spr)
        # the estimate holds: every estimate made on at least 4/5 of the rows seen agrees with it (and there
        # are at least two of them besides this one)
        recent = [e for k, e in self._estimates_rows if k >= 0.8 * n]
        stable = len(recent) >= 2 and all(e is not None and abs(e - end) <= tol for e in recent)
        self._estimates_rows.append((n, int(end)))
        if self.phase == "waiting" and end > 0:
            self.phase = "cold"
            self.cold_evidence = _cold_evidence(fit, level_so_far, self.ref)
            events.append(self.event("cold_phase", **self.cold_evidence))
        veto = later_end(s.w, s.d, end_i, _column(s, "data_wait_s"), _column(s, "cache_hit_ratio"),
                         tol_rows=int(math.ceil(tol / spr)))
        if veto is not None:
            self.warmup_vetoes += 1
        if stable and veto is None and n - end_i >= max(st.min_after_rows, end_i) and n >= st.min_rows:
            self.warmup_end_step = int(end)
            self.warmup_called_at_step = look_step
            self.phase = "warm"
            t_end = float(np.sum(s.d[:end_i]))
            t_look = float(np.sum(s.d))
            events.append(self.event(
                "warmup_over", warmup_end_step=int(end), warmup_end_t_s=t_end, evidence_at_step=look_step,
                latency_steps=_num(look_step - end), latency_s=_num(t_look - t_end),
                decided_by=fit.warmup_end_decided_by or "segmentation",
                classification=fit.classification,
                estimates=[e for _, e in self.warmup_estimates[-3:]]))
        return events

    def _steady_look(self, s: Any) -> list[dict[str, Any]]:
        st = self.settings
        assert self.warmup_end_step is not None
        i0 = int(np.searchsorted(s.step, self.warmup_end_step))
        w, d, step = s.w[i0:], s.d[i0:], s.step[i0:]
        if len(d) < st.min_rows:
            return []
        wl = window_level(w, d, step, self.ref.period_steps, self.ref.stall_sd_s)
        if wl is None:
            return []
        th = theta_of(wl, self.ref.window, self.ref.steps_per_row)
        if th is None:
            return []
        plan = st.plan_rows or max(self.ref.steady_rows, st.min_rows)
        fac = one_sided_factor(r_at(wl.rows, plan), st.alpha_remote)
        var_m = th.var_monitored
        if st.studentize_pairs and th.pairs >= 2:
            v_between = (wl.between_share * wl.between_rel_se) ** 2
            var_m = v_between + (var_m - v_between) * studentized_factor(th.pairs - 1) ** 2
        se_r = math.sqrt(var_m)
        se_c = math.sqrt(th.var_fixed)
        iv = Interval(theta=th.theta, half_width=fac * se_r + z_two_sided(st.alpha_reference) * se_c,
                      log_se_remote=se_r, log_se_reference=se_c, factor=fac, rows=wl.rows, stalls=th.stalls,
                      pairs=th.pairs, how=th.how)
        self.interval = iv
        events: list[dict[str, Any]] = []
        if self.phase in ("warm", "waiting", "cold") and call_of(iv, st.margin) == "steady":
            self.phase = "steady"
            events.append(self.event("steady", steps_needed=self.steps_needed(), **self._interval_dict()))
        if self.call is None:
            c = call_of(iv, st.margin)
            if c != "steady":
                self.call, self.phase = c, c
                self.called_at_step, self.called_at_t_s = self.last_step, self.last_t_s
                events.append(self.event("call", call=c, **self._interval_dict()))
        return events

    # -- reading the state -----------------------------------------------------------------------------
    def steps_needed(self) -> float | None:
        """Steps more until the interval would decide, if the estimate held and the error fell as
        1/sqrt(rows); None when decided, before an interval, or when no length would decide (the estimate
        sits on the band's edge, or the co-located run's own error leaves no room)."""
        iv = self.interval
        if iv is None or self.call is not None:
            return None
        st = self.settings
        L = math.log1p(st.margin)
        plan = st.plan_rows or max(self.ref.steady_rows, st.min_rows)
        z_c = z_two_sided(st.alpha_reference) * iv.log_se_reference
        n = float(iv.rows)
        for k in range(1, 200):
            n2 = n * 1.05 ** k
            h = one_sided_factor(r_at(n2, plan), st.alpha_remote) * iv.log_se_remote * math.sqrt(n / n2) + z_c
            if abs(iv.theta) + h < L or abs(iv.theta) - h > L:
                return float((n2 - n) * self.ref.steps_per_row)
        return None

    def _interval_dict(self) -> dict[str, Any]:
        iv = self.interval
        if iv is None:
            return {}
        return {"ratio": iv.ratio, "ratio_cs_low": iv.low, "ratio_cs_high": iv.high, "log_se_remote": iv.log_se_remote,
                "log_se_reference": iv.log_se_reference, "boundary_factor": iv.factor, "steady_rows": iv.rows,
                "stalls": iv.stalls, "paired_stalls": iv.pairs, "stall_pairing": iv.how,
                "margin": self.settings.margin}

    def status(self) -> dict[str, Any]:
        """The whole state as a JSON-able dict (the status line, the notebook's rows)."""
        out: dict[str, Any] = {"rows": self.rows, "step": _num(self.last_step), "t_s": _num(self.last_t_s),
                               "phase": self.phase, "warmup_end_step": self.warmup_end_step,
                               "warmup_called_at_step": self.warmup_called_at_step, "call": self.call,
                               "called_at_step": self.called_at_step}
        out.update(self._interval_dict())
        out["steps_needed"] = self.steps_needed()
        return out


def prefix(run: Any, k: int) -> Any:
    """The first ``k`` rows of a Run (or a Timeline DataFrame)."""
    if hasattr(run, "table"):
        return replace(run, table=run.table.iloc[:k].reset_index(drop=True))
    return run.iloc[:k].reset_index(drop=True)


def _column(s: Any, name: str) -> np.ndarray | None:
    if name not in s.table.columns:
        return None
    v = np.asarray(s.table[name].to_numpy(dtype=float))
    return v if np.isfinite(v).any() else None


def _num(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def _cold_evidence(fit: Any, level: float | None, ref: Reference) -> dict[str, Any]:
    cold = (fit.telemetry or {}).get("cold") or {}
    ev: dict[str, Any] = {"level_so_far": level, "reference_level": ref.level,
                          "ratio_so_far": (level / ref.level) if level else None,
                          "classification_so_far": fit.classification,
                          "evidence": fit.warmup_end_decided_by or fit.evidence.get("rule") or "segmentation"}
    for k in ("data_wait_s", "cache_hit_ratio", "gpu_util"):
        if cold.get(k) is not None:
            ev[f"cold_{k}"] = cold[k]
    return ev


def final_call(w: Watcher, run: Any, final_analysis: bool = True) -> dict[str, Any]:
    """The call at the end of input: the anytime call when one was made; otherwise, with ``final_analysis``,
    ``compare`` on the whole log (the fixed-sample TOST, the trial's planned final analysis); else undecided."""
    out: dict[str, Any] = {"event": "end", "rows": w.rows, "step": _num(w.last_step), "t_s": _num(w.last_t_s),
                           "warmup_end_step": w.warmup_end_step, "margin": w.settings.margin}
    out.update(w._interval_dict())
    out["steps_needed"] = w.steps_needed()
    whole: dict[str, Any] | None = None
    if final_analysis:
        from ..warmup import compare

        try:
            res = compare([w.ref.fit], [run], metric=w.ref.metric, margin=w.settings.margin)
            whole = {"equivalence": res.equivalence, "ratio": res.ratio, "ratio_ci90_low": res.ratio_ci90_low,
                     "ratio_ci90_high": res.ratio_ci90_high,
                     "remote_warmup_end_step": (res.remote[0] or {}).get("warmup_end_step") if res.remote else None}
        except AnalysisError as exc:
            whole = {"equivalence": "no_steady_state", "error": str(exc)}
    out["compare"] = whole
    if w.call is not None:
        out.update(call=w.call, decided_by="confidence sequence", called_at_step=w.called_at_step,
                   called_at_t_s=w.called_at_t_s)
    elif whole is not None and whole.get("equivalence") in ("equivalent", "different"):
        out.update(call=whole["equivalence"], decided_by="final analysis (compare on the whole log)",
                   called_at_step=_num(w.last_step), called_at_t_s=_num(w.last_t_s))
    else:
        out.update(call="undecided", decided_by=None, called_at_step=None, called_at_t_s=None)
    out["exit_code"] = EXIT_CODES.get(out["call"], UNDECIDED_EXIT)
    return out
