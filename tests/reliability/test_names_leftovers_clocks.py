"""Issue 27, case 8 (lower): terminal escape sequences in file names are escaped when echoed; the temporary folders of
killed runs are removed by a later run; a daylight-saving gap in naive local times is reported, not a silent 1 h."""
from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import tempfile
import time

from support.storage import rank_csv

from costmodel.cli import main
from costmodel.foundation.leftovers import owned_tempdir, sweep

ESC = "\x1b"


def test_escape_sequences_in_file_names_are_escaped_when_echoed(capsys, tmp_path):
    evil = tmp_path / f"evil{ESC}]0;pwned{chr(7)}{ESC}[2J.csv"
    evil.write_bytes(bytes(range(256)))
    assert main(["ingest", str(evil)]) == 2
    err = capsys.readouterr().err
    assert ESC not in err and "\x07" not in err
    assert "evil\\x1b]0;pwned\\x07\\x1b[2J.csv: binary data" in err
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "good.csv").write_bytes(rank_csv(1))
    (folder / f"bad{ESC}[31m.csv").write_bytes(b"")
    assert main(["ingest", str(folder)]) == 0
    cap = capsys.readouterr()
    assert ESC not in cap.err and "bad\\x1b[31m.csv: skipped (empty)" in cap.err
    assert main(["fit", str(folder)]) == 0
    assert ESC not in capsys.readouterr().err


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def _aged(path, seconds=3600):
    t = time.time() - seconds
    os.utime(path, (t, t))
    return path


def test_temp_folders_of_killed_runs_are_removed_by_a_later_run(tmp_path, monkeypatch):
    dead = _dead_pid()
    out = tmp_path / "catalog"
    killed = tmp_path / f".catalog.importing-{dead}-abc123"
    killed.mkdir()
    (killed / "half.csv").write_text("provider,item\n")
    _aged(killed)
    fresh = tmp_path / f".catalog.importing-{dead}-new999"  # a killed run of a moment ago: left for now
    fresh.mkdir()
    live = tmp_path / f".catalog.importing-{os.getppid()}-live00"  # a running process's folder: never touched
    live.mkdir()
    _aged(live)
    other = tmp_path / "unrelated-dir"
    other.mkdir()
    _aged(other)
    src = tmp_path / "skus.json"
    src.write_text(json.dumps({"skus": []}))
    main(["prices", "import", str(src), "-o", str(out)])
    assert not killed.exists()
    assert fresh.exists() and live.exists() and other.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".catalog.importing-") and str(os.getpid()) in p.name]

    # the object-storage copies (system temporary folder) follow the same rule
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    copies = tmp_path / f"costmodel-objects-{dead}-zz"
    copies.mkdir()
    (copies / "rank0.csv").write_bytes(rank_csv(0))
    _aged(copies)
    mine = owned_tempdir("costmodel-objects-")
    assert not copies.exists() and mine.name.startswith(f"costmodel-objects-{os.getpid()}-")
    assert sweep(tmp_path, "costmodel-objects-") == []  # our own is never swept


def test_dst_gap_in_naive_local_times_is_reported(capsys, tmp_path):
    rows, t = [], dt.datetime(2026, 3, 29, 1, 59, 50)
    for i in range(40):
        rows.append(f"{t.isoformat()},{i},100")
        t += dt.timedelta(seconds=1)
        if t == dt.datetime(2026, 3, 29, 2, 0, 0):  # 02:00 local does not exist that night in Europe
            t = dt.datetime(2026, 3, 29, 3, 0, 0)
    p = tmp_path / "dst.csv"
    p.write_text("time,step,samples_per_s\n" + "\n".join(rows) + "\n")
    assert main(["ingest", str(p), "--json"]) == 0
    cap = capsys.readouterr()
    (w,) = [x for x in json.loads(cap.out)["warnings"] if "daylight-saving" in x]
    assert "jump by +3601 s at data row 11" in w
    assert main(["ingest", str(p)]) == 0
    assert "daylight-saving" in capsys.readouterr().err
    # zone-aware times: the same rows with a UTC offset are measured as given, nothing to report
    q = tmp_path / "utc.csv"
    q.write_text("time,step,samples_per_s\n" + "\n".join(r.replace(",", "+02:00,", 1) for r in rows) + "\n")
    assert main(["ingest", str(q), "--json"]) == 0
    assert not [x for x in json.loads(capsys.readouterr().out)["warnings"] if "daylight-saving" in x]
