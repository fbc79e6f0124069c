"""nbconvert's own export of a notebook before its Beautiful Soup pass (the oracle of
tests/report/test_page_writer.py), and the page head :mod:`costmodel.report.page_writer` ships
(``costmodel/data/page/head.html``), taken from it::

    make page-head       # = PYTHONPATH=tests .venv/bin/python -m support.page_head --write

Run it when the report's CSS (:data:`costmodel.report.html_export._TEMPLATE`) changes, or to take the head from a
newer nbconvert (then set ``page_writer.HEAD_FROM`` to the versions installed); review ``git diff`` after it.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from costmodel.foundation.resources import PAGE_DIR
from costmodel.report import page_writer

HEAD_FILE = PAGE_DIR / "head.html"


def nbconvert_raw(nb: Any) -> str:
    """``nb`` exported by nbconvert with the report's exporter (:func:`costmodel.report.html_export.html_exporter`)
    up to, not including, its Beautiful Soup pass."""
    from nbconvert.exporters.templateexporter import TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

    from costmodel.report.html_export import html_exporter

    exporter = html_exporter()
    resources = exporter._init_resources(None)
    exporter.register_filter("highlight_code", Highlight2HTML(pygments_lexer="ipython3", parent=exporter))
    exporter.register_filter("filter_data_type", WidgetsDataTypeFilter(
        notebook_metadata=exporter._nb_metadata, parent=exporter, resources=resources))
    html, _ = TemplateExporter.from_notebook_node(exporter, nb, resources)
    return html


def head_text() -> str:
    """The head as nbconvert writes it (up to ``<main>``), its title the slot the writer fills."""
    import nbformat.v4 as v4

    nb = v4.new_notebook(cells=[v4.new_markdown_cell("x")])
    nb.metadata["title"] = page_writer._TITLE_SLOT[len("<title>"):-len("</title>")]
    raw = nbconvert_raw(nb)
    head = raw[:raw.index("<main>") + len("<main>")]
    if head.count(page_writer._TITLE_SLOT) != 1:
        raise SystemExit("the title slot is not in nbconvert's head exactly once")
    return head


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="rewrite costmodel/data/page/head.html")
    a = ap.parse_args(argv)
    head = head_text()
    if a.write:
        HEAD_FILE.write_text(head, encoding="utf-8")
        print(f"wrote {HEAD_FILE} ({len(head):,} characters)")
        return 0
    same = HEAD_FILE.is_file() and HEAD_FILE.read_text(encoding="utf-8") == head
    print("head.html is what this nbconvert writes" if same else "head.html differs from this nbconvert's head")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
