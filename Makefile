# tinytf: `make demo` and `make test` work on a fresh machine with only python3 and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint unit lit bench clean

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

bench: $(STAMP)
	$(BIN)/python bench/parse_print.py

clean:
	rm -rf $(VENV) tests/filecheck/Output .pytest_cache
