"""The adversarial corpus: hostile input to every verb (ingest, fit, compare, cost, decide, report,
bench, simulate) and every input kind (CSV, JSON, YAML, Parquet, folders, symbolic link loops,
FIFOs, devices, sockets, huge and empty files, non-UTF-8, NUL bytes, injection strings, alias
bombs, hostile notebook parameters).

Each case runs the real CLI in this process (a watchdog turns a hang on a FIFO into a failure) and
asserts the exit status, exactly one clear stderr line naming the file or field, no traceback, and
that nothing half-written is left. Signals, a full disk, read-only file systems and concurrent
writers are in test_injected_faults.py; property-based fuzzing in test_fuzz_readers_and_loaders.py.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from support.hostile import (
    EX,
    billion_laughs,
    fifo,
    good_steps_csv,
    link_loop,
    nothing_left,
    one_error_line,
    unix_socket,
)

SCENARIO = (EX / "scenario.yaml").read_text(encoding="utf-8")
WHATIF = (EX / "whatif.yaml").read_text(encoding="utf-8")
ANSWERS = (EX / "answers.yaml").read_text(encoding="utf-8")


# ----------------------------------------------------------------------------- hostile files
def _empty(d: Path) -> Path:
    (d / "empty.csv").write_bytes(b"")
    return d / "empty.csv"


def _blank(d: Path) -> Path:
    (d / "blank.csv").write_bytes(b"   \n\n\t\n")
    return d / "blank.csv"


def _nul(d: Path) -> Path:
    (d / "nul.csv").write_bytes(b"step,t_s,samples_per_s\n0,1,\x00\x00\x00100\n" + b"\x00" * 4096)
    return d / "nul.csv"


def _huge_sparse(d: Path) -> Path:
    p = d / "huge.csv"
    with open(p, "wb") as fh:
        fh.truncate(4 * 1024**3)  # 4 GiB of NUL bytes, sparse: refused from its head, never read whole
    return p


def _garbage_parquet(d: Path) -> Path:
    (d / "x.parquet").write_bytes(b"PAR1" + os.urandom(2048))
    return d / "x.parquet"


def _truncated_parquet(d: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = d / "cut.parquet"
    pq.write_table(pa.table({"step": list(range(500)), "samples_per_s": [100.0] * 500}), p)
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    return p


def _truncated_json(d: Path) -> Path:
    (d / "fio.json").write_text('{"fio version": "fio-3.36", "jobs": [{"jobname": "r", "read": {"bw": 12', encoding="utf-8")
    return d / "fio.json"


def _deep_json(d: Path) -> Path:
    (d / "deep.json").write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    return d / "deep.json"


def _fifo(d: Path) -> Path:
    return fifo(d / "pipe.csv")


def _loop(d: Path) -> Path:
    return link_loop(d / "loop.csv")


def _dangling(d: Path) -> Path:
    os.symlink(d / "gone.csv", d / "dangling.csv")
    return d / "dangling.csv"


def _yaml_config(d: Path) -> Path:
    (d / "config.yaml").write_text("workload:\n  train:\n    epochs: 3\n", encoding="utf-8")
    return d / "config.yaml"


def _header_only(d: Path) -> Path:
    (d / "header.csv").write_text("step,t_s,samples_per_s\n", encoding="utf-8")
    return d / "header.csv"


BAD_RUN_FILES: dict[str, tuple[Callable[[Path], Path], tuple[str, ...]]] = {
    # name: (builder, words the one error line must contain besides the file name)
    "empty": (_empty, ("empty",)),
    "blank": (_blank, ("empty",)),
    "nul-bytes": (_nul, ("binary",)),
    "huge-sparse-4GiB": (_huge_sparse, ("binary",)),
    "garbage-parquet": (_garbage_parquet, ()),
    "truncated-parquet": (_truncated_parquet, ()),
    "truncated-json": (_truncated_json, ("json",)),
    "fifo": (_fifo, ("named pipe",)),
    "symlink-loop": (_loop, ("link loop",)),
    "dangling-symlink": (_dangling, ("no such file",)),
    "yaml-config": (_yaml_config, ("yaml",)),
    "header-only": (_header_only, ()),
}


@pytest.mark.parametrize("kind", sorted(BAD_RUN_FILES))
@pytest.mark.parametrize("verb", ["ingest", "fit", "compare"])
def test_bad_run_file_is_one_clear_line(cli, tmp_path, verb, kind):
    """36 cases: every hostile run file, to each verb that reads runs; -o is never half-written."""
    build, words = BAD_RUN_FILES[kind]
    bad = build(tmp_path)
    out = tmp_path / "out" / "t.parquet"
    if verb == "ingest":
        argv = ["ingest", bad, "-o", out]
    elif verb == "fit":
        argv = ["fit", bad]
    else:
        argv = ["compare", "--colocated", EX / "colocated_steps.csv", "--remote", bad]
    fifos = (bad,) if kind == "fifo" else ()
    r = cli(*argv, fifos=fifos)
    one_error_line(r, verb, bad.name, *words)
    assert r.seconds < 20, f"took {r.seconds:.1f} s"
    assert not out.parent.exists(), "ingest -o left something"


def test_deep_json_is_refused_without_recursion_traceback(cli, tmp_path):
    r = cli("ingest", _deep_json(tmp_path))
    assert r.rc == 2 and "Traceback" not in r.err and len(r.lines) == 1, r.err
    assert "deep.json" in r.err


def test_character_device_and_socket_are_refused(cli, tmp_path):
    r = cli("ingest", "/dev/zero")
    one_error_line(r, "ingest", "/dev/zero", "character device")
    sock, s = unix_socket(tmp_path / "s.csv")
    try:
        r = cli("fit", sock)
        one_error_line(r, "fit", "s.csv", "socket")
    finally:
        s.close()


@pytest.mark.parametrize("odd", ["fifo", "loop", "dangling", "socket"])
def test_a_folder_with_odd_entries_reads_the_good_file_and_notes_the_rest(cli, tmp_path, odd):
    """Nothing silently lost or silently skipped: the FIFO / loop / dangling link is named in a warning."""
    d = tmp_path / "runs"
    d.mkdir()
    good_steps_csv(d / "good.csv")
    s = None
    if odd == "fifo":
        name = fifo(d / "pipe.csv").name
    elif odd == "loop":
        name = link_loop(d / "loop.csv").name
    elif odd == "dangling":
        os.symlink(d / "nowhere.csv", d / "dangling.csv")
        name = "dangling.csv"
    else:
        _p, s = unix_socket(d / "sock.csv")
        name = "sock.csv"
    try:
        r = cli("ingest", d, "--json", fifos=(d / "pipe.csv",) if odd == "fifo" else ())
    finally:
        if s is not None:
            s.close()
    assert not r.hung and r.rc == 0, r.err
    doc = json.loads(r.out)
    assert [run["rows"] for run in doc["runs"]] == [60]
    assert any(name in w and "skipped" in w for w in doc["warnings"]), doc["warnings"]


def test_a_bad_row_is_counted_not_silently_dropped(cli, tmp_path):
    p = good_steps_csv(tmp_path / "r.csv", n=60, bad_rows=1)
    r = cli("ingest", p, "--json")
    assert r.rc == 0, r.err
    doc = json.loads(r.out)
    assert doc["rejected_rows"] == 1 and doc["runs"][0]["rows"] == 60


@pytest.mark.parametrize("name", ["$(touch pwned).csv", "<img src=x onerror=alert(1)>.csv", "a;rm -rf ~;b.csv",
                                  "run\u202eevil.csv", "**bold** [x](javascript:alert(1)).csv"])
def test_hostile_file_names_are_data(cli, tmp_path, name):
    p = good_steps_csv(tmp_path / name)
    r = cli("ingest", p, "--json")
    assert r.rc == 0, r.err
    assert json.loads(r.out)["runs"][0]["source"].endswith(name)
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()


# ------------------------------------------------------------------------------- ingest -o
def test_ingest_output_onto_a_folder_is_eisdir(cli, tmp_path):
    out = tmp_path / "out.parquet"
    out.mkdir()
    r = cli("ingest", good_steps_csv(tmp_path / "r.csv"), "-o", out)
    one_error_line(r, "ingest", "cannot write", "out.parquet", "is a folder", "EISDIR")
    nothing_left(tmp_path, {"r.csv", "out.parquet"})
    assert list(out.iterdir()) == []


def test_ingest_output_name_too_long_is_enametoolong(cli, tmp_path):
    r = cli("ingest", good_steps_csv(tmp_path / "r.csv"), "-o", tmp_path / ("x" * 300 + ".parquet"))
    one_error_line(r, "ingest", "cannot", "file name too long", "ENAMETOOLONG")
    nothing_left(tmp_path, {"r.csv"})


def test_ingest_output_under_a_file_is_enotdir(cli, tmp_path):
    (tmp_path / "f").write_text("x")
    r = cli("ingest", good_steps_csv(tmp_path / "r.csv"), "-o", tmp_path / "f" / "t.parquet")
    one_error_line(r, "ingest", "cannot", "not a folder")
    nothing_left(tmp_path, {"r.csv", "f"})


# ------------------------------------------------------------------------------ YAML inputs
def _bomb_top(d):
    return billion_laughs() + SCENARIO


def _bomb_workload(d):
    return WHATIF.replace("workload:\n", "workload:\n  bomb:\n" + billion_laughs(indent="    ") , 1)


def _bomb_notes(d):
    return SCENARIO + "\nnotes:\n" + billion_laughs(indent="  ")


def _recursive(d):
    return SCENARIO + "\nloop: &a [1, *a]\n"


def _duplicate(d):
    return "horizon_months: 12\n" + SCENARIO + "\nhorizon_months: 24\n"


def _deep(d):
    return "x: " + "[" * 5000 + "]" * 5000 + "\n"


def _python_tag(d):
    return SCENARIO + f'\nevil: !!python/object/apply:os.system ["touch {d}/pwned"]\n'


def _tabs_and_nul(d):
    return "a: 1\n\x00b: 2\n"


YAML_CASES: dict[str, tuple[Callable[[Path], str], tuple[str, ...]]] = {
    "bomb-top-level": (_bomb_top, ("alias",)),
    "bomb-in-workload": (_bomb_workload, ("alias",)),
    "bomb-in-notes": (_bomb_notes, ("alias",)),
    "recursive-alias": (_recursive, ("recursive alias",)),
    "duplicate-key": (_duplicate, ("duplicate key",)),
    "deep-nesting": (_deep, ("deeper",)),
    "python-tag": (_python_tag, ("yaml",)),
    "nul-byte": (_tabs_and_nul, ("yaml",)),
}


@pytest.mark.parametrize("case", sorted(YAML_CASES))
@pytest.mark.parametrize("verb", ["cost", "simulate", "decide"])
def test_hostile_yaml_is_refused_at_once(cli, tmp_path, verb, case):
    """24 cases: every hostile YAML as a scenario (cost), a workload (simulate) and answers (decide)."""
    build, words = YAML_CASES[case]
    f = tmp_path / "in.yaml"
    f.write_text(build(tmp_path), encoding="utf-8")
    if verb == "cost":
        argv = ["cost", f]
    elif verb == "simulate":
        argv = ["simulate", f]
    else:
        argv = ["decide", "--answers", f]
    if verb == "decide" and case == "duplicate-key":
        words = ("given twice",)  # the answers loader's own wording
    r = cli(*argv)
    one_error_line(r, verb, "in.yaml", *words)
    assert r.seconds < 10, f"{case}: {r.seconds:.1f} s"
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("kind", ["fifo", "loop", "folder", "non-utf8", "huge", "empty"])
@pytest.mark.parametrize("verb", ["cost", "simulate", "decide"])
def test_yaml_input_that_is_not_a_small_text_file(cli, tmp_path, verb, kind):
    """18 cases: scenario / workload / answers given as a FIFO, link loop, folder, Latin-1 bytes,
    a 5 MiB file or an empty file."""
    f = tmp_path / "in.yaml"
    words: tuple[str, ...]
    if kind == "fifo":
        fifo(f)
        words = ("named pipe",)
    elif kind == "loop":
        link_loop(f)
        words = ("link loop",)
    elif kind == "folder":
        f.mkdir()
        words = ("folder",)
    elif kind == "non-utf8":
        f.write_bytes("name: caf\u00e9\n".encode("latin-1"))
        words = ("utf-8",)
    elif kind == "huge":
        f.write_bytes(b"# " + b"x" * (5 * 1024 * 1024) + b"\n")
        words = ("larger than",)
    else:
        f.write_bytes(b"")
        words = ()
    argv = {"cost": ["cost", f], "simulate": ["simulate", f], "decide": ["decide", "--answers", f, "--json"]}[verb]
    r = cli(*argv, fifos=(f,) if kind == "fifo" else ())
    if verb == "decide" and kind == "empty":  # no answers given: every item open, the verdict says so
        assert r.rc == 0 and json.loads(r.out)["verdict"] == "CONDITIONAL", r.err
        return
    one_error_line(r, verb, "in.yaml", *words)


@pytest.mark.parametrize("verb", ["cost", "simulate"])
def test_override_values_are_bounded_yaml_too(cli, tmp_path, verb):
    """--set with an alias bomb as its value: refused or kept as a plain string, never expanded."""
    bomb = "[" + ", ".join(["&a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"] + ["*a"] * 50) + "]"
    src = EX / ("scenario.yaml" if verb == "cost" else "whatif.yaml")
    key = "training.runs_per_month" if verb == "cost" else "workload.link.rtt_s"
    r = cli(verb, src, "--set", f"{key}={bomb}")
    one_error_line(r, verb, key)
    assert r.seconds < 10


# ------------------------------------------------------------------------------ JSON inputs
@pytest.mark.parametrize("kind", ["fifo", "deep", "non-utf8", "nul", "folder"])
@pytest.mark.parametrize("flag", ["cost --from-compare", "decide --compare"])
def test_json_evidence_that_is_hostile(cli, tmp_path, flag, kind):
    """10 cases: the compare JSON given to cost and decide as a FIFO, 200k-deep nesting, Latin-1,
    NUL bytes or a folder."""
    f = tmp_path / "compare.json"
    if kind == "fifo":
        fifo(f)
    elif kind == "deep":
        f.write_text("[" * 200_000 + "]" * 200_000)
    elif kind == "non-utf8":
        f.write_bytes('{"ratio": "caf\u00e9"}'.encode("latin-1"))
    elif kind == "nul":
        f.write_bytes(b'{"ratio": 1\x00}')
    else:
        f.mkdir()
    verb, opt = flag.split()
    argv = ["cost", EX / "scenario.yaml", opt, f] if verb == "cost" else ["decide", "--answers", EX / "answers.yaml", opt, f]
    r = cli(*argv, fifos=(f,) if kind == "fifo" else ())
    one_error_line(r, verb, "compare.json")


# --------------------------------------------------------------------- injection in the ADR
INJECTIONS = {
    "html": '<script>alert(1)</script><img src=x onerror=alert(2)>',
    "markdown": "[click](javascript:alert(1)) ![x](http://evil.example/x.png) | a | b |\n# heading",
    "shell": "$(touch pwned); `id` && rm -rf ~",
    "yaml-frontmatter": "---\nstatus: accepted\n---",
}


@pytest.mark.parametrize("kind", sorted(INJECTIONS))
def test_injection_in_titles_and_notes_stays_text_in_the_adr(cli, tmp_path, kind):
    payload = INJECTIONS[kind]
    answers = tmp_path / "answers.yaml"
    answers.write_text(
        "meta:\n  title: " + json.dumps("T " + payload) + "\nanswers:\n  network_ready:\n    answer: unknown\n    note: "
        + json.dumps("N " + payload) + "\n", encoding="utf-8")
    adr_dir = tmp_path / "adr"
    r = cli("decide", "--answers", answers, "--adr", adr_dir, "--json", "--date", "2026-01-02")
    assert r.rc == 0, r.err
    files = list(adr_dir.iterdir())
    assert len(files) == 1 and files[0].parent == adr_dir and "/" not in files[0].name
    text = files[0].read_text(encoding="utf-8")
    assert "<script>" not in text and "<img" not in text
    assert "](javascript:" not in text and "\n# heading" not in text
    assert "\n---\nstatus: accepted" not in text
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()
    assert json.loads(r.out)["verdict"]


def test_adr_folder_that_is_a_file(cli, tmp_path):
    (tmp_path / "adr").write_text("x")
    r = cli("decide", "--answers", EX / "answers.yaml", "--adr", tmp_path / "adr", "--date", "2026-01-02")
    one_error_line(r, "decide", "adr")
    assert (tmp_path / "adr").read_text() == "x"


# --------------------------------------------------------------------------------- simulate
def test_simulate_output_name_too_long(cli, tmp_path):
    r = cli("simulate", EX / "whatif.yaml", "-o", tmp_path / ("p" * 300 + ".parquet"))
    one_error_line(r, "simulate", "file name too long")
    nothing_left(tmp_path)


# ------------------------------------------------------------------------------------ bench
def test_bench_root_that_is_a_fifo(cli, tmp_path):
    f = fifo(tmp_path / "data")
    r = cli("bench", f, "--passes", "1", fifos=(f,))
    one_error_line(r, "bench", "not a directory")


def test_bench_skips_a_fifo_and_a_loop_in_the_dataset_and_says_so(cli, tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    (d / "a.bin").write_bytes(os.urandom(64 * 1024))
    fifo(d / "pipe")
    link_loop(d / "loop")
    r = cli("bench", d, "--passes", "1", "--workers", "1", "--json", "--no-evict", "-q", fifos=(d / "pipe",))
    assert not r.hung and r.rc == 0, r.err
    doc = json.loads(r.out)
    assert doc["files"] == 1
    assert doc["run"]["skipped_count"] == 2
    skipped = " ".join(doc["run"]["skipped"])
    assert "pipe: is a named pipe (FIFO)" in skipped and "loop: symbolic link loop" in skipped, skipped


def test_bench_root_that_is_a_loop(cli, tmp_path):
    r = cli("bench", link_loop(tmp_path / "root"), "--passes", "1")
    one_error_line(r, "bench", "root")


# ----------------------------------------------------------------------------------- report
@pytest.mark.parametrize("which", ["answers-fifo", "scenario-loop", "colocated-folder", "remote-device"])
def test_report_refuses_odd_inputs_before_starting_a_kernel(cli, tmp_path, which):
    out = tmp_path / "out"
    f = tmp_path / "odd"
    args = {"answers": EX / "answers.yaml", "scenario": EX / "scenario.yaml"}
    colocated, remote = EX / "colocated_steps.csv", EX / "remote_steps.csv"
    if which == "answers-fifo":
        args["answers"] = fifo(f)
    elif which == "scenario-loop":
        args["scenario"] = link_loop(f)
    elif which == "colocated-folder":
        f.mkdir()
        colocated = f
    else:
        remote = Path("/dev/null")
    argv = ["report", "--colocated", colocated, "--remote", remote, "--scenario", args["scenario"],
            "--answers", args["answers"], "-o", out, "--monte-carlo", "0"]
    r = cli(*argv, fifos=(f,) if which == "answers-fifo" else ())
    one_error_line(r, "report", which.split("-")[0])
    assert r.seconds < 10
    nothing_left(tmp_path, {"odd"})


@pytest.mark.parametrize("force", [False, True])
def test_report_messages_agree_for_a_folder_of_other_files(cli, tmp_path, force):
    out = tmp_path / "out"
    out.mkdir()
    (out / "thesis.tex").write_text("mine")
    argv = ["report", "--colocated", EX / "colocated_steps.csv", "--scenario", EX / "scenario.yaml",
            "--answers", EX / "answers.yaml", "-o", out] + (["--force"] if force else [])
    line = one_error_line(cli(*argv), "report", "not part of a report", "thesis.tex", "choose another folder")
    assert "pass --force" not in line
    assert (out / "thesis.tex").read_text() == "mine"
    nothing_left(tmp_path, {"out"})


def test_report_output_name_too_long_and_output_a_file(cli, tmp_path):
    base = ["report", "--colocated", EX / "colocated_steps.csv", "--scenario", EX / "scenario.yaml",
            "--answers", EX / "answers.yaml", "--monte-carlo", "0", "-o"]
    one_error_line(cli(*base, tmp_path / ("r" * 300)), "report", "file name too long")
    (tmp_path / "f").write_text("x")
    one_error_line(cli(*base, tmp_path / "f"), "report", "not a folder")
    nothing_left(tmp_path, {"f"})


HOSTILE_PARAMS = {
    "margin-nan": {"margin": float("nan")},
    "margin-string": {"margin": "0.1; import os"},
    "monte-carlo-huge": {"monte_carlo_n": 10**12},
    "monte-carlo-bool": {"monte_carlo_n": True},
    "seed-negative": {"seed": -1},
    "date-injection": {"date": "2026-01-01'); import os; ('"},
    "colocated-dict": {"colocated": {"$ne": 1}},
    "colocated-nested": {"colocated": [["a.csv"]]},
    "unknown-name": {"__import__": "os"},
    "path-traversal": {"scenario": "../../../../etc/shadow-not-here"},
    "scenario-empty": {"scenario": ""},
    "title-not-str": {"title": ["<script>"]},
}


@pytest.mark.parametrize("case", sorted(HOSTILE_PARAMS))
def test_hostile_notebook_parameters_are_refused_as_data(case):
    """12 cases: values papermill could inject into the report notebook are checked, never evaluated."""
    from costmodel import report
    from costmodel.foundation.errors import ReportError

    values = {"colocated": [str(EX / "colocated_steps.csv")], **HOSTILE_PARAMS[case]}
    with pytest.raises(ReportError) as info:
        report.validate_parameters(**values)
    msg = str(info.value)
    assert "\n" not in msg and len(msg) < 600
    assert "parameter" in msg


@pytest.mark.parametrize("kind", ["fifo", "loop"])
def test_cost_from_timeline_that_is_not_a_file(cli, tmp_path, kind):
    f = fifo(tmp_path / "t.parquet") if kind == "fifo" else link_loop(tmp_path / "t.parquet")
    r = cli("cost", EX / "scenario.yaml", "--from-timeline", f, fifos=(f,) if kind == "fifo" else ())
    one_error_line(r, "cost", "t.parquet", "named pipe" if kind == "fifo" else "link loop")


@pytest.mark.parametrize("which", ["scenario", "answers"])
def test_report_refuses_an_alias_bomb_before_starting_a_kernel(cli, tmp_path, which):
    f = tmp_path / f"{which}.yaml"
    f.write_text((SCENARIO if which == "scenario" else ANSWERS) + "\nnotes:\n" + billion_laughs(indent="  "), encoding="utf-8")
    argv = ["report", "--colocated", EX / "colocated_steps.csv", "--scenario", f if which == "scenario" else EX / "scenario.yaml",
            "--answers", f if which == "answers" else EX / "answers.yaml", "-o", tmp_path / "out", "--monte-carlo", "0"]
    r = cli(*argv)
    # the report reads its scenario and answers once, before any folder is made: the error names the file and line
    one_error_line(r, "report", f.name, "alias")
    assert re.search(re.escape(f.name) + r"(:|: line )\d+", r.err), r.err
    assert r.seconds < 5
    nothing_left(tmp_path, {f.name})


def test_a_folder_with_links_back_up_is_walked_once(cli, tmp_path):
    """Symbolic links to folders (here: to the folder itself and its parent) are not descended: no endless walk."""
    d = tmp_path / "runs"
    (d / "sub").mkdir(parents=True)
    good_steps_csv(d / "sub" / "a.csv")
    os.symlink("..", d / "sub" / "up")
    os.symlink(".", d / "sub" / "self")
    r = cli("ingest", d, "--json")
    assert r.rc == 0 and r.seconds < 20, r.err
    assert [run["rows"] for run in json.loads(r.out)["runs"]] == [60]
