# The two set-up commands of the README: `make demo` and `make test`.
# Each creates (or reuses) the virtual environment itself. `make demo` installs only what
# the table needs to run; `make test` adds the development tools (the `dev` extra), also
# into a venv that `make demo` made before.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck unit system-deps venv dev-venv clean

venv: $(RUN_STAMP)

dev-venv: $(DEV_STAMP)

$(RUN_STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	@touch $(RUN_STAMP)

$(DEV_STAMP): $(RUN_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(DEV_STAMP)

# apt packages the tests use for real: chromium (dashboard), mosquitto (café),
# poppler-utils (renders the printable marker PDF).
system-deps:
	@bash scripts/install-system-deps.sh

demo: $(RUN_STAMP)
	$(BIN)/companion demo

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(DEV_STAMP)
	$(BIN)/mypy companion

unit: $(DEV_STAMP) system-deps
	$(BIN)/python -m pytest

test: lint typecheck unit

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache
