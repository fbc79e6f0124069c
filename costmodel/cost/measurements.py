"""Measurements into a cost Scenario: the cache inputs (warm-up lost, steady slowdown and its sampling
distribution, steady hit ratio) filled from a ``costmodel compare`` result or from Timeline runs, each
with its source recorded; and reading a compare result back (``--from-compare``).

Moved unchanged out of :mod:`costmodel.cost.scenario` (one job per module); import it from
:mod:`costmodel.cost` (``apply_measurements``) or from here.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..foundation.errors import ScenarioError
from ..foundation.util import finite_number
from .dists import Distribution
from .scenario import Scenario
from .spec import PARAM_BY_KEY

if TYPE_CHECKING:  # the pydantic result models load only when a compare result is read (start-up of `cost`)
    from ..contracts.results import CompareRecord


def apply_measurements(
    scenario: Scenario,
    compare: CompareRecord | Mapping[str, Any] | None = None,
    timeline_runs: Sequence[Any] | None = None,
    source: str = "",
) -> Scenario:
    """Fill cache inputs from measured results, recording the source of each filled value.

    From ``compare`` (a :class:`~costmodel.contracts.results.CompareRecord`, or the mapping
    ``costmodel compare --json`` prints, validated by that model once here): ``cache.warmup_lost_s`` <- ``remote_lost_s``;
    ``cache.steady_slowdown_fraction`` <- ``steady_slowdown_fraction`` or else ``max(0, 1 - ratio)``;
    ``cache.steady_hit_ratio`` <- ``remote_steady_hit_ratio`` when not null; ``cache.read_bytes_per_s`` <-
    ``remote_steady_read_bytes_per_s`` (the byte model's measured estimate, costmodel.cost.crossing). The
    slowdown gets its sampling distribution for Monte Carlo (:func:`slowdown_sampling`: Student-t on
    ``se_log_ratio`` and ``df``; the v2 triangle over the 95 % CI only when no sampling distribution can be
    built: no ratio, or neither a standard error nor a CI), and a warning when the CI includes a ratio of 1.
    A value given with ``--set`` is kept over a measured one (with a warning). From ``timeline_runs``
    (Runs; the ``remote`` ones when roles are set): ``cache.steady_hit_ratio`` <- the mean over runs of
    the mean ``cache_hit_ratio`` in each run's second half (the steady part). Null or absent fields leave
    the scenario's value. A measured value replaces the scenario file's (and its distribution).
    Raises ScenarioError for a measured value outside its range, a compare mapping with none of the
    measurement keys (not a compare result) or with a value of the wrong type (naming the key).
    """
    if scenario.base is not None:
        scenario = scenario.base  # measurements replace stated values; derivations are redone below
    values = dict(scenario.values)
    dists = dict(scenario.distributions)
    prov = dict(scenario.provenance)
    missing = list(scenario.missing)
    warnings = list(scenario.warnings)
    settings = dict(scenario.settings)
    src = source or "<measurements>"
    kept: set[str] = set()

    def put(key: str, v: float, what: str) -> None:
        param = PARAM_BY_KEY[key]
        if not math.isfinite(v) or not param.ok(v):
            raise ScenarioError(f"measured {what} = {v!r} is out of range; expected {param.expected()}", key=key, path=src)
        if prov.get(key, {}).get("source") == "--set":
            kept.add(key)
            warnings.append(f"{key}: kept the --set value {values[key]:g} over the measured {what} = {v:.6g}")
            return
        old = values.get(key)
        values[key] = float(v)
        dists.pop(key, None)
        prov[key] = {"value": float(v), "source": f"{what} from {src}", "replaced": old}
        if key in missing:
            missing.remove(key)

    if compare is not None:
        compare = _compare_model(compare, src)
        lost = compare.remote_lost_s
        if lost is not None:
            if lost < 0:
                warnings.append(f"cache.warmup_lost_s: measured remote_lost_s = {lost:g} < 0 (remote warmed faster); using 0")
                lost = 0.0
            put("cache.warmup_lost_s", lost, "compare remote_lost_s")
        slow, ratio = compare.steady_slowdown_fraction, compare.ratio
        key = "cache.steady_slowdown_fraction"
        if slow is None and ratio is not None:
            slow, what = max(0.0, 1.0 - ratio), "compare max(0, 1 - ratio)"
        else:
            what = "compare steady_slowdown_fraction"
        if slow is not None:
            put(key, max(0.0, slow), what)
        if slow is not None and key not in kept:
            ci_lo, ci_hi = compare.ratio_ci_low, compare.ratio_ci_high
            sampling = slowdown_sampling(compare)
            if sampling is not None:  # the estimate's own sampling distribution, not a clipped triangle
                dists[key] = sampling
                prov[key]["distribution"] = {**sampling.to_dict(), "from": sampling_source(compare)}
            elif ci_lo is not None and ci_hi is not None and ci_lo <= ci_hi:
                lo, hi = max(0.0, 1.0 - ci_hi), min(max(0.0, 1.0 - ci_lo), 0.999999)
                mode = min(max(values[key], lo), hi)
                if hi > lo:
                    dists[key] = Distribution("triangular", {"low": lo, "mode": mode, "high": hi})
                    prov[key]["distribution"] = {**dists[key].to_dict(), "from": "95 % CI of the throughput ratio"}
            if ci_lo is not None and ci_hi is not None and ci_lo <= 1.0 <= ci_hi and values[key] > 0:
                warnings.append(
                    f"{key}: the measured slowdown {values[key]:.4g} is not distinguishable from 0 (ratio 95 % CI "
                    f"[{ci_lo:.4g}, {ci_hi:.4g}] includes 1) yet costs "
                    "slowdown_usd; --set cache.steady_slowdown_fraction=0 to price it as none"
                )
        hit = compare.remote_steady_hit_ratio
        if hit is not None:
            put("cache.steady_hit_ratio", hit, "compare remote_steady_hit_ratio")
        read = compare.remote_steady_read_bytes_per_s
        rkey = "cache.read_bytes_per_s"
        if read is not None and math.isfinite(read) and read > 0:
            if settings.get(rkey) is None:
                settings[rkey] = float(read)
                prov[rkey] = {"value": float(read), "source": f"compare remote_steady_read_bytes_per_s from {src}"}
            elif abs(settings[rkey] - read) > 0.1 * read:
                warnings.append(f"{rkey}: the scenario's {settings[rkey]:g} bytes/s differs by more than 10 % from the "
                                f"measured remote steady read rate {read:.6g}; kept {settings[rkey]:g}")
        thr = _remote_samples_per_s(compare, settings.get("training.batch_samples"))
        if thr is not None:
            tkey = "training.samples_per_s"
            stated = settings.get(tkey)
            if stated is not None:
                if abs(stated - thr) > 0.1 * thr:
                    warnings.append(f"{tkey}: the scenario's {stated:g} samples/s differs by more than 10 % from the "
                                    f"measured remote steady throughput {thr:.6g} (compare pooled.remote.mean); kept {stated:g}")
            else:
                settings[tkey] = thr
                how = ("training.batch_samples / compare pooled.remote.mean step_time_s"
                       if compare.metric == "step_time_s" else "compare pooled.remote.mean")
                prov[tkey] = {"value": thr, "source": f"{how} from {src}"}
    if timeline_runs:
        hit = steady_hit_ratio_from_runs(timeline_runs)
        if hit is None:
            warnings.append(f"cache.steady_hit_ratio: the timeline {src} has no cache_hit_ratio values; not filled")
        else:
            put("cache.steady_hit_ratio", hit, "timeline steady cache_hit_ratio")
        thr = steady_mean_from_runs(timeline_runs, "samples_per_s")
        tkey = "training.samples_per_s"
        if thr is not None and thr > 0:
            stated = settings.get(tkey)
            if stated is None:
                settings[tkey] = thr
                prov[tkey] = {"value": thr, "source": f"timeline steady samples_per_s from {src}"}
            elif abs(stated - thr) > 0.1 * thr:
                warnings.append(f"{tkey}: the scenario's {stated:g} samples/s differs by more than 10 % from the "
                                f"timeline's steady {thr:.6g} samples/s; kept {stated:g}")
    from .resolve import finalize

    return finalize(replace(scenario, values=values, distributions=dists, provenance=prov, missing=missing,
                            warnings=warnings, settings=settings, base=None))


def slowdown_sampling(compare: CompareRecord) -> Distribution | None:
    """The sampling distribution of the measured steady slowdown ``d = 1 - ratio``: the compare
    estimates ``ln ratio`` with standard error ``se_log_ratio`` (or, without it, the 95 % CI's half-width in
    log space / 1.96) on ``df`` degrees of freedom, so ``ln ratio ~ ln r + se * t_df``; to first order
    (``se`` is small) ``d ~ (1 - r) + r*se * t_df``: a Student-t with location ``1 - r`` (the unclipped
    estimate), scale ``r*se`` and ``df`` (a normal when ``df`` is absent). Draws are not clipped at 0: the
    model is affine in ``d``, so the mean of the draws is the estimate. None without a ratio or an error."""
    r = compare.ratio
    if r is None or not math.isfinite(r) or r <= 0 or compare.metric_direction != "higher_is_better":
        return None
    se = compare.se_log_ratio
    if se is None or not math.isfinite(se) or se <= 0:
        lo, hi = compare.ratio_ci_low, compare.ratio_ci_high
        if lo is None or hi is None or not (0 < lo < hi):
            return None
        se = (math.log(hi) - math.log(lo)) / (2 * 1.959963984540054)
    df = compare.df
    params = {"mean": 1.0 - r, "sd": r * se}
    if df is not None and math.isfinite(df) and df > 0:
        params["df"] = float(df)
    return Distribution("student_t" if "df" in params else "normal", params)


def sampling_source(compare: CompareRecord) -> str:
    """Where :func:`slowdown_sampling` took its spread from (for the provenance)."""
    what = "se_log_ratio" if compare.se_log_ratio else "the 95 % CI of the ratio"
    return f"sampling distribution of 1 - ratio from the compare's {what}" + (f", df {compare.df:g}" if compare.df else "")


def _remote_samples_per_s(compare: CompareRecord, batch_samples: float | None = None) -> float | None:
    """The remote side's steady throughput in samples/s from a compare result: the pooled remote mean when the
    metric is samples/s, or ``batch_samples / mean step time`` when it is ``step_time_s`` and the scenario
    states ``training.batch_samples`` (None otherwise, or when the pooled mean is absent)."""
    metric = compare.metric
    if metric not in ("samples_per_s", "step_time_s"):
        return None
    remote = compare.pooled.get("remote")
    v = finite_number(remote.get("mean")) if isinstance(remote, Mapping) else None
    if v is None or v <= 0:
        return None
    if metric == "step_time_s":
        if batch_samples is None or not math.isfinite(batch_samples) or batch_samples <= 0:
            return None
        return float(batch_samples) / float(v)
    return float(v)


#: Keys :func:`apply_measurements` reads from a compare result.
COMPARE_MEASUREMENT_KEYS: tuple[str, ...] = (
    "remote_lost_s", "steady_slowdown_fraction", "ratio", "ratio_ci_low", "ratio_ci_high", "remote_steady_hit_ratio",
)


def compare_from_json(data: Any, source: str) -> dict[str, Any]:
    """The compare result in ``data`` (parsed JSON from ``source``): the object ``costmodel compare --json``
    prints, a one-element list of it, or a report's ``decision.json`` (its ``compare`` key), read by
    :func:`costmodel.contracts.read.read_compare` (the same reader as ``decide --compare``).

    Raises ScenarioError naming ``source`` and the missing keys when ``data`` is not compare output (a
    cost result, a fit list, ``{}``): it must carry the keys ``ratio`` and ``remote_lost_s`` (null allowed).
    """
    from ..contracts.read import read_compare

    return read_compare(data, source, ScenarioError).to_json_dict()


def _compare_model(compare: Any, src: str) -> CompareRecord:
    """``compare`` as the CompareRecord model: a model as it is; a mapping validated once (the keys
    ``ratio`` and ``remote_lost_s`` may be absent here, read as null). ScenarioError naming ``src`` when it
    has none of :data:`COMPARE_MEASUREMENT_KEYS` or a value of the wrong type."""
    from ..contracts.read import validate_result
    from ..contracts.results import READ_REQUIRED, CompareRecord

    if isinstance(compare, CompareRecord):
        return compare
    if not isinstance(compare, Mapping):
        raise ScenarioError("compare results must be a JSON object (costmodel compare --json)", path=src)
    if not any(k in compare for k in COMPARE_MEASUREMENT_KEYS):
        raise ScenarioError(
            "not a compare result: none of the keys " + ", ".join(COMPARE_MEASUREMENT_KEYS) + " is present",
            path=src)
    return validate_result(CompareRecord, {k: compare.get(k) for k in READ_REQUIRED["compare"]} | dict(compare), src,
                           ScenarioError)


def steady_hit_ratio_from_runs(runs: Sequence[Any]) -> float | None:
    """Mean over runs of the mean ``cache_hit_ratio`` over each run's second half (remote runs if any)."""
    return steady_mean_from_runs(runs, "cache_hit_ratio")


def steady_mean_from_runs(runs: Sequence[Any], column: str) -> float | None:
    """Mean over runs of the mean ``column`` over each run's second half (remote runs if any); None when
    no run has the column."""
    remote = [r for r in runs if getattr(r, "role", "") == "remote"]
    chosen = remote or list(runs)
    means = []
    for r in chosen:
        table = getattr(r, "table", None)
        if table is None or column not in table.columns:
            continue
        col = table[column].to_numpy(dtype=float)
        col = col[np.isfinite(col)]
        if col.size == 0:
            continue
        means.append(float(np.mean(col[col.size // 2 :])))
    return float(np.mean(means)) if means else None
