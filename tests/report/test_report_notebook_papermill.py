"""The report notebook for real: stored stripped, executed by papermill (defaults and a bad
parameter), rendered by `costmodel report` with hostile input strings, opened by headless Chromium
with no network, and its decision.json checked against what the CLI verbs print."""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest
from support.paths import REPO
from support.results import as_recorded

from costmodel import report

NOTEBOOKS = sorted((REPO / "costmodel" / "notebooks").glob("*.ipynb"))
REPORT_NB = REPO / "costmodel" / "notebooks" / "report.ipynb"
CHARTS_IN_REPORT = 5  # throughput (each run once), cost terms, break-even, tornado, Monte Carlo
PWN = "document.body.setAttribute('data-pwned','1')"


# ------------------------------------------------------------------ stored notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_are_stored_stripped(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert "widgets" not in nb.metadata, "widget state must not be stored"
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name} cell {i} has outputs"
            assert cell.execution_count is None, f"{path.name} cell {i} has an execution count"
        assert "papermill" not in cell.metadata and "execution" not in cell.metadata


def test_report_notebook_parameters_cell_mirrors_the_package():
    nb = nbformat.read(REPORT_NB, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    params = code[0]
    assert params.metadata.get("tags") == ["parameters"]
    defaults = {}
    for node in ast.parse(params.source).body:
        assert isinstance(node, ast.AnnAssign), "parameters are literal annotated assignments"
        defaults[node.target.id] = ast.literal_eval(node.value)
    assert defaults == {k: v.default for k, v in report.PARAMETERS.items()}
    from costmodel.report.param_views import parameters_cell

    # the cell is generated from the one model (`make reference` rewrites it): text, order and help included
    assert params.source == parameters_cell(), "run `make reference` to regenerate the parameters cell"
    assert "validate_parameters(globals())" in code[1].source
    # every name the notebook binds is a parameter or a known notebook name (so validation can
    # tell a stray injected parameter from the notebook's own variables)
    bound, local = set(), set()
    for cell in code[1:]:
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound.add(node.id)
            elif isinstance(node, ast.alias):
                bound.add(node.asname or node.name)
            elif isinstance(node, ast.comprehension):  # comprehension variables do not leak
                local |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    assert bound - local <= report.NOTEBOOK_NAMES
    # papermill sees every parameter with its help text
    import papermill as pm

    seen = pm.inspect_notebook(str(REPORT_NB))
    assert set(seen) == set(report.PARAMETERS)
    assert all(seen[k]["help"] for k in seen)


# ------------------------------------------------------------------ papermill, no arguments
def _svg_outputs(nb) -> int:
    return sum(1 for c in nb.cells if c.cell_type == "code" for o in c.outputs
               if "image/svg+xml" in o.get("data", {}))


def test_papermill_runs_the_report_with_defaults_from_another_cwd(tmp_path):
    import papermill as pm

    out = tmp_path / "out.ipynb"
    nb = pm.execute_notebook(str(REPORT_NB), str(out), kernel_name="python3", progress_bar=False, cwd=str(tmp_path))
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    assert _svg_outputs(nb) == CHARTS_IN_REPORT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.ipynb"]  # writes nothing by default
    text = json.dumps([o.get("data", {}).get("text/html", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs])
    assert "remote_steps" in text and "Take: " in text and "Checklist verdict: " in text


def test_papermill_unknown_parameter_stops_the_run(tmp_path):
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    marker = tmp_path / "pwned"
    evil = f'x"; __import__("pathlib").Path({str(marker)!r}).touch(); y = "\\'  # a value that tries to be code
    with pytest.raises(PapermillExecutionError) as exc:
        pm.execute_notebook(str(REPORT_NB), str(tmp_path / "out.ipynb"), parameters={"margni": 0.1, "title": evil},
                            kernel_name="python3", progress_bar=False)
    assert exc.value.ename == "ReportError"
    assert "unknown report parameter 'margni' (did you mean 'margin'?)" in exc.value.evalue
    assert not marker.exists()  # the injected title stayed a string
    injected = [c for c in nbformat.read(tmp_path / "out.ipynb", as_version=4).cells
                if "injected-parameters" in c.metadata.get("tags", [])]
    assert str(marker) in injected[0].source  # it was injected, as data


# ------------------------------------------------------------------ costmodel report on real outputs, hostile strings
@pytest.fixture(scope="module")
def hostile(request, tmp_path_factory, examples_dir):
    """Inputs whose strings would run code if they were not escaped: the co-located run's name (its
    folder and file name make the run id), the answers file's title and a checklist note. The runs are
    real MLPerf Storage / DLIO per-step outputs (an HPE rank co-located, three Volumez ranks remote)
    where the real fixtures are visible, else the bundled example."""
    d = tmp_path_factory.mktemp("hostile")
    try:
        real = request.getfixturevalue("real_dir")
    except pytest.skip.Exception:
        real = None
    run_dir = d / "hub<img src=x onerror=alert(1)>"
    if real is not None:
        shutil.copytree(real / "mlperf_storage/v1.0/HPE_unet3d_h100/run-2", run_dir)  # configs/ give the batch size
        colo = run_dir / "4_output.json"
        remote = d / "10.0.98.137.log"
        shutil.copy(real / "mlperf_storage/v1.0/Volumez_unet3d_h100_run3/10.0.98.137.log", remote)
    else:
        run_dir.mkdir()
        colo = run_dir / "colocated_steps.csv"
        shutil.copy(examples_dir / "colocated_steps.csv", colo)
        remote = d / "remote_steps.csv"
        shutil.copy(examples_dir / "remote_steps.csv", remote)
    answers = (examples_dir / "answers.yaml").read_text()
    answers = re.sub(r'(?m)^  title: .*$', f'  title: "ADR <img src=x onerror=\\"{PWN}\\">"', answers, count=1)
    answers = answers.replace('note: "Not part of the technical validation',
                              f'note: "<script>{PWN}</script> Not part of the technical validation')
    assert "<script>" in answers and "<img src=x" in answers
    (d / "answers.yaml").write_text(answers)
    shutil.copy(examples_dir / "scenario.yaml", d / "scenario.yaml")
    return {"colocated": colo, "remote": remote, "scenario": d / "scenario.yaml", "answers": d / "answers.yaml",
            "real": real is not None}


@pytest.fixture(scope="module")
def rendered(cli, hostile, tmp_path_factory):
    out = tmp_path_factory.mktemp("rendered") / "report"
    proc = cli.subprocess("report", "--colocated", str(hostile["colocated"]), "--remote", str(hostile["remote"]),
                          "--scenario", str(hostile["scenario"]), "--answers", str(hostile["answers"]),
                          "-o", str(out), "--date", "2026-12-02", "--json")
    assert proc.rc == 0, proc.err
    return out, proc


def test_report_cli_writes_four_files_with_a_progress_line_per_stage(rendered, hostile):
    out, proc = rendered
    assert sorted(p.name for p in out.iterdir()) == sorted(report.OUTPUT_FILES)
    assert [p.name for p in out.parent.iterdir()] == ["report"]  # no temp folder left beside it
    umask = os.umask(0)
    os.umask(umask)
    assert {p.name: p.stat().st_mode & 0o777 for p in out.iterdir()} == dict.fromkeys(report.OUTPUT_FILES, 438 & ~umask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~umask
    res = json.loads(proc.out)
    assert res["verdict"] in ("GO", "CONDITIONAL", "NO_GO") and res["out_dir"] == str(out.resolve())
    for stage in ("ingesting inputs", "fitting warm-up", "comparing", "pricing", "walking the checklist",
                  "writing decision.json", "exporting HTML", "wrote "):
        assert f"report: {stage}" in proc.err
    executed = nbformat.read(out / "report.ipynb", as_version=4)
    # the real remote log holds 3 ranks: one job, drawn as a rank x step heatmap too (issue 16)
    assert _svg_outputs(executed) == CHARTS_IN_REPORT + (1 if hostile["real"] else 0)


def test_report_html_is_self_contained_and_hides_code(rendered):
    out, _ = rendered
    page = (out / "report.html").read_text()
    assert report.external_references(page) == []
    assert "<script" not in page  # no JavaScript at all: the charts are inline SVG
    assert page.count("<svg") >= CHARTS_IN_REPORT
    assert "validate_parameters" not in page  # inputs hidden
    assert "Co-located vs remote" in page and "<h2 id=\"Checklist\">" in page.replace("\n", "")


def test_input_strings_are_escaped_in_html_and_adr(rendered):
    out, _ = rendered
    page = (out / "report.html").read_text()
    assert f"&lt;script&gt;{PWN}" in page or f"&lt;script&gt;{PWN.replace(chr(39), '&#39;')}" in page
    assert "<script>document" not in page
    assert "<img src=x" not in page and "&lt;img src=x onerror" in page
    adr = (out / "adr.md").read_text()
    assert "<script>" not in adr and "<img src=x" not in adr
    assert "&lt;script&gt;" in adr


def test_decision_json_matches_what_the_cli_verbs_print(cli, rendered, hostile, tmp_path):
    out, _ = rendered
    dec = json.loads((out / "decision.json").read_text())
    colo, remote = str(hostile["colocated"]), str(hostile["remote"])
    inputs = [hostile[k] for k in ("colocated", "remote", "scenario", "answers")]

    def verb(*args: str):  # what the verb prints, its input paths as decision.json writes them (relative to out)
        return as_recorded(cli.json(*args), out, *inputs)

    fits = verb("fit", "--role", "colocated", colo, "--json") + verb("fit", "--role", "remote", remote, "--json")
    assert dec["fit"] == fits
    cmp = verb("compare", "--colocated", colo, "--remote", remote, "--json")
    assert dec["compare"] == cmp
    (tmp_path / "compare.json").write_text(json.dumps(cmp))
    (tmp_path / "fit.json").write_text(json.dumps(fits))
    cost = verb("cost", str(hostile["scenario"]), "--from-compare", str(tmp_path / "compare.json"),
                "--monte-carlo", "2000", "--seed", "0", "--json")
    for key in cost:
        if key in ("inputs", "scenario_figures", "assumptions"):  # where each figure came from (names differ)
            assert _values(dec["cost"][key]) == _values(cost[key]), key
        else:
            assert dec["cost"][key] == cost[key], key
    (tmp_path / "cost.json").write_text(json.dumps(dec["cost"]))
    decided = verb("decide", "--answers", str(hostile["answers"]), "--compare", str(tmp_path / "compare.json"),
                   "--cost", str(tmp_path / "cost.json"), "--fit", str(tmp_path / "fit.json"), "--json")
    assert dec["checklist"] == decided
    assert dec["verdict"] == decided["verdict"]
    from costmodel.foundation.util import sha256_file

    assert str(tmp_path.parent) not in json.dumps(dec)  # no machine path: relative to the report's folder
    shas = {f["role"] + ":" + Path(f["path"]).name: f["sha256"] for f in dec["inputs"]["files"]}
    assert shas["answers:answers.yaml"] == sha256_file(hostile["answers"])
    assert shas["remote:" + hostile["remote"].name] == sha256_file(hostile["remote"])


def _values(obj):
    """Every number and bool in a nested structure, in order (strings such as source paths dropped)."""
    if isinstance(obj, dict):
        return [_values(v) for k, v in sorted(obj.items()) if k != "source"]
    if isinstance(obj, list):
        return [_values(v) for v in obj]
    return obj if isinstance(obj, (int, float, bool)) or obj is None else "str"


@pytest.mark.chromium
def test_chromium_offline_draws_every_chart_and_runs_no_injected_code(rendered, artifacts_dir, tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.fail("headless Chromium is missing: run `make browser` (make test installs it)")
    out, _ = rendered
    url = (out / "report.html").resolve().as_uri()
    flags = [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
        "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
        "--window-size=1280,2400", "--virtual-time-budget=5000",
    ]
    env = {**os.environ, "HOME": str(tmp_path)}
    dom = subprocess.run([chromium, *flags, f"--user-data-dir={tmp_path / 'u1'}", "--dump-dom", url],
                         capture_output=True, text=True, timeout=180, env=env).stdout
    svgs = re.findall(r"<svg\b.*?</svg>", dom, flags=re.DOTALL)
    assert len(svgs) >= CHARTS_IN_REPORT, "charts not drawn"
    drawn = [s for s in svgs if re.search(r'class="mark-(line|rect|rule|text|symbol)', s) and "<path" in s]
    assert len(drawn) >= CHARTS_IN_REPORT
    assert 'data-pwned="1"' not in dom  # the injected script and onerror handler never ran
    assert "<script" not in dom
    shot = artifacts_dir / "report.png"
    shot.unlink(missing_ok=True)
    subprocess.run([chromium, *flags, f"--user-data-dir={tmp_path / 'u2'}", f"--screenshot={shot}", url],
                   capture_output=True, text=True, timeout=180, env=env)
    assert shot.is_file() and shot.stat().st_size > 20_000


# ------------------------------------------------------------------ bad input through the CLI
def test_report_cli_refuses_a_non_empty_folder_and_leaves_it_alone(cli, tmp_path, examples_dir):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    proc = cli.subprocess("report", "--colocated", str(examples_dir / "colocated_steps.csv"), "--remote",
                          str(examples_dir / "remote_steps.csv"), "--scenario", str(examples_dir / "scenario.yaml"),
                          "--answers", str(examples_dir / "answers.yaml"), "-o", str(out))
    assert proc.rc == 2
    assert proc.err.count("\n") == 1 and "--force" in proc.err and "Traceback" not in proc.err
    assert [p.name for p in out.iterdir()] == ["keep.txt"] and proc.out == ""


def test_report_cli_failing_stage_leaves_nothing_behind(cli, tmp_path, examples_dir):
    bad = tmp_path / "garbage.csv"
    bad.write_text("this is not a benchmark output\n\x00\x01\n")
    out = tmp_path / "out"
    proc = cli.subprocess("report", "--colocated", str(bad), "--remote", str(examples_dir / "remote_steps.csv"),
                          "--scenario", str(examples_dir / "scenario.yaml"), "--answers", str(examples_dir / "answers.yaml"),
                          "-o", str(out))
    assert proc.rc == 2
    errors = [line for line in proc.err.splitlines() if "error" in line]
    assert len(errors) == 1 and "garbage.csv" in errors[0] and "Traceback" not in proc.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["garbage.csv"]  # no DIR, no temp folder


def test_report_on_real_outputs_covers_every_run(rendered, hostile, real_dir):
    assert hostile["real"]
    out, _ = rendered
    dec = json.loads((out / "decision.json").read_text())
    # the host log's 3 ranks are one synchronous job, not 3 repetitions (issue 16)
    assert [f["role"] for f in dec["fit"]] == ["colocated", "remote"]
    assert [f["format"] for f in dec["inputs"]["files"][:2]] == ["dlio_output", "dlio_log"]
    assert len(dec["compare"]["remote"]) == 1 and dec["compare"]["ratio"] is not None
    (job,) = dec["jobs"]
    assert job["role"] == "remote" and job["ranks"] == 3 and job["rank_ids"] == [9, 146, 283]
    assert dec["fit"][1]["jobs"] == [job] and dec["compare"]["jobs"] == [job]
    page = (out / "report.html").read_text()
    assert "10.0.98.137.log" in page and "jobs and stragglers" in page


def test_the_page_answers_first_and_says_each_fact_once(rendered):
    """Issue 26: the first screen (before the inputs section) names the option to take, the three totals, the
    margin, how sure, and the open conditions; the verdict and the checklist are each on the page once."""
    out, _proc = rendered
    html = (out / "report.html").read_text(encoding="utf-8")
    inputs_at = html.index('<h2 id="Inputs-and-provenance"')
    head = html[:inputs_at]
    for mark in ("recommendation", "total-cross_region", "total-replicate", "total-wait", "margin", "certainty"):
        assert f'data-cm="{mark}"' in head, mark
    assert "Take: " in head and "How sure." in head
    assert html.count("Checklist verdict:") == 1 and html.count("Verdict:") == 0
    assert html.count("<b>checklist</b>") == 1  # the checklist table, once
    # the executed notebook keeps the pipeline order and holds the same first screen
    nb = json.loads((out / "report.ipynb").read_text(encoding="utf-8"))
    ids = [c["id"] for c in nb["cells"]]
    assert ids.index("answer") < ids.index("inputs-head") and ids.index("write") < ids.index("answer")
