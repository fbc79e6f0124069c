# Thin targets: all logic lives in the package. `make test` and `make report` set everything up
# themselves on a fresh machine. `make report` builds its own light environment (.venv-report: the report
# extra only, no test or browser tooling); `make test` builds .venv (every extra, the test tooling, the Jupyter
# kernel, headless Chromium). Each target stops at the first failing step and exits non-zero.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
# `make report`: the report extra only (papermill, nbconvert, ipykernel, Altair, vl-convert) and the core.
REPORT_VENV  ?= .venv-report
REPORT_BIN   := $(REPORT_VENV)/bin
REPORT_STAMP := $(REPORT_VENV)/.installed-stamp

.PHONY: help venv report-venv test lint typecheck pytest pytest-fast test-browser wheel-check docs docs-serve report lab bench browser azurite screenshot golden reference page-head clean

help:
	@echo "make report       render the bundled example report into reports/ (its own light venv: the report extra)"
	@echo "make screenshot   docs/img/report.png, the README's picture: the report's first screen in headless Chromium"
	@echo "make test         the whole check: lint, typecheck, test suite, wheel in a fresh venv, docs site (--strict)"
	@echo "make lint         ruff on the package, tests and benchmarks (rules in pyproject.toml [tool.ruff])"
	@echo "make typecheck    mypy on the package (settings in pyproject.toml [tool.mypy])"
	@echo "make pytest       the test suite only (the JupyterLab browser tests included)"
	@echo "make pytest-fast  the test suite without the tests marked slow (the edit-test loop; CI runs them all)"
	@echo "make test-browser only the JupyterLab-in-chromium tests"
	@echo "make wheel-check  build the wheel, install it in a fresh venv, run it from a temporary folder"
	@echo "make docs         build the documentation site into site/ (offline, --strict)"
	@echo "make lab          JupyterLab on costmodel/notebooks/ with the project kernel"
	@echo "make bench        run the benchmarks (see BENCHMARKS.md)"
	@echo "make reference    rewrite docs/cli.md and the report notebook's parameters cell after changing a flag or a parameter"
	@echo "make page-head    take the report page's head (its CSS) from the installed nbconvert again"
	@echo "make golden       rewrite tests/golden/ (every verb's JSON on the bundled example) after an intended change"

$(STAMP): pyproject.toml tools/constraints-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c tools/constraints-dev.txt -e '.[dev,all]'
	$(BIN)/python -m ipykernel install --sys-prefix --name costmodel --display-name "Python (costmodel)"
	touch $(STAMP)

venv: $(STAMP)

# The report's environment: what rendering needs and nothing else (measured size in docs/dependencies.md).
$(REPORT_STAMP): pyproject.toml tools/constraints-dev.txt
	$(PYTHON) -m venv $(REPORT_VENV)
	$(REPORT_BIN)/python -m pip install -q --upgrade pip
	$(REPORT_BIN)/python -m pip install -q -c tools/constraints-dev.txt -e '.[report]'
	touch $(REPORT_STAMP)

report-venv: $(REPORT_STAMP)

# Headless Chromium draws the rendered report in the offline-HTML test; installed when missing.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { echo "installing Debian's chromium for the offline report test"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
	    echo "warning: could not install chromium; the browser test will fail"; }

# Azurite (Microsoft's Azure Storage emulator, npm) for the az:// tests, installed into the venv
# ($(VENV)/node_modules/.bin/azurite-blob, where the tests look); Debian's nodejs/npm when missing.
AZURITE_VERSION ?= 3.37.0
AZURITE := $(VENV)/node_modules/.bin/azurite-blob

azurite: venv
	@test -x $(AZURITE) || { \
	  command -v npm >/dev/null 2>&1 || { echo "installing Debian's nodejs and npm for the az:// tests"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null) || \
	    echo "warning: could not install npm"; }; \
	  npm install --prefix $(VENV) --no-audit --no-fund --loglevel=error azurite@$(AZURITE_VERSION) || \
	  { echo "npm install failed once (seen: protobufjs postinstall race); retrying from an empty node_modules"; \
	    rm -rf $(VENV)/node_modules $(VENV)/package-lock.json; \
	    npm install --prefix $(VENV) --no-audit --no-fund --loglevel=error azurite@$(AZURITE_VERSION); } || \
	    echo "warning: could not install azurite; the az:// tests will fail under CI=true"; }

# The README's test command; .ci/run calls it. The two quick static checks run first.
test: lint typecheck pytest wheel-check docs

# ruff and mypy come pinned from the `dev` extra; their settings live in pyproject.toml.
lint: venv
	$(BIN)/ruff check costmodel tests benchmarks

typecheck: venv
	$(BIN)/mypy

# The suite in PYTEST_WORKERS processes (pytest-xdist; the number of CPUs, at most 4: each worker starts
# kernels, emulators and Chromium of its own), one test file per worker at a time (--dist loadfile: a file's
# module-scoped emulator, golden snapshot or JupyterLab is built once); PYTEST_WORKERS=0 runs it in one process.
PYTEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)
PYTEST_XDIST   := -n $(PYTEST_WORKERS) --dist loadfile

pytest: venv browser azurite
	$(BIN)/python -m pytest -q $(PYTEST_XDIST)

# The edit-test loop: every test but those marked `slow` (statistical calibrations, a signal at each stage of a
# real report, JupyterLab in Chromium); `make test` and CI run them all (docs/contributing.md, "Test suite").
pytest-fast: venv browser azurite
	$(BIN)/python -m pytest -q $(PYTEST_XDIST) -m "not slow"

wheel-check: venv
	bash tools/wheel_check.sh $(BIN)/python

docs: venv
	$(BIN)/python -m mkdocs build --strict --site-dir site

docs-serve: venv
	$(BIN)/python -m mkdocs serve

# JupyterLab on 127.0.0.1 driven in Debian's chromium by Playwright (no browser download, no network).
test-browser: venv browser
	$(BIN)/python -m pytest -q -m browser

report: $(REPORT_STAMP)
	$(REPORT_BIN)/costmodel report \
	  --colocated costmodel/data/examples/colocated_steps.csv \
	  --remote costmodel/data/examples/remote_steps.csv \
	  --scenario costmodel/data/examples/scenario.yaml \
	  --answers costmodel/data/examples/answers.yaml \
	  -o reports --force

# docs/img/report.png, the README's picture: the first screen (1,280 x 800) of the bundled report in headless Chromium.
screenshot: report browser
	bash tools/screenshot.sh reports/report.html docs/img/report.png 1280,800

lab: venv
	$(BIN)/jupyter lab costmodel/notebooks/

bench: venv
	$(BIN)/python benchmarks/run_all.py

# The byte-identity snapshot of tests/cli/test_golden_outputs.py; review `git diff tests/golden` after it.
golden: venv
	PYTHONPATH=tests $(BIN)/python -m support.golden --write

# The report page's head (nbconvert's lab CSS and the report's own) that costmodel/report/page_writer.py ships;
# tests/report/test_page_writer.py keeps it equal to the installed nbconvert's (when it is the version recorded).
page-head: venv
	PYTHONPATH=tests $(BIN)/python -m support.page_head --write

# docs/cli.md (from the verbs' parsers) and the report notebook's parameters cell (from report.params.ReportParams) are
# generated; tests/packaging/test_generated_reference.py and tests/report keep them true.
reference: venv
	PYTHONPATH=tests $(BIN)/python -m support.reference --write

clean:
	rm -rf $(VENV) $(REPORT_VENV) reports site .pytest_cache build dist *.egg-info
