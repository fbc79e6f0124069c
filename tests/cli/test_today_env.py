"""COSTMODEL_TODAY fixes the date that price ages and the scenario's "today" are computed for."""
from __future__ import annotations

import json
import subprocess
import sys

from support.paths import EXAMPLES


def _cost(env_today: str | None, monkeypatch, capsys) -> tuple[int, str, str]:
    from costmodel.cli import main

    if env_today is None:
        monkeypatch.delenv("COSTMODEL_TODAY", raising=False)
    else:
        monkeypatch.setenv("COSTMODEL_TODAY", env_today)
    rc = main(["cost", str(EXAMPLES / "scenario.yaml"), "--json"])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def _ages(out: str) -> list[int]:
    return [row["age_days"] for row in json.loads(out)["prices_used"] if row.get("age_days") is not None]


def test_a_fixed_today_gives_the_same_price_ages_and_a_day_later_ages_them_by_one(monkeypatch, capsys):
    rc1, out1, _ = _cost("2026-12-04", monkeypatch, capsys)
    rc2, out2, _ = _cost("2026-12-04", monkeypatch, capsys)
    rc3, out3, _ = _cost("2026-12-05", monkeypatch, capsys)
    assert rc1 == rc2 == rc3 == 0
    assert out1 == out2
    ages, later = _ages(out1), _ages(out3)
    assert ages and [a + 1 for a in ages] == later


def test_a_today_that_is_not_a_date_is_one_line_exit_2(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "costmodel", "cost", str(EXAMPLES / "scenario.yaml")],
                          capture_output=True, text=True, cwd=tmp_path,
                          env={**__import__("os").environ, "COSTMODEL_TODAY": "05/12/2026"}, timeout=120)
    assert proc.returncode == 2
    assert "COSTMODEL_TODAY='05/12/2026' is not a date" in proc.stderr
    assert "Traceback" not in proc.stderr
