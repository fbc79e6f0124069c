# Thin targets: all logic lives in the package. `make test` and `make report` set everything up
# themselves on a fresh machine (virtual environment, editable install, Jupyter kernel).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: help venv test test-browser report lab bench browser clean

help:
	@echo "make report   render the bundled example report into reports/"
	@echo "make test     run the test suite (sets up .venv, kernel and headless Chromium)"
	@echo "make test-browser  only the JupyterLab-in-chromium tests (make test runs them too)"
	@echo "make lab      JupyterLab on costmodel/notebooks/ with the project kernel"
	@echo "make bench    run the benchmarks (see BENCHMARKS.md)"

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	$(BIN)/python -m ipykernel install --sys-prefix --name costmodel --display-name "Python (costmodel)"
	touch $(STAMP)

venv: $(STAMP)

# Headless Chromium draws the rendered report in the offline-HTML test; installed when missing.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { echo "installing Debian's chromium for the offline report test"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
	    echo "warning: could not install chromium; the browser test will fail"; }

# `make test` runs every test, the JupyterLab browser tests (marker `browser`) included.
test: venv browser
	$(BIN)/python -m pytest -q

# JupyterLab on 127.0.0.1 driven in Debian's chromium by Playwright (no browser download, no network).
test-browser: venv browser
	$(BIN)/python -m pytest -q -m browser

report: venv
	$(BIN)/costmodel report \
	  --colocated costmodel/data/examples/colocated_steps.csv \
	  --remote costmodel/data/examples/remote_steps.csv \
	  --scenario costmodel/data/examples/scenario.yaml \
	  --answers costmodel/data/examples/answers.yaml \
	  -o reports --force

lab: venv
	$(BIN)/jupyter lab costmodel/notebooks/

bench: venv
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) reports .pytest_cache
