#!/usr/bin/env bash
# `make wheel-check`: the package works wherever it is installed.
# Builds the sdist and, from it, the wheel; installs the wheel in a FRESH virtual environment and, from a
# temporary folder outside the repository, runs what a new user runs:
#   core install (no extra): costmodel example / cost / fit / decide work; costmodel report exits 2 naming
#   xregion-costmodel[report];  + [report]: costmodel report renders the example offline, and the notebook copied
#   by `costmodel notebook` runs with plain papermill.
# Then the core install on every other supported Python found on this machine (3.10, 3.12, 3.13).
# Usage: tools/wheel_check.sh [BUILD_PYTHON]   (a Python with `build` installed; default .venv/bin/python)
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_PY="${1:-$REPO/.venv/bin/python}"
BASE_PY="${WHEEL_CHECK_PYTHON:-$("$BUILD_PY" -c 'import sys; print(getattr(sys, "_base_executable", sys.executable))')}"
OTHER_PYTHONS="${WHEEL_CHECK_OTHER_PYTHONS-3.10 3.12 3.13}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/costmodel-wheel-check.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export PIP_DISABLE_PIP_VERSION_CHECK=1
t0=$SECONDS
say() { printf 'wheel-check [%3ss]: %s\n' "$((SECONDS - t0))" "$*"; }
fail() { printf 'wheel-check: FAILED: %s\n' "$*" >&2; exit 1; }
# pip's output goes to a log, shown only when it fails.
pip_install() { local py="$1"; shift; "$py" -m pip install -q "$@" >>"$WORK/pip.log" 2>&1 || { tail -30 "$WORK/pip.log" >&2; return 1; }; }

say "building sdist and wheel from $REPO"
"$BUILD_PY" -m build --outdir "$WORK/dist" "$REPO" >"$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log" >&2; fail "python -m build"; }
WHL="$(ls "$WORK"/dist/xregion_costmodel-*.whl)"
"$BUILD_PY" - "$WHL" <<'PY' || fail "the wheel lacks files the code reads"
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
need = ["costmodel/notebooks/report.ipynb", "costmodel/notebooks/checklist.ipynb", "costmodel/notebooks/whatif.ipynb",
        "costmodel/notebooks/placement.ipynb", "costmodel/data/examples/placement.yaml",
        "costmodel/data/links/links.csv", "costmodel/data/page/head.html",
        "costmodel/data/examples/scenario.yaml", "costmodel/data/examples/answers.yaml",
        "costmodel/data/examples/whatif.yaml", "costmodel/data/examples/colocated_steps.csv",
        "costmodel/data/examples/remote_steps.csv", "costmodel/py.typed"]
missing = [n for n in need if n not in names]
prices = [n for n in names if n.startswith("costmodel/data/prices/") and n.endswith(".csv")]
if missing or not prices:
    sys.exit(f"missing from the wheel: {missing or 'every price table'}")
stray = [n for n in names if "__pycache__" in n or n.endswith(".pyc") or n.startswith(("tests/", "docs/"))]
if stray:
    sys.exit(f"stray files in the wheel: {stray[:5]}")
print(f"wheel holds {len(names)} files, {len(prices)} price tables, 4 notebooks, the link table, the example")
PY

V="$WORK/venv"
RUN="$WORK/run"   # the user's folder: outside the repository, nothing of the source tree on the path
mkdir -p "$RUN"
cd "$RUN"
unset PYTHONPATH

say "core install ($("$BASE_PY" --version)): pip install xregion_costmodel-*.whl (no extra)"
"$BASE_PY" -m venv "$V"
pip_install "$V/bin/python" "$WHL" || fail "pip install of the wheel"
"$V/bin/python" - <<'PY' || fail "a core install pulled in an optional dependency"
import importlib.util
extra = [m for m in ("papermill", "nbconvert", "altair", "vl_convert", "ipykernel", "jupyterlab", "ipywidgets", "numba")
         if importlib.util.find_spec(m)]
assert not extra, f"installed without asking: {extra}"
import costmodel
assert "site-packages" in costmodel.__file__, costmodel.__file__
PY
"$V/bin/costmodel" example ex >/dev/null || fail "costmodel example ex"
[ -s ex/scenario.yaml ] && [ -s ex/remote_steps.csv ] && [ -s ex/README.md ] || fail "costmodel example wrote no inputs"
set +e; "$V/bin/costmodel" example ex 2>err.txt; rc=$?; set -e
[ "$rc" = 2 ] && grep -q "already exist" err.txt || fail "costmodel example over existing files: rc=$rc $(cat err.txt)"
"$V/bin/costmodel" cost ex/scenario.yaml --json >cost.json || fail "costmodel cost (core)"
"$V/bin/costmodel" compare --colocated ex/colocated_steps.csv --remote ex/remote_steps.csv --json >compare.json || fail "costmodel compare (core)"
"$V/bin/costmodel" fit ex/remote_steps.csv --json >fit.json || fail "costmodel fit (core)"
"$V/bin/costmodel" decide --answers ex/answers.yaml --compare compare.json --cost cost.json --fit fit.json --adr adr --json >decide.json \
  || fail "costmodel decide (core)"
"$V/bin/costmodel" place ex/placement.yaml --monte-carlo 200 --json >place.json || fail "costmodel place (core)"
"$V/bin/python" - <<'PY' || fail "core outputs"
import json, pathlib
cost = json.load(open("cost.json"))
assert cost["options"]["cross_region"]["total_usd"] > 0 and cost["cheapest"] in cost["options"], cost["cheapest"]
assert 0.98 < json.load(open("compare.json"))["ratio"] < 1.02
assert json.load(open("decide.json"))["verdict"] in ("GO", "CONDITIONAL", "NO_GO")
assert len(list(pathlib.Path("adr").glob("0001-*.md"))) == 1
assert json.load(open("place.json"))["ranking"], "costmodel place ranked nothing"
print(f"core: cost cheapest={cost['cheapest']}, cross_region {cost['options']['cross_region']['total_usd']:.2f} USD")
PY
set +e
"$V/bin/costmodel" report --colocated ex/colocated_steps.csv --remote ex/remote_steps.csv \
  --scenario ex/scenario.yaml --answers ex/answers.yaml -o rep-core 2>err.txt; rc=$?
set -e
[ "$rc" = 2 ] || fail "costmodel report without the report extra: exit $rc, expected 2: $(cat err.txt)"
grep -q 'pip install "xregion-costmodel\[report\]"' err.txt || fail "the message does not name xregion-costmodel[report]: $(cat err.txt)"
[ "$(wc -l <err.txt)" = 1 ] && ! grep -q Traceback err.txt || fail "not one line: $(cat err.txt)"
[ ! -e rep-core ] || fail "costmodel report without the extra left rep-core behind"
say "core ok; report without the extra: $(cat err.txt)"

say "pip install xregion_costmodel-*.whl[report] into the same venv"
pip_install "$V/bin/python" "$WHL[report]" || fail "pip install of the wheel with [report]"
"$V/bin/costmodel" report --colocated ex/colocated_steps.csv --remote ex/remote_steps.csv \
  --scenario ex/scenario.yaml --answers ex/answers.yaml -o rep --monte-carlo 200 --json >report.json 2>report.err \
  || { cat report.err >&2; fail "costmodel report on the example"; }
for f in report.html report.ipynb decision.json; do [ -s "rep/$f" ] || fail "costmodel report wrote no rep/$f"; done
ls rep/*.md >/dev/null 2>&1 || fail "costmodel report wrote no ADR"
if grep -Eiq '<(script|link|img)[^>]+(src|href)="(https?:)?//' rep/report.html; then fail "report.html loads from the network"; fi
"$V/bin/costmodel" notebook report nb >/dev/null || fail "costmodel notebook report nb"
sed 's/^horizon_months: 12$/horizon_months: 24/' ex/scenario.yaml >nb/my.yaml
grep -q '^horizon_months: 24$' nb/my.yaml || fail "the example scenario has no 'horizon_months: 12' line to edit"
( cd nb && "$V/bin/papermill" report.ipynb out.ipynb --no-progress-bar --log-level ERROR ) >pm1.log 2>&1 \
  || { tail -20 pm1.log >&2; fail "papermill report.ipynb out.ipynb (defaults: the bundled example)"; }
( cd nb && "$V/bin/papermill" report.ipynb out-my.ipynb -p scenario my.yaml -p monte_carlo_n 0 \
    -p decision_path decision.json --no-progress-bar --log-level ERROR ) >pm2.log 2>&1 \
  || { tail -20 pm2.log >&2; fail "papermill report.ipynb out.ipynb -p scenario my.yaml"; }
"$V/bin/python" - <<'PY' || fail "report outputs"
import json, os
rep = json.load(open("report.json"))
d = json.load(open("rep/decision.json"))
assert d["verdict"] == rep["verdict"] and d["verdict"] in ("GO", "CONDITIONAL", "NO_GO")
assert d["cost"]["horizon_months"] == 12
mine = json.load(open("nb/decision.json"))
assert mine["cost"]["horizon_months"] == 24, mine["cost"]["horizon_months"]
scen = [f["path"] for f in mine["inputs"]["files"] if f["role"] == "scenario"]
assert scen == ["my.yaml"], scen  # relative to the folder of decision.json (nb/)
html = open("rep/report.html", encoding="utf-8").read()
assert "<svg" in html and len(html) > 50_000
print(f"report: verdict {d['verdict']}, report.html {len(html) // 1024} KiB; papermill -p scenario my.yaml: 24 months")
PY
say "report extra ok"

for ver in $OTHER_PYTHONS; do
  py=""
  for cand in "$(command -v "python$ver" 2>/dev/null || true)" /root/.pyenv/versions/"$ver".*/bin/python3 /usr/bin/python"$ver"; do
    if [ -n "$cand" ] && [ -x "$cand" ] && "$cand" -c "import sys, venv; assert sys.version_info[:2] == tuple(map(int, '$ver'.split('.')))" 2>/dev/null; then
      py="$cand"; break
    fi
  done
  if [ -z "$py" ]; then say "Python $ver: not on this machine, skipped"; continue; fi
  say "core install on Python $ver ($py)"
  "$py" -m venv "$WORK/venv$ver"
  pip_install "$WORK/venv$ver/bin/python" "$WHL" || fail "pip install of the wheel on Python $ver"
  rm -rf "ex$ver"
  "$WORK/venv$ver/bin/costmodel" example "ex$ver" >/dev/null || fail "costmodel example on Python $ver"
  "$WORK/venv$ver/bin/costmodel" cost "ex$ver/scenario.yaml" --json >"cost$ver.json" || fail "costmodel cost on Python $ver"
  "$WORK/venv$ver/bin/costmodel" fit "ex$ver/remote_steps.csv" --json >/dev/null || fail "costmodel fit on Python $ver"
  # Same numbers to 1e-9 (numpy and scipy wheels differ per Python version: the last bits of a sum may differ).
  "$V/bin/python" -c "
import json, math
a, b = json.load(open('cost.json')), json.load(open('cost$ver.json'))
def diff(x, y, path):
    if isinstance(x, dict) and isinstance(y, dict):
        if x.keys() != y.keys():
            return f'{path}: keys {sorted(set(x) ^ set(y))}'
        return next((d for k in x if (d := diff(x[k], y[k], f'{path}.{k}'))), None)
    if isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y):
            return f'{path}: lengths {len(x)} vs {len(y)}'
        return next((d for i, (u, v) in enumerate(zip(x, y)) if (d := diff(u, v, f'{path}[{i}]'))), None)
    if isinstance(x, float) and isinstance(y, (int, float)):
        return None if math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9) else f'{path}: {x!r} vs {y!r}'
    return None if x == y else f'{path}: {x!r} vs {y!r}'
d = diff(a['options'], b['options'], 'options')
assert d is None, 'cost differs between Python versions: ' + d
" || fail "costmodel cost on Python $ver differs from $("$BASE_PY" --version)"
done
say "all checks passed"
