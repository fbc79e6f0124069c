"""The CLI contract every verb shares: help, exit codes, one-line errors."""
from __future__ import annotations

import subprocess
import sys

import pytest

from costmodel.cli import VERBS, main


def test_top_level_help_lists_every_verb(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for verb in VERBS:
        assert verb in out


@pytest.mark.parametrize("verb", VERBS)
def test_each_verb_has_help(verb, capsys):
    with pytest.raises(SystemExit) as exc:
        main([verb, "--help"])
    assert exc.value.code == 0
    assert verb in capsys.readouterr().out


def test_unknown_option_is_usage_error_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["ingest", "--no-such-option"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "error" in err and "Traceback" not in err


def test_missing_file_one_line_error_no_traceback(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "costmodel", "ingest", str(tmp_path / "nope.csv")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "nope.csv" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
