"""Every verb's ``--json`` and the report's ``decision.json`` and ADR, byte for byte against the snapshot
in ``tests/golden/`` (``tests/support/golden.py`` lists the runs). A refactoring must not change a byte; an
intentional change regenerates the snapshot with ``make golden`` and shows the diff in review."""
from __future__ import annotations

import difflib

import pytest
from support import golden


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return golden.produce(tmp_path_factory.mktemp("golden"))


def test_the_snapshot_covers_every_case_and_nothing_else(produced: dict[str, str]):
    assert sorted(golden.read_golden()) == sorted(produced)
    assert len(produced) >= 16  # 13 verb runs and the files they write
    verbs = {c.args[0] for c in golden.CASES}
    from costmodel.cli import VERBS

    # bench times the machine; completion's script follows every flag (tests/cli/test_cli_habits.py runs it in bash)
    assert set(VERBS) - verbs == {"bench", "completion"}


@pytest.mark.parametrize("name", sorted(golden.read_golden()))
def test_output_is_byte_identical_to_the_snapshot(produced: dict[str, str], name: str):
    want, got = golden.read_golden()[name], produced.get(name, "")
    if got != want:
        diff = "".join(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), f"golden/{name}",
                                                 "produced", n=1))[:60])
        pytest.fail(f"{name} differs from tests/golden/{name}; if the change is intended, run "
                    f"`{golden.REGENERATE}` and review the diff:\n{diff}")


def test_paths_are_normalised_and_the_report_is_in_the_snapshot():
    snap = golden.read_golden()
    # issue 36: the measured cross-region bytes are refused (93x what can cross): cost no longer blocks
    assert '"verdict": "CONDITIONAL"' in snap["report.json"]
    assert "<WORK>/rep/decision.json" in snap["report.json"]
    assert "/tmp/" not in "".join(snap.values())  # no machine path survives
    assert snap["report.decision.json"].startswith("{")
