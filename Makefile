# tinytf: `make demo` and `make test` work on a fresh machine with only python3 and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint unit lit bench interop clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/tinytf demo

test: $(STAMP) lint unit lit

lint: $(STAMP)
	$(BIN)/ruff check tinytf tests bench

unit: $(STAMP)
	$(BIN)/python -m pytest -n 2 tests/unit tests/conformance

lit: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/lit -sv tests/filecheck

# The benchmarks run in their own environment: tinytf beside its peers (TensorFlow, JAX, PyTorch CPU).
# torch==2.13.0 is pinned: that CPU build lies on this machine's disk; an unpinned torch is a
# multi-GB CUDA download. BENCH_ARGS=--quick for the quick modes (each benchmark under a minute).
BENCH_VENV  := .venv-bench
BENCH_STAMP := $(BENCH_VENV)/.installed
BENCH_PEERS := tensorflow-cpu torch==2.13.0

$(BENCH_STAMP): pyproject.toml
	test -x $(BENCH_VENV)/bin/python || $(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(BENCH_VENV)/bin/python -m pip install --quiet -e . $(BENCH_PEERS)
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BENCH_VENV)/bin/python bench/run_all.py $(BENCH_ARGS)

# Two-way checks with real TensorFlow (in the bench environment): TF reads tinytf's checkpoints, tinytf reads TF's.
interop: $(BENCH_STAMP)
	TF_CPP_MIN_LOG_LEVEL=2 $(BENCH_VENV)/bin/python tests/conformance/interop_checkpoints.py
	TF_CPP_MIN_LOG_LEVEL=2 $(BENCH_VENV)/bin/python tests/conformance/interop_saved_model.py

clean:
	rm -rf $(VENV) tests/filecheck/Output .pytest_cache
