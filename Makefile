# The README's commands. Every target builds the local virtualenv first if needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: install test test-all lint bench book clean fresh-kernels

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,parquet]'
	@# numba kernels compile on first use; do it once here rather than in every worker
	$(BIN)/nanpure compile
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check nanpure tests benchmarks

# numba caches each kernel keyed on its own source file only, so a kernel that calls a
# changed kernel from another module could load stale code. When any source is newer than
# the oldest cached kernel, drop them all (they are rebuilt on first use).
fresh-kernels:
	@oldest=$$(find nanpure -name '*.nbi' -printf '%T@ %p\n' 2>/dev/null | sort -n | head -1 | cut -d' ' -f2); \
	if [ -n "$$oldest" ] && [ -n "$$(find nanpure -name '*.py' -newer "$$oldest" -print -quit)" ]; then \
		find nanpure -name '*.nb[ic]' -delete; echo "sources changed: cached kernels dropped"; \
	fi

# Fast suite. pytest exits 5 when it collected nothing, which fails this target too.
test: lint fresh-kernels
	$(BIN)/python -m pytest -q

test-all: lint fresh-kernels
	$(BIN)/python -m pytest -q -m ''

bench: $(STAMP)
	$(BIN)/python benchmarks/solver.py
	$(BIN)/python benchmarks/rater.py
	$(BIN)/python benchmarks/generator.py
	$(BIN)/python benchmarks/book.py
	$(BIN)/python benchmarks/pipeline.py

# The main job from the packaged defaults: a small run into output/nanpure.db, then the
# default book (nanpure/data/default-book.toml) as output/book.pdf with its manifest.
book: $(STAMP) fresh-kernels
	$(BIN)/nanpure run
	$(BIN)/nanpure book

clean:
	rm -rf $(VENV) output .pytest_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
