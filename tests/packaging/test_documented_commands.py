"""Every documented command runs (issue 26): each shell block of README.md and docs/*.md, in a fresh folder
outside the repository as a user would type it (the blocks of one page in order, in one folder), unless the
line before it says why it cannot run here (``<!-- not run: network (...) -->``); and every example in every
verb's ``--help``, from a folder that is not the repository."""
from __future__ import annotations

import pytest
from support.cli import Cli
from support.shell_docs import NOT_RUN_RE, documented_pages, help_examples, run_shell, shell_blocks

from costmodel.cli import VERBS

PAGES = {p.name if p.parent.name != "docs" else f"docs/{p.name}": p for p in documented_pages()}
#: Reasons a block may give for not running here: only things a test cannot do offline and unattended.
ALLOWED_REASONS = ("network", "long-running server", "the test suite itself", "hardware")


def test_every_shell_block_is_found_and_each_skip_names_an_allowed_reason():
    blocks = [b for p in PAGES.values() for b in shell_blocks(p)]
    assert len(blocks) >= 15, [b.id for b in blocks]
    for b in blocks:
        if b.not_run:
            assert b.not_run.startswith(ALLOWED_REASONS), f"{b.id}: 'not run: {b.not_run}' (allowed: {ALLOWED_REASONS})"
            assert "(" in b.not_run, f"{b.id}: say why in brackets: <!-- not run: network (pip downloads ...) -->"


@pytest.mark.parametrize("page", sorted(n for n, p in PAGES.items() if any(not b.not_run for b in shell_blocks(p))))
def test_the_shell_blocks_of_a_page_run(page, tmp_path):
    blocks = [b for b in shell_blocks(PAGES[page]) if not b.not_run]
    if not any("costmodel example ex" in b.text for b in blocks):
        assert run_shell("costmodel example ex", tmp_path).returncode == 0  # the files a page's commands name
    for b in blocks:
        proc = run_shell(b.text, tmp_path)
        assert proc.returncode == 0, f"{b.id} exited {proc.returncode}:\n{b.text}\n--- stderr:\n{proc.stderr[-2000:]}"


def test_not_run_marker_parsing():
    assert NOT_RUN_RE.search("<!-- not run: network (pip downloads the package) -->").group("reason") == (
        "network (pip downloads the package)")


def _help(verb: str) -> str:
    cli = Cli()
    r = cli(*([verb] if verb else []), "--help")
    return r.out + r.err


@pytest.mark.parametrize("verb", VERBS)
def test_every_help_example_runs_from_another_folder(verb, tmp_path):
    examples = help_examples(_help(verb))
    for i, (line, intro) in enumerate(examples):
        if "network" in intro:
            continue  # the intro says it needs the network
        work = tmp_path / f"ex{i}"
        work.mkdir()
        proc = run_shell(line, work)
        assert proc.returncode == 0, f"costmodel {verb} --help example {line!r} exited {proc.returncode}: {proc.stderr[-1500:]}"


def test_help_examples_are_found():
    text = ("Example: costmodel cost ex/s.yaml --json\nusage: costmodel cost\n  costmodel fit a.csv\n"
            "the keys costmodel cost reads\nTwo commands (needs the network):\n  costmodel prices fetch -o d\n")
    assert [x for x, _ in help_examples(text)] == ["costmodel cost ex/s.yaml --json", "costmodel prices fetch -o d"]
    assert "network" in help_examples(text)[1][1]
    assert sum(len(help_examples(_help(v))) for v in VERBS) >= 5
