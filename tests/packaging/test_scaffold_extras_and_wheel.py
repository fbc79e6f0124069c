"""Packaging: `costmodel example` / `costmodel notebook`, optional extras hidden, what the wheel must hold.

The wheel itself is built and installed in a fresh virtual environment by `make wheel-check`
(tools/wheel_check.sh); these tests check the same behaviour from the source tree, quickly.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import REPO

from costmodel.cli import main
from costmodel.foundation.resources import EXAMPLES_DIR, NOTEBOOKS_DIR

INPUTS = ["answers.yaml", "colocated_steps.csv", "remote_steps.csv", "scenario.yaml", "whatif.yaml"]


# ---------------------------------------------------------------- costmodel example

def test_example_writes_the_bundled_inputs_and_a_readme(tmp_path, capsys):
    dest = tmp_path / "ex"
    assert main(["example", str(dest), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    names = sorted(Path(p).name for p in out["files"])
    assert set(INPUTS) <= set(names) and "README.md" in names
    assert "generate_reference.py" not in names  # the generator is not an input
    for n in INPUTS:
        assert (dest / n).read_bytes() == (EXAMPLES_DIR / n).read_bytes()
        assert (dest / n).stat().st_mode & 0o044, f"{n} is not readable by others (mkstemp's 0600 leaked)"
    readme = (dest / "README.md").read_text(encoding="utf-8")
    for n in INPUTS:
        assert f"`{n}`" in readme
    assert "costmodel cost scenario.yaml" in readme
    assert "SYNTHETIC" in readme  # the provenance of the bundled logs travels with them


def test_example_copy_prices_the_same_as_the_bundled_scenario(cli, tmp_path, capsys, monkeypatch):
    assert main(["example", str(tmp_path)]) == 0
    capsys.readouterr()
    monkeypatch.chdir(tmp_path)
    mine = cli.json("cost", Path("scenario.yaml"), "--json")
    bundled = cli.json("cost", EXAMPLES_DIR / "scenario.yaml", "--json")
    assert mine["options"] == bundled["options"]
    assert mine["cheapest"] == bundled["cheapest"]
    assert mine["options"]["cross_region"]["total_usd"] > 0


def test_example_refuses_to_overwrite_without_force(tmp_path, capsys):
    (tmp_path / "scenario.yaml").write_text("mine: true\n", encoding="utf-8")
    assert main(["example", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already exist" in err and "scenario.yaml" in err and "--force" in err
    assert (tmp_path / "scenario.yaml").read_text(encoding="utf-8") == "mine: true\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scenario.yaml"], "nothing else may be written"
    assert main(["example", str(tmp_path), "--force"]) == 0
    assert (tmp_path / "scenario.yaml").read_bytes() == (EXAMPLES_DIR / "scenario.yaml").read_bytes()


def test_example_into_a_file_is_refused(tmp_path, capsys):
    f = tmp_path / "afile"
    f.write_text("x", encoding="utf-8")
    assert main(["example", str(f)]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert f.read_text(encoding="utf-8") == "x"


# ---------------------------------------------------------------- costmodel notebook

@pytest.mark.parametrize("name", ["report", "checklist", "whatif", "report.ipynb"])
def test_notebook_copies_the_packaged_notebook(tmp_path, capsys, name):
    assert main(["notebook", name, str(tmp_path)]) == 0
    stem = name.removesuffix(".ipynb")
    copied = tmp_path / f"{stem}.ipynb"
    assert copied.read_bytes() == (NOTEBOOKS_DIR / f"{stem}.ipynb").read_bytes()
    assert json.loads(copied.read_text(encoding="utf-8"))["nbformat"] == 4
    assert capsys.readouterr().out.strip() == str(copied)


def test_notebook_unknown_name_and_existing_copy(tmp_path, capsys):
    assert main(["notebook", "reprot", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "unknown notebook 'reprot'" in err and "report, checklist, whatif" in err
    assert not any(tmp_path.iterdir())
    assert main(["notebook", "report", str(tmp_path)]) == 0
    (tmp_path / "report.ipynb").write_text("{}", encoding="utf-8")
    assert main(["notebook", "report", str(tmp_path)]) == 2
    assert "already exist" in capsys.readouterr().err
    assert (tmp_path / "report.ipynb").read_text(encoding="utf-8") == "{}"
    assert main(["notebook", "report", str(tmp_path), "--force"]) == 0
    assert (tmp_path / "report.ipynb").read_bytes() == (NOTEBOOKS_DIR / "report.ipynb").read_bytes()


@pytest.mark.slow
def test_copied_report_notebook_runs_with_plain_papermill(tmp_path):
    """`papermill report.ipynb out.ipynb -p scenario my.yaml` from the copy's folder: the relative path
    resolves against that folder (here a 24-month horizon instead of the bundled 12)."""
    pytest.importorskip("papermill")
    assert main(["notebook", "report", str(tmp_path)]) == 0
    text = (EXAMPLES_DIR / "scenario.yaml").read_text(encoding="utf-8")
    assert "\nhorizon_months: 12\n" in text
    (tmp_path / "my.yaml").write_text(text.replace("\nhorizon_months: 12\n", "\nhorizon_months: 24\n"), encoding="utf-8")
    papermill = Path(sys.executable).with_name("papermill")
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [str(papermill), "report.ipynb", "out.ipynb", "-p", "scenario", "my.yaml", "-p", "monte_carlo_n", "0",
         "-p", "decision_path", "decision.json", "--log-level", "ERROR", "--no-progress-bar"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    decision = json.loads((tmp_path / "decision.json").read_text(encoding="utf-8"))
    assert decision["cost"]["horizon_months"] == 24
    scen = [f for f in decision["inputs"]["files"] if f["role"] == "scenario"]
    assert scen[0]["path"] == "my.yaml"  # relative to the folder decision.json is written to
    remote = [f for f in decision["inputs"]["files"] if f["role"] == "remote"]
    assert remote[0]["path"] == "costmodel/data/examples/remote_steps.csv"  # the bundled default, named in the package
    from costmodel.report.paths import local_path

    assert Path(local_path(remote[0]["path"], tmp_path)).read_bytes() == (EXAMPLES_DIR / "remote_steps.csv").read_bytes()
    assert decision["verdict"] in {"GO", "CONDITIONAL", "NO_GO"}


# ---------------------------------------------------------------- optional extras hidden

def _run_hidden(hidden: list[str], argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run the CLI in a fresh interpreter where each module of ``hidden`` cannot be imported."""
    code = (
        "import sys\n"
        f"for m in {hidden!r}:\n"
        "    sys.modules[m] = None\n"
        "from costmodel.cli import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


REPORT_ARGS = ["--colocated", str(EXAMPLES_DIR / "colocated_steps.csv"), "--remote", str(EXAMPLES_DIR / "remote_steps.csv"),
               "--scenario", str(EXAMPLES_DIR / "scenario.yaml"), "--answers", str(EXAMPLES_DIR / "answers.yaml")]


@pytest.mark.parametrize("module", ["papermill", "nbconvert", "mistune", "bs4", "altair", "vl_convert", "ipykernel"])
def test_report_without_the_report_extra_is_one_line_exit_2(tmp_path, module):
    proc = _run_hidden([module], ["report", *REPORT_ARGS, "-o", "rep"], tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"needs {module} (not installed)" in proc.stderr
    assert 'pip install "xregion-costmodel[report]"' in proc.stderr
    assert not (tmp_path / "rep").exists()


HEAVY = ["papermill", "nbformat", "nbconvert", "nbclient", "ipykernel", "IPython", "jupyter_client", "altair",
         "vl_convert", "ipywidgets", "jupyterlab", "numba", "fsspec", "s3fs", "dask", "distributed", "duckdb", "jinja2"]


def test_core_verbs_run_without_any_extra(tmp_path):
    """ingest, fit, compare, cost, decide (with its ADR) and example need only the core dependencies."""
    ex = tmp_path / "ex"
    assert _run_hidden(HEAVY, ["example", str(ex)], tmp_path).returncode == 0
    steps = [
        ["ingest", "ex/remote_steps.csv", "--json"],
        ["fit", "ex/remote_steps.csv", "--json"],
        ["compare", "--colocated", "ex/colocated_steps.csv", "--remote", "ex/remote_steps.csv", "--json"],
        ["cost", "ex/scenario.yaml", "--json"],
    ]
    outs = {}
    for argv in steps:
        proc = _run_hidden(HEAVY, argv, tmp_path)
        assert proc.returncode == 0, f"{argv[0]}: {proc.stderr[-1500:]}"
        outs[argv[0]] = proc.stdout
        (tmp_path / f"{argv[0]}.json").write_text(proc.stdout, encoding="utf-8")
    assert json.loads(outs["cost"])["options"]["cross_region"]["total_usd"] > 0
    assert json.loads(outs["compare"])["ratio"] == pytest.approx(1.0, abs=0.02)
    proc = _run_hidden(HEAVY, ["decide", "--answers", "ex/answers.yaml", "--compare", "compare.json",
                               "--cost", "cost.json", "--adr", "adr", "--date", "2026-01-02", "--json"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-1500:]
    assert json.loads(proc.stdout)["verdict"] in {"GO", "CONDITIONAL", "NO_GO"}
    adrs = list((tmp_path / "adr").glob("0001-*.md"))
    assert len(adrs) == 1 and "2026-01-02" in adrs[0].read_text(encoding="utf-8")


def test_simulate_without_numba_gives_the_same_prediction(tmp_path):
    """Without the sim extra the simulator runs the same algorithms in pure Python: identical output."""
    argv = ["simulate", str(EXAMPLES_DIR / "whatif.yaml"), "--json", "--seed", "3"]
    plain = _run_hidden(["numba"], argv, tmp_path)
    assert plain.returncode == 0, plain.stderr[-1500:]
    compiled = _run_hidden([], argv, tmp_path)
    assert compiled.returncode == 0, compiled.stderr[-1500:]
    assert json.loads(plain.stdout) == json.loads(compiled.stdout)


def test_require_names_the_extra_for_widgets():
    code = (
        "import sys\nsys.modules['ipywidgets'] = None\n"
        "from costmodel.foundation.errors import MissingExtraError\n"
        "from costmodel.interactive import wizard as widgets\n"
        "try:\n    widgets._require_widgets()\nexcept MissingExtraError as e:\n    print(e)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert 'the checklist widgets needs ipywidgets' in proc.stdout
    assert 'pip install "xregion-costmodel[lab]"' in proc.stdout


# ---------------------------------------------------------------- declared metadata

def test_core_dependencies_and_extras_are_as_documented():
    tomllib = pytest.importorskip("tomllib")
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    deps = {d.split(">")[0].split("=")[0].split("[")[0].strip().lower() for d in meta["project"]["dependencies"]}
    # ijson: prices import streams; pydantic: the contracts (docs/contracts.md)
    assert deps == {"numpy", "pandas", "pyarrow", "scipy", "pyyaml", "ijson", "pydantic"}
    extras = meta["project"]["optional-dependencies"]
    assert set(extras) == {"report", "lab", "sim", "cloud", "distributed", "fleet", "formats", "docs", "dev", "all"}
    assert any(d.startswith("papermill") for d in extras["report"])
    assert any(d.startswith("numba") for d in extras["sim"])
    data = meta["tool"]["setuptools"]["package-data"]["costmodel"]
    assert any(p.startswith("notebooks/") for p in data) and any(p.startswith("data/prices/") for p in data)
