"""What the ``notebooks/whatif.ipynb`` notebook calls: parameters, one what-if evaluation (prediction plus
cost), the comparison with the published reference ranges, and charts (pure: the ipywidgets sliders that
drive it are :func:`costmodel.interactive.whatif_sliders`).

The notebook holds no logic: every cell calls a function here, so the same numbers come out of the
notebook in batch (papermill), of the widgets, and of ``costmodel simulate`` / ``costmodel cost``.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..foundation.errors import SimulateError
from ..foundation.fields_json import FieldsJson, JsonKeys
from ..foundation.resources import PACKAGE_DIR
from ..foundation.util import require
from .simulator import SimulationResult, simulate
from .workload import PATTERNS, SCENARIO_INPUTS, load_workload_doc

REPO = PACKAGE_DIR  # relative defaults (data/examples/...) resolve inside the installed package


@dataclass(frozen=True)
class Param:
    default: Any
    help: str


#: The notebook's papermill parameters (the ``parameters`` cell mirrors these defaults).
PARAMETERS: dict[str, Param] = {
    "scenario": Param("data/examples/whatif.yaml", "scenario YAML with a workload: section"),
    "seed": Param(0, "random seed of the trace and the predictor"),
    "overrides": Param({}, "dotted key paths to change, e.g. {'link.rtt_ms': 100}"),
    "widget_scale": Param(0.005, "dataset and cache scale for the sliders (whole epochs are simulated)"),
    "interactive": Param(True, "show the ipywidgets sliders"),
    "summary_json": Param("", "write the prediction summary and the comparison here (JSON) when set"),
}

#: Published ranges of the reference case (shared/reference/validation.md): (metric, low, high, what).
PUBLISHED: list[tuple[str, float, float, str]] = [
    ("cold_samples_per_s", 95.0, 105.0, "spoke, batches 0-100 (cold), samples/s"),
    ("cold_gpu_util", 0.80, 0.90, "spoke, batches 0-100 (cold), GPU utilisation"),
    ("warming_samples_per_s", 113.0, 117.0, "spoke, batches 100-150 (warming), samples/s ('about 115')"),
    ("warmup_end_step", 100.0, 150.0, "spoke, end of warm-up (batch)"),
    ("steady_samples_per_s", 115.0, 117.0, "spoke after warm-up, samples/s"),
    ("steady_hit_ratio", 0.94, 0.96, "spoke after warm-up, share of reads from the local cache"),
    ("steady_read_latency_s", 0.0, 0.005, "spoke after warm-up, read latency (s, 'under 5 ms')"),
    ("colocated_samples_per_s", 115.0, 117.0, "hub, whole run, samples/s"),
    ("colocated_read_latency_s", 0.002, 0.003, "hub, read latency (s)"),
]


def resolve(path: str) -> Path:
    """``path`` as given when it exists, else relative to the repository (notebooks run from notebooks/)."""
    p = Path(path)
    if p.exists() or p.is_absolute():
        return p
    alt = REPO / p
    return alt if alt.exists() else p


def validate_parameters(ns: Mapping[str, Any]) -> dict[str, Any]:
    """Check the notebook's parameters (papermill checks nothing) and return them as a dict.

    Raises SimulateError naming the parameter and what was expected.
    """
    from pydantic import ValidationError

    from ..contracts.errors import raise_validation_error
    from ..contracts.workload import WhatIfParameters

    given = {name: ns[name] for name in PARAMETERS if name in ns}
    if isinstance(given.get("widget_scale"), int) and not isinstance(given.get("widget_scale"), bool):
        given["widget_scale"] = float(given["widget_scale"])  # papermill -p widget_scale 1 arrives as an int
    try:
        p = WhatIfParameters.model_validate(given)
    except ValidationError as exc:
        raise_validation_error(exc, SimulateError, model=WhatIfParameters, key_format="parameter {}")
    if not resolve(p.scenario).is_file():
        raise SimulateError(f"parameter scenario: no such file {p.scenario!r}", key="scenario")
    return dict(p.model_dump(), scenario=str(resolve(p.scenario)))


@dataclass
class WhatIf(FieldsJson):
    """One what-if evaluation: the prediction, and the cost of the options fed by it (when available)."""

    result: SimulationResult
    cost: Any | None
    cost_error: str | None
    scenario_overrides: dict[str, Any]

    JSON = JsonKeys(keys=("summary=result.summary", "cost", "cost_error", "scenario_overrides"))


def scaled_overrides(doc: Mapping[str, Any], scale: float) -> dict[str, Any]:
    """Overrides that shrink the dataset, its files and the cache by ``scale`` and simulate whole runs.

    Under the same access pattern, hit ratios depend on capacity / dataset, which scaling keeps; the
    number of steps per epoch shrinks by ``scale``. Used by the sliders to see whole epochs quickly.
    """
    w = doc["workload"]
    d = w.get("dataset", {})
    out: dict[str, Any] = {
        "workload.dataset.samples": max(1, int(float(d.get("samples", 1)) * scale)),
        "workload.dataset.files": max(1, int(float(d.get("files", 1)) * scale)),
        "workload.simulation.max_steps": None,
    }
    cap = w.get("cache", {}).get("capacity_bytes")
    if cap is not None:
        out["workload.cache.capacity_bytes"] = float(cap) * scale
    return out


def evaluate_whatif(scenario: str | Mapping[str, Any], overrides: Mapping[str, Any] | None = None,
                    seed: int = 0) -> WhatIf:
    """Simulate the scenario's workload, then price the options with the predicted hit ratio, warm-up loss
    and steady slowdown written into the scenario's ``cache:`` section (``costmodel.cost``)."""
    doc, _src = load_workload_doc(scenario)
    sim_overrides = {k: v for k, v in (overrides or {}).items()
                     if k.startswith("workload.") or k in SCENARIO_INPUTS}  # the rest prices the options only
    res = simulate(doc, seed=seed, overrides=sim_overrides)
    sc = res.scenario_overrides()
    _link_and_cache_from_workload(doc, res.workload, sc)
    epochs = res.workload.access.epochs
    if "training" in doc and float(epochs).is_integer():
        sc["training.epochs_per_run"] = int(epochs)
    cost, err = None, None
    cost_keys = {k for k in doc if k != "workload"}
    if cost_keys - {"name", "notes"}:
        try:
            from ..cost import evaluate, scenario_from_dict

            base = dict(doc.items())
            for k, v in (overrides or {}).items():
                if not k.startswith("workload."):
                    sc[k] = v
            scen = scenario_from_dict(base, overrides=[f"{k}={v}" for k, v in sc.items()])
            cost = evaluate(scen)
        except ImportError as exc:  # pragma: no cover - the cost package is part of costmodel
            err = f"costmodel.cost unavailable: {exc}"
        except Exception as exc:  # noqa: BLE001 - a cost problem must not hide the prediction
            err = f"{type(exc).__name__}: {exc}"
    return WhatIf(res, cost, err, sc)


def _link_and_cache_from_workload(doc: Mapping[str, Any], w: Any, sc: dict[str, Any]) -> None:
    """The cost scenario's ``cache.capacity_gb`` (the simulated cache at the cost dataset's full size: the
    same capacity / dataset ratio) and ``link.bandwidth_gbps`` follow the simulated workload, so the cost
    model bounds the warm hit ratio and times the copy with the cache and link the sliders chose."""
    try:
        ds_bytes = float(w.dataset.samples) * float(w.dataset.sample_bytes)
        cap = float(w.cache.capacity_bytes)
        size_gb = float((doc.get("dataset") or {}).get("size_gb"))  # type: ignore[arg-type]  # None raises TypeError: caught
    except (AttributeError, TypeError, ValueError):
        return
    if ds_bytes > 0 and cap > 0 and size_gb > 0:
        sc["cache.capacity_gb"] = round(cap / ds_bytes * size_gb, 6)
    bw = getattr(w.link, "bandwidth_bytes_per_s", None)
    if isinstance(bw, (int, float)) and bw > 0 and isinstance(doc.get("link"), Mapping):
        link = doc["link"]
        key = "link.bandwidth_gbit_s" if "bandwidth_gbit_s" in link else "link.bandwidth_gbps"
        sc[key] = round(float(bw) * 8 / 1e9, 9)


def _window(table: pd.DataFrame, lo: int, hi: int) -> pd.DataFrame:
    return table[(table["step"] >= lo) & (table["step"] < hi)]


def published_comparison(result: SimulationResult) -> pd.DataFrame:
    """The prediction next to each published range of the reference case, with ``within`` True/False."""
    t = result.runs[0].table
    s = result.summary
    co = result.colocated.table if result.colocated is not None else None
    cold = _window(t, 1, 100)
    warming = _window(t, 100, 150)
    values = {
        "cold_samples_per_s": float(cold["samples"].sum() / cold["step_time_s"].sum()) if len(cold) else math.nan,
        "cold_gpu_util": float(cold["gpu_util"].mean()) if len(cold) else math.nan,
        "warming_samples_per_s": float(warming["samples"].sum() / warming["step_time_s"].sum()) if len(warming) else math.nan,
        "warmup_end_step": float(s["warmup_end_step"]),
        "steady_samples_per_s": float(s["steady_samples_per_s"]),
        "steady_hit_ratio": float(s["steady_hit_ratio"]),
        "steady_read_latency_s": float(s["steady_read_latency_s"]),
        "colocated_samples_per_s": float(s.get("colocated_samples_per_s", math.nan)),
        "colocated_read_latency_s": float(co["read_latency_s"].mean()) if co is not None else math.nan,
    }
    rows = []
    for key, lo, hi, what in PUBLISHED:
        v = values[key]
        rows.append({"metric": key, "published": what, "low": lo, "high": hi, "predicted": v,
                     "within": bool(lo <= v <= hi) if math.isfinite(v) else False})
    return pd.DataFrame(rows)


def curve_frame(result: SimulationResult, max_points: int = 1500) -> pd.DataFrame:
    """Long table (step, t_s, series, panel, value) of the predicted samples/s, hit ratio and the
    co-located samples/s, pre-aggregated to at most ``max_points`` equal-width step bins per series
    (the bin's mean step, t_s and value, :func:`costmodel.charts.downsample`), so the three series stay
    under Altair's 5,000-row limit (:data:`costmodel.charts.MAX_ROWS`) however long the run."""
    from ..charts import MAX_ROWS, downsample

    n_series = 3 if result.colocated is not None else 2
    per_series = max(1, min(int(max_points), (MAX_ROWS - 1) // n_series))
    t = result.runs[0].table
    frames = []
    for col, name in (("samples_per_s", "samples/s (predicted remote)"),
                      ("cache_hit_ratio", "cache hit ratio (predicted)")):
        f = downsample(t, "step", ["t_s", col], per_series).rename(columns={col: "value"})
        f["series"] = name
        f["panel"] = "samples/s" if col == "samples_per_s" else "hit ratio"
        frames.append(f)
    if result.colocated is not None:
        c = downsample(result.colocated.table, "step", ["t_s", "samples_per_s"], per_series)
        c = c.rename(columns={"samples_per_s": "value"})
        c["series"] = "samples/s (predicted co-located)"
        c["panel"] = "samples/s"
        frames.append(c)
    return pd.concat(frames, ignore_index=True)


def curve_chart(result: SimulationResult) -> Any:
    """Altair chart: predicted samples/s (remote and co-located) and hit ratio per step, labelled predicted."""
    alt = require("altair", "report", "the what-if charts")

    df = curve_frame(result)
    wu = result.summary["warmup_end_step"]
    base = alt.Chart(df).encode(x=alt.X("step:Q", title="step (batch)"))
    top = base.transform_filter(alt.datum.panel == "samples/s").mark_line().encode(
        y=alt.Y("value:Q", title="samples/s", scale=alt.Scale(zero=False)), color=alt.Color("series:N", title=None))
    rule = alt.Chart(pd.DataFrame({"step": [wu]})).mark_rule(strokeDash=[4, 4]).encode(x="step:Q")
    bottom = base.transform_filter(alt.datum.panel == "hit ratio").mark_line(color="#4c78a8").encode(
        y=alt.Y("value:Q", title="cache hit ratio", scale=alt.Scale(domain=[0, 1])))
    title = f"PREDICTED by costmodel simulate: {result.runs[0].run_id} (warm-up ends at step {wu})"
    return alt.vconcat((top + rule).properties(width=560, height=200, title=title),
                       (bottom + rule).properties(width=560, height=120))


def cost_frame(whatif: WhatIf) -> pd.DataFrame:
    """Total and per-month USD of each option, from the cost model fed by the prediction."""
    if whatif.cost is None:
        return pd.DataFrame(columns=["option", "total_usd", "per_month_usd", "cheapest"])
    d = whatif.cost.to_dict()
    rows = [{"option": k, "total_usd": v["total_usd"], "per_month_usd": v["per_month_usd"],
             "cheapest": k == d["cheapest"]} for k, v in d["options"].items()]
    return pd.DataFrame(rows)


def cost_chart(whatif: WhatIf) -> Any:
    alt = require("altair", "report", "the what-if charts")

    df = cost_frame(whatif)
    return alt.Chart(df).mark_bar().encode(
        x=alt.X("total_usd:Q", title="total over the horizon (USD)"), y=alt.Y("option:N", title=None),
        color=alt.Color("cheapest:N", title="cheapest")).properties(
        width=560, height=90, title="Cost of the options with the PREDICTED hit ratio and warm-up")


def summary_frame(result: SimulationResult) -> pd.DataFrame:
    """The headline numbers as a two-column table."""
    s = result.summary
    rows = [
        ("warm-up ends at step", s["warmup_end_step"]),
        ("warm-up ends at (s)", round(s["warmup_end_t_s"], 1)),
        ("cold samples/s", round(s["cold_samples_per_s"], 1)),
        ("steady samples/s", round(s["steady_samples_per_s"], 1)),
        ("co-located samples/s", round(s.get("colocated_samples_per_s", math.nan), 1)),
        ("steady hit ratio", round(s["steady_hit_ratio"], 4)),
        ("cross-region GB per epoch (mean over the run's epochs)", round(s["cross_region_bytes_per_epoch"] / 1e9, 2)),
        ("cross-region GB by epoch", ", ".join(f"{b / 1e9:,.1f}" for b in s.get("cross_region_bytes_by_epoch") or [])),
        ("cross-region GB per run", round(s["cross_region_bytes_per_run"] / 1e9, 2)),
        ("cluster time lost to warm-up (s)", round(s.get("warmup_lost_s", math.nan), 1)),
        ("steps simulated / per run", f"{s['steps_simulated']:,} / {s['steps_per_run']:,}"
         + (" (extrapolated)" if s["extrapolated"] else "")),
    ]
    return pd.DataFrame(rows, columns=["prediction", "value"])


def slider_overrides(rtt_ms: float, bandwidth_gbit_s: float, cache_gb: float, epochs: int, pattern: str,
                     scale: float) -> dict[str, Any]:
    """Scenario overrides for one position of the sliders (cache size in decimal GB at full scale)."""
    if pattern not in PATTERNS:
        raise SimulateError(f"pattern: unknown {pattern!r}; expected one of {', '.join(PATTERNS)}", key="pattern")
    out = {
        "link.rtt_ms": float(rtt_ms),
        "workload.link.bandwidth_bytes_per_s": float(bandwidth_gbit_s) * 1e9 / 8,
        "workload.cache.capacity_bytes": float(cache_gb) * 1e9 * scale,
        "workload.access.pattern": pattern,
    }
    if pattern != "single_pass":
        out["workload.access.epochs"] = int(epochs)
    return out

