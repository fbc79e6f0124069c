"""The ADR the report writes: it names `costmodel report` as its producer, and its input-file links
resolve from the folder it is written to."""
from __future__ import annotations

import dataclasses
import re
import urllib.parse
from pathlib import Path

import pytest

from costmodel import checklist, report
from costmodel.checklist import adr
from costmodel.foundation.errors import ChecklistError


@pytest.fixture(scope="module")
def stages(report_stages):
    p, _inputs, _fits, _cmp, _cost, decision, record = report_stages
    return p, decision, record


def _input_links(text: str) -> dict[str, str]:
    """role -> link target of the input-file rows in More Information."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"\| (\w+) \| (?:\[.*\]\(([^)]*)\)|[^|\[]+) \| `[0-9a-f]{64}` \|$", line)
        if m:  # a linked file: its target; a file bundled with the package (not linked): ""
            out[m.group(1)] = urllib.parse.unquote(m.group(2) or "")
    return out


def test_report_adr_says_costmodel_report_wrote_it_and_links_resolve_from_its_folder(stages, tmp_path):
    p, decision, record = stages
    out = tmp_path / "deep" / "out"
    out.mkdir(parents=True)
    p2 = dataclasses.replace(p, adr_path=str(out / "adr.md"), date="2026-12-02")
    report.write_outputs(record, decision, p2)
    text = (out / "adr.md").read_text()
    assert "drafted by `costmodel report`" in text and "costmodel decide" not in text
    assert decision.conditions and "(re-run `costmodel report` with the new answers" in text
    links = _input_links(text)
    assert set(links) == {"colocated", "remote", "scenario", "answers"}
    for f in record["inputs"]["files"]:  # the bundled example: named inside the package, not linked
        assert f["path"].startswith("costmodel/data/examples/") and links[f["role"]] == ""
    assert "[report.html](report.html)" in text


def test_report_adr_links_the_users_files_relative_to_its_folder(stages, tmp_path, examples_dir):
    import shutil

    _p, decision, _record = stages
    ex = tmp_path / "mine" / "ex"
    shutil.copytree(examples_dir, ex)
    out = tmp_path / "deep" / "out"
    out.mkdir(parents=True)
    p2 = dataclasses.replace(
        report.validate_parameters(colocated=[str(ex / "colocated_steps.csv")], remote=[str(ex / "remote_steps.csv")],
                                   scenario=str(ex / "scenario.yaml"), answers=str(ex / "answers.yaml"), monte_carlo_n=0),
        adr_path=str(out / "adr.md"), decision_path=str(out / "decision.json"), date="2026-12-02")
    inputs = report.load_inputs(p2)
    fits = report.fit_runs(inputs, p2)
    cmp = report.compare_runs(inputs, p2, fits)
    cost = report.cost_stage(p2, cmp)
    rec = report.decision_record(inputs, fits, cmp, cost, decision, p2)
    report.write_outputs(rec, decision, p2)
    links = _input_links((out / "adr.md").read_text())
    assert links == {"colocated": "../../mine/ex/colocated_steps.csv", "remote": "../../mine/ex/remote_steps.csv",
                     "scenario": "../../mine/ex/scenario.yaml", "answers": "../../mine/ex/answers.yaml"}
    for f in rec["inputs"]["files"]:  # opens from where adr.md and decision.json live
        assert links[f["role"]] == f["path"] and (out / f["path"]).resolve() == (ex / Path(f["path"]).name).resolve()


def test_base_dir_can_be_given_explicitly(stages, tmp_path):
    p, decision, record = stages
    text = report.render_adr_text(decision, record, dataclasses.replace(p, date="2026-12-02"), base_dir=tmp_path)
    no_base = report.render_adr_text(decision, record, dataclasses.replace(p, date="2026-12-02"))
    assert text == no_base  # the bundled example is named inside the package wherever the record lives
    assert str(tmp_path) not in text and _input_links(text)["answers"] == ""


def test_render_adr_producer_defaults_to_decide_and_is_checked():
    d = checklist.evaluate({}, checklist.gather_evidence())
    assert "drafted by `costmodel decide`" in adr.render_adr(d, title="t", date="2026-10-01")
    assert "drafted by `costmodel report`" in adr.render_adr(d, title="t", date="2026-10-01",
                                                               producer="costmodel report")
    for bad in ("x` <script>", "", "a\nb"):
        with pytest.raises(ChecklistError, match="producer"):
            adr.render_adr(d, title="t", date="2026-10-01", producer=bad)


def test_report_adr_lists_the_records_sha256_without_reading_the_inputs_again(stages, monkeypatch):
    """The ingest hashed each input as it read the bytes (decision.json's ``inputs.files``); the ADR lists those
    digests: no second read of every rank log (3.4 CPU-s at 1,000 ranks), and the two records cannot disagree."""
    from costmodel.foundation import util

    p, decision, record = stages

    def no_read(path, *a, **k):
        raise AssertionError(f"{path} read again")

    monkeypatch.setattr(util, "sha256_file", no_read)
    text = report.render_adr_text(decision, record, dataclasses.replace(p, date="2026-12-02"))
    for f in record["inputs"]["files"]:
        assert re.search(rf"\| {f['role']} \| .* \| `{f['sha256']}` \|$", text, re.MULTILINE), f["role"]
