"""Display helpers for the report notebook: escaped HTML tables and text (every string from an
input is escaped), and the tables of each section."""
from __future__ import annotations

import contextlib
import html
import math
import re
from typing import Any, Mapping, Sequence

from ..errors import ReportError
from .stages import fit_dicts



class _HTML:
    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_html_(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return re.sub(r"<[^>]+>", "", self.text)[:2000]


def html_table(df: Any, caption: str = "", max_rows: int = 200) -> _HTML:
    """An escaped HTML table of a DataFrame (pandas escapes cell text; the caption is escaped here)."""
    cap = f"<p><b>{html.escape(caption)}</b></p>" if caption else ""
    body = df.head(max_rows).to_html(
        index=False, escape=True, na_rep="-", border=0, classes="cm-table", float_format=_fmt_float
    )
    more = f"<p>({len(df) - max_rows} more rows not shown)</p>" if len(df) > max_rows else ""
    return _HTML(cap + body + more)


def _fmt_float(x: float) -> str:
    """Six significant digits, thousands separated: readable tables, no float noise."""
    if not math.isfinite(x):
        return "-"
    return f"{x:,.0f}" if abs(x) >= 1e6 else f"{x:,.6g}"


def html_text(text: str, tag: str = "p") -> _HTML:
    """A paragraph (or heading) of escaped text."""
    if tag not in ("p", "h3", "h4", "pre", "b"):
        raise ReportError(f"html_text: tag {tag!r} not allowed")
    return _HTML(f"<{tag}>{html.escape(str(text))}</{tag}>")


def show(*objs: Any) -> None:
    """Display objects in the notebook (no-op outside IPython)."""
    with contextlib.suppress(ImportError):
        from IPython.display import display

        for o in objs:
            display(o)


def fit_table(fits: Sequence[Any], runs: Sequence[Any] = ()):  # -> DataFrame
    """One row per fit: run, classification, warm-up end (step, s), steady mean and CI, curve, lost_s."""
    import pandas as pd

    fits = fit_dicts(fits)
    pred = {r.run_id: bool(r.metadata.get("predicted", False)) for r in runs}
    rows = []
    for f in fits:
        curve = f.get("curve") or {}
        rid = str(f.get("run_id"))
        rows.append(
            {
                "run": rid + (" (predicted)" if pred.get(rid) else ""),
                "metric": f.get("metric"),
                "classification": f.get("classification"),
                "warm-up end (step)": f.get("warmup_end_step"),
                "warm-up end (s)": f.get("warmup_end_t_s"),
                "steady mean": f.get("steady_mean"),
                "95 % CI low": f.get("steady_ci_low"),
                "95 % CI high": f.get("steady_ci_high"),
                "steady CV": f.get("steady_cv"),
                "curve": curve.get("model"),
                "tau (steps)": curve.get("tau_steps"),
                "r2": curve.get("r2"),
                "lost (cluster-s)": f.get("lost_s"),
            }
        )
    return pd.DataFrame(rows)


def compare_table(compare: Mapping[str, Any] | None):  # -> DataFrame
    """The comparison's headline figures as (quantity, value) rows."""
    import pandas as pd

    if not compare:
        return pd.DataFrame({"quantity": ["comparison"], "value": ["not available (a side has no run)"]})
    keys = [
        ("ratio", "remote / co-located steady state"),
        ("ratio_ci_low", "ratio 95 % CI low"),
        ("ratio_ci_high", "ratio 95 % CI high"),
        ("equivalent", "equivalent (TOST)"),
        ("margin", "equivalence margin (fraction)"),
        ("remote_extra_warmup_s", "remote extra warm-up (s)"),
        ("remote_lost_s", "remote lost cluster-seconds (s)"),
    ]
    return pd.DataFrame([{"quantity": label, "value": _fmt_value(compare.get(k))} for k, label in keys])


def cost_table(cost: Mapping[str, Any]):  # -> DataFrame
    """One row per option: total and per-month USD, then each term."""
    import pandas as pd

    rows = []
    for name, opt in (cost.get("options") or {}).items():
        row = {"option": name, "total (USD)": opt.get("total_usd"), "per month (USD)": opt.get("per_month_usd")}
        for term, val in (opt.get("terms") or {}).items():
            row[term] = val.get("total_usd") if isinstance(val, Mapping) else val
        rows.append(row)
    return pd.DataFrame(rows)


def _fmt_value(v: Any) -> Any:
    if isinstance(v, float):
        return f"{v:.4g}"
    return v


def verdict_html(decision: Any) -> _HTML:
    """The verdict, its blockers and conditions, escaped."""
    d = decision.to_dict() if hasattr(decision, "to_dict") else dict(decision)
    colour = {"GO": "#2ca02c", "CONDITIONAL": "#ff9900", "NO_GO": "#d62728"}.get(d.get("verdict"), "#777")
    parts = [
        f'<p style="font-size:1.4em"><b>Verdict: <span style="color:{colour}">'
        f"{html.escape(str(d.get('verdict')))}</span></b></p>"
    ]
    for label, key, fmt in (
        ("Blockers", "blockers", lambda b: f"{b.get('id')}: {b.get('reason')}"),
        ("Conditions", "conditions", lambda c: f"{c.get('id')} ({c.get('severity')}, {c.get('answer')}): {c.get('condition')}"),
    ):
        if d.get(key):
            parts.append(f"<p><b>{label}</b></p><ul>")
            parts.extend(f"<li>{html.escape(str(fmt(x)))}</li>" for x in d[key])
            parts.append("</ul>")
    return _HTML("".join(parts))



def break_even_table(result: Mapping[str, Any]):  # -> DataFrame
    """One row per input: current value, break-even value (or never), the option cheaper above."""
    import pandas as pd

    rows = []
    for k, v in (result.get("break_even") or {}).items():
        rows.append(
            {
                "input": k,
                "unit": v.get("unit"),
                "current": v.get("current"),
                "break-even": "never" if v.get("never") else v.get("value"),
                "cheaper above": v.get("above") or "-",
                "cheaper now": v.get("winner_now"),
                "method": v.get("method"),
            }
        )
    return pd.DataFrame(rows)


def monte_carlo_table(result: Mapping[str, Any]):  # -> DataFrame
    """One row per option: probability of being cheapest and P5/P50/P95 of its total (USD)."""
    import pandas as pd

    mc = result.get("monte_carlo")
    if not mc:
        return pd.DataFrame({"Monte Carlo": ["not run (monte_carlo_n = 0)"]})
    return pd.DataFrame(
        [
            {
                "option": o,
                "P(cheapest)": mc["p_cheapest"].get(o),
                "P5 (USD)": mc["p5"].get(o),
                "P50 (USD)": mc["p50"].get(o),
                "P95 (USD)": mc["p95"].get(o),
            }
            for o in mc.get("p_cheapest", {})
        ]
    )
