"""The MADR record: layout, injected date, escaping, adr-tools numbering, never overwriting."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from costmodel import checklist as cl
from costmodel.checklist import ITEMS, Answer, adr
from costmodel.foundation.errors import ChecklistError
from costmodel.foundation.util import sha256_file

COST = {
    "horizon_months": 12,
    "options": {"cross_region": {"total_usd": 30000.0}, "replicate": {"total_usd": 48000.0},
                "wait": {"total_usd": 20000.0}},
}


def conditional() -> cl.Decision:
    return cl.evaluate({"repetitions": Answer("repetitions", "no", "one run each")}, cl.gather_evidence(cost=COST))


def no_go(note: str = "residency rule R-7") -> cl.Decision:
    answers = {"governance_allows": Answer("governance_allows", "no", note)}
    return cl.evaluate(answers, cl.gather_evidence(cost=COST))


def go() -> cl.Decision:
    return cl.evaluate({i.id: Answer(i.id, "yes", "ok") for i in ITEMS}, cl.gather_evidence(cost=COST))


def test_madr_layout_and_front_matter():
    text = adr.render_adr(conditional(), title="Train in us-west-2", date="2026-10-01",
                          decision_makers=["Ana", "Bo"], cost=COST)
    lines = text.splitlines()
    assert lines[0] == "---"
    fm = lines[1:lines.index("---", 1)]
    assert 'status: "proposed"' in fm and "date: 2026-10-01" in fm
    assert 'decision-makers: ["Ana", "Bo"]' in fm
    assert any(line.startswith("consulted:") for line in fm) and any(line.startswith("informed:") for line in fm)
    headings = [line for line in lines if line.startswith("#")]
    expected = ["# Train in us-west-2", "## Context and Problem Statement",
                "## Decision Drivers", "## Considered Options", "## Decision Outcome", "### Consequences",
                "### Confirmation", "## Pros and Cons of the Options"]
    positions = [headings.index(h) for h in expected]
    assert positions == sorted(positions)
    assert headings[-1] == "## More Information"
    options = text.split("## Considered Options")[1].split("## Decision Outcome")[0]
    assert options.count("\n* ") == 3
    for name in ("Cross-region with cache", "Replicate", "Wait"):
        assert f"* {name}" in options
    assert "Checklist verdict: **CONDITIONAL**" in text
    assert "* [ ] repetitions" in text.split("### Confirmation")[1]
    assert "USD 30,000" in text and "over 12 months" in text


def test_status_and_chosen_option_follow_the_verdict():
    # issue 36: a drafted record is proposed until a person accepts it, whatever the verdict
    assert 'status: "proposed"' in adr.render_adr(go(), title="t", date="2026-10-01")
    assert 'status: "accepted"' in adr.render_adr(go(), title="t", date="2026-10-01", status="accepted")
    g = adr.render_adr(go(), title="t", date="2026-10-01", cost=COST)
    assert 'Chosen option: "Cross-region with cache' in g
    n = adr.render_adr(no_go(), title="t", date="2026-10-01", cost=COST)
    # NO_GO: the cheaper of replicate (48,000) and wait (20,000)
    assert 'Chosen option: "Wait' in n and "* governance\\_allows: residency rule R-7" in n
    assert adr.chosen_option(no_go(), None) == "replicate"
    assert 'status: "superseded by ADR-0009"' in adr.render_adr(go(), title="t", date="2026-10-01",
                                                                 status="superseded by ADR-0009")


def test_date_is_injectable_and_checked():
    import datetime as dt

    a = adr.render_adr(go(), title="t", date=dt.date(2026, 1, 2))
    assert "date: 2026-01-02" in a
    assert a == adr.render_adr(go(), title="t", date="2026-01-02")  # deterministic
    with pytest.raises(ChecklistError, match="expected YYYY-MM-DD"):
        adr.render_adr(go(), title="t", date="02/01/2026")


def test_injection_is_shown_as_text():
    evil = "<script>alert(1)</script> **bold** [click](javascript:alert(1)) | pipe\n# heading"
    text = adr.render_adr(no_go(evil), title="<img src=x onerror=alert(1)>", date="2026-10-01",
                          report_link="javascript:alert(1)",
                          inputs=[("answers", "a (1).yaml")])
    assert "<script>" not in text and "<img" not in text
    assert "&lt;script&gt;" in text
    assert "**bold**" not in text and "\\*\\*bold\\*\\*" in text
    assert "](javascript:" not in text
    assert "\n# heading" not in text
    # the table row with the note keeps its 7 columns: the pipe is escaped
    row = next(line for line in text.splitlines() if line.startswith("| governance\\_allows"))
    assert len(re.findall(r"(?<!\\)\|", row)) == 8
    assert "[a \\(1\\).yaml](a%20%281%29.yaml)" in text


def test_inputs_listed_with_sha256(tmp_path):
    f = tmp_path / "cost.json"
    f.write_text('{"x": 1}')
    text = adr.render_adr(go(), title="t", date="2026-10-01", inputs=[("cost", f), tmp_path / "gone.json"],
                          report_link="report/index.html")
    assert f"`{sha256_file(f)}`" in text
    assert "file not found" in text
    assert "[report/index.html](report/index.html)" in text


def test_input_links_are_relative_to_the_record(tmp_path):
    inp = tmp_path / "in" / "cost.json"
    inp.parent.mkdir()
    inp.write_text("{}")
    path = adr.write_adr(tmp_path / "doc" / "adr", go(), title="t", date="2026-10-01", inputs=[("cost", inp)])
    row = next(line for line in path.read_text().splitlines() if line.startswith("| cost |"))
    assert "](../../in/cost.json)" in row and f"[{inp}]".replace("_", "\\_") in row
    assert (path.parent / "../../in/cost.json").resolve() == inp.resolve()


def test_numbering_and_never_overwriting(tmp_path):
    d = tmp_path / "doc" / "adr"
    p1 = adr.write_adr(d, go(), title="Use the cache!", date="2026-10-01")
    assert p1.name == "0001-use-the-cache.md"
    p2 = adr.write_adr(d, go(), title="Use the cache!", date="2026-10-02")
    assert p2.name == "0002-use-the-cache.md"
    assert "date: 2026-10-01" in p1.read_text()  # the first record is untouched
    (d / "0007-other.md").write_text("keep me")
    (d / "notes.md").write_text("not numbered")
    p3 = adr.write_adr(d, conditional(), title="x", date="2026-10-01")
    assert p3.name == "0008-x.md"
    assert (d / "0007-other.md").read_text() == "keep me"
    assert sorted(p.name for p in d.iterdir()) == ["0001-use-the-cache.md", "0002-use-the-cache.md",
                                                   "0007-other.md", "0008-x.md", "notes.md"]


def test_supersede_like_adr_tools(tmp_path):
    first = adr.write_adr(tmp_path, conditional(), title="Cross-region, conditionally", date="2026-10-01")
    before = first.read_text()
    second = adr.write_adr(tmp_path, go(), title="Cross-region", date="2026-11-01", supersedes=1)
    assert second.name == "0002-cross-region.md"
    assert "* Supersedes [ADR-0001](0001-cross-region-conditionally.md)" in second.read_text()
    after = first.read_text()
    assert 'status: "superseded by ADR-0002"' in after
    # the status line is the only change
    assert [a for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b] == ['status: "proposed"']
    assert len(before.splitlines()) == len(after.splitlines())
    with pytest.raises(ChecklistError, match="no ADR numbered 0009"):
        adr.write_adr(tmp_path, go(), title="x", date="2026-11-01", supersedes=9)
    (tmp_path / "0003-plain.md").write_text("# no front matter\n")
    with pytest.raises(ChecklistError, match="no front-matter 'status:' line"):
        adr.write_adr(tmp_path, go(), title="x", date="2026-11-01", supersedes=3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0001-cross-region-conditionally.md",
                                                         "0002-cross-region.md", "0003-plain.md"]


def test_write_adr_errors_leave_nothing(tmp_path):
    f = tmp_path / "file"
    f.write_text("")
    with pytest.raises(ChecklistError, match="is a file"):
        adr.write_adr(f, go(), title="t", date="2026-10-01")
    d = tmp_path / "adr"
    with pytest.raises(ChecklistError):
        adr.write_adr(d, go(), title="t", date="not a date")
    assert not d.exists() or list(d.iterdir()) == []


def test_slugify():
    assert adr.slugify("Train LLaMA-1B in us-west-2!") == "train-llama-1b-in-us-west-2"
    assert adr.slugify("***") == "decision"
    long = adr.slugify("word " * 40)
    assert len(long) <= 60 and not long.endswith("-") and long.endswith("word")


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=80).filter(lambda s: s.strip()))
def test_any_note_stays_inert(note):
    """Whatever a note holds, it stays on its line, opens no HTML tag and breaks no table row."""
    d = no_go(note)
    text = adr.render_adr(d, title="t", date="2026-10-01")
    row = next(line for line in text.splitlines() if line.startswith("| governance\\_allows"))
    assert len(re.findall(r"(?<!\\)\|", row)) == 8
    assert "<" not in row and ">" not in row
    escaped = adr.md_escape(note)
    assert len(escaped.splitlines()) <= 1
