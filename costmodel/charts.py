"""Altair charts for the report: plain data in (Runs, fit/compare/cost/decision dicts), chart out.

Every function returns an ``altair`` chart and computes nothing but what it draws. Charts are
rendered offline to inline SVG by :func:`to_svg` (vl-convert, no CDN, no JavaScript); :func:`show`
displays them in a notebook and fails loudly when a chart cannot be drawn (Altair's display hook
would swallow the error). Data beyond :data:`MAX_ROWS` rows is pre-aggregated (:func:`downsample`).
Predicted (simulated) runs are drawn dashed and labelled ``(predicted)`` (once: not when the run id
already says so, see :func:`run_label`).
"""
from __future__ import annotations

import contextlib
import itertools
import math
import re
import sys
import threading
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from .errors import ReportError

#: Altair refuses data beyond this many rows; charts pre-aggregate to stay under it.
MAX_ROWS = 5000
#: Points per run drawn in a timeline (bins of equal width on the x axis).
POINTS_PER_RUN = 400
#: Panels drawn by :func:`throughput` (one per run); further runs are only in :func:`overlay`.
MAX_PANELS = 12
WIDTH = 640
HEIGHT = 220
FONT_SIZE = 12

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
_AXIS_TITLES = {"step": "step (batch index)", "t_s": "time since start (s)"}
_ROLE_COLORS = {"colocated": "#1f77b4", "remote": "#d62728", "": "#7f7f7f"}


@contextlib.contextmanager
def lean_imports() -> Any:
    """Import heavy libraries (altair, nbformat, papermill) without jsonschema's optional
    ``rfc3987_syntax``: it builds a parser grammar at import (seconds on a busy machine) only to check
    the ``iri`` string format, which neither Altair nor nbformat uses. The block is lifted on exit, so
    a later explicit ``import rfc3987_syntax`` works as usual."""
    blocked = "rfc3987_syntax" not in sys.modules and "jsonschema._format" not in sys.modules
    if blocked:
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        if blocked and "rfc3987_syntax" in sys.modules and sys.modules["rfc3987_syntax"] is None:
            del sys.modules["rfc3987_syntax"]


_preload_thread: threading.Thread | None = None
_TINY_SPEC = {"mark": "point", "data": {"values": [{"x": 1}]}, "encoding": {"x": {"field": "x", "type": "quantitative"}}}


def preload() -> None:
    """Import Altair and start vl-convert's renderer in a background thread, so a notebook loads and
    fits its data meanwhile (two cores: the first chart no longer waits seconds). Idempotent; errors
    are left for the first real chart to report."""
    global _preload_thread
    if _preload_thread is not None:
        return
    import pandas  # noqa: F401 - imported here first: threads must not import the same package at once

    def work() -> None:
        with contextlib.suppress(Exception):
            _alt()
            import vl_convert as vlc

            vlc.vegalite_to_svg(_TINY_SPEC)

    _preload_thread = threading.Thread(target=work, name="costmodel-charts-preload", daemon=True)
    _preload_thread.start()


def _wait_preload() -> None:
    t = _preload_thread
    if t is not None and t is not threading.current_thread():
        t.join()


def _alt():  # noqa: ANN202 - lazy import keeps `import costmodel.charts` cheap
    _wait_preload()
    from .util import require

    with lean_imports():
        alt = require("altair", "report", "drawing charts")

    return alt


def metric_title(metric: str) -> str:
    """Axis title with the unit, e.g. ``samples_per_s`` -> ``samples_per_s (samples/s)``."""
    unit = _UNITS.get(metric)
    return f"{metric} ({unit})" if unit else metric


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
    plateau = _num(curve.get("plateau"))
    initial = _num(curve.get("initial"))
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
        tau = _num(curve.get("tau_steps" if axis == "step" else "tau_s"))
        if tau is None or tau <= 0:
            return None
        return plateau - gap * np.exp(-xr / tau)
    if model in ("ramp", "step"):
        t0 = _num(params.get("t0")) if same_axis else None
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
        tau, alpha = _num(params.get("tau")), _num(params.get("alpha"))
        if tau is None or alpha is None or tau <= 0:
            return None
        return plateau - gap * (1.0 + xr / tau) ** (-alpha)
    if model == "logistic":
        x0, sc = _num(params.get("x0")), _num(params.get("s"))
        if x0 is None or sc is None or sc <= 0:
            return None
        return initial + gap / (1.0 + np.exp(-np.clip((xr - x0) / sc, -500, 500)))
    return None


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


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


def throughput(
    runs: Sequence[Any],
    fits: Sequence[Mapping[str, Any]],
    axis: str = "step",
    metric: str | None = None,
) -> Any:
    """One panel per run: the metric over ``axis`` (``step`` or ``t_s``), the warm-up region shaded,
    the steady-state 95 % CI band and mean, and the fitted warm-up curve. Predicted runs are dashed."""
    alt = _alt()
    if axis not in _AXIS_TITLES:
        raise ReportError(f"axis must be 'step' or 't_s', got {axis!r}")
    if not runs:
        raise ReportError("no runs to draw")
    fits = _as_dicts(fits)
    metric = _pick_metric(runs, fits, metric)
    by_run = _fit_by_run(fits)
    panels = []
    for run in runs[:MAX_PANELS]:
        ax = _axis_of(run, axis)
        if metric not in run.table:
            continue
        fit = by_run.get((run.role or "", str(run.run_id))) or by_run.get(str(run.run_id), {})
        fit_axis = fit.get("axis") or "step"
        extra = [fit_axis] if fit_axis != ax and fit_axis in run.table and run.table[fit_axis].notna().any() else []
        d = downsample(run.table, ax, [metric, *extra], envelope=True)
        d = d.dropna(subset=[metric])
        binned = len(d) < int(run.table[metric].notna().sum())
        if d.empty:
            continue
        pred = _is_predicted(run)
        label = run_label(run.run_id, pred)
        end_key = "warmup_end_step" if ax == "step" else "warmup_end_t_s"
        w_end = _num(fit.get(end_key))
        x0, x1 = float(d[ax].min()), float(d[ax].max())
        x = alt.X(f"{ax}:Q", title=_AXIS_TITLES[ax], scale=alt.Scale(domain=[x0, x1], nice=False))
        layers = []
        if w_end is not None and w_end > x0:
            shade = pd.DataFrame({"x0": [x0], "x1": [min(w_end, x1)], "region": ["warm-up"]})
            layers.append(
                alt.Chart(shade)
                .mark_rect(opacity=0.18, color="#ff9900")
                .encode(x=alt.X("x0:Q", title=_AXIS_TITLES[ax]), x2="x1:Q", tooltip=["region:N"])
            )
        lo, hi, mean = (_num(fit.get(k)) for k in ("steady_ci_low", "steady_ci_high", "steady_mean"))
        s0 = w_end if (w_end is not None and w_end > x0) else x0
        if lo is not None and hi is not None:
            band = pd.DataFrame({"x0": [s0], "x1": [x1], "lo": [lo], "hi": [hi]})
            layers.append(
                alt.Chart(band)
                .mark_rect(opacity=0.25, color="#2ca02c")
                .encode(x="x0:Q", x2="x1:Q", y="lo:Q", y2="hi:Q")
            )
        color = _ROLE_COLORS.get(run.role, "#7f7f7f")
        y_enc = alt.Y(f"{metric}:Q", title=metric_title(metric), scale=alt.Scale(zero=False))
        if binned:  # min-max per bin behind the mean: one-step stalls and spikes stay visible
            layers.append(
                alt.Chart(d)
                .mark_area(color=color, opacity=0.35, interpolate="step-after")
                .encode(x=x, y=alt.Y(f"{metric}_min:Q", title=metric_title(metric), scale=alt.Scale(zero=False)), y2=f"{metric}_max:Q")
            )
        line = alt.Chart(d).mark_line(color=color, strokeWidth=1.2, strokeDash=[5, 3] if pred else [1, 0])
        layers.append(line.encode(x=x, y=y_enc))
        if mean is not None:
            layers.append(
                alt.Chart(pd.DataFrame({"x0": [s0], "x1": [x1], "y": [mean]}))
                .mark_rule(color="#2ca02c", strokeWidth=2)
                .encode(x="x0:Q", x2="x1:Q", y="y:Q")
            )
        xs = d[ax].to_numpy(dtype=float)
        curve = dict(fit.get("curve") or {})
        curve.setdefault("axis", fit_axis)
        if extra:  # the curve lives on the fit's axis: evaluate it there, draw it against this axis
            fx = d[fit_axis].to_numpy(dtype=float)
            f_end = _num(fit.get("warmup_end_step" if fit_axis == "step" else "warmup_end_t_s"))
            yc = curve_values(curve, fx, fit_axis, f_end, x0=float(run.table[fit_axis].min()))
        else:
            yc = curve_values(curve, xs, ax, w_end, x0=float(run.table[ax].min()))
        if yc is not None:
            layers.append(
                alt.Chart(pd.DataFrame({ax: xs, "fit": yc}))
                .mark_line(color="black", strokeWidth=1.5, strokeDash=[2, 2])
                .encode(x=f"{ax}:Q", y="fit:Q")
            )
        model = (fit.get("curve") or {}).get("model", "-")
        cls = fit.get("classification", "-")
        subtitle = [
            f"{cls}; warm-up ends at {_fmt(w_end)} ({ax}); curve: {model}; shaded: warm-up; green: steady state 95 % CI",
            ("line: mean per bin of steps; light band: min-max per bin (stalls stay visible); " if binned else "")
            + "steady levels are ratios of sums (work done / time taken over the window, stalls included)",
        ]
        panels.append(
            alt.layer(*layers).properties(
                width=WIDTH, height=HEIGHT, title=alt.TitleParams(text=f"{label} [{run.role or 'no role'}]", subtitle=subtitle)
            )
        )
    if not panels:
        raise ReportError(f"no run has data for metric {metric!r} to draw")
    chart = alt.vconcat(*panels)
    if len(runs) > MAX_PANELS:
        chart = chart.properties(title=f"the first {MAX_PANELS} of {len(runs)} runs (every run is in the overlay)")
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
            x=alt.X("x:Q", title=_AXIS_TITLES.get(axis, axis)),
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


_TERM_ORDER = ("cross_region", "replicate", "wait")
_OPTION_COLORS = {"cross_region": "#d62728", "replicate": "#1f77b4", "wait": "#7f7f7f"}


def cost_terms_frame(cost: Mapping[str, Any]) -> pd.DataFrame:
    """Long table (option, term, usd) of every cost term over the horizon, from ``CostResult.to_dict()``."""
    rows = []
    options = cost.get("options") or {}
    for name in list(_TERM_ORDER) + [k for k in options if k not in _TERM_ORDER]:
        opt = options.get(name)
        if not opt:
            continue
        terms = opt.get("terms") or {}
        for term, val in terms.items():
            usd = _term_usd(val)
            if usd is not None:
                rows.append({"option": name, "term": str(term), "usd": usd})
    if not rows:
        raise ReportError("the cost result has no option terms to draw")
    return pd.DataFrame(rows)


def _term_usd(val: Any) -> float | None:
    """A term is either a number (USD over the horizon) or a dict with ``total_usd``/``usd``."""
    if isinstance(val, Mapping):
        for k in ("total_usd", "usd", "horizon_usd"):
            if k in val:
                return _num(val[k])
        return None
    return _num(val)


def cost_terms(cost: Mapping[str, Any]) -> Any:
    """Cost terms stacked per option (USD over the horizon): one bar per option on its own scale
    (options can differ by orders of magnitude), the total in each panel's title."""
    alt = _alt()
    df = cost_terms_frame(cost)
    months = cost.get("horizon_months")
    title = f"cost over {months:g} months by term (each option on its own scale)" if isinstance(months, (int, float)) else "cost by term"
    panels = []
    for opt in df["option"].unique():
        part = df[(df["option"] == opt)]
        total = float(part["usd"].sum())
        nonzero = part[part["usd"] != 0]
        panels.append(
            alt.Chart(nonzero if not nonzero.empty else part)
            .mark_bar()
            .encode(
                x=alt.X("sum(usd):Q", title="USD over the horizon", stack="zero"),
                color=alt.Color("term:N", title="term"),
                tooltip=["term:N", alt.Tooltip("usd:Q", format=",.0f")],
            )
            .properties(width=WIDTH - 200, height=28, title=f"{opt}: USD {total:,.0f}")
        )
    return _configure(alt.vconcat(*panels, spacing=6).properties(title=title))


def break_even(
    curve: pd.DataFrame,
    input_name: str,
    value: float | None = None,
    above: str | None = None,
    unit: str | None = None,
) -> Any:
    """Total cost of cross-region and replicate (the break-even is between those two; other options
    are left out) against one input (``curve``: columns ``value``, ``option``, ``total_usd``), with a
    rule at the break-even value when there is one."""
    alt = _alt()
    need = {"value", "option", "total_usd"}
    if not need <= set(curve.columns):
        raise ReportError(f"break-even curve needs columns {sorted(need)}, got {sorted(curve.columns)}")
    pair = curve[curve["option"].isin(["cross_region", "replicate"])]
    curve = pair if not pair.empty else curve
    base = alt.Chart(curve).mark_line(point=True).encode(
        x=alt.X("value:Q", title=f"{input_name} ({unit})" if unit else input_name),
        y=alt.Y("total_usd:Q", title="cost over the horizon (USD)"),
        color=alt.Color("option:N", title="option"),
        tooltip=["option:N", alt.Tooltip("value:Q"), alt.Tooltip("total_usd:Q", format=",.0f")],
    )
    layers = [base]
    title = f"break-even on {input_name}: never in this range"
    v = _num(value)
    if v is not None:
        layers.append(alt.Chart(pd.DataFrame({"value": [v]})).mark_rule(color="black", strokeDash=[4, 4]).encode(x="value:Q"))
        title = f"break-even on {input_name} at {v:,.4g}" + (f"; {above} cheaper above" if above else "")
    return _configure(alt.layer(*layers).properties(width=WIDTH - 120, height=HEIGHT + 40, title=title))


def tornado_frame(tornado: Any) -> pd.DataFrame:
    """Normalise a tornado result to rows (input, low_usd, high_usd, base_usd, swing_usd).

    Accepts a DataFrame or a list of dicts with ``input``/``name`` and low/high outputs
    (``low_usd``/``high_usd`` or ``low_output``/``high_output``), or an object with ``to_dict()``.
    """
    if hasattr(tornado, "to_dict") and not isinstance(tornado, pd.DataFrame):
        tornado = tornado.to_dict()
    if isinstance(tornado, Mapping):
        tornado = tornado.get("rows") or tornado.get("inputs") or tornado.get("tornado") or [
            {"input": k, **v} for k, v in tornado.items() if isinstance(v, Mapping)
        ]
    df = pd.DataFrame(tornado)
    if df.empty:
        raise ReportError("the tornado result is empty")

    def col(*names: str) -> pd.Series:
        for n in names:
            if n in df.columns:
                return pd.to_numeric(df[n], errors="coerce")
        raise ReportError(f"tornado rows need one of {names}; got columns {list(df.columns)}")

    name = df["input"] if "input" in df.columns else df.get("name", df.get("key"))
    if name is None:
        raise ReportError(f"tornado rows need an 'input' name; got columns {list(df.columns)}")
    out = pd.DataFrame(
        {
            "input": name.astype(str),
            "low_usd": col("low_usd", "low_output", "delta_low_usd", "low"),
            "high_usd": col("high_usd", "high_output", "delta_high_usd", "high"),
        }
    )
    if {"base_usd", "base_output", "base_delta_usd"} & set(df.columns):
        out["base_usd"] = col("base_usd", "base_delta_usd", "base_output")
    else:
        out["base_usd"] = 0.0
    out["swing_usd"] = (out["high_usd"] - out["low_usd"]).abs()
    return out.sort_values("swing_usd", ascending=False).reset_index(drop=True)


def tornado(tornado_result: Any, output: str = "cross_region minus replicate (USD)") -> Any:
    """Tornado: for each input, the output at its low and high value around the base; widest first."""
    alt = _alt()
    df = tornado_frame(tornado_result)
    long = pd.concat(
        [
            df.assign(end="low value", usd=df["low_usd"]),
            df.assign(end="high value", usd=df["high_usd"]),
        ],
        ignore_index=True,
    )
    long["reach"] = -(long["usd"] - long["base_usd"]).abs()  # longer bar first, the shorter on top
    order = list(df["input"])
    bars = alt.Chart(long).mark_bar().encode(
        y=alt.Y("input:N", sort=order, title="input"),
        x=alt.X("base_usd:Q", title=output),
        x2="usd:Q",
        color=alt.Color("end:N", title="input at", scale=alt.Scale(domain=["low value", "high value"], range=["#9ecae1", "#3182bd"])),
        order=alt.Order("reach:Q"),
        tooltip=["input:N", "end:N", alt.Tooltip("usd:Q", format=",.0f")],
    )
    rule = alt.Chart(pd.DataFrame({"base": [float(df["base_usd"].iloc[0])]})).mark_rule(color="black").encode(x="base:Q")
    return _configure(
        alt.layer(bars, rule).properties(width=WIDTH - 160, height=22 * len(df) + 30, title="sensitivity (tornado)")
    )


def monte_carlo(samples: pd.DataFrame | Mapping[str, Sequence[float]], bins: int = 40) -> Any:
    """Distribution of each option's total cost over the Monte Carlo draws: one panel per option
    with its own bins (options differ by orders of magnitude), P5/P50/P95 marked."""
    alt = _alt()
    df = pd.DataFrame(samples)
    if df.empty:
        raise ReportError("no Monte Carlo samples to draw")
    if {"option", "total_usd"} <= set(df.columns):
        long = df[["option", "total_usd"]]
    else:
        long = df.melt(var_name="option", value_name="total_usd")
    long = long.dropna()
    panels = []
    order = [o for o in _TERM_ORDER if o in set(long["option"])] + sorted(set(long["option"]) - set(_TERM_ORDER))
    for opt in order:
        vals = long.loc[long["option"] == opt, "total_usd"].to_numpy(dtype=float)
        lo, hi = float(vals.min()), float(vals.max())
        if hi <= lo:
            hi = lo + max(1.0, abs(lo) * 1e-6)
        edges = np.linspace(lo, hi, bins + 1)
        counts, _ = np.histogram(vals, bins=edges)
        hist = pd.DataFrame({"option": opt, "x0": edges[:-1], "x1": edges[1:], "share": counts / max(1, counts.sum())})
        q = np.percentile(vals, [5, 50, 95])
        qs = pd.DataFrame({"q": ["P5", "P50", "P95"], "usd": q})
        bars = alt.Chart(hist).mark_rect(color=_OPTION_COLORS.get(opt, "#7f7f7f")).encode(
            x=alt.X("x0:Q", title=f"{opt}: total over the horizon (USD)", scale=alt.Scale(zero=False)),
            x2="x1:Q",
            y=alt.Y("share:Q", title="share of draws"),
            tooltip=[alt.Tooltip("share:Q", format=".1%")],
        )
        rules = alt.Chart(qs).mark_rule(color="black", strokeDash=[3, 3]).encode(x="usd:Q", tooltip=["q:N", alt.Tooltip("usd:Q", format=",.0f")])
        labels = alt.Chart(qs).mark_text(align="left", dx=3, dy=-4, fontSize=FONT_SIZE - 1).encode(
            x="usd:Q", y=alt.value(8), text="q:N"
        )
        panels.append(alt.layer(bars, rules, labels).properties(width=WIDTH - 120, height=110))
    n = len(long) // max(1, len(order))
    return _configure(alt.vconcat(*panels).properties(title=f"Monte Carlo: {n} draws (dashed: P5, P50, P95)"))


_STATUS_COLORS = {
    "pass": "#2ca02c", "ok": "#2ca02c", "yes": "#2ca02c", "met": "#2ca02c",
    "warning": "#ff9900", "condition": "#ff9900", "unknown": "#bbbbbb",
    "fail": "#d62728", "blocker": "#d62728", "no": "#d62728",
}


def checklist_frame(decision: Mapping[str, Any]) -> pd.DataFrame:
    """One row per checklist item: id, question, severity, answer, proposed, status (strings)."""
    items = decision.get("items") or []
    rows = []
    for i, it in enumerate(items):
        rows.append(
            {
                "order": i,
                "id": str(it.get("id", "")),
                "question": str(it.get("question", "")),
                "severity": str(it.get("severity", "")),
                "answer": str(it.get("answer", "")),
                "proposed": "" if it.get("proposed") is None else str(it.get("proposed")),
                "status": str(it.get("status", "")),
                "note": str(it.get("note", "") or ""),
            }
        )
    return pd.DataFrame(rows, columns=["order", "id", "question", "severity", "answer", "proposed", "status", "note"])


def checklist(decision: Mapping[str, Any]) -> Any:
    """Checklist as a chart table: one row per item, the status as a coloured cell, answer and question."""
    alt = _alt()
    df = checklist_frame(decision)
    if df.empty:
        raise ReportError("the decision has no checklist items to draw")
    df["question_short"] = [q if len(q) <= 90 else q[:87] + "..." for q in df["question"]]
    statuses = sorted(df["status"].unique())
    colors = [_STATUS_COLORS.get(s.lower(), "#9467bd") for s in statuses]
    y = alt.Y("id:N", sort=list(df["id"]), title=None)
    status = alt.Chart(df).mark_rect().encode(
        y=y, color=alt.Color("status:N", scale=alt.Scale(domain=statuses, range=colors), title="status")
    ).properties(width=24, height=22 * len(df))
    text_cols = []
    for col, width in (("answer", 60), ("proposed", 70), ("severity", 70), ("question_short", 520)):
        text_cols.append(
            alt.Chart(df)
            .mark_text(align="left", fontSize=FONT_SIZE - 1)
            .encode(y=alt.Y("id:N", sort=list(df["id"]), axis=None), x=alt.value(3), text=f"{col}:N")
            .properties(width=width, height=22 * len(df), title=col.replace("_short", ""))
        )
    verdict = decision.get("verdict", "")
    return _configure(alt.hconcat(status, *text_cols, spacing=4).properties(title=f"checklist: verdict {verdict}"))


def _configure(chart: Any) -> Any:
    return (
        chart.configure_axis(labelFontSize=FONT_SIZE, titleFontSize=FONT_SIZE + 1)
        .configure_legend(labelFontSize=FONT_SIZE, titleFontSize=FONT_SIZE)
        .configure_title(fontSize=FONT_SIZE + 3, subtitleFontSize=FONT_SIZE - 1, anchor="start")
        .configure_view(stroke="#cccccc")
    )


_counter = itertools.count(1)
_ID_RE = re.compile(r'\bid="([^"]+)"')
_REF_RE = re.compile(r'url\(#([^)]+)\)|href="#([^"]+)"')


def to_svg(chart: Any, prefix: str | None = None) -> str:
    """Render ``chart`` to a self-contained SVG string with vl-convert (no network).

    Element ids are prefixed (``prefix`` or a counter) so several charts inlined in one HTML page do
    not share clip-path ids. Raises :class:`ReportError` when the chart cannot be rendered.
    """
    _wait_preload()
    from .util import require

    vlc = require("vl_convert", "report", "rendering charts to SVG")
    try:
        spec = chart.to_dict() if hasattr(chart, "to_dict") else dict(chart)
        svg = vlc.vegalite_to_svg(spec)
    except Exception as exc:  # noqa: BLE001 - report a chart failure as our error, with its cause
        raise ReportError(f"chart could not be rendered: {type(exc).__name__}: {exc}") from exc
    p = prefix or f"cm{next(_counter)}"
    svg = _ID_RE.sub(lambda m: f'id="{p}-{m.group(1)}"', svg)
    svg = _REF_RE.sub(lambda m: f"url(#{p}-{m.group(1)})" if m.group(1) else f'href="#{p}-{m.group(2)}"', svg)
    return svg


class SVGFigure:
    """A rendered chart for notebooks: displays as inline SVG (``image/svg+xml``)."""

    def __init__(self, svg: str, title: str = "chart") -> None:
        self.svg = svg
        self.title = title

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"image/svg+xml": self.svg, "text/plain": f"<{self.title}>"}


def show(*charts: Any) -> None:
    """Render each chart to SVG and display it; raise (failing the cell) when one cannot be drawn."""
    figs = [SVGFigure(to_svg(c)) for c in charts]
    try:
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return
    for f in figs:
        display(f)


__all__ = [
    "MAX_ROWS",
    "lean_imports",
    "preload",
    "metric_title",
    "run_label",
    "downsample",
    "curve_values",
    "throughput",
    "overlay",
    "cost_terms_frame",
    "cost_terms",
    "break_even",
    "tornado_frame",
    "tornado",
    "monte_carlo",
    "checklist_frame",
    "checklist",
    "to_svg",
    "SVGFigure",
    "show",
]
