# Every target creates or reuses .venv and installs what it needs from pyproject.toml.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP_TEST := $(VENV)/.stamp-test
STAMP_BENCH := $(VENV)/.stamp-bench
STAMP_NB := $(VENV)/.stamp-notebooks

.PHONY: test test-full demo bench lab clean

$(PY):
	@echo "Creating $(VENV) (first run only)..."
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# The first run installs jax and the test tools (about a minute): say so rather than sit silent.
$(STAMP_TEST): pyproject.toml | $(PY)
	@echo "Installing tapejax and its test dependencies into $(VENV) (pip install -e '.[test]'; first run only, about a minute)..."
	$(PY) -m pip install -q -e '.[test]'
	touch $@

$(STAMP_BENCH): pyproject.toml | $(PY)
	@echo "Installing tapejax, its test dependencies and the frameworks compared (tensorflow-cpu, torch, autograd) into $(VENV) (first run only, a few minutes)..."
	$(PY) -m pip install -q -e '.[test]'
	-$(PY) -m pip install -q tensorflow-cpu autograd matplotlib 'torch==2.13.0' || $(PY) -m pip install -q tensorflow-cpu autograd matplotlib torch
	touch $@

# Layers (pyproject's [tool.importlinter]) first: seconds, and a broken layer is worth knowing before 10 minutes of tests.
# --assert=plain: pytest's rewriting of the ~4,800 asserts cost each worker ~11 s at collection on a fresh clone;
# a failure still shows its line and message, and pytest run on one file (without this flag) explains the values.
# (Rewritten asserts also keep their temporaries alive: a test must not rely on that; plain Python does not.)
# make test (CI's command, kept near 12 minutes on CI's 2 cores) runs a fifth of each parametrized test's cases, at
# least 2 (tests/case_sampling.py; CASE_SEED=<any> picks others); make test-full runs every case (~1.6x as long).
CASE_SEED ?= 0
PYTEST := $(PY) -m pytest tests -n 2 --dist worksteal -p no:cacheprovider --assert=plain
test: $(STAMP_TEST)
	$(VENV)/bin/lint-imports
	$(PYTEST) --case-fraction 0.2 --case-seed $(CASE_SEED)

test-full: $(STAMP_TEST)
	$(VENV)/bin/lint-imports
	$(PYTEST)

demo: $(STAMP_TEST)
	$(PY) examples/demo.py

bench: $(STAMP_BENCH)
	$(PY) benchmarks/run.py
	$(PY) benchmarks/sgd_step.py
	$(PY) benchmarks/memory.py

$(STAMP_NB): pyproject.toml | $(PY)
	@echo "Installing tapejax with JupyterLab, ipykernel and matplotlib into $(VENV) (pip install -e '.[notebooks]'; first run only)..."
	$(PY) -m pip install -q -e '.[notebooks]'
	touch $@

# JupyterLab on notebooks/, with this venv's Python as the kernel (ipykernel in the same venv).
lab: $(STAMP_NB)
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks

clean:
	rm -rf $(VENV) build src/*.egg-info .xla-cache
