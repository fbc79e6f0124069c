"""The distribution name: costmodel installs as `xregion-costmodel`, because `costmodel` on the package index
is someone else's project (an unrelated Flask application). No document, script or message may tell a user to
`pip install costmodel` (with or without an extra) from the index."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from costmodel.foundation.errors import DISTRIBUTION, MissingExtraError, pip_install_hint
from costmodel.foundation.util import require, require_extra

REPO = Path(__file__).resolve().parents[2]

# `pip install costmodel`, `pip install "costmodel[report]"`, `pip install -U 'costmodel[lab]'`, `pip3 install costmodel==0.3`:
# the index's project of that name. A local path (`.`, `dist/x.whl`, `-e .`) or our name does not match.
_INDEX_INSTALL = re.compile(r"""\bpip3?\s+install\b[^\n#`]*?(?<![\w./-])["']?costmodel(?![\w-])""")
#: the one way a page may name it: as the command never to run
_WARNING = re.compile(r"never `pip install costmodel`")


def _scanned_files() -> list[Path]:
    """Every text a user reads or runs: README, CHANGELOG, docs, the package (code, notebooks, bundled README),
    tools, Makefile, pyproject."""
    roots = [REPO / "README.md", REPO / "CHANGELOG.md", REPO / "BENCHMARKS.md", REPO / "Makefile", REPO / "pyproject.toml"]
    for folder, patterns in (("docs", ("*.md",)), ("costmodel", ("*.py", "*.ipynb", "*.md", "*.yaml", "*.txt")),
                             ("tools", ("*",)), ("benchmarks", ("*.py", "*.md"))):
        for pattern in patterns:
            roots.extend(p for p in (REPO / folder).rglob(pattern) if p.is_file() and "__pycache__" not in p.parts)
    return sorted(set(roots))


def test_the_pattern_catches_index_installs_and_spares_ours() -> None:
    for bad in ('pip install costmodel', 'pip install "costmodel[report]"', "pip3 install -U 'costmodel[lab]'",
                "python -m pip install costmodel==0.3.0", "pip install costmodel[all]"):
        assert _INDEX_INSTALL.search(bad), bad
    for good in ('pip install xregion-costmodel', 'pip install "xregion-costmodel[report]"', "pip install -e '.[dev,all]'",
                 "pip install dist/costmodel-0.3.0.whl", "pip install ./costmodel", "pip install costmodel-plugin",
                 "pip install -q -c tools/constraints-dev.txt -e '.[dev,all]'"):
        assert not _INDEX_INSTALL.search(good), good


def test_no_document_or_message_installs_costmodel_from_the_index() -> None:
    files = _scanned_files()
    assert len(files) > 100 and REPO / "docs" / "getting-started.md" in files
    hits = [f"{p.relative_to(REPO)}:{n}: {line.strip()}"
            for p in files for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
            if _INDEX_INSTALL.search(_WARNING.sub("", line))]
    assert not hits, "pip install of the index's unrelated `costmodel`:\n" + "\n".join(hits)


def test_pyproject_publishes_the_checked_name_and_its_extras_refer_to_it() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION == "xregion-costmodel"
    assert project["scripts"] == {"costmodel": "costmodel.cli:main"}
    self_refs = [d for deps in project["optional-dependencies"].values() for d in deps if "costmodel[" in d]
    assert self_refs and all(d.startswith(f"{DISTRIBUTION}[") for d in self_refs), self_refs


def test_the_install_hints_the_tool_prints_name_the_distribution() -> None:
    assert pip_install_hint("report") == 'pip install "xregion-costmodel[report]"'
    assert pip_install_hint() == "pip install xregion-costmodel"
    with pytest.raises(MissingExtraError, match=re.escape('pip install "xregion-costmodel[fleet]"')):
        require("costmodel_no_such_module_here", "fleet", "fleet aggregation")
    with pytest.raises(MissingExtraError, match=re.escape('pip install "xregion-costmodel[sim]"')):
        require_extra("sim", "the compiled simulator", modules=("costmodel_no_such_module_here",))


def test_readme_and_getting_started_install_from_the_clone_and_name_the_future_index_name() -> None:
    """Not on the index yet: every documented install line installs this clone (`.` with or without an extra),
    and the page names the distribution to ask the index for once it is published."""
    local = re.compile(r"""^pip install (?:\.|"\.\[[a-z,]+\]")\s""")
    for page in (REPO / "README.md", REPO / "docs" / "getting-started.md"):
        text = page.read_text()
        lines = [ln for ln in text.splitlines() if ln.startswith("pip install")]
        assert len(lines) >= 3, page
        assert all(local.match(ln) for ln in lines), lines
        assert f"`{DISTRIBUTION}`" in text and "not on the package index yet" in text, page


def test_installed_metadata_carries_the_distribution_name() -> None:
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution(DISTRIBUTION)
    except PackageNotFoundError:  # an editable install made before the rename: `make venv` again
        pytest.skip(f"{DISTRIBUTION} is not installed in {sys.prefix} (reinstall the editable package)")
    assert any(ep.name == "costmodel" for ep in dist.entry_points)
    proc = subprocess.run([sys.executable, "-m", "pip", "show", DISTRIBUTION], capture_output=True, text=True)
    assert proc.returncode == 0 and "Name: xregion-costmodel" in proc.stdout
