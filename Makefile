# The two set-up commands of the README: `make demo` and `make test`.
# Each creates (or reuses) the virtual environment itself.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit system-deps venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

# apt packages the tests use for real: chromium (dashboard), mosquitto (café),
# poppler-utils (renders the printable marker PDF).
system-deps:
	@bash scripts/install-system-deps.sh

demo: $(STAMP)
	$(BIN)/companion demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy companion

unit: $(STAMP) system-deps
	$(BIN)/python -m pytest

test: lint typecheck unit

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache
