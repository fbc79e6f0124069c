"""Every shell command in docs/place.md runs, in a fresh folder after `costmodel example ex`, and exits 0."""
from __future__ import annotations

import re
import shlex

from support.paths import REPO

PAGE = REPO / "docs" / "place.md"


def commands() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL):
        for raw in block.replace("\\\n", " ").splitlines():
            line = raw.split("  #")[0].strip()
            if line:
                out.append(line)
    return out


def test_the_page_has_commands():
    cmds = commands()
    assert cmds[0] == "costmodel example ex" and sum(c.startswith("costmodel place") for c in cmds) >= 2


def test_every_command_on_the_page_runs(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for line in commands():
        words = shlex.split(line)
        assert words[0] == "costmodel", line
        target = None
        if ">" in words:
            i = words.index(">")
            words, target = words[:i], words[i + 1]
        r = cli(*words[1:])
        assert r.rc == 0, f"{line}: {r.err}"
        if target:
            (tmp_path / target).write_text(r.out)
    import json

    place = json.loads((tmp_path / "place.json").read_text())
    cost = json.loads((tmp_path / "us-east-1.json").read_text())
    row = next(r for r in place["ranking"] if r["candidate"] == "us-east-1" and r["strategy"] == "replicate")
    assert row["strategy_usd"] == cost["options"]["replicate"]["total_usd"]
