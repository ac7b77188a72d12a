# graduatoria: the two commands an analyst or a developer needs.
#   make run   - create the environment if missing, then run the demo pipeline
#   make test  - create the environment if missing, then run the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# numba, for the benchmarks' compiled yardstick only (never a dependency of the product)
BENCH_STAMP := $(VENV)/.bench-installed
WAREHOUSE ?= data/warehouse/graduatoria.duckdb
DEMO_DIR  ?= data/demo

export DO_NOT_TRACK := 1
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export PREFECT_HOME ?= $(CURDIR)/.prefect

.PHONY: run test lint lock clean env bench bench-scale bench-rubele fuzz dashboard

env: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/graduatoria demo --out $(DEMO_DIR) --warehouse $(WAREHOUSE)

test: $(STAMP)
	$(BIN)/python -m pytest -q

# The dashboard on the warehouse (read-only), at http://localhost:8501/ (docs/DASHBOARD.md).
dashboard: $(STAMP)
	$(BIN)/graduatoria dashboard --warehouse $(WAREHOUSE)

$(BENCH_STAMP): $(STAMP) requirements-bench.lock
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements-bench.lock
	@touch $(BENCH_STAMP)

# National-scale recalculation benchmark (several minutes; not part of the tests).
bench: $(BENCH_STAMP)
	$(BIN)/python -m bench.recalc_benchmark

# The recalculation at 1x, 4x and 8x the national federation and over half its years, with a
# FIDE projection (about an hour, and 10 GB of disk for the histories).
bench-scale: $(BENCH_STAMP)
	$(BIN)/python -m bench.scale

# 30 years of a draughts federation through the Elo-Rubele wave engine and the plain loop.
bench-rubele: $(STAMP)
	$(BIN)/python -m bench.rubele_benchmark

# The input readers fed 10,000 mutated files (a few minutes); crashes saved in bench/out/fuzz/.
fuzz: $(STAMP)
	$(BIN)/python -m bench.fuzz

# Style, and the architecture: the import-linter contracts of pyproject.toml (layers, no cycles).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

# Regenerate the lock after changing dependencies in pyproject.toml.
lock:
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip compile pyproject.toml --extra dev --python-version 3.11 --generate-hashes -o requirements.lock

# the lasting Prefect server lives in .prefect: stopped first, not left running on a deleted home
clean:
	-[ -x $(BIN)/graduatoria ] && $(BIN)/graduatoria server stop
	rm -rf $(VENV) .prefect .pytest_cache
