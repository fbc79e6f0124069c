"""A rendered report measured in a real browser: Debian's chromium (``/usr/bin/chromium``, driven by
Playwright for Python, no browser download, every network request aborted) opens the page at a given
viewport and reports what a person would see: horizontal overflow, text that overlaps other text (HTML
and the text inside the inline SVG charts: colliding axis labels count), and where the first screen's
marked elements (``data-cm="..."``) end."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .lab import CHROMIUM, CHROMIUM_ARGS

#: Every non-blank text node's line boxes, then the pairs of different nodes whose boxes intersect by more
#: than 2 px both ways (sorted by top, so the scan stays near-linear).
_MEASURE_JS = r"""
() => {
  const boxes = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let n, id = 0;
  while ((n = walker.nextNode())) {
    if (!n.textContent.trim()) continue;
    const p = n.parentElement;
    if (!p || ['STYLE', 'SCRIPT', 'TITLE', 'NOSCRIPT'].includes(p.tagName.toUpperCase())) continue;
    const cs = getComputedStyle(p);
    if (cs.visibility === 'hidden' || cs.display === 'none' || cs.opacity === '0') continue;
    const r = document.createRange(); r.selectNodeContents(n);
    id += 1;
    for (const b of r.getClientRects()) {
      if (b.width < 1 || b.height < 1) continue;
      boxes.push({id, text: n.textContent.trim().slice(0, 60), l: b.left + scrollX, t: b.top + scrollY,
                  r: b.right + scrollX, b: b.bottom + scrollY});
    }
  }
  boxes.sort((a, b) => a.t - b.t);
  const overlaps = [];
  for (let i = 0; i < boxes.length; i++) {
    const a = boxes[i];
    for (let j = i + 1; j < boxes.length && boxes[j].t < a.b - 2; j++) {
      const c = boxes[j];
      if (c.id === a.id) continue;
      const w = Math.min(a.r, c.r) - Math.max(a.l, c.l), h = Math.min(a.b, c.b) - Math.max(a.t, c.t);
      if (w > 2 && h > 2) overlaps.push([a.text, c.text, Math.round(a.l), Math.round(a.t)]);
    }
  }
  const marked = {};
  for (const el of document.querySelectorAll('[data-cm]')) {
    const b = el.getBoundingClientRect();
    marked[el.getAttribute('data-cm')] = {top: b.top + scrollY, bottom: b.bottom + scrollY, left: b.left, right: b.right};
  }
  const doc = document.documentElement;
  return {overflow_px: Math.max(doc.scrollWidth, document.body.scrollWidth) - doc.clientWidth,
          overlaps: overlaps.slice(0, 50), n_text_boxes: boxes.length, marked,
          height: doc.scrollHeight};
}
"""


@dataclass
class Layout:
    """What the browser measured on one page at one viewport."""

    width: int
    height: int
    overflow_px: int
    overlaps: list[list[Any]]
    n_text_boxes: int
    marked: dict[str, dict[str, float]] = field(default_factory=dict)
    page_height: int = 0
    requests_blocked: list[str] = field(default_factory=list)

    def above_the_fold(self, name: str) -> bool:
        box = self.marked.get(name)
        return box is not None and box["bottom"] <= self.height


def measure(page_path: Path, viewports: list[tuple[int, int]], screenshots: Path | None = None,
            element_shots: dict[str, str] | None = None) -> list[Layout]:
    """Open ``page_path`` (a local HTML file) at each ``(width, height)`` and measure it; with ``screenshots`` a
    PNG of the first screen per viewport is saved there (``report-WIDTHxHEIGHT.png``); ``element_shots`` maps a
    CSS selector to a file name for screenshots of single elements (first viewport)."""
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for k, (w, h) in enumerate(viewports):
                page = browser.new_page(viewport={"width": w, "height": h})
                blocked: list[str] = []

                def route(r: Any, blocked: list[str] = blocked) -> None:
                    if r.request.url.startswith(("file:", "data:", "blob:", "about:")):
                        r.continue_()
                    else:
                        blocked.append(r.request.url)
                        r.abort()

                page.route("**/*", route)
                page.goto(page_path.resolve().as_uri())
                page.wait_for_load_state("load")
                m = page.evaluate(_MEASURE_JS)
                if screenshots is not None:
                    page.screenshot(path=str(screenshots / f"report-{w}x{h}.png"))
                if element_shots and k == 0 and screenshots is not None:
                    for sel, name in element_shots.items():
                        for i, el in enumerate(page.query_selector_all(sel)):
                            el.screenshot(path=str(screenshots / f"{name}-{i}.png"))
                out.append(Layout(w, h, int(m["overflow_px"]), m["overlaps"], int(m["n_text_boxes"]), m["marked"],
                                  int(m["height"]), blocked))
                page.close()
        finally:
            browser.close()
    return out


#: The printable width of an A4 page with the report's 12 mm margins, in CSS pixels (96 per inch).
A4_PRINTABLE_PX = round((210 - 2 * 12) / 25.4 * 96)


def a4_widths(page_path: Path) -> dict[str, Any]:
    """The page laid out for print (``@media print``) at an A4 page's printable width: each table's and chart's
    width and the width its content needs, and the page's overflow."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": A4_PRINTABLE_PX, "height": 1100})
            page.emulate_media(media="print")
            page.goto(page_path.resolve().as_uri())
            return page.evaluate("""() => ({
              items: [...document.querySelectorAll('table.cm-table, .jp-RenderedSVG svg')].map(t => ({
                kind: t.tagName.toLowerCase(), width: t.getBoundingClientRect().width, needs: t.scrollWidth || 0,
                right: t.getBoundingClientRect().right,
                caption: ((t.previousElementSibling || {}).textContent || '').slice(0, 60)})),
              overflow_px: document.documentElement.scrollWidth - document.documentElement.clientWidth})""")
        finally:
            browser.close()
