"""gs:// inputs against a real GCS emulator (gcp-storage-emulator, PyPI, extra ``dev``) that the tests start
on 127.0.0.1: a prefix of 1,000 rank logs read as one job, and one-line errors (exit 2 from the CLI, no
traceback) for a missing bucket, a missing prefix, denied access and a timeout. Nothing but 127.0.0.1 is
contacted: gcsfs reads the emulator's address from STORAGE_EMULATOR_HOST, the standard variable.

The emulator does not check credentials (no GCS emulator does), so the denied case talks to a small HTTP
server on 127.0.0.1 that answers every request as GCS does for credentials that may not read the bucket
(403 with GCS's JSON error body). Under CI=true a missing emulator fails the test instead of skipping.
"""
from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
import time

import pytest

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _need(module: str) -> None:
    try:
        __import__(module)
    except ImportError:
        if CI:
            pytest.fail(f"{module} is not installed: the gs:// tests need `pip install -e '.[dev,cloud]'` (CI=true: no skip)")
        pytest.skip(f"{module} not installed")


_need("gcsfs")
_need("gcp_storage_emulator")

from support.lab import free_port
from support.storage import one_line_exit_2, rank_csv, silent_server, wait_port

from costmodel.cli import main
from costmodel.foundation.errors import IngestError
from costmodel.jobs import load_side


def _seed(data_dir: str, base_url: str, first: int) -> None:
    """Objects ``first``..999 written through the emulator's own storage layer before it starts (its
    upload handler rewrites its whole index per object, ~0.3 s each here: 1,000 uploads would take
    minutes). The server then serves them like any object; ranks below ``first`` go through HTTP."""
    from gcp_storage_emulator.handlers import objects as gobj
    from gcp_storage_emulator.handlers.buckets import create_bucket
    from gcp_storage_emulator.storage import Storage

    st = Storage(data_dir=data_dir)
    create_bucket("fleet", st)
    save = st._write_config_to_file
    st._write_config_to_file = lambda: None  # type: ignore[method-assign]  # one index write at the end
    for r in range(first, 1000):
        body = rank_csv(r)
        name = f"job1/rank{r:04d}.csv"
        obj = gobj._checksums(body, gobj._make_object_resource(base_url, "fleet", name, "text/csv", str(len(body)), {}))
        st.create_file("fleet", name, body, obj)
    save()


@pytest.fixture(scope="module")
def gcs(tmp_path_factory):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    data_dir = str(tmp_path_factory.mktemp("gcs-emulator"))
    _seed(data_dir, url, first=10)
    log = tmp_path_factory.mktemp("gcs-emulator-log") / "emulator.log"
    with open(log, "wb") as fh:  # a file, not a pipe: the emulator logs every request and would block on a full pipe
        proc = subprocess.Popen([sys.executable, "-m", "gcp_storage_emulator", "-d", data_dir, "start", "--host",
                                 "127.0.0.1", "--port", str(port), "--quiet"], stdout=fh, stderr=subprocess.STDOUT)
    if not wait_port(port, proc):
        proc.kill()
        err = log.read_text(errors="replace")[-500:]
        msg = f"the GCS emulator (gcp-storage-emulator) did not start on 127.0.0.1:{port}: {err}"
        if CI:
            pytest.fail(msg)
        pytest.skip(msg)
    env_patch = pytest.MonkeyPatch()  # module scope: undone after the last test
    env_patch.setenv("STORAGE_EMULATOR_HOST", url)
    # the emulator is one thread with a listen backlog of 5 (http.server): more connections at once than
    # that wait for SYN retransmits; the documented knob keeps downloads within what it serves
    env_patch.setenv("COSTMODEL_STORAGE_CONCURRENCY", "4")
    env_patch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    from gcsfs.core import GCSFileSystem

    fs = GCSFileSystem(skip_instance_cache=True, token="anon")
    fs.pipe({f"fleet/job1/rank{r:04d}.csv": rank_csv(r) for r in range(10)})  # the real upload path
    assert len(fs.find("fleet/job1/")) == 1000
    yield url
    proc.terminate()
    proc.wait(10)
    env_patch.undo()


def test_gs_prefix_of_1000_objects_is_one_job(gcs):
    side = load_side(["gs://fleet/job1/"], "remote", engine="pandas")
    assert len(side.jobs) == 1
    job = side.jobs[0]
    assert job["job_id"] == "job1" and job["ranks"] == 1000 and job["steps"] == 40
    assert [s["rank"] for s in job["stragglers"]] == [17]
    assert job["stragglers"][0]["source"] == "gs://fleet/job1/rank0017.csv"
    assert [(x["rank"], x["last_step"]) for x in job["ranks_incomplete"]] == [(400, 19)]
    assert len(side.files) == 1000 and side.files[0]["path"] == "gs://fleet/job1/rank0000.csv"


def test_gs_fit_reads_the_prefix_from_the_cli(gcs, capsys):
    rc = main(["fit", "gs://fleet/job1/", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    job = out[0]["jobs"][0]
    assert job["ranks"] == 1000 and [s["rank"] for s in job["stragglers"]] == [17]


def test_gs_missing_bucket_is_one_line(gcs, capsys):
    with pytest.raises(IngestError, match="bucket 'no-such-bucket' does not exist"):
        load_side(["gs://no-such-bucket/logs/"])
    line = one_line_exit_2(capsys, ["fit", "gs://no-such-bucket/logs/"], "bucket 'no-such-bucket' does not exist")
    assert line.startswith("error") or "gs://no-such-bucket/logs/" in line


def test_gs_missing_prefix_is_one_line(gcs, capsys):
    with pytest.raises(IngestError, match="no such object or prefix"):
        load_side(["gs://fleet/nothing-here/"])
    one_line_exit_2(capsys, ["fit", "gs://fleet/nothing-here/"], "no such object or prefix")


class _Forbidden(http.server.BaseHTTPRequestHandler):
    """Answers like GCS for a principal without storage.objects.list on the bucket."""

    def _deny(self) -> None:
        body = json.dumps({"error": {"code": 403, "message": "ci-reader@example.iam.gserviceaccount.com does not have "
                                     "storage.objects.list access to the Google Cloud Storage bucket.",
                                     "errors": [{"message": "denied", "domain": "global", "reason": "forbidden"}]}}).encode()
        self.send_response(403)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_HEAD = _deny

    def log_message(self, *args: object) -> None:
        pass


def test_gs_denied_access_is_one_line(gcs, capsys, monkeypatch):
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Forbidden)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    try:
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://127.0.0.1:{srv.server_address[1]}")
        with pytest.raises(IngestError, match="access denied") as ei:
            load_side(["gs://fleet/job1/"])
        assert "\n" not in str(ei.value)
        one_line_exit_2(capsys, ["fit", "gs://fleet/job1/"], "access denied")
    finally:
        srv.shutdown()
        srv.server_close()


def test_gs_timeout_is_one_line(gcs, capsys, monkeypatch):
    with silent_server() as port:  # accepts connections, never answers
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://127.0.0.1:{port}")
        monkeypatch.setenv("COSTMODEL_STORAGE_TIMEOUT_S", "1")
        t = time.perf_counter()
        with pytest.raises(IngestError, match="timed out after 1 s") as ei:
            load_side(["gs://fleet/job1/"])
        assert time.perf_counter() - t < 30 and "\n" not in str(ei.value)
        one_line_exit_2(capsys, ["fit", "gs://fleet/job1/"], "timed out after 1 s")
