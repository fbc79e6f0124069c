"""The report page written without nbconvert (:mod:`costmodel.report.page_writer`): the same bytes as nbconvert's
export on the report and on notebooks made to reach each branch of the template; anything outside the writer's
subset is named (None) and exported by nbconvert instead, so the page is the same either way."""
from __future__ import annotations

from importlib.metadata import version

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

from costmodel.report import html_export, page_writer

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10" viewBox="0 0 20 10"><defs><clipPath id="c1">'
       '<rect width="20" height="10"/></clipPath></defs><g clip-path="url(#c1)"><text x="1" y="8">a &amp; b</text>'
       "</g></svg>")
TABLE = ('<table class="cm-table" style="border-collapse:collapse"><thead><tr><th>option</th><th>USD</th></tr>'
         "</thead><tbody><tr><td class='cm-text'>cross&nbsp;region</td><td>1,234</td></tr></tbody></table>")
MARKDOWN = [
    "# Cross-region training: which option to take\n\nThe answer first, `costmodel` and *the inputs*.",
    "## Inputs and provenance\n\nEvery input file with its role.\nA second line, **bold**, ~~struck~~.",
    "### A & B: é, 95 % CI, (x) [y] 'q' \"dq\"\n\n- one\n- two\n  - nested\n\n1. first\n2. second",
    "| a | b |\n| --- | ---: |\n| 1 | 2 |\n\n- [ ] open\n- [x] done\n\nterm\n: its definition",
    "see https://example.org/page?a=1&b=2 and [a link](files/x.csv) and [another](https://example.org)",
    "#### `code` in a heading, *emphasis* too\n\n> a quote\n\n---\n\nplain &amp; entity &nbsp; here",
    "",
    "    indented code block\n\nafter it",
    "Heading with trailing hashes ##\n===\n\nSetext heading\n---",
]


def _nbconvert_version_is_the_heads() -> bool:
    try:
        return version("nbconvert") == page_writer.HEAD_FROM["nbconvert"] and version(
            "pygments") == page_writer.HEAD_FROM["pygments"]
    except Exception:  # noqa: BLE001 - not installed
        return False


needs_heads_nbconvert = pytest.mark.skipif(
    not _nbconvert_version_is_the_heads(),
    reason=f"the page head was taken from nbconvert {page_writer.HEAD_FROM}; another version writes other CSS "
           "(make page-head takes it from the installed one)")


def _stock(nb) -> str:
    """nbconvert's export of ``nb`` (the report's exporter, Beautiful Soup pass included)."""
    body, _ = html_export.html_exporter().from_notebook_node(html_export.without_silent_cells(nb))
    return body


def _notebook(cells, title="Train in us-west-2 <reading> \"C4\" & more") -> nbformat.NotebookNode:
    nb = new_notebook(cells=cells)
    nb.metadata["title"] = title
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def _display(*data: dict) -> list:
    return [new_output("display_data", data={**d, "text/plain": "<figure>"}) for d in data]


def _cases() -> dict[str, nbformat.NotebookNode]:
    html, svg = {"text/html": TABLE}, {"image/svg+xml": SVG}
    tagged = new_code_cell("x", outputs=_display(html))
    tagged.metadata["tags"] = ["summary", 'odd"tag<&>']
    md_tagged = new_markdown_cell("## Tagged markdown")
    md_tagged.metadata["tags"] = ["intro"]
    no_id = new_markdown_cell("A cell without an id")
    del no_id["id"]
    return {
        "markdown": _notebook([new_markdown_cell(m) for m in MARKDOWN]),
        "outputs": _notebook([
            new_code_cell("a", outputs=_display(html)),
            new_code_cell("b", outputs=_display(svg)),
            new_code_cell("c", outputs=_display(html, svg, html)),
            new_markdown_cell("between"),
            new_code_cell("d", outputs=_display(svg, svg)),
            new_code_cell("e", outputs=_display({**svg, **html})),  # shown as HTML: nbconvert's priority
            new_code_cell("silent"),  # no output: left out of the page
        ]),
        "tags_and_ids": _notebook([tagged, md_tagged, no_id, new_code_cell("y", outputs=_display(svg))]),
        "plain_title": _notebook([new_markdown_cell("# Only a title")], title="costmodel report"),
        "unicode_title": _notebook([new_code_cell("z", outputs=_display(html))], title="Cluster \u2013 é ¶ \u00a0"),
    }


@pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")  # the cell without an id, on purpose
@pytest.mark.parametrize("name", ["markdown", "outputs", "tags_and_ids", "plain_title", "unicode_title"])
def test_the_page_is_nbconverts_byte_for_byte(name):
    nb = _cases()[name]
    assert page_writer.raw_page(html_export.without_silent_cells(nb)) is not None  # written here, not by nbconvert
    if _nbconvert_version_is_the_heads():
        assert html_export.export_html(nb) == _stock(nb)
    else:  # the cells as this nbconvert writes them (its CSS may differ from the shipped head's)
        ours, stock = html_export.export_html(nb), _stock(nb)
        assert ours[ours.index("<body"):] == stock[stock.index("<body"):]


@needs_heads_nbconvert
def test_the_report_page_is_nbconverts(examples_dir, tmp_path, monkeypatch):
    from costmodel.report import params
    from costmodel.report import render as render_mod

    exported: list = []
    real = html_export.export_html
    monkeypatch.setattr(render_mod, "export_html", lambda nb: exported.append(nb) or real(nb))
    p = params.validate_parameters(colocated=[str(examples_dir / "colocated_steps.csv")],
                                   remote=[str(examples_dir / "remote_steps.csv")],
                                   scenario=str(examples_dir / "scenario.yaml"),
                                   answers=str(examples_dir / "answers.yaml"), date="2026-01-01", monte_carlo_n=300,
                                   placement=str(examples_dir / "placement.yaml"))
    render_mod.render_params(p, tmp_path / "out")
    (nb,) = exported
    assert page_writer.raw_page(html_export.without_silent_cells(html_export._svgs_set_aside(nb)[0])) is not None
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert page == _stock(nb)
    assert page.count("<svg") >= 6 and page.count('tabindex="0"') >= 10 and "¶</a></h2>" in page


@pytest.mark.parametrize("cell", [
    new_markdown_cell("inline math $x^2$"),
    new_markdown_cell("an escape \\* here"),
    new_markdown_cell("```python\nx = 1\n```"),
    new_markdown_cell("~~~\nplain fence\n~~~"),
    new_markdown_cell("![chart](chart.png)"),
    new_markdown_cell("inline <b>html</b>"),
    new_raw_cell("raw text"),
    new_code_cell("s", outputs=[new_output("stream", name="stdout", text="printed\n")]),
    new_code_cell("e", outputs=[new_output("error", ename="ValueError", evalue="bad", traceback=["tb"])]),
    new_code_cell("r", outputs=[new_output("execute_result", data={"text/html": "<b>x</b>"}, execution_count=1)]),
    new_code_cell("p", outputs=[new_output("display_data", data={"text/plain": "only text"})]),
    new_code_cell("i", outputs=[new_output("display_data", data={"image/png": "iVBORw0KGgo=", "text/plain": "x"})]),
    new_code_cell("w", outputs=[new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"model_id": "m"}, "text/html": "<b>x</b>"})]),
], ids=["math", "escape", "fence", "tilde-fence", "image", "inline-html", "raw", "stream", "error", "execute-result",
        "plain-text", "png", "widget"])
def test_what_the_writer_does_not_write_is_left_to_nbconvert(cell):
    nb = _notebook([new_markdown_cell("# Page"), cell])
    assert page_writer.raw_page(html_export.without_silent_cells(nb)) is None
    assert html_export.export_html(nb) == _stock(nb)  # nbconvert wrote it: the same page as before


def test_a_notebook_without_a_title_or_with_widgets_attachments_or_transient_cells_is_left_to_nbconvert():
    untitled = new_notebook(cells=[new_markdown_cell("x")])
    widgets = _notebook([new_markdown_cell("x")])
    widgets.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    attached = new_markdown_cell("x")
    attached["attachments"] = {"a.png": {"image/png": "iVBORw0KGgo="}}
    transient = new_markdown_cell("left out by nbconvert", metadata={"transient": {"remove_source": True}})
    for nb in (untitled, widgets, _notebook([attached]), _notebook([transient]), _notebook([new_code_cell("quiet")])):
        assert page_writer.raw_page(nb) is None
    nb = _notebook([new_markdown_cell("# Kept"), transient])
    assert html_export.export_html(nb) == _stock(nb) and "left out by nbconvert" not in _stock(nb)


def test_headings_get_nbconverts_anchors():
    assert page_writer.markdown_html("## How sure: 95 % & more") == (
        '<h2 id="How-sure:-95-%25-&amp;-more">How sure: 95 % &amp; more<a class="anchor-link" '
        'href="#How-sure:-95-%25-&amp;-more">&#182;</a></h2>')
    assert page_writer.markdown_html("cost $5") is None


def test_the_shipped_head_holds_the_title_slot_once_the_reports_css_and_no_machine_path():
    head = (page_writer.PAGE_DIR / "head.html").read_text(encoding="utf-8")
    css = html_export._TEMPLATE[html_export._TEMPLATE.index("<style"):html_export._TEMPLATE.index("</style>")]
    assert css in head, "the report's CSS changed: make page-head"
    assert head.count(page_writer._TITLE_SLOT) == 1 and head.endswith("<main>")
    assert "/home/" not in head and "site-packages" not in head and "<script" not in head
    assert html_export.external_references(head) == []


@needs_heads_nbconvert
def test_the_shipped_head_is_what_nbconvert_writes():
    from support.page_head import head_text

    assert (page_writer.PAGE_DIR / "head.html").read_text(encoding="utf-8") == head_text()
