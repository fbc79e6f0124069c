"""Throughput curves: one panel per run (warm-up shaded, steady mean with its CI, the fitted curve) and
the co-located vs remote overlay; their helpers (units on axes, run labels, downsampling).

Data beyond :data:`~costmodel.charts.render.MAX_ROWS` rows is pre-aggregated (:func:`downsample`).
Predicted (simulated) runs are drawn dashed and labelled ``(predicted)`` (once: not when the run id
already says so, see :func:`run_label`).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..foundation.errors import ReportError
from ..foundation.util import finite_float
from .render import (
    HEIGHT,
    MAX_PANELS,
    MAX_ROWS,
    POINTS_PER_RUN,
    WIDTH,
    _alt,
    _configure,
    reusable,
)

_UNITS = {
    "samples_per_s": "samples/s",
    "tokens_per_s": "tokens/s",
    "step_time_s": "s",
    "read_bytes_per_s": "B/s",
    "write_bytes_per_s": "B/s",
    "read_iops": "1/s",
    "write_iops": "1/s",
    "read_latency_s": "s",
    "gpu_util": "fraction 0..1",
    "data_wait_s": "s",
    "cache_hit_ratio": "fraction 0..1",
    "bytes_read": "B",
}
_AXIS_TITLES = {"step": "step (batch index)", "t_s": "time since start (min)"}
#: The time axis is drawn in minutes (the data stay in seconds).
_MINUTES = "t_min"
_ROLE_COLORS = {"colocated": "#1f77b4", "remote": "#d62728", "": "#7f7f7f"}


def metric_title(metric: str) -> str:
    """Axis title in words with the unit, e.g. ``samples_per_s`` -> ``throughput (samples/s)``."""
    from ..foundation.labels import metric_label

    label = metric_label(metric)
    if label != metric.replace("_", " "):
        return label
    unit = _UNITS.get(metric)
    return f"{label} ({unit})" if unit else label


def _is_predicted(run: Any) -> bool:
    meta = getattr(run, "metadata", None) or {}
    return bool(meta.get("predicted", False))


_SAYS_PREDICTED_RE = re.compile(r"(?<![a-z])predicted(?![a-z])", re.IGNORECASE)


def run_label(run_id: str, predicted: bool) -> str:
    """The label a run carries in charts and tables; predicted runs say so, once: ``(predicted)`` is
    appended unless the run id already names it as a word (``reference-spoke-predicted``)."""
    rid = str(run_id)
    if not predicted or _SAYS_PREDICTED_RE.search(rid):
        return rid
    return f"{rid} (predicted)"


def downsample(
    df: pd.DataFrame, x: str, ys: Sequence[str], max_points: int = POINTS_PER_RUN, envelope: bool = False
) -> pd.DataFrame:
    """Mean of ``ys`` in at most ``max_points`` equal-width bins of ``x`` (rows without x dropped).

    Returns ``df[[x, *ys]]`` unchanged when it is already small enough. Bin x is the bin's mean x.
    With ``envelope`` each y also gets ``{y}_min`` and ``{y}_max``, the extremes in its bin (equal to
    the value itself when nothing is binned), so a one-step stall stays visible after binning.
    """
    cols = [x, *[y for y in ys if y != x]]
    d = df[cols].dropna(subset=[x])
    ycols = cols[1:]
    if len(d) <= max_points:
        out = d.reset_index(drop=True)
        if envelope:
            for y in ycols:
                out[f"{y}_min"] = out[y]
                out[f"{y}_max"] = out[y]
        return out
    xv = d[x].to_numpy(dtype=float)
    lo, hi = float(np.min(xv)), float(np.max(xv))
    if hi <= lo:
        return downsample(d.iloc[:max_points], x, ys, max_points, envelope)
    idx = np.minimum(((xv - lo) / (hi - lo) * max_points).astype(np.int64), max_points - 1)
    grouped = d.groupby(idx, sort=True)
    out = grouped.mean(numeric_only=True)
    if envelope and ycols:
        mins = grouped[ycols].min().add_suffix("_min")
        maxs = grouped[ycols].max().add_suffix("_max")
        out = out.join(mins).join(maxs)
    return out.reset_index(drop=True)


def curve_values(
    curve: Mapping[str, Any] | None,
    x: np.ndarray,
    axis: str,
    warmup_end: float | None,
    x0: float | None = None,
) -> np.ndarray | None:
    """The fitted warm-up curve at ``x`` (steps or seconds, from the axis start), or None when it
    cannot be drawn. Models as in :mod:`costmodel.warmup` (S plateau, C initial, x from the start):
    ``exp``: ``S - (S - C) exp(-x / tau)`` (``tau_steps`` or ``tau_s``); ``ramp``: ``C + (S - C)
    min(x / t0, 1)``; ``step``: C before t0, S after; ``power``: ``S - (S - C) (1 + x / tau) ** -alpha``;
    ``logistic`` with ``x0``, ``s``; ``constant``: S. Shape parameters come from ``curve["params"]``
    (on the fitting axis, ``curve["axis"]``); ramp and step fall back to the warm-up end. ``x0`` is
    the start of the axis (default: the smallest ``x``).
    """
    if not curve:
        return None
    model = str(curve.get("model") or "").lower()
    plateau = finite_float(curve.get("plateau"))
    initial = finite_float(curve.get("initial"))
    if plateau is None:
        return None
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return None
    start = float(np.nanmin(x)) if x0 is None else float(x0)
    xr = x - start
    if initial is None or model in ("constant", "flat", "none", ""):
        return np.full_like(x, plateau)
    params = curve.get("params") or {}
    fit_axis = curve.get("axis")
    same_axis = fit_axis in (None, axis)
    gap = plateau - initial
    if model.startswith("exp"):
        tau = finite_float(curve.get("tau_steps" if axis == "step" else "tau_s"))
        if tau is None or tau <= 0:
            return None
        return plateau - gap * np.exp(-xr / tau)
    if model in ("ramp", "step"):
        t0 = finite_float(params.get("t0")) if same_axis else None
        if t0 is None:
            t0 = None if warmup_end is None else warmup_end - start
        if t0 is None or t0 <= 0:
            return np.full_like(x, plateau)
        if model == "ramp":
            return initial + gap * np.clip(xr / t0, 0.0, 1.0)
        return np.where(xr < t0, initial, plateau)
    if not same_axis:
        return None
    if model == "power":
        tau, alpha = finite_float(params.get("tau")), finite_float(params.get("alpha"))
        if tau is None or alpha is None or tau <= 0:
            return None
        return plateau - gap * (1.0 + xr / tau) ** (-alpha)
    if model == "logistic":
        x0, sc = finite_float(params.get("x0")), finite_float(params.get("s"))
        if x0 is None or sc is None or sc <= 0:
            return None
        return initial + gap / (1.0 + np.exp(-np.clip((xr - x0) / sc, -500, 500)))
    return None


def _as_dicts(fits: Iterable[Any]) -> list[Mapping[str, Any]]:
    """Fit results as dicts (FitResult objects are converted with ``to_dict()``)."""
    return [f.to_dict() if hasattr(f, "to_dict") else f for f in fits]


def _fit_by_run(fits: Iterable[Mapping[str, Any]]) -> dict[Any, Mapping[str, Any]]:
    """Fits keyed by run id and by (role, run id): the same id may appear on both sides."""
    out: dict[Any, Mapping[str, Any]] = {}
    for f in fits:
        out.setdefault(str(f.get("run_id")), f)
        out[(str(f.get("role") or ""), str(f.get("run_id")))] = f
    return out


def _pick_metric(runs: Sequence[Any], fits: Sequence[Mapping[str, Any]], metric: str | None) -> str:
    if metric:
        return metric
    for f in fits:
        if f.get("metric"):
            return str(f["metric"])
    for cand in ("samples_per_s", "tokens_per_s", "read_bytes_per_s"):
        if any(cand in r.table and r.table[cand].notna().any() for r in runs):
            return cand
    raise ReportError("no throughput metric to draw: the runs carry none of samples_per_s, tokens_per_s, read_bytes_per_s")


def _axis_of(run: Any, axis: str) -> str:
    t = run.table
    if axis in t and t[axis].notna().any():
        return axis
    return "step"


@reusable
def throughput(
    runs: Sequence[Any],
    fits: Sequence[Mapping[str, Any]],
    axis: str = "step",
    metric: str | None = None,
) -> Any:
    """One panel per run, all on the same scales (so the runs compare at a glance, each drawn once): the
    metric over ``axis`` (``step``, or ``t_s`` drawn in minutes), from zero, the warm-up region shaded, the
    steady-state 95 % CI band and mean, and the fitted warm-up curve. Predicted runs are dashed."""
    alt = _alt()
    if axis not in _AXIS_TITLES:
        raise ReportError(f"axis must be 'step' or 't_s', got {axis!r}")
    if not runs:
        raise ReportError("no runs to draw")
    fits = _as_dicts(fits)
    metric = _pick_metric(runs, fits, metric)
    by_run = _fit_by_run(fits)
    drawn = []  # (run, fit, binned frame, axis, scale)
    for run in runs[:MAX_PANELS]:
        ax = _axis_of(run, axis)
        if metric not in run.table:
            continue
        fit = by_run.get((run.role or "", str(run.run_id))) or by_run.get(str(run.run_id), {})
        fit_axis = fit.get("axis") or "step"
        extra = [fit_axis] if fit_axis != ax and fit_axis in run.table and run.table[fit_axis].notna().any() else []
        d = downsample(run.table, ax, [metric, *extra], envelope=True).dropna(subset=[metric])
        if not d.empty:
            drawn.append((run, fit, d, ax, extra, len(d) < int(run.table[metric].notna().sum())))
    if not drawn:
        raise ReportError(f"no run has data for metric {metric!r} to draw")
    k = {"t_s": 1 / 60.0, "step": 1.0}
    x_hi = max(float(d[ax].max()) * k[ax] for _r, _f, d, ax, _e, _b in drawn)
    y_hi = max(float(np.nanmax(d[f"{metric}_max"].to_numpy(dtype=float))) for _r, _f, d, _a, _e, _b in drawn)
    for _r, f, _d, _a, _e, _b in drawn:
        hi = finite_float(f.get("steady_ci_high"))
        y_hi = max(y_hi, hi or 0.0)
    y_scale = alt.Scale(domain=[0, y_hi * 1.05], nice=True, zero=True)
    panels = []
    for run, fit, d, ax, extra, binned in drawn:
        fit_axis = fit.get("axis") or "step"
        kx = k[ax]
        pd_ = d.copy()
        pd_["x"] = pd_[ax] * kx
        pred = _is_predicted(run)
        label = run_label(run.run_id, pred)
        end_key = "warmup_end_step" if ax == "step" else "warmup_end_t_s"
        w_end = finite_float(fit.get(end_key))
        x0, x1 = float(d[ax].min()), float(d[ax].max())
        title = _AXIS_TITLES[ax]
        x = alt.X("x:Q", title=title, scale=alt.Scale(domain=[0, x_hi], nice=False))
        layers = []
        if w_end is not None and w_end > x0:
            shade = pd.DataFrame({"x0": [x0 * kx], "x1": [min(w_end, x1) * kx], "region": ["warm-up"]})
            layers.append(
                alt.Chart(shade)
                .mark_rect(opacity=0.18, color="#ff9900")
                .encode(x=alt.X("x0:Q", title=title, scale=alt.Scale(domain=[0, x_hi], nice=False)), x2="x1:Q",
                        tooltip=["region:N"])
            )
        lo, hi, mean = (finite_float(fit.get(k_)) for k_ in ("steady_ci_low", "steady_ci_high", "steady_mean"))
        s0 = w_end if (w_end is not None and w_end > x0) else x0
        if lo is not None and hi is not None:
            band = pd.DataFrame({"x0": [s0 * kx], "x1": [x1 * kx], "lo": [lo], "hi": [hi]})
            layers.append(
                alt.Chart(band).mark_rect(opacity=0.25, color="#2ca02c")
                .encode(x="x0:Q", x2="x1:Q", y=alt.Y("lo:Q", scale=y_scale), y2="hi:Q")
            )
        color = _ROLE_COLORS.get(run.role, "#7f7f7f")
        y_enc = alt.Y(f"{metric}:Q", title=metric_title(metric), scale=y_scale)
        if binned:  # min-max per bin behind the mean: one-step stalls and spikes stay visible
            layers.append(
                alt.Chart(pd_)
                .mark_area(color=color, opacity=0.35, interpolate="step-after")
                .encode(x=x, y=alt.Y(f"{metric}_min:Q", title=metric_title(metric), scale=y_scale),
                        y2=f"{metric}_max:Q")
            )
        line = alt.Chart(pd_).mark_line(color=color, strokeWidth=1.2, strokeDash=[5, 3] if pred else [1, 0])
        layers.append(line.encode(x=x, y=y_enc))
        if mean is not None:
            layers.append(
                alt.Chart(pd.DataFrame({"x0": [s0 * kx], "x1": [x1 * kx], "y": [mean]}))
                .mark_rule(color="#2ca02c", strokeWidth=2)
                .encode(x="x0:Q", x2="x1:Q", y=alt.Y("y:Q", scale=y_scale))
            )
        xs = d[ax].to_numpy(dtype=float)
        curve = dict(fit.get("curve") or {})
        curve.setdefault("axis", fit_axis)
        if extra:  # the curve lives on the fit's axis: evaluate it there, draw it against this axis
            fx = d[fit_axis].to_numpy(dtype=float)
            f_end = finite_float(fit.get("warmup_end_step" if fit_axis == "step" else "warmup_end_t_s"))
            yc = curve_values(curve, fx, fit_axis, f_end, x0=float(run.table[fit_axis].min()))
        else:
            yc = curve_values(curve, xs, ax, w_end, x0=float(run.table[ax].min()))
        if yc is not None:
            layers.append(
                alt.Chart(pd.DataFrame({"x": xs * kx, "fit": yc}))
                .mark_line(color="black", strokeWidth=1.5, strokeDash=[2, 2])
                .encode(x="x:Q", y=alt.Y("fit:Q", scale=y_scale))
            )
        model = (fit.get("curve") or {}).get("model", "-")
        cls = fit.get("classification", "-")
        end_words = "-" if w_end is None else (f"{w_end / 60:,.1f} min" if ax == "t_s" else f"step {w_end:,.0f}")
        subtitle = [
            f"{cls}; warm-up ends at {end_words}; fitted curve: {model}",
            ("line: mean per bin; light band: min-max per bin (stalls stay visible); " if binned else "")
            + "steady level = work done / time taken (stalls included)",
        ]
        panels.append(
            alt.layer(*layers).properties(
                width=WIDTH, height=HEIGHT - 40,
                title=alt.TitleParams(text=f"{label} [{run.role or 'no role'}]", subtitle=subtitle))
        )
    chart = alt.vconcat(*panels, spacing=14)
    if len(runs) > MAX_PANELS:
        chart = chart.properties(title=f"the first {MAX_PANELS} of {len(runs)} runs")
    return _configure(chart)


def _fmt(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def overlay(runs: Sequence[Any], axis: str = "step", metric: str | None = None, fits: Sequence[Mapping[str, Any]] = ()) -> Any:
    """Co-located and remote runs overlaid on one panel: colour by role, one line per run,
    predicted runs dashed and labelled."""
    alt = _alt()
    if not runs:
        raise ReportError("no runs to draw")
    fits = _as_dicts(fits)
    metric = _pick_metric(runs, fits, metric)
    per_run = max(1, min(POINTS_PER_RUN, MAX_ROWS // max(1, len(runs))))  # all runs together <= MAX_ROWS
    frames = []
    for run in runs:
        if metric not in run.table:
            continue
        ax = _axis_of(run, axis)
        d = downsample(run.table, ax, [metric], per_run).dropna(subset=[metric]).rename(columns={ax: "x"})
        pred = _is_predicted(run)
        d["run"] = run_label(run.run_id, pred)
        d["role"] = run.role or "unknown"
        d["kind"] = "predicted" if pred else "measured"
        frames.append(d)
    if not frames:
        raise ReportError(f"no run has data for metric {metric!r} to draw")
    data = pd.concat(frames, ignore_index=True)
    roles = sorted(data["role"].unique())
    chart = (
        alt.Chart(data)
        .mark_line(strokeWidth=1.3)
        .encode(
            x=alt.X("x:Q", title=_AXIS_TITLES.get(axis, axis) if axis != "t_s" else "time since start (s)"),
            y=alt.Y(f"{metric}:Q", title=metric_title(metric), scale=alt.Scale(zero=False)),
            color=alt.Color(
                "role:N",
                title="role",
                scale=alt.Scale(domain=roles, range=[_ROLE_COLORS.get(r if r != "unknown" else "", "#7f7f7f") for r in roles]),
            ),
            strokeDash=alt.StrokeDash(
                "kind:N", title="kind", scale=alt.Scale(domain=["measured", "predicted"], range=[[1, 0], [5, 3]])
            ),
            detail="run:N",
            tooltip=["run:N", "role:N", "kind:N"],
        )
        .properties(width=WIDTH, height=HEIGHT + 60, title="co-located vs remote")
    )
    return _configure(chart)
