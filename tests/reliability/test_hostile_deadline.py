"""Bounded work and one line on hostile input (issue 27, cases 6, 7 and 8): each case runs the CLI in a child process
under a time limit (30 s) and a memory limit (2 GiB address space, ``resource.setrlimit``) and must end with exit 2
and one line on stderr (no traceback, no internal error). Inputs are generated in ``tmp_path`` and kept modest where
a limit can be shown with less: a 3 MiB line shows the 1 MiB line limit as well as a 2 GiB line would."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from support.paths import EXAMPLES, REPO

DEADLINE_S = 30.0
MEMORY_BYTES = 2 << 30


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


def _write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def _dlio_brackets(t: Path) -> list[str]:
    # 300 lines of 8,000 '[': the former step pattern backtracked over each line (~0.3 s a line here)
    return ["ingest", "--format", "dlio_log", str(_write(t / "dlio.log", ("[" * 8000 + "\n") * 300))]


def _long_line(t: Path) -> list[str]:
    return ["ingest", str(_write(t / "long.csv", "step,samples_per_s\n1,100\n2," + "9" * (3 << 20) + "\n"))]


def _wide(t: Path) -> list[str]:
    return ["ingest", str(_write(t / "wide.csv", ",".join(f"c{i}" for i in range(1_000_000)) + "\n" + "1," * 999_999
                                 + "1\n"))]


def _big_cell(t: Path) -> list[str]:
    rows = "".join(f"{i},{100 + i},x\n" for i in range(50))
    return ["ingest", str(_write(t / "cell.csv", "step,samples_per_s,note\n" + rows + '51,151,"' + "a" * (3 << 20)
                                 + '"\n'))]


def _deep_jsonl(t: Path) -> list[str]:
    return ["ingest", "--format", "jsonl", str(_write(t / "deep.jsonl", '{"step": 1, "samples_per_s": 2, "x": '
                                                      + "[" * 200_000 + "]" * 200_000 + "}\n"))]


def _deep_json(t: Path) -> list[str]:
    return ["ingest", str(_write(t / "deep.json", "[" * 200_000 + "]" * 200_000))]


def _nul_tail(t: Path) -> list[str]:
    head = b"step,samples_per_s\n" + b"".join(b"%d,%d\n" % (i, 100 + i) for i in range(100))
    return ["ingest", str(_write(t / "nul.csv", head + b"\0" * (16 << 20)))]


def _deep_gcp_prices(t: Path) -> list[str]:
    deep = '{"skus": [{"skuId": "A", "pricingInfo": ' + "[" * 100_000 + "]" * 100_000 + "}]}"
    return ["prices", "import", str(_write(t / "gcp-skus.json", deep)), "-o", str(t / "out")]


def _scenario(t: Path, edit: Callable[[str], str]) -> list[str]:
    text = (EXAMPLES / "scenario.yaml").read_text()
    return ["cost", str(_write(t / "s.yaml", edit(text))), "--json"]


def _instance_count_inf(t: Path) -> list[str]:
    return _scenario(t, lambda s: s.replace("instance_count: 2 ", "instance_count: .inf "))


def _near_max_float_cost(t: Path) -> list[str]:
    # was exit 0 with null totals
    return _scenario(t, lambda s: s.replace("horizon_months: 12", "horizon_months: 1.7e308"))


def _near_max_float_cost_runs(t: Path) -> list[str]:
    # was exit 1 (an internal error after numpy overflow warnings)
    return _scenario(t, lambda s: s.replace("runs_per_month: 1 ", "runs_per_month: 1.7e308 "))


def _near_max_float_csv(t: Path) -> Path:
    rows = "".join(f"{i},{1.7e308 if i % 2 else 1.6e308!r}\n" for i in range(400))
    return _write(t / "huge.csv", "step,samples_per_s\n" + rows)


def _near_max_float_fit(t: Path) -> list[str]:
    return ["fit", str(_near_max_float_csv(t)), "--json"]


def _near_max_float_compare(t: Path) -> list[str]:
    return ["compare", "--colocated", str(EXAMPLES / "colocated_steps.csv"), "--remote", str(_near_max_float_csv(t)),
            "--json"]


def _az_without_credentials(t: Path) -> list[str]:
    return ["fit", "az://container/prefix/"]


def _notes_not_text(t: Path) -> list[str]:
    text = (EXAMPLES / "answers.yaml").read_text()
    text = text.replace('    note: "The validation did not test a link or storage outage; run one before adopting."',
                        "    note: 42")
    return ["decide", "--answers", str(_write(t / "a.yaml", text)), "--json"]


CASES: dict[str, tuple[Callable[[Path], list[str]], str]] = {
    "dlio_8000_brackets": (_dlio_brackets, "no 'Rank R step S"),
    "line_3MiB": (_long_line, "longer than 1,048,576 bytes"),
    "columns_1e6": (_wide, "COSTMODEL_MAX"),
    "cell_3MiB": (_big_cell, "longer than 1,048,576 bytes"),
    "jsonl_200k_deep": (_deep_jsonl, "deep.jsonl:1"),
    "json_200k_deep": (_deep_json, "deep.json"),
    "nul_tail": (_nul_tail, "binary data"),
    "gcp_prices_100k_deep": (_deep_gcp_prices, "gcp-skus.json"),
    "instance_count_inf": (_instance_count_inf, "instance_count"),
    "cost_near_1e308": (_near_max_float_cost, "horizon_months: got 1.7e+308: beyond 1e+18"),
    "cost_runs_near_1e308": (_near_max_float_cost_runs, "runs_per_month: got 1.7e+308"),
    "fit_near_1e308": (_near_max_float_fit, "run 'huge'"),
    "compare_near_1e308": (_near_max_float_compare, "run 'huge'"),
    "az_without_credentials": (_az_without_credentials, "az://container/prefix/"),
    "notes_field_42": (_notes_not_text, "note"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_case_ends_in_time_with_exit_2_and_one_line(tmp_path, name):
    build, needle = CASES[name]
    args = build(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AZURE_", "AWS_", "GOOGLE_"))}
    env.update(PYTHONPATH=os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]), HOME=str(tmp_path),
               COSTMODEL_STORAGE_TIMEOUT_S="5", PYTHONWARNINGS="default")
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "costmodel", *args], capture_output=True, text=True,
                              timeout=DEADLINE_S, preexec_fn=_limits, cwd=tmp_path, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name}: still running after {DEADLINE_S:g} s")
    took = time.perf_counter() - t0
    lines = [x for x in proc.stderr.strip().splitlines() if not x.startswith("reading ")]
    assert proc.returncode == 2, (name, proc.returncode, proc.stderr[-2000:])
    assert len(lines) == 1 and "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    assert needle in lines[0], lines[0]
    assert took < DEADLINE_S
    if "--json" in args:
        assert proc.stdout == ""  # nothing half-printed
    assert not (tmp_path / "out").exists()
    json.dumps(name)  # the case names are the ids docs/reliability.md lists
