# Each user-facing target creates or refreshes the local virtual environment it needs, so that
# on a fresh machine with Python 3.11 and pip every target is a single command.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# torch first, pinned: this machine kind serves the 2.13.0 CPU build from local disk, while an
# unpinned torch (pulled in by the bertscore extra) would download a multi-GB CUDA build.
TORCH_PIN ?= torch==2.13.0
DEMO_OUT ?= demo_out
PYTEST_ARGS ?=

.PHONY: demo test bench lint clean

$(VENV)/.venv-created:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	touch $@

# Demo needs the core package and plots only.
$(VENV)/.installed-demo: pyproject.toml $(VENV)/.venv-created
	$(PIP) install --quiet -e '.[plots]'
	touch $@

# Tests need everything, BERTScore and the LightGBM backend included, so that CI runs their tests.
$(VENV)/.installed-test: pyproject.toml $(VENV)/.venv-created
	$(PIP) install --quiet '$(TORCH_PIN)'
	$(PIP) install --quiet -e '.[dev,plots,bertscore,trees]'
	touch $@

demo: $(VENV)/.installed-demo
	$(VENV)/bin/courtbench demo --out $(DEMO_OUT)

# pytest exits 5 when it collected no test; a vanished suite is a failure, said out loud.
test: $(VENV)/.installed-test
	@rc=0; HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 $(PY) -m pytest $(PYTEST_ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests" >&2; fi; \
	exit $$rc

bench: $(VENV)/.installed-test
	$(PY) -m benchmarks

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check courtbench ecthr_npd slds tests benchmarks

clean:
	rm -rf $(VENV) $(DEMO_OUT) .pytest_cache .hypothesis .ruff_cache
