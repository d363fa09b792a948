# The README's commands. Every target builds the local virtualenv first if needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: install test test-all lint bench book clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,parquet]'
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check nanpure tests benchmarks

# Fast suite. pytest exits 5 when it collected nothing, which fails this target too.
test: lint
	$(BIN)/python -m pytest -q

test-all: lint
	$(BIN)/python -m pytest -q -m ''

bench: $(STAMP)
	$(BIN)/python benchmarks/solver.py

book: $(STAMP)
	mkdir -p output
	$(BIN)/nanpure solve examples/sample.txt > output/sample-solutions.txt
	@echo "solved $$(wc -l < output/sample-solutions.txt) puzzles into output/sample-solutions.txt"

clean:
	rm -rf $(VENV) output .pytest_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
