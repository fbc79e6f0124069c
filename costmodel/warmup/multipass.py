"""The multi-pass read client: pass 1 is the cold read, passes 2..n the warm state.

Levels are ratios of sums (bytes over seconds) over the passes. With only two or three passes the
answer is honest about what it cannot say: one warm pass gives a speed-up but no spread, and a
faster second pass may come from the client's page cache rather than the storage cache.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .series import Series


def multipass_summary(s: Series) -> dict[str, Any] | None:
    """``{cold_bytes_per_s, warm_bytes_per_s, speedup, passes, warm_cv, note}`` (metric units); None if < 2 passes."""
    n = s.n
    if n < 2:
        return None
    recorded = _recorded_cold(s)  # which passes the bench record says were cold (None: pass 1 is cold)
    unit = "bytes_per_s" if s.metric.endswith("bytes_per_s") else s.metric
    ck, wk = (f"cold_{unit}", f"warm_{unit}") if unit == "bytes_per_s" else ("cold_level", "warm_level")
    if recorded is not None and not (~recorded).any():
        return {ck: s.level(), wk: None,
            "passes": n, "metric": s.metric, "cold": s.level(), "warm": None, "speedup": None, "warm_cv": None,
            "warm_trend_last_vs_first": None, "too_short": n <= 4, "cold_passes": [int(x) for x in s.step],
            "note": f"every pass ({n}) was read cold, as the benchmark recorded it (page cache evicted before each "
                    "pass, e.g. --cold-every-pass): no warm level to report; the level is the cold throughput"
        }
    if recorded is not None and not (recorded[0] and not recorded[1:].any()):
        cold = s.level(mask=recorded) if recorded.any() else float("nan")
        warm = s.level(mask=~recorded)
        speed = warm / cold if cold > 0 else None
        return {ck: cold, wk: warm,
            "passes": n, "metric": s.metric, "cold": cold, "warm": warm, "speedup": speed, "warm_cv": None,
            "warm_trend_last_vs_first": None, "too_short": n <= 4,
            "cold_passes": [int(x) for x in s.step[recorded]], "warm_passes": [int(x) for x in s.step[~recorded]],
            "note": f"cold passes {[int(x) for x in s.step[recorded]]} and warm passes {[int(x) for x in s.step[~recorded]]} "
                    "as the benchmark recorded them"
        }
    cold = float(s.w[0] / s.d[0]) if s.d[0] > 0 else float(s.y[0])
    warm = float(np.sum(s.w[1:]) / np.sum(s.d[1:])) if np.sum(s.d[1:]) > 0 else float("nan")
    warm_rates = s.y[1:]
    cv = float(np.std(warm_rates, ddof=1) / np.mean(warm_rates)) if len(warm_rates) >= 2 and np.mean(warm_rates) > 0 else None
    speed = warm / cold if cold > 0 else None
    cache_note = ("a faster warm pass may come from the client's page cache, not the storage cache, "
                  "unless the client evicted its cached pages before pass 1")
    if n == 2:
        note = ("too_short: one cold and one warm pass; the speed-up is a single observation with no "
                "spread and no evidence that the warm level is stable; run at least 5 passes. " + cache_note)
    elif n <= 4:
        note = (f"too_short for a steady-state fit: {n - 1} warm passes give a mean and a rough spread "
                f"(CV {cv:.1%}) but no confidence interval worth quoting; run at least 5 passes. " + cache_note)
    else:
        note = f"{n - 1} warm passes, CV {cv:.1%}. " + cache_note
    # does the warm state still improve? compare the last warm pass with the first warm pass
    trend = float(s.y[-1] / s.y[1] - 1.0) if n >= 3 and s.y[1] > 0 else None
    if trend is not None and abs(trend) > 0.05:
        note += (f" The warm passes still change (last vs pass 2: {trend:+.0%}), so the warm level is not "
                 "settled yet.")
    unit = "bytes_per_s" if s.metric.endswith("bytes_per_s") else s.metric
    return {
        "passes": n,
        "metric": s.metric,
        "cold": cold,
        "warm": warm,
        f"cold_{unit}" if unit == "bytes_per_s" else "cold_level": cold,
        f"warm_{unit}" if unit == "bytes_per_s" else "warm_level": warm,
        "speedup": speed,
        "warm_cv": cv,
        "warm_trend_last_vs_first": trend,
        "too_short": n <= 4,
        "note": note,
    }


def _recorded_cold(s: Series) -> np.ndarray | None:
    """Per observation: was it a cold pass, as ``costmodel bench`` recorded it (``metadata['cold_passes']``, rows are
    passes)? None when the run does not say."""
    md = s.metadata or {}
    cold = md.get("cold_passes")
    if not isinstance(cold, list) or not isinstance(md.get("warm_passes"), list):
        return None
    return np.isin(s.step.astype("int64"), np.asarray(cold, dtype="int64"))

