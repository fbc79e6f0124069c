"""The wait break-even is said in the ADR as on the report's first screen (one sentence, one function)."""
from __future__ import annotations

import json
from pathlib import Path

from costmodel.checklist.cost_line import wait_break_even_line

# the bundled example's `costmodel cost --json`, as the golden snapshot holds it
COST = json.loads((Path(__file__).parents[1] / "golden" / "cost.json").read_text(encoding="utf-8"))


def test_the_bundled_examples_wait_break_even_as_one_sentence():
    assert COST["wait_break_even"]["value"] == 0.4921 and COST["wait_break_even"]["current"] == 72.0
    line = wait_break_even_line(COST, "cross_region")
    assert line == "GPUs near the data free within 0.49 hours/run (now 72): waiting becomes cheapest."


def test_no_sentence_when_wait_is_taken_or_there_is_no_break_even():
    assert wait_break_even_line(COST, "wait") is None
    assert wait_break_even_line({**COST, "wait_break_even": {**COST["wait_break_even"], "value": None}},
                                "replicate") is None
    assert wait_break_even_line({k: v for k, v in COST.items() if k != "wait_break_even"}, "replicate") is None
    assert wait_break_even_line(None, "replicate") is None
