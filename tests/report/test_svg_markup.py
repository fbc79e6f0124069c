"""A chart's SVG written as the HTML export's Beautiful Soup round trip writes it, without the parse
(costmodel/report/svg_markup.py): the same bytes on the markup vl-convert draws and on the corners of that subset,
None (left to the parser) outside it."""
from __future__ import annotations

import pytest

from costmodel.report.svg_markup import as_soup_writes, page_as_soup_writes

bs4 = pytest.importorskip("bs4")


def _soup(markup: str) -> str:
    return str(bs4.BeautifulSoup(markup, features="html.parser"))


PLAIN = [
    ('<svg xmlns="http://www.w3.org/2000/svg" class="marks" width="715" height="562" viewBox="0 0 715 562">'
    '<rect width="715" height="562" fill="white"/><g transform="translate(67,58)"><clipPath id="cm1-clip1">'
    '<rect x="0" y="0" width="640" height="180"/></clipPath><path d="M0,0h640v0h-640Z" clip-path="url(#cm1-clip1)"/>'
    "</g></svg>"),
    '<svg><text x="1" y="2" font-family="sans-serif">warm-up &amp; steady &lt;state&gt; at 5 % &#39;q&#39; &quot;</text></svg>',
    '<svg><g class="  mark-group   role-frame root " aria-label="a &gt; b &amp; c"></g></svg>',
    "<svg><g aria-label=\"Bob's &quot;bar&quot;\"></g><g aria-label=\"say &quot;hi&quot;\"></g></svg>",
    '<svg><G Class="X" CLIP-PATH="url(#a)" ></G>\n  text\twith  spaces\n</svg>',
    '<svg><path d="M0,0" d="M1,1" /><line x1="0" x2="1"></line></svg>',
    '<svg><text>&eacute;t&eacute; caf&#233; 1 &lt; 2 &#x3E; 0 &amp;amp;</text></svg>',
    "<svg></svg>",
    '<svg><g></g>  <g></g>\n\t <g></g><text>&#32;&#32;</text><text> \xa0 </text></svg>',
]


@pytest.mark.parametrize("markup", PLAIN)
def test_the_plain_subset_is_written_byte_for_byte_as_the_round_trip(markup):
    assert as_soup_writes(markup) == _soup(markup)


@pytest.mark.parametrize("markup", [
    "<svg><!-- a comment --></svg>",
    "<svg><style>.a{fill:red}</style></svg>",
    "<svg><title>t</title></svg>",
    '<svg><image href="x.png"/></svg>',
    "<svg><g a='single quoted'></g></svg>",
    "<svg><g a=unquoted></g></svg>",
    "<svg><g></svg>",
    "<svg></g></svg>",
    "<svg>a < b</svg>",
    "<?xml version='1.0'?><svg></svg>",
])
def test_markup_outside_the_subset_is_left_to_the_parser(markup):
    assert as_soup_writes(markup) is None


def test_the_charts_the_report_draws(report_stages):
    """Every chart of the bundled example's page, drawn by vl-convert, the same bytes both ways."""
    pytest.importorskip("vl_convert")
    from costmodel import charts

    _p, inputs, fits, _cmp, cost, _decision, _record = report_stages
    drawn = [charts.to_svg(charts.throughput(inputs.colocated + inputs.remote, fits)),
             charts.to_svg(charts.cost_terms(cost.result))]
    for svg in drawn:
        written = as_soup_writes(svg)
        assert written is not None and written == _soup(svg)


def test_a_fleets_rank_heatmap(tmp_path):
    """The largest SVGs of a fleet's page (two of 0.4 MB each at 1,000 ranks): the same bytes both ways."""
    pytest.importorskip("vl_convert")
    from costmodel import charts
    from costmodel.jobs import load_side
    from costmodel.synthetic.rank_logs import generate_job

    generate_job(tmp_path / "remote" / "job1", n_ranks=16, n_steps=1200, seed=3, straggler_node=1)
    side = load_side([str(tmp_path / "remote")], "remote")
    (job,) = side.jobs
    tabs = side.tables[job["job_id"]]
    svg = charts.to_svg(charts.rank_heatmap(job["job_id"], tabs.bins, tabs.bin_steps, job["stragglers"]))
    written = as_soup_writes(svg)
    assert written is not None and written == _soup(svg) and svg.count("<path") > 16


PAGE_HEAD = ('<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8" />\n<meta name="viewport" '
             'content="width=device-width">\n\n<title>A &amp; B &lt;c&gt; "d"</title>\n\n<style type="text/css">\n'
             'a > b { content: "<&amp;>"; }\n</style>\n<script>if (a < b && c) {}</script>\n</head>\n')
PAGES = [
    PAGE_HEAD + '<body class="jp-Notebook" data-x="1">\n\n<main>\n<div class="jp-Cell-inputWrapper">x</div>'
    '<div class="jp-OutputArea-output  other " tabindex="-1"><p>a<br>b<br/>c<wbr>d</p><hr class="r"></div>'
    '<span class="jp-OutputArea-output">a span</span>\n  \n<pre>  kept \n  </pre> <p> </p>'
    '<div class="jp-Notebook"><div class="jp-OutputArea-output">nested</div></div>\n</main>\n</body>\n\n</html>\n',
    ('<div class="jp-OutputArea-output">outside the notebook</div><div class="jp-Notebook">'
     '<p class="jp-OutputArea-output">a p</p><div class="x"><div class="jp-Cell-inputWrapper">deep</div></div></div>'),
    PAGE_HEAD + "<body></body></html>",
]


def _walked(markup: str) -> str:
    from costmodel.report.html_export import _one_walk

    return _one_walk(markup)[0]


@pytest.mark.parametrize("markup", PAGES)
def test_a_plain_page_is_written_byte_for_byte_as_the_exports_pass(markup):
    assert page_as_soup_writes(markup) == _walked(markup)


@pytest.mark.parametrize("markup", [
    '<div class="jp-Notebook"><img src="data:image/png;base64,iVBORw0KGgo="></div>',  # its alt is the parser's step
    "<p><!-- a comment --></p>",
    "<textarea>a</textarea>",
    "<p><b>unclosed</p>",
    "<p>a < b</p>",
    "<style>never closed",
])
def test_a_page_outside_the_subset_is_left_to_the_parser(markup):
    assert page_as_soup_writes(markup) is None
