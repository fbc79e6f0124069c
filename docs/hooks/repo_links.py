"""mkdocs hook: include repository files in pages and keep their links true.

- ``--8<-- "PATH"`` on a line of its own includes the repository file PATH (relative to the repository
  root), e.g. BENCHMARKS.md on the benchmark results page.
- A link written relative to the repository root (as in the README, e.g. ``docs/fit.md``) that does
  not resolve from the page is resolved from the repository root instead.
- A link to a repository file that a page includes (BENCHMARKS.md) goes to that page.
- A relative link that points at a documentation page or image is kept (rewritten relative to the page
  when it came from an included file); a link to a repository file outside ``docs/`` (source, scripts,
  BENCHMARKS.md) becomes the file's repository path in code, since the built site does not serve it;
  a link to nothing is left alone so that ``mkdocs build --strict`` reports it.
Fenced code blocks are left untouched.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

_INCLUDE_RE = re.compile(r'^--8<--\s+"([^"]+)"\s*$')
_LINK_RE = re.compile(r"(!?)\[([^\]\n]*)\]\(([^)\s]+)\)")
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
#: Repository files shown as a page of the site (through an include), by repository path.
INCLUDED_AS = {"BENCHMARKS.md": "benchmarks.md"}


def _rewrite(text: str, origin_dir: Path, page_dir: Path, docs_dir: Path, repo: Path) -> str:
    def repl(m: re.Match[str]) -> str:
        bang, label, target = m.group(1), m.group(2), m.group(3)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith(("#", "/")):
            return m.group(0)
        path, sep, anchor = target.partition("#")
        if not path:
            return m.group(0)
        abs_path = Path(os.path.normpath(origin_dir / path))
        if not abs_path.exists() and (repo / path).exists():
            abs_path = Path(os.path.normpath(repo / path))  # README-style: relative to the repository root
        if abs_path.is_relative_to(repo) and abs_path.relative_to(repo).as_posix() in INCLUDED_AS:
            abs_path = docs_dir / INCLUDED_AS[abs_path.relative_to(repo).as_posix()]
        if abs_path.is_relative_to(docs_dir):
            rel = os.path.relpath(abs_path, page_dir)
            return f"{bang}[{label}]({rel}{sep}{anchor})"
        if abs_path.exists() and abs_path.is_relative_to(repo) and not bang:
            rel = abs_path.relative_to(repo).as_posix()
            plain = label.strip("`")
            return f"`{rel}`" if plain in (rel, path, Path(rel).name) else f"{label} (`{rel}`)"
        return m.group(0)

    return _LINK_RE.sub(repl, text)


def _process(markdown: str, origin_dir: Path, page_dir: Path, docs_dir: Path, repo: Path, depth: int = 0) -> str:
    out: list[str] = []
    chunk: list[str] = []
    in_fence = False

    def flush() -> None:
        if chunk:
            out.append(_rewrite("".join(chunk), origin_dir, page_dir, docs_dir, repo))
            chunk.clear()

    for line in markdown.splitlines(keepends=True):
        if _FENCE_RE.match(line):
            flush()
            in_fence = not in_fence
            out.append(line)
            continue
        if in_fence:
            out.append(line)
            continue
        inc = _INCLUDE_RE.match(line)
        if inc and depth < 3:
            flush()
            src = (repo / inc.group(1)).resolve()
            if not src.is_file():
                raise FileNotFoundError(f"--8<-- include: {inc.group(1)} not found in {repo}")
            text = src.read_text(encoding="utf-8")
            out.append(_process(text, src.parent, page_dir, docs_dir, repo, depth + 1) + "\n")
            continue
        chunk.append(line)
    flush()
    return "".join(out)


def on_page_markdown(markdown, page, config, files):  # noqa: ANN001, ANN201 - mkdocs hook signature
    docs_dir = Path(config["docs_dir"]).resolve()
    repo = docs_dir.parent
    page_dir = (docs_dir / page.file.src_uri).parent
    return _process(markdown, page_dir, page_dir, docs_dir, repo)
