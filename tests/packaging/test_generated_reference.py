"""docs/cli.md is generated from the verbs' parsers and the report parameters: it says what the code takes."""
from __future__ import annotations

import difflib

from support.reference import CLI_PAGE, REGENERATE, cli_page, verb_table

from costmodel import cli


def test_the_cli_page_is_what_the_parsers_generate():
    want = cli_page()
    have = CLI_PAGE.read_text(encoding="utf-8")
    diff = "".join(difflib.unified_diff(have.splitlines(True), want.splitlines(True), "docs/cli.md", "generated", n=1))
    assert have == want, f"docs/cli.md differs from the code; run `{REGENERATE}`:\n{diff[:3000]}"


def test_every_verb_and_every_flag_is_on_the_page():
    page = CLI_PAGE.read_text(encoding="utf-8")
    cli.build_parser()
    assert len(cli.verb_parsers) >= 15
    for verb, parser in cli.verb_parsers.items():
        assert f"## `costmodel {verb}`" in page
        for action in parser._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help", "--debug", "--quiet", "-q"):
                    assert f"`{flag}`" in page, (verb, flag)


def test_a_new_flag_shows_in_the_generated_table():
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument("--margin-usd", type=float, default=100.0, metavar="USD", help="the margin, default %(default)s USD")
    p.add_argument("--tag", action="append", metavar="T", help="a tag")
    text = verb_table("cost", p)
    assert "| `--margin-usd` | `USD` | `100.0` | the margin, default 100.0 USD |" in text
    assert "| `--tag` | `T` (repeatable) |  | a tag |" in text


def test_the_report_parameters_table_lists_every_parameter():
    from costmodel.report.params import PARAMETERS

    page = CLI_PAGE.read_text(encoding="utf-8")
    for name in PARAMETERS:
        assert f"| `{name}` |" in page
