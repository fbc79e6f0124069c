"""Issue 40, items 2, 3, 5, 6 and 7: one bounded reader for standard input (``<stdin>`` in every message, nothing left
behind, a killed run's copy swept by the next run), one writer rule for every verb that writes (``place --scenarios``,
``prices import -o``, ``prices fetch -o``: no file replaced without ``--force``; temporary files named by their
process and swept when it is dead), limits on work with clear errors and progress, one-line errors for a closed or
malformed Dask scheduler, a dying report kernel and a full disk, and no silence: stray timeline runs counted, every
corrupt rank log named at once, ``simulate --json`` the same bytes run to run, file names escaped in ``fit``."""
from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from costmodel.cli import main
from costmodel.foundation import leftovers, stdin
from costmodel.foundation.errors import CostmodelError, IngestError, OutputError

ESC = "\x1b"
EXAMPLES = Path(__file__).resolve().parents[2] / "costmodel" / "data" / "examples"


def _run(args: list[str], *, cwd: Path, env: dict[str, str] | None = None, data: bytes | None = None,
         timeout: float = 240) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "costmodel", *args], cwd=cwd, input=data, capture_output=True,
                          timeout=timeout, env=dict(os.environ, **(env or {})))


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def _aged(path: Path, seconds: float = 3600) -> Path:
    t = time.time() - seconds
    os.utime(path, (t, t))
    return path


def _copies(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("costmodel-objects-"))


# --- item 2: one bounded reader for standard input --------------------------------------------------------------

@pytest.mark.parametrize("verb", ["fit", "ingest"])
def test_endless_stdin_is_refused_at_the_bound_naming_stdin_and_leaves_nothing(tmp_path, verb):
    env = {"TMPDIR": str(tmp_path), "COSTMODEL_MAX_STDIN_BYTES": "100000"}
    r = _run([verb, "-"], cwd=tmp_path, env=env, data=b"step,samples_per_s\n" + b"1,100\n" * 60_000)
    err = r.stderr.decode()
    assert r.returncode == 2, err
    assert err == (f"costmodel {verb}: error: <stdin>: more than 100,000 bytes on standard input; refused (an endless "
                   "pipe? COSTMODEL_MAX_STDIN_BYTES raises the bound)\n")
    assert _copies(tmp_path) == []


def test_errors_about_stdin_name_stdin_not_the_temporary_copy(tmp_path):
    r = _run(["fit", "-"], cwd=tmp_path, env={"TMPDIR": str(tmp_path)}, data=b"garbage\x00\n")
    err = r.stderr.decode()
    assert r.returncode == 2 and err.startswith("costmodel fit: error: <stdin>: binary data"), err
    assert "costmodel-objects" not in err and str(tmp_path) not in err
    assert _copies(tmp_path) == []


@settings(max_examples=40, deadline=None, derandomize=True)
@given(n=st.integers(0, 3000), limit=st.integers(0, 2000), chunk=st.integers(1, 700))
def test_stdin_copy_is_exact_below_the_bound_and_leaves_nothing_above_it(tmp_path_factory, n, limit, chunk):
    data = bytes(i % 251 for i in range(n))
    dst = tmp_path_factory.mktemp("c") / "stdin"
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(data))
    try:
        if n <= limit:
            assert stdin.copy_to(dst, limit, chunk_bytes=chunk) == n
            assert dst.read_bytes() == data and stdin.sha256() == hashlib.sha256(data).hexdigest()
        else:
            with pytest.raises(stdin.StdinTooLarge, match=f"<stdin>: more than {limit:,} bytes"):
                stdin.copy_to(dst, limit, chunk_bytes=chunk)
            assert not dst.exists()
    finally:
        sys.stdin = saved


def test_a_killed_stdin_copy_is_swept_by_the_next_run(tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "costmodel", "ingest", "-"], cwd=tmp_path, stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        assert proc.stdin is not None
        proc.stdin.write(b"step,samples_per_s\n" + b"1,100\n" * 1000)
        proc.stdin.flush()
        deadline = time.monotonic() + 120
        while not any((tmp_path / c / "stdin").exists() for c in _copies(tmp_path)):
            assert time.monotonic() < deadline, "the stdin copy never appeared"
            time.sleep(0.1)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    left = _copies(tmp_path)
    assert len(left) == 1 and left[0].startswith(f"costmodel-objects-{proc.pid}-")  # SIGKILL: nothing could clean
    _aged(tmp_path / left[0])
    r = _run(["ingest", "-"], cwd=tmp_path, env={"TMPDIR": str(tmp_path)},
             data=(EXAMPLES / "colocated_steps.csv").read_bytes())
    assert r.returncode == 0, r.stderr.decode()
    assert _copies(tmp_path) == []  # the killed run's copy is gone, and so is this run's


# --- item 3: one writer rule ------------------------------------------------------------------------------------

def test_place_scenarios_never_replaces_an_edited_scenario_without_force(tmp_path):
    assert main(["example", str(tmp_path / "ex")]) == 0
    scen = tmp_path / "scen"
    r = _run(["place", "ex/placement.yaml", "--scenarios", "scen", "--monte-carlo", "50", "--json"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    written = sorted(scen.glob("*.yaml"))
    assert written
    written[0].write_text("# my edits\n" + written[0].read_text())
    before = {p.name: p.read_bytes() for p in scen.iterdir()}
    again = _run(["place", "ex/placement.yaml", "--scenarios", "scen", "--monte-carlo", "50", "--json"], cwd=tmp_path)
    err = again.stderr.decode()
    assert again.returncode == 2 and len(err.splitlines()) == 1, err
    assert f"--scenarios scen/{written[0].name}: a file of that name exists; not replaced (give --force" in err
    assert {p.name: p.read_bytes() for p in scen.iterdir()} == before  # nothing rewritten, not even the others
    forced = _run(["place", "ex/placement.yaml", "--scenarios", "scen", "--monte-carlo", "50", "--json", "--force"],
                  cwd=tmp_path)
    assert forced.returncode == 0 and not written[0].read_text().startswith("# my edits")


def test_prices_import_never_replaces_the_users_csv_without_force(tmp_path):
    src = tmp_path / "skus.json"
    src.write_text(json.dumps({"skus": []}))
    out = tmp_path / "prices"
    out.mkdir()
    (out / "skus.csv").write_text("my own prices\n")
    r = _run(["prices", "import", str(src), "-o", str(out)], cwd=tmp_path)
    assert r.returncode == 2 and "skus.csv: a file of that name exists; not replaced (give --force" in r.stderr.decode()
    assert (out / "skus.csv").read_text() == "my own prices\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prices", "skus.json"]  # no temporary folder left
    assert _run(["prices", "import", str(src), "-o", str(out), "--force"], cwd=tmp_path).returncode == 0
    assert (out / "skus.csv").read_text().startswith("provider,")


@pytest.mark.parametrize("target", ["t.parquet", "adr"])
def test_temporary_files_of_killed_writers_are_swept_by_owner_pid(tmp_path, target):
    """`ingest -o t` (``.t.*.tmp`` beside its output) and the ADR writers (``.adr.*.tmp`` in the ADR folder)."""
    dead = _dead_pid()
    folder = tmp_path if target != "adr" else tmp_path / "adr"
    folder.mkdir(exist_ok=True)
    stem = ".t.parquet." if target != "adr" else ".adr."
    killed = folder / f"{stem}{dead}-abc123.tmp"
    killed.write_bytes(b"half")
    _aged(killed)
    live = folder / f"{stem}{os.getppid()}-live00.tmp"  # a running process's: never touched
    live.write_bytes(b"busy")
    _aged(live)
    users = folder / f"{stem}notapid.tmp"
    users.write_bytes(b"mine")
    _aged(users)
    if target != "adr":
        assert main(["ingest", str(EXAMPLES / "colocated_steps.csv"), "-o", str(tmp_path / "t.parquet")]) == 0
    else:
        assert main(["decide", "--answers", str(EXAMPLES / "answers.yaml"), "--adr", str(folder),
                     "--date", "2026-10-01"]) in (0, 1)
    assert not killed.exists() and live.exists() and users.exists()


def test_zombie_and_reused_pids_count_as_dead(tmp_path):
    zombie = subprocess.Popen(["true"])  # exits; not reaped until wait(): a zombie
    time.sleep(0.5)
    try:
        assert leftovers._alive(zombie.pid) is False
    finally:
        zombie.wait()
    me = os.getpid()
    assert leftovers._alive(me) is True
    assert leftovers._alive(me, since=time.time() - 3600 * 24 * 365 * 30) is False  # "made" before we started
    assert leftovers._alive(me, since=time.time()) is True


def test_report_lock_is_not_left_on_a_full_disk_and_the_error_names_the_folder(tmp_path, monkeypatch):
    from costmodel.report.output_folder import OutputClaim

    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "pwrite", full)
    dest = tmp_path / "rep"
    with pytest.raises(OutputError) as info:
        OutputClaim(dest).acquire()
    assert str(info.value) == f"cannot create the output folder in {tmp_path}: no space left on device (ENOSPC)"
    assert list(tmp_path.iterdir()) == []


def test_place_adr_on_a_full_disk_names_the_folder(tmp_path, monkeypatch):
    import tempfile

    from costmodel.place.adr import write_placement_adr

    real = tempfile.mkstemp

    def to_dev_full(*a, **k):
        fd, path = real(*a, **k)
        os.close(fd)
        return os.open("/dev/full", os.O_WRONLY), path

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    monkeypatch.setattr(tempfile, "mkstemp", to_dev_full)
    out = {"winner": {"candidate": "us-east-1", "strategy": "remote"}}
    monkeypatch.setattr("costmodel.place.adr.render_placement_adr", lambda *_a, **_k: "x" * 100_000)
    with pytest.raises(CostmodelError) as info:
        write_placement_adr(tmp_path / "adr", out, date="2026-10-01")
    assert f"cannot write the ADR into {tmp_path / 'adr'}: no space left on device (ENOSPC)" in str(info.value)
    assert list((tmp_path / "adr").iterdir()) == []


# --- item 5: limits on work ---------------------------------------------------------------------------------------

def test_too_many_candidates_are_refused_before_any_work(tmp_path):
    import yaml

    assert main(["example", str(tmp_path / "ex")]) == 0
    doc = yaml.safe_load((tmp_path / "ex" / "placement.yaml").read_text())
    one = dict(doc["candidates"][1])
    doc.pop("constraints", None)
    doc["candidates"] = [dict(one, name=f"c{i}") for i in range(30)]
    (tmp_path / "ex" / "many.yaml").write_text(yaml.safe_dump(doc))
    r = _run(["place", "ex/many.yaml", "--json"], cwd=tmp_path, env={"COSTMODEL_MAX_CANDIDATES": "25"})
    assert r.returncode == 2 and r.stdout == b""
    assert r.stderr.decode() == ("costmodel place: error: ex/many.yaml: candidates: 30 candidates with 30 offers in all, "
                                 "more than 25 candidate x offer rows (COSTMODEL_MAX_CANDIDATES raises the bound; each "
                                 "row is a cost scenario and a Monte Carlo column)\n")
    shown = _run(["place", "ex/many.yaml", "--json", "--monte-carlo", "20"], cwd=tmp_path,
                 env={"COSTMODEL_PROGRESS": "1"})
    assert shown.returncode == 0, shown.stderr.decode()
    assert len(json.loads(shown.stdout)["candidates"]) == 30


# --- item 6: clear one-line errors ------------------------------------------------------------------------------

@pytest.mark.parametrize(("address", "expected"), [
    ("tcp://127.0.0.1:1", "tcp://127.0.0.1:1: nothing listens there (connection refused); is the Dask scheduler running?"),
    ("garbage", "'garbage' is not a scheduler address; expected tcp://HOST:PORT (e.g. tcp://scheduler:8786)"),
    ("tcp://host:99999", "'tcp://host:99999' is not a scheduler address; expected tcp://HOST:PORT"),
    ("tcp://sched\x1b[2J:8786", "'tcp://sched\\x1b[2J:8786' is not a scheduler address"),
])
def test_a_closed_or_malformed_dask_scheduler_is_one_line_in_seconds(monkeypatch, address, expected):
    pytest.importorskip("distributed")
    from costmodel.jobs.distributed import client

    monkeypatch.setenv("COSTMODEL_DASK_SCHEDULER", address)
    t0 = time.monotonic()
    with pytest.raises(IngestError) as info, client():
        pass
    assert time.monotonic() - t0 < 10
    assert str(info.value).startswith("[COSTMODEL_DASK_SCHEDULER]: ") and expected in str(info.value)
    assert "\n" not in str(info.value) and ESC not in str(info.value)


def test_a_dying_report_kernel_is_one_line(tmp_path):
    pytest.importorskip("papermill")
    import nbformat

    from costmodel.report.render import execute_notebook

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    src = tmp_path / "dies.ipynb"
    nbformat.write(nb, src)
    with pytest.raises(CostmodelError) as info:
        execute_notebook(src, tmp_path / "out.ipynb", {}, cwd=tmp_path)
    msg = str(info.value)
    assert msg.startswith("the report's Python kernel died while running the notebook") and "\n" not in msg
    assert "more memory" in msg and "DeadKernelError" in msg


@pytest.mark.parametrize("text", [
    ("An error occurred (PermanentRedirect) when calling the ListObjectsV2 operation: The bucket you are attempting to "
    "access must be addressed using the specified endpoint. Please send all future requests to this endpoint."),
    ("An error occurred (AuthorizationHeaderMalformed) when calling the ListObjectsV2 operation: the region 'us-east-1' "
    "is wrong; expecting 'eu-west-1'"),
    "OSError: [Errno 301] Moved Permanently",
])
def test_an_s3_redirect_says_wrong_region_not_cannot_connect(text):
    from costmodel.jobs.storage import storage_error

    msg = str(storage_error("s3://bucket/logs/", OSError(text)))
    assert msg.startswith("s3://bucket/logs/: bucket 'bucket' is in another region"), msg
    assert "AWS_REGION" in msg and "cannot connect" not in msg
    if "expecting" in text:
        assert "(eu-west-1)" in msg


def test_an_object_named_like_a_status_code_is_not_a_redirect():
    from costmodel.jobs.storage import storage_error

    msg = str(storage_error("s3://fleet/job1/", FileNotFoundError("fleet/job1/rank0301.csv")))
    assert msg == "s3://fleet/job1/: no such object or prefix"


# --- item 7: litter and silence -----------------------------------------------------------------------------------

def test_a_run_in_the_timeline_but_not_in_its_metadata_is_named(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from costmodel.foundation.timeline import METADATA_KEY, read_runs

    out = tmp_path / "t.parquet"
    assert main(["ingest", str(EXAMPLES / "colocated_steps.csv"), str(EXAMPLES / "remote_steps.csv"), "-o",
                 str(out)]) == 0
    table = pq.read_table(out)
    meta = json.loads(table.schema.metadata[METADATA_KEY.encode() if isinstance(METADATA_KEY, str) else METADATA_KEY])
    kept = [m for m in meta if m["run_id"] != "remote_steps"]
    assert len(kept) == len(meta) - 1
    md = dict(table.schema.metadata)
    md[METADATA_KEY.encode() if isinstance(METADATA_KEY, str) else METADATA_KEY] = json.dumps(kept).encode()
    pq.write_table(table.replace_schema_metadata(md), out)
    n = pa.compute.sum(pa.compute.equal(table["run_id"], "remote_steps")).as_py()
    runs = read_runs(out)
    assert [r.run_id for r in runs] == ["colocated_steps"]
    assert runs[0].warnings[-1] == (f"{out}: 1 run(s) in the file but not in its costmodel metadata, not read: "
                                    f"'remote_steps' ({n:,} rows)")


def test_every_corrupt_rank_log_is_named_at_once(tmp_path, capsys):
    from costmodel.synthetic.rank_logs import generate_job

    generate_job(tmp_path / "job", n_ranks=30, n_steps=60, seed=3)
    bad = [5, 17, 28]
    for r in bad:
        next((tmp_path / "job").glob(f"*rank{r:04d}.csv")).write_text("step,samples_per_s\n1,abc\n2,\n")
    assert main(["fit", str(tmp_path / "job"), "--engine", "pandas"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("costmodel fit: error: 3 files cannot be read: ")
    for r in bad:
        assert f"rank{r:04d}.csv: " in err


def test_simulate_json_is_the_same_bytes_run_to_run(tmp_path):
    outs = {_run(["simulate", str(EXAMPLES / "whatif.yaml"), "--json", "--set", f"workload.access.pattern={pat}"],
                 cwd=tmp_path, env={"PYTHONHASHSEED": str(seed)}).stdout
            for seed in (1, 2) for pat in ("shuffled",)}
    assert len(outs) == 1 and json.loads(next(iter(outs)))["workload"]


def test_fit_escapes_terminal_escapes_in_file_names(tmp_path, capsys):
    evil = tmp_path / f"a{ESC}[31mred{ESC}]0;t\x07.csv"
    evil.write_bytes((EXAMPLES / "colocated_steps.csv").read_bytes())
    assert main(["fit", str(evil)]) == 0
    cap = capsys.readouterr()
    assert ESC not in cap.out and "\x07" not in cap.out and ESC not in cap.err
    assert cap.out.startswith("a\\x1b[31mred\\x1b]0;t\\x07: ")


def test_a_verbs_json_on_stdin_is_bounded_too(monkeypatch, capsys):
    import costmodel.foundation.safeio as safeio

    monkeypatch.setattr(safeio, "MAX_TEXT_BYTES", 1000)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"x": "' + b"a" * 5000 + b'"}')))
    assert main(["decide", "--answers", str(EXAMPLES / "answers.yaml"), "--compare", "-"]) == 2
    err = capsys.readouterr().err
    assert err.endswith("more than 1,000 bytes on standard input; refused (a verb's --json output is a few KiB)\n")
    assert "<stdin>" in err and len(err.splitlines()) == 1


def test_the_local_dask_cluster_leaves_no_scratch_or_lock(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    import tempfile

    from costmodel.jobs.distributed import client

    monkeypatch.delenv("COSTMODEL_DASK_SCHEDULER", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with client() as c:
        assert c.submit(sum, [1, 2]).result() == 3
        scratch = [p.name for p in tmp_path.iterdir()]
        assert len(scratch) == 1 and scratch[0].startswith(f"costmodel-dask-{os.getpid()}-")
    assert list(tmp_path.iterdir()) == []
