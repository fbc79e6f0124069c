"""`make report` installs only what rendering needs (issue 26): its own environment with the `report` extra, no
test, lint, docs or browser tooling (those are `make test`'s); `make screenshot` draws the README's picture
from the bundled report. Checked on `make -n` (what make would run), nothing installed here; the measured size
of that environment is in docs/dependencies.md."""
from __future__ import annotations

import shutil
import subprocess

import pytest
from support.paths import REPO


def _dry(target: str, tmp_path) -> str:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    r = subprocess.run(["make", "-n", "-B", target, f"REPORT_VENV={tmp_path}/rv", f"VENV={tmp_path}/v"], cwd=REPO,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_make_report_installs_the_report_extra_only(tmp_path):
    out = _dry("report", tmp_path)
    installs = [line for line in out.splitlines() if "pip install" in line and "--upgrade pip" not in line]
    assert installs == [f"{tmp_path}/rv/bin/python -m pip install -q -c tools/constraints-dev.txt -e '.[report]'"]
    for heavy in ("[dev", "all]", "chromium", "playwright", "azurite", "npm", f"{tmp_path}/v/"):
        assert heavy not in out, heavy
    assert f"{tmp_path}/rv/bin/costmodel report" in out and "-o reports" in out


def test_make_test_keeps_the_test_tooling(tmp_path):
    out = _dry("pytest", tmp_path)
    assert "-e '.[dev,all]'" in out


def test_make_screenshot_draws_the_first_screen_of_the_bundled_report(tmp_path):
    out = _dry("screenshot", tmp_path)
    assert "tools/screenshot.sh reports/report.html docs/img/report.png 1280,800" in out
    assert f"{tmp_path}/rv/bin/costmodel report" in out  # from the bundled example, rendered first
