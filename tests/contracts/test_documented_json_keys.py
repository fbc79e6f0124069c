"""docs/contracts.md is the JSON contract of every verb: each key it lists is in the verb's --json output on
the bundled example (a key renamed or dropped fails here)."""
from __future__ import annotations

import json
import re

import pytest
from support.paths import REPO

ROW = re.compile(r"^\| `(?P<verb>[a-z -]+)` \| (?P<obj>[^|]+) \| (?P<keys>[^|]+) \|$")


def _rows() -> list[tuple[str, str, list[str]]]:
    rows = []
    for line in (REPO / "docs" / "contracts.md").read_text(encoding="utf-8").splitlines():
        m = ROW.match(line.strip())
        if m:
            rows.append((m["verb"], m["obj"].strip(), re.findall(r"`([a-z_0-9]+)`", m["keys"])))
    return rows


@pytest.fixture(scope="module")
def outputs(cli, tmp_path_factory, examples_dir):
    d = tmp_path_factory.mktemp("contracts")
    ex = examples_dir
    out = {}
    out["ingest"] = cli.json("ingest", ex / "remote_steps.csv", "--json")
    out["fit"] = cli.json("fit", ex / "remote_steps.csv", "--json")
    out["compare"] = cli.json("compare", "--colocated", ex / "colocated_steps.csv", "--remote", ex / "remote_steps.csv", "--json")
    (d / "compare.json").write_text(json.dumps(out["compare"]))
    out["cost"] = cli.json("cost", ex / "scenario.yaml", "--json", "--monte-carlo", "200", "--today", "2026-12-02")
    (d / "cost.json").write_text(json.dumps(out["cost"]))
    out["cost --from-compare"] = cli.json("cost", ex / "scenario.yaml", "--from-compare", d / "compare.json", "--json")
    out["decide"] = cli.json("decide", "--answers", ex / "answers.yaml", "--compare", d / "compare.json", "--cost",
                             d / "cost.json", "--json")
    out["simulate"] = cli.json("simulate", ex / "whatif.yaml", "--json")
    out["prices show"] = cli.json("prices", "show", "--provider", "aws", "--item", "transfer", "--src", "us-east-2",
                                  "--dst", "us-west-2", "--json")
    gcp = REPO / "tests" / "data" / "prices" / "gcp-compute-skus-excerpt.json"
    out["prices import"] = cli.json("prices", "import", gcp, "-o", d / "imported", "--json")
    out["place"] = cli.json("place", ex / "placement.yaml", "--monte-carlo", "50", "--today", "2026-12-02", "--json")
    out["example"] = cli.json("example", d / "ex", "--json")
    out["notebook"] = cli.json("notebook", "report", d / "nb", "--json")
    out["schema"] = cli.json("schema", "--write", d / "schema", "--json")
    out["report"] = cli.json("report", "--colocated", ex / "colocated_steps.csv", "--remote", ex / "remote_steps.csv",
                             "--scenario", ex / "scenario.yaml", "--answers", ex / "answers.yaml", "--monte-carlo", "0",
                             "-o", d / "rep", "--json")
    return out


def _objects(doc, obj: str) -> list[dict]:
    """The dicts ``obj`` names in ``doc``: 'top level', 'each element of the list', 'runs[]',
    'options.<option>', 'options.cross_region.terms'."""
    if obj == "top level":
        return [doc]
    if obj == "each element of the list":
        assert isinstance(doc, list) and doc
        return doc
    cur = [doc]
    for part in obj.strip("`").split("."):
        nxt = []
        for c in cur:
            if part.endswith("[]"):
                nxt.extend(c[part[:-2]])
            elif part == "<option>":
                nxt.extend(c.values())
            else:
                nxt.append(c[part])
        cur = nxt
    assert cur, obj
    return cur


def test_the_page_lists_every_verb():
    verbs = {v for v, _o, _k in _rows()}
    assert {"ingest", "fit", "compare", "cost", "decide", "simulate", "prices show", "prices import", "example",
            "notebook", "report"} <= verbs


@pytest.mark.parametrize("verb,obj,keys", _rows(), ids=lambda x: x if isinstance(x, str) else None)
def test_every_documented_key_is_printed(outputs, verb, obj, keys):
    assert keys, (verb, obj)
    for o in _objects(outputs[verb], obj):
        missing = [k for k in keys if k not in o]
        assert not missing, f"{verb} {obj}: documented keys missing from --json: {missing}"
