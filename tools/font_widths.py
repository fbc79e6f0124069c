"""Measure vl-convert's text widths and write ``costmodel/charts/svg/font_widths.py``.

    PYTHONPATH=$PWD python tools/font_widths.py            # writes the module
    PYTHONPATH=$PWD python tools/font_widths.py --check    # exits 1 when the module differs

vl-convert gives Vega a ``textMetrics.width`` that lays the text out with usvg (rustybuzz shaping, so
kerning applies) in the font its fontdb picks for ``sans-serif``: Arial, else Helvetica, else Liberation
Sans (a system copy before the one vl-convert vendors). The probe: a Vega-Lite symbol legend laid out in
one row (``direction: horizontal, columns: 0``), one label per column, so that each entry's background is
as wide as its own content: ``label x + label width``. Both numbers are read back from the SVG, so the
width of each label is exact (Vega writes them at full precision).

Measured at ``PROBE_PX`` = the font's units per em (2048), where every advance and kerning value is a whole
number of font units; the module stores them in em (units / 2048, exact binary fractions). The tool checks
that widths at 11, 12.5 and 15 px are the 2048 px ones scaled (linear, no hinting) before it writes.

Kerning: every ordered pair of the measured characters (space included, as the middle of ``"n n"``-style
probes, since usvg strips leading and trailing spaces) is measured as a two-character label; a pair whose
width differs from the sum of the two advances is a kerning pair. vl-convert needs no more than pairs:
the font's kerning is pair positioning (checked on the triples of ``TRIPLES``).

To measure vl-convert's vendored Liberation Sans 2.x on a machine that has a system copy, hide the system
fonts from it, e.g. ``unshare -rm sh -c 'mount --bind EMPTY_DIR /usr/share/fonts && python tools/...'``.
"""
from __future__ import annotations

import argparse
import html
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

PROBE_PX = 2048
UNITS_PER_EM = 2048
BATCH = 1200
OUT = Path(__file__).resolve().parent.parent / "costmodel" / "charts" / "svg" / "font_widths.py"

#: characters beyond printable ASCII a report may show (all in the WGL4 set Liberation Sans covers)
EXTRA = (
    "\u2013\u2014\u00d7\u2265\u2264\u00b1\u00b5\u00b7\u2026\u00b0\u2030\u2248\u2192\u2190\u2018\u2019"
    "\u201c\u201d\u2212\u00e9\u00e8\u00ea\u00e0\u00e1\u00e2\u00e4\u00f6\u00fc\u00c4\u00d6\u00dc\u00df"
    "\u00e7\u00f1\u00ed\u00f3\u00fa\u00c9\u00b2\u00b3\u00b9\u00bd\u00bc\u00be\u20ac\u00a3\u00a5\u00a7"
    "\u00a9\u00ae\u2122\u2022\u2032\u2033\u2260\u221e\u221a\u2211\u0394\u03b1\u03b2\u03b3\u03b4"
    "\u03bb\u03bc\u03c0\u03c3\u00b6\u00ab\u00bb\u2191\u2193\u2194\u00a0"
)
ASCII = "".join(chr(c) for c in range(33, 127))
TRIPLES = ("AVA", "LTA", "Te.", "P.A", "ffi", "r.,", "Yo,", "W.A")
_ENTRY = re.compile(
    r'<path class="background" aria-hidden="true" d="M0,0h([0-9.e+-]+)v[^"]*" pointer-events="none" '
    r'opacity="1"/><g><g class="mark-symbol role-legend-symbol".*?</g>'
    r'<g class="mark-text role-legend-label" pointer-events="none"><text [^>]*?transform="translate\(([0-9.e+-]+),'
    r'[^)]*\)"[^>]*>([^<]*)</text>'
)


def measure(labels: Iterable[str], px: float, bold: bool) -> dict[str, float]:
    """vl-convert's width in px of each label (leading/trailing spaces are stripped by usvg: avoid them)."""
    import vl_convert as vlc

    todo = list(dict.fromkeys(labels))
    out: dict[str, float] = {}
    for start in range(0, len(todo), BATCH):
        chunk = todo[start:start + BATCH]
        spec = {
            "data": {"values": [{"c": s, "x": i} for i, s in enumerate(chunk)]},
            "mark": "point",
            "encoding": {
                "x": {"field": "x", "type": "quantitative"},
                "color": {"field": "c", "type": "nominal", "sort": None, "legend": {
                    "labelFontSize": px, "labelLimit": 0, "labelFontWeight": "bold" if bold else "normal",
                    "direction": "horizontal", "columns": 0, "gridAlign": "each", "symbolLimit": 0}},
            },
        }
        svg = vlc.vegalite_to_svg(spec)
        got = {html.unescape(m.group(3)): float(m.group(1)) - float(m.group(2)) for m in _ENTRY.finditer(svg)}
        missing = [s for s in chunk if s not in got]
        if missing:
            raise RuntimeError(f"the probe lost {len(missing)} label(s), e.g. {missing[:5]!r}")
        out.update((s, got[s]) for s in chunk)
    return out


def _units(px_width: float) -> int:
    units = px_width * UNITS_PER_EM / PROBE_PX
    if abs(units - round(units)) > 1e-3:
        raise RuntimeError(f"width {px_width} at {PROBE_PX} px is not a whole number of font units")
    return round(units)


def tables(bold: bool) -> tuple[dict[str, int], dict[str, int]]:
    """(advance in font units per character, kerning in font units per nonzero pair)."""
    chars = ASCII + EXTRA
    singles = measure([c for c in chars if c != "\u00a0"] + ["nn", "n n", "n\u00a0n"], PROBE_PX, bold)
    adv = {c: _units(singles[c]) for c in chars if c != "\u00a0"}
    if _units(singles["nn"]) != 2 * adv["n"]:
        raise RuntimeError("'n' kerns with itself: the probe needs another neutral letter")
    adv[" "] = _units(singles["n n"]) - 2 * adv["n"]
    adv["\u00a0"] = _units(singles["n\u00a0n"]) - 2 * adv["n"]
    nonspace = [c for c in chars if c != "\u00a0"]  # a label of no-break spaces alone measures 0
    pairs = [a + b for a in nonspace for b in nonspace]
    spaced = [a + " n" for a in nonspace] + ["n " + b for b in nonspace]
    got = measure(pairs + spaced, PROBE_PX, bold)
    kern: dict[str, int] = {}
    for a in nonspace:
        for b in nonspace:
            k = _units(got[a + b]) - adv[a] - adv[b]
            if k:
                kern[a + b] = k
    for a in nonspace:
        k = _units(got[a + " n"]) - adv[a] - adv[" "] - adv["n"] - kern.get(" n", 0)
        if k:
            kern[a + " "] = k
    for b in nonspace:
        k = _units(got["n " + b]) - adv["n"] - adv[" "] - adv[b] - kern.get("n ", 0)
        if k:
            kern[" " + b] = k
    if kern.get("n ") or kern.get(" n"):
        raise RuntimeError("'n' kerns with the space: the space probes need another neutral letter")
    return adv, kern


def _predicted(text: str, adv: dict[str, int], kern: dict[str, int]) -> int:
    return sum(adv[c] for c in text) + sum(kern.get(text[i:i + 2], 0) for i in range(len(text) - 1))


def check_model(adv: dict[str, int], kern: dict[str, int], bold: bool) -> None:
    """Triples follow from pairs, and widths scale linearly with the font size."""
    got = measure(TRIPLES, PROBE_PX, bold)
    for t in TRIPLES:
        if _units(got[t]) != _predicted(t, adv, kern):
            raise RuntimeError(f"{t!r}: {got[t]} measured, {_predicted(t, adv, kern)} from pairs")
    words = ["copy delay (cluster time)", "Monte Carlo: 2,000 draws", "\u221220", "AVATAR", "Tokyo"]
    for px in (11.0, 12.5, 15.0):
        for word, w in measure(words, px, bold).items():
            want = _predicted(word, adv, kern) * px / UNITS_PER_EM
            if abs(w - want) > 1e-4:
                raise RuntimeError(f"{word!r} at {px} px: {w} measured, {want} scaled from {PROBE_PX} px")


def _fmt_table(name: str, doc: str, table: dict[str, int]) -> list[str]:
    lines = [f"#: {doc}", f"{name}: dict[str, float] = {{"]
    items = [f"{k!a}: {v / UNITS_PER_EM!r}," for k, v in table.items()]  # ascii: no look-alikes
    row = "   "
    for item in items:
        if len(row) + 1 + len(item) > 110:
            lines.append(row)
            row = "   "
        row += " " + item
    lines.append(row)
    lines.append("}")
    return lines


def render_module(found: dict[bool, tuple[dict[str, int], dict[str, int]]], fingerprint: dict[str, float],
                  vlc_version: str) -> str:
    """The generated module's source."""
    lines = [
        "# Generated by tools/font_widths.py: do not edit. Regenerate with",
        "#     PYTHONPATH=$PWD python tools/font_widths.py",
        f"# Measured through vl-convert {vlc_version} (a one-row symbol legend per batch of labels: each entry's",
        f"# background width minus its label's x) at {PROBE_PX} px, where widths are whole font units; stored in em.",
        "# The font is the one vl-convert's fontdb takes for sans-serif on the measuring machine: Liberation Sans",
        "# (metric-compatible with Arial: same advances; kerning pairs differ between fonts and versions).",
        '"""Advance widths and kerning of vl-convert\'s sans-serif (em per character / per ordered pair)."""',
        "from __future__ import annotations",
        "",
        "#: the width in px of each of these texts at 2048 px, as measured: which font the tables describe",
        f"FINGERPRINT_2048PX: dict[str, float] = {fingerprint!r}",
        "",
    ]
    for bold, label in ((False, "REGULAR"), (True, "BOLD")):
        adv, kern = found[bold]
        weight = "bold" if bold else "regular"
        lines += _fmt_table(f"{label}_EM", f"advance of each character, {weight}, in em", adv)
        lines.append("")
        lines += _fmt_table(f"{label}_KERN_EM", f"kerning of each ordered pair that has one, {weight}, in em",
                            kern)
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


FINGERPRINT_TEXTS = ("AV", "Te", "11", "A A", "ff")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the module instead of writing it")
    args = parser.parse_args(argv)
    import vl_convert as vlc

    found: dict[bool, tuple[dict[str, int], dict[str, int]]] = {}
    for bold in (False, True):
        adv, kern = found[bold] = tables(bold)
        check_model(adv, kern, bold)
    fingerprint = measure(FINGERPRINT_TEXTS, PROBE_PX, False)
    source = render_module(found, fingerprint, str(getattr(vlc, "__version__", "?")))
    if args.check:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == source
        print("up to date" if same else f"{OUT} differs from what vl-convert measures now")
        return 0 if same else 1
    OUT.write_text(source, encoding="utf-8")
    n_kern = {b: len(found[b][1]) for b in found}
    print(f"wrote {OUT}: {len(found[False][0])} characters, {n_kern[False]} regular and {n_kern[True]} bold "
          "kerning pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
