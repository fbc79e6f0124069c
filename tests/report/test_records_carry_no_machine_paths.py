"""decision.json and adr.md name inputs without the author's machine: relative to the folder they are written
to, or inside the package for the bundled example. The same inputs rendered from two different folders
(other absolute paths, other depths) give byte-identical decision.json and adr.md (docs/report.md)."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from costmodel.foundation.resources import PACKAGE_DIR
from costmodel.report.paths import display_path, local_path, path_map, relocate

pytestmark = pytest.mark.slow


def test_display_paths_are_relative_to_the_record_or_inside_the_package(tmp_path):
    out = tmp_path / "work" / "report"
    assert display_path(tmp_path / "work" / "ex" / "scenario.yaml", out) == "../ex/scenario.yaml"
    assert display_path(PACKAGE_DIR / "data" / "examples" / "scenario.yaml", out) == "costmodel/data/examples/scenario.yaml"
    assert display_path("s3://bucket/runs/hub/", out) == "s3://bucket/runs/hub/"
    assert local_path("../ex/scenario.yaml", out) == str(tmp_path / "work" / "ex" / "scenario.yaml")
    assert local_path("costmodel/data/examples/scenario.yaml", out) == str(PACKAGE_DIR / "data/examples/scenario.yaml")


def test_relocate_replaces_whole_paths_only(tmp_path):
    runs = tmp_path / "runs"
    mapping = path_map([str(runs / "hub"), str(tmp_path / "s.yaml")], tmp_path / "out")
    obj = {"a": f"scenario {tmp_path}/s.yaml", "b": [f"{runs}/hub/rank0.csv", f"{runs}/hub2/rank0.csv"], "n": 3}
    assert relocate(obj, mapping) == {"a": "scenario ../s.yaml", "b": ["../runs/hub/rank0.csv", f"{runs}/hub2/rank0.csv"],
                                      "n": 3}


def test_relocate_finds_the_longest_whole_path_as_one_alternation_of_every_key_would():
    """The pattern is a trie (a fleet's 1,000 paths compile in ~0.03 s, not 0.6): the same replacements as the plain
    alternation of the keys longest first, where keys begin one another, share prefixes or hold regex characters."""
    keys = ["/d/a", "/d/ab", "/d/a/b", "/d/a/b.csv", "/d/a+b (1)", "/d/x.y", "/e", "/d/a/b/rank_0001.csv",
            "/d/a/b/rank_0010.csv", "/d/a/b/rank_0100.csv"]
    mapping = {k: f"<{i}>" for i, k in enumerate(sorted(keys, key=len, reverse=True))}
    flat = re.compile("|".join(f"{re.escape(k)}(?![\\w.-])" for k in mapping))
    text = " ".join(f"{k}{tail}" for k in keys for tail in ("", "x", ".", ".csv", "/", "/z", " ", ",", "-1", "_"))
    text += " /d/a/b/rank_0001.csvx /d/a/b/rank_00 /d/ /eee /e/f"
    want = flat.sub(lambda m: mapping[m.group(0)], text)
    assert relocate(text, mapping) == want and want != text
    assert relocate({"k": [text, 3]}, mapping) == {"k": [want, 3]}


def _render(cli, folder: Path) -> Path:
    folder.mkdir(parents=True)
    assert cli.subprocess("example", "ex", cwd=folder).rc == 0
    r = cli.subprocess("report", "--colocated", "ex/colocated_steps.csv", "--remote", "ex/remote_steps.csv",
                       "--scenario", "ex/scenario.yaml", "--answers", "ex/answers.yaml", "-o", "out",
                       "--monte-carlo", "200", "--date", "2026-01-15", cwd=folder, timeout_s=600)
    assert r.rc == 0, r.err
    return folder / "out"


def test_two_folders_give_the_same_decision_json_and_adr(cli, tmp_path):
    a = _render(cli, tmp_path / "a")
    b = _render(cli, tmp_path / "elsewhere" / "deeper" / "b")
    for name in ("decision.json", "adr.md"):
        left, right = (a / name).read_bytes(), (b / name).read_bytes()
        assert left == right, f"{name} differs between two folders"
        text = left.decode()
        for machine in (str(tmp_path), os.path.expanduser("~"), str(PACKAGE_DIR)):
            assert machine not in text, f"{name} names {machine}"
    rec = json.loads((a / "decision.json").read_text())
    paths = {f["role"]: f["path"] for f in rec["inputs"]["files"]}
    assert paths == {"colocated": "../ex/colocated_steps.csv", "remote": "../ex/remote_steps.csv",
                     "scenario": "../ex/scenario.yaml", "answers": "../ex/answers.yaml"}
    assert rec["inputs"]["parameters"]["scenario"] == "../ex/scenario.yaml"
    assert rec["cost"]["inputs"]["source"] == "../ex/scenario.yaml"
    assert {r["source"] for r in rec["runs"]} == {"../ex/colocated_steps.csv", "../ex/remote_steps.csv"}
    # every path in the record opens from the folder it is written to; the ADR's links too
    for p in paths.values():
        assert (a / p).is_file(), p
    links = re.findall(r"\]\(([^)]+)\)", (a / "adr.md").read_text())
    assert "../ex/scenario.yaml" in links and "report.html" in links
    for link in links:
        assert (a / link).exists(), link
