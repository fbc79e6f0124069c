"""A drawn chart's SVG as the HTML export writes it, without parsing it into a tree.

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
"""
from __future__ import annotations

import html
import re

_START = re.compile(r'<([A-Za-z][^\s/>]*)((?:\s+[^\s"\'<>/=]+="[^"<]*")*)\s*(/?)>')
_END = re.compile(r"</([A-Za-z][^\s/>]*)\s*>")
_ATTR = re.compile(r'([^\s"\'<>/=]+)="([^"<]*)"')
_SPECIAL = re.compile(r"[&<>]")
_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
#: Elements Beautiful Soup writes as ``<tag/>`` (its HTML builder's empty-element tags) or whose text
#: ``html.parser`` reads raw: left to the parser.
_NOT_PLAIN = frozenset({
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "menuitem", "meta", "param",
    "source", "track", "wbr", "basefont", "bgsound", "command", "frame", "image", "isindex", "nextid", "spacer",
    "script", "style", "textarea", "title", "template", "noscript", "xmp", "iframe", "noembed", "noframes",
    "plaintext",
})
#: Attributes whose value Beautiful Soup reads as a list of words (its HTML builder's default, on any element).
_WORD_LISTS = frozenset({"class", "accesskey", "dropzone"})


def _text(raw: str) -> str:
    if "&" not in raw and "<" not in raw and ">" not in raw:
        return raw
    return _SPECIAL.sub(lambda m: _ENTITY[m.group(0)], html.unescape(raw))


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
    out: list[str] = []
    stack: list[str] = []
    pos = 0
    n = len(svg)
    while pos < n:
        lt = svg.find("<", pos)
        if lt < 0:
            out.append(_text(svg[pos:]))
            break
        if lt > pos:
            out.append(_text(svg[pos:lt]))
        if svg.startswith("</", lt):
            m = _END.match(svg, lt)
            if m is None:
                return None
            name = m.group(1).lower()
            if not stack or stack[-1] != name:
                return None
            stack.pop()
            out.append(f"</{name}>")
            pos = m.end()
            continue
        m = _START.match(svg, lt)
        if m is None:
            return None
        name = m.group(1).lower()
        if name in _NOT_PLAIN:
            return None
        attrs: dict[str, str] = {}
        for a in _ATTR.finditer(m.group(2)):
            attrs[a.group(1).lower()] = a.group(2)  # a repeated name: the last value (Beautiful Soup's default)
        written = "".join(" " + _attribute(k, attrs[k]) for k in sorted(attrs))
        out.append(f"<{name}{written}>")
        if m.group(3):
            out.append(f"</{name}>")
        else:
            stack.append(name)
        pos = m.end()
    return None if stack else "".join(out)
