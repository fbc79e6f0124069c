"""The README is the front door: short, and every local file it links to exists."""
from __future__ import annotations

import re
from urllib.parse import unquote

from support.paths import REPO

README = REPO / "README.md"
LINK_RE = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def local_links(text: str) -> list[str]:
    out = []
    for target in LINK_RE.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("#"):
            continue
        out.append(unquote(target.split("#", 1)[0]))
    return out


def test_readme_is_at_most_150_lines():
    n = len(README.read_text(encoding="utf-8").splitlines())
    assert n <= 150, f"README.md has {n} lines; the front door keeps at most 150 (details go to docs/)"


def test_readme_links_point_at_existing_files():
    links = local_links(README.read_text(encoding="utf-8"))
    assert len(links) >= 10, links  # the docs pages, the picture, BENCHMARKS.md, CHANGELOG.md
    missing = [t for t in links if not (REPO / t).exists()]
    assert not missing, f"README.md links to missing files: {missing}"


def test_readme_picture_is_a_small_png():
    imgs = list(re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", README.read_text(encoding="utf-8")))
    assert imgs, "the README shows one picture of the report"
    for t in imgs:
        data = (REPO / t).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", t
        assert len(data) < 300_000, f"{t} is {len(data)} bytes; keep it under 300 KB"


def test_readme_names_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert "make report" in text and "make test" in text


def test_link_checker_catches_a_missing_file():
    assert local_links("[a](docs/nope.md) [b](https://x.org) ![c](img/x.png#y) [d](#top)") == ["docs/nope.md", "img/x.png"]


def test_docs_nav_pages_exist():
    """Every page in mkdocs.yml's nav exists (the strict build in `make docs` checks the links inside)."""
    nav = re.findall(r":\s+([\w./-]+\.(?:md|ipynb))\s*$", (REPO / "mkdocs.yml").read_text(encoding="utf-8"), re.MULTILINE)
    assert len(nav) >= 18, nav
    missing = [p for p in nav if not (REPO / "docs" / p).exists()]
    assert not missing, missing
