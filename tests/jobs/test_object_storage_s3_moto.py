"""Object-storage inputs against a real S3-compatible server (moto) started on 127.0.0.1 by the tests:
a prefix of 1,000 rank logs read as one job, and one-line errors for a missing bucket, denied access
and a timeout. Nothing but 127.0.0.1 is contacted."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

pytest.importorskip("s3fs")
pytest.importorskip("moto")
boto3 = pytest.importorskip("boto3")

from support.lab import free_port
from support.storage import rank_csv, silent_server, wait_port

from costmodel.cli import main
from costmodel.foundation.errors import IngestError
from costmodel.jobs import load_side


def _start(env_extra: dict[str, str]) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = dict(os.environ, **env_extra)
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}"
    if wait_port(port, proc, seconds=60.0):
        return proc, url
    proc.kill()
    pytest.skip("moto server did not start")


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}
    proc, url = _start({})
    env_patch = pytest.MonkeyPatch()  # module scope: undone after the last test
    for k, v in {**env, "AWS_ENDPOINT_URL": url}.items():
        env_patch.setenv(k, v)
    env_patch.delenv("AWS_PROFILE", raising=False)
    client = boto3.client("s3", endpoint_url=url)
    client.create_bucket(Bucket="fleet")
    # 1,000 rank logs under one prefix: rank 17 slow by 20 %, rank 400 ends early
    for r in range(1000):
        client.put_object(Bucket="fleet", Key=f"job1/rank{r:04d}.csv", Body=rank_csv(r))
    yield url
    proc.terminate()
    proc.wait(10)
    env_patch.undo()


def test_prefix_of_1000_objects_is_one_job(s3):
    side = load_side(["s3://fleet/job1/"], "remote", engine="pandas")
    assert len(side.jobs) == 1
    job = side.jobs[0]
    assert job["job_id"] == "job1" and job["ranks"] == 1000 and job["steps"] == 40
    assert [s["rank"] for s in job["stragglers"]] == [17]
    assert job["stragglers"][0]["source"] == "s3://fleet/job1/rank0017.csv"
    assert [(x["rank"], x["last_step"]) for x in job["ranks_incomplete"]] == [(400, 19)]
    assert len(side.files) == 1000 and side.files[0]["path"].startswith("s3://fleet/job1/")


def test_missing_bucket_is_one_line(s3, capsys):
    with pytest.raises(IngestError, match="bucket 'no-such-bucket' does not exist"):
        load_side(["s3://no-such-bucket/logs/"])
    rc = main(["fit", "s3://no-such-bucket/logs/"])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "no-such-bucket" in err


def test_missing_prefix_is_one_line(s3):
    with pytest.raises(IngestError, match="no such object or prefix"):
        load_side(["s3://fleet/nothing-here/"])


def test_denied_access_is_one_line(s3, monkeypatch):
    proc, url = _start({"INITIAL_NO_AUTH_ACTION_COUNT": "0"})  # a server that checks credentials
    try:
        monkeypatch.setenv("AWS_ENDPOINT_URL", url)
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIANOTAUSER0000000")
        with pytest.raises(IngestError, match="access denied") as ei:
            load_side(["s3://fleet/job1/"])
        assert "\n" not in str(ei.value)
    finally:
        proc.terminate()
        proc.wait(10)


def test_timeout_is_one_line(s3, monkeypatch):
    with silent_server() as port:  # accepts connections, never answers
        monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
        monkeypatch.setenv("COSTMODEL_STORAGE_TIMEOUT_S", "1")
        t = time.perf_counter()
        with pytest.raises(IngestError, match="timed out after 1 s") as ei:
            load_side(["s3://fleet/job1/"])
        assert time.perf_counter() - t < 60 and "\n" not in str(ei.value)


# --- issue 40: limits on objects, progress, nothing left when killed ------------------------------------------------

def test_too_many_objects_are_refused_before_any_copy(s3, monkeypatch, tmp_path):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("COSTMODEL_MAX_OBJECTS", "999")
    with pytest.raises(IngestError) as info:
        load_side(["s3://fleet/job1/"], engine="pandas")
    assert str(info.value) == ("s3://fleet/job1/: 1,000 objects under this prefix, more than 999 (COSTMODEL_MAX_OBJECTS "
                               "raises the bound); name a narrower prefix")
    monkeypatch.delenv("COSTMODEL_MAX_OBJECTS")
    monkeypatch.setenv("COSTMODEL_MAX_OBJECT_BYTES", "10000")
    with pytest.raises(IngestError, match=r"^s3://fleet/job1/: [0-9,]+ bytes to copy from object storage, more than "
                                          r"10,000 \(COSTMODEL_MAX_OBJECT_BYTES raises the bound; the largest object is "
                                          r"s3://fleet/job1/rank"):
        load_side(["s3://fleet/job1/"], engine="pandas")
    assert list(tmp_path.iterdir()) == []  # refused before anything was copied; the folder removed


def test_a_signal_mid_copy_leaves_no_copies_and_progress_is_shown(s3, tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path), COSTMODEL_STORAGE_CONCURRENCY="2", COSTMODEL_PROGRESS="1")
    proc = subprocess.Popen([sys.executable, "-m", "costmodel", "fit", "s3://fleet/job1/", "--engine", "pandas"],
                            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    try:
        while not any(len(list(p.rglob("*.csv"))) >= 20 for p in tmp_path.glob("costmodel-objects-*")):
            assert proc.poll() is None and time.monotonic() < deadline, "no copies appeared"
            time.sleep(0.05)
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err
    assert err.decode().startswith("copying 1,000 objects from s3://fleet/job1/: ")  # COSTMODEL_PROGRESS=1
    assert err.decode().endswith("costmodel fit: interrupted by SIGTERM\n")
    assert list(tmp_path.glob("costmodel-objects-*")) == []
