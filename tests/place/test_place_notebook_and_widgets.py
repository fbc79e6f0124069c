"""The placement notebook runs (papermill) and shows what `costmodel place` prints; the widgets re-rank through the
same function; the report section and the ADR carry the ranking."""
from __future__ import annotations

import pytest
from support.paths import REPO

NB = REPO / "costmodel" / "notebooks" / "placement.ipynb"
EXAMPLE = REPO / "costmodel" / "data" / "examples" / "placement.yaml"


def test_the_notebook_runs_and_shows_the_winner(tmp_path):
    pm = pytest.importorskip("papermill")
    out = tmp_path / "out.ipynb"
    pm.execute_notebook(str(NB), str(out), cwd=str(REPO), progress_bar=False, kernel_name="python3",
                        parameters={"interactive": False})
    text = out.read_text(encoding="utf-8")
    assert "lambda us-east-1 (GPU cloud) | 2 x gpu_8x_h100_sxm5 on_demand | cross_region" in text
    assert "<svg" in text and "not ranked, and why" in text


def test_an_edit_reranks_with_the_same_function(tmp_path):
    from costmodel.place import place
    from costmodel.place.edit import apply_edits, read_doc, rerank

    base = place(EXAMPLE, monte_carlo_n=50)
    preds: dict = {}
    same = rerank(EXAMPLE, {}, monte_carlo_n=50, predictions=preds)
    assert [r["id"] for r in same["ranking"]] == [r["id"] for r in base["ranking"]]
    assert same["ranking"][0]["cost_usd"] == base["ranking"][0]["cost_usd"]
    # the GPU cloud, us-east-1 and us-west-1 out: the winner changes and the governance rule of a removed region is
    # dropped with it
    out = rerank(EXAMPLE, {"candidates[1].include": False, "candidates[2].include": False,
                           "candidates[5].include": False}, monte_carlo_n=50, predictions=preds)
    assert all(r["region"] not in ("us-east-1", "us-west-1") for r in out["ranking"] + out["not_ranked"])
    assert out["winner"]["region"] == "us-west-2"
    doc = apply_edits(read_doc(EXAMPLE), {"candidates[2].include": False})
    assert all(g["region"] != "us-west-1" for g in doc["constraints"]["governance"])
    cheap = rerank(EXAMPLE, {"candidates[4].offers[0].usd_per_hour": 1.0}, monte_carlo_n=50, predictions=preds)
    assert cheap["winner"]["provider"] == "gcp"
    assert len(preds) == 3  # one prediction per link with a known RTT and bandwidth, kept between edits


def test_the_widgets_build_and_redraw():
    pytest.importorskip("ipywidgets")
    from costmodel.interactive.placement import placement_editor

    box = placement_editor(EXAMPLE, monte_carlo_n=20)
    assert len(box.children) == 8  # 6 candidates, deadline and rate, the output
    deadline = box.children[6].children[0]
    deadline.value = 500.0  # wait near the data becomes feasible: redrawn without error


def test_report_section_and_adr_carry_the_ranking(cli, tmp_path):
    from costmodel.report.placement import placement_html, placement_result, placement_section

    out = placement_result(EXAMPLE, monte_carlo_n=50)
    html = placement_html(placement_section(out)).text
    for r in out["ranking"]:
        assert r["id"].replace("&", "&amp;") in html
    assert "<script" not in html
    res = cli.json("place", EXAMPLE, "--monte-carlo", "50", "--adr", tmp_path / "adr", "--date", "2026-12-05", "--json")
    text = (tmp_path / "adr").joinpath(res["adr"].rsplit("/", 1)[-1]).read_text()
    assert text.startswith('---\nstatus: "proposed"\ndate: 2026-12-05')
    assert "## Considered Options" in text and text.count("* not ranked: ") == len(res["not_ranked"])
    assert "Chosen option" in text
    again = cli.json("place", EXAMPLE, "--monte-carlo", "50", "--adr", tmp_path / "adr", "--date", "2026-12-05", "--json")
    assert again["adr"] != res["adr"] and again["adr"].rsplit("/", 1)[-1].startswith("0002-")
