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
        m = re.match(r"\| (\w+) \| \[.*\]\(([^)]*)\) \| `[0-9a-f]{64}` \|$", line)
        if m:
            out[m.group(1)] = urllib.parse.unquote(m.group(2))
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
    for f in record["inputs"]["files"]:
        target = links[f["role"]]
        assert not Path(target).is_absolute() and target.startswith("../")
        assert (out / target).resolve() == Path(f["path"]).resolve()  # opens from where adr.md lives
    assert "[report.html](report.html)" in text


def test_base_dir_can_be_given_explicitly(stages, tmp_path):
    p, decision, record = stages
    text = report.render_adr_text(decision, record, dataclasses.replace(p, date="2026-12-02"), base_dir=tmp_path)
    for f in record["inputs"]["files"]:
        assert (tmp_path / _input_links(text)[f["role"]]).resolve() == Path(f["path"]).resolve()
    no_base = report.render_adr_text(decision, record, dataclasses.replace(p, date="2026-12-02"))
    assert _input_links(no_base)["answers"] == record["inputs"]["files"][-1]["path"]  # as given: absolute


def test_render_adr_producer_defaults_to_decide_and_is_checked():
    d = checklist.evaluate({}, checklist.gather_evidence())
    assert "drafted by `costmodel decide`" in adr.render_adr(d, title="t", date="2026-10-01")
    assert "drafted by `costmodel report`" in adr.render_adr(d, title="t", date="2026-10-01",
                                                               producer="costmodel report")
    for bad in ("x` <script>", "", "a\nb"):
        with pytest.raises(ChecklistError, match="producer"):
            adr.render_adr(d, title="t", date="2026-10-01", producer=bad)
