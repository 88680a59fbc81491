# Every target creates or reuses .venv and installs what it needs from pyproject.toml.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP_TEST := $(VENV)/.stamp-test
STAMP_BENCH := $(VENV)/.stamp-bench

.PHONY: test demo bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(STAMP_TEST): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	touch $@

$(STAMP_BENCH): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	-$(PY) -m pip install -q tensorflow-cpu autograd matplotlib 'torch==2.13.0' || $(PY) -m pip install -q tensorflow-cpu autograd matplotlib torch
	touch $@

test: $(STAMP_TEST)
	$(PY) -m pytest tests -n 2 -p no:cacheprovider

demo: $(STAMP_TEST)
	$(PY) examples/demo.py

bench: $(STAMP_BENCH)
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) build src/*.egg-info
