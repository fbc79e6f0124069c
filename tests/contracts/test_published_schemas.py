"""docs/schema/*.json is what the contract models generate, and what the verbs really print on the bundled
example validates against it (strictly: a key a verb prints without its model fails here)."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from costmodel.commands.published_schemas import SCHEMAS, generate
from costmodel.contracts.schema import dumps

REPO = Path(__file__).resolve().parents[2]
SCHEMA_DIR = REPO / "docs" / "schema"


def _schema(name: str) -> dict:
    return json.loads((SCHEMA_DIR / f"{name}.json").read_text(encoding="utf-8"))


def _validator(name: str) -> jsonschema.Draft202012Validator:
    s = _schema(name)
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_the_checked_in_schema_is_what_the_models_generate(name):
    path = SCHEMA_DIR / f"{name}.json"
    assert path.is_file(), f"{path} missing: run `costmodel schema --write docs/schema --force`"
    assert path.read_text(encoding="utf-8") == dumps(generate(name)), \
        f"{path} is stale: run `costmodel schema --write docs/schema --force`"


def test_docs_link_every_schema():
    page = (REPO / "docs" / "contracts.md").read_text(encoding="utf-8")
    for name in SCHEMAS:
        assert f"schema/{name}.json" in page, name


@pytest.fixture(scope="module")
def printed(cli, tmp_path_factory, examples_dir):
    d = tmp_path_factory.mktemp("schemas")
    ex = examples_dir
    run = cli.json
    out = {}
    out["fit"] = run("fit", ex / "colocated_steps.csv", ex / "remote_steps.csv", "--json")
    out["compare"] = run("compare", "--colocated", ex / "colocated_steps.csv", "--remote", ex / "remote_steps.csv",
                         "--json")
    (d / "compare.json").write_text(json.dumps(out["compare"]))
    (d / "fit.json").write_text(json.dumps(out["fit"]))
    out["cost"] = run("cost", ex / "scenario.yaml", "--from-compare", d / "compare.json", "--monte-carlo", "200",
                      "--today", "2026-12-02", "--json")
    (d / "cost.json").write_text(json.dumps(out["cost"]))
    out["decide"] = run("decide", "--answers", ex / "answers.yaml", "--compare", d / "compare.json", "--cost",
                        d / "cost.json", "--fit", d / "fit.json", "--adr", d / "adr", "--date", "2026-12-02", "--json")
    out["simulate"] = run("simulate", ex / "whatif.yaml", "--json")
    out["report"] = run("report", "--colocated", ex / "colocated_steps.csv", "--remote", ex / "remote_steps.csv",
                        "--scenario", ex / "scenario.yaml", "--answers", ex / "answers.yaml", "--monte-carlo", "200",
                        "-o", d / "rep", "--date", "2026-12-02", "--json")
    out["decision"] = json.loads((d / "rep" / "decision.json").read_text())
    return out


@pytest.mark.parametrize("name", ["fit", "compare", "cost", "decide", "simulate", "report", "decision"])
def test_what_the_verb_prints_validates_against_its_schema(printed, name):
    errors = sorted(_validator(name).iter_errors(printed[name]), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:10])


def test_the_output_schemas_are_strict_guards(printed):
    """An undeclared key, a dropped contract key or a wrong type fails the published schema."""
    v = _validator("compare")
    assert not list(v.iter_errors(printed["compare"]))
    assert list(v.iter_errors({**printed["compare"], "new_key_without_a_model": 1}))
    dropped = {k: x for k, x in printed["compare"].items() if k != "remote_lost_s"}
    assert list(v.iter_errors(dropped))
    assert list(v.iter_errors({**printed["compare"], "ratio": "fast"}))
    rec = printed["decision"]
    bad = json.loads(json.dumps(rec))
    bad["cost"]["options"]["replicate"]["terms"]["surprise_usd"] = 1.0
    assert list(_validator("decision").iter_errors(bad))


def test_the_bundled_input_files_validate_against_the_input_schemas(examples_dir):
    scen = yaml.safe_load((examples_dir / "scenario.yaml").read_text())
    assert not list(_validator("scenario").iter_errors(scen))
    answers = yaml.safe_load((examples_dir / "answers.yaml").read_text())
    assert not list(_validator("answers").iter_errors(answers))
    bad = dict(scen, dataset={**scen["dataset"], "size_tb": 1})
    errs = list(_validator("scenario").iter_errors(bad))
    assert errs and "size_tb" in errs[0].message
    whatif = yaml.safe_load((examples_dir / "whatif.yaml").read_text())
    assert not list(_validator("workload").iter_errors(whatif["workload"]))
    assert list(_validator("workload").iter_errors({**whatif["workload"], "cache": {"policy": "fifo"}}))
    params = {"colocated": ["a.csv"], "remote": ["b.csv"], "margin": 0.02, "monte_carlo_n": 100}
    assert not list(_validator("report-parameters").iter_errors(params))
    assert list(_validator("report-parameters").iter_errors({**params, "margin": 0.7}))
    assert list(_validator("report-parameters").iter_errors({**params, "margni": 0.02}))


def test_schema_verb_prints_and_writes(cli, tmp_path):
    assert cli.json("schema", "decision") == _schema("decision")
    files = cli.json("schema", "--write", tmp_path, "--json")["files"]
    assert sorted(files) == sorted(SCHEMAS)
    assert all(Path(p).read_text() == (SCHEMA_DIR / f"{n}.json").read_text() for n, p in files.items())
    r = cli("schema", "decison")
    assert r.rc == 2 and "did you mean 'decision'" in r.err
