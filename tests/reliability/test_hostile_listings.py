"""Remote names are hostile (issue 27, case 1): an object listing is input from the network. Keys with ``..``,
absolute keys, backslashes, NUL, terminal escapes and over-long names are refused with one line naming the key
(exit 2), and nothing is written outside the private copy folder. Served by real local servers: S3 (moto),
GCS (gcp-storage-emulator) and Azure (Azurite), each started on 127.0.0.1; plus the naming rule itself
without a server. ``ingest s3://...`` reads object storage as ``fit`` does."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from support.lab import free_port
from support.storage import rank_csv, wait_port

from costmodel.cli import main
from costmodel.foundation.errors import IngestError
from costmodel.foundation.names import contained, shown
from costmodel.jobs.storage import local_targets

#: key below the prefix -> a word the one-line error must hold
HOSTILE = {
    "../../../../pwned.csv": "'..' part",
    "/etc/pwned.csv": "absolute name",  # the key is "<prefix>//etc/pwned.csv"
    "a\\..\\..\\pwned.csv": "backslash",
    "nul\x00.csv": "NUL",
    "x" * 300 + ".csv": "longer than 255 bytes",
    "esc\x1b[2J.csv": "control character",
}


def _one_line_2(capsys, args: list[str]) -> str:
    rc = main(args)
    err = capsys.readouterr().err
    assert rc == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "\x1b" not in err and "\x00" not in err  # escaped when echoed
    return lines[0]


@pytest.mark.parametrize("rel", sorted(HOSTILE))
def test_naming_rule_refuses_each_hostile_key(tmp_path, rel):
    key = "s3://b/job/" + rel
    with pytest.raises(IngestError, match="refused") as ei:
        local_targets(["s3://b/job/ok.csv", key], "s3://b/job", tmp_path, single=False)
    assert HOSTILE[rel] in str(ei.value) and "\n" not in str(ei.value)
    assert shown(key)[:40] in str(ei.value)


def test_naming_rule_keeps_good_keys_inside(tmp_path):
    pairs, here = local_targets(["s3://b/job/a/r0.csv", "s3://b/job/a//r1.csv", "s3://b/job/./r2.csv"],
                                "s3://b/job", tmp_path, single=False)
    assert here == str(tmp_path / "job")
    assert [d for _, d in pairs] == [str(tmp_path / "job/a/r0.csv"), str(tmp_path / "job/a/r1.csv"),
                                     str(tmp_path / "job/r2.csv")]
    with pytest.raises(IngestError, match="same local file"):
        local_targets(["s3://b/job/a/r.csv", "s3://b/job/a//r.csv"], "s3://b/job", tmp_path, single=False)
    with pytest.raises(IngestError, match="also a prefix"):
        local_targets(["s3://b/job/a", "s3://b/job/a/r.csv"], "s3://b/job", tmp_path, single=False)
    with pytest.raises(IngestError, match="outside the prefix"):
        local_targets(["s3://b/jobX/r.csv"], "s3://b/job", tmp_path, single=False)
    (tmp_path / "link").symlink_to("/")
    with pytest.raises(IngestError, match="outside the target folder"):
        contained(tmp_path, "link/etc/passwd")


def _check_refused(capsys, tmp_path, monkeypatch, url: str, verb: str, needle: str) -> None:
    copies = tmp_path / "copies"
    copies.mkdir(exist_ok=True)
    monkeypatch.setattr(tempfile, "tempdir", str(copies))  # the private copy folder, under tmp_path
    line = _one_line_2(capsys, [verb, url])
    assert "refused" in line and needle in line, line
    assert not list(tmp_path.rglob("pwned.csv")), "a hostile key was written"
    assert not list(copies.iterdir()), "the copy folder was left behind"


# --- S3: moto server ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def s3():
    pytest.importorskip("s3fs")
    pytest.importorskip("moto")
    boto3 = pytest.importorskip("boto3")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_port(port, proc, seconds=60.0):
        proc.kill()
        pytest.skip("moto server did not start")
    url = f"http://127.0.0.1:{port}"
    mp = pytest.MonkeyPatch()
    for k, v in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                 "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": url}.items():
        mp.setenv(k, v)
    mp.delenv("AWS_PROFILE", raising=False)
    client = boto3.client("s3", endpoint_url=url)
    client.create_bucket(Bucket="hostile")
    for r in range(4):
        client.put_object(Bucket="hostile", Key=f"good/rank{r}.csv", Body=rank_csv(r))
    for i, rel in enumerate(sorted(HOSTILE)):
        if "\x00" in rel:
            continue  # S3 keys are XML text: no NUL (the naming rule test covers it)
        client.put_object(Bucket="hostile", Key=f"case{i}/rank0.csv", Body=rank_csv(0))
        client.put_object(Bucket="hostile", Key=f"case{i}/{rel}", Body=rank_csv(1))
    yield
    proc.terminate()
    proc.wait(10)
    mp.undo()


@pytest.mark.parametrize("verb", ["fit", "ingest"])
@pytest.mark.parametrize("i", range(len(HOSTILE)))
def test_s3_hostile_key_is_refused(s3, capsys, tmp_path, monkeypatch, verb, i):
    rel = sorted(HOSTILE)[i]
    if "\x00" in rel:
        pytest.skip("S3 keys hold no NUL")
    _check_refused(capsys, tmp_path, monkeypatch, f"s3://hostile/case{i}/", verb, HOSTILE[rel])


def test_ingest_reads_s3_like_fit(s3, capsys, tmp_path):
    out = tmp_path / "t.parquet"
    assert main(["ingest", "s3://hostile/good/", "--json", "-o", str(out)]) == 0
    got = json.loads(capsys.readouterr().out)
    assert len(got["runs"]) == 4 and out.is_file()
    assert sorted(r["source"] for r in got["runs"]) == [f"s3://hostile/good/rank{r}.csv" for r in range(4)]
    assert all(r["rows"] == 40 for r in got["runs"])
    assert main(["ingest", "s3://hostile/good/rank2.csv", "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert [r["source"] for r in one["runs"]] == ["s3://hostile/good/rank2.csv"]


# --- GCS: gcp-storage-emulator --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def gcs(tmp_path_factory):
    pytest.importorskip("gcsfs")
    pytest.importorskip("gcp_storage_emulator")
    from gcp_storage_emulator.handlers import objects as gobj
    from gcp_storage_emulator.handlers.buckets import create_bucket
    from gcp_storage_emulator.storage import Storage

    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    data_dir = str(tmp_path_factory.mktemp("gcs-hostile"))
    st = Storage(data_dir=data_dir)
    create_bucket("hostile", st)

    def put(name: str, body: bytes) -> dict:
        res = gobj._checksums(body, gobj._make_object_resource(base_url, "hostile", name, "text/csv",
                                                               str(len(body)), {}))
        st.create_file("hostile", name, body, res)
        return res

    for i, rel in enumerate(sorted(HOSTILE)):
        res = put(f"case{i}/rank0.csv", rank_csv(0))
        # the emulator's own disk layer refuses such names; its listing (the index) serves what a hostile
        # server would: the entry is added to the index as-is
        st.objects["hostile"][f"case{i}/{rel}"] = dict(res, name=f"case{i}/{rel}")
    st._write_config_to_file()
    proc = subprocess.Popen([sys.executable, "-m", "gcp_storage_emulator", "-d", data_dir, "start", "--host",
                             "127.0.0.1", "--port", str(port), "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_port(port, proc):
        proc.kill()
        pytest.skip("the GCS emulator did not start")
    mp = pytest.MonkeyPatch()
    mp.setenv("STORAGE_EMULATOR_HOST", base_url)
    mp.setenv("COSTMODEL_STORAGE_CONCURRENCY", "4")
    mp.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    yield
    proc.terminate()
    proc.wait(10)
    mp.undo()


@pytest.mark.parametrize("i", range(len(HOSTILE)))
def test_gs_hostile_key_is_refused(gcs, capsys, tmp_path, monkeypatch, i):
    rel = sorted(HOSTILE)[i]
    _check_refused(capsys, tmp_path, monkeypatch, f"gs://hostile/case{i}/", "fit", HOSTILE[rel])


# --- Azure: Azurite ---------------------------------------------------------------------------------------------

ACCOUNT = "devstoreaccount1"
KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="


@pytest.fixture(scope="module")
def azure(tmp_path_factory):
    pytest.importorskip("adlfs")
    cands = [os.environ.get("AZURITE_BLOB"), shutil.which("azurite-blob"),
             str(Path(sys.prefix) / "node_modules" / ".bin" / "azurite-blob")]
    exe = next((c for c in cands if c and Path(c).is_file()), None)
    if exe is None:
        pytest.skip("Azurite is not installed (make azurite)")
    port = free_port()
    work = tmp_path_factory.mktemp("azurite-hostile")
    with open(work / "azurite.log", "wb") as fh:
        proc = subprocess.Popen([exe, "--blobHost", "127.0.0.1", "--blobPort", str(port), "--skipApiVersionCheck",
                                 "--location", str(work), "--silent"], stdout=fh, stderr=subprocess.STDOUT)
    if not wait_port(port, proc, seconds=60.0, poll_s=0.2):
        proc.kill()
        pytest.skip("Azurite did not start")
    mp = pytest.MonkeyPatch()
    for k in ("AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_SAS_TOKEN"):
        mp.delenv(k, raising=False)
    mp.setenv("AZURE_STORAGE_CONNECTION_STRING", f"DefaultEndpointsProtocol=http;AccountName={ACCOUNT};"
              f"AccountKey={KEY};BlobEndpoint=http://127.0.0.1:{port}/{ACCOUNT};")
    from azure.storage.blob import BlobServiceClient

    svc = BlobServiceClient.from_connection_string(os.environ["AZURE_STORAGE_CONNECTION_STRING"])
    box = svc.create_container("hostile")
    stored: dict[int, str] = {}
    for i, rel in enumerate(sorted(HOSTILE)):
        if any(c in rel for c in "\x00\x1b"):
            continue  # the Blob service's XML listing cannot carry control characters (Azurite answers 500, retried)
        try:
            box.upload_blob(f"case{i}/rank0.csv", rank_csv(0))
            box.upload_blob(f"case{i}/{rel}", rank_csv(1))
            stored[i] = rel
        except Exception:  # noqa: BLE001 - a name Azure itself refuses cannot be listed
            continue
    yield stored
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    mp.undo()


@pytest.mark.parametrize("i", range(len(HOSTILE)))
def test_az_hostile_key_is_refused(azure, capsys, tmp_path, monkeypatch, i):
    if i not in azure:
        pytest.skip("the Azure SDK or Azurite refuses this name itself (no listing can hold it)")
    rel = sorted(HOSTILE)[i]
    from costmodel.jobs.storage import list_objects

    try:
        list_objects(f"az://hostile/case{i}/")
    except IngestError as exc:
        pytest.skip(f"Azurite cannot list this name: {exc}")
    # the Blob service turns a backslash into '/': "a\\..\\..\\pwned.csv" is listed as "a/../../pwned.csv"
    needle = "'..' part" if "\\" in rel else HOSTILE[rel]
    _check_refused(capsys, tmp_path, monkeypatch, f"az://hostile/case{i}/", "fit", needle)


def test_az_listing_with_dotdot_is_refused(azure, capsys, tmp_path, monkeypatch):
    """Azurite serves a '..' key as-is (from a backslash name): it is refused, nothing written outside."""
    from costmodel.jobs.storage import list_objects

    i = sorted(HOSTILE).index("a\\..\\..\\pwned.csv")
    assert list_objects(f"az://hostile/case{i}/")[0] == f"az://hostile/case{i}/a/../../pwned.csv"
    _check_refused(capsys, tmp_path, monkeypatch, f"az://hostile/case{i}/", "ingest", "'..' part")
