"""The report notebook as one offline HTML page, inputs hidden, no script and no external reference (checked), the
summary first: written by :mod:`.page_writer` as nbconvert's lab template writes it, or by nbconvert in this process
for a notebook outside that writer's subset; nbconvert's last step, Beautiful Soup's round trip with ``tabindex`` on
the wrappers, is the same bytes for both (:mod:`.svg_markup` writes it without the parse where it can)."""
from __future__ import annotations

import logging
import re
import threading
from typing import Any

from ..foundation.errors import ReportError
from ..foundation.util import require
from .svg_markup import FOCUSABLE

_TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block extra_css -%}
<style type="text/css">
.jp-RenderedHTMLCommon table.cm-table { table-layout: auto; margin-left: 0; margin-right: 0; display: block;
  max-width: 100%; overflow-x: auto; }
.jp-RenderedHTMLCommon ul { padding-left: 18px; }
.jp-RenderedHTMLCommon table.cm-table tbody tr:nth-child(odd) { background: #f7f7f7; }
.jp-RenderedHTMLCommon table.cm-table tbody tr:hover { background: #eef3fb; }
.jp-RenderedSVG svg { max-width: 100%; height: auto; }
@media print {
  @page { size: A4; margin: 12mm; }
  body, main, .jp-Notebook, .jp-Cell, .jp-OutputArea-output { padding-left: 0 !important; margin-left: 0 !important; }
  .jp-Cell { break-inside: avoid; }
  .jp-OutputArea-output { overflow: visible !important; }
  .jp-RenderedHTMLCommon table.cm-table { font-size: 8pt !important; display: table; overflow: visible; }
  .jp-RenderedHTMLCommon table.cm-table td, .jp-RenderedHTMLCommon table.cm-table th { padding: 1px 3px !important; }
  .jp-RenderedHTMLCommon table.cm-table td.cm-text { min-width: 7em !important; }
  .jp-RenderedHTMLCommon table.cm-table tr { break-inside: avoid; }
}
</style>
{%- endblock extra_css -%}
{% block data_svg scoped -%}
<div class="jp-RenderedSVG jp-OutputArea-output {{ extra_class }}" data-mime-type="image/svg+xml">
{{ output.data['image/svg+xml'] }}
</div>
{%- endblock data_svg %}
"""

_EXTERNAL_RE = re.compile(
    r"""<(?:script|link|img|iframe|embed|object|source)\b[^>]*?\b(?:src|href|data)\s*=\s*["']?\s*(?:https?:)?//""",
    re.IGNORECASE,
)
_CSS_IMPORT_RE = re.compile(r"""@import\s+(?:url\()?\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//""", re.IGNORECASE)


def external_references(text: str) -> list[str]:
    """Every place in an HTML page that would load something from the network (scripts, styles,
    images, frames, CSS imports). Empty for a self-contained page."""
    found = [m.group(0) for m in _EXTERNAL_RE.finditer(text)]
    found += [m.group(0) for m in _CSS_IMPORT_RE.finditer(text)]
    return found


_exporter_lock = threading.Lock()
_exporter: Any = None


def html_exporter():  # -> nbconvert.HTMLExporter
    """The offline HTML exporter (built once per process): lab template, inputs and prompts
    hidden, no require.js / MathJax / widget / mermaid scripts, SVG inlined."""
    global _exporter  # noqa: PLW0603  module-level cache
    with _exporter_lock:
        if _exporter is None:
            from ..foundation.adapters.jsonschema_adapter import lean_imports

            with lean_imports():
                require("nbconvert", "report", "the report's HTML export")

            _exporter = _exporter_class()(
                template_name="lab",
                raw_template=_TEMPLATE,
                exclude_input=True,
                exclude_input_prompt=True,
                exclude_output_prompt=True,
                embed_images=True,
            )
        return _exporter


def _exporter_class() -> type:
    """nbconvert's ``HTMLExporter`` with its last step, three CSS selects over the page (soupsieve compiles and
    matches them: ~0.15 CPU-s on the report), done as one walk over the same parsed page: the same elements get
    the same attributes, so the same bytes (tested against the stock exporter on the report:
    tests/report/test_html_export_walk.py). The rest of :meth:`from_notebook_node` is nbconvert's own (7.x)."""
    from nbconvert.exporters.html import HTMLExporter
    from nbconvert.exporters.templateexporter import TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

    class OneWalkHTMLExporter(HTMLExporter):
        def from_notebook_node(self, nb: Any, resources: Any = None, **kw: Any) -> Any:  # (html, resources)
            langinfo = nb.metadata.get("language_info", {})
            lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
            highlight_code = self.filters.get("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self))
            resources = self._init_resources(resources)
            filter_data_type = WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self,
                                                     resources=resources)
            self.register_filter("highlight_code", highlight_code)
            self.register_filter("filter_data_type", filter_data_type)
            nb, svgs = _svgs_set_aside(nb)
            html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
            page, missing_alt = _one_walk(html)
            if missing_alt:
                self.log.warning("Alternative text is missing on %s image(s).", missing_alt)
            return _svgs_put_back(page, svgs), resources

    return OneWalkHTMLExporter


def _one_walk(html: str) -> tuple[str, int]:
    """The last step of nbconvert's ``HTMLExporter.from_notebook_node`` on the template's output ``html``: the page
    parsed and written back by Beautiful Soup, ``alt`` text on images without one, ``tabindex="0"`` on the input and
    output wrappers; and how many images lacked ``alt``."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, features="html.parser")
    missing_alt = 0
    for elem in _focusable_and_images(soup):
        if elem.name == "img":  # "img:not([alt])"
            elem.attrs["alt"] = "No description has been provided for this image"
            missing_alt += 1
        else:  # ".jp-Notebook div.jp-Cell-inputWrapper", ".jp-Notebook div.jp-OutputArea-output"
            elem.attrs["tabindex"] = "0"
    return str(soup), missing_alt


_MARK = "cm-svg-set-aside-{}-7f3a"


def _svgs_set_aside(nb: Any) -> tuple[Any, dict[str, str]]:
    """``nb`` (a copy: the outputs given are not changed) with each chart's SVG replaced by a plain-text mark, and
    mark -> the SVG as Beautiful Soup would write it back (:func:`.svg_markup.as_soup_writes`): the page's parse
    then skips the charts, most of its bytes. An SVG outside that function's subset stays in the page."""
    import copy

    from .page_writer import shown_type
    from .svg_markup import as_soup_writes

    svgs: dict[str, str] = {}
    cells = []
    for cell in nb.cells:
        outputs = cell.get("outputs") or []
        if not any(shown_type(o.get("data") or {}) == "image/svg+xml" for o in outputs):
            cells.append(cell)
            continue
        new_outputs = []
        for out in outputs:
            data = out.get("data") or {}
            svg = data.get("image/svg+xml") if shown_type(data) == "image/svg+xml" else None  # the SVGs shown
            written = as_soup_writes("".join(svg) if isinstance(svg, list) else svg) if svg else None
            if written is None:
                new_outputs.append(out)
                continue
            mark = _MARK.format(len(svgs))
            svgs[mark] = written
            new_out = copy.copy(out)
            new_out["data"] = type(out["data"])({**out["data"], "image/svg+xml": mark})
            new_outputs.append(new_out)
        new_cell = copy.copy(cell)
        new_cell["outputs"] = new_outputs
        cells.append(new_cell)
    if not svgs:
        return nb, svgs
    out_nb = copy.copy(nb)
    out_nb.cells = cells
    return out_nb, svgs


def _svgs_put_back(page: str, svgs: dict[str, str]) -> str:
    """``page`` with each mark of :func:`_svgs_set_aside` replaced by its SVG. Raises ReportError when a mark is not
    in the page exactly once (the template dropped or repeated an output)."""
    if not svgs:
        return page
    parts = re.split("(" + _MARK.format(r"\d+") + ")", page)
    if sorted(parts[1::2]) != sorted(svgs):  # each mark once (the marks are distinct: a repeat makes the lists differ)
        raise ReportError(f"the HTML export lost track of the charts ({len(parts) // 2} of {len(svgs)} placed)")
    return "".join(svgs[p] if i % 2 else p for i, p in enumerate(parts))


def _focusable_and_images(soup: Any) -> list[Any]:
    """The elements nbconvert's HTMLExporter selects, in document order: ``img`` without ``alt``, and ``div``s of
    class ``jp-Cell-inputWrapper`` or ``jp-OutputArea-output`` inside an element of class ``jp-Notebook``."""
    out = []
    for elem in soup.find_all(["img", "div"]):
        if elem.name == "img":
            if "alt" not in elem.attrs:
                out.append(elem)
            continue
        classes = elem.get("class") or ()
        if any(c in classes for c in FOCUSABLE) and any("jp-Notebook" in (p.get("class") or ())
                                                         for p in elem.parents if p.name != "[document]"):
            out.append(elem)
    return out


def without_silent_cells(nb: Any) -> Any:
    """A copy of ``nb`` without the code cells that showed nothing (the stages that only compute): with inputs
    hidden they would be blank space on the page, pushing the answer below the fold."""
    import copy

    out = copy.copy(nb)
    out.cells = [c for c in nb.cells if c.get("cell_type") != "code" or c.get("outputs")]
    return out


def export_html(nb: Any) -> str:
    """The executed notebook as one self-contained HTML page (the notebook puts the answer first: its
    ``decision_summary`` cell is the first with an output). The page is written by :mod:`.page_writer` as nbconvert's
    template would write it, then as Beautiful Soup's pass writes it back (:func:`.svg_markup.page_as_soup_writes`;
    that pass itself beyond its subset); a notebook outside the writer's subset is exported by nbconvert. Raises
    :class:`ReportError` when the page would load anything from the network."""
    from .page_writer import raw_page
    from .svg_markup import page_as_soup_writes

    shown = without_silent_cells(nb)
    marked, svgs = _svgs_set_aside(shown)
    raw = raw_page(marked)
    if raw is None:
        body, _resources = html_exporter().from_notebook_node(shown)
    else:
        page = page_as_soup_writes(raw)  # Beautiful Soup's pass without its parse, for the plain page
        if page is None:
            page, missing_alt = _one_walk(raw)
            if missing_alt:
                logging.getLogger("costmodel").warning("Alternative text is missing on %s image(s).", missing_alt)
        body = _svgs_put_back(page, svgs)
    ext = external_references(body)
    if ext:
        raise ReportError(f"the exported HTML would load {len(ext)} resource(s) from the network, e.g. {ext[0][:120]!r}")
    return body
