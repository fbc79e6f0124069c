"""Copy the packaged inputs and notebooks into a user's folder (``costmodel example`` / ``costmodel notebook``).

The files come from the installed package (:mod:`costmodel.foundation.resources`), so this works the same from a
source tree, an editable install and a wheel. Nothing is overwritten without ``force``: every target is
checked before the first byte is written, and each file is written atomically, so a refused or failed
copy leaves the folder as it was.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..foundation.errors import CostmodelError
from ..foundation.resources import EXAMPLES_DIR, NOTEBOOKS_DIR
from ..foundation.util import atomic_path

#: Notebooks ``costmodel notebook`` can copy.
NOTEBOOKS: tuple[str, ...] = ("report", "checklist", "whatif", "placement", "watch")

#: Files of the bundled example that are not inputs (the generator script; its README is folded into ours).
_EXAMPLE_SKIP = {"generate_reference.py", "README.md"}


class ScaffoldError(CostmodelError):
    """A copy was refused (existing file without --force, unknown notebook, target not a folder)."""


@dataclass(frozen=True)
class Copy:
    """One file to write: ``target`` gets ``data`` (bytes)."""

    target: Path
    data: bytes


def example_files() -> list[Path]:
    """The bundled input files (run logs, scenario.yaml, answers.yaml, whatif.yaml, ...), sorted by name."""
    return sorted(
        p for p in EXAMPLES_DIR.iterdir()
        if p.is_file() and p.name not in _EXAMPLE_SKIP and not p.name.startswith((".", "_")) and p.suffix != ".pyc"
    )


def example_readme(names: list[str]) -> str:
    """The README written beside the copied example: what each file is and the commands to run on it."""
    listing = "\n".join(f"- `{n}`" for n in names)
    bundled = ""
    src = EXAMPLES_DIR / "README.md"
    if src.is_file():
        body = src.read_text(encoding="utf-8").split("\n", 1)
        bundled = "\n## About the data (the package's notes)\n\n" + (body[1] if len(body) > 1 else body[0]).lstrip("\n")
    return f"""# costmodel example

Written by `costmodel example`: the bundled reference case, to edit and rerun. Files:

{listing}

Run from this folder:

```sh
costmodel ingest remote_steps.csv                      # validate a run log
costmodel fit colocated_steps.csv remote_steps.csv     # warm-up end and steady state (95 % CI)
costmodel compare --colocated colocated_steps.csv --remote remote_steps.csv --json > compare.json
costmodel cost scenario.yaml --json > cost.json        # price the options (USD)
costmodel decide --answers answers.yaml --compare compare.json --cost cost.json
costmodel simulate whatif.yaml --json                  # what-if link/cache model
costmodel place placement.yaml                         # which GPU region x data strategy (docs/place.md)
costmodel report --colocated colocated_steps.csv --remote remote_steps.csv \\
  --scenario scenario.yaml --answers answers.yaml -o report    # needs: pip install "xregion-costmodel[report]"
```

`costmodel notebook report .` copies the report notebook here; `papermill report.ipynb out.ipynb
-p scenario scenario.yaml` then runs it on these files.
{bundled}"""


def plan_example(dest: str | os.PathLike[str]) -> list[Copy]:
    """The files ``costmodel example DEST`` writes: every bundled input plus ``README.md``."""
    d = Path(dest)
    files = example_files()
    copies = [Copy(d / p.name, p.read_bytes()) for p in files]
    copies.append(Copy(d / "README.md", example_readme([p.name for p in files]).encode("utf-8")))
    return copies


def plan_notebook(name: str, dest: str | os.PathLike[str]) -> list[Copy]:
    """The file ``costmodel notebook NAME DEST`` writes (``DEST/NAME.ipynb``). Raises :class:`ScaffoldError`
    for an unknown name."""
    stem = name.removesuffix(".ipynb")
    if stem not in NOTEBOOKS:
        raise ScaffoldError(f"unknown notebook {name!r}: expected one of {', '.join(NOTEBOOKS)}")
    src = NOTEBOOKS_DIR / f"{stem}.ipynb"
    return [Copy(Path(dest) / src.name, src.read_bytes())]


def write(copies: list[Copy], *, force: bool = False) -> list[Path]:
    """Write every copy (creating the folder). Refuses, before writing anything, when a target exists
    and ``force`` is false, or when a target or its folder is not what it must be. Returns the paths written."""
    if not copies:
        return []
    folder = copies[0].target.parent
    if folder.exists() and not folder.is_dir():
        raise ScaffoldError(f"{folder}: exists and is not a folder")
    existing = [c.target for c in copies if c.target.exists() or c.target.is_symlink()]
    not_files = [p for p in existing if not p.is_file()]
    if not_files:
        raise ScaffoldError(f"{not_files[0]}: exists and is not a file; choose another folder")
    if existing and not force:
        names = ", ".join(p.name for p in existing[:4]) + (" ..." if len(existing) > 4 else "")
        raise ScaffoldError(
            f"{folder}: {len(existing)} file(s) already exist ({names}); nothing written "
            "(use --force to overwrite them, or choose another folder)"
        )
    umask = os.umask(0)
    os.umask(umask)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for c in copies:
            with atomic_path(c.target) as tmp:
                tmp.write_bytes(c.data)
                tmp.chmod(0o666 & ~umask)  # a user's file, not a private temporary one
    except OSError as exc:
        raise ScaffoldError(f"{folder}: cannot write: {exc.strerror or exc}") from None
    return [c.target for c in copies]
