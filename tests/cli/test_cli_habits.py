"""The habits of a command-line tool (issue 26): `decide --fail-on` for CI gates (exit 3, documented), `-` for
standard input where a verb reads a JSON result."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from support.paths import REPO


@pytest.fixture(scope="module")
def results(tmp_path_factory, examples_dir):
    from support.cli import Cli

    cli = Cli()
    d = tmp_path_factory.mktemp("habits")
    ex = examples_dir
    cmp = cli.json("compare", "--colocated", str(ex / "colocated_steps.csv"), "--remote", str(ex / "remote_steps.csv"),
                   "--json")
    (d / "compare.json").write_text(json.dumps(cmp))
    cost = cli.json("cost", str(ex / "scenario.yaml"), "--from-compare", str(d / "compare.json"), "--json")
    (d / "cost.json").write_text(json.dumps(cost))
    return d, cli


def _decide(d, examples_dir, *extra: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "costmodel", "decide", "--answers", str(examples_dir / "answers.yaml"),
                           *extra], cwd=d, input=stdin, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})


def test_fail_on_gates_the_exit_status(results, examples_dir):
    d, _cli = results
    base = ["--compare", "compare.json", "--cost", "cost.json", "--json"]
    plain = _decide(d, examples_dir, *base)
    assert plain.returncode == 0, plain.stderr  # no gate: 0 whatever the verdict
    verdict = json.loads(plain.stdout)["verdict"]
    for gate, failing in (("no_go", {"NO_GO"}), ("conditional", {"NO_GO", "CONDITIONAL"})):
        proc = _decide(d, examples_dir, *base, "--fail-on", gate)
        assert proc.returncode == (3 if verdict in failing else 0), (gate, verdict, proc.stderr)
        assert json.loads(proc.stdout)["verdict"] == verdict  # the verdict is still printed in full


def test_fail_on_passes_a_go(tmp_path, examples_dir):
    yes = "answers:\n" + "".join(f"  {i}: {{answer: yes, note: checked}}\n" for i in _item_ids())
    (tmp_path / "answers.yaml").write_text(yes, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "costmodel", "decide", "--answers", "answers.yaml", "--fail-on",
                           "conditional"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("verdict: GO")


def _item_ids() -> list[str]:
    from costmodel.checklist.items import ITEMS

    return [it.id for it in ITEMS]


def test_fail_on_no_go_fails_a_blocked_decision(results, examples_dir, tmp_path):
    d, _cli = results
    blocked = tmp_path / "answers.yaml"
    blocked.write_text("answers:\n  governance_allows: {answer: no, note: refused by data governance}\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "costmodel", "decide", "--answers", str(blocked), "--compare",
                           str(d / "compare.json"), "--fail-on", "no_go"], capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert "verdict: NO_GO" in proc.stdout
    assert proc.stderr.strip() == "costmodel decide: verdict NO_GO fails --fail-on no_go (exit 3)"


def test_a_result_can_come_from_standard_input(results, examples_dir):
    d, _cli = results
    piped = _decide(d, examples_dir, "--compare", "-", "--cost", "cost.json", "--json",
                    stdin=(d / "compare.json").read_text())
    named = _decide(d, examples_dir, "--compare", "compare.json", "--cost", "cost.json", "--json")
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout) == json.loads(named.stdout)


def test_standard_input_once_and_not_empty(results, examples_dir):
    d, _cli = results
    two = _decide(d, examples_dir, "--compare", "-", "--cost", "-", stdin="{}")
    assert two.returncode == 2
    assert two.stderr.strip() == ("costmodel decide: error: only one input can come from standard input ('-'); "
                                  "got --compare, --cost")
    empty = _decide(d, examples_dir, "--compare", "-", stdin="")
    assert empty.returncode == 2 and "standard input is empty" in empty.stderr


def test_the_gate_exit_status_is_documented():
    import costmodel.cli
    from costmodel.commands import decide

    assert "3 a ``decide`` verdict that fails its ``--fail-on`` gate" in costmodel.cli.__doc__
    assert decide.GATE_EXIT == 3 and "--fail-on" in decide.DESCRIPTION
    text = (REPO / "docs" / "checklist.md").read_text(encoding="utf-8")
    assert "--fail-on" in text and "exit 3" in text


class _Terminal:
    """A stderr that says it is a terminal, keeping what is written."""

    def __init__(self) -> None:
        import io

        self.buf = io.StringIO()

    def write(self, s: str) -> int:
        return self.buf.write(s)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def test_progress_is_a_bar_on_a_terminal_lines_when_asked_and_nothing_elsewhere(monkeypatch):
    import io

    from costmodel.jobs import progress

    monkeypatch.setenv("COSTMODEL_PROGRESS", "1")
    term = _Terminal()
    p = progress.Progress("job hub", 100, stream=term, every_s=0.0)  # type: ignore[arg-type]
    for i in range(1, 101):
        p.update(i, 1_000_000)
    p.finish()
    text = term.buf.getvalue()
    assert "\r" in text and "%|" in text and "/100 [" in text  # a tqdm bar, redrawn in place
    assert text.rstrip().splitlines()[-1].endswith("costmodel: job hub: 100 files, 0.10 GB, 0 s")
    logged = io.StringIO()  # not a terminal (a CI log) asking for it: a line every few seconds, no bar
    p = progress.Progress("job hub", 3, stream=logged, every_s=0.0)
    for i in range(1, 4):
        p.update(i, 10)
    p.finish()
    assert "\r" not in logged.getvalue() and logged.getvalue().count("costmodel: job hub: ") == 4
    monkeypatch.delenv("COSTMODEL_PROGRESS")  # not a terminal, not asked for: nothing
    piped = io.StringIO()
    p = progress.Progress("job hub", 3, stream=piped, every_s=0.0)
    for i in range(1, 4):
        p.update(i, 10)
    p.finish()
    progress.say("job hub: DuckDB query over 3 files", stream=piped)
    assert piped.getvalue() == ""
    term = _Terminal()  # a terminal, not asked for: shown
    progress.say("job hub: DuckDB query over 3 files", stream=term)  # type: ignore[arg-type]
    assert term.buf.getvalue() == "costmodel: job hub: DuckDB query over 3 files\n"
    monkeypatch.setenv("COSTMODEL_PROGRESS", "0")  # --quiet
    silent = _Terminal()
    p = progress.Progress("job hub", 3, stream=silent, every_s=0.0)  # type: ignore[arg-type]
    p.update(3, 10)
    p.finish()
    assert silent.buf.getvalue() == ""
    progress.say("job hub: DuckDB query over 3 files", stream=silent)  # type: ignore[arg-type]
    assert silent.buf.getvalue() == ""


def test_progress_stays_off_a_piped_stderr(tmp_path):
    """A real process with stderr to a pipe: no progress line unless COSTMODEL_PROGRESS=1 asks for it."""
    import os
    import subprocess
    import sys

    code = ("from costmodel.jobs import progress; p = progress.Progress('job hub', 2, every_s=0.0); "
            "p.update(1, 10); p.update(2, 10); p.finish(); progress.say('job hub: DuckDB query over 2 files')")
    env = {k: v for k, v in os.environ.items() if k != "COSTMODEL_PROGRESS"}
    piped = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    asked = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                           env={**env, "COSTMODEL_PROGRESS": "1"})
    assert piped.returncode == 0 == asked.returncode, (piped.stderr, asked.stderr)
    assert piped.stderr == ""
    assert asked.stderr.count("costmodel: job hub: ") == 4, asked.stderr  # 2 updates, the last line, the query


def test_quiet_silences_progress_and_restores_the_environment(cli, examples_dir, monkeypatch, tmp_path):
    import os

    monkeypatch.delenv("COSTMODEL_PROGRESS", raising=False)
    seen = {}
    from costmodel.commands import fit

    real = fit.run

    def spy(args):
        seen["env"] = os.environ.get("COSTMODEL_PROGRESS")
        return real(args)

    monkeypatch.setattr(fit, "run", spy)
    from costmodel.cli import build_parser

    assert build_parser().parse_args(["fit", "-q", "a.csv"]).quiet
    r = cli("fit", "--quiet", str(examples_dir / "colocated_steps.csv"))
    assert r.rc == 0 and seen["env"] == "0"
    assert "COSTMODEL_PROGRESS" not in os.environ  # as it was before the run


def test_many_runs_are_summarised_not_listed(cli, tmp_path):
    import numpy as np

    rows = "\n".join(f"{i},{i * 0.5},{100 + np.sin(i)}" for i in range(50))
    for k in range(30):
        (tmp_path / f"rank{k:03d}.csv").write_text("step,t_s,samples_per_s\n" + rows + "\n", encoding="utf-8")
    r = cli("ingest", *(str(p) for p in sorted(tmp_path.glob("*.csv"))))
    assert r.rc == 0, r.err
    lines = r.out.strip().splitlines()
    assert lines[0] == "30 runs, 1,500 rows (tabular/csv 30)"
    assert len(lines) == 7 and lines[-1] == "... and 25 more runs (--json lists every one)"
    full = cli.json("ingest", *(str(p) for p in sorted(tmp_path.glob("*.csv"))), "--json")
    assert len(full["runs"]) == 30  # nothing dropped: the JSON has every run


@pytest.mark.parametrize("verb", ["ingest", "fit"])
def test_a_run_log_can_come_from_standard_input(verb, examples_dir, tmp_path):
    log = (examples_dir / "remote_steps.csv").read_text(encoding="utf-8")

    def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "costmodel", verb, *args, "--json"], cwd=tmp_path, input=stdin,
                              capture_output=True, text=True, timeout=120,
                              env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})

    piped = run("-", stdin=log)
    named = run(str(examples_dir / "remote_steps.csv"))
    assert piped.returncode == 0, piped.stderr
    a, b = json.loads(piped.stdout), json.loads(named.stdout)
    if verb == "ingest":
        assert a["runs"][0]["rows"] == b["runs"][0]["rows"] == 2000 and a["runs"][0]["source"] == "-"
    else:
        assert a[0]["run_id"] == "stdin" and a[0]["warmup_end_step"] == b[0]["warmup_end_step"]
    twice = run("-", "-", stdin=log)
    assert twice.returncode == 2 and "standard input ('-') can be read once" in twice.stderr


@pytest.mark.parametrize(("argv", "said"), [
    (["cots"], "did you mean 'cost'?"),
    (["cost", "scenario.yaml", "--monte-carol", "5"], "did you mean '--monte-carlo'?"),
    (["decide", "--fail-on", "nogo"], "did you mean 'no_go'?"),
    (["prices", "imprt"], "did you mean 'import'?"),
])
def test_a_mistyped_verb_flag_or_choice_gets_a_did_you_mean(argv, said, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "costmodel", *argv], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], proc.stderr  # one line, no traceback
    assert "--help)" in lines[0]


def test_a_flag_nothing_like_any_known_gets_no_guess(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "costmodel", "cost", "s.yaml", "--zzzzqqq"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2
    assert "unrecognized arguments: --zzzzqqq" in proc.stderr and "did you mean" not in proc.stderr


def test_every_verb_takes_quiet():
    from costmodel import cli

    cli.build_parser()
    assert set(cli.verb_parsers) == set(cli.VERBS)
    for verb, parser in cli.verb_parsers.items():
        assert "--quiet" in parser.format_help(), verb


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_completion_script_completes_verbs_and_each_verbs_flags_in_bash(shell, tmp_path):
    script = subprocess.run([sys.executable, "-m", "costmodel", "completion", shell], capture_output=True, text=True,
                            timeout=120, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=True).stdout
    if shell == "zsh":  # zsh runs the bash function through bashcompinit; bash reads it without that line
        assert script.startswith("autoload -U +X bashcompinit && bashcompinit\n")
        script = script.split("\n", 1)[1]
    (tmp_path / "c.sh").write_text(script)

    def complete(*words: str) -> list[str]:
        arr = " ".join(f"'{w}'" for w in ("costmodel", *words))
        probe = f'source c.sh; COMP_WORDS=({arr}); COMP_CWORD={len(words)}; _costmodel; printf "%s\\n" "${{COMPREPLY[@]}}"'
        out = subprocess.run(["bash", "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
        return out.split()

    assert complete("co") == ["compare", "cost", "completion"]
    assert complete("cost", "--mo") == ["--monte-carlo"]
    assert complete("place", "ex.yaml", "--q") == ["--quiet"]
    assert "--from-compare" not in complete("fit", "--")  # each verb its own flags
    assert complete("notebook", "-") == ["--debug", "--force", "--help", "--json", "--quiet", "-h", "-q"]
    (tmp_path / "scenario.yaml").write_text("x")
    assert complete("cost", "scen") == ["scenario.yaml"]  # elsewhere: file names
