"""Documented commands, run as a user would type them: the shell blocks of README.md and docs/*.md, and the
examples of every verb's ``--help``, each in a fresh folder outside the repository, with ``costmodel`` (this
checkout, as ``python -m costmodel``) and ``papermill`` (this Python's) on the PATH.

A block that cannot run here says why, on the line before it: ``<!-- not run: network (pip downloads the
package) -->``. Blocks in ``text`` fences are transcripts (output, errors), never run.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from .paths import REPO

#: The fence languages that hold commands.
SHELL_LANGS = ("sh", "bash", "shell", "console")
#: The marker of a block that is not run, with its reason.
NOT_RUN_RE = re.compile(r"<!--\s*not run:\s*(?P<reason>[^>]*?)\s*-->\s*$")
_FENCE_RE = re.compile(r"^```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    """One fenced shell block: where it is, its text, and why it is not run (empty: it runs)."""

    doc: str
    line: int
    text: str
    not_run: str = ""

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def shell_blocks(path: Path) -> list[Block]:
    """The shell blocks of a Markdown file, in order (with the not-run reason of each, if marked)."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in _FENCE_RE.finditer(text):
        if m.group("lang") not in SHELL_LANGS:
            continue
        line = text.count("\n", 0, m.start()) + 1
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = NOT_RUN_RE.search(before)
        out.append(Block(path.relative_to(REPO).as_posix(), line, m.group("body"), mark.group("reason") if mark else ""))
    return out


def documented_pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def shim_path(tmp: Path) -> str:
    """A PATH whose ``costmodel`` runs this checkout with this Python, then this Python's scripts (papermill)."""
    bin_dir = tmp / ".bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "costmodel"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m costmodel "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    return os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def run_shell(script: str, cwd: Path, timeout_s: float = 300) -> subprocess.CompletedProcess[str]:
    """``script`` under ``bash -euo pipefail`` in ``cwd`` (comments and line continuations as typed)."""
    env = {**os.environ, "PATH": shim_path(cwd), "PYTHONPATH": str(REPO), "COSTMODEL_NO_PROGRESS": "1"}
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout_s)


_INLINE_RE = re.compile(r"^\s*(?:Examples?|e\.g\.):?\s+(costmodel\s.*?)\s*$", re.IGNORECASE)
_INDENTED_RE = re.compile(r"^\s+(costmodel\s.*?)\s*$")


def help_examples(help_text: str) -> list[tuple[str, str]]:
    """The command lines a ``--help`` text shows as examples, each with the line that introduces it: a line
    ``Example: costmodel ...`` (or ``Examples:``, ``e.g.``), and indented ``costmodel ...`` lines that follow a
    line ending in ``:`` or ``e.g.`` (or another example). An intro that says ``network`` marks examples that
    cannot run offline."""
    out: list[tuple[str, str]] = []
    intro, in_group = "", False
    for line in help_text.splitlines():
        m = _INLINE_RE.match(line)
        if m:
            intro, in_group = line, True
            out.append((m.group(1), intro))
            continue
        m = _INDENTED_RE.match(line)
        if m and in_group:
            out.append((m.group(1), intro))
            continue
        stripped = line.strip()
        in_group = stripped.endswith((":", "e.g.", "e.g.,"))
        intro = stripped if in_group else ""
    return out
