"""The packaged notebooks in JupyterLab 4, offline, in Debian's chromium driven by Playwright.

One JupyterLab server (127.0.0.1, random port, token) serves copies of the packaged notebooks from a
temporary working folder; every notebook is run with *Run All*; the test fails on an error output, a
chart that is not drawn, or a request leaving 127.0.0.1 (all requests are routed; others are aborted
and recorded). The checklist wizard is clicked through and saved; a what-if slider is moved and the
chart must redraw. Screenshots are kept in tests/artifacts/lab-*.png. ``make test-browser`` runs them.
"""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
from support.lab import (
    CHROMIUM,
    CHROMIUM_ARGS,
    JS_CHARTS,
    JS_OUTPUTS,
    JS_READY,
    JS_RUN_ALL,
    Lab,
    copy_notebooks,
    error_outputs,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _need(what: str, ok: bool) -> None:
    if not ok:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests need {what} (make test installs it)")
        pytest.skip(f"browser tests need {what}")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    _need(f"Debian's chromium at {CHROMIUM} (apt-get install chromium)", Path(CHROMIUM).exists())
    try:
        import playwright  # noqa: F401
    except ImportError:
        _need('playwright (pip install -e ".[dev]" in a clone)', False)
    root = tmp_path_factory.mktemp("lab")
    work = root / "work"
    copy_notebooks(work)
    server = Lab(work, root / "state", root / "jupyter.log")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser(lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(lab, browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.set_default_timeout(120_000)
    blocked: list[str] = []

    def route(r):
        if lab.is_local(r.request.url):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    ctx.route("**/*", route)
    pg = ctx.new_page()
    pg.blocked = blocked  # type: ignore[attr-defined]
    console_errors: list[str] = []
    pg.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    pg.console_errors = console_errors  # type: ignore[attr-defined]
    yield pg
    ctx.close()
    assert blocked == [], f"requests leaving 127.0.0.1 were made (aborted): {blocked[:10]}"


def _open_and_run(page, lab, name: str, artifacts: Path) -> list[dict]:
    page.goto(lab.url(f"/lab/tree/{name}") + "&reset")
    page.wait_for_function("() => !!(window.jupyterapp && document.querySelector('.jp-Notebook .jp-Cell'))")
    page.wait_for_function(JS_READY, polling=500)
    t0 = time.monotonic()
    page.evaluate(JS_RUN_ALL)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-Notebook .jp-InputArea-prompt')].every(e => !e.textContent.includes('*'))",
        polling=500)
    elapsed = time.monotonic() - t0
    page.wait_for_timeout(500)
    cells = page.evaluate(JS_OUTPUTS)
    page.screenshot(path=str(artifacts / f"lab-{Path(name).stem}.png"), full_page=True)
    (artifacts / f"lab-{Path(name).stem}.json").write_text(json.dumps({"run_all_s": round(elapsed, 1), "cells": cells},
                                                                       indent=1))
    code_prompts = [c["prompt"] for c in cells if c["prompt"].strip()]
    assert code_prompts and all("[ ]" not in p for p in code_prompts), f"cells not run: {code_prompts}"
    assert error_outputs(cells) == []
    return cells


def _charts(page) -> list[dict]:
    return page.evaluate(JS_CHARTS)


def _assert_drawn(charts: list[dict], at_least: int) -> None:
    drawn = [c for c in charts if c["complete"] and c["width"] > 50 and c["height"] > 20 and c["marks"] > 3]
    assert len(charts) >= at_least and len(drawn) == len(charts), charts


def test_report_notebook_runs_offline_and_draws_every_chart(page, lab, artifacts_dir):
    _open_and_run(page, lab, "report.ipynb", artifacts_dir)
    # throughput (each run once, on shared scales), cost terms, break-even, tornado, Monte Carlo (issue 26)
    _assert_drawn(_charts(page), 5)
    first = page.locator('.jp-OutputArea-output [data-cm="recommendation"]')
    assert first.count() == 1 and "Take: " in (first.text_content() or "")  # the first screen, in JupyterLab too


def test_checklist_wizard_clicks_through_and_saves_into_the_working_folder(page, lab, artifacts_dir):
    from costmodel.foundation.resources import EXAMPLES_DIR

    example_answers = EXAMPLES_DIR / "answers.yaml"
    example_before = example_answers.read_bytes()
    _open_and_run(page, lab, "checklist.ipynb", artifacts_dir)
    wizard = page.locator(".jp-OutputArea-output .widget-vbox").filter(has_text="Answers file").first
    wizard.wait_for()
    path_field = wizard.locator(".widget-text input").first
    target = Path(path_field.input_value())
    assert target.parent == lab.work and not target.exists()  # a new file in the working folder
    from playwright.sync_api import expect

    next_button = wizard.get_by_role("button", name="Next")
    label = wizard.locator(".widget-label").filter(has_text=re.compile(r"answered")).first
    m = re.search(r"item 1 of (\d+) · (\d+) of \d+ answered", label.inner_text())
    assert m, label.inner_text()
    n_items, answered = int(m.group(1)), int(m.group(2))
    assert n_items >= 5 and answered == 8  # the bundled example's answers, loaded
    # answer the first item: the live count follows
    wizard.locator(".widget-toggle-buttons").first.get_by_role("button", name="not answered").click()
    expect(label).to_contain_text(f"{answered - 1} of {n_items} answered", timeout=60_000)
    for i in range(1, n_items + 1):
        expect(label).to_contain_text(f"item {i} of {n_items}", timeout=60_000)
        assert "Evidence" in wizard.inner_text()  # each item's page shows its evidence
        next_button.click()
    expect(label).to_contain_text("summary", timeout=60_000)
    expect(next_button).to_be_disabled(timeout=60_000)
    assert "Summary" in wizard.inner_text()
    wizard.get_by_role("button", name="Back").click()
    verdict = wizard.locator("text=Verdict:").first
    assert verdict.inner_text().split(":")[1].strip().split()[0] in ("GO", "CONDITIONAL", "NO_GO")
    save = wizard.get_by_role("button", name="Save answers")
    save.click()
    expect(wizard).to_contain_text(f"saved {answered - 1} answers to {target}", timeout=60_000)
    assert target.is_file() and "reread_fits_cache" not in target.read_text()
    first = target.read_text()
    # saving again asks first; Cancel keeps the file, only Overwrite replaces it
    target.write_text("answers: {}\n")
    save.click()
    overwrite = wizard.get_by_role("button", name="Overwrite")
    expect(overwrite).to_be_visible(timeout=60_000)
    expect(wizard).to_contain_text("exists")
    wizard.get_by_role("button", name="Cancel").click()
    expect(wizard).to_contain_text("the existing file is kept", timeout=60_000)
    assert target.read_text() == "answers: {}\n"
    save.click()
    expect(overwrite).to_be_visible(timeout=60_000)
    overwrite.click()
    expect(overwrite).to_be_hidden(timeout=60_000)
    expect(wizard).to_contain_text(f"saved {answered - 1} answers to {target}", timeout=60_000)
    assert target.read_text() == first
    assert example_answers.read_bytes() == example_before  # the installed example is never written
    page.screenshot(path=str(artifacts_dir / "lab-checklist-wizard.png"), full_page=True)


def test_whatif_notebook_draws_offline_and_a_slider_redraws_the_chart(page, lab, artifacts_dir):
    _open_and_run(page, lab, "whatif.ipynb", artifacts_dir)
    charts = _charts(page)
    # curve, cost, invalidation curve, and the sliders' curve
    _assert_drawn(charts, 4)
    controls = page.locator(".jp-OutputArea-output .widget-vbox").filter(has_text="RTT (ms)").first
    controls.wait_for()
    before = controls.locator("img").first.get_attribute("src")
    handle = controls.locator(".widget-slider").first.locator(".noUi-handle").first
    handle.focus()
    t0 = time.monotonic()
    page.keyboard.press("ArrowRight")  # one step: 5 ms more RTT, one redraw
    page.wait_for_function(
        "(before) => { const i = [...document.querySelectorAll('.jp-OutputArea-output .widget-vbox img')]; "
        "return i.length && i.some(e => e.complete && e.naturalWidth > 0) && !i.some(e => e.getAttribute('src') === before); }",
        arg=before, polling=100)
    redraw_s = time.monotonic() - t0
    (artifacts_dir / "lab-whatif-slider.json").write_text(json.dumps({"redraw_s": round(redraw_s, 2)}))
    print(f"what-if slider redraw: {redraw_s:.2f} s")
    after_cells = page.evaluate(JS_OUTPUTS)
    assert error_outputs(after_cells) == []
    _assert_drawn(_charts(page), 4)
    page.screenshot(path=str(artifacts_dir / "lab-whatif-slider.png"), full_page=True)


def test_the_network_guard_catches_a_request_leaving_the_machine(page, lab):
    """The guard the other tests rely on: a page asking a CDN (what Altair's default renderer does) is
    recorded and gets nothing."""
    page.goto(lab.url("/lab/tree/report.ipynb"))
    page.wait_for_function("() => !!window.jupyterapp")
    got = page.evaluate("""() => fetch('https://cdn.jsdelivr.net/npm/vega@6?noext').then(() => 'loaded', () => 'failed')""")
    assert got == "failed"
    assert page.blocked == ["https://cdn.jsdelivr.net/npm/vega@6?noext"]
    page.blocked.clear()  # expected here; the fixture fails any other test that has one
