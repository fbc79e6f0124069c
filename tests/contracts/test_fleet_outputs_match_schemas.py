"""What `fit` and `compare` print for multi-rank jobs (``jobs[]`` with ranks and stragglers, typed as
``JobSummary``) validates against the checked-in schemas, and reads back into the models with the job
summary typed and its keys in the printed order."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from costmodel.contracts.read import read_compare, read_fits
from costmodel.contracts.results import JobSummary, Straggler
from costmodel.foundation.errors import ChecklistError
from costmodel.synthetic.rank_logs import generate_job

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "docs" / "schema"


def _errors(name: str, doc: object) -> list[str]:
    schema = json.loads((SCHEMA_DIR / f"{name}.json").read_text(encoding="utf-8"))
    return [f"{list(e.absolute_path)}: {e.message[:200]}" for e in jsonschema.Draft202012Validator(schema).iter_errors(doc)]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet")
    # 3 nodes x 4 ranks; node 1 (ranks 4-7) is 12 % slower in the remote job, no node is in the co-located one
    remote = generate_job(root / "remote_job", n_ranks=12, n_steps=400, seed=3, ranks_per_node=4, straggler_node=1)
    generate_job(root / "colo_job", n_ranks=12, n_steps=400, seed=4, ranks_per_node=4, straggler_node=None)
    return root, remote


def test_fit_of_a_job_validates_and_reads_back_typed(cli, jobs):
    root, _ = jobs
    printed = cli.json("fit", str(root / "remote_job"), "--json")
    assert _errors("fit", printed) == []
    (job,) = printed[0]["jobs"]
    assert job["ranks"] == 12
    (fit,) = read_fits(printed, "fit.json", ChecklistError)
    assert isinstance(fit.jobs[0], JobSummary) and fit.jobs[0].job_id == job["job_id"]
    assert list(fit.to_json_dict()["jobs"][0]) == list(job)  # typed, and written back in the printed order


def test_compare_of_two_jobs_validates_with_stragglers_typed(cli, jobs):
    root, _ = jobs
    printed = cli.json("compare", "--colocated", str(root / "colo_job"), "--remote", str(root / "remote_job"), "--json")
    assert _errors("compare", printed) == []
    assert {j["role"] for j in printed["jobs"]} == {"colocated", "remote"}
    cmp = read_compare(printed, "compare.json", ChecklistError)
    assert all(isinstance(j, JobSummary) for j in cmp.jobs)
    (remote,) = [j for j in cmp.jobs if j.role == "remote"]
    assert sorted(s.rank for s in remote.stragglers) == [4, 5, 6, 7]
    assert all(isinstance(s, Straggler) for s in remote.stragglers)
    assert cmp.to_json_dict()["jobs"] == printed["jobs"]
