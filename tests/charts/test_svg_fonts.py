"""Text widths of charts.svg.fonts equal vl-convert's, for the report's own strings, sizes and weights."""
from __future__ import annotations

from functools import cache
from types import ModuleType

import pytest

from costmodel.charts.svg import font_widths
from costmodel.charts.svg.fonts import FALLBACK_CHAR, normalize_whitespace, text_em, text_width, truncate

#: strings the report's charts show (titles, subtitles, axis titles, legend labels, tick labels)
REPORT_STRINGS = [
    "job job1: step time per rank vs job median", "step time vs median (%)", "rank (binned)", "step (bin start)",
    "cost by term over 12 months", "Monte Carlo: 2,000 draws", "sensitivity (tornado)",
    "break-even on link transfer usd per gb at 0.02783; replicate cheaper above",
    "one axis for every option drawn; dashed lines: each option's P5, P50 and P95 (table below)",
    "not drawn (off this scale): wait for GPUs USD 43,200", "cross-region: USD 183 (P5-P95 81-254)",
    "link transfer usd per gb (USD/GB from the data region to the GPU region)", "throughput (samples/s)",
    "training runs per month (runs/month)", "cross-region minus replicate, USD over the horizon",
    "time since start (min)", "share of draws", "colocated_steps [colocated]", "job1 [remote]",
    "copy delay (cluster time)", "steady slowdown (cluster ti\u2026", "warm-up (cluster time)", "wait for GPUs",
    "cross-region", "replicate", "low value", "high value", "replica storage usd per gb month",
    "Tokyo", "AVATAR", "LT\u2019s \u201cT\u00e9\u201d \u2265 0\u00b0", "P5\u2013P95 \u00b1 3 \u00b5s \u2026 10\u2030",
    "120,000", "\u221220", "0.02783", "4%", "USD 43,200", "1.5\u00d7 \u2248 \u2192 \u2190", "0", "2,000",
]
SIZES = (11.0, 12.0, 13.0, 15.0)

#: widths vl-convert 1.9.0 measured (Liberation Sans): they pin the tables without vl-convert
FROZEN = [
    ("copy delay (cluster time)", 12.0, False, 130.04296875),
    ("\u221220", 10.0, False, 16.962890625),
    ("120,000", 12.0, False, 43.376953125),
    ("AVATAR", 13.0, False, 48.1533203125),
    ("Monte Carlo: 2,000 draws", 15.0, True, 180.88623046875),
    ("step time vs median (%)", 11.0, True, 125.31298828125),
    ("link transfer usd per gb (USD/GB from the data region to the GPU region)", 13.0, True, 450.70263671875),
    ("Tokyo \u2192 Oslo \u2248 1.5\u00d7", 12.0, False, 111.6328125),
    ("P5\u2013P95 \u00b1 3 \u00b5s \u2026 10\u2030", 11.0, True, 113.27099609375),
    ("wait for GPUs", 12.0, False, 74.015625),
    ("LT\u2019s \u201cT\u00e9\u201d \u2265 0\u00b0", 12.0, True, 77.396484375),
]


@pytest.mark.parametrize(("text", "size", "bold", "want"), FROZEN)
def test_frozen_widths_measured_by_vl_convert(text: str, size: float, bold: bool, want: float) -> None:
    assert text_width(text, size, bold) == pytest.approx(want, abs=1e-6)


def test_kerning_applies_as_in_vl_convert() -> None:
    # "AV" at 12 px: 15.1171875 measured, 0.890625 less than "A" + "V" (kerning -152/2048 em)
    assert text_width("AV", 12) == pytest.approx(15.1171875, abs=1e-9)
    assert text_width("A", 12) + text_width("V", 12) - text_width("AV", 12) == pytest.approx(0.890625)
    assert text_width("Te", 12) < text_width("T", 12) + text_width("e", 12)
    assert text_width("T\u00e9", 12) == text_width("T", 12) + text_width("\u00e9", 12)  # no pair in the font


def test_whitespace_as_usvg_lays_it_out() -> None:
    assert normalize_whitespace("  a \t\n  b  ") == "a b"
    assert text_width("a  b", 12) == text_width("a b", 12) == text_width(" a b\n", 12)
    assert text_width("   ", 12) == 0.0
    assert text_width("", 12) == 0.0
    assert text_width("abc", 0) == 0.0


def test_widths_scale_linearly_and_bold_is_wider() -> None:
    assert text_width("throughput", 15) == pytest.approx(text_em("throughput") * 15)
    assert text_width("throughput", 30) == pytest.approx(2 * text_width("throughput", 15))
    assert text_width("throughput", 12, bold=True) > text_width("throughput", 12)


def test_unknown_characters_fall_back_to_n_and_marks_are_zero_wide() -> None:
    assert "\u4e00" not in font_widths.REGULAR_EM
    assert text_width("\u4e00", 12) == text_width(FALLBACK_CHAR, 12)
    assert text_width("n\u0301n", 12) == text_width("nn", 12)  # a combining accent adds nothing
    assert text_width("n\u200bn", 12) == text_width("nn", 12)  # a zero-width space neither


def test_tables_cover_what_a_report_shows() -> None:
    needed = {chr(c) for c in range(32, 127)} | set("\u2013\u2014\u00d7\u2265\u2264\u00b1\u00b5\u00b7\u2026\u00b0"
                                                    "\u2030\u2248\u2192\u2190\u2019\u201c\u201d\u00e9\u2212")
    for table in (font_widths.REGULAR_EM, font_widths.BOLD_EM):
        assert needed <= set(table)
        assert table["0"] == table["9"] == 1139 / 2048  # tabular digits, as Arial's


def test_truncate_as_vega_cuts_a_legend_label() -> None:
    # the legend label of the cost chart, limit 160 px at 12 px: as vl-convert drew it
    assert truncate("steady slowdown (cluster time)", 160, 12) == "steady slowdown (cluster ti\u2026"
    assert truncate("copy delay (cluster time)", 160, 12) == "copy delay (cluster time)"
    assert truncate("copy delay (cluster time)", 0, 12) == "copy delay (cluster time)"
    cut = truncate("link transfer usd per gb (USD/GB from the data region to the GPU region)", 200, 13, True)
    assert cut.endswith("\u2026") and text_width(cut, 13, True) < 200


# -- against vl-convert itself -------------------------------------------------------------------------------------


@cache
def _probe() -> ModuleType:
    pytest.importorskip("vl_convert")
    from support import vl_fonts

    if not vl_fonts.same_fonts():
        pytest.skip(f"vl-convert's sans-serif here is another font than the tables' ({vl_fonts.measured_fingerprint()})")
    return vl_fonts.tool()


@pytest.mark.parametrize("bold", [False, True], ids=["regular", "bold"])
@pytest.mark.parametrize("size", SIZES)
def test_report_strings_match_vl_convert(size: float, bold: bool) -> None:
    measured = _probe().measure(REPORT_STRINGS, size, bold)
    off = {s: (w, text_width(s, size, bold)) for s, w in measured.items() if abs(w - text_width(s, size, bold)) > 0.01}
    assert not off, off


def test_frozen_values_are_what_vl_convert_measures() -> None:
    probe = _probe()
    for text, size, bold, want in FROZEN:
        assert probe.measure([text], size, bold)[text] == pytest.approx(want, abs=1e-6)
