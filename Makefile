# The README's commands. Every target builds the local virtualenv first if needed: nanpure
# and what it needs to run for `make book`, the test (with ruff), parquet and dask extras
# as well for the others (downloading those is most of a fresh install's time, and a book
# needs none).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DEV    := $(VENV)/.dev-stamp
# pip byte-compiles every module it installs, the packages' own test suites too, one at a
# time; compileall does it afterwards without the tests, on every core (half the CPU).
PIP         := $(BIN)/python -m pip install -q --no-compile
BYTECOMPILE := $(BIN)/python -m compileall -q -j 0 -x '/tests?/' $(VENV)/lib >/dev/null
# The pip wheel Python bundles for ensurepip, when it has one: `venv` installs pip with it
# and byte-compiles every module of pip and setuptools (5 s of CPU); pip run from the wheel
# installs only pip, and without that. Empty (plain `venv`) where Python has none bundled.
PIP_WHEEL = $(shell $(PYTHON) -c 'import ensurepip, glob, os; print(*glob.glob(os.path.join(os.path.dirname(ensurepip.__file__), "_bundled", "pip-*.whl"))[:1])' 2>/dev/null)
# The dependencies the kernels compile with, as pyproject.toml gives them.
KERNEL_DEPS := $(BIN)/python -c 'import tomllib; print(*(d for d in tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"] if d.startswith(("numba", "numpy"))))'

.PHONY: help install test test-all fuzz soak lint bench book clean distclean
.DEFAULT_GOAL := help

# Plain `make` prints this list; it sets nothing up.
help:
	@echo 'make TARGET; each but help, clean and distclean first sets up .venv when needed:'
	@echo '  book       a small run into output/nanpure.db, then the default book output/book.pdf'
	@echo '  test       lint, then the fast tests'
	@echo '  test-all   lint, then the fast and the slow tests (not the fuzz tests)'
	@echo '  fuzz       100,000 generated inputs for every parser a user feeds'
	@echo '  soak       100 runs, exports and books stopped at random moments (about 10 min)'
	@echo '  lint       ruff on src, tests, benchmarks and scripts'
	@echo '  bench      the benchmarks in benchmarks/ but paired.py and preflight.py (about a quarter of an hour)'
	@echo '  install    only set up .venv, with the test (and ruff), parquet and dask extras'
	@echo '  clean      remove .venv, the caches and output/, but keep the stores output/*.db'
	@echo '  distclean  clean, and remove the stores too (output/nanpure.db and any other)'
	@echo '  help       this list (also plain make)'

# The venv's own pip (23.2 or later with Python 3.11) installs pyproject projects editable.
# numba kernels compile on first use; do it once here rather than in every worker, in
# parallel processes. What Sudoku needs (the store's canonical forms included): nonograms
# compile on first use (or with a plain `nanpure compile`). numba and numpy are installed
# first, and the kernels compile (from the source tree) while pip installs the rest.
$(STAMP): pyproject.toml
	wheel='$(PIP_WHEEL)'; if [ -n "$$wheel" ]; then \
	  $(PYTHON) -m venv --without-pip $(VENV) && \
	  $(BIN)/python "$$wheel/pip" install -q --no-compile "$$wheel" $$($(KERNEL_DEPS)); \
	else $(PYTHON) -m venv $(VENV) && $(PIP) $$($(KERNEL_DEPS)); fi
	$(BYTECOMPILE)
	($(PIP) -e . && $(BYTECOMPILE)) & pip=$$!; \
	PYTHONPATH="$(CURDIR)/src" $(BIN)/python -m nanpure.cli compile sudoku || { wait $$pip; exit 1; }; \
	wait $$pip
	touch $(STAMP)

# dask too, so that the tests run nanpure on real Dask clusters (local, and a scheduler
# with workers started as its users start them) instead of skipping them
$(DEV): $(STAMP)
	$(PIP) -e '.[test,parquet,dask]'
	$(BYTECOMPILE)
	touch $(DEV)

install: $(DEV)

lint: $(DEV)
	$(BIN)/ruff check src tests benchmarks scripts

# Fast suite. pytest exits 5 when it collected nothing, which fails this target too.
test: lint
	$(BIN)/python -m pytest -q

test-all: lint
	$(BIN)/python -m pytest -q -m 'not fuzz'

# Every parser a user feeds gets 100,000 generated inputs (NANPURE_FUZZ_EXAMPLES to change).
fuzz: $(DEV)
	$(BIN)/python -m pytest -q -s -m fuzz tests/test_fuzz.py

# Runs, exports and books stopped at random moments (signals, killed workers), each
# checked as the README's Reliability section says (scripts/soak.py). SOAK_ROUNDS=N for
# more; SOAK_SEED=S replays round S (with SOAK_ROUNDS=1). Not part of test: it takes long.
SOAK_ROUNDS ?= 100
soak: $(DEV)
	$(BIN)/python scripts/soak.py --rounds $(SOAK_ROUNDS) $(if $(SOAK_SEED),--seed $(SOAK_SEED))

bench: $(DEV)
	$(BIN)/python benchmarks/solver.py
	$(BIN)/python benchmarks/rater.py
	$(BIN)/python benchmarks/se_rating.py
	$(BIN)/python benchmarks/generator.py
	$(BIN)/python benchmarks/book.py
	$(BIN)/python benchmarks/pipeline.py
	$(BIN)/python benchmarks/canon.py
	$(BIN)/python benchmarks/bigfile.py
	$(BIN)/python benchmarks/nonogram.py
	$(BIN)/python benchmarks/compile.py
	$(BIN)/python benchmarks/scale.py

# The main job from the packaged defaults: a small run into output/nanpure.db, then the
# default book (src/nanpure/data/default-book.toml) as output/book.pdf with its manifest.
# `nanpure compile sudoku` first: after a change to a kernel it compiles in parallel what
# the run's workers would each compile on their own (a group whose modules are unchanged
# since it was compiled is skipped, so with nothing to do it takes a moment).
book: $(STAMP)
	$(BIN)/nanpure compile sudoku
	$(BIN)/nanpure run
	$(BIN)/nanpure book

# Compiled kernels live in ~/.cache/nanpure (src/nanpure/kernel_cache.py), one directory per
# module and version of it and what it imports; older ones are pruned when a new one is made.
# The stores in output/ (SQLite files, with the journal and lock files beside them) hold
# what runs made, which can take hours to make again: clean keeps them, distclean does not.
clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	if [ -d output ]; then find output -mindepth 1 -maxdepth 1 ! -name '*.db' \
	  ! -name '*.db-wal' ! -name '*.db-shm' ! -name '*.db.lock' -exec rm -rf {} +; fi
	@if ls output/*.db >/dev/null 2>&1; then \
	  echo "kept the stores" output/*.db "(make distclean removes them)"; fi

distclean:
	rm -rf output
	$(MAKE) --no-print-directory clean
