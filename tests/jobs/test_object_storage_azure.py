"""az:// inputs against Azurite (Microsoft's Azure Storage emulator, npm; `make azurite` installs it into the
venv) that the tests start on 127.0.0.1: a prefix of 1,000 rank logs read as one job, and one-line errors
(exit 2 from the CLI, no traceback) for a missing container, a missing prefix, denied access (a wrong
account key: Azurite checks Shared Key signatures) and a timeout. Credentials come from the standard
variable AZURE_STORAGE_CONNECTION_STRING, read by adlfs. Nothing but 127.0.0.1 is contacted.

Azurite is found at $AZURITE_BLOB, on PATH (``azurite-blob``), or in ``<venv>/node_modules/.bin``. Under
CI=true a missing Azurite or adlfs fails the test with the reason instead of skipping.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _unavailable(why: str) -> None:
    if CI:
        pytest.fail(f"{why} (CI=true: the az:// tests must run, not skip)")
    pytest.skip(why)


try:
    import adlfs  # noqa: F401
except ImportError:
    _unavailable("adlfs is not installed: pip install -e '.[dev,cloud]'")

from support.lab import free_port
from support.storage import one_line_exit_2, rank_csv, silent_server, wait_port

from costmodel.cli import main
from costmodel.foundation.errors import IngestError
from costmodel.jobs import load_side

#: Azurite's well-known development account (public, documented by Microsoft; not a secret)
ACCOUNT = "devstoreaccount1"
KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
WRONG_KEY = "d3JvbmctYWNjb3VudC1rZXktdGhhdC1henVyaXRlLXdpbGwtcmVqZWN0LTAwMDA="


def _azurite() -> str | None:
    cands = [os.environ.get("AZURITE_BLOB"), shutil.which("azurite-blob"),
             str(Path(sys.prefix) / "node_modules" / ".bin" / "azurite-blob")]
    return next((c for c in cands if c and Path(c).is_file()), None)


def _conn(port: int, key: str = KEY) -> str:
    return (f"DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={key};"
            f"BlobEndpoint=http://127.0.0.1:{port}/{ACCOUNT};")


@pytest.fixture(scope="module")
def azure(tmp_path_factory):
    exe = _azurite()
    if exe is None:
        _unavailable("Azurite is not installed: `make azurite` (npm install azurite into the venv) or set AZURITE_BLOB")
    port = free_port()
    work = tmp_path_factory.mktemp("azurite")
    log = work / "azurite.log"
    with open(log, "wb") as fh:  # a file, not a pipe: a full pipe would block the emulator
        proc = subprocess.Popen([exe, "--blobHost", "127.0.0.1", "--blobPort", str(port),
                                 "--skipApiVersionCheck", "--location", str(work), "--silent"],
                                stdout=fh, stderr=subprocess.STDOUT)
    if not wait_port(port, proc, seconds=60.0, poll_s=0.2):
        proc.kill()
        _unavailable(f"Azurite ({exe}) did not start on 127.0.0.1:{port}: {log.read_text(errors='replace')[-400:]}")
    keys = ("AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT_KEY",
            "AZURE_STORAGE_SAS_TOKEN", "COSTMODEL_STORAGE_TIMEOUT_S")
    env_patch = pytest.MonkeyPatch()  # module scope: undone after the last test
    for k in keys:
        env_patch.delenv(k, raising=False)
    env_patch.setenv("AZURE_STORAGE_CONNECTION_STRING", _conn(port))
    import fsspec

    fs = fsspec.filesystem("abfs", skip_instance_cache=True)
    fs.mkdir("fleet")
    fs.pipe({f"fleet/job1/rank{r:04d}.csv": rank_csv(r) for r in range(1000)})
    assert len(fs.find("fleet/job1/")) == 1000
    del fs
    yield port
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
    env_patch.undo()


def test_az_prefix_of_1000_objects_is_one_job(azure):
    side = load_side(["az://fleet/job1/"], "remote", engine="pandas")
    assert len(side.jobs) == 1
    job = side.jobs[0]
    assert job["job_id"] == "job1" and job["ranks"] == 1000 and job["steps"] == 40
    assert [s["rank"] for s in job["stragglers"]] == [17]
    assert job["stragglers"][0]["source"] == "az://fleet/job1/rank0017.csv"
    assert [(x["rank"], x["last_step"]) for x in job["ranks_incomplete"]] == [(400, 19)]
    assert len(side.files) == 1000 and side.files[0]["path"] == "az://fleet/job1/rank0000.csv"


def test_az_fit_reads_the_prefix_from_the_cli(azure, capsys):
    rc = main(["fit", "az://fleet/job1/", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    job = out[0]["jobs"][0]
    assert job["ranks"] == 1000 and [s["rank"] for s in job["stragglers"]] == [17]


def test_az_missing_container_is_one_line(azure, capsys):
    with pytest.raises(IngestError, match="container 'no-such-container' does not exist"):
        load_side(["az://no-such-container/logs/"])
    one_line_exit_2(capsys, ["fit", "az://no-such-container/logs/"], "container 'no-such-container' does not exist")


def test_az_missing_prefix_is_one_line(azure, capsys):
    with pytest.raises(IngestError, match="no such object or prefix"):
        load_side(["az://fleet/nothing-here/"])
    one_line_exit_2(capsys, ["fit", "az://fleet/nothing-here/"], "no such object or prefix")


def test_az_denied_access_is_one_line(azure, capsys, monkeypatch):
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", _conn(azure, WRONG_KEY))
    with pytest.raises(IngestError, match="access denied") as ei:
        load_side(["az://fleet/job1/"])
    assert "\n" not in str(ei.value)
    one_line_exit_2(capsys, ["fit", "az://fleet/job1/"], "access denied")


def test_az_timeout_is_one_line(azure, capsys, monkeypatch):
    with silent_server() as port:  # accepts connections, never answers
        monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", _conn(port))
        monkeypatch.setenv("COSTMODEL_STORAGE_TIMEOUT_S", "1")
        t = time.perf_counter()
        with pytest.raises(IngestError, match="timed out after 1 s") as ei:
            load_side(["az://fleet/job1/"])
        assert time.perf_counter() - t < 30 and "\n" not in str(ei.value)
        one_line_exit_2(capsys, ["fit", "az://fleet/job1/"], "timed out after 1 s")
