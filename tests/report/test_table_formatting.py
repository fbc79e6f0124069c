"""Readable report tables: numbers formatted by kind, identifiers never broken, text wrapped at word
boundaries, numbers right-aligned, every string escaped (no kernel started here)."""
from __future__ import annotations

import html
import re

import pandas as pd
import pytest

from costmodel import report
from costmodel.foundation.errors import ReportError


# ------------------------------------------------------------------ number formats
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (116.004, "116.0"),
        (0.00731648, "0.007316"),
        (482.313, "482.3"),
        (0.0036313, "0.003631"),
        (172800.0, "172,800"),
        (107.848, "107.8"),
        (0.967799, "0.9678"),
        (9.99996, "10.00"),  # rounding carries into a new digit: still 4 significant
        (-12.3456, "-12.35"),
        (0.0, "0"),
        (0.00001234, "1.234e-05"),
        (float("nan"), "-"),
    ],
)
def test_fmt_sig_four_significant_digits(value, expected):
    assert report.fmt_sig(value) == expected


def test_fmt_usd_pct_seconds():
    assert report.fmt_usd(482.3127945) == "482.31"
    assert report.fmt_usd(172800.0) == "172,800.00"
    assert report.fmt_usd(0.0) == "0.00"
    assert report.fmt_pct(0.949937) == "94.99 %"
    assert report.fmt_pct(0.02) == "2 %"
    assert report.fmt_pct(1.0) == "100 %"
    assert report.fmt_pct(0.00731648) == "0.7316 %"
    assert report.fmt_pct(0.000287706) == "0.02877 %"
    assert report.fmt_s(448.406) == "448.4"
    assert report.fmt_s(12345.67) == "12,345.7"
    assert report.fmt_value(None, "usd") == "-" and report.fmt_value(float("inf"), "s") == "-"
    assert report.fmt_value(True, "bool") == "yes" and report.fmt_value(False, "id") == "no"
    assert report.fmt_value(97329, "int") == "97,329"
    assert report.fmt_value("a" * 64, "sha") == "a" * 12


# ------------------------------------------------------------------ html_table
def _cells(page: str) -> list[tuple[str, str, str]]:
    """(class, style, inner html) of every <td>."""
    return re.findall(r'<td class="cm-(\w+)" style="([^"]*)"[^>]*>(.*?)</td>', page)


def test_html_table_aligns_wraps_and_formats_by_kind():
    df = report.with_kinds(
        pd.DataFrame({
            "id": ["colocated"], "question": ["Is the dataset read repeatedly?"], "total": [1234.5],
            "share": [0.25], "wait (s)": [3.14159], "sha256": ["ab" * 32], "file": ["my_run.v2-final.csv"],
        }),
        id="id", question="text", total="usd", share="pct", **{"wait (s)": "s"}, sha256="sha", file="path",
    )
    page = report.html_table(df, "t").text
    cells = {c: (style, inner) for c, style, inner in _cells(page)}
    assert "white-space:nowrap" in cells["id"][0] and "text-align:left" in cells["id"][0]
    assert "white-space:normal" in cells["text"][0] and "text-align:left" in cells["text"][0]
    assert "anywhere" not in page and "break-all" not in page  # never broken mid-word
    for kind, shown in (("usd", "1,234.50"), ("pct", "25 %"), ("s", "3.1")):
        assert "text-align:right" in cells[kind][0] and "white-space:nowrap" in cells[kind][0]
        assert cells[kind][1] == shown
    assert cells["sha"][1] == "ab" * 6
    assert f'title="{"ab" * 32}"' in page  # the full hash stays in the cell's title
    assert cells["path"][1] == "my_<wbr>run.<wbr>v2-<wbr>final.<wbr>csv"  # breaks only after separators
    assert "table-layout:auto" in page  # JupyterLab's fixed layout squeezed columns to letters
    heads = re.findall(r'<th style="([^"]*)">([^<]*)</th>', page)
    assert [h for _s, h in heads] == ["id", "question", "total", "share", "wait (s)", "sha256", "file"]
    assert "text-align:right" in heads[2][0] and "text-align:left" in heads[0][0]


def test_html_table_guesses_kinds_and_escapes_every_string():
    evil = "<script>alert(1)</script>"
    df = pd.DataFrame({"status": [evil], "note": [evil], "x": [0.123456], "n": [3], "ok": [True]})
    page = report.html_table(df, caption=evil).text
    assert "<script>" not in page and page.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 3
    cells = [c for c, _s, _i in _cells(page)]
    assert cells == ["id", "text", "num", "int", "bool"]
    assert [i for _c, _s, i in _cells(page)][2:] == ["0.1235", "3", "yes"]
    stacked = report.with_kinds(pd.DataFrame({"item": [(evil, evil)]}), item="stack")
    page = report.html_table(stacked).text
    assert "<script>" not in page and page.count("&lt;script&gt;") == 2
    sha = report.with_kinds(pd.DataFrame({"h": ['"><img src=x onerror=alert(1)>' + "0" * 40]}), h="sha")
    page = report.html_table(sha).text
    assert "<img" not in page and 'title="&quot;&gt;&lt;img' in page


def test_unknown_kind_is_a_report_error():
    with pytest.raises(ReportError, match="unknown column kind"):
        report.with_kinds(pd.DataFrame({"a": [1]}), a="money")
    with pytest.raises(ReportError, match="column 'a' has unknown kind 'money'"):
        report.html_table(pd.DataFrame({"a": [1]}), kinds={"a": "money"})


# ------------------------------------------------------------------ the section tables on the bundled example
@pytest.fixture(scope="module")
def stages(report_stages):
    return report_stages[:6]


def test_inputs_table_shortens_sha256_and_keeps_it_whole_in_the_title(stages):
    _p, inputs, *_ = stages
    page = report.html_table(inputs.table()).text
    for f in inputs.files:
        assert f'title="{f.sha256}">{f.sha256[:12]}</td>' in page
        assert f">{f.sha256}<" not in page
    assert inputs.table().set_index("role").loc["scenario", "kind"] == ""  # not a run: neither measured nor predicted
    assert re.search(r'class="cm-int"[^>]*>\d{1,3}(,\d{3})+</td>', page)  # bytes with thousands separators


def test_cost_table_has_a_row_per_term_and_usd_with_two_decimals(stages):
    *_, cost, _decision = stages
    df = report.cost_table(cost.result)
    opts = cost.result["options"]
    assert df.columns.tolist() == ["USD", "cross_region", "replicate", "wait"]
    assert df["USD"].tolist()[:4] == ["total", "per month", "P5 (Monte Carlo)", "P95 (Monte Carlo)"]
    assert "transfer" in df["USD"].tolist() and "initial copy" in df["USD"].tolist()
    row = df.set_index("USD").loc["transfer"]
    assert row["cross_region"] == opts["cross_region"]["terms"]["transfer_usd"] and pd.isna(row["replicate"])
    page = report.html_table(df).text
    total = opts["wait"]["total_usd"]
    assert f">{total:,.2f}</td>" in page  # e.g. 172,800.00
    assert all(re.fullmatch(r"-?[\d,]+\.\d\d|-", inner) for c, _s, inner in _cells(page) if c == "usd")


def test_fit_compare_and_monte_carlo_tables_read_well(stages):
    _p, inputs, fits, cmp, cost, _decision = stages
    page = report.html_table(report.fit_table(fits, inputs.runs)).text
    remote = fits[1].to_dict()
    assert f">{remote['warmup_end_t_s']:,.1f}</td>" in page
    assert f"{report.fmt_sig(remote['steady_ci_low'])} – {report.fmt_sig(remote['steady_ci_high'])}" in page  # noqa: RUF001 the report's en dash
    assert f">{report.fmt_pct(remote['steady_cv'])}</td>" in page and " %</td>" in page
    assert not re.search(r">\d+\.\d{5,}<", page)  # no float noise
    values = dict(zip(*[report.compare_table(cmp)[c] for c in ("quantity", "value")], strict=True))
    assert values["equivalent (TOST)"] == "yes" and values["equivalence margin"] == "2 %"
    assert values["remote extra warm-up (s)"] == f"{cmp.remote_extra_warmup_s:,.1f}"
    assert values["remote / co-located steady state"] == report.fmt_sig(cmp.ratio)
    mc = report.html_table(report.monte_carlo_table(cost.result)).text
    p_rep = cost.result["monte_carlo"]["p_cheapest"]["replicate"]
    assert f">{report.fmt_pct(p_rep)}</td>" in mc and ">0 %</td>" in mc  # P(cheapest) as percentages
    be = report.break_even_table(cost.result).set_index("input")
    assert be.loc["cache.steady_hit_ratio", "current"].endswith(" %")  # a fraction input
    assert not be.loc["training.runs_per_month", "current"].endswith("%")


def test_checklist_table_six_columns_answer_over_its_source(stages):
    *_, decision = stages
    df = report.checklist_table(decision)
    assert df.columns.tolist() == ["item", "severity", "answer", "status", "evidence", "note"]
    assert len(df) == len(decision.items)
    rows = {r["item"][0]: r for r in df.to_dict("records")}
    by_id = {r.item.id: r for r in decision.items}
    for iid, r in by_id.items():
        assert rows[iid]["item"][1] == r.item.question and rows[iid]["answer"][0] == r.answer
        assert rows[iid]["status"] == r.status
        if r.source == "person" and r.evidence.proposed != r.answer:
            assert f"evidence proposes {r.evidence.proposed}" in rows[iid]["answer"][1]
    page = report.html_table(df).text
    assert 'white-space:nowrap;font-weight:600">checkpoints_independent</span>' in page


def test_duplicate_run_ids_on_one_side_get_the_load_many_suffix():
    p = report.validate_parameters(colocated=["data/examples/colocated_steps.csv"] * 2, monte_carlo_n=0)
    inputs = report.load_inputs(p)
    assert [r.run_id for r in inputs.colocated] == ["colocated_steps", "colocated_steps#2"]
    assert set(inputs.colocated[1].table["run_id"].astype(str)) == {"colocated_steps#2"}
    assert [r.run_id for r in inputs.remote] == ["remote_steps"]
    assert html.escape("colocated_steps#2") in report.html_table(inputs.table()).text
