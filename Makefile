# robust_ref: two commands on a fresh machine (see README.md)
#   make book   re-execute every notebook with papermill, then render the docs site into _docs/: Quarto's when a
#               `quarto` binary is on PATH, else the offline builder's (tools/book says which one ran)
#   make test   everything CI runs: pytest (every notebook once under nbdev_test, estimator checks, docs build, ...)
SHELL := /bin/bash
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
FULL   ?=
# One BLAS thread per process: the book runs two notebooks / test workers on two cores, and
# multi-threaded BLAS on tiny vectors is slower (measured in benchmarks/bench_adaboost.py).
export OMP_NUM_THREADS ?= 1
export OPENBLAS_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1

.PHONY: book test nbtest venv bench clean

$(STAMP): settings.ini setup.py
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "== installing robust_ref and its dev tools into $(VENV) (first time ~1-2 min) =="
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	@echo "== compiling the numba kernels into the cache, so that first fits are fast (first time ~1 min) =="
	$(VENV)/bin/robust-ref warm-up
	@touch $(STAMP)

venv: $(STAMP)

book: $(STAMP)
	$(PY) tools/book all $(if $(FULL),--full)

# Every notebook is executed once per run: by nbdev_test inside pytest (tests/test_notebooks.py, one item per notebook,
# tools/nbtest.py), which keeps the executed copies that the docs build and the browser test render. `make nbtest` is
# nbdev_test alone.
test: $(STAMP)
	@echo "== pytest: every notebook under nbdev_test, estimator checks, properties, bad input, export sync, docs in Chromium =="
	$(PY) -m pytest tests -ra -n 2 --dist loadgroup --durations=15

nbtest: $(STAMP)
	$(VENV)/bin/nbdev_test --n_workers 2 --path nbs

bench: $(STAMP)
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf _docs _proc _run .pytest_cache .hypothesis
