"""Display helpers for the report notebook: escaped HTML tables and text (every string from an
input is escaped), and the tables of each section."""
from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

from ..checklist.cost_line import cost_robustness_line
from ..contracts.results import CompareRecord
from ..foundation.errors import ReportError
from ..foundation.util import jsonable_dicts


class _HTML:
    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_html_(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return re.sub(r"<[^>]+>", "", self.text)[:2000]


#: Column kinds :func:`html_table` knows: how a column is aligned, wrapped and formatted.
#: ``id`` names, roles, answers, severities, statuses (left, never broken); ``text`` questions and
#: notes (left, wrapped at word boundaries); ``path`` file names (left, broken only after ``/ _ . -``);
#: ``num`` 4 significant digits; ``int`` whole numbers; ``usd`` 2 decimals; ``pct`` a fraction shown as
#: a percentage; ``s`` seconds with 1 decimal; ``sha`` a SHA-256 shortened to 12 hex characters (the
#: full hash in the cell's ``title``); ``bool`` yes/no; ``numstr`` text already formatted as a number
#: (right-aligned, never broken); ``stack`` a ``(head, detail)`` pair: the head unbroken and bold, the
#: detail wrapped at word boundaries below it. Numbers are right-aligned with thousands separators.
COLUMN_KINDS = ("id", "text", "path", "num", "int", "usd", "pct", "s", "sha", "bool", "numstr", "stack")

_LEFT = "text-align:left"
_RIGHT = "text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums"
_STYLES = {
    "id": _LEFT + ";white-space:nowrap",
    "text": _LEFT + ";white-space:normal;word-break:normal;overflow-wrap:break-word;min-width:10em;max-width:30em",
    "path": _LEFT + ";white-space:normal;word-break:normal;overflow-wrap:normal",
    "sha": _LEFT + ";white-space:nowrap;font-family:monospace",
    "bool": _LEFT + ";white-space:nowrap",
    "stack": _LEFT + ";white-space:normal;word-break:normal;overflow-wrap:break-word;min-width:9em;max-width:26em",
}
_HEAD = "white-space:normal;word-break:normal;overflow-wrap:normal;vertical-align:bottom;"
_TABLE = "border-collapse:collapse;table-layout:auto;width:auto;margin:4px 0 12px 0;font-size:12px"
_CELL = "border:1px solid #ccc;padding:2px 6px;vertical-align:top;"
#: Kinds guessed from a column's name when the table does not say (e.g. ``Decision.table()``).
_NAME_KINDS = {
    "id": "id", "item": "id", "run": "id", "role": "id", "format": "id", "kind": "id", "metric": "id",
    "severity": "id", "answer": "id", "source": "id", "proposed": "id", "status": "id", "option": "id",
    "question": "text", "evidence": "text", "note": "text", "reason": "text", "condition": "text",
    "file": "path", "path": "path", "sha256": "sha",
}
_SHA_SHOWN = 12
_MISSING = "-"


def with_kinds(df: Any, **kinds: str) -> Any:
    """``df`` with its columns' display kinds recorded (``df.attrs["column_kinds"]``) for
    :func:`html_table`; keywords map a column name to one of :data:`COLUMN_KINDS`. Returns ``df``.
    Raises ReportError for an unknown kind."""
    bad = {k: v for k, v in kinds.items() if v not in COLUMN_KINDS}
    if bad:
        raise ReportError(f"with_kinds: unknown column kind(s) {bad}; expected one of {', '.join(COLUMN_KINDS)}")
    df.attrs["column_kinds"] = {**df.attrs.get("column_kinds", {}), **kinds}
    return df


def _kinds_of(df: Any, kinds: Mapping[str, str] | None) -> dict[str, str]:
    import pandas as pd

    given = {**df.attrs.get("column_kinds", {}), **(kinds or {})}
    out = {}
    for col in df.columns:
        kind = given.get(col) or _NAME_KINDS.get(str(col).lower())
        if kind is None:
            dtype = df[col].dtype
            if pd.api.types.is_bool_dtype(dtype):
                kind = "bool"
            elif pd.api.types.is_integer_dtype(dtype):
                kind = "int"
            elif pd.api.types.is_float_dtype(dtype):
                kind = "num"
            else:
                kind = "text"
        if kind not in COLUMN_KINDS:
            raise ReportError(f"html_table: column {col!r} has unknown kind {kind!r}")
        out[col] = kind
    return out


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float):
        return not math.isfinite(v)
    try:
        import pandas as pd

        return bool(pd.isna(v)) if not isinstance(v, (str, bytes, list, tuple, dict)) else False
    except (TypeError, ValueError):
        return False


def fmt_sig(x: float, digits: int = 4) -> str:
    """``x`` with ``digits`` significant digits, thousands separated, no exponent between 1e-4 and 1e15
    (``116.004`` -> ``116.0``, ``0.00731648`` -> ``0.007316``, ``172800`` -> ``172,800``)."""
    if not math.isfinite(x):
        return _MISSING
    if x == 0:
        return "0"
    rounded = float(f"{x:.{digits - 1}e}")  # 9.99996 -> 10.00: the magnitude after rounding
    mag = math.floor(math.log10(abs(rounded)))
    if mag < -4 or mag >= 15:
        return f"{x:.{digits - 1}e}"
    return f"{rounded:,.{max(0, digits - 1 - mag)}f}"


def fmt_usd(x: float) -> str:
    """US dollars with 2 decimals and thousands separators (``482.313`` -> ``482.31``)."""
    return f"{x:,.2f}" if math.isfinite(x) else _MISSING


def fmt_pct(fraction: float) -> str:
    """A fraction as a percentage with 4 significant digits (``0.949937`` -> ``94.99 %``)."""
    if not math.isfinite(fraction):
        return _MISSING
    text = fmt_sig(fraction * 100.0)
    if "." in text and "e" not in text:
        text = text.rstrip("0").rstrip(".")  # 2.000 -> 2, 100.0 -> 100, 94.99 stays
    return f"{text} %"


def fmt_s(seconds: float) -> str:
    """Seconds with 1 decimal and thousands separators (``448.406`` -> ``448.4``)."""
    return f"{seconds:,.1f}" if math.isfinite(seconds) else _MISSING


def _int(x: float) -> str:
    return f"{x:,.0f}"


_NUMBER_FORMATS = {"num": fmt_sig, "numstr": fmt_sig, "int": _int, "usd": fmt_usd, "pct": fmt_pct, "s": fmt_s}


def _is_number(v: Any) -> bool:
    import numbers

    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def fmt_value(v: Any, kind: str = "num") -> str:
    """One value as shown in a table cell of ``kind`` (plain text, not yet escaped): missing -> ``-``,
    booleans -> yes/no, numbers by the kind's format (4 significant digits in a text column)."""
    if _is_missing(v):
        return _MISSING
    import numpy as np

    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if _is_number(v):
        return _NUMBER_FORMATS.get(kind, fmt_sig)(float(v))
    if kind == "sha":
        return str(v)[:_SHA_SHOWN]
    return str(v)


def _cell_html(v: Any, kind: str) -> str:
    if kind == "stack" and isinstance(v, (tuple, list)):
        head = html.escape(fmt_value(v[0] if v else None, "id"), quote=True)
        detail = " ".join(str(x) for x in v[1:] if not _is_missing(x) and str(x))
        below = f'<br><span style="font-size:0.92em">{html.escape(detail, quote=True)}</span>' if detail else ""
        return f'<span style="white-space:nowrap;font-weight:600">{head}</span>{below}'
    text = html.escape(fmt_value(v, kind), quote=True)
    if kind == "path":  # break long file names only after separators, never inside a word
        text = re.sub(r"(/|_|\.|-)", r"\1<wbr>", text)
    return text


def html_table(df: Any, caption: str = "", max_rows: int = 200, kinds: Mapping[str, str] | None = None) -> _HTML:
    """An HTML table of a DataFrame, every string escaped, each column aligned, wrapped and
    formatted by its kind (``kinds``, else ``df.attrs["column_kinds"]`` set by :func:`with_kinds`,
    else guessed from its name and dtype; see :data:`COLUMN_KINDS`). Styles are inline so the table
    reads the same in JupyterLab, the exported HTML and print. Raises ReportError for an unknown kind."""
    col_kinds = _kinds_of(df, kinds)
    cap = f"<p><b>{html.escape(caption)}</b></p>" if caption else ""
    head = []
    for col, kind in col_kinds.items():
        align = "text-align:right" if kind in ("num", "int", "usd", "pct", "s", "numstr") else "text-align:left"
        head.append(f'<th style="{_CELL}{_HEAD}{align}">{html.escape(str(col))}</th>')
    rows = []
    for rec in df.head(max_rows).itertuples(index=False, name=None):
        cells = []
        for (_col, kind), v in zip(col_kinds.items(), rec, strict=False):
            style = _CELL + _STYLES.get(kind, _RIGHT)
            title = ""
            if kind == "sha" and not _is_missing(v) and len(str(v)) > _SHA_SHOWN:
                title = f' title="{html.escape(str(v), quote=True)}"'
            cells.append(f'<td class="cm-{kind}" style="{style}"{title}>{_cell_html(v, kind)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    body = (
        f'<table class="cm-table" style="{_TABLE}"><thead><tr>{"".join(head)}</tr></thead>'
        f'<tbody>{"".join(rows)}</tbody></table>'
    )
    more = f"<p>({len(df) - max_rows} more rows not shown)</p>" if len(df) > max_rows else ""
    return _HTML(cap + body + more)


def html_text(text: str, tag: str = "p") -> _HTML:
    """A paragraph (or heading) of escaped text."""
    if tag not in ("p", "h3", "h4", "pre", "b"):
        raise ReportError(f"html_text: tag {tag!r} not allowed")
    return _HTML(f"<{tag}>{html.escape(str(text))}</{tag}>")


def show(*objs: Any) -> None:
    """Display objects in the notebook (no-op outside IPython; recorded inside
    :func:`costmodel.foundation.display_capture.capturing`, as the report's page is rendered in process)."""
    from ..foundation.display_capture import display

    display(*objs)


def fit_table(fits: Sequence[Any], runs: Sequence[Any] = ()):  # -> DataFrame
    """One row per fit: run over its metric, classification, warm-up end (step, s), steady mean, its
    95 % CI (text), CV, curve, tau, r2 and lost cluster-seconds (raw numbers otherwise; display
    kinds recorded for :func:`html_table`)."""
    import pandas as pd

    from ..charts import run_label

    fits = jsonable_dicts(fits)
    pred = {r.run_id: bool(r.metadata.get("predicted", False)) for r in runs}
    rows = []
    for f in fits:
        curve = f.get("curve") or {}
        rid = str(f.get("run_id"))
        lo, hi = f.get("steady_ci_low"), f.get("steady_ci_high")
        rows.append(
            {
                "run (metric)": (run_label(rid, pred.get(rid, False)), f.get("metric")),
                "classification": f.get("classification"),
                "warm-up end (step)": f.get("warmup_end_step"),
                "warm-up end (s)": f.get("warmup_end_t_s"),
                "steady mean": f.get("steady_mean"),
                "95 % CI": "-" if _is_missing(lo) or _is_missing(hi)
                else f"{fmt_sig(cast(float, lo))} – {fmt_sig(cast(float, hi))}",  # noqa: RUF001 - en dash in shown text
                "steady CV": f.get("steady_cv"),
                "curve": curve.get("model"),
                "tau (steps)": curve.get("tau_steps"),
                "r2": curve.get("r2"),
                "lost (cluster\u2011s)": f.get("lost_s"),
            }
        )
    df = pd.DataFrame(rows, columns=list(_FIT_KINDS))
    return with_kinds(df, **_FIT_KINDS)


_FIT_KINDS = {
    "run (metric)": "stack", "classification": "id", "warm-up end (step)": "int", "warm-up end (s)": "s",
    "steady mean": "num", "95 % CI": "numstr", "steady CV": "pct", "curve": "id", "tau (steps)": "num",
    "r2": "num", "lost (cluster\u2011s)": "s",
}

#: The comparison's rows: key, label, display kind.
_COMPARE_ROWS = (
    ("ratio", "remote / co-located steady state", "num"),
    ("ratio_ci_low", "ratio 95 % CI low", "num"),
    ("ratio_ci_high", "ratio 95 % CI high", "num"),
    ("equivalent", "equivalent (TOST)", "bool"),
    ("equivalence", "equivalence at the margin (as the checklist says)", "id"),
    ("margin", "equivalence margin", "pct"),
    ("remote_extra_warmup_s", "remote extra warm-up (s)", "s"),
    ("remote_lost_s", "remote lost cluster-seconds (s)", "s"),
)


def compare_table(compare: CompareRecord | Mapping[str, Any] | None):  # -> DataFrame
    """The comparison's headline figures as (quantity, value) rows; ``value`` is formatted text
    (ratios 4 significant digits, the margin as a percentage, seconds with 1 decimal)."""
    import pandas as pd

    if isinstance(compare, CompareRecord):
        compare = compare.to_json_dict()  # displayed as printed: a key the comparison lacks shows as missing
    if not compare:
        df = pd.DataFrame({"quantity": ["comparison"], "value": ["not available (a side has no run)"]})
        return with_kinds(df, quantity="text", value="text")
    rows = [{"quantity": label, "value": fmt_value(compare.get(k), kind)} for k, label, kind in _COMPARE_ROWS]
    return with_kinds(pd.DataFrame(rows), quantity="text", value="numstr")


def cost_table(cost: Mapping[str, Any]):  # -> DataFrame
    """One row per cost term, one column per option (USD over the horizon): total (at the expected value of
    the inputs) and per month first, the Monte Carlo P5 and P95 of the total when the result has them, then
    each term; ``-`` where a term does not apply to an option."""
    import pandas as pd

    options = dict(cost.get("options") or {})
    terms: list[str] = []
    for opt in options.values():
        terms += [t for t in (opt.get("terms") or {}) if t not in terms]
    rows = [
        {"USD": "total", **{o: opt.get("total_usd") for o, opt in options.items()}},
        {"USD": "per month", **{o: opt.get("per_month_usd") for o, opt in options.items()}},
    ]
    if any("p5_usd" in opt for opt in options.values()):  # the Monte Carlo range beside the headline
        rows.append({"USD": "P5 (Monte Carlo)", **{o: opt.get("p5_usd") for o, opt in options.items()}})
        rows.append({"USD": "P95 (Monte Carlo)", **{o: opt.get("p95_usd") for o, opt in options.items()}})
    for term in terms:
        row: dict[str, Any] = {"USD": term.removesuffix("_usd").replace("_", " ")}
        for o, opt in options.items():
            val = (opt.get("terms") or {}).get(term)
            row[o] = val.get("total_usd") if isinstance(val, Mapping) else val
        rows.append(row)
    df = pd.DataFrame(rows, columns=["USD", *options])
    return with_kinds(df, USD="id", **dict.fromkeys(options, "usd"))


def prices_table(cost: Mapping[str, Any]):  # -> DataFrame
    """The prices the cost used (``prices_used`` of ``costmodel cost --json``): the price with the unit it is
    billed per, the figure the model used (a per-instance price times the instance count is per cluster), its
    ``as_of`` date and age in days (``-`` for prices given in the scenario), and the source (wrapped, so the
    table fits an A4 page)."""
    import pandas as pd

    rows = []
    for u in cost.get("prices_used") or []:
        age = u.get("age_days")
        unit = str(u.get("unit") or "")
        per = unit.removeprefix("USD per ").removeprefix("USD/")
        price, used, mult = u.get("usd"), u.get("usd_used", u.get("usd")), u.get("multiplier")
        used_text = "same"
        if used is not None and price is not None and used != price:
            used_text = fmt_sig(float(used)) + (f" (x {float(mult):g})" if isinstance(mult, (int, float)) else "")
        rows.append({
            "input": u.get("key"),
            "price (USD)": price,
            "per": per,
            "used (USD)": used_text,
            "as of": u.get("as_of") or "-",
            "age (days)": "-" if age is None else f"{int(age)}" + (" (> 12 months)" if age > 365 else ""),
            "source": u.get("source"),
        })
    cols = ["input", "price (USD)", "per", "used (USD)", "as of", "age (days)", "source"]
    df = pd.DataFrame(rows, columns=cols)
    return with_kinds(df, input="path", **{"price (USD)": "num", "used (USD)": "text", "as of": "id",
                                           "age (days)": "id"}, per="text", source="text")


def verdict_html(decision: Any, cost: Mapping[str, Any] | None = None) -> _HTML:
    """The verdict, the cost robustness beside it (when ``cost``, the ``costmodel cost --json`` dict, is
    given), its blockers and conditions, escaped."""
    d = decision.to_dict() if hasattr(decision, "to_dict") else dict(decision)
    colour = {"GO": "#2ca02c", "CONDITIONAL": "#ff9900", "NO_GO": "#d62728"}.get(d.get("verdict") or "", "#777")
    parts = [
        (f'<p style="font-size:1.4em"><b>Verdict: <span style="color:{colour}">'
        f"{html.escape(str(d.get('verdict')))}</span></b></p>")
    ]
    line = cost_robustness_line(cost)
    if line:
        parts.append(f"<p><b>{html.escape(line)}</b></p>")
    for label, key, fmt in (
        ("Blockers", "blockers", lambda b: f"{b.get('id')}: {b.get('reason')}"),
        ("Conditions", "conditions", lambda c: f"{c.get('id')} ({c.get('severity')}, {c.get('answer')}): {c.get('condition')}"),
    ):
        if d.get(key):
            parts.append(f"<p><b>{label}</b></p><ul>")
            parts.extend(f"<li>{html.escape(str(fmt(x)))}</li>" for x in d[key])
            parts.append("</ul>")
    return _HTML("".join(parts))


def checklist_table(decision: Any):  # -> DataFrame
    """One row per checklist item: the item (id over its question), severity, the answer that counts
    (over who gave it and, when it differs, what the evidence proposes), status, evidence and note.
    Six columns so the table fits an A4 page; kinds recorded for :func:`html_table`."""
    import pandas as pd

    d = decision.to_dict() if hasattr(decision, "to_dict") else dict(decision)
    rows = []
    for it in d.get("items") or []:
        ev = it.get("evidence")
        summary = ev.get("summary") if isinstance(ev, Mapping) else ev
        by = {"person": "by a person", "evidence": "from the evidence", "none": "no answer"}.get(
            str(it.get("source")), f"by {it.get('source')}")
        proposed = it.get("proposed")
        detail = by if proposed in (None, it.get("answer")) else f"{by}; evidence proposes {proposed}"
        rows.append(
            {
                "item": (it.get("id"), it.get("question")),
                "severity": it.get("severity"),
                "answer": (it.get("answer"), detail),
                "status": it.get("status"),
                "evidence": summary,
                "note": it.get("note") or "",
            }
        )
    df = pd.DataFrame(rows, columns=["item", "severity", "answer", "status", "evidence", "note"])
    return with_kinds(df, item="stack", severity="id", answer="stack", status="id", evidence="text", note="text")


def _unit_kind(unit: Any) -> str:
    return "pct" if str(unit or "").startswith("fraction") else "num"


def break_even_table(result: Mapping[str, Any]):  # -> DataFrame
    """One row per input: current value, break-even value (or never), the option cheaper above.
    Values are formatted text: fractions as percentages, others with 4 significant digits."""
    import pandas as pd

    rows = []
    for k, v in (result.get("break_even") or {}).items():
        kind = _unit_kind(v.get("unit"))
        rows.append(
            {
                "input": k,
                "unit": v.get("unit"),
                "current": fmt_value(v.get("current"), kind),
                "break-even": "never" if v.get("never") else fmt_value(v.get("value"), kind),
                "cheaper above": v.get("above") or "-",
                "cheaper now": v.get("winner_now"),
                "method": v.get("method"),
            }
        )
    df = pd.DataFrame(rows, columns=["input", "unit", "current", "break-even", "cheaper above", "cheaper now", "method"])
    return with_kinds(df, input="id", unit="text", current="numstr", **{"break-even": "numstr",
                      "cheaper above": "id", "cheaper now": "id"}, method="id")


def monte_carlo_table(result: Mapping[str, Any]):  # -> DataFrame
    """One row per option: probability of being cheapest and P5/P50/P95 of its total (USD)."""
    import pandas as pd

    mc = result.get("monte_carlo")
    if not mc:
        return with_kinds(pd.DataFrame({"Monte Carlo": ["not run (monte_carlo_n = 0)"]}), **{"Monte Carlo": "text"})
    df = pd.DataFrame(
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
    return with_kinds(df, option="id", **{"P(cheapest)": "pct", "P5 (USD)": "usd", "P50 (USD)": "usd",
                                          "P95 (USD)": "usd"})
