"""Issue 28, the distributed path: a Dask LocalCluster whose worker processes cannot see the client's
temporary folder reads two jobs from a local S3 server (moto on 127.0.0.1) with the credentials of
their own environment, gives the fleet engine's answer, and `costmodel report --engine dask` renders
the report from the same objects. Nothing is downloaded by the client; no client path reaches a worker."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")
pytest.importorskip("s3fs")
pytest.importorskip("moto")
boto3 = pytest.importorskip("boto3")

from support.lab import free_port
from support.storage import wait_port

from costmodel.cli import main
from costmodel.jobs import load_side
from costmodel.synthetic.rank_logs import generate_job

EXAMPLES = Path(__file__).resolve().parents[2] / "costmodel" / "data" / "examples"


def _guard(forbidden: str) -> str:
    """Run on each worker: any open/stat of a path under ``forbidden`` (the client's temporary folder)
    fails, as on a machine that does not have it."""
    import builtins
    import io
    import os as _os

    def wrap(fn):
        def inner(path, *a, **k):
            if isinstance(path, (str, _os.PathLike)) and _os.fspath(path).startswith(forbidden):
                raise PermissionError(f"worker cannot see {path}")
            return fn(path, *a, **k)
        return inner
    builtins.open = io.open = wrap(io.open)
    _os.stat = wrap(_os.stat)
    _os.listdir = wrap(_os.listdir)
    return "guarded"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """moto on 127.0.0.1 with bucket 'fleet28' holding colocated/job1 and remote/job1 (12 ranks x 600 steps,
    node 1 of the remote job slow); the same files kept locally for the reference answer; a 2-worker
    process LocalCluster started with the S3 credentials and endpoint in its environment."""
    base = tmp_path_factory.mktemp("dask_s3")
    local = base / "local"
    truth = {}
    for role, seed, strag in (("colocated", 1, None), ("remote", 2, 1)):
        truth[role] = generate_job(local / role / "job1", n_ranks=12, n_steps=600, seed=seed, straggler_node=strag,
                                   early_rank=None, ranks_per_node=4)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_port(port, proc, seconds=60.0):
        proc.kill()
        pytest.skip("moto server did not start")
    url = f"http://127.0.0.1:{port}"
    mp = pytest.MonkeyPatch()
    for k, v in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
                 "AWS_ENDPOINT_URL": url}.items():
        mp.setenv(k, v)
    mp.delenv("AWS_PROFILE", raising=False)
    s3 = boto3.client("s3", endpoint_url=url)
    s3.create_bucket(Bucket="fleet28")
    for f in sorted(local.rglob("*.csv")):
        s3.put_object(Bucket="fleet28", Key=str(f.relative_to(local)), Body=f.read_bytes())
    client_tmp = base / "client-tmp"
    client_tmp.mkdir()
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                       memory_limit="1GiB")
    client = distributed.Client(cluster)
    assert set(client.run(_guard, str(client_tmp)).values()) == {"guarded"}
    mp.setenv("COSTMODEL_DASK_SCHEDULER", cluster.scheduler_address)
    mp.setenv("TMPDIR", str(client_tmp))  # the client's temporary folder (the kernel's too)
    import tempfile

    mp.setattr(tempfile, "tempdir", str(client_tmp))
    yield {"local": local, "truth": truth, "client_tmp": client_tmp, "client": client}
    client.close()
    cluster.close()
    proc.terminate()
    proc.wait(10)
    mp.undo()


def test_workers_read_the_objects_and_agree_with_the_fleet_engine(world):
    side = load_side(["s3://fleet28/remote/job1/"], "remote", engine="dask", hash_files=True)
    job = side.jobs[0]
    assert (job["engine"], job["ranks"], job["steps"]) == ("dask", 12, 600)
    assert sorted(s["rank"] for s in job["stragglers"]) == world["truth"]["remote"]["stragglers"] == [4, 5, 6, 7]
    assert all(f["path"].startswith("s3://fleet28/remote/job1/") for f in side.files) and len(side.files) == 12
    assert list(world["client_tmp"].iterdir()) == []  # nothing downloaded by the client
    ref = load_side([str(world["local"] / "remote" / "job1")], "remote", engine="duckdb", hash_files=True)
    rj = ref.jobs[0]
    assert rj["reader"] == "arrow"
    assert job["straggler_lost_s"] == rj["straggler_lost_s"] and job["job_throughput"] == rj["job_throughput"]
    assert sorted((Path(f["path"]).name, f["sha256"], f["size_bytes"]) for f in side.files) == sorted(
        (Path(f["path"]).name, f["sha256"], f["size_bytes"]) for f in ref.files)
    # the guard holds on the workers: a client path fails there
    probe = world["client_tmp"] / "probe.txt"
    probe.write_text("x")
    with pytest.raises(PermissionError):
        world["client"].submit(os.path.getsize, str(probe), pure=False).result()
    probe.unlink()


def test_report_on_the_cluster_from_object_storage(world, tmp_path, capsys):
    out = tmp_path / "report"
    c = world["client"]
    before = c.run_on_scheduler(lambda dask_scheduler: dask_scheduler.transition_counter)
    rc = main(["report", "--engine", "dask", "--colocated", "s3://fleet28/colocated/job1/",
               "--remote", "s3://fleet28/remote/job1/", "--scenario", str(EXAMPLES / "scenario.yaml"),
               "--answers", str(EXAMPLES / "answers.yaml"), "-o", str(out), "--monte-carlo", "200", "--json"])
    assert rc == 0, capsys.readouterr().err[-2000:]
    assert (out / "report.html").stat().st_size > 10_000
    dec = json.loads((out / "decision.json").read_text())
    text = json.dumps(dec)
    assert "s3://fleet28/remote/job1/" in text and str(world["client_tmp"]) not in text
    engines = []

    def walk(x):
        if isinstance(x, dict):
            if "engine" in x and "job_id" in x:
                engines.append(x["engine"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(dec)
    assert engines and set(engines) == {"dask"}  # both jobs reduced on the cluster, in the kernel
    # ... on this cluster (the kernel found it at COSTMODEL_DASK_SCHEDULER), not one of its own
    assert c.run_on_scheduler(lambda dask_scheduler: dask_scheduler.transition_counter) > before + 20
    assert list(world["client_tmp"].iterdir()) == [] or all(p.name.startswith(("tmp", "jupyter", "ipykernel"))
                                                            for p in world["client_tmp"].iterdir())
    assert os.environ.get("COSTMODEL_ENGINE") is None  # the flag is restored after the run
