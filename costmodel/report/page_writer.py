"""The report page's HTML written directly, as nbconvert's lab template writes it, without nbconvert.

nbconvert's import, its exporter's set-up and its Jinja template cost ~1.1 CPU-s per report (measured at 10 ranks:
0.74 to import and build the exporter, 0.27 to compile the template on first use, 0.25 to render), more than the
scan of 10 rank logs. The report's notebook is a plain one: markdown cells and code cells whose outputs are
``display_data`` of ``text/html`` or ``image/svg+xml``. :func:`raw_page` writes what the template writes for such a
notebook (inputs and prompts hidden, the report's own CSS and SVG blocks: :data:`.html_export._TEMPLATE`), before
the export's Beautiful Soup pass (:func:`.svg_markup.page_as_soup_writes` writes what that pass writes). The page's
head, the CSS that nbconvert 7 and JupyterLab's light theme inline, is the text nbconvert wrote
(``costmodel/data/page/head.html``, with a title slot): the page no longer changes with the installed nbconvert's or
Pygments' version.

Anything outside that plain subset gives None, and the export is left to nbconvert (:mod:`.html_export`): other
output types (streams, errors, execute results, images, plain text), code cells without outputs, attachments,
widgets, raw cells, cells whose source is transient, and markdown that nbconvert's own renderer treats apart (math,
code fences, images, inline HTML, ``\\`` escapes). The markdown is rendered by mistune 3 with the same plugins and
the same heading anchors as nbconvert's ``markdown2html``. Tested byte for byte against nbconvert on the report
notebooks and on notebooks made to reach each branch
(tests/report/test_page_writer.py)."""
from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from ..foundation.resources import PAGE_DIR as PAGE_DIR

#: The nbconvert the head was taken from (tests compare the whole page against it when it is the one installed).
HEAD_FROM = {"nbconvert": "7.17.2", "pygments": "2.21.0"}
_TITLE_SLOT = "<title>{{title}}</title>"
#: Markdown that nbconvert renders apart from plain mistune: math, escapes, code fences, images, inline HTML.
_MARKDOWN_APART = ("$", "\\", "```", "~~~", "![", "<")
#: The output data this module writes (of those nbconvert's template shows).
_SHOWN = ("text/html", "image/svg+xml")
#: nbconvert 7's display priority for HTML (``HTMLExporter``'s ``display_data_priority``): an output is shown as the
#: first of these its data holds.
PRIORITY = ("application/vnd.jupyter.widget-view+json", "application/javascript", "text/html", "text/markdown",
            "image/svg+xml", "text/vnd.mermaid", "text/latex", "image/png", "image/jpeg", "text/plain")


def shown_type(data: Any) -> str | None:
    """The MIME type nbconvert's HTML export shows of an output's ``data``, or None when it holds none it shows."""
    return next((kind for kind in PRIORITY if kind in data), None)


@functools.lru_cache(maxsize=1)
def _head() -> tuple[str, str]:
    """The page's head up to its title, and from its title to ``<main>``."""
    text = (PAGE_DIR / "head.html").read_text(encoding="utf-8")
    before, _, after = text.partition(_TITLE_SLOT)
    return before, after


def raw_page(nb: Any) -> str | None:
    """``nb`` (a notebook node, silent cells already left out) as nbconvert's template writes it before the
    export's Beautiful Soup pass, or None when the notebook holds anything outside this module's subset."""
    cells: list[str] = []
    for cell in nb.cells:
        kind = cell.get("cell_type")
        if kind == "markdown":
            written = _markdown_cell(cell)
        elif kind == "code":
            written = _code_cell(cell)
        else:
            return None
        if written is None:
            return None
        cells.append(written)
    if "widgets" in nb.metadata:
        return None
    title = nb.metadata.get("title")
    if not isinstance(title, str):
        return None  # nbconvert takes the resources' name then: not this module's case
    before, after = _head()
    return (before + "<title>" + html.escape(title, quote=False) + "</title>" + after + "".join(cells)
            + "\n</main>\n</body>\n\n\n\n\n\n\n\n</html>\n")


def _anchor(cell: Any) -> str:
    cell_id = cell.get("id")
    return f'id="{html.escape("cell-id=" + cell_id)}"' if cell_id else ""


def _tags(cell: Any) -> str | None:
    tags = (cell.get("metadata") or {}).get("tags") or []
    if not all(isinstance(t, str) for t in tags):
        return None
    return "".join(html.escape(" celltag_" + t) for t in tags)


def _markdown_cell(cell: Any) -> str | None:
    source = cell.get("source")
    source = "".join(source) if isinstance(source, list) else source
    tags = _tags(cell)
    if not isinstance(source, str) or tags is None or cell.get("attachments") or "transient" in (
            cell.get("metadata") or {}):  # transient.remove_source: nbconvert leaves the cell's text out
        return None
    rendered = markdown_html(source)
    if rendered is None:
        return None
    return (f'\n<div {_anchor(cell)} class="jp-Cell jp-MarkdownCell jp-Notebook-cell">\n'
            '<div class="jp-Cell-inputWrapper">\n'
            '<div class="jp-Collapser jp-InputCollapser jp-Cell-inputCollapser">\n</div>\n'
            '<div class="jp-InputArea jp-Cell-inputArea">'
            f'<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown jp-MarkdownOutput {tags}" '
            f'data-mime-type="text/markdown">\n{rendered}\n</div>\n</div>\n</div>\n</div>')


def _code_cell(cell: Any) -> str | None:
    tags = _tags(cell)
    outputs = cell.get("outputs") or []
    if tags is None or not outputs:  # a cell without outputs is left out of the page before (html_export)
        return None
    written = []
    for output in outputs:
        one = _output(output)
        if one is None:
            return None
        written.append(one)
    return (f'<div {_anchor(cell)} class="jp-Cell jp-CodeCell jp-Notebook-cell  jp-mod-noInput {tags}">\n'
            '\n<div class="jp-Cell-outputWrapper">\n'
            '<div class="jp-Collapser jp-OutputCollapser jp-Cell-outputCollapser">\n</div>\n'
            '\n<div class="jp-OutputArea jp-Cell-outputArea">' + "".join(written) + "\n\n</div>\n\n</div>\n\n</div>")


def _output(output: Any) -> str | None:
    if output.get("output_type") != "display_data":
        return None
    data = output.get("data") or {}
    shown = shown_type(data)
    if shown not in _SHOWN:
        return None
    value = data[shown]
    value = "".join(value) if isinstance(value, list) else value
    if not isinstance(value, str):
        return None
    if shown == "text/html":
        body = ('<div class="jp-RenderedHTMLCommon jp-RenderedHTML jp-OutputArea-output " '
                f'data-mime-type="text/html">\n{value}\n</div>')
    else:
        body = f'<div class="jp-RenderedSVG jp-OutputArea-output " data-mime-type="image/svg+xml">\n{value}\n</div>'
    return '\n<div class="jp-OutputArea-child">\n\n' + body + "\n\n</div>"


def markdown_html(source: str) -> str | None:
    """``source`` (a markdown cell's text) as nbconvert's ``markdown2html`` and ``strip_files_prefix`` filters
    render it, or None for markdown they render apart (:data:`_MARKDOWN_APART`) or without mistune 3."""
    if any(mark in source for mark in _MARKDOWN_APART):
        return None
    render = _markdown()
    if render is None:
        return None
    text = render(source)
    text = _FILES_URL.sub(r"\1=\2", text)
    return _MARKDOWN_FILES_URL.sub(r"\1[\2](\3)", text)


_FILES_URL = re.compile(r'(src|href)\=([\'"]?)/?files/')
_MARKDOWN_FILES_URL = re.compile(r"(!?)\[(?P<caption>.*?)\]\(/?files/(?P<location>.*?)\)")


@functools.lru_cache(maxsize=1)
def _markdown() -> Callable[[str], str] | None:
    """A renderer of markdown as nbconvert 7's ``markdown2html_mistune`` (its plugins, anchors on headings, text
    escaped without quotes), or None without mistune 3."""
    try:
        import mistune
        from mistune import HTMLRenderer, Markdown, import_plugin
    except ImportError:
        return None
    if not str(getattr(mistune, "__version__", "")).startswith("3."):
        return None

    class AnchoredHeadings(HTMLRenderer):
        def heading(self, text: str, level: int, **attrs: Any) -> str:
            return _add_anchor(super().heading(text, level, **attrs))

        def escape_html(self, text: str) -> str:
            return html.escape(text, quote=False)

    plugins = [import_plugin(name) for name in ("strikethrough", "table", "url", "task_lists", "def_list")]

    def render(source: str) -> str:
        # a renderer per call, as nbconvert makes one per cell (mistune keeps state in it)
        return str(Markdown(renderer=AnchoredHeadings(escape=False), plugins=plugins)(source))

    return render


def _add_anchor(heading: str) -> str:
    """nbconvert's ``add_anchor``: the heading with an id made from its text and a ``¶`` link to it (the heading
    unchanged when it is not well-formed XML)."""
    from xml.etree import ElementTree

    try:
        h = ElementTree.fromstring(heading)
    except ElementTree.ParseError:
        return heading
    link = quote("".join(h.itertext()).replace(" ", "-"), safe="?/:@!$&'()*+,;=")
    h.set("id", link)
    a = ElementTree.Element("a", {"class": "anchor-link", "href": "#" + link})
    a.text = "¶"
    h.append(a)
    return ElementTree.tostring(h).decode("utf-8")
