"""The report's HTML exporter (issue 42 item 5): nbconvert's HTMLExporter with its three CSS selects done as one walk
over the parsed page must write the stock exporter's bytes, on the report itself and on a notebook that has every
kind of element the selects pick (an image without alternative text, an output div inside the notebook, the same
classes outside it)."""
from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from costmodel.report import html_export

pytest.importorskip("nbconvert")


def _stock_exporter():
    from nbconvert import HTMLExporter

    return HTMLExporter(template_name="lab", raw_template=html_export._TEMPLATE, exclude_input=True,
                        exclude_input_prompt=True, exclude_output_prompt=True, embed_images=True)


def _both(nb):
    ours, _ = html_export.html_exporter().from_notebook_node(nb)
    stock, _ = _stock_exporter().from_notebook_node(nb)
    return ours, stock


def test_the_report_page_is_the_stock_exporters_byte_for_byte(examples_dir, tmp_path):
    from costmodel.report import params
    from costmodel.report import render as render_mod

    p = params.validate_parameters(colocated=[str(examples_dir / "colocated_steps.csv")],
                                   remote=[str(examples_dir / "remote_steps.csv")],
                                   scenario=str(examples_dir / "scenario.yaml"),
                                   answers=str(examples_dir / "answers.yaml"), date="2026-01-01", monte_carlo_n=300)
    render_mod.render_params(p, tmp_path / "out")
    nb = nbformat.read(str(tmp_path / "out" / "report.ipynb"), as_version=4)
    nb.metadata["title"] = "t"
    ours, stock = _both(html_export.without_silent_cells(nb))
    assert ours == stock
    assert ours.count('tabindex="0"') >= 10  # every output div of the page got its tabindex


def test_images_without_alt_and_divs_inside_and_outside_the_notebook():
    html = ('<div class="jp-OutputArea-output x">inside an output</div>'
            '<div class="jp-Cell-inputWrapper">an input wrapper in an output</div>'
            '<span class="jp-OutputArea-output">not a div</span>'
            '<img src="data:image/png;base64,iVBORw0KGgo=">'
            '<img alt="has one" src="data:image/png;base64,iVBORw0KGgo=">')
    nb = new_notebook(cells=[
        new_markdown_cell('text <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="> more'),
        new_code_cell("x", outputs=[new_output("display_data", data={"text/html": html, "text/plain": "x"})]),
    ])
    nb.metadata["title"] = "t"
    ours, stock = _both(nb)
    assert ours == stock
    assert ours.count("No description has been provided for this image") == 2
    assert '<span class="jp-OutputArea-output">' in ours  # a span is not selected: no tabindex
