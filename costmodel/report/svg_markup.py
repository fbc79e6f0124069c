"""A drawn chart's SVG, and the whole report page, as the HTML export writes it, without parsing it into a tree.

The export (:mod:`.html_export`) parses the whole page with Beautiful Soup (``html.parser``) and writes it back;
the charts' SVGs are most of that page (two rank heatmaps of a 1,000-rank fleet are 0.8 MB of it), and the tree of
their ~20,000 elements cost ~0.8 CPU-s to build and write. :func:`as_soup_writes` writes the same bytes as that round
trip for the SVGs vl-convert draws, in one pass of regular expressions: tag and attribute names lower-cased (as
``html.parser`` reads them), attributes sorted and each written ``name="value"`` (Beautiful Soup's default
formatter), character references read and ``&``, ``<`` and ``>`` written as entities, ``class`` values split on
white space and joined by one space, ``<tag/>`` written ``<tag></tag>``. Markup outside that plain subset (comments,
declarations, processing instructions, ``script`` / ``style``, unquoted or single-quoted attributes, HTML's void
elements, unbalanced tags) gives None: the caller leaves that SVG to Beautiful Soup. Tested byte for byte against
the round trip (tests/report/test_svg_markup.py).

:func:`page_as_soup_writes` does the same for the whole page the page writer (:mod:`.page_writer`) makes, with the
rest of the export's last step: ``tabindex="0"`` on the ``div``s of the input and output wrappers inside the notebook.
It also takes the page's doctype, its void elements (``<meta>``, ``<br>``: written ``<br/>``) and the text of
``<style>`` and ``<script>`` (written as it is); an image (its missing ``alt`` is the parser's step) or anything else
outside that subset gives None, and the page goes through Beautiful Soup.
"""
from __future__ import annotations

import html
import re

_START = re.compile(r'<([A-Za-z][^\s/>]*)((?:\s+[^\s"\'<>/=]+="[^"<]*")*)\s*(/?)>')
_END = re.compile(r"</([A-Za-z][^\s/>]*)\s*>")
_ATTR = re.compile(r'([^\s"\'<>/=]+)="([^"<]*)"')
_SPECIAL = re.compile(r"[&<>]")
_ASCII_SPACES = " \n\t\f\r"
_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
#: Attributes whose value Beautiful Soup reads as a list of words (its HTML builder's default, on any element).
_WORD_LISTS = frozenset({"class", "accesskey", "dropzone"})


#: Beautiful Soup's HTML builder's empty-element tags: written ``<tag/>``, never closed. ``img`` is not here: its
#: missing ``alt`` text is added by the parser's pass (:func:`costmodel.report.html_export._one_walk`).
_VOID = frozenset({
    "area", "base", "br", "col", "embed", "hr", "input", "keygen", "link", "menuitem", "meta", "param", "source",
    "track", "wbr", "basefont", "bgsound", "command", "frame", "image", "isindex", "nextid", "spacer",
})
#: ``html.parser``'s elements of raw text (its CDATA content elements): their text is written as it is.
_RAW_TEXT = frozenset({"script", "style"})
#: Read by ``html.parser`` in ways this module does not follow (raw text in some Python versions, or images).
_NOT_PLAIN_IN_PAGE = frozenset({"img", "textarea", "template", "noscript", "xmp", "iframe", "noembed", "noframes",
                                "plaintext"})
_DOCTYPE = "<!DOCTYPE html>"
#: In a chart's SVG, every element Beautiful Soup writes as ``<tag/>`` or whose text ``html.parser`` reads raw (and
#: ``title``) is left to the parser.
_NOT_PLAIN = _VOID | _RAW_TEXT | _NOT_PLAIN_IN_PAGE | {"title"}
#: The classes whose ``div``s inside an element of class ``jp-Notebook`` get ``tabindex="0"`` (nbconvert's step;
#: also :func:`costmodel.report.html_export._focusable_and_images`).
FOCUSABLE = ("jp-Cell-inputWrapper", "jp-OutputArea-output")


def _text(raw: str, keep_spaces: bool = False) -> str:
    """Text as Beautiful Soup writes it: character references read, ``&<>`` written as entities, and a string of
    white space alone written as one line break (when it holds one) or one space (outside ``<pre>``:
    ``keep_spaces``)."""
    value = html.unescape(raw) if "&" in raw else raw
    if not keep_spaces and not value.strip(_ASCII_SPACES):
        return "\n" if "\n" in value else " "
    if "&" not in value and "<" not in value and ">" not in value:
        return value
    return _SPECIAL.sub(lambda m: _ENTITY[m.group(0)], value)


def _attribute(name: str, raw: str) -> str:
    value = html.unescape(raw) if "&" in raw else raw
    if name in _WORD_LISTS:
        value = " ".join(value.split())
    value = _SPECIAL.sub(lambda m: _ENTITY[m.group(0)], value)
    if '"' in value:
        if "'" in value:
            return f'{name}="{value.replace(chr(34), "&quot;")}"'
        return f"{name}='{value}'"
    return f'{name}="{value}"'


def as_soup_writes(svg: str) -> str | None:
    """``svg`` as Beautiful Soup (``html.parser``, default formatter) writes it back inside an HTML page, or None
    when it holds markup outside the plain subset this handles (module docstring)."""
    return _soup_writes(svg, refused=_NOT_PLAIN, void=frozenset(), raw_text=frozenset())


def page_as_soup_writes(page: str) -> str | None:
    """``page`` (an HTML page as :mod:`.page_writer` writes it) as the export's Beautiful Soup pass writes it back
    (``html.parser``, default formatter, ``tabindex="0"`` on the input and output wrappers' ``div``s inside the
    notebook), or None when it holds markup outside the subset this handles (module docstring)."""
    return _soup_writes(page, refused=_NOT_PLAIN_IN_PAGE, void=_VOID, raw_text=_RAW_TEXT)


def _soup_writes(page: str, refused: frozenset[str], void: frozenset[str], raw_text: frozenset[str]) -> str | None:
    """``page`` as Beautiful Soup writes it back with the export's ``tabindex`` step, or None when an element of
    ``refused`` or markup outside the plain subset appears; the elements of ``void`` are written ``<tag/>`` and never
    closed, those of ``raw_text`` keep their text as it is."""
    out: list[str] = []
    stack: list[tuple[str, bool]] = []  # open elements: (name, it or an ancestor has class jp-Notebook)
    in_pre = 0  # open <pre> elements: white space kept as it is
    pos = 0
    if page.startswith(_DOCTYPE):
        out.append(_DOCTYPE + "\n")  # Beautiful Soup ends a doctype with a line break of its own
        pos = len(_DOCTYPE)
    n = len(page)
    while pos < n:
        lt = page.find("<", pos)
        if lt < 0:
            out.append(_text(page[pos:], keep_spaces=in_pre > 0))
            break
        if lt > pos:
            out.append(_text(page[pos:lt], keep_spaces=in_pre > 0))
        if page.startswith("</", lt):
            m = _END.match(page, lt)
            if m is None:
                return None
            name = m.group(1).lower()
            if not stack or stack[-1][0] != name:
                return None
            stack.pop()
            in_pre -= name == "pre"
            out.append(f"</{name}>")
            pos = m.end()
            continue
        m = _START.match(page, lt)
        if m is None:
            return None
        name = m.group(1).lower()
        if name in refused:
            return None
        attrs: dict[str, str] = {}
        for a in _ATTR.finditer(m.group(2)):
            attrs[a.group(1).lower()] = a.group(2)  # a repeated name: the last value (Beautiful Soup's default)
        classes = attrs.get("class", "").split()
        inside = bool(stack) and stack[-1][1]
        if name == "div" and inside and any(c in classes for c in FOCUSABLE):
            attrs["tabindex"] = "0"
        written = "".join(" " + _attribute(k, attrs[k]) for k in sorted(attrs))
        pos = m.end()
        if name in void:
            out.append(f"<{name}{written}/>")
            continue
        out.append(f"<{name}{written}>")
        if name in raw_text:
            close = re.compile(rf"</{name}\s*>", re.IGNORECASE).search(page, pos)
            if close is None or m.group(3):
                return None
            out.append(page[pos:close.start()])
            out.append(f"</{name}>")
            pos = close.end()
            continue
        if m.group(3):
            out.append(f"</{name}>")
        else:
            stack.append((name, inside or "jp-Notebook" in classes))
            in_pre += name == "pre"
    return None if stack else "".join(out)
